/*
 * Unit tests for replays: a source's boundary columns per kind and mode
 * (src/project/bounds.c) and the declarations refused at load; the
 * closure and its anchors over the typed lineage (src/replay/closure.c);
 * a relation read in place of another (src/exec/render.c); and the
 * replay's one transaction (src/replay/replay.c) on DuckDB and on the
 * PostgreSQL server of the suite (SLUICE_TEST_PG): rebuilt from a start
 * time, every build undone when one fails, boundaries recorded, and a
 * refusal naming what retention pruned (src/live/retention.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_pg.h"
#include "fixture_project_wh.h"
#include "fixture_orders.h"
#include "fixture_sql.h"
#include "fixture_wh.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "exec/render.h"
#include "exec/run.h"
#include "live/advance.h"
#include "live/batch.h"
#include "live/retention.h"
#include "project/bounds.h"
#include "project/lineage_graph.h"
#include "project/project.h"
#include "replay/boundaries.h"
#include "replay/closure.h"
#include "replay/replay.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_DATABASE "sluice_unit_replay"

/* ---- boundary columns ---------------------------------------------- */

static void test_bounds_by_kind(void **state)
{
	struct source_cfg kafka = { .name = "k", .kind = "kafka" };
	struct source_cfg cdc = { .name = "c", .kind = "postgres_cdc" };
	struct source_cfg hook = { .name = "w", .kind = "webhook" };
	struct source_cfg adopted = { .name = "a", .kind = "adopted", .cursor = "id" };
	struct source_bounds b;

	(void)state;
	assert_null(source_bounds_of(&kafka, &b));
	assert_string_equal(b.mode, "offsets");
	assert_string_equal(b.part, "_sluice_partition");
	assert_string_equal(b.part_of, "_sluice_topic");
	assert_string_equal(b.value, "_sluice_offset");
	assert_string_equal(b.time, "_sluice_event_ts");
	kafka.boundary = "landed_at";
	assert_null(source_bounds_of(&kafka, &b));
	assert_null(b.part);
	assert_string_equal(b.value, "_sluice_landed_at");
	kafka.boundary = "cursor";
	assert_non_null(source_bounds_of(&kafka, &b));

	assert_null(source_bounds_of(&cdc, &b));
	assert_string_equal(b.value, "lsn");
	assert_string_equal(b.time, "received_at");
	cdc.boundary = "timestamp";
	assert_non_null(source_bounds_of(&cdc, &b));

	assert_null(source_bounds_of(&hook, &b));
	assert_string_equal(b.mode, "landed_at");
	assert_string_equal(b.time, "_sluice_landed_at");
	hook.boundary = "timestamp";
	assert_non_null(strstr(source_bounds_of(&hook, &b), "event_time"));
	hook.event_time = "ts";
	assert_null(source_bounds_of(&hook, &b));
	assert_string_equal(b.value, "ts");
	hook.boundary = "offsets";
	assert_non_null(source_bounds_of(&hook, &b));

	assert_null(source_bounds_of(&adopted, &b));
	assert_string_equal(b.mode, "cursor");
	assert_string_equal(b.value, "id");
	assert_null(b.time);
}

/* The first error of the project in f's folder holding yml, or "". */
static const char *load_error(struct fixture_project *f, const char *yml)
{
	struct project *p;

	fixture_put(f->root, "sluice.yml", yml);
	p = fixture_load(f->a, f->root);
	for (size_t i = 0; i < p->diags.n; i++)
		if (p->diags.items[i].severity == DIAG_ERROR)
			return arena_sprintf(f->a, "%d: %s", p->diags.items[i].line,
					     p->diags.items[i].msg);
	return "";
}

static int project_setup(void **state)
{
	return fixture_project_setup(state, "replay");
}

