/*
 * The folder's record of the last check results (exec/checklog.c): one
 * file per model (and environment) with each check's failures and a
 * bounded sample, an ephemeral's checks in a file of their own that says
 * which build ran them, a record replaced whole by the next, and names
 * that would leave the folder never written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "exec/checklog.h"
#include "exec/run.h"
#include "warehouse/wh.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[64];
static struct wh *db;

static int setup(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/sluice-checklog-XXXXXX");
	if (!mkdtemp(root) || wh_open_duckdb(":memory:", false, &db, &err))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	wh_close(db);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static struct wh_result *sample(const char *sql)
{
	struct sl_err err = SL_ERR_INIT;
	struct wh_result *r;

	assert_int_equal(wh_query(db, sql, &r, &err), 0);
	return r;
}

static json_t *check_at(json_t *doc, size_t i)
{
	return json_array_get(json_object_get(doc, "checks"), i);
}

static void test_results_with_samples(void **state)
{
	struct model m = { .fqn = "silver.orders" }, eph = { .fqn = "silver.paid" };
	struct model_assert a1 = { .text = "not_null(id)", .line = 3 },
			    a2 = { .text = "amount < 100", .warn = true, .line = 4 },
			    a3 = { .text = "status = 'paid'", .line = 2 };
	struct assert_result res[3] = {
		{ .model = &m, .check = &a1, .failures = 0 },
		{ .model = &m, .check = &a2, .failures = 7,
		  .sample = sample("SELECT x AS id, repeat('é', 300) AS note, NULL AS gone "
				   "FROM range(7) t(x)") },
		{ .model = &eph, .check = &a3, .failures = 0 },
	};
	struct run_item item = { .m = &m, .asserts = res, .nasserts = 3 };
	struct sl_err err = SL_ERR_INIT;
	json_t *doc, *c, *rows;
	const char *note;

	(void)state;
	assert_null(checklog_read(root, "", "silver.orders"));
	assert_int_equal(checklog_record(root, "", 12, &item, 1767225600000, &err), 0);
	doc = checklog_read(root, NULL, "silver.orders");
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "checked_at")),
			    "2026-01-01 00:00:00.000");
	assert_int_equal(json_integer_value(json_object_get(doc, "run_id")), 12);
	assert_true(json_is_null(json_object_get(doc, "in")));
	assert_int_equal(json_array_size(json_object_get(doc, "checks")), 2);
	c = check_at(doc, 0);
	assert_string_equal(json_string_value(json_object_get(c, "check")), "not_null(id)");
	assert_string_equal(json_string_value(json_object_get(c, "severity")), "error");
	assert_true(json_is_null(json_object_get(c, "sample")));
	c = check_at(doc, 1);
	assert_string_equal(json_string_value(json_object_get(c, "severity")), "warn");
	assert_int_equal(json_integer_value(json_object_get(c, "failures")), 7);
	assert_int_equal(json_integer_value(json_object_get(c, "line")), 4);
	rows = json_object_get(json_object_get(c, "sample"), "rows");
	/* at most ASSERT_SAMPLE rows, a long value cut at a character */
	assert_int_equal(json_array_size(rows), ASSERT_SAMPLE);
	note = json_string_value(json_array_get(json_array_get(rows, 0), 1));
	assert_true(strlen(note) <= CHECKLOG_VALUE_MAX + 3);
	assert_non_null(strstr(note, "é..."));
	assert_true(json_is_null(json_array_get(json_array_get(rows, 0), 2)));
	json_decref(doc);
	/* the ephemeral's own file says whose build checked it */
	doc = checklog_read(root, "", "silver.paid");
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "in")), "silver.orders");
	assert_int_equal(json_array_size(json_object_get(doc, "checks")), 1);
	json_decref(doc);
	wh_result_free(res[1].sample);
}

/* The next run's results replace the last ones whole; another
 * environment's are kept apart. */
static void test_replaced_and_per_env(void **state)
{
	struct model m = { .fqn = "gold.t" };
	struct model_assert a = { .text = "x > 0", .line = 1 };
	struct assert_result res = { .model = &m, .check = &a, .failures = 2 };
	struct run_item item = { .m = &m, .asserts = &res, .nasserts = 1 };
	struct sl_err err = SL_ERR_INIT;
	char cmd[160];
	json_t *doc;

	(void)state;
	assert_int_equal(checklog_record(root, "", 1, &item, 0, &err), 0);
	res.failures = 0;
	assert_int_equal(checklog_record(root, "", 2, &item, 0, &err), 0);
	res.failures = 5;
	assert_int_equal(checklog_record(root, "pr7", 3, &item, 0, &err), 0);
	doc = checklog_read(root, "", "gold.t");
	assert_int_equal(json_integer_value(json_object_get(doc, "run_id")), 2);
	assert_int_equal(json_integer_value(json_object_get(check_at(doc, 0), "failures")), 0);
	json_decref(doc);
	doc = checklog_read(root, "pr7", "gold.t");
	assert_string_equal(json_string_value(json_object_get(doc, "env")), "pr7");
	assert_int_equal(json_integer_value(json_object_get(check_at(doc, 0), "failures")), 5);
	json_decref(doc);
	/* no file is left half written beside it */
	snprintf(cmd, sizeof(cmd), "test -z \"$(find '%s' -name '*.tmp')\"", root);
	assert_int_equal(system(cmd), 0);
}

/* A name that would leave the folder is never a file; a folder that
 * cannot be written is an error the caller may ignore. */
static void test_names_and_failures(void **state)
{
	struct model m = { .fqn = "../x" };
	struct model_assert a = { .text = "x > 0", .line = 1 };
	struct assert_result res = { .model = &m, .check = &a };
	struct run_item item = { .m = &m, .asserts = &res, .nasserts = 1 };
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(checklog_record(root, "", 1, &item, 0, &err), 0);
	assert_null(checklog_read(root, "", "../x"));
	m.fqn = "a.b";
	assert_int_equal(checklog_record(root, "../e", 1, &item, 0, &err), 0);
	assert_null(checklog_read(root, "../e", "a.b"));
	assert_int_equal(checklog_record("/proc/nowhere", "", 1, &item, 0, &err), SL_E_IO);
	item.nasserts = 0;
	assert_int_equal(checklog_record(root, "", 1, &item, 0, &err), 0);
	assert_null(checklog_read(root, "", "a.b"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results_with_samples),
		cmocka_unit_test(test_replaced_and_per_env),
		cmocka_unit_test(test_names_and_failures),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
