/*
 * Unit tests for the live-model bookkeeping on small projects written to a
 * temporary folder and an in-memory DuckDB: advances, landing tables and
 * which tables an advance may name (src/live/advance.c), tracked inputs
 * (src/live/inputs.c), the watermarks a batch run consumes and publishes
 * (src/live/watermark.c through build_run) and the ledger's end-to-end lag
 * (src/live/ledger.c). The runner and its thread are in test_live_runner.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_project_wh.h"
#include "fixture_wh.h"

#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/units.h"
#include "exec/run.h"
#include "live/advance.h"
#include "live/batch.h"
#include "live/ledger.h"
#include "live/status.h"
#include "project/inputs.h"
#include "project/model.h"
#include "project/project.h"
#include "project/validate.h"
#include "warehouse/sqlparse.h"
#include "warehouse/wh.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int setup(void **state)
{
	struct fx *f = fx_new("live");

	if (fixture_open_tiny(&f->w))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	fx_free(f);
	return 0;
}

static void load(struct fx *f)
{
	f->p = fixture_load_valid(f->a, f->root);
}

/* Rows of a landing table not stamped yet. */
static int64_t unstamped(struct fx *f, const char *table)
{
	return query_int(f->w, arena_sprintf(f->a,
					     "SELECT count(*) FROM %s WHERE _sluice_seq IS NULL",
					     table));
}

static struct live_advance advance(struct fx *f, const char *source)
{
	struct live_advance adv = { -1, -1 };

	if (live_advance_source(f->w, source, &adv, &f->err))
		fail_msg("advance %s: %s", source, f->err.msg);
	return adv;
}

/* One batch run over the whole project. */
static struct run_report run_with(struct fx *f, const struct run_opts *opts)
{
	struct run_report rep;
	const char **rel;
	size_t n;

	if (wh_relation_list(f->w, f->a, &rel, &n, &f->err))
		fail_msg("%s", f->err.msg);
	if (live_batch_run(f->a, f->p, f->w, rel, n, opts, &rep, &f->err))
		fail_msg("live_batch_run: %s", f->err.msg);
	return rep;
}

static const struct run_item *item(const struct run_report *rep, const char *fqn)
{
	for (size_t i = 0; i < rep->n; i++)
		if (strcmp(rep->items[i].m->fqn, fqn) == 0)
			return &rep->items[i];
	fail_msg("'%s' is not in the run", fqn);
	return NULL;
}

/* Runs everything; every model must end ok or up to date. */
static void run_ok(struct fx *f, bool full)
{
	struct run_opts opts = { .env = "", .full_refresh = full };
	struct run_report rep = run_with(f, &opts);

	for (size_t i = 0; i < rep.n; i++)
		if (rep.items[i].status != RUN_OK && rep.items[i].status != RUN_UP_TO_DATE)
			fail_msg("%s: %s (%s)", rep.items[i].m->fqn,
				 run_status_name(rep.items[i].status),
				 rep.items[i].message ? rep.items[i].message : "");
	run_report_free(&rep);
}

static int64_t consumed(struct fx *f, const char *model, const char *input)
{
	return query_int(f->w, arena_sprintf(f->a,
					     "SELECT coalesce(max(watermark), -1) FROM "
					     "_sluice.live_consumed "
					     "WHERE model = '%s' AND input = '%s'",
					     model, input));
}

static int64_t published(struct fx *f, const char *model)
{
	return query_int(f->w, arena_sprintf(f->a,
					     "SELECT coalesce(max(published), -1) FROM "
					     "_sluice.live_state WHERE model = '%s'",
					     model));
}

static int64_t source_wm(struct fx *f, const char *source)
{
	return query_int(f->w, arena_sprintf(f->a,
					     "SELECT coalesce(max(watermark), -1) FROM "
					     "_sluice.live_sources WHERE source = '%s'",
					     source));
}

/* As a ledger read from the tables sees it. */
static int64_t lag(struct fx *f, const char *fqn, int64_t now)
{
	struct live_ledger *l = live_ledger_new(f->a, f->p);
	int64_t ms;

	if (live_ledger_load(l, f->w, &f->err))
		fail_msg("ledger: %s", f->err.msg);
	ms = live_ledger_lag_ms(l, fixture_model(f->p, fqn), now);
	live_ledger_free(l);
	return ms;
}

#define ORDERS_YML                                                                          \
	"name: shop\n"                                                                      \
	"sources:\n"                                                                        \
	"  orders: {kind: webhook, columns: {order_id: BIGINT, amount: DOUBLE, region: "    \
	"VARCHAR}}\n"

#define SILVER_ORDERS                                                                       \
	"@config materialized=incremental, live=true, incremental_strategy=merge,\n"        \
	"        unique_key=order_id, incremental_filter=WHERE _sluice_seq > {watermark}\n" \
	"SELECT order_id, amount, region, _sluice_seq FROM landing.orders\n"

static void land(struct fx *f, const char *values)
{
	exec(f->w, arena_sprintf(f->a,
				 "INSERT INTO landing.orders (order_id, amount, region) VALUES %s",
				 values));
}

/* ---- advances ---- */

static void make_orders(struct fx *f)
{
	exec(f->w,
	     "CREATE SCHEMA landing;\n"
	     "CREATE TABLE landing.orders (order_id BIGINT, amount DOUBLE, _sluice_seq BIGINT)");
}

