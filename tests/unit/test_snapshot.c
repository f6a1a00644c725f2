/*
 * The project's snapshot that sluice docs writes for the static pages
 * (server/snapshot.c): one JSON document with the drawing GET /api/dag
 * answers and every model's document in dependency order, the columns as
 * the warehouse recorded them or, without a record, as the query names
 * them, the last check results from the folder, the column lineage; and
 * text that stays JSON whatever a name or a description holds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "core/buf.h"
#include "exec/checklog.h"
#include "exec/run.h"
#include "project/lineage_graph.h"
#include "server/snapshot.h"
#include "state/columns.h"
#include "warehouse/wh.h"

#include <jansson.h>

static int setup(void **state)
{
	return fixture_project_setup(state, "snapshot");
}

static int teardown(void **state)
{
	return fixture_project_teardown(state);
}

static json_t *model_of(json_t *snap, const char *name)
{
	return json_object_get(json_object_get(snap, "models"), name);
}

static void test_snapshot(void **state)
{
	struct fixture_project *f = *state;
	struct wh_column recorded[] = { { "id", "BIGINT" }, { "note", "VARCHAR" } };
	struct state_model_columns cols = { "silver.a", recorded, 2 };
	struct lineage_graph g;
	struct snapshot_input in = { &cols, 1, &g, 1767225600000 };
	struct sl_err err = SL_ERR_INIT;
	struct buf out = BUF_INIT;
	struct model_assert check = { .text = "id > 0", .line = 2 };
	struct assert_result res = { .check = &check, .failures = 3 };
	struct run_item item = { .asserts = &res, .nasserts = 1 };
	json_t *snap, *a, *b;
	const char *name;
	void *iter;

	fixture_put(f->root, "sluice.yml",
		    "name: \"snap <b>\"\nsources:\n  events: {kind: webhook, columns: {id: BIGINT}}\n");
	fixture_put(f->root, "models/silver/a.sql",
		    "@config description='has \"quotes\" and </script>'\n"
		    "@assert id > 0\n"
		    "@column note what it says\n"
		    "SELECT id, 'x' AS note FROM landing.events\n");
	fixture_put(f->root, "models/gold/b.sql", "SELECT id, note FROM silver.a\n");
	f->p = fixture_load_valid(f->a, f->root);
	lineage_graph_build(f->a, f->p, parser, NULL, NULL, &g);
	res.model = item.m = fixture_model(f->p, "silver.a");
	assert_int_equal(checklog_record(f->root, "", 4, &item, 0, &err), 0);

	assert_int_equal(snapshot_write(f->a, f->p, &in, &out, &err), 0);
	snap = json_loads(out.buf, JSON_REJECT_DUPLICATES, NULL);
	assert_non_null(snap);
	assert_string_equal(json_string_value(json_object_get(snap, "project")), "snap <b>");
	assert_string_equal(json_string_value(json_object_get(snap, "generated_at")),
			    "2026-01-01 00:00:00.000");
	assert_non_null(json_object_get(snap, "sluice"));
	/* the drawing, as GET /api/dag has it */
	assert_int_equal(json_array_size(json_object_get(json_object_get(snap, "dag"), "nodes")), 3);
	assert_non_null(json_object_get(json_object_get(json_object_get(snap, "dag"), "layout"),
					"hash"));
	assert_int_equal(json_array_size(json_object_get(json_object_get(snap, "dag"), "models")), 2);
	/* every model, in dependency order */
	iter = json_object_iter(json_object_get(snap, "models"));
	name = json_object_iter_key(iter);
	assert_string_equal(name, "silver.a");
	name = json_object_iter_key(json_object_iter_next(json_object_get(snap, "models"), iter));
	assert_string_equal(name, "gold.b");
	a = model_of(snap, "silver.a");
	assert_string_equal(json_string_value(json_object_get(a, "description")),
			    "has \"quotes\" and </script>");
	/* recorded columns with their types, the description beside one */
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(a, "columns"), 0), "type")),
			    "BIGINT");
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(a, "columns"), 1), "description")),
			    "what it says");
	/* the last results of its check, from the folder */
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(a, "checks"), 0), "failures")),
			 3);
	/* a model without a record: its query's names, no types */
	b = model_of(snap, "gold.b");
	assert_int_equal(json_array_size(json_object_get(b, "columns")), 2);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(b, "columns"), 1), "name")),
			    "note");
	assert_true(json_is_null(
		json_object_get(json_array_get(json_object_get(b, "columns"), 1), "type")));
	/* and where each comes from */
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(json_object_get(b, "lineage"), "note"), 0),
				    "relation")),
			    "silver.a");
	json_decref(snap);
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_snapshot, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
