/*
 * Trying a postgres_cdc consumer again: the backoff, the failures in a
 * row, the log lines, and which failures an attempt may mend. Never
 * waits itself: a thread waits on its signal, a command in the
 * foreground until its next attempt or a stop.
 */
#include "pgcdc/pgcdc_retry.h"

#include "core/err.h"
#include "core/units.h"
#include "pgcdc/pgcdc_pg.h"

#include <string.h>

#define BACKOFF_BASE_MS 1000
#define BACKOFF_MAX_MS 60000
#define STEADY_MS 5000

void pgcdc_retry_init(struct pgcdc_retry *r, const char *slot, FILE *log)
{
	*r = (struct pgcdc_retry){ .slot = slot, .log = log, .total = { .snapshot_rows = -1 } };
}

void pgcdc_retry_ended(struct pgcdc_retry *r, const struct pgcdc_stats *st)
{
	struct pgcdc_stats *t = &r->total;

	t->txns += st->txns;
	t->rows += st->rows;
	t->skipped += st->skipped;
	/* an attempt that failed before it read the stored LSNs has zeros */
	t->landed_lsn = pgcdc_lsn_max(t->landed_lsn, st->landed_lsn);
	t->confirmed_lsn = pgcdc_lsn_max(t->confirmed_lsn, st->confirmed_lsn);
	if (st->snapshot_rows >= 0)
		t->snapshot_rows = st->snapshot_rows;
}

int64_t pgcdc_retry_backoff_ms(int failures)
{
	int64_t d = BACKOFF_BASE_MS;

	for (int i = 1; i < failures && d < BACKOFF_MAX_MS; i++)
		d *= 2;
	return d < BACKOFF_MAX_MS ? d : BACKOFF_MAX_MS;
}

void pgcdc_retry_failed(struct pgcdc_retry *r, int rc, const struct sl_err *err)
{
	int64_t wait;

	r->failures++;
	r->heard_ms = 0;
	wait = pgcdc_retry_backoff_ms(r->failures);
	snprintf(r->last_error, sizeof(r->last_error), "%.500s",
		 rc && err ? err->msg : "the server ended the replication stream");
	r->next_attempt_ms = units_mono_ms() + wait;
	if (r->log) {
		/* the attempt on the message's first line, its hints and
		 * context lines after it */
		const char *more = strchr(r->last_error, '\n');
		int first = more ? (int)(more - r->last_error) : (int)strlen(r->last_error);

		fprintf(r->log, "slot %s: %.*s (attempt %d; again in %lld ms)%s\n", r->slot, first,
			r->last_error, r->failures, (long long)wait, more ? more : "");
		fflush(r->log);
	}
}

void pgcdc_retry_progress(struct pgcdc_retry *r, const struct pgcdc_stats *st, bool landed,
			  int64_t now_ms)
{
	if (!r->failures)
		return;
	if (!r->heard_ms) {
		r->heard_ms = now_ms;
		r->heard_confirmed = st->confirmed_lsn;
	}
	if (!landed && st->confirmed_lsn <= r->heard_confirmed && now_ms - r->heard_ms < STEADY_MS)
		return;
	if (r->log) {
		fprintf(r->log, "slot %s: streaming again\n", r->slot);
		fflush(r->log);
	}
	r->failures = 0;
}

bool pgcdc_retry_mends(int rc)
{
	return rc == 0 || rc == SL_E_IO || rc == SL_E_CONN;
}

int pgcdc_retry_stream_code(const char *sqlstate)
{
	if (sqlstate && !strcmp(sqlstate, "42704"))
		return SL_E_INVALID;
	return SL_E_IO;
}
