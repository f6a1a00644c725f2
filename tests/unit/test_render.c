/*
 * Unit tests for rendering (src/exec/render.c) on a project loaded from a
 * temporary folder and validated, so references are resolved: placeholders
 * replaced by their values, ephemeral models inlined as CTEs (new WITH,
 * merged into an existing one, aliases kept or added, chains nested), and
 * the incremental filter wrapped around the query.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "exec/render.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/err.h"
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

#define EPH_BASE "\"__sluice_eph_silver_eph_base\""
#define EPH_BIG "\"__sluice_eph_silver_eph_big\""
#define EPH_BASE_CTE EPH_BASE " AS (\nSELECT id, amount FROM landing.orders WHERE amount > 0\n)"

struct fx {
	struct arena *a;
	char root[PATH_MAX];
	struct project *p;
	struct render_ctx ctx;
	struct buf out;
	struct sl_err err;
};


static void write_project(const char *root)
{
	fixture_put(root, "sluice.yml", "name: shop\n");
	fixture_put(root, "models/silver/eph_base.sql",
	    "@config materialized=ephemeral\n"
	    "SELECT id, amount FROM landing.orders WHERE amount > 0\n");
	fixture_put(root, "models/silver/eph_big.sql",
	    "@config materialized=ephemeral\n"
	    "SELECT id, amount FROM silver.eph_base WHERE amount > 10\n");
	fixture_put(root, "models/silver/eph_env.sql",
	    "@config materialized=ephemeral\n"
	    "SELECT '{env}' AS env\n");
	fixture_put(root, "models/gold/aliased.sql", "SELECT b.id FROM silver.eph_base b\n");
	fixture_put(root, "models/gold/noalias.sql", "SELECT eph_base.id FROM silver.eph_base\n");
	fixture_put(root, "models/gold/as_alias.sql", "SELECT e.id FROM silver . eph_base AS e\n");
	fixture_put(root, "models/gold/with_reader.sql",
	    "WITH x AS (SELECT 1 AS one)\nSELECT id, one FROM x, silver.eph_base\n");
	fixture_put(root, "models/gold/recursive_reader.sql",
	    "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3)\n"
	    "SELECT n, id FROM r, silver.eph_base\n");
	fixture_put(root, "models/gold/chain.sql", "SELECT id FROM silver.eph_big ORDER BY id\n");
	fixture_put(root, "models/gold/twice.sql",
	    "SELECT a.id FROM silver.eph_base a JOIN silver.eph_base c USING (id)\n");
	fixture_put(root, "models/gold/env_reader.sql", "SELECT env FROM silver.eph_env\n");
	fixture_put(root, "models/gold/in_subquery.sql",
	    "SELECT id FROM landing.orders WHERE id IN (SELECT id FROM silver.eph_big)\n");
	fixture_put(root, "models/silver/inc.sql",
	    "@config materialized=incremental, unique_key=id,\n"
	    "  incremental_filter=WHERE seq > {watermark} AND id NOT IN (SELECT id FROM {this})\n"
	    "SELECT id, seq, '{env}' AS env FROM landing.orders\n");
	fixture_put(root, "models/silver/inc_eph.sql",
	    "@config materialized=incremental,\n"
	    "  incremental_filter=WHERE id IN (SELECT id FROM silver.eph_base)\n"
	    "SELECT id, seq FROM landing.orders\n");
	fixture_put(root, "models/silver/self.sql",
	    "@config materialized=table\n"
	    "SELECT count(*) AS n, {watermark:landing.orders} AS w FROM {this}\n");
	fixture_put(root, "models/silver/cursor.sql",
	    "@config materialized=table\n"
	    "SELECT {watermark:legacy} AS w, {watermark:raw.legacy} AS t, {watermark} AS bare\n");
	fixture_put(root, "models/silver/win.sql",
	    "@config materialized=incremental, temporality=temporal, time_column=ts, grain=1d,\n"
	    "        start='2026-01-01'\n"
	    "SELECT * FROM landing.events\n"
	    "WHERE ts >= {since} AND ts < {until} AND note <> 'from {since} to {until}'\n");
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	fixture_mkdtemp(f->root, "render");
	write_project(f->root);
	f->a = arena_new(NULL);
	f->p = fixture_load(f->a, f->root);
	if (project_validate(f->p, NULL, 0) || f->p->diags.n) {
		diag_print(&f->p->diags, stderr);
		fail_msg("the project has problems");
	}
	f->ctx.env = "dev";
	f->ctx.watermark = 42;
	buf_init(&f->out, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	fixture_rmtree(f->root);
	buf_release(&f->out);
	arena_free(f->a);
	free(f);
	return 0;
}

/* Renders a model, which must succeed; the SQL. */
static const char *render(struct fx *f, const char *fqn, bool with_filter)
{
	buf_reset(&f->out);
	sl_err_clear(&f->err);
	if (render_model(fixture_model(f->p, fqn), &f->ctx, with_filter, &f->out, &f->err))
		fail_msg("render %s: %s", fqn, f->err.msg);
	return f->out.buf;
}

