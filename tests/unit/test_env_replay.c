/*
 * Unit tests for the models that keep watermarks in an environment: their
 * bookkeeping kept under keys of their own (src/live/ledger.c), and the
 * change policy that decides what a build from scratch there replays
 * (src/replay/envpolicy.c), on DuckDB and on the PostgreSQL server of the
 * suite (SLUICE_TEST_PG); and the policies refused when the project is
 * loaded (src/project/settings.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_pg.h"
#include "fixture_sql.h"
#include "fixture_project_wh.h"
#include "fixture_orders.h"

#include "core/arena.h"
#include "core/err.h"
#include "exec/run.h"
#include "live/advance.h"
#include "live/batch.h"
#include "project/lineage_graph.h"
#include "project/project.h"
#include "replay/envpolicy.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <string.h>

#define PG_DATABASE "sluice_unit_env_replay"
/* 2026-11-12 00:00:00 UTC: a bounded-7d cutoff falls on 2026-11-05 */
#define NOW_MS 1794441600000LL

/* The first error of the project in root, as "line: message", or "". */
static const char *load_error(struct arena *a, const char *root)
{
	struct project *p = fixture_load(a, root);

	project_validate(p, NULL, 0);
	for (size_t i = 0; i < p->diags.n; i++)
		if (p->diags.items[i].severity == DIAG_ERROR)
			return arena_sprintf(a, "%d: %s", p->diags.items[i].line,
					     p->diags.items[i].msg);
	return "";
}

static void test_policies_refused_at_load(void **state)
{
	struct fixture_project *f = *state;
	static const char head[] = "@config materialized=table,\n        replay_on_change=";

	fixture_put(f->root, "sluice.yml", "name: r\n");
	fixture_put(f->root, "models/a/b.sql",
		    arena_sprintf(f->a, "%ssometimes\nSELECT 1 AS one\n", head));
	assert_string_equal(load_error(f->a, f->root),
			    "2: replay_on_change 'sometimes' is no policy");
	fixture_put(f->root, "models/a/b.sql",
		    arena_sprintf(f->a, "%s[breaking:full, other:bounded-1d]\nSELECT 1 AS one\n",
				  head));
	assert_string_equal(load_error(f->a, f->root),
			    "2: replay_on_change 'other:bounded-1d' is no CHANGE:POLICY");
	fixture_put(f->root, "models/a/b.sql",
		    arena_sprintf(f->a, "%s[breaking:bounded-0d]\nSELECT 1 AS one\n", head));
	assert_string_equal(load_error(f->a, f->root),
			    "2: replay_on_change 'breaking:bounded-0d' is no CHANGE:POLICY");
	fixture_put(f->root, "models/a/b.sql",
		    arena_sprintf(f->a, "%s[breaking:full, non_breaking:bounded-3d]\nSELECT 1 AS "
					"one\n",
				  head));
	assert_string_equal(load_error(f->a, f->root), "");
	fixture_put(f->root, "models/a/b.sql", arena_sprintf(f->a, "%sbounded-12h\nSELECT 1 AS one\n",
							     head));
	assert_string_equal(load_error(f->a, f->root), "");
}

/* Orders from id first, n of them, one an hour from 2026-11-01, landed
 * and announced. */
static void land(struct fx *f, int first, int n)
{
	char sql[512];
	struct live_advance adv;

	snprintf(sql, sizeof(sql),
		 "INSERT INTO landing.orders (order_id, amount, region, ts) SELECT %d + i, 1, "
		 "CASE WHEN i %% 2 = 0 THEN 'eu' ELSE 'us' END, TIMESTAMP '2026-11-01 00:00:00' + "
		 "(%d + i) * INTERVAL '1 hour' FROM generate_series(0, %d) AS t(i)",
		 first, first, n - 1);
	exec(f->w, sql);
	if (live_advance_source(f->w, "orders", &adv, &f->err))
		fail_msg("advance: %s", f->err.msg);
}

/* A batch run in env ("" the main one), under the change policy in an
 * environment; the report's notes of what each model replayed into
 * notes (may be NULL), one line each. */
static void run_in(struct fx *f, const char *env, char *notes, size_t size)
{
	struct lineage_graph g;
	struct env_policy policy = { .a = f->a, .p = f->p, .g = &g, .env = env, .now_ms = NOW_MS };
	struct run_opts opts = { .env = env };
	struct run_report rep;
	const char **rel;
	size_t n, used = 0;

	if (*env) {
		lineage_graph_build(f->a, f->p, parser, NULL, NULL, &g);
		opts.scratch = env_policy_scratch;
		opts.scratch_ctx = &policy;
	}
	if (wh_relation_list(f->w, f->a, &rel, &n, &f->err) ||
	    live_batch_run(f->a, f->p, f->w, rel, n, &opts, &rep, &f->err))
		fail_msg("run: %s", f->err.msg);
	assert_int_equal(rep.failed, 0);
	for (size_t i = 0; notes && i < rep.n; i++)
		if (rep.items[i].replayed)
			used += (size_t)snprintf(notes + used, size - used, "%s: %s\n",
						 rep.items[i].m->fqn, rep.items[i].replayed);
	run_report_free(&rep);
}

