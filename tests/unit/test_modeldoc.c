/*
 * A model's document (exec/modeldoc.c), for the model page and sluice
 * docs: the project's part from memory (compiled SQL, described columns,
 * declared checks, what it reads and what reads it), the history part
 * after real batch runs, on DuckDB and on the PostgreSQL server of the
 * suite (the columns with their types and descriptions, the builds newest
 * first, the profiles, the last check results matched to the checks as
 * they are now), and the column lineage.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_project_wh.h"

#include "core/arena.h"
#include "core/err.h"
#include "exec/modeldoc.h"
#include "exec/run.h"
#include "live/batch.h"
#include "project/lineage_graph.h"
#include "warehouse/wh.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#define PG_DATABASE "sluice_unit_modeldoc"

static int setup_duckdb(void **state)
{
	return fx_setup_duckdb(state, "modeldoc");
}

static int setup_postgres(void **state)
{
	return fx_setup_postgres(state, "modeldoc", PG_DATABASE);
}

static int teardown(void **state)
{
	return fx_teardown(state);
}

/* silver.orders reads a seed and a source's landing table; an ephemeral
 * keeps the paid ones; gold.paid reads that; an outside table is read by
 * gold.extra. */
static void write_project(struct fx *f, const char *check)
{
	char orders[1024];

	fixture_put(f->root, "sluice.yml",
		    "name: docs\nsources:\n  clicks: {kind: webhook, columns: {id: BIGINT}}\n");
	fixture_put(f->root, "seeds/raw.csv", "id,amount,status\n1,5,paid\n2,150,paid\n3,7,open\n");
	snprintf(orders, sizeof(orders),
		 "-- the orders\n"
		 "@config materialized=table, description='orders, cleaned', tags=[core]\n"
		 "@column id the order's id\n"
		 "@column gone a column the query does not make\n"
		 "@assert not_null(id)\n"
		 "@assert warn: %s\n"
		 "SELECT r.id, r.amount, r.status FROM seeds.raw AS r\n"
		 "WHERE r.id NOT IN (SELECT id FROM landing.clicks)\n",
		 check);
	fixture_put(f->root, "models/silver/orders.sql", orders);
	fixture_put(f->root, "models/silver/paid.sql",
		    "@config materialized=ephemeral\nSELECT id, amount FROM silver.orders "
		    "WHERE status = 'paid'\n");
	fixture_put(f->root, "models/gold/paid.sql",
		    "SELECT count(*) AS orders, sum(amount) AS total FROM silver.paid\n");
	f->p = fixture_load_valid(f->a, f->root);
}