static void test_no_edits(void **state)
{
	struct fx *f = *state;

	assert_string_equal(render(f, "silver.eph_base", false),
			    "SELECT id, amount FROM landing.orders WHERE amount > 0");
	/* a model without a filter renders the same either way */
	assert_string_equal(render(f, "silver.eph_base", true),
			    "SELECT id, amount FROM landing.orders WHERE amount > 0");
}

static void test_appends_to_output(void **state)
{
	struct fx *f = *state;

	buf_adds(&f->out, "CREATE VIEW v AS ");
	assert_int_equal(render_model(fixture_model(f->p, "silver.eph_base"), &f->ctx, false,
				      &f->out, &f->err),
			 0);
	assert_string_equal(f->out.buf, "CREATE VIEW v AS SELECT id, amount FROM landing.orders "
					"WHERE amount > 0");
}

static void test_this_and_watermark(void **state)
{
	struct fx *f = *state;

	assert_string_equal(render(f, "silver.self", false),
			    "SELECT count(*) AS n, 42 AS w FROM \"silver\".\"self\"");
	f->ctx.watermark = -7;
	f->ctx.this_relation = "\"silver\".\"self__sluice_new\"";
	assert_string_equal(render(f, "silver.self", false),
			    "SELECT count(*) AS n, -7 AS w FROM \"silver\".\"self__sluice_new\"");
}

/* A watermark that renders as a literal of its own (an adopted table's
 * cursor), named by its table or by another name (its source's). */
static void test_watermark_literal(void **state)
{
	struct fx *f = *state;
	const char *names[] = { "raw.legacy" }, *literals[] = { "TIMESTAMP '2026-03-01 10:00:00'" },
		   *aliases[] = { "legacy" };
	const int64_t values[] = { 4611686018427387904 };

	f->ctx.wm_names = names;
	f->ctx.wm_values = values;
	f->ctx.nwm = 1;
	f->ctx.wm_literals = literals;
	f->ctx.wm_aliases = aliases;
	assert_string_equal(render(f, "silver.cursor", false),
			    "SELECT TIMESTAMP '2026-03-01 10:00:00' AS w, TIMESTAMP '2026-03-01 "
			    "10:00:00' AS t, TIMESTAMP '2026-03-01 10:00:00' AS bare");
	/* without a literal, the number */
	f->ctx.wm_literals = NULL;
	assert_string_equal(render(f, "silver.cursor", false),
			    "SELECT 4611686018427387904 AS w, 4611686018427387904 AS t, "
			    "4611686018427387904 AS bare");
	/* without the alias, the source's name names nothing */
	f->ctx.wm_aliases = NULL;
	assert_int_equal(render_model(fixture_model(f->p, "silver.cursor"), &f->ctx, false, &f->out,
				      &f->err),
			 SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "'{watermark:legacy}'"));
}

static void test_env(void **state)
{
	struct fx *f = *state;

	assert_string_equal(render(f, "silver.inc", false),
			    "SELECT id, seq, 'dev' AS env FROM landing.orders");
	f->ctx.env = "";
	assert_string_equal(render(f, "silver.inc", false),
			    "SELECT id, seq, '' AS env FROM landing.orders");
	f->ctx.env = NULL;
	assert_string_equal(render(f, "silver.inc", false),
			    "SELECT id, seq, '' AS env FROM landing.orders");
}