static void test_declarations_refused(void **state)
{
	struct fixture_project *f = *state;

	fixture_put(f->root, "models/a/b.sql", "SELECT 1 AS one\n");
	assert_string_equal(load_error(f, "name: r\nsources:\n  w: {kind: webhook, boundary: "
					  "offsets}\n"),
			    "3: boundary 'offsets' of source 'w': its rows have no offsets or "
			    "cursor: its modes are landed_at, and timestamp with event_time");
	assert_string_equal(load_error(f, "name: r\nsources:\n  w:\n    kind: webhook\n"
					  "    boundary: timestamp\n"),
			    "5: boundary 'timestamp' of source 'w': mode timestamp cuts on the "
			    "source's event_time, which it does not declare");
	assert_non_null(strstr(load_error(f, "name: r\nsources:\n  a:\n    kind: adopted\n"
					     "    table: s.t\n    cursor: id\n    retention: 7d\n"),
			       "7: retention of source 'a': an adopted table is someone else's"));
	assert_string_equal(load_error(f, "name: r\nsources:\n  k: {kind: kafka, brokers: b, "
					  "topic: t, retention: 7d, boundary: timestamp}\n"),
			    "");
}

/* ---- the closure ---------------------------------------------------- */

/* A source of orders with an event time, and models over it: a chain of
 * row models and an aggregate, one that drops the time, one that never
 * anchors, one that looks up a table rebuilt by each run, one that
 * looks up a seed. */
static void write_project(const char *root)
{
	fixture_put(root, "sluice.yml",
		    "name: r\nsources:\n  orders:\n    kind: webhook\n"
		    "    columns: {order_id: BIGINT, amount: BIGINT, region: VARCHAR, ts: TIMESTAMP}\n"
		    "    event_time: ts\n    boundary: timestamp\n");
	fixture_put(root, "models/silver/orders.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT order_id, amount, region, ts, _sluice_seq FROM landing.orders\n");
	fixture_put(root, "models/silver/big.sql",
		    "@config materialized=view\n"
		    "SELECT o.order_id, o.amount, o.ts FROM silver.orders AS o WHERE o.amount > 2\n");
	fixture_put(root, "models/gold/by_region.sql",
		    "@config materialized=incremental, live=true\n"
		    "SELECT region, count(*) AS orders, sum(amount) AS revenue FROM silver.orders "
		    "GROUP BY region\n");
	fixture_put(root, "models/gold/big_total.sql",
		    "@config materialized=table\nSELECT count(*) AS n FROM silver.big\n");
	fixture_put(root, "models/platinum/totals.sql",
		    "@config materialized=table\nSELECT sum(orders) AS orders FROM gold.by_region\n");
	fixture_put(root, "models/silver/slim.sql",
		    "@config materialized=view\nSELECT order_id, amount FROM landing.orders\n");
	fixture_put(root, "models/gold/slim_total.sql",
		    "@config materialized=table\nSELECT sum(amount) AS amount FROM silver.slim\n");
	fixture_put(root, "models/silver/never.sql",
		    "@config materialized=view, replay_anchor=never\n"
		    "SELECT order_id, ts FROM landing.orders\n");
	fixture_put(root, "models/gold/never_total.sql",
		    "@config materialized=table\nSELECT count(*) AS n FROM silver.never\n");
	fixture_put(root, "models/dims/regions.sql",
		    "@config materialized=table\nSELECT 'eu' AS region, 'Europe' AS name\n");
	fixture_put(root, "seeds/codes.csv", "region,code\neu,1\n");
	fixture_put(root, "models/silver/named.sql",
		    "@config materialized=view\n"
		    "SELECT o.order_id, o.ts, r.name FROM landing.orders AS o "
		    "JOIN dims.regions AS r ON r.region = o.region\n");
	fixture_put(root, "models/gold/named_total.sql",
		    "@config materialized=table\nSELECT count(*) AS n FROM silver.named\n");
	fixture_put(root, "models/silver/coded.sql",
		    "@config materialized=view\n"
		    "SELECT o.order_id, o.ts, c.code FROM landing.orders AS o "
		    "JOIN seeds.codes AS c ON c.region = o.region\n");
	fixture_put(root, "models/gold/coded_total.sql",
		    "@config materialized=table\nSELECT count(*) AS n FROM silver.coded\n");
}

struct closure_fx {
	struct fixture_project fp;
	struct lineage_graph g;
	struct replay_closure c;
	struct sl_err err;
};