static void test_advance_stamps_new_rows(void **state)
{
	struct fx *f = *state;
	struct live_advance a1, a2, none;

	make_orders(f);
	exec(f->w, "INSERT INTO landing.orders (order_id, amount) VALUES (1, 10), (2, 20)");
	a1 = advance(f, "landing.orders");
	assert_true(a1.seq > 0);
	assert_int_equal(a1.rows, 2);
	assert_int_equal(unstamped(f, "landing.orders"), 0);
	assert_int_equal(query_int(f->w, "SELECT count(DISTINCT _sluice_seq) FROM landing.orders"),
			 1);
	assert_int_equal(query_int(f->w, "SELECT max(_sluice_seq) FROM landing.orders"), a1.seq);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 1);
	assert_int_equal(query_int(f->w, "SELECT rows FROM _sluice.live_advances"), 2);
	assert_int_equal(source_wm(f, "landing.orders"), a1.seq);
	assert_int_equal(query_int(f->w, "SELECT rows FROM _sluice.live_sources"), 2);

	/* only the new rows get the next sequence; the old keep theirs */
	exec(f->w,
	     "INSERT INTO landing.orders (order_id, amount) VALUES (3, 30), (4, 40), (5, 50)");
	a2 = advance(f, "landing.orders");
	assert_true(a2.seq > a1.seq);
	assert_int_equal(a2.rows, 3);
	assert_int_equal(query_int(f->w, arena_sprintf(f->a,
						       "SELECT count(*) FROM landing.orders WHERE "
						       "_sluice_seq = %lld AND order_id <= 2",
						       (long long)a1.seq)),
			 2);
	assert_int_equal(query_int(f->w, arena_sprintf(f->a,
						       "SELECT count(*) FROM landing.orders WHERE "
						       "_sluice_seq = %lld AND order_id >= 3",
						       (long long)a2.seq)),
			 3);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 2);
	assert_int_equal(
		query_int(f->w, arena_sprintf(f->a,
					      "SELECT rows FROM _sluice.live_advances WHERE "
					      "seq = %lld",
					      (long long)a2.seq)),
		3);
	/* one row per source: the watermark moves, the rows add up */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_sources"), 1);
	assert_int_equal(source_wm(f, "landing.orders"), a2.seq);
	assert_int_equal(query_int(f->w, "SELECT rows FROM _sluice.live_sources"), 5);

	/* nothing new: nothing stamped, nothing recorded */
	none = advance(f, "landing.orders");
	assert_int_equal(none.seq, 0);
	assert_int_equal(none.rows, 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 2);
	assert_int_equal(source_wm(f, "landing.orders"), a2.seq);
	assert_int_equal(query_int(f->w, "SELECT rows FROM _sluice.live_sources"), 5);
	assert_int_equal(query_int(f->w, "SELECT count(DISTINCT _sluice_seq) FROM landing.orders"),
			 2);

	/* out may be NULL */
	exec(f->w, "INSERT INTO landing.orders (order_id, amount) VALUES (6, 60)");
	assert_int_equal(live_advance_source(f->w, "orders", NULL, &f->err), 0);
	assert_int_equal(unstamped(f, "landing.orders"), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 3);
}

static void test_advance_adds_the_column(void **state)
{
	struct fx *f = *state;
	struct live_advance adv;

	exec(f->w, "CREATE SCHEMA landing;\n"
		   "CREATE TABLE landing.events (id INTEGER, kind VARCHAR);\n"
		   "INSERT INTO landing.events VALUES (1, 'a'), (2, 'b'), (3, 'c')");
	adv = advance(f, "events");
	assert_true(adv.seq > 0);
	assert_int_equal(adv.rows, 3);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT data_type FROM information_schema.columns WHERE "
				      "table_schema = 'landing' AND table_name = 'events' AND "
				      "column_name = '_sluice_seq'"),
			    "BIGINT");
	assert_int_equal(unstamped(f, "landing.events"), 0);
	/* the writer's columns are untouched */
	assert_int_equal(query_int(f->w, "SELECT sum(id) FROM landing.events"), 6);
	/* from now on an insert with a column list lines up */
	exec(f->w, "INSERT INTO landing.events (id, kind) VALUES (4, 'd')");
	adv = advance(f, "landing.events");
	assert_int_equal(adv.rows, 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM information_schema.columns WHERE "
					 "table_schema = 'landing' AND table_name = 'events'"),
			 3);
}

static void test_advance_short_and_long_names(void **state)
{
	struct fx *f = *state;
	struct live_advance a1, a2;
	char name[64];

	inputs_source_name("orders", name, sizeof(name));
	assert_string_equal(name, "landing.orders");
	inputs_source_name("landing.orders", name, sizeof(name));
	assert_string_equal(name, "landing.orders");
	inputs_source_name("Landing.Orders", name, sizeof(name));
	assert_string_equal(name, "landing.orders");

	make_orders(f);
	exec(f->w, "INSERT INTO landing.orders (order_id) VALUES (1)");
	a1 = advance(f, "orders");
	exec(f->w, "INSERT INTO landing.orders (order_id) VALUES (2)");
	a2 = advance(f, "landing.orders");
	assert_int_equal(a1.rows, 1);
	assert_int_equal(a2.rows, 1);
	assert_true(a2.seq > a1.seq);
	/* both recorded under the one full name */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_sources"), 1);
	assert_int_equal(source_wm(f, "landing.orders"), a2.seq);
	assert_int_equal(query_int(f->w, "SELECT rows FROM _sluice.live_sources"), 2);
	assert_int_equal(query_int(f->w,
				   "SELECT count(*) FROM _sluice.live_advances WHERE source = "
				   "'landing.orders'"),
			 2);
}

static void test_advance_unknown_table(void **state)
{
	struct fx *f = *state;
	struct live_advance adv;

	assert_int_equal(live_advance_source(f->w, "nope", &adv, &f->err), SL_E_NOTFOUND);
	assert_non_null(strstr(f->err.msg, "'landing.nope'"));
	/* a view is not a landing table either */
	sl_err_clear(&f->err);
	exec(f->w, "CREATE SCHEMA landing;\nCREATE VIEW landing.v AS SELECT 1 AS x");
	assert_int_equal(live_advance_source(f->w, "landing.v", NULL, &f->err), SL_E_NOTFOUND);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_sources"), 0);
}

/* "name type, ..." of a table's columns, in order. */
static const char *columns_of(struct fx *f, const char *schema, const char *name)
{
	return query_str(f->w, f->a,
			 arena_sprintf(f->a,
				       "SELECT string_agg(column_name || ' ' || data_type, ', ' "
				       "ORDER BY ordinal_position) FROM information_schema.columns "
				       "WHERE table_schema = '%s' AND table_name = '%s'",
				       schema, name));
}

