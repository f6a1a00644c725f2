/*
 * The read endpoint's formats (src/server/sqlout.c), which `sluice sql`
 * prints too: CSV quoting and NULL against the empty string, NDJSON and
 * JSON values whole (a NUL byte too), a row cap that reports truncation,
 * and the format a request asks for by name or Accept header.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/err.h"
#include "server/sqlout.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <string.h>

static struct wh *db;

static int group_setup(void **state)
{
	(void)state;
	return wh_open_duckdb(":memory:", false, &db, NULL) ? -1 : 0;
}

static int group_teardown(void **state)
{
	(void)state;
	wh_close(db);
	return 0;
}

static const char rows[] = "SELECT * FROM (VALUES (1, 'plain'), (2, 'a, b'), (3, 'say \"hi\"'), "
			   "(4, ''), (5, NULL), (6, 'two\nlines'), (7, 'nul' || chr(0) || 'byte')) "
			   "v(id, \"the text\") ORDER BY id";

static void format(enum sql_format f, size_t max_rows, struct buf *out)
{
	struct wh_result *r;

	assert_int_equal(wh_query(db, rows, &r, NULL), 0);
	sql_format_write(r, max_rows, f, false, out);
	wh_result_free(r);
}

static void test_csv(void **state)
{
	static const char want[] =
		"id,the text\r\n1,plain\r\n2,\"a, b\"\r\n3,\"say \"\"hi\"\"\"\r\n4,\"\"\r\n"
		"5,\r\n6,\"two\nlines\"\r\n7,nul\0byte\r\n";
	struct buf out = BUF_INIT;

	(void)state;
	format(SQL_FORMAT_CSV, 100, &out);
	assert_int_equal(out.len, sizeof(want) - 1);
	assert_memory_equal(out.buf, want, out.len);
	buf_release(&out);
}

static void test_ndjson(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	format(SQL_FORMAT_NDJSON, 100, &out);
	assert_string_equal(out.buf, "{\"id\":\"1\",\"the text\":\"plain\"}\n"
				     "{\"id\":\"2\",\"the text\":\"a, b\"}\n"
				     "{\"id\":\"3\",\"the text\":\"say \\\"hi\\\"\"}\n"
				     "{\"id\":\"4\",\"the text\":\"\"}\n"
				     "{\"id\":\"5\",\"the text\":null}\n"
				     "{\"id\":\"6\",\"the text\":\"two\\nlines\"}\n"
				     "{\"id\":\"7\",\"the text\":\"nul\\u0000byte\"}\n");
	buf_release(&out);
}

static void test_json_and_truncation(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	format(SQL_FORMAT_JSON, 2, &out);
	assert_string_equal(out.buf, "{\"columns\":[\"id\",\"the text\"],\"rows\":[[\"1\",\"plain\"],"
				     "[\"2\",\"a, b\"]],\"truncated\":true}\n");
	buf_reset(&out);
	format(SQL_FORMAT_CSV, 1, &out);
	assert_string_equal(out.buf, "id,the text\r\n1,plain\r\n");
	buf_release(&out);
}

static void test_asked_format(void **state)
{
	enum sql_format f;

	(void)state;
	assert_true(sql_format_parse("csv", &f));
	assert_int_equal(f, SQL_FORMAT_CSV);
	assert_true(sql_format_parse("ndjson", &f));
	assert_int_equal(f, SQL_FORMAT_NDJSON);
	assert_false(sql_format_parse("CSV", &f));
	assert_false(sql_format_parse("table", &f));
	assert_int_equal(sql_format_accept(NULL), SQL_FORMAT_JSON);
	assert_int_equal(sql_format_accept("*/*"), SQL_FORMAT_JSON);
	assert_int_equal(sql_format_accept("text/csv; charset=utf-8"), SQL_FORMAT_CSV);
	assert_int_equal(sql_format_accept("application/x-ndjson"), SQL_FORMAT_NDJSON);
	assert_string_equal(sql_format_type(SQL_FORMAT_CSV), "text/csv");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_ndjson),
		cmocka_unit_test(test_json_and_truncation),
		cmocka_unit_test(test_asked_format),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