static int closure_setup(void **state)
{
	struct closure_fx *f = calloc(1, sizeof(*f));

	fixture_mkdtemp(f->fp.root, "closure");
	f->fp.a = arena_new(NULL);
	write_project(f->fp.root);
	f->fp.p = fixture_load_valid(f->fp.a, f->fp.root);
	lineage_graph_build(f->fp.a, f->fp.p, parser, NULL, NULL, &f->g);
	sl_err_clear(&f->err);
	*state = f;
	return 0;
}

static int closure_teardown(void **state)
{
	struct closure_fx *f = *state;

	fixture_rmtree(f->fp.root);
	arena_free(f->fp.a);
	free(f);
	return 0;
}

/* The closure of selector: "model (why); ..." then " | " and the anchors
 * "relation", in order. */
static const char *closure_of(struct closure_fx *f, const char *selector, const char *start)
{
	struct buf b = BUF_INIT;
	const char *s;

	if (replay_closure_make(f->fp.a, f->fp.p, &f->g, selector, start, &f->c, &f->err))
		return arena_sprintf(f->fp.a, "error: %s", f->err.msg);
	for (size_t i = 0; i < f->fp.p->nmodels; i++)
		if (f->c.rebuild[i])
			buf_addf(&b, "%s%s", b.len ? "; " : "", f->fp.p->models[i]->fqn);
	buf_adds(&b, " |");
	for (size_t i = 0; i < f->c.nanchors; i++)
		buf_addf(&b, " %s", f->c.anchors[i].relation);
	s = arena_strdup(f->fp.a, b.buf);
	buf_release(&b);
	return s;
}

/* Why the closure rebuilds model. */
static const char *why(struct closure_fx *f, const char *model)
{
	const struct model *m = project_find_model(f->fp.p, model);

	assert_non_null(m);
	return f->c.why[m->order] ? f->c.why[m->order] : "(not rebuilt)";
}

static void test_closure_takes_readers(void **state)
{
	struct closure_fx *f = *state;

	assert_string_equal(closure_of(f, "silver.orders", NULL),
			    "silver.orders; gold.by_region; platinum.totals; silver.big; "
			    "gold.big_total | landing.orders");
	assert_string_equal(why(f, "silver.orders"), "selected");
	assert_string_equal(why(f, "platinum.totals"), "reads gold.by_region");
	assert_int_equal(f->c.ndirect, 1);
	assert_int_equal(f->c.nreads, 0);
}

static void test_anchor_is_a_row_model(void **state)
{
	struct closure_fx *f = *state;

	assert_string_equal(closure_of(f, "gold.by_region", NULL),
			    "gold.by_region; platinum.totals | silver.orders");
	assert_string_equal(closure_of(f, "gold.big_total", NULL), "gold.big_total | silver.big");
	assert_non_null(f->c.anchors[0].model);
	assert_string_equal(f->c.anchors[0].source->name, "orders");
	/* an aggregate between: rebuilt, the anchor further up */
	assert_string_equal(closure_of(f, "platinum.totals", NULL),
			    "gold.by_region; platinum.totals | silver.orders");
	assert_non_null(strstr(why(f, "gold.by_region"), "reads silver.orders as agg"));
}

static void test_no_anchor_without_boundary_never_or_side(void **state)
{
	struct closure_fx *f = *state;

	assert_string_equal(closure_of(f, "gold.slim_total", NULL),
			    "silver.slim; gold.slim_total | landing.orders");
	assert_string_equal(why(f, "silver.slim"),
			    "between gold.slim_total and its anchor: silver.slim does not pass "
			    "orders's ts through");
	assert_string_equal(closure_of(f, "gold.never_total", NULL),
			    "silver.never; gold.never_total | landing.orders");
	assert_non_null(strstr(why(f, "silver.never"), "sets replay_anchor=never"));
	assert_string_equal(closure_of(f, "gold.named_total", NULL),
			    "silver.named; gold.named_total | landing.orders");
	assert_non_null(strstr(why(f, "silver.named"), "looks up dims.regions, which changes"));
	/* a seed does not change: the lookup keeps the anchor */
	assert_string_equal(closure_of(f, "gold.coded_total", NULL),
			    "gold.coded_total | silver.coded");
}

