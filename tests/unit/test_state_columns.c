/*
 * Unit tests for the columns each model's build records in
 * `_sluice.model_columns` (src/state/columns.c, recorded by
 * src/exec/build.c), through batch runs of small projects, on DuckDB and
 * on the PostgreSQL server of the suite (SLUICE_TEST_PG), in a database
 * of this file's own: a build records its relation's columns and their
 * types (tables, views, seeds; ephemerals none), a rebuild with another
 * select list replaces them, a failed build leaves the previous ones
 * (rolled back with it), a warehouse of the previous state version gains
 * the table, and the reader gives every model's columns of one
 * environment.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_project_wh.h"
#include "fixture_pg.h"
#include "fixture_wh.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "exec/run.h"
#include "live/batch.h"
#include "project/project.h"
#include "state/columns.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_DATABASE "sluice_unit_state_columns"

static int setup_duckdb(void **state)
{
	return fx_setup_duckdb(state, "columns");
}

static int setup_postgres(void **state)
{
	return fx_setup_postgres(state, "columns", PG_DATABASE);
}

static int teardown(void **state)
{
	return fx_teardown(state);
}

/* A table of three columns of three types, one named in mixed case. */
#define TYPED                                                                                 \
	"@config materialized=table\n"                                                       \
	"SELECT CAST(1 AS INTEGER) AS id, CAST(2.5 AS DECIMAL(10,2)) AS amount, CAST('x' AS " \
	"VARCHAR) AS \"Name\"\n"

/* The project as it stands after writing model files into it. */
static void load(struct fx *f)
{
	fixture_put(f->root, "sluice.yml", "name: columns\n");
	f->p = fixture_load_valid(f->a, f->root);
}

/* One batch run over the whole project; returns how many failed. */
static size_t run(struct fx *f)
{
	struct run_opts opts = { .env = "" };
	struct run_report rep;
	const char **rel;
	size_t n, failed;

	if (wh_relation_list(f->w, f->a, &rel, &n, &f->err))
		fail_msg("%s", f->err.msg);
	if (live_batch_run(f->a, f->p, f->w, rel, n, &opts, &rep, &f->err))
		fail_msg("live_batch_run: %s", f->err.msg);
	failed = rep.failed;
	run_report_free(&rep);
	return failed;
}

/* model's recorded columns of env, "name type" joined by ", " in
 * position order; "" when it has none. */
static const char *columns_of(struct fx *f, const char *env, const char *model)
{
	struct state_model_columns *all;
	const struct state_model_columns *m;
	struct buf b = BUF_INIT;
	const char *s;
	size_t n;

	if (state_columns_read(f->w, f->a, env, &all, &n, &f->err))
		fail_msg("state_columns_read: %s", f->err.msg);
	m = state_columns_find(all, n, model);
	for (size_t i = 0; m && i < m->n; i++)
		buf_addf(&b, "%s%s %s", i ? ", " : "", m->cols[i].name, m->cols[i].type);
	s = arena_strdup(f->a, b.buf);
	buf_release(&b);
	return s;
}

static bool on_duckdb(const struct fx *f)
{
	return wh_kind(f->w) == WH_DUCKDB;
}

/* A table, a view over it and a seed record their columns with the types
 * the warehouse names; an ephemeral records none. */
static void test_build_records_columns_and_types(void **state)
{
	struct fx *f = *state;

	fixture_put(f->root, "seeds/prices.csv", "sku,price\nA,1.5\n");
	fixture_put(f->root, "models/silver/t.sql", TYPED);
	fixture_put(f->root, "models/silver/e.sql",
		    "@config materialized=ephemeral\nSELECT id, amount FROM silver.t\n");
	fixture_put(f->root, "models/gold/v.sql",
		    "@config materialized=view\nSELECT t.\"Name\", e.amount * 2 AS twice FROM "
		    "silver.e AS e JOIN silver.t AS t USING (id)\n");
	load(f);
	assert_int_equal(run(f), 0);
	if (on_duckdb(f)) {
		assert_string_equal(columns_of(f, "", "silver.t"),
				    "id INTEGER, amount DECIMAL(10,2), Name VARCHAR");
		assert_string_equal(columns_of(f, "", "gold.v"), "Name VARCHAR, twice DECIMAL(18,2)");
	} else {
		assert_string_equal(columns_of(f, "", "silver.t"),
				    "id integer, amount numeric(10,2), Name character varying");
		assert_string_equal(columns_of(f, "", "gold.v"), "Name character varying, twice numeric");
	}
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.model_columns WHERE model = "
					 "'seeds.prices' AND position = 1 AND column_name = 'sku'"),
			 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.model_columns WHERE model = "
					 "'seeds.prices' AND position = 2 AND column_name = 'price'"),
			 1);
	assert_string_equal(columns_of(f, "", "silver.e"), "");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.model_columns"), 7);
}