static void test_sources_ensure(void **state)
{
	struct fx *f = *state;
	const char *cols;

	fixture_put(f->root, "sluice.yml",
		    "name: shop\n"
		    "sources:\n"
		    "  orders: {kind: webhook, columns: {order_id: BIGINT, amount: DOUBLE}}\n"
		    "  pings: {kind: webhook}\n"
		    "  customers: {kind: postgres_cdc, dsn_env: PG_DSN, slot: s, publication: p}\n"
		    "  clicks: {kind: kafka, brokers: 'localhost:9092', topic: clicks}\n"
		    "  legacy: {kind: adopted, table: raw.legacy, cursor: updated_at}\n");
	fixture_put(f->root, "models/silver/x.sql", "SELECT 1 AS x\n");
	load(f);
	assert_int_equal(live_sources_ensure(f->w, f->a, f->p, &f->err), 0);

	/* webhook: the declared columns first, then the payload and the sequence */
	cols = columns_of(f, "landing", "orders");
	assert_true(strncmp(cols, "order_id BIGINT, amount DOUBLE, ", 32) == 0);
	assert_non_null(strstr(cols, "payload JSON"));
	assert_non_null(strstr(cols, "_sluice_seq BIGINT"));
	cols = columns_of(f, "landing", "pings");
	assert_non_null(strstr(cols, "payload JSON"));
	assert_non_null(strstr(cols, "_sluice_seq BIGINT"));
	/* the CDC landing convention */
	assert_string_equal(columns_of(f, "landing", "customers"),
			    "op VARCHAR, lsn BIGINT, xid BIGINT, received_at TIMESTAMP, payload JSON, "
			    "_sluice_seq BIGINT, _sluice_pos BIGINT");
	cols = columns_of(f, "landing", "clicks");
	assert_non_null(strstr(cols, "payload JSON"));
	assert_non_null(strstr(cols, "_sluice_seq BIGINT"));
	/* an adopted source is someone else's table */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM information_schema.tables WHERE "
					 "table_name = 'legacy'"),
			 0);

	/* a second call keeps what is there */
	exec(f->w, "INSERT INTO landing.orders (order_id, amount) VALUES (1, 2)");
	assert_int_equal(live_sources_ensure(f->w, f->a, f->p, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders"), 1);
	/* a CDC landing table from before xid and positions gets the
	 * columns, rows kept */
	exec(f->w, "ALTER TABLE landing.customers DROP COLUMN _sluice_pos; ALTER TABLE "
		   "landing.customers DROP COLUMN xid; INSERT INTO landing.customers (op) VALUES ('c')");
	assert_int_equal(live_sources_ensure(f->w, f->a, f->p, &f->err), 0);
	assert_non_null(strstr(columns_of(f, "landing", "customers"), ", _sluice_pos BIGINT"));
	assert_non_null(strstr(columns_of(f, "landing", "customers"), "xid BIGINT"));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.customers"), 1);
	/* and the tables take advances straight away */
	assert_int_equal(advance(f, "orders").rows, 1);
}

static void test_sources_ensure_without_sources(void **state)
{
	struct fx *f = *state;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/x.sql", "SELECT 1 AS x\n");
	load(f);
	assert_int_equal(live_sources_ensure(f->w, f->a, f->p, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM information_schema.schemata WHERE "
					 "schema_name = 'landing'"),
			 0);
}

/* ---- what an advance may name ---- */

/* A declared source, an adopted one, a landing table a live model reads
 * through a view, one only a batch model reads, and models of both kinds. */
static void write_targets_project(struct fx *f)
{
	fixture_put(f->root, "sluice.yml",
		    "name: shop\n"
		    "sources:\n"
		    "  orders: {kind: webhook, columns: {order_id: BIGINT, amount: DOUBLE, region: "
		    "VARCHAR}}\n"
		    "  legacy: {kind: adopted, table: raw.legacy, cursor: id}\n");
	fixture_put(f->root, "models/silver/orders.sql", SILVER_ORDERS);
	fixture_put(f->root, "models/staging/events.sql", "SELECT * FROM landing.events\n");
	fixture_put(f->root, "models/gold/events.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT * FROM staging.events\n");
	fixture_put(f->root, "models/silver/clicks.sql",
		    "@config materialized=table\nSELECT * FROM landing.clicks\n");
	fixture_put(f->root, "models/gold/summary.sql",
		    "@config materialized=table\nSELECT count(*) AS n FROM silver.orders\n");
	load(f);
}

/* The table name resolves to, or "" when it is refused (the code in
 * f->err). */
static const char *target(struct fx *f, const char *name)
{
	char fqn[256];

	sl_err_clear(&f->err);
	if (live_advance_target(f->a, f->p, name, fqn, sizeof(fqn), &f->err))
		return "";
	return arena_strdup(f->a, fqn);
}

static void test_target_declared_source(void **state)
{
	struct fx *f = *state;

	write_targets_project(f);
	assert_string_equal(target(f, "orders"), "landing.orders");
	assert_string_equal(target(f, "landing.orders"), "landing.orders");
	assert_string_equal(target(f, "Landing.Orders"), "landing.orders");
	/* an adopted source's advance reads its own table, which it never
	 * writes */
	assert_string_equal(target(f, "legacy"), "raw.legacy");
	assert_string_equal(target(f, "raw.legacy"), "raw.legacy");
	assert_int_equal(f->err.code, 0);
}

static void test_target_tracked_landing_table(void **state)
{
	struct fx *f = *state;

	write_targets_project(f);
	/* undeclared, but a live model reads it through a view */
	assert_string_equal(target(f, "events"), "landing.events");
	assert_string_equal(target(f, "landing.events"), "landing.events");
	/* read by a batch model only: nothing follows its sequence */
	assert_string_equal(target(f, "landing.clicks"), "");
	assert_int_equal(f->err.code, SL_E_NOTFOUND);
}

static void test_target_refuses_state_tables(void **state)
{
	struct fx *f = *state;
	const char *cols;

	write_targets_project(f);
	assert_int_equal(live_sources_ensure(f->w, f->a, f->p, &f->err), 0);
	land(f, "(1, 10, 'eu')");
	assert_int_equal(advance(f, "orders").rows, 1);
	cols = columns_of(f, "_sluice", "live_advances");

	assert_string_equal(target(f, "_sluice.live_advances"), "");
	assert_int_equal(f->err.code, SL_E_USAGE);
	assert_string_equal(f->err.msg,
			    "'_sluice.live_advances' is not a source of this project: the _sluice "
			    "schema holds sluice's own state\n"
			    "  hint: advance a source declared under sources: in sluice.yml, or a "
			    "landing table a live model reads");
	assert_string_equal(target(f, "_SLUICE.live_sources"), "");
	assert_int_equal(f->err.code, SL_E_USAGE);

	/* an advance handed one anyway refuses it too, and changes nothing */
	sl_err_clear(&f->err);
	assert_int_equal(live_advance_source(f->w, "_sluice.live_advances", NULL, &f->err),
			 SL_E_USAGE);
	assert_non_null(strstr(f->err.msg, "'_sluice.live_advances' is not a source"));
	assert_string_equal(columns_of(f, "_sluice", "live_advances"), cols);
	assert_null(strstr(cols, "_sluice_seq"));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 1);

	/* and later advances still work */
	land(f, "(2, 20, 'us')");
	assert_int_equal(advance(f, "orders").rows, 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 2);
}

static void test_target_refuses_models(void **state)
{
	struct fx *f = *state;

	write_targets_project(f);
	assert_string_equal(target(f, "silver.orders"), "");
	assert_int_equal(f->err.code, SL_E_USAGE);
	assert_string_equal(f->err.msg,
			    "'silver.orders' is not a source of this project: it is a model, "
			    "written by its builds\n"
			    "  hint: advance what it reads: 'landing.orders'");
	/* a batch model too, and one that reads no landing table */
	assert_string_equal(target(f, "gold.summary"), "");
	assert_int_equal(f->err.code, SL_E_USAGE);
	assert_non_null(strstr(f->err.msg, "hint: advance what it reads: 'landing.orders'"));
	assert_string_equal(target(f, "staging.events"), "");
	assert_int_equal(f->err.code, SL_E_USAGE);
}

