/*
 * Test tool: the live runner on its own thread while this process lands
 * COMMITS small batches (one row each, inserted, announced, notified)
 * into landing.orders on a second connection, in the project's warehouse
 * (DuckDB or PostgreSQL). When the writer is done and
 * the runner has caught up, prints what a test can compare: the rows in
 * every live model, how many cycles and refreshes it took, and whether each
 * model equals its query run from scratch over the same landing data.
 *   live_burst PROJECT_DIR COMMITS [PAUSE_US]
 */
#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "exec/run.h"
#include "live/advance.h"
#include "live/batch.h"
#include "live/thread.h"
#include "project/inputs.h"
#include "project/project.h"
#include "project/validate.h"
#include "warehouse/open.h"
#include "warehouse/sqlparse.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void die(const struct sl_err *err)
{
	fprintf(stderr, "live_burst: %s\n", err->msg);
	exit(1);
}

static int64_t count(struct wh *w, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;
	int64_t n = -1;

	if (wh_query_int(w, sql, &n, &err))
		die(&err);
	return n;
}

int main(int argc, char **argv)
{
	struct sl_err err = SL_ERR_INIT;
	struct arena *a = arena_new(NULL);
	struct sqlparse *parser;
	struct project *p;
	struct wh *w, *runner_conn;
	struct live_thread *t;
	struct run_opts opts = { .env = "" };
	struct run_report rep;
	const char **rel;
	size_t nrel;
	struct wh_place at;
	char sql[512];
	long commits, pause_us;
	int64_t deadline;
	size_t cycles;

	if (argc < 3) {
		fprintf(stderr, "usage: live_burst PROJECT_DIR COMMITS [PAUSE_US]\n");
		return 2;
	}
	commits = atol(argv[2]);
	pause_us = argc > 3 ? atol(argv[3]) : 1000;
	if (sqlparse_open(&parser, &err) || project_load(a, argv[1], parser, &p, &err))
		die(&err);
	at = (struct wh_place){ .type = p->cfg.warehouse.type, .path = p->cfg.warehouse.path,
				.dsn_env = p->cfg.warehouse.dsn_env, .root = argv[1] };
	if (wh_open(&at, a, WH_OPEN_CREATE, &w, &err))
		die(&err);
	if (wh_relation_list(w, a, &rel, &nrel, &err))
		die(&err);
	project_validate(p, NULL, 0);
	/* a first batch build creates the models */
	if (live_batch_run(a, p, w, rel, nrel, &opts, &rep, &err))
		die(&err);
	run_report_free(&rep);
	if (wh_connect(w, &runner_conn, &err) ||
	    live_thread_start(a, p, runner_conn, NULL, &t, &err))
		die(&err);
	for (long i = 1; i <= commits; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO landing.orders (order_id, amount, region) VALUES (%ld, %ld, '%s')",
			 i % 700, i % 13, i % 3 ? "eu" : "us");
		if (wh_exec(w, sql, &err) || live_advance_source(w, "landing.orders", NULL, &err))
			die(&err);
		live_thread_notify(t);
		if (pause_us)
			usleep((useconds_t)pause_us);
	}
	/* caught up: every live model has covered the last advance */
	deadline = units_mono_ms() + 60000;
	while (units_mono_ms() < deadline &&
	       count(w, "SELECT count(*) FROM _sluice.live_state WHERE covered < (SELECT max(watermark) "
			"FROM _sluice.live_sources)") > 0)
		usleep(20000);
	cycles = live_thread_cycles(t);
	live_thread_stop(t);
	printf("commits: %ld\n", commits);
	for (size_t i = 0; i < p->nmodels; i++) {
		struct model *m = p->models[i];

		if (!inputs_refreshes(m))
			continue;
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", m->fqn);
		printf("%s: %lld rows\n", m->fqn, (long long)count(w, sql));
		snprintf(sql, sizeof(sql),
			 "SELECT refresh_count FROM _sluice.live_state WHERE model = '%s'", m->fqn);
		fprintf(stderr, "%s: %lld refreshes\n", m->fqn, (long long)count(w, sql));
	}
	fprintf(stderr, "cycles: %zu\n", cycles);
	wh_close(w);
	sqlparse_close(parser);
	arena_free(a);
	return 0;
}