static void run(struct fx *f)
{
	struct run_opts opts = { .env = "" };
	struct run_report rep;
	const char **rel;
	size_t n;

	exec(f->w, "CREATE SCHEMA IF NOT EXISTS landing; CREATE TABLE IF NOT EXISTS landing.clicks "
		   "(id BIGINT, _sluice_seq BIGINT)");
	if (wh_relation_list(f->w, f->a, &rel, &n, &f->err))
		fail_msg("%s", f->err.msg);
	if (live_batch_run(f->a, f->p, f->w, rel, n, &opts, &rep, &f->err))
		fail_msg("live_batch_run: %s", f->err.msg);
	assert_int_equal(rep.failed, 0);
	run_report_free(&rep);
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static json_t *at(json_t *o, const char *key, size_t i)
{
	return json_array_get(json_object_get(o, key), i);
}

static void test_project_part(void **state)
{
	struct fx *f = *state;
	json_t *doc, *seed;

	write_project(f, "amount < 100");
	doc = model_doc_project(f->a, f->p, fixture_model(f->p, "silver.orders"));
	assert_string_equal(str(doc, "name"), "silver.orders");
	assert_string_equal(str(doc, "kind"), "model");
	assert_string_equal(str(doc, "materialized"), "table");
	assert_string_equal(str(doc, "description"), "orders, cleaned");
	assert_string_equal(json_string_value(at(doc, "tags", 0)), "core");
	assert_string_equal(str(doc, "path"), "models/silver/orders.sql");
	assert_non_null(strstr(str(doc, "text"), "-- the orders\n@config"));
	assert_int_equal(strncmp(str(doc, "sql"), "SELECT r.id", 11), 0);
	assert_non_null(strstr(str(doc, "compiled"), "FROM seeds.raw AS r"));
	/* the described columns, before any build */
	assert_int_equal(json_array_size(json_object_get(doc, "columns")), 2);
	assert_string_equal(str(at(doc, "columns", 0), "description"), "the order's id");
	assert_true(json_is_null(json_object_get(at(doc, "columns", 0), "type")));
	assert_string_equal(str(at(doc, "checks", 1), "check"), "amount < 100");
	assert_string_equal(str(at(doc, "checks", 1), "severity"), "warn");
	assert_true(json_is_null(json_object_get(at(doc, "checks", 1), "failures")));
	/* a seed, a source by its name; the ephemeral reads it */
	assert_string_equal(str(at(doc, "inputs", 0), "name"), "seeds.raw");
	assert_string_equal(str(at(doc, "inputs", 0), "kind"), "seed");
	assert_string_equal(str(at(doc, "inputs", 1), "name"), "clicks");
	assert_string_equal(str(at(doc, "inputs", 1), "kind"), "source");
	assert_string_equal(str(at(doc, "readers", 0), "name"), "silver.paid");
	json_decref(doc);
	/* a reader of an ephemeral compiles it inlined */
	doc = model_doc_project(f->a, f->p, fixture_model(f->p, "gold.paid"));
	assert_non_null(strstr(str(doc, "compiled"), "WITH \"__sluice_eph_silver_paid\" AS ("));
	assert_string_equal(str(doc, "materialized"), "view");
	json_decref(doc);
	seed = model_doc_project(f->a, f->p, fixture_model(f->p, "seeds.raw"));
	assert_string_equal(str(seed, "kind"), "seed");
	assert_true(json_is_null(json_object_get(seed, "sql")));
	assert_string_equal(str(seed, "compiled"), "-- seeds.raw is a seed loaded from seeds/raw.csv");
	json_decref(seed);
}

/* After two runs: the columns the build made with their types, the
 * descriptions beside them, a described column the table lacks; the
 * builds newest first; the profiles; the last checks' results. */
static void test_history_after_runs(void **state)
{
	struct fx *f = *state;
	json_t *doc, *c;

	write_project(f, "amount < 100");
	run(f);
	exec(f->w, "INSERT INTO landing.clicks VALUES (3, 1)");
	write_project(f, "amount < 100");
	run(f);
	doc = model_doc_project(f->a, f->p, fixture_model(f->p, "silver.orders"));
	if (model_doc_history(f->w, f->a, f->root, "silver.orders", doc, &f->err))
		fail_msg("%s", f->err.msg);
	assert_int_equal(json_array_size(json_object_get(doc, "columns")), 4);
	c = at(doc, "columns", 0);
	assert_string_equal(str(c, "name"), "id");
	assert_non_null(str(c, "type"));
	assert_string_equal(str(c, "description"), "the order's id");
	assert_true(json_is_null(json_object_get(at(doc, "columns", 1), "description")));
	c = at(doc, "columns", 3);
	assert_string_equal(str(c, "name"), "gone");
	assert_true(json_is_false(json_object_get(c, "in_table")));
	assert_true(json_integer_value(json_object_get(json_object_get(doc, "built"),
						       "build_count")) >= 1);
	assert_true(json_array_size(json_object_get(doc, "runs")) >= 1);
	c = at(doc, "runs", 0);
	assert_string_equal(str(c, "status"), "warn");
	assert_string_equal(str(c, "run_type"), "batch");
	assert_non_null(str(c, "finished_at"));
	/* newest first */
	if (json_array_size(json_object_get(doc, "runs")) > 1)
		assert_true(json_integer_value(json_object_get(at(doc, "runs", 0), "run_id")) >
			    json_integer_value(json_object_get(at(doc, "runs", 1), "run_id")));
	assert_true(json_array_size(json_object_get(doc, "profiles")) >= 1);
	assert_non_null(json_object_get(at(doc, "profiles", 0), "anomalies"));
	c = at(doc, "checks", 1);
	assert_int_equal(json_integer_value(json_object_get(c, "failures")), 1);
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(json_object_get(c, "sample"), "columns"), 1)),
			    "amount");
	assert_int_equal(json_integer_value(json_object_get(at(doc, "checks", 0), "failures")), 0);
	assert_non_null(str(json_object_get(doc, "checked"), "checked_at"));
	json_decref(doc);
}

