/*
 * A slot's consumer on its own thread. The consumer's progress hook copies
 * its figures under the thread's lock, so a status read never waits for
 * the source database.
 */
#include "ingest/pgcdc_thread.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "core/worker.h"
#include "ingest/pgcdc.h"
#include "project/config.h"
#include "warehouse/wh.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BACKOFF_BASE_MS 1000
#define BACKOFF_MAX_MS 60000

struct pgcdc_thread {
	struct worker wk;
	struct arena *a;
	struct pgcdc_cfg cfg;
	const char *sources; /* "orders, order_lines" */
	struct wh *w;
	FILE *log;
	pgcdc_landed_fn landed;
	void *ctx;
	volatile sig_atomic_t stop;
	bool stopped; /* joined */
	/* under wk.mu */
	bool streaming;
	struct pgcdc_stats st, total;
	uint64_t wal_end;
	int64_t behind_since_ms; /* wall clock: since the server was ahead; 0 caught up */
	int failures;
	char last_error[512];
	int64_t last_error_ms, next_attempt_ms;
};

static void on_progress(void *ctx, const struct pgcdc_stats *st, uint64_t wal_end, int64_t seq)
{
	struct pgcdc_thread *t = ctx;

	pthread_mutex_lock(&t->wk.mu);
	t->streaming = true;
	t->st = *st;
	if (wal_end > t->wal_end)
		t->wal_end = wal_end;
	if (t->wal_end > st->confirmed_lsn && !t->behind_since_ms)
		t->behind_since_ms = units_now_ms();
	else if (t->wal_end <= st->confirmed_lsn)
		t->behind_since_ms = 0;
	if (t->failures && t->log) {
		fprintf(t->log, "slot %s: streaming again\n", t->cfg.slot);
		fflush(t->log);
	}
	t->failures = 0;
	pthread_mutex_unlock(&t->wk.mu);
	if (seq && t->landed)
		t->landed(t->ctx);
}

static int64_t backoff_ms(int failures)
{
	int64_t d = BACKOFF_BASE_MS;

	for (int i = 1; i < failures && d < BACKOFF_MAX_MS; i++)
		d *= 2;
	return d < BACKOFF_MAX_MS ? d : BACKOFF_MAX_MS;
}

static void *run(void *arg)
{
	struct pgcdc_thread *t = arg;
	struct pgcdc_opts opts = { .stop = &t->stop, .progress = on_progress, .ctx = t };

	pthread_mutex_lock(&t->wk.mu);
	while (!t->wk.stop) {
		struct sl_err err = SL_ERR_INIT;
		struct pgcdc_stats st;
		int rc;

		pthread_mutex_unlock(&t->wk.mu);
		rc = pgcdc_run(t->w, &t->cfg, &opts, &st, &err);
		pthread_mutex_lock(&t->wk.mu);
		t->streaming = false;
		t->total.txns += st.txns;
		t->total.rows += st.rows;
		/* the next attempt counts from 0 again */
		t->st = st;
		t->st.txns = t->st.rows = 0;
		if (t->wk.stop)
			break;
		/* a stream that ended without an error is tried again too */
		t->failures++;
		snprintf(t->last_error, sizeof(t->last_error), "%.500s",
			 rc ? err.msg : "the server ended the replication stream");
		t->last_error_ms = units_now_ms();
		t->next_attempt_ms = units_mono_ms() + backoff_ms(t->failures);
		if (t->log) {
			fprintf(t->log, "slot %s: %s (attempt %d; again in %lld ms)\n", t->cfg.slot,
				t->last_error, t->failures, (long long)backoff_ms(t->failures));
			fflush(t->log);
		}
		/* a warehouse in doubt is the process's to answer: no retry */
		if (wh_suspect(t->w, NULL))
			break;
		while (!t->wk.stop && units_mono_ms() < t->next_attempt_ms)
			worker_wait_until(&t->wk, t->next_attempt_ms);
	}
	pthread_mutex_unlock(&t->wk.mu);
	return NULL;
}

