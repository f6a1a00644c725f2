/*
 * Benchmark: change events streamed into a large live CDC model the way
 * `sluice serve` runs it, in one process: a sender submits RATE events/s
 * (70% updates, 20% inserts, 10% deletes) in requests of STREAM_CHUNK to
 * the ingest writer, which group-commits them into landing.changes and
 * announces each commit to the live runner thread, which coalesces the
 * advances with the project's live schedule and refreshes silver.accounts
 * (merge on id, cdc_op, cdc_seq). The lag of an event is from the commit
 * that landed it (the writer's answer) to the commit of the refresh that
 * covered its sequence (the runner's refresh event, then the model's
 * covered sequence read on the runner's connection). The comparison, the
 * engine alone on the same stream, is raw_cdc_stream.c.
 *
 *   cdc_stream PROJECT_DIR ROWS RATE SECONDS
 *       on PROJECT_DIR/warehouse.duckdb, a copy of cdc_apply init's model
 *       of ROWS rows; prints one line (cdc_stream.h)
 */
#include "state/state.h"
#include "core/arena.h"
#include "core/err.h"
#include "ingest/writer.h"
#include "live/advance.h"
#include "live/runner.h"
#include "live/thread.h"
#include "project/project.h"
#include "warehouse/sqlparse.h"
#include "warehouse/wh.h"

#include "bench_sql.h"
#include "cdc_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL "silver.accounts"
#define NCOLS 6

static const char *const names[NCOLS] = { "id", "account", "amount", "status", "op", "lsn" };

struct run {
	struct stream s;
	struct ingest_writer *wr;
	struct live_thread *t;
	struct wh *runner_w; /* the runner's connection, used on its thread only */
};

/* One sender's request: its rows as text, as a webhook gives them. */
struct request {
	struct ingest_batch b;
	struct run *r;
	int64_t due_us; /* when its first event was due */
	const char *cells[STREAM_CHUNK * NCOLS];
	char text[STREAM_CHUNK * NCOLS * 24];
};

/* On the writer's thread, after the commit. */
static void on_landed(void *ctx, const struct ingest_result *res)
{
	struct request *q = ctx;

	if (res->code) {
		fprintf(stderr, "cdc_stream: a batch did not land: %s\n", res->error);
		exit(1);
	}
	stream_landed(&q->r->s, res->seq, res->rows, q->due_us);
	free(q);
}

/* On the writer's thread: the server's way of waking the runner. */
static void on_advanced(void *ctx, const char *source, const struct live_advance *adv)
{
	struct run *r = ctx;

	live_thread_advanced(r->t, source, adv);
}

/* On the runner's thread, after a refresh committed. */
static void on_refresh(void *ctx, const char *event, const char *model, const char *detail)
{
	struct run *r = ctx;
	struct sl_err err = SL_ERR_INIT;
	int64_t covered;

	(void)detail;
	if (strcmp(event, "refresh") != 0 || strcmp(model, MODEL) != 0)
		return;
	if (wh_query_int(r->runner_w,
			 "SELECT covered FROM _sluice.live_state WHERE model = '" MODEL "'",
			 &covered, &err))
		die(&err);
	stream_applied(&r->s, covered);
}

static int watch_job(struct live_runner *runner, struct wh *w, void *arg, struct sl_err *err)
{
	struct run *r = arg;

	(void)err;
	r->runner_w = w;
	live_runner_watch(runner, on_refresh, r);
	return 0;
}

static struct request *request_new(struct run *r, int64_t from, int64_t to)
{
	struct request *q = malloc(sizeof(*q));
	char *at;

