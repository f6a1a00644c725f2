/*
 * Column names from model headers in the statements of a build: keys,
 * snapshot columns, a microbatch's time column and @assert columns that
 * are keywords or in mixed case, read by the real header parser and built
 * by src/exec/materialize.c and src/exec/assert.c on an in-memory DuckDB.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_wh.h"

#include "exec/assert.h"
#include "exec/materialize.h"
#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "project/header.h"
#include "project/model.h"
#include "project/refs.h"

#include <string.h>

/* Model silver.NAME from the text of its file, header included. */
static struct model *model_from(struct fixture_db *f, const char *name, const char *text)
{
	struct model *m = arena_alloc(f->a, sizeof(*m));
	struct diag_list d;

	memset(m, 0, sizeof(*m));
	diag_list_init(&d, f->a);
	m->schema = "silver";
	m->name = name;
	m->fqn = arena_sprintf(f->a, "silver.%s", name);
	m->path = arena_sprintf(f->a, "models/silver/%s.sql", name);
	m->text = text;
	if (header_parse(f->a, m, &d) || header_apply_settings(f->a, m, NULL, NULL, &d) ||
	    refs_scan_placeholders(f->a, m, &d)) {
		diag_print(&d, stderr);
		fail_msg("model %s does not load", name);
	}
	return m;
}

/* Builds m (from scratch or not) at run_ts, runs its checks on what it
 * wrote, publishes it; returns how many rows broke a check. */
static int64_t build(struct fixture_db *f, const struct model *m, bool full, int64_t watermark,
		     const char *run_ts)
{
	struct mat_plan plan = { .full = full, .run_ts = run_ts };
	struct mat_outcome out;
	struct assert_result *res = NULL;
	size_t n = 0;
	int64_t failures = 0;

	plan.ctx.env = "";
	plan.ctx.watermark = watermark;
	if (materialize_write(f->w, m, &plan, &out, &f->err) ||
	    assert_run_all(f->w, NULL, m, NULL, out.relation, &res, &n, &f->err) ||
	    materialize_publish(f->w, m, &out, &f->err))
		fail_msg("%s", f->err.msg);
	for (size_t i = 0; i < n; i++)
		failures += res[i].failures;
	assert_results_free(res, n);
	return failures;
}

#define TS "2026-01-05 12:00:00.000"

static void make_events(struct fixture_db *f)
{
	exec(f->w, "CREATE SCHEMA landing;\n"
		   "CREATE TABLE landing.ev AS SELECT * FROM (VALUES\n"
		   "  (1, 'A', 'x', 10, 1), (2, 'A', 'y', 20, 2), (1, 'A', 'x', 11, 3))\n"
		   "  t(\"order\", \"CustomerId\", \"group\", amount, _sluice_seq)");
}

static void test_merge_on_keywords(void **state)
{
	struct fixture_db *f = *state;
	struct model *m = model_from(
		f, "orders",
		"@config materialized=incremental, unique_key=[order, CustomerId],\n"
		"        incremental_filter=WHERE _sluice_seq > {watermark}\n"
		"@assert not_null(order)\n"
		"@assert unique(order, CustomerId)\n"
		"@assert accepted_values(group, [x, y])\n"
		"SELECT \"order\", \"CustomerId\", \"group\", amount, _sluice_seq FROM landing.ev");

	make_events(f);
	/* the first build keeps the latest landing of each key */
	assert_int_equal(build(f, m, true, 0, TS), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 2);
	assert_int_equal(query_int(f->w, "SELECT amount FROM silver.orders WHERE \"order\" = 1"), 11);

	/* a merge matches on both keys; a group outside the list is caught */
	exec(f->w, "INSERT INTO landing.ev VALUES (2, 'A', 'z', 21, 4), (2, 'B', 'x', 5, 5)");
	assert_int_equal(build(f, m, false, 3, TS), 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 3);
	assert_int_equal(query_int(f->w, "SELECT amount FROM silver.orders "
					 "WHERE \"order\" = 2 AND \"CustomerId\" = 'A'"),
			 21);
}

static void test_delete_insert_on_keyword(void **state)
{
	struct fixture_db *f = *state;
	/* written in lower case, the names still find "CustomerId" and "Group"
	 * on DuckDB */
	struct model *m = model_from(
		f, "by_customer",
		"@config materialized=incremental, incremental_strategy=delete+insert,\n"
		"        unique_key=customerid, incremental_filter=WHERE _sluice_seq > {watermark}\n"
		"@assert not_null(group)\n"
		"SELECT \"CustomerId\", \"group\" AS \"Group\", amount, _sluice_seq FROM landing.ev");

	make_events(f);
	assert_int_equal(build(f, m, true, 0, TS), 0);
	exec(f->w, "INSERT INTO landing.ev VALUES (3, 'A', NULL, 7, 4)");
	assert_int_equal(build(f, m, false, 3, TS), 1);
	/* the three rows of customer A were replaced by the new one */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.by_customer"), 1);
	assert_int_equal(query_int(f->w, "SELECT amount FROM silver.by_customer"), 7);
}