static void test_target_unknown(void **state)
{
	struct fx *f = *state;
	char fqn[8];

	write_targets_project(f);
	assert_string_equal(target(f, "ordrs"), "");
	assert_int_equal(f->err.code, SL_E_NOTFOUND);
	assert_string_equal(f->err.msg,
			    "unknown source 'ordrs' (did you mean 'orders'?)\n"
			    "  hint: advance a source declared under sources: in sluice.yml, or a "
			    "landing table a live model reads");
	assert_string_equal(target(f, "landing.evnts"), "");
	assert_non_null(strstr(f->err.msg, "(did you mean 'landing.events'?)"));
	assert_string_equal(target(f, "nosuch"), "");
	assert_int_equal(f->err.code, SL_E_NOTFOUND);
	assert_null(strstr(f->err.msg, "did you mean"));
	/* a table no one declared or follows, wherever it is */
	assert_string_equal(target(f, "raw.other"), "");
	assert_int_equal(f->err.code, SL_E_NOTFOUND);

	/* a name that does not fit is refused, not cut short */
	sl_err_clear(&f->err);
	assert_int_equal(live_advance_target(f->a, f->p, "orders", fqn, sizeof(fqn), &f->err),
			 SL_E_USAGE);
}

/* ---- inputs ---- */

static void write_inputs_project(struct fx *f)
{
	fixture_put(f->root, "sluice.yml",
		    "name: shop\n"
		    "sources:\n"
		    "  orders: {kind: webhook}\n"
		    "  refunds: {kind: webhook}\n");
	fixture_put(f->root, "models/silver/orders.sql", SILVER_ORDERS);
	fixture_put(f->root, "models/silver/orders_v.sql", "SELECT * FROM landing.orders\n");
	fixture_put(f->root, "models/silver/refunds_e.sql",
		    "@config materialized=ephemeral\nSELECT * FROM landing.refunds\n");
	fixture_put(f->root, "models/silver/plain.sql",
		    "@config materialized=incremental, incremental_strategy=append\n"
		    "SELECT * FROM landing.orders\n");
	fixture_put(f->root, "models/silver/tracked.sql",
		    "@config materialized=incremental, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT * FROM landing.orders\n");
	fixture_put(f->root, "models/silver/live_view.sql",
		    "@config live=true\nSELECT * FROM silver.orders\n");
	fixture_put(f->root, "models/ref/regions.sql",
		    "@config materialized=table\nSELECT 'eu' AS region UNION ALL SELECT 'us'\n");
	/* a view over a landing table, looked through */
	fixture_put(f->root, "models/gold/via_view.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT * FROM silver.orders_v\n");
	/* a live model over a live model, joined to a batch table */
	fixture_put(f->root, "models/gold/revenue.sql",
		    "@config materialized=incremental, live=true, "
		    "incremental_strategy=delete+insert, unique_key=region\n"
		    "SELECT o.region, sum(o.amount) AS revenue FROM silver.orders AS o\n"
		    "JOIN ref.regions AS r ON r.region = o.region\n"
		    "WHERE o.region IN (SELECT region FROM silver.orders WHERE _sluice_seq > "
		    "{watermark})\n"
		    "GROUP BY o.region\n");
	/* a live model, an ephemeral over a landing table and a live view */
	fixture_put(f->root, "models/gold/mix.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=merge, "
		    "unique_key=order_id\n"
		    "SELECT o.order_id, r.amount FROM silver.live_view AS o\n"
		    "JOIN silver.refunds_e AS r ON r.order_id = o.order_id\n"
		    "WHERE o._sluice_seq > {watermark:silver.orders} OR r._sluice_seq > "
		    "{watermark:refunds}\n");
	/* a live model over a batch incremental */
	fixture_put(f->root, "models/gold/from_plain.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=merge, "
		    "unique_key=order_id\n"
		    "SELECT * FROM silver.plain\n");
	/* a model over the live gold.revenue, through another live hop */
	fixture_put(f->root, "models/gold/top.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=merge, "
		    "unique_key=region\n"
		    "SELECT region, revenue FROM gold.revenue WHERE revenue > {watermark}\n");
	load(f);
}

static struct model_inputs inputs_of(struct fx *f, const char *fqn)
{
	struct model_inputs in;

	inputs_find(f->a, fixture_model(f->p, fqn), &in);
	return in;
}

/* in must hold one input, of this kind and name. */
static void expect_one_input(const struct model_inputs *in, enum input_kind kind,
			     const char *name)
{
	assert_int_equal(in->n, 1);
	assert_int_equal(in->items[0].kind, kind);
	assert_string_equal(in->items[0].name, name);
}

static void test_inputs_refreshes_and_tracks(void **state)
{
	struct fx *f = *state;

	write_inputs_project(f);
	assert_true(inputs_refreshes(fixture_model(f->p, "silver.orders")));
	assert_true(inputs_tracks(fixture_model(f->p, "silver.orders")));
	/* a live view is read at query time: never refreshed */
	assert_false(inputs_refreshes(fixture_model(f->p, "silver.live_view")));
	assert_false(inputs_tracks(fixture_model(f->p, "silver.live_view")));
	/* an incremental model keeps watermarks when its SQL uses one */
	assert_false(inputs_refreshes(fixture_model(f->p, "silver.tracked")));
	assert_true(inputs_tracks(fixture_model(f->p, "silver.tracked")));
	assert_false(inputs_refreshes(fixture_model(f->p, "silver.plain")));
	assert_false(inputs_tracks(fixture_model(f->p, "silver.plain")));
	assert_false(inputs_tracks(fixture_model(f->p, "ref.regions")));
	assert_false(inputs_tracks(fixture_model(f->p, "silver.orders_v")));
}

static void test_inputs_landing_table(void **state)
{
	struct fx *f = *state;
	struct model_inputs in;

	write_inputs_project(f);
	in = inputs_of(f, "silver.orders");
	expect_one_input(&in, INPUT_SOURCE, "landing.orders");
	assert_null(in.items[0].model);
	assert_int_equal(in.nbatch, 0);
	assert_int_equal(in.nsources, 1);
	assert_string_equal(in.sources[0], "landing.orders");

	/* {watermark:orders} and {watermark:landing.orders} name the same input */
	assert_ptr_equal(inputs_get(&in, "orders"), &in.items[0]);
	assert_ptr_equal(inputs_get(&in, "landing.orders"), &in.items[0]);
	assert_null(inputs_get(&in, "refunds"));
	assert_null(inputs_get(&in, "silver.orders"));
}