	if (!q)
		abort();
	q->r = r;
	q->due_us = stream_due_us(&r->s, from);
	q->b = (struct ingest_batch){ .source = "landing.changes",
				      .names = names,
				      .ncols = NCOLS,
				      .nrows = (size_t)(to - from),
				      .cells = q->cells };
	at = q->text;
	for (int64_t i = from; i < to; i++) {
		const char **row = &q->cells[(i - from) * NCOLS];
		struct stream_event e;

		stream_event(&r->s, i, &e);
		row[0] = at;
		at += sprintf(at, "%lld", (long long)e.id) + 1;
		row[1] = at;
		at += sprintf(at, "%lld", (long long)e.account) + 1;
		row[2] = at;
		at += sprintf(at, "%lld", (long long)e.amount) + 1;
		row[3] = e.status;
		row[4] = e.op;
		row[5] = at;
		at += sprintf(at, "%lld", (long long)e.lsn) + 1;
	}
	return q;
}

/* The events [from, to) as requests of at most a chunk; a request the
 * writer refuses (too many rows waiting) is sent again, as a sender would. */
static void land(void *ctx, int64_t from, int64_t to)
{
	struct run *r = ctx;

	for (int64_t i = from; i < to; i += STREAM_CHUNK) {
		struct request *q =
			request_new(r, i, i + STREAM_CHUNK < to ? i + STREAM_CHUNK : to);
		struct sl_err err = SL_ERR_INIT;
		int rc;

		while ((rc = ingest_submit(r->wr, &q->b, on_landed, q, &err)) == SL_E_BUSY) {
			err = (struct sl_err)SL_ERR_INIT;
			stream_sleep_until(stream_now_us() + 1000);
		}
		if (rc)
			die(&err);
	}
}

/* The writer and the runner thread as the server starts them. */
static void start(struct arena *a, struct run *r, struct project *p, struct wh *w)
{
	struct sl_err err = SL_ERR_INIT;
	struct ingest_opts io = {
		.flush_interval_ms = p->cfg.ingest.flush_interval_ms,
		.flush_rows = p->cfg.ingest.flush_rows,
		.max_rows = p->cfg.ingest.flush_rows * 10,
		.advanced = on_advanced,
		.ctx = r,
	};
	struct wh *runner_w, *writer_w;

	if (state_ensure(w, &err) || live_sources_ensure(w, a, p, &err) ||
	    wh_connect(w, &runner_w, &err) || live_thread_start(a, p, runner_w, NULL, &r->t, &err) ||
	    live_thread_call(r->t, watch_job, r, &err) || wh_connect(w, &writer_w, &err) ||
	    ingest_writer_start(writer_w, &io, &r->wr, &err))
		die(&err);
}

int main(int argc, char **argv)
{
	struct arena *a = arena_new(NULL);
	struct sqlparse *parser;
	struct project *p;
	struct wh *w;
	struct run r = { 0 };
	int64_t seconds;

	if (argc != 5 || atoll(argv[2]) < 1 || atoll(argv[3]) < 1 || atoll(argv[4]) < 1) {
		fprintf(stderr, "usage: cdc_stream PROJECT_DIR ROWS RATE SECONDS\n");
		return 2;
	}
	seconds = atoll(argv[4]);
	stream_init(&r.s, atoll(argv[2]), atoll(argv[3]), seconds);
	p = load(a, argv[1], &parser, &w);
	start(a, &r, p, w);
	/* the warm-up: the first refresh reads the catalog and profiles the
	 * model, as a server's first one does */
	land(&r, 0, r.s.first);
	if (!stream_drain(&r.s, r.s.first, STREAM_WARMUP_US)) {
		fprintf(stderr, "cdc_stream: the warm-up was not applied in time\n");
		return 1;
	}
	stream_run(&r.s, land, &r);
	stream_drain(&r.s, r.s.total, stream_drain_us(&r.s));
	ingest_writer_stop(r.wr);
	live_thread_stop(r.t);
	stream_report(&r.s, "sluice (ingest writer + live runner)");
	stream_free(&r.s);
	wh_close(w);
	sqlparse_close(parser);
	arena_free(a);
	return 0;
}