/* A rebuild with another select list replaces the columns; an
 * incremental build into its table keeps its own; a model made ephemeral,
 * which no run builds, keeps the rows of its last build. */
static void test_rebuild_replaces_columns(void **state)
{
	struct fx *f = *state;

	fixture_put(f->root, "models/silver/t.sql", TYPED);
	fixture_put(f->root, "models/silver/i.sql",
		    "@config materialized=incremental, on_schema_change=full_refresh\n"
		    "SELECT id FROM silver.t\n");
	load(f);
	assert_int_equal(run(f), 0);
	fixture_put(f->root, "models/silver/t.sql",
		    "@config materialized=table\n"
		    "SELECT CAST(1 AS BIGINT) AS id, CAST('y' AS VARCHAR) AS note\n");
	load(f);
	assert_int_equal(run(f), 0);
	assert_string_equal(columns_of(f, "", "silver.t"),
			    on_duckdb(f) ? "id BIGINT, note VARCHAR"
					 : "id bigint, note character varying");
	assert_string_equal(columns_of(f, "", "silver.i"), on_duckdb(f) ? "id INTEGER" : "id integer");
	/* the incremental model's next build wrote into its table */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.i"), 2);
	fixture_put(f->root, "models/silver/t.sql",
		    "@config materialized=ephemeral\nSELECT CAST(1 AS BIGINT) AS id\n");
	load(f);
	assert_int_equal(run(f), 0);
	/* never built again, it keeps its rows as it keeps its model row */
	assert_string_equal(columns_of(f, "", "silver.t"),
			    on_duckdb(f) ? "id BIGINT, note VARCHAR"
					 : "id bigint, note character varying");
	assert_string_equal(query_str(f->w, f->a, "SELECT materialized FROM _sluice.models WHERE "
						  "name = 'silver.t'"),
			    "table");
}

/* A build that fails leaves the columns of the last one that held: one
 * whose checks fail, and one that fails once its columns were written,
 * whose transaction takes them back with its data. */
static void test_failed_build_leaves_previous_columns(void **state)
{
	struct fx *f = *state;
	const char *before;

	fixture_put(f->root, "models/silver/t.sql", TYPED);
	load(f);
	assert_int_equal(run(f), 0);
	before = columns_of(f, "", "silver.t");
	assert_non_null(strstr(before, "amount"));
	fixture_put(f->root, "models/silver/t.sql", "@assert id < 0\nSELECT 1 AS id, 2 AS other\n");
	load(f);
	assert_int_equal(run(f), 1);
	assert_string_equal(columns_of(f, "", "silver.t"), before);
	/* the run log refuses the build's own row, after its columns */
	exec(f->w, "DROP TABLE _sluice.run_log;\n"
		   "CREATE TABLE _sluice.run_log (run_id BIGINT, model VARCHAR, env VARCHAR, "
		   "run_type VARCHAR, status VARCHAR, started_at TIMESTAMP, finished_at TIMESTAMP, "
		   "rows BIGINT, duration_ms BIGINT, message VARCHAR, CHECK (status <> 'ok'))");
	fixture_put(f->root, "models/silver/t.sql", "SELECT 1 AS id, 2 AS other\n");
	load(f);
	assert_int_equal(run(f), 1);
	assert_string_equal(columns_of(f, "", "silver.t"), before);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.t WHERE amount = 2.5"), 1);
}

/* A warehouse of the previous state version gains the table, keeps its
 * models, and the next build records into it. */