static void test_since_until(void **state)
{
	struct fx *f = *state;

	f->ctx.since = "2024-01-01 00:00:00";
	f->ctx.until = "2024-01-02 00:00:00";
	assert_string_equal(render(f, "silver.win", false),
			    "SELECT * FROM landing.events\n"
			    "WHERE ts >= TIMESTAMP '2024-01-01 00:00:00' AND ts < TIMESTAMP "
			    "'2024-01-02 00:00:00' AND note <> 'from 2024-01-01 00:00:00 to "
			    "2024-01-02 00:00:00'");
}

static void test_since_missing(void **state)
{
	struct fx *f = *state;

	buf_adds(&f->out, "kept");
	assert_int_equal(
		render_model(fixture_model(f->p, "silver.win"), &f->ctx, false, &f->out, &f->err),
		SL_E_INVALID);
	assert_string_equal(f->err.msg,
			    "placeholder '{since}' in model 'silver.win' has no value: only a "
			    "temporal model's windows give it one\n"
			    "  in model silver.win (models/silver/win.sql)");
	/* nothing is appended on failure */
	assert_string_equal(f->out.buf, "kept");

	sl_err_clear(&f->err);
	f->ctx.since = "2024-01-01 00:00:00";
	assert_int_equal(
		render_model(fixture_model(f->p, "silver.win"), &f->ctx, false, &f->out, &f->err),
		SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "placeholder '{until}'"));
	assert_string_equal(f->out.buf, "kept");
}

static void test_with_filter(void **state)
{
	struct fx *f = *state;

	assert_string_equal(render(f, "silver.inc", true),
			    "SELECT * FROM (\n"
			    "SELECT id, seq, 'dev' AS env FROM landing.orders\n"
			    ") AS _sluice_src\n"
			    "WHERE seq > 42 AND id NOT IN (SELECT id FROM \"silver\".\"inc\")");
	assert_true(render_filter_reads_this(fixture_model(f->p, "silver.inc")));
	assert_false(render_filter_reads_this(fixture_model(f->p, "silver.self")));
	assert_false(render_filter_reads_this(fixture_model(f->p, "silver.inc_eph")));
}

static void test_ephemeral_aliased(void **state)
{
	struct fx *f = *state;

	assert_string_equal(render(f, "gold.aliased", false),
			    "WITH " EPH_BASE_CTE "\n"
			    "SELECT b.id FROM " EPH_BASE " b");
	assert_string_equal(render(f, "gold.as_alias", false),
			    "WITH " EPH_BASE_CTE "\n"
			    "SELECT e.id FROM " EPH_BASE " AS e");
}

static void test_ephemeral_alias_added(void **state)
{
	struct fx *f = *state;

	/* without an alias, the model's name stays usable as a qualifier */
	assert_string_equal(render(f, "gold.noalias", false),
			    "WITH " EPH_BASE_CTE "\n"
			    "SELECT eph_base.id FROM " EPH_BASE " AS \"eph_base\"");
}

static void test_ephemeral_merged_into_with(void **state)
{
	struct fx *f = *state;

	assert_string_equal(render(f, "gold.with_reader", false),
			    "WITH " EPH_BASE_CTE ",\n"
			    " x AS (SELECT 1 AS one)\n"
			    "SELECT id, one FROM x, " EPH_BASE " AS \"eph_base\"");
	assert_string_equal(render(f, "gold.recursive_reader", false),
			    "WITH RECURSIVE " EPH_BASE_CTE ",\n"
			    " r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3)\n"
			    "SELECT n, id FROM r, " EPH_BASE " AS \"eph_base\"");
}

static void test_ephemeral_read_twice(void **state)
{
	struct fx *f = *state;

	assert_string_equal(render(f, "gold.twice", false),
			    "WITH " EPH_BASE_CTE "\n"
			    "SELECT a.id FROM " EPH_BASE " a JOIN " EPH_BASE " c USING (id)");
}