static void test_inputs_view_looked_through(void **state)
{
	struct fx *f = *state;
	struct model_inputs in;

	write_inputs_project(f);
	in = inputs_of(f, "gold.via_view");
	expect_one_input(&in, INPUT_SOURCE, "landing.orders");
	assert_int_equal(in.nbatch, 0);
	assert_int_equal(in.nsources, 1);
}

static void test_inputs_live_model_and_batch(void **state)
{
	struct fx *f = *state;
	struct model_inputs in;

	write_inputs_project(f);
	in = inputs_of(f, "gold.revenue");
	expect_one_input(&in, INPUT_MODEL, "silver.orders");
	assert_ptr_equal(in.items[0].model, fixture_model(f->p, "silver.orders"));
	/* read twice in the SQL, listed once */
	assert_int_equal(in.nbatch, 1);
	assert_ptr_equal(in.batch[0], fixture_model(f->p, "ref.regions"));
	/* the landing table behind the live input, for lag */
	assert_int_equal(in.nsources, 1);
	assert_string_equal(in.sources[0], "landing.orders");
	assert_ptr_equal(inputs_get(&in, "silver.orders"), &in.items[0]);
	assert_null(inputs_get(&in, "orders"));

	/* a batch incremental does not trigger refreshes */
	in = inputs_of(f, "gold.from_plain");
	assert_int_equal(in.n, 0);
	assert_int_equal(in.nbatch, 1);
	assert_ptr_equal(in.batch[0], fixture_model(f->p, "silver.plain"));
	assert_int_equal(in.nsources, 0);
}

static void test_inputs_ephemeral_and_transitive(void **state)
{
	struct fx *f = *state;
	struct model_inputs in;

	write_inputs_project(f);
	in = inputs_of(f, "gold.mix");
	/* the live view shows silver.orders; the ephemeral shows landing.refunds */
	assert_int_equal(in.n, 2);
	assert_int_equal(in.items[0].kind, INPUT_MODEL);
	assert_string_equal(in.items[0].name, "silver.orders");
	assert_int_equal(in.items[1].kind, INPUT_SOURCE);
	assert_string_equal(in.items[1].name, "landing.refunds");
	assert_int_equal(in.nbatch, 0);
	assert_int_equal(in.nsources, 2);
	assert_string_equal(in.sources[0], "landing.orders");
	assert_string_equal(in.sources[1], "landing.refunds");
	assert_ptr_equal(inputs_get(&in, "refunds"), &in.items[1]);
	assert_ptr_equal(inputs_get(&in, "landing.refunds"), &in.items[1]);

	/* two live hops: the sources still reach through */
	in = inputs_of(f, "gold.top");
	assert_int_equal(in.n, 1);
	assert_string_equal(in.items[0].name, "gold.revenue");
	assert_int_equal(in.nsources, 1);
	assert_string_equal(in.sources[0], "landing.orders");
	assert_int_equal(in.nbatch, 0);
}

/* ---- watermarks through batch runs ---- */

static void write_orders_project(struct fx *f, const char *silver)
{
	fixture_put(f->root, "sluice.yml", ORDERS_YML);
	fixture_put(f->root, "models/silver/orders.sql", silver);
	load(f);
}

static void test_watermark_unstamped_rows_invisible(void **state)
{
	struct fx *f = *state;

	write_orders_project(f, SILVER_ORDERS);
	/* the first run creates the landing table and the model */
	run_ok(f, false);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 0);
	assert_int_equal(consumed(f, "silver.orders", "landing.orders"), 0);
	assert_int_equal(published(f, "silver.orders"), 0);

	land(f, "(1, 10, 'eu'), (2, 5, 'us')");
	run_ok(f, false);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 0);
	/* a full refresh does not see them either */
	run_ok(f, true);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 0);
	assert_int_equal(consumed(f, "silver.orders", "landing.orders"), 0);
}

static void test_watermark_consumed_and_published(void **state)
{
	struct fx *f = *state;
	struct live_advance a1, a2;
	struct run_opts opts = { .env = "" };
	struct run_report rep;

	write_orders_project(f, SILVER_ORDERS);
	run_ok(f, false);
	land(f, "(1, 10, 'eu'), (2, 5, 'us')");
	a1 = advance(f, "orders");
	rep = run_with(f, &opts);
	assert_int_equal(item(&rep, "silver.orders")->status, RUN_OK);
	assert_string_equal(item(&rep, "silver.orders")->reason, "new events");
	assert_int_equal(item(&rep, "silver.orders")->rows, 2);
	run_report_free(&rep);
	assert_int_equal(consumed(f, "silver.orders", "landing.orders"), a1.seq);
	assert_int_equal(consumed(f, "silver.orders", "landing.orders"),
			 source_wm(f, "landing.orders"));
	assert_int_equal(published(f, "silver.orders"), a1.seq);
	assert_int_equal(query_int(f->w, "SELECT max(_sluice_seq) FROM silver.orders"), a1.seq);

	/* an update and a new row: only the new batch is read */
	land(f, "(1, 12, 'eu'), (3, 7, 'eu')");
	a2 = advance(f, "landing.orders");
	land(f, "(9, 1, 'us')"); /* not announced: waits */
	rep = run_with(f, &opts);
	assert_int_equal(item(&rep, "silver.orders")->rows, 2);
	run_report_free(&rep);
	assert_int_equal(consumed(f, "silver.orders", "landing.orders"), a2.seq);
	assert_int_equal(published(f, "silver.orders"), a2.seq);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 3);
	assert_int_equal(query_int(f->w, "SELECT amount FROM silver.orders WHERE order_id = 1"),
			 12);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders WHERE order_id = 9"),
			 0);

	/* caught up: nothing to do */
	rep = run_with(f, &opts);
	assert_int_equal(item(&rep, "silver.orders")->status, RUN_UP_TO_DATE);
	run_report_free(&rep);
	assert_int_equal(consumed(f, "silver.orders", "landing.orders"), a2.seq);
	/* the live state counts refreshes and events */
	assert_int_equal(query_int(f->w, "SELECT events FROM _sluice.live_state WHERE model = "
					 "'silver.orders'"),
			 4);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT status FROM _sluice.live_state WHERE model = "
				      "'silver.orders'"),
			    "live");
}