static void test_snapshot_check_cols(void **state)
{
	struct fixture_db *f = *state;
	struct model *m = model_from(
		f, "people",
		"@config materialized=snapshot, unique_key=CustomerId, check_cols=[select]\n"
		"@assert not_null(select)\n"
		"@assert relationships(CustomerId, silver.customers(Id))\n"
		"SELECT \"CustomerId\", \"select\", note FROM landing.people");

	exec(f->w, "CREATE SCHEMA landing; CREATE SCHEMA silver;\n"
		   "CREATE TABLE silver.customers AS SELECT * FROM (VALUES ('A'), ('B')) c(\"Id\");\n"
		   "CREATE TABLE landing.people AS SELECT * FROM (VALUES\n"
		   "  ('A', 'gold', 'n1'), ('B', 'silver', 'n1')) t(\"CustomerId\", \"select\", note)");
	assert_int_equal(build(f, m, false, 0, "2026-01-01 00:00:00.000"), 0);
	/* only a change of the checked column makes a version; C has no customer */
	exec(f->w, "UPDATE landing.people SET note = 'n2' WHERE \"CustomerId\" = 'A';\n"
		   "UPDATE landing.people SET \"select\" = 'gold' WHERE \"CustomerId\" = 'B';\n"
		   "INSERT INTO landing.people VALUES ('C', 'gold', 'n1')");
	assert_int_equal(build(f, m, false, 0, "2026-01-02 00:00:00.000"), 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.people"), 4);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.people "
					 "WHERE \"CustomerId\" = 'B' AND valid_to IS NOT NULL"),
			 1);
}

/* One window of a temporal model, the table made from it when full. */
static void build_window(struct fixture_db *f, const struct model *m, bool full, const char *since,
			 const char *until)
{
	struct mat_plan plan = { .full = full, .run_ts = "2026-01-05 12:00:00.000",
				 .old_kind_known = true, .old_kind = full ? NULL : "table" };
	struct mat_outcome out;

	plan.ctx.env = "";
	plan.ctx.since = since;
	plan.ctx.until = until;
	if (materialize_write(f->w, m, &plan, &out, &f->err) ||
	    materialize_publish(f->w, m, &out, &f->err))
		fail_msg("%s", f->err.msg);
}

static void test_microbatch_time_column(void **state)
{
	struct fixture_db *f = *state;
	struct model *m = model_from(
		f, "daily",
		"@config materialized=incremental, incremental_strategy=microbatch,\n"
		"        temporality=temporal, time_column=From, grain=1d, start='2026-01-01'\n"
		"SELECT \"From\", count(*) AS n FROM landing.ticks\n"
		"WHERE \"From\" >= {since} AND \"From\" < {until} GROUP BY ALL");

	exec(f->w, "CREATE SCHEMA landing;\n"
		   "CREATE TABLE landing.ticks AS SELECT * FROM (VALUES\n"
		   "  (TIMESTAMP '2026-01-01'), (TIMESTAMP '2026-01-02'), (TIMESTAMP '2026-01-02'))\n"
		   "  t(\"From\")");
	build_window(f, m, true, "2026-01-01 00:00:00", "2026-01-02 00:00:00");
	build_window(f, m, false, "2026-01-02 00:00:00", "2026-01-03 00:00:00");
	assert_int_equal(query_int(f->w, "SELECT sum(n) FROM silver.daily"), 3);
	/* a window built again is replaced whole on the quoted time column */
	exec(f->w, "INSERT INTO landing.ticks VALUES (TIMESTAMP '2026-01-02'), "
		   "(TIMESTAMP '2026-01-03')");
	build_window(f, m, false, "2026-01-02 00:00:00", "2026-01-03 00:00:00");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.daily"), 2);
	assert_int_equal(query_int(f->w, "SELECT n FROM silver.daily "
					 "WHERE \"From\" = TIMESTAMP '2026-01-02'"),
			 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_db_setup, fixture_db_teardown)
		T(test_merge_on_keywords),
		T(test_delete_insert_on_keyword),
		T(test_snapshot_check_cols),
		T(test_microbatch_time_column),
#undef T
	};

	return cmocka_run_group_tests(tests, fixture_db_group_setup, fixture_db_group_teardown);
}