static void test_upgrade_creates_the_table(void **state)
{
	struct fx *f = *state;
	const char *kind;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w, "DROP TABLE _sluice.profile_anomalies; DROP TABLE _sluice.profiles;\n"
		   "DROP SEQUENCE _sluice.profile_ids;\n"
		   "CREATE TABLE _sluice.profiles (model VARCHAR NOT NULL, profiled_at TIMESTAMP "
		   "NOT NULL, column_name VARCHAR NOT NULL, rows BIGINT, nulls BIGINT, min_value "
		   "VARCHAR, max_value VARCHAR);\n"
		   "ALTER TABLE _sluice.live_sources DROP COLUMN boundary;\n"
		   "ALTER TABLE _sluice.live_sources DROP COLUMN late_rows;\n"
		   "DROP TABLE _sluice.replay_boundaries;\n"
		   "DROP TABLE _sluice.replay_pruned;\n"
		   "ALTER TABLE _sluice.models DROP COLUMN shape;\n"
		   "ALTER TABLE _sluice.models DROP COLUMN column_versions;\n"
		   "DROP TABLE _sluice.model_columns;\n"
		   "DROP TABLE _sluice.landed_files;\n"
		   "INSERT INTO _sluice.models (name, env, hash, materialized, build_count, "
		   "data_version) VALUES ('s.kept', '', 'h', 'table', 3, 7);\n"
		   "DELETE FROM _sluice.version;\n"
		   "INSERT INTO _sluice.version VALUES (10, 'old', NULL)");
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"),
			 STATE_VERSION);
	assert_int_equal(wh_relation_kind(f->w, f->a, "_sluice", "model_columns", &kind, &f->err),
			 0);
	assert_non_null(kind);
	assert_string_equal(kind, "table");
	assert_int_equal(query_int(f->w, "SELECT build_count FROM _sluice.models"), 3);
	/* and the adopted sources' books of version 15 */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM information_schema.columns WHERE "
					 "table_schema = '_sluice' AND table_name = 'live_sources' "
					 "AND column_name IN ('boundary', 'late_rows')"),
			 2);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.model_columns"), 0);
	fixture_put(f->root, "models/silver/t.sql", TYPED);
	load(f);
	assert_int_equal(run(f), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.model_columns"), 3);
	/* and the shape of the query it ran, from the next version */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.models WHERE name = "
					 "'silver.t' AND shape LIKE 'rows=%'"),
			 1);
}

/* The reader gives each model of one environment once, its columns in
 * position order, whatever order they were written in; other
 * environments' rows stay apart. */
static void test_reader_groups_by_model(void **state)
{
	struct fx *f = *state;
	struct wh_column ab[] = { { "b", "INTEGER" }, { "a's", "VARCHAR" } };
	struct wh_column c[] = { { "c", "DATE" } };
	struct state_model_columns *all;
	struct buf sql = BUF_INIT;
	size_t n;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	state_sql_columns(&sql, "", "z.last", c, 1);
	state_sql_columns(&sql, "", "a.first", ab, 2);
	state_sql_columns(&sql, "pr1", "a.first", c, 1);
	state_sql_columns(&sql, "", "m.gone", c, 1);
	state_sql_columns(&sql, "", "m.gone", NULL, 0);
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), 0);
	buf_release(&sql);
	assert_int_equal(state_columns_read(f->w, f->a, "", &all, &n, &f->err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(all[0].model, "a.first");
	assert_int_equal(all[0].n, 2);
	assert_string_equal(all[0].cols[0].name, "b");
	assert_string_equal(all[0].cols[1].name, "a's");
	assert_string_equal(all[0].cols[1].type, "VARCHAR");
	assert_string_equal(all[1].model, "z.last");
	assert_int_equal(all[1].n, 1);
	assert_null(state_columns_find(all, n, "m.gone"));
	assert_string_equal(columns_of(f, "pr1", "a.first"), "c DATE");
	assert_int_equal(state_columns_read(f->w, f->a, "nobody", &all, &n, &f->err), 0);
	assert_int_equal(n, 0);
}

int main(void)
{
#define ON(name, wh) { #name "_" #wh, test_##name, setup_##wh, teardown, NULL }
#define T(name) ON(name, duckdb), ON(name, postgres)
	const struct CMUnitTest tests[] = {
		T(build_records_columns_and_types),
		T(rebuild_replaces_columns),
		T(failed_build_leaves_previous_columns),
		T(upgrade_creates_the_table),
		T(reader_groups_by_model),
	};
#undef T
#undef ON

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