static void test_ephemeral_chain(void **state)
{
	struct fx *f = *state;

	assert_string_equal(render(f, "gold.chain", false),
			    "WITH " EPH_BIG " AS (\n"
			    "WITH " EPH_BASE_CTE "\n"
			    "SELECT id, amount FROM " EPH_BASE " AS \"eph_base\" WHERE amount > 10\n"
			    ")\n"
			    "SELECT id FROM " EPH_BIG " AS \"eph_big\" ORDER BY id");
	assert_string_equal(render(f, "gold.in_subquery", false),
			    "WITH " EPH_BIG " AS (\n"
			    "WITH " EPH_BASE_CTE "\n"
			    "SELECT id, amount FROM " EPH_BASE " AS \"eph_base\" WHERE amount > 10\n"
			    ")\n"
			    "SELECT id FROM landing.orders WHERE id IN (SELECT id FROM " EPH_BIG
			    " AS \"eph_big\")");
}

static void test_ephemeral_gets_placeholders(void **state)
{
	struct fx *f = *state;

	f->ctx.env = "prod";
	assert_string_equal(render(f, "gold.env_reader", false),
			    "WITH \"__sluice_eph_silver_eph_env\" AS (\nSELECT 'prod' AS env\n)\n"
			    "SELECT env FROM \"__sluice_eph_silver_eph_env\" AS \"eph_env\"");
}

static void test_ephemeral_in_filter(void **state)
{
	struct fx *f = *state;

	assert_string_equal(render(f, "silver.inc_eph", true),
			    "WITH " EPH_BASE_CTE "\n"
			    "SELECT * FROM (\n"
			    "SELECT id, seq FROM landing.orders\n"
			    ") AS _sluice_src\n"
			    "WHERE id IN (SELECT id FROM " EPH_BASE " AS \"eph_base\")");
	/* without the filter the ephemeral is not needed */
	assert_string_equal(render(f, "silver.inc_eph", false),
			    "SELECT id, seq FROM landing.orders");
}

/* The rendered SQL runs and reads what the ephemerals' own queries read. */
static void test_rendered_sql_runs(void **state)
{
	struct fx *f = *state;
	struct wh *w;
	struct wh_result *r;
	struct sl_err err = SL_ERR_INIT;
	static const char *const models[] = { "gold.aliased", "gold.noalias", "gold.as_alias",
					      "gold.with_reader", "gold.recursive_reader",
					      "gold.chain", "gold.twice", "gold.in_subquery", NULL };
	static const size_t rows[] = { 3, 3, 3, 3, 9, 2, 3, 2 };

	assert_int_equal(wh_open_duckdb(":memory:", false, &w, &err), 0);
	assert_int_equal(wh_exec(w,
				 "CREATE SCHEMA landing;\n"
				 "CREATE TABLE landing.orders AS SELECT * FROM (VALUES (1, 5), (2, 20), "
				 "(3, 30), (4, 0), (5, -1)) t(id, amount)",
				 &err),
			 0);
	for (size_t i = 0; models[i]; i++) {
		if (wh_query(w, render(f, models[i], false), &r, &err))
			fail_msg("%s: %s", models[i], err.msg);
		if (wh_result_nrows(r) != rows[i])
			fail_msg("%s: %zu rows, not %zu", models[i], wh_result_nrows(r), rows[i]);
		wh_result_free(r);
	}
	assert_int_equal(wh_query(w, render(f, "gold.chain", false), &r, &err), 0);
	assert_string_equal(wh_result_value(r, 0, 0), "2");
	assert_string_equal(wh_result_value(r, 1, 0), "3");
	wh_result_free(r);
	wh_close(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_no_edits),
		T(test_appends_to_output),
		T(test_this_and_watermark),
		T(test_watermark_literal),
		T(test_env),
		T(test_since_until),
		T(test_since_missing),
		T(test_with_filter),
		T(test_ephemeral_aliased),
		T(test_ephemeral_alias_added),
		T(test_ephemeral_merged_into_with),
		T(test_ephemeral_read_twice),
		T(test_ephemeral_chain),
		T(test_ephemeral_gets_placeholders),
		T(test_ephemeral_in_filter),
		T(test_rendered_sql_runs),
#undef T
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