static int64_t consumed(struct fx *f, const char *key)
{
	return query_int(f->w, arena_sprintf(f->a,
					     "SELECT coalesce(max(watermark), -1) FROM "
					     "_sluice.live_consumed WHERE model = '%s'",
					     key));
}

/* Unchanged in the env: rows before the cutoff come from the main table
 * (marked there to tell them apart), the newer ones are replayed; the
 * aggregate replays all; the main watermarks never move with the env's. */
static void test_env_takes_older_rows_from_main(void **state)
{
	struct fx *f = *state;
	char notes[2048];

	fixture_orders_project(f, "");
	run_in(f, "", NULL, 0);
	land(f, 0, 240);
	run_in(f, "", NULL, 0);
	exec(f->w, "UPDATE silver.orders SET amount = 1000 WHERE ts < TIMESTAMP '2026-11-05'");
	assert_int_equal(project_use_env(f->p, "pr1", &f->err), 0);
	run_in(f, "pr1", notes, sizeof(notes));
	assert_non_null(strstr(notes, "silver.orders: rows before 2026-11-05 00:00:00.000 taken "
				      "from silver.orders, replayed from then on (unchanged, "
				      "bounded-7d)"));
	assert_non_null(strstr(notes, "gold.by_region: all history replayed (unchanged, "
				      "bounded-7d: gold.by_region reads silver.orders as agg"));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver_pr1.orders"), 240);
	assert_int_equal(query_int(f->w, "SELECT count(DISTINCT order_id) FROM silver_pr1.orders"),
			 240);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver_pr1.orders WHERE amount = "
					 "1000"),
			 96);
	assert_int_equal(query_int(f->w, "SELECT sum(orders) FROM gold_pr1.by_region"), 240);
	assert_int_equal(consumed(f, "silver.orders@pr1"), consumed(f, "silver.orders"));

	/* new rows: the env takes them from its own watermark, main keeps its */
	land(f, 240, 10);
	run_in(f, "pr1", notes, sizeof(notes));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver_pr1.orders"), 250);
	assert_int_equal(query_int(f->w, "SELECT sum(orders) FROM gold_pr1.by_region"), 250);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 240);
	assert_true(consumed(f, "silver.orders@pr1") > consumed(f, "silver.orders"));
	f->p = fixture_load_valid(f->a, f->root);
	run_in(f, "", NULL, 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 250);
	assert_int_equal(consumed(f, "silver.orders@pr1"), consumed(f, "silver.orders"));
}

/* The project's policies: breaking changes bounded too, and an aggregate
 * left with the bounded range alone. */
static void test_env_fallback_without_history(void **state)
{
	struct fx *f = *state;
	char notes[2048];

	fixture_orders_project(f, "replay:\n  bounded_replay_fallback: bounded_without_history\n"
			 "  replay_on_change: {breaking: bounded-2d}\n");
	run_in(f, "", NULL, 0);
	land(f, 0, 240);
	run_in(f, "", NULL, 0);
	/* amount doubled: a breaking change, bounded by the project's policy */
	fixture_put(f->root, "models/silver/orders.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT order_id, amount * 2 AS amount, region, ts, _sluice_seq FROM "
		    "landing.orders\n");
	f->p = fixture_load_valid(f->a, f->root);
	assert_int_equal(project_use_env(f->p, "pr2", &f->err), 0);
	run_in(f, "pr2", notes, sizeof(notes));
	assert_non_null(strstr(notes, "silver.orders: rows before 2026-11-10 00:00:00.000 taken "
				      "from silver.orders, replayed from then on (breaking change, "
				      "bounded-2d)"));
	assert_non_null(strstr(notes, "gold.by_region: replayed from 2026-11-05 00:00:00.000 on, "
				      "older history left out"));
	/* 9 days from main, amount 1; the day after from the landing table */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver_pr2.orders"), 240);
	assert_int_equal(query_int(f->w, "SELECT sum(amount) FROM silver_pr2.orders"), 216 + 48);
	/* the aggregate reads the env's silver from 2026-11-05 on */
	assert_int_equal(query_int(f->w, "SELECT sum(orders) FROM gold_pr2.by_region"), 240 - 96);
}

static int setup_duckdb(void **state)
{
	return fx_setup_duckdb(state, "env-replay");
}

static int setup_postgres(void **state)
{
	return fx_setup_postgres(state, "env-replay", PG_DATABASE);
}

static int project_setup(void **state)
{
	return fixture_project_setup(state, "env-policy");
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test_setup_teardown(test_policies_refused_at_load, project_setup,
						fixture_project_teardown),
	};
	const struct CMUnitTest on_warehouses[] = {
		cmocka_unit_test_setup_teardown(test_env_takes_older_rows_from_main, setup_duckdb,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_env_fallback_without_history, setup_duckdb,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_env_takes_older_rows_from_main, setup_postgres,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_env_fallback_without_history, setup_postgres,
						fx_teardown),
	};
	int failed = cmocka_run_group_tests_name("pure", pure, group_setup, group_teardown);

	return failed + cmocka_run_group_tests_name("warehouses", on_warehouses, group_setup,
						    group_teardown);
}