static void test_start_time_reads_each_anchor_from_then(void **state)
{
	struct closure_fx *f = *state;

	assert_string_equal(closure_of(f, "gold.big_total", "2026-11-02 06:00:00"),
			    "gold.big_total | silver.big");
	assert_int_equal(f->c.nreads, 1);
	assert_string_equal(f->c.reads[0].relation, "silver.big");
	assert_string_equal(f->c.reads[0].query, "SELECT * FROM \"silver\".\"big\" WHERE \"ts\" >= "
						 "TIMESTAMP '2026-11-02 06:00:00'");
	assert_string_equal(closure_of(f, "silver.orders", "2026-11-02 06:00:00"),
			    "silver.orders; gold.by_region; platinum.totals; silver.big; "
			    "gold.big_total | landing.orders");
	assert_string_equal(f->c.reads[0].query, "SELECT * FROM \"landing\".\"orders\" WHERE "
						 "\"ts\" >= TIMESTAMP '2026-11-02 06:00:00'");
	assert_non_null(strstr(closure_of(f, "gold.nothing", NULL), "error: "));
}

/* ---- a relation read in place of another ---------------------------- */

static void test_render_reads_in_place(void **state)
{
	struct closure_fx *f = *state;
	const struct render_read read = { "landing.orders", "SELECT 1 AS order_id" };
	struct render_ctx ctx = { .env = "", .reads = &read, .nreads = 1 };
	struct buf out = BUF_INIT;

	assert_int_equal(render_model(project_find_model(f->fp.p, "silver.slim"), &ctx, false, &out,
				      &f->err),
			 0);
	assert_string_equal(out.buf, "SELECT order_id, amount FROM (SELECT 1 AS order_id) AS "
				     "\"orders\"");
	buf_reset(&out);
	assert_int_equal(render_model(project_find_model(f->fp.p, "silver.named"), &ctx, false,
				      &out, &f->err),
			 0);
	assert_non_null(strstr(out.buf, "FROM (SELECT 1 AS order_id) AS o JOIN"));
	buf_release(&out);
}

/* ---- the replay's transaction ---------------------------------------- */

static int setup_duckdb(void **state)
{
	return fx_setup_duckdb(state, "replay");
}

static int setup_postgres(void **state)
{
	return fx_setup_postgres(state, "replay", PG_DATABASE);
}

static int teardown(void **state)
{
	return fx_teardown(state);
}

/* Orders from id first, n of them, one an hour from 2026-11-01, landed
 * and announced. */
static void land(struct fx *f, int first, int n)
{
	char sql[512];
	struct live_advance adv;

	snprintf(sql, sizeof(sql),
		 "INSERT INTO landing.orders (order_id, amount, region, ts) SELECT %d + i, i %% 5, "
		 "CASE WHEN i %% 2 = 0 THEN 'eu' ELSE 'us' END, TIMESTAMP '2026-11-01 00:00:00' + i "
		 "* INTERVAL '1 hour' FROM generate_series(0, %d) AS t(i)",
		 first, n - 1);
	exec(f->w, sql);
	if (live_advance_source(f->w, "orders", &adv, &f->err))
		fail_msg("advance: %s", f->err.msg);
}

static const char **relations(struct fx *f, size_t *n)
{
	const char **rel;

	if (wh_relation_list(f->w, f->a, &rel, n, &f->err))
		fail_msg("%s", f->err.msg);
	return rel;
}

/* A batch run as sluice run makes it: its builds from scratch record
 * their boundaries. */
static void build_all(struct fx *f)
{
	struct replay_record rec = { .p = f->p };
	struct run_opts opts = { .env = "", .on_full_build = replay_record_build,
				 .record_ctx = &rec };
	struct run_report rep;
	const char **rel;
	size_t n;

	rel = relations(f, &n);
	if (live_batch_run(f->a, f->p, f->w, rel, n, &opts, &rep, &f->err))
		fail_msg("live_batch_run: %s", f->err.msg);
	assert_int_equal(rep.failed, 0);
	run_report_free(&rep);
}