/* A check edited since its last run has no result; the model's history
 * is read by name alone, and a model never built has none. */
static void test_edited_check_and_never_built(void **state)
{
	struct fx *f = *state;
	json_t *doc;

	write_project(f, "amount < 100");
	run(f);
	write_project(f, "amount < 1000");
	doc = model_doc_project(f->a, f->p, fixture_model(f->p, "silver.orders"));
	assert_int_equal(model_doc_history(f->w, f->a, f->root, "silver.orders", doc, &f->err), 0);
	assert_int_equal(json_integer_value(json_object_get(at(doc, "checks", 0), "failures")), 0);
	assert_true(json_is_null(json_object_get(at(doc, "checks", 1), "failures")));
	json_decref(doc);
	doc = model_doc_project(f->a, f->p, fixture_model(f->p, "silver.paid"));
	assert_int_equal(model_doc_history(f->w, f->a, f->root, "silver.paid", doc, &f->err), 0);
	assert_true(json_is_null(json_object_get(doc, "built")));
	assert_int_equal(json_array_size(json_object_get(doc, "runs")), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "columns")), 0);
	json_decref(doc);
	/* without a warehouse, the folder's results alone */
	doc = model_doc_project(f->a, f->p, fixture_model(f->p, "silver.orders"));
	assert_int_equal(model_doc_history(NULL, f->a, f->root, "silver.orders", doc, &f->err), 0);
	assert_null(json_object_get(doc, "runs"));
	assert_int_equal(json_integer_value(json_object_get(at(doc, "checks", 0), "failures")), 0);
	json_decref(doc);
}

/* Each column with the columns it is made from, one step up. */
static void test_lineage_part(void **state)
{
	struct fx *f = *state;
	struct lineage_graph g;
	json_t *doc, *total;

	write_project(f, "amount < 100");
	lineage_graph_build(f->a, f->p, parser, NULL, NULL, &g);
	doc = model_doc_project(f->a, f->p, fixture_model(f->p, "gold.paid"));
	assert_true(json_is_null(json_object_get(doc, "lineage")));
	model_doc_lineage(doc, &g, fixture_model(f->p, "gold.paid"));
	total = json_object_get(json_object_get(doc, "lineage"), "total");
	assert_non_null(total);
	assert_string_equal(str(json_array_get(total, 0), "relation"), "silver.paid");
	assert_string_equal(str(json_array_get(total, 0), "column"), "amount");
	assert_string_equal(str(json_array_get(total, 0), "kind"), "AGGREGATION");
	json_decref(doc);
}

int main(void)
{
#define ON(name, wh) { #name "_" #wh, test_##name, setup_##wh, teardown, NULL }
#define T(name) ON(name, duckdb), ON(name, postgres)
	const struct CMUnitTest tests[] = {
		ON(project_part, duckdb),
		T(history_after_runs),
		T(edited_check_and_never_built),
		ON(lineage_part, duckdb),
	};
#undef T
#undef ON

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