/* A live model that does not pass _sluice_seq through publishes a counter. */
static void test_watermark_refresh_counter(void **state)
{
	struct fx *f = *state;
	struct run_opts opts = { .env = "" };
	struct run_report rep;
	int64_t c0, c1;

	fixture_put(f->root, "sluice.yml", ORDERS_YML);
	fixture_put(f->root, "models/silver/amounts.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=merge, "
		    "unique_key=order_id\n"
		    "SELECT order_id, amount FROM landing.orders\n"
		    "WHERE _sluice_seq > {watermark} AND amount > 0\n");
	fixture_put(f->root, "models/gold/total.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=merge, "
		    "unique_key=k\n"
		    "SELECT 1 AS k, sum(amount) AS total, {watermark} AS seen "
		    "FROM silver.amounts\n");
	load(f);
	run_ok(f, false);
	c0 = published(f, "silver.amounts");

	land(f, "(1, 10, 'eu'), (2, 5, 'us')");
	advance(f, "orders");
	rep = run_with(f, &opts);
	assert_int_equal(item(&rep, "silver.amounts")->rows, 2);
	/* the counter told gold to look */
	assert_int_equal(item(&rep, "gold.total")->status, RUN_OK);
	run_report_free(&rep);
	c1 = published(f, "silver.amounts");
	assert_int_equal(c1, c0 + 1);
	assert_int_equal(consumed(f, "gold.total", "silver.amounts"), c1);
	assert_int_equal(query_int(f->w, "SELECT total FROM gold.total"), 15);
	assert_int_equal(query_int(f->w, "SELECT seen FROM gold.total"), c0);

	/* a batch that changes no row: consumed, but the counter stays */
	land(f, "(3, -1, 'eu')");
	advance(f, "orders");
	rep = run_with(f, &opts);
	assert_int_equal(item(&rep, "silver.amounts")->status, RUN_OK);
	assert_int_equal(item(&rep, "silver.amounts")->rows, 0);
	assert_int_equal(item(&rep, "gold.total")->status, RUN_UP_TO_DATE);
	run_report_free(&rep);
	assert_int_equal(published(f, "silver.amounts"), c1);
	assert_int_equal(consumed(f, "silver.amounts", "landing.orders"),
			 source_wm(f, "landing.orders"));

	/* rows again: the counter moves on */
	land(f, "(4, 1, 'eu')");
	advance(f, "orders");
	run_ok(f, false);
	assert_int_equal(published(f, "silver.amounts"), c1 + 1);
	assert_int_equal(query_int(f->w, "SELECT total FROM gold.total"), 16);
}

static void test_watermark_named_inputs(void **state)
{
	struct fx *f = *state;
	struct live_advance sa1, sb, sa2;

	fixture_put(f->root, "sluice.yml",
		    "name: shop\n"
		    "sources:\n"
		    "  a: {kind: webhook, columns: {id: BIGINT}}\n"
		    "  b: {kind: webhook, columns: {id: BIGINT}}\n");
	/* one row per build: what each placeholder stood for */
	fixture_put(f->root, "models/silver/ab.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE true\n"
		    "SELECT {watermark:landing.a} AS wm_a, {watermark:b} AS wm_b,\n"
		    "  (SELECT count(*) FROM landing.a\n"
		    "   WHERE _sluice_seq > {watermark:landing.a}) AS new_a,\n"
		    "  (SELECT count(*) FROM landing.b WHERE _sluice_seq > {watermark:b}) "
		    "AS new_b\n");
	load(f);
	run_ok(f, false);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT wm_a || '/' || wm_b || '/' || new_a || '/' || new_b "
				      "FROM silver.ab"),
			    "0/0/0/0");

	exec(f->w, "INSERT INTO landing.a (id) VALUES (1), (2);\n"
		   "INSERT INTO landing.b (id) VALUES (1)");
	sa1 = advance(f, "a");
	sb = advance(f, "b");
	exec(f->w, "INSERT INTO landing.a (id) VALUES (3)");
	sa2 = advance(f, "a");
	assert_true(sa1.seq < sb.seq && sb.seq < sa2.seq);
	run_ok(f, false);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT wm_a || '/' || wm_b || '/' || new_a || '/' || new_b "
				      "FROM silver.ab ORDER BY wm_a + wm_b + new_a DESC LIMIT 1"),
			    "0/0/3/1");
	assert_int_equal(consumed(f, "silver.ab", "landing.a"), sa2.seq);
	assert_int_equal(consumed(f, "silver.ab", "landing.b"), sb.seq);

	/* only a moves: each placeholder renders its own input's value */
	exec(f->w, "INSERT INTO landing.a (id) VALUES (4)");
	sa1 = advance(f, "a");
	run_ok(f, false);
	assert_string_equal(
		query_str(f->w, f->a,
			  arena_sprintf(f->a,
					"SELECT wm_a || '/' || wm_b || '/' || new_a || "
					"'/' || new_b FROM silver.ab WHERE wm_a = %lld",
					(long long)sa2.seq)),
		arena_sprintf(f->a, "%lld/%lld/1/0", (long long)sa2.seq, (long long)sb.seq));
	assert_int_equal(consumed(f, "silver.ab", "landing.a"), sa1.seq);
	assert_int_equal(consumed(f, "silver.ab", "landing.b"), sb.seq);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.ab"), 3);
}

static void test_watermark_failed_build_changes_nothing(void **state)
{
	struct fx *f = *state;
	struct run_opts opts = { .env = "" };
	struct run_report rep;
	struct live_advance a1;
	const char *before;

	write_orders_project(f, "@assert amount >= 0\n" SILVER_ORDERS);
	run_ok(f, false);
	land(f, "(1, 10, 'eu'), (2, 5, 'us')");
	a1 = advance(f, "orders");
	run_ok(f, false);
	before = query_str(f->w, f->a,
			   "SELECT string_agg(order_id || ':' || amount, ',' ORDER BY order_id) "
			   "FROM silver.orders");

	land(f, "(1, 11, 'eu'), (3, -1, 'us')");
	advance(f, "orders");
	rep = run_with(f, &opts);
	assert_int_equal(rep.failed, 1);
	assert_int_equal(item(&rep, "silver.orders")->status, RUN_FAILED);
	assert_true(item(&rep, "silver.orders")->had_previous);
	assert_non_null(strstr(item(&rep, "silver.orders")->message, "amount >= 0"));
	run_report_free(&rep);
	/* rolled back: the rows, what it consumed and what it published */
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT string_agg(order_id || ':' || amount, ',' ORDER BY "
				      "order_id) FROM silver.orders"),
			    before);
	assert_int_equal(consumed(f, "silver.orders", "landing.orders"), a1.seq);
	assert_int_equal(published(f, "silver.orders"), a1.seq);
	/* the failure is on record all the same */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.run_log WHERE model = "
					 "'silver.orders' AND status = 'failed'"),
			 1);

	/* fixed at the source, the next run applies the whole pending batch */
	exec(f->w, "UPDATE landing.orders SET amount = 1 WHERE amount < 0");
	run_ok(f, false);
	assert_int_equal(consumed(f, "silver.orders", "landing.orders"),
			 source_wm(f, "landing.orders"));
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT string_agg(order_id || ':' || amount, ',' ORDER BY "
				      "order_id) FROM silver.orders"),
			    "1:11.0,2:5.0,3:1.0");
}