int pgcdc_thread_start(const struct project_cfg *cfg, const struct source_cfg *src,
		       struct wh *w, FILE *log, pgcdc_landed_fn landed, void *ctx,
		       struct pgcdc_thread **out, struct sl_err *err)
{
	struct pgcdc_thread *t = calloc(1, sizeof(*t));
	char *names;
	size_t len = 0;
	int rc;

	if (!t)
		abort();
	t->a = arena_new(NULL);
	rc = pgcdc_cfg_of(t->a, cfg, src, &t->cfg, err);
	if (rc) {
		arena_free(t->a);
		free(t);
		return rc;
	}
	for (size_t i = 0; i < cfg->nsources; i++)
		if (pgcdc_source(&cfg->sources[i]) && strcmp(cfg->sources[i].slot, src->slot) == 0)
			len += strlen(cfg->sources[i].name) + 2;
	names = arena_alloc(t->a, len + 1);
	names[0] = '\0';
	for (size_t i = 0; i < cfg->nsources; i++)
		if (pgcdc_source(&cfg->sources[i]) && strcmp(cfg->sources[i].slot, src->slot) == 0) {
			if (names[0])
				strcat(names, ", ");
			strcat(names, cfg->sources[i].name);
		}
	t->sources = names;
	t->w = w;
	t->log = log;
	t->landed = landed;
	t->ctx = ctx;
	rc = worker_start(&t->wk, run, t, "postgres_cdc consumer", err);
	if (rc) {
		arena_free(t->a);
		free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void pgcdc_thread_stop(struct pgcdc_thread *t)
{
	if (!t || t->stopped)
		return;
	t->stop = 1;
	worker_stop(&t->wk);
	t->stopped = true;
}

void pgcdc_thread_free(struct pgcdc_thread *t)
{
	if (!t)
		return;
	pgcdc_thread_stop(t);
	worker_destroy(&t->wk);
	wh_close(t->w);
	arena_free(t->a);
	free(t);
}

/* An LSN as PostgreSQL writes it: 0/16B3748. */
static json_t *lsn_text(uint64_t lsn)
{
	char out[24];

	snprintf(out, sizeof(out), "%X/%X", (unsigned)(lsn >> 32), (unsigned)lsn);
	return json_string(out);
}

json_t *pgcdc_thread_status(struct pgcdc_thread *t)
{
	json_t *o = json_object();
	int64_t now = units_now_ms(), wait;

	pthread_mutex_lock(&t->wk.mu);
	wait = t->failures ? t->next_attempt_ms - units_mono_ms() : 0;
	json_object_set_new(o, "slot", json_string(t->cfg.slot));
	json_object_set_new(o, "sources", json_string(t->sources));
	json_object_set_new(o, "state", json_string(t->failures ? "failing"
						  : t->streaming ? "streaming"
								 : "starting"));
	json_object_set_new(o, "landed_lsn", lsn_text(t->st.landed_lsn));
	json_object_set_new(o, "confirmed_lsn", lsn_text(t->st.confirmed_lsn));
	json_object_set_new(o, "server_lsn", lsn_text(t->wal_end));
	json_object_set_new(o, "lag_bytes",
			    json_integer(t->wal_end > t->st.confirmed_lsn
						 ? (json_int_t)(t->wal_end - t->st.confirmed_lsn)
						 : 0));
	json_object_set_new(o, "lag_ms",
			    json_integer(t->behind_since_ms ? now - t->behind_since_ms : 0));
	json_object_set_new(o, "transactions", json_integer(t->total.txns + t->st.txns));
	json_object_set_new(o, "changes", json_integer(t->total.rows + t->st.rows));
	json_object_set_new(o, "failures", json_integer(t->failures));
	json_object_set_new(o, "last_error",
			    t->last_error[0] ? json_string(t->last_error) : json_null());
	json_object_set_new(o, "next_attempt_in_ms", json_integer(wait > 0 ? wait : 0));
	pthread_mutex_unlock(&t->wk.mu);
	return o;
}