/* The replay of selector from start (or NULL); returns its error code,
 * *failed the builds that failed. */
static int replay(struct fx *f, const char *selector, const char *start, size_t *failed)
{
	struct lineage_graph g;
	struct replay_closure c;
	struct replay_opts o = { .start = start };
	struct run_report rep;
	const char **rel;
	size_t n;
	int rc;

	lineage_graph_build(f->a, f->p, parser, NULL, NULL, &g);
	rc = replay_closure_make(f->a, f->p, &g, selector, start, &c, &f->err);
	rel = relations(f, &n);
	if (!rc)
		rc = replay_run(f->a, f->p, f->w, rel, n, &c, &o, &rep, &f->err);
	*failed = rc ? 0 : rep.failed;
	if (!rc)
		run_report_free(&rep);
	return rc;
}

static void write_small(struct fx *f)
{
	fixture_orders_project(f, "    retention: 30d\n");
}

/* From a start time: only the rows from then on, in both models; the
 * boundaries recorded; live goes on after them. */
static void test_replay_from_a_start_time(void **state)
{
	struct fx *f = *state;
	size_t failed;

	write_small(f);
	build_all(f);
	land(f, 0, 48);
	build_all(f);
	assert_int_equal(replay(f, "silver.orders", "2026-11-02 00:00:00", &failed), 0);
	assert_int_equal(failed, 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 24);
	assert_int_equal(query_int(f->w, "SELECT min(order_id) FROM silver.orders"), 24);
	assert_int_equal(query_int(f->w, "SELECT sum(orders) FROM gold.by_region"), 24);
	assert_int_equal(query_int(f->w, "SELECT rows FROM _sluice.replay_boundaries WHERE model = "
					 "'silver.orders' AND source = 'orders'"),
			 24);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.replay_boundaries WHERE "
					 "start_time = TIMESTAMP '2026-11-02 00:00:00'"),
			 1);
	land(f, 100, 3);
	build_all(f);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 27);
	assert_int_equal(query_int(f->w, "SELECT sum(orders) FROM gold.by_region"), 27);
}

/* A model that fails undoes every build of the replay. */
static void test_replay_failure_undoes_all(void **state)
{
	struct fx *f = *state;
	size_t failed;

	write_small(f);
	build_all(f);
	land(f, 0, 10);
	build_all(f);
	fixture_put(f->root, "models/gold/broken.sql",
		    "@config materialized=table\n@assert n < 0\n"
		    "SELECT count(*) AS n FROM silver.orders\n");
	f->p = fixture_load_valid(f->a, f->root);
	assert_int_equal(replay(f, "silver.orders", "2026-11-01 05:00:00", &failed), 0);
	assert_int_equal(failed, 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 10);
	assert_int_equal(query_int(f->w, "SELECT sum(orders) FROM gold.by_region"), 10);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM information_schema.tables WHERE "
					 "table_name = 'broken'"),
			 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.replay_boundaries WHERE "
					 "start_time IS NOT NULL"),
			 0);
	/* the locks were let go: a replay after it runs */
	fixture_put(f->root, "models/gold/broken.sql",
		    "@config materialized=table\nSELECT count(*) AS n FROM silver.orders\n");
	f->p = fixture_load_valid(f->a, f->root);
	assert_int_equal(replay(f, "silver.orders", "2026-11-01 05:00:00", &failed), 0);
	assert_int_equal(failed, 0);
	assert_int_equal(query_int(f->w, "SELECT n FROM gold.broken"), 5);
}

/* Retention prunes what every live reader has, records it, and a replay
 * that would drop rows a model holds is refused, changing nothing. */