static void test_watermark_full_refresh(void **state)
{
	struct fx *f = *state;
	struct run_opts opts = { .env = "", .full_refresh = true };
	struct run_report rep;
	const char *rows;
	int64_t wm, pub;

	write_orders_project(f, SILVER_ORDERS);
	run_ok(f, false);
	land(f, "(1, 10, 'eu'), (2, 5, 'us')");
	advance(f, "orders");
	run_ok(f, false);
	land(f, "(1, 12, 'eu'), (3, 7, 'eu')");
	advance(f, "orders");
	run_ok(f, false);
	land(f, "(2, 6, 'us')");
	advance(f, "orders");
	run_ok(f, false);
	rows = query_str(f->w, f->a,
			 "SELECT string_agg(order_id || ':' || amount || ':' || _sluice_seq, ',' "
			 "ORDER BY order_id) FROM silver.orders");
	wm = consumed(f, "silver.orders", "landing.orders");
	pub = published(f, "silver.orders");
	assert_int_equal(wm, source_wm(f, "landing.orders"));

	rep = run_with(f, &opts);
	assert_int_equal(item(&rep, "silver.orders")->status, RUN_OK);
	assert_string_equal(item(&rep, "silver.orders")->reason, "full refresh");
	/* recomputed from every stamped landing row, one per key */
	assert_int_equal(item(&rep, "silver.orders")->rows, 3);
	run_report_free(&rep);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT string_agg(order_id || ':' || amount || ':' || "
				      "_sluice_seq, ',' ORDER BY order_id) FROM silver.orders"),
			    rows);
	assert_int_equal(consumed(f, "silver.orders", "landing.orders"), wm);
	/* the rebuild is announced to readers, above what they consumed, by
	 * the row of weight 0 its change log starts with (pruned at once:
	 * nothing reads it) */
	assert_true(published(f, "silver.orders") > pub);
}

/* ---- lag ---- */

static void write_chain_project(struct fx *f)
{
	fixture_put(f->root, "sluice.yml", ORDERS_YML);
	fixture_put(f->root, "models/silver/orders.sql", SILVER_ORDERS);
	fixture_put(f->root, "models/gold/revenue.sql",
		    "@config materialized=incremental, live=true, "
		    "incremental_strategy=delete+insert, unique_key=region\n"
		    "SELECT region, count(*) AS orders, sum(amount) AS revenue FROM silver.orders\n"
		    "WHERE region IN (SELECT region FROM silver.orders WHERE _sluice_seq > "
		    "{watermark})\n"
		    "GROUP BY region\n");
	load(f);
}

static void test_lag_caught_up_and_behind(void **state)
{
	struct fx *f = *state;
	int64_t t0, t1, now;

	write_chain_project(f);
	run_ok(f, false);
	assert_int_equal(lag(f, "silver.orders", units_now_ms()), 0);
	/* landed but not announced: nothing arrived yet */
	land(f, "(1, 10, 'eu')");
	assert_int_equal(lag(f, "silver.orders", units_now_ms()), 0);

	t0 = units_now_ms();
	advance(f, "orders");
	t1 = units_now_ms();
	now = t1 + 5000;
	assert_in_range(lag(f, "silver.orders", now), now - t1, now - t0);
	assert_in_range(lag(f, "gold.revenue", now), now - t1, now - t0);
	/* a second advance does not make the oldest pending one younger */
	land(f, "(2, 1, 'us')");
	advance(f, "orders");
	assert_in_range(lag(f, "silver.orders", now), now - t1, now - t0);
	/* a clock behind the arrival is no negative lag */
	assert_int_equal(lag(f, "silver.orders", t0 - 1000), 0);

	run_ok(f, false);
	assert_int_equal(lag(f, "silver.orders", now), 0);
	assert_int_equal(lag(f, "gold.revenue", now), 0);
}

static void test_lag_through_a_chain(void **state)
{
	struct fx *f = *state;
	struct run_opts silver_only = { .env = "", .selector = "silver.orders" };
	struct run_report rep;
	int64_t now;

	write_chain_project(f);
	run_ok(f, false);
	land(f, "(1, 10, 'eu')");
	advance(f, "orders");
	/* the row arrived a minute ago */
	exec(f->w, "UPDATE _sluice.live_advances SET arrived_at = arrived_at - INTERVAL 1 MINUTE");
	rep = run_with(f, &silver_only);
	assert_int_equal(rep.n, 1);
	assert_int_equal(item(&rep, "silver.orders")->status, RUN_OK);
	run_report_free(&rep);
	now = units_now_ms();
	assert_int_equal(lag(f, "silver.orders", now), 0);
	/* silver refreshed just now, but gold still lags from the landing */
	assert_true(lag(f, "gold.revenue", now) >= 60000);
	assert_true(lag(f, "gold.revenue", now) < 120000);

	run_ok(f, false);
	assert_int_equal(lag(f, "gold.revenue", now), 0);
	assert_int_equal(query_int(f->w, "SELECT revenue FROM gold.revenue WHERE region = 'eu'"),
			 10);
}

static void test_lag_of_a_model_without_sources(void **state)
{
	struct fx *f = *state;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/x.sql", "SELECT 1 AS x\n");
	load(f);
	/* no landing table behind it: no query, no lag */
	assert_int_equal(lag(f, "silver.x", units_now_ms()), 0);
}

/* Coverage is per landing table: a model caught up on two sources has no
 * lag, and each source's advances are forgotten once it covered them. */
