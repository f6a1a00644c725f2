/*
 * `sluice cdc NAME [--once] [--resnapshot]`: the postgres_cdc consumer of
 * NAME's slot in the foreground, landing every source that shares the
 * slot, until SIGINT or SIGTERM (between transactions); with --once, until
 * everything the source database had written when it started has landed;
 * with --resnapshot, from a new slot and its snapshot. It holds the
 * warehouse while it runs. Without --once, a lost connection to the source
 * database is tried again as sluice serve's consumers do (pgcdc_retry.h),
 * said on stderr; an error trying again cannot mend ends it at once.
 */
#include "cli/commands.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "live/advance.h"
#include "pgcdc/pgcdc.h"
#include "pgcdc/pgcdc_retry.h"
#include "project/project.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <signal.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void on_progress(void *ctx, const struct pgcdc_stats *st, uint64_t wal_end, int64_t seq)
{
	(void)wal_end;
	pgcdc_retry_progress(ctx, st, seq > 0, units_mono_ms());
}

/* Until the next attempt is due, or a signal stops the command. */
static void wait_retry(const struct pgcdc_retry *r)
{
	int64_t left;

	while (!stopping && (left = r->next_attempt_ms - units_mono_ms()) > 0) {
		if (left > 100)
			left = 100;
		nanosleep(&(struct timespec){ 0, left * 1000000L }, NULL);
	}
}

/* The consumer until stopped, once done, or an error that trying again
 * cannot mend; r->total gets what every attempt landed. --resnapshot holds
 * until its snapshot landed (an attempt that failed before leaves the
 * old slot, or a snapshot pending), then the attempts resume from it. */
static int consume(struct cli_session *s, const struct pgcdc_cfg *c, struct pgcdc_opts *opts,
		   struct pgcdc_retry *r, struct sl_err *err)
{
	for (;;) {
		struct pgcdc_stats st;
		int rc;

		sl_err_clear(err);
		rc = pgcdc_run(s->wh, c, opts, &st, err);
		pgcdc_retry_ended(r, &st);
		if (st.snapshot_rows >= 0)
			opts->resnapshot = false;
		if (stopping || opts->once || !pgcdc_retry_mends(rc) || wh_suspect(s->wh, NULL))
			return rc;
		pgcdc_retry_failed(r, rc, err);
		wait_retry(r);
		if (stopping)
			return 0;
	}
}

int cli_cdc(struct cli_args *args)
{
	struct cli_session s;
	const struct source_cfg *src;
	struct sl_err err = SL_ERR_INIT;
	struct pgcdc_retry retry;
	struct pgcdc_opts opts = { .once = args->once, .stop = &stopping,
				   .resnapshot = args->resnapshot, .progress = on_progress,
				   .ctx = &retry };
	const struct pgcdc_stats *st = &retry.total;
	struct pgcdc_cfg c;
	struct sigaction sa;
	int rc;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice cdc NAME [--once] [--resnapshot]\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_WRITE, true);
	if (rc)
		return rc;
	src = cli_find_source(&s.project->cfg, args->pos[0], "postgres_cdc",
			      "declare one under sources: with kind: postgres_cdc, dsn_env, slot "
			      "and publication");
	if (!src) {
		cli_session_close(&s);
		return CLI_FAILED;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = pgcdc_cfg_of(s.arena, s.project, src, &c, &err);
	opts.a = s.arena;
	pgcdc_retry_init(&retry, src->slot, stderr);
	if (!rc)
		rc = state_ensure(s.wh, &err);
	if (!rc)
		rc = live_sources_ensure(s.wh, s.arena, s.project, &err);
	/* the stream reader keeps a core busy; the committer is the
	 * warehouse's calling thread */
	if (!rc)
		rc = wh_leave_cores(s.wh, 1, &err);
	if (!rc)
		rc = consume(&s, &c, &opts, &retry, &err);
	if (st->snapshot_rows >= 0)
		printf("slot %s: initial snapshot landed, %lld row%s\n", retry.slot,
		       (long long)st->snapshot_rows, st->snapshot_rows == 1 ? "" : "s");
	if (!rc || st->txns)
		printf("slot %s: %lld transaction%s landed (%lld change%s), %lld skipped as landed "
		       "before; landed up to LSN %X/%X\n",
		       retry.slot, (long long)st->txns, st->txns == 1 ? "" : "s",
		       (long long)st->rows, st->rows == 1 ? "" : "s", (long long)st->skipped,
		       (unsigned)(st->landed_lsn >> 32), (unsigned)st->landed_lsn);
	fflush(stdout);
	if (rc) {
		sl_err_context(&err, "in source %s (slot %s)", src->name, src->slot);
		cli_print_err(&err);
	}
	cli_session_close(&s);
	return rc ? CLI_FAILED : CLI_OK;
}