static void test_replay_refuses_what_retention_pruned(void **state)
{
	struct fx *f = *state;
	int64_t now = 1796169600000LL; /* 2026-12-02 00:00:00 UTC */
	size_t failed;

	write_small(f);
	build_all(f);
	land(f, 0, 48);
	/* not consumed yet: nothing goes, whatever its age */
	assert_int_equal(live_retention_prune(f->w, f->p, now, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders"), 48);
	build_all(f);
	/* a model gone from the project holds nothing back */
	exec(f->w, "INSERT INTO _sluice.live_consumed VALUES ('silver.gone', 'landing.orders', 0)");
	/* rows older than 30 days before 2026-12-02: before 2026-11-02 */
	assert_int_equal(live_retention_prune(f->w, f->p, now, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders"), 24);
	assert_int_equal(query_int(f->w, "SELECT rows FROM _sluice.replay_pruned"), 24);
	assert_int_equal(replay(f, "silver.orders", NULL, &failed), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "source orders no longer holds rows silver.orders was "
					   "built with: retention pruned 24 rows"));
	/* built before any row landed, it holds what its refreshes applied */
	assert_non_null(strstr(f->err.msg, "it holds what its refreshes applied after sequence 0"));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 48);
	assert_int_equal(replay(f, "silver.orders", "2026-11-01 12:00:00", &failed), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "from 2026-11-01 12:00:00 on"));
	sl_err_clear(&f->err);
	assert_int_equal(replay(f, "silver.orders", "2026-11-02 00:00:00", &failed), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 24);
	/* recorded from then on: what retention took before is no gap */
	assert_int_equal(replay(f, "gold.by_region", NULL, &failed), 0);
}

/* A temporal model is refused: its windows commit each on its own. */
static void test_replay_refuses_temporal(void **state)
{
	struct fx *f = *state;
	size_t failed;

	write_small(f);
	fixture_put(f->root, "models/gold/daily.sql",
		    "@config materialized=incremental, temporality=temporal, time_column=day, "
		    "grain=1d, start=2026-11-01, end=2026-11-03\n"
		    "SELECT CAST(ts AS DATE) AS day, count(*) AS n FROM silver.orders WHERE ts >= "
		    "{since} AND ts < {until} GROUP BY 1\n");
	f->p = fixture_load_valid(f->a, f->root);
	build_all(f);
	assert_int_equal(replay(f, "silver.orders", NULL, &failed), SL_E_USAGE);
	assert_non_null(strstr(f->err.msg, "model gold.daily is temporal"));
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_bounds_by_kind),
		cmocka_unit_test_setup_teardown(test_declarations_refused, project_setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_closure_takes_readers, closure_setup,
						closure_teardown),
		cmocka_unit_test_setup_teardown(test_anchor_is_a_row_model, closure_setup,
						closure_teardown),
		cmocka_unit_test_setup_teardown(test_no_anchor_without_boundary_never_or_side,
						closure_setup, closure_teardown),
		cmocka_unit_test_setup_teardown(test_start_time_reads_each_anchor_from_then,
						closure_setup, closure_teardown),
		cmocka_unit_test_setup_teardown(test_render_reads_in_place, closure_setup,
						closure_teardown),
	};
	const struct CMUnitTest on_warehouses[] = {
		cmocka_unit_test_setup_teardown(test_replay_from_a_start_time, setup_duckdb, teardown),
		cmocka_unit_test_setup_teardown(test_replay_failure_undoes_all, setup_duckdb, teardown),
		cmocka_unit_test_setup_teardown(test_replay_refuses_what_retention_pruned, setup_duckdb,
						teardown),
		cmocka_unit_test_setup_teardown(test_replay_refuses_temporal, setup_duckdb, teardown),
		cmocka_unit_test_setup_teardown(test_replay_from_a_start_time, setup_postgres,
						teardown),
		cmocka_unit_test_setup_teardown(test_replay_failure_undoes_all, setup_postgres,
						teardown),
		cmocka_unit_test_setup_teardown(test_replay_refuses_what_retention_pruned,
						setup_postgres, teardown),
		cmocka_unit_test_setup_teardown(test_replay_refuses_temporal, setup_postgres, teardown),
	};
	int failed = cmocka_run_group_tests_name("pure", pure, group_setup, group_teardown);

	return failed + cmocka_run_group_tests_name("warehouses", on_warehouses, group_setup,
						    group_teardown);
}