static void test_lag_of_two_sources_caught_up(void **state)
{
	struct fx *f = *state;
	struct live_advance sa, sb;

	fixture_put(f->root, "sluice.yml",
		    "name: shop\n"
		    "sources:\n"
		    "  a: {kind: webhook, columns: {id: BIGINT}}\n"
		    "  b: {kind: webhook, columns: {id: BIGINT}}\n");
	fixture_put(f->root, "models/silver/ab.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE true\n"
		    "SELECT id, _sluice_seq FROM landing.a WHERE _sluice_seq > {watermark:a}\n"
		    "UNION ALL SELECT id, _sluice_seq FROM landing.b WHERE _sluice_seq > "
		    "{watermark:b}\n");
	load(f);
	run_ok(f, false);
	exec(f->w, "INSERT INTO landing.a (id) VALUES (1)");
	sa = advance(f, "a");
	exec(f->w, "INSERT INTO landing.b (id) VALUES (2)");
	sb = advance(f, "b");
	assert_true(sa.seq < sb.seq);
	assert_true(lag(f, "silver.ab", units_now_ms() + 5000) >= 5000);
	run_ok(f, false);
	assert_int_equal(lag(f, "silver.ab", units_now_ms() + 5000), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.ab"), 2);
}

/* The state live status gives fqn. */
static const char *status_of(struct fx *f, const char *fqn)
{
	json_t *doc, *o;
	size_t i;
	const char *state = NULL;

	if (live_status_doc(f->a, f->p, f->w, &doc, &f->err))
		fail_msg("status: %s", f->err.msg);
	json_array_foreach(json_object_get(doc, "models"), i, o)
		if (strcmp(json_string_value(json_object_get(o, "model")), fqn) == 0)
			state = arena_strdup(f->a, json_string_value(json_object_get(o, "state")));
	json_decref(doc);
	if (!state)
		fail_msg("'%s' is not in the status", fqn);
	return state;
}

/* An upstream refresh that lets nothing through (its new landing row was
 * deleted before it applied it) publishes nothing: every model downstream,
 * through any number of hops, has nothing to consume and is caught up,
 * with no lag, however long ago that row arrived; its advance is
 * forgotten. */
static void test_lag_after_an_upstream_refresh_that_published_nothing(void **state)
{
	struct fx *f = *state;
	struct run_opts silver_only = { .env = "", .selector = "silver.orders" };
	struct run_opts all = { .env = "" };
	struct live_ledger *l;
	struct run_report rep;
	int64_t now;

	fixture_put(f->root, "models/gold/top.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=merge,\n"
		    "        unique_key=region\n"
		    "SELECT region, revenue FROM gold.revenue\n");
	write_chain_project(f);
	run_ok(f, false);
	land(f, "(1, 10, 'eu')");
	advance(f, "orders");
	run_ok(f, false);
	land(f, "(2, -3, 'us')");
	advance(f, "orders");
	exec(f->w, "DELETE FROM landing.orders WHERE order_id = 2");
	exec(f->w, "UPDATE _sluice.live_advances SET arrived_at = arrived_at - INTERVAL 1 MINUTE");
	rep = run_with(f, &silver_only);
	assert_int_equal(item(&rep, "silver.orders")->status, RUN_OK);
	assert_int_equal(item(&rep, "silver.orders")->rows, 0);
	run_report_free(&rep);

	now = units_now_ms();
	assert_int_equal(lag(f, "silver.orders", now), 0);
	assert_int_equal(lag(f, "gold.revenue", now), 0);
	assert_int_equal(lag(f, "gold.top", now), 0);
	assert_string_equal(status_of(f, "gold.revenue"), "live");
	assert_string_equal(status_of(f, "gold.top"), "live");
	rep = run_with(f, &all);
	assert_int_equal(item(&rep, "gold.revenue")->status, RUN_UP_TO_DATE);
	assert_int_equal(item(&rep, "gold.top")->status, RUN_UP_TO_DATE);
	run_report_free(&rep);

	l = live_ledger_new(f->a, f->p);
	if (live_ledger_load(l, f->w, &f->err) || live_ledger_prune(l, f->w, &f->err))
		fail_msg("ledger: %s", f->err.msg);
	live_ledger_free(l);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 0);

	/* what lands next is pending downstream again, from its own arrival */
	land(f, "(3, 4, 'us')");
	advance(f, "orders");
	rep = run_with(f, &silver_only);
	run_report_free(&rep);
	now = units_now_ms() + 5000;
	assert_in_range(lag(f, "gold.top", now), 5000, 10000);
	assert_string_equal(status_of(f, "gold.top"), "behind");
	run_ok(f, false);
	assert_int_equal(lag(f, "gold.top", now), 0);
	assert_int_equal(query_int(f->w, "SELECT revenue FROM gold.top WHERE region = 'us'"), 4);
}

/* A live model reading landing rows through a view is up to date when no
 * new rows were announced, however often a batch run looks. */
static void test_view_over_landing_is_tracked(void **state)
{
	struct fx *f = *state;
	struct run_report rep;
	struct run_opts opts = { .env = "" };

	fixture_put(f->root, "sluice.yml", ORDERS_YML);
	fixture_put(f->root, "models/staging/orders.sql",
		    "@config materialized=view\n"
		    "SELECT order_id, amount, _sluice_seq FROM landing.orders\n");
	fixture_put(f->root, "models/silver/orders.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=merge,\n"
		    "        unique_key=order_id, "
		    "incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT order_id, amount, _sluice_seq FROM staging.orders\n");
	load(f);
	run_ok(f, false);
	land(f, "(1, 10, 'eu')");
	advance(f, "orders");
	run_ok(f, false);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 1);
	rep = run_with(f, &opts);
	assert_int_equal(item(&rep, "silver.orders")->status, RUN_UP_TO_DATE);
	run_report_free(&rep);
}

/* A build that fails before it writes anything (here: its transaction
 * cannot begin) reports no rows and no action, not what a build before it
 * left on the stack. */
static void test_build_failing_at_begin_reports_nothing_written(void **state)
{
	struct fx *f = *state;
	struct run_opts opts = { .env = "" };
	struct run_report rep;
	const struct run_item *it;

	write_orders_project(f, SILVER_ORDERS);
	run_ok(f, false);
	land(f, "(1, 10, 'eu'), (2, 5, 'us')");
	advance(f, "landing.orders");
	exec(f->w, "BEGIN TRANSACTION");
	rep = run_with(f, &opts);
	it = item(&rep, "silver.orders");
	assert_int_equal(it->status, RUN_FAILED);
	assert_non_null(strstr(it->message, "transaction"));
	assert_int_equal(it->rows, 0);
	assert_null(it->action);
	run_report_free(&rep);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_advance_stamps_new_rows),
		T(test_advance_adds_the_column),
		T(test_advance_short_and_long_names),
		T(test_advance_unknown_table),
		T(test_sources_ensure),
		T(test_sources_ensure_without_sources),
		T(test_target_declared_source),
		T(test_target_tracked_landing_table),
		T(test_target_refuses_state_tables),
		T(test_target_refuses_models),
		T(test_target_unknown),
		T(test_inputs_refreshes_and_tracks),
		T(test_inputs_landing_table),
		T(test_inputs_view_looked_through),
		T(test_inputs_live_model_and_batch),
		T(test_inputs_ephemeral_and_transitive),
		T(test_watermark_unstamped_rows_invisible),
		T(test_watermark_consumed_and_published),
		T(test_watermark_refresh_counter),
		T(test_watermark_named_inputs),
		T(test_watermark_failed_build_changes_nothing),
		T(test_watermark_full_refresh),
		T(test_lag_caught_up_and_behind),
		T(test_lag_through_a_chain),
		T(test_lag_of_a_model_without_sources),
		T(test_lag_of_two_sources_caught_up),
		T(test_lag_after_an_upstream_refresh_that_published_nothing),
		T(test_view_over_landing_is_tracked),
		T(test_build_failing_at_begin_reports_nothing_written),
	};
#undef T

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
