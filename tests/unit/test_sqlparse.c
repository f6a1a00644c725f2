/*
 * Unit tests for the SQL parser wrapper (src/warehouse/sqlparse.c): a query
 * gives its tree as JSON, a syntax error gives SL_E_PARSE with the place it
 * points at, a statement that is not a query is refused, and nothing given
 * to the parser is ever run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "core/err.h"
#include "warehouse/sqlparse.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses sql, which must succeed; the number of statements in the tree. */
static size_t statements(const char *sql)
{
	struct sl_err err = SL_ERR_INIT;
	char *json = NULL;
	long off = 123;
	json_t *root;
	size_t n;

	if (sqlparse_tree(parser, sql, &json, &off, &err))
		fail_msg("'%s' did not parse: %s", sql, err.msg);
	assert_non_null(json);
	assert_int_equal(off, -1);
	assert_int_equal(err.code, 0);
	root = json_loads(json, JSON_DECODE_INT_AS_REAL, NULL);
	assert_non_null(root);
	assert_true(json_is_false(json_object_get(root, "error")));
	n = json_array_size(json_object_get(root, "statements"));
	json_decref(root);
	free(json);
	return n;
}

/* Parses sql, which must fail with SL_E_PARSE; returns the offset. */
static long parse_error(const char *sql, char *msg, size_t msglen)
{
	struct sl_err err = SL_ERR_INIT;
	char *json = (char *)"untouched";
	long off = 123;

	assert_int_equal(sqlparse_tree(parser, sql, &json, &off, &err), SL_E_PARSE);
	assert_null(json);
	assert_int_equal(err.code, SL_E_PARSE);
	snprintf(msg, msglen, "%s", err.msg);
	return off;
}

static void test_query_tree(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	char *json;
	long off;

	(void)state;
	assert_int_equal(sqlparse_tree(parser, "SELECT a FROM silver.orders", &json, &off, &err), 0);
	assert_non_null(strstr(json, "\"BASE_TABLE\""));
	assert_non_null(strstr(json, "\"table_name\":\"orders\""));
	assert_non_null(strstr(json, "\"schema_name\":\"silver\""));
	free(json);
	assert_int_equal(statements("SELECT 1"), 1);
	assert_int_equal(statements("WITH a AS (SELECT 1) SELECT * FROM a"), 1);
	assert_int_equal(statements("FROM t"), 1);
	assert_int_equal(statements("VALUES (1), (2)"), 1);
	assert_int_equal(statements("SELECT 'it''s' AS \"we\"\"ird\" -- comment"), 1);
	assert_int_equal(statements("SELECT 1 UNION ALL SELECT 2 ORDER BY 1 LIMIT 1"), 1);
}

static void test_statement_count(void **state)
{
	(void)state;
	assert_int_equal(statements("SELECT 1; SELECT 2"), 2);
	assert_int_equal(statements(""), 0);
	assert_int_equal(statements("-- nothing"), 0);
}

static void test_syntax_error_offset(void **state)
{
	char msg[SL_ERR_MSG_MAX];

	(void)state;
	assert_int_equal(parse_error("SELECT * FROM WHERE", msg, sizeof(msg)), 14);
	assert_string_equal(msg, "syntax error at or near \"WHERE\"");
	assert_int_equal(parse_error("SELECT a,\nb c d\nFROM t", msg, sizeof(msg)), 14);
	assert_non_null(strstr(msg, "\"d\""));
	assert_int_equal(parse_error("SELECT (1", msg, sizeof(msg)), 9);
	assert_non_null(strstr(msg, "end of input"));
	assert_int_equal(parse_error("SELEC 1", msg, sizeof(msg)), 0);
}

static void test_error_offset_is_in_bytes(void **state)
{
	char msg[SL_ERR_MSG_MAX];
	long off;

	(void)state;
	/* "WHERE" starts at byte 28 (each é is two bytes), character 24 */
	off = parse_error("SELECT '\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9' AS x FROM WHERE", msg,
			  sizeof(msg));
	assert_int_equal(off, 28);
	assert_string_equal(msg, "syntax error at or near \"WHERE\"");
	/* three- and four-byte characters (€, U+1F600) */
	off = parse_error("SELECT '\xe2\x82\xac' AS x FROM WHERE", msg, sizeof(msg));
	assert_int_equal(off, 23);
	off = parse_error("SELECT '\xf0\x9f\x98\x80' AS x FROM WHERE", msg, sizeof(msg));
	assert_int_equal(off, 24);
	/* an error at the end of input lands on the end, in bytes */
	off = parse_error("SELECT '\xc3\xa9' AS x FROM (SELECT 1", msg, sizeof(msg));
	assert_int_equal(off, 31);
}

static void test_not_a_query(void **state)
{
	static const char *const stmts[] = {
		"DELETE FROM t",
		"DROP TABLE t",
		"CREATE TABLE t AS SELECT 1",
		"INSERT INTO t VALUES (1)",
		"UPDATE t SET a = 1",
		"PRAGMA version",
		"EXPLAIN SELECT 1",
		NULL,
	};
	char msg[SL_ERR_MSG_MAX];

	(void)state;
	for (size_t i = 0; stmts[i]; i++) {
		long off = parse_error(stmts[i], msg, sizeof(msg));

		if (strncmp(msg, "not a query", 11) != 0)
			fail_msg("'%s': %s", stmts[i], msg);
		assert_int_equal(off, -1);
	}
}

static void test_never_runs_sql(void **state)
{
	(void)state;
	/* parsing only: errors that running would raise do not happen */
	assert_int_equal(statements("SELECT error('boom')"), 1);
	assert_int_equal(statements("SELECT * FROM table_that_does_not_exist"), 1);
	assert_int_equal(statements("SELECT * FROM read_csv('/nonexistent/x.csv')"), 1);
}

static void test_reuse(void **state)
{
	char msg[SL_ERR_MSG_MAX];
	char sql[64];

	(void)state;
	/* the prepared statement is reused: errors and successes interleave */
	for (int i = 0; i < 50; i++) {
		snprintf(sql, sizeof(sql), "SELECT %d AS x FROM t%d", i, i);
		assert_int_equal(statements(sql), 1);
		assert_int_equal(parse_error("SELECT FROM FROM", msg, sizeof(msg)), 12);
	}
}

static void test_second_parser(void **state)
{
	struct sqlparse *p2 = NULL;
	struct sl_err err = SL_ERR_INIT;
	char *json;
	long off;

	(void)state;
	assert_int_equal(sqlparse_open(&p2, &err), 0);
	assert_int_equal(sqlparse_tree(p2, "SELECT 1", &json, &off, &err), 0);
	free(json);
	sqlparse_close(p2);
	sqlparse_close(NULL);
}

/* A parser of its own (another process's) over the cache at path: the
 * tree of sql, which must parse. */
static char *cached_tree(const char *path, const char *sql)
{
	struct sqlparse *p = NULL;
	struct sl_err err = SL_ERR_INIT;
	char *json = NULL;
	long off;

	assert_int_equal(sqlparse_open(&p, &err), 0);
	sqlparse_use_cache(p, path);
	assert_int_equal(sqlparse_tree(p, sql, &json, &off, &err), 0);
	sqlparse_close(p);
	return json;
}

static long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

/* Trees kept between processes by the text they came from: the same tree
 * read back, a query no longer parsed dropped, and a file that is not a
 * cache (another version's, a torn one) read as none, never as trees. */
static void test_cache_between_processes(void **state)
{
	char root[PATH_MAX], path[PATH_MAX + 32];
	char *first, *again, *other;
	FILE *f;

	(void)state;
	fixture_mkdtemp(root, "parse-cache");
	snprintf(path, sizeof(path), "%s/.sluice/parse-cache", root);
	first = cached_tree(path, "SELECT a, b FROM t WHERE a > 1");
	assert_true(file_size(path) > 0);
	again = cached_tree(path, "SELECT a, b FROM t WHERE a > 1");
	assert_string_equal(again, first);
	/* another query only: the first one's tree goes */
	other = cached_tree(path, "SELECT 2");
	assert_null(strstr(other, "\"t\""));
	f = fopen(path, "rb");
	assert_non_null(f);
	{
		char buf[65536];
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = '\0';
		assert_null(strstr(buf, "\"column_names\":[\"a\"]"));
	}
	fclose(f);
	/* another version's file, and a torn one, hold no trees */
	fixture_put(root, ".sluice/parse-cache", "sluice parse cache 3 v0.0.0\n"
						  "0000000000000000000000000000000000000000000000000000000000000000 2\n{}\n");
	free(again);
	again = cached_tree(path, "SELECT a, b FROM t WHERE a > 1");
	assert_string_equal(again, first);
	f = fopen(path, "rb+");
	assert_non_null(f);
	fseek(f, -40, SEEK_END);
	fputs("garbage", f);
	fclose(f);
	free(again);
	again = cached_tree(path, "SELECT a, b FROM t WHERE a > 1");
	assert_string_equal(again, first);
	free(first);
	free(again);
	free(other);
	fixture_rmtree(root);
}

/* The function catalog: aggregates by name in any case, volatile
 * functions by their stability; a scalar function is neither. */
static void test_function_catalog(void **state)
{
	(void)state;
	assert_string_equal(sqlparse_aggregate("ARG_MAX"), "arg_max");
	assert_string_equal(sqlparse_aggregate("histogram"), "histogram");
	assert_null(sqlparse_aggregate("upper"));
	assert_null(sqlparse_aggregate(""));
	assert_true(sqlparse_volatile("random"));
	assert_true(sqlparse_volatile("Gen_Random_UUID"));
	assert_false(sqlparse_volatile("upper"));
}

/* Kept for key A by a process of its own over the derived cache at path
 * (put first when put), whether it was there; key B used alone when not. */
static bool derived_has(const char *path, bool put, bool ask)
{
	static const unsigned char a[32] = { 'a' }, b[32] = { 'b' };
	struct sqlparse *p = NULL;
	struct sl_err err = SL_ERR_INIT;
	bool has = false;

	assert_int_equal(sqlparse_open(&p, &err), 0);
	sqlparse_use_derived_cache(p, path);
	if (put) {
		sqlparse_derived_put(p, a, "kept for a");
		sqlparse_derived_put(p, b, "kept for b");
	}
	if (ask)
		has = sqlparse_derived_get(p, a) != NULL;
	else
		assert_string_equal(sqlparse_derived_get(p, b), "kept for b");
	sqlparse_close(p);
	return has;
}

/* What callers derive is kept through commands that do not use it (16
 * in a row), then goes. */
static void test_derived_kept_while_used_elsewhere(void **state)
{
	char root[PATH_MAX], path[PATH_MAX + 32];

	(void)state;
	fixture_mkdtemp(root, "derived-age");
	snprintf(path, sizeof(path), "%s/derived-cache", root);
	derived_has(path, true, false);
	for (int i = 1; i < 16; i++)
		derived_has(path, false, false);
	assert_true(derived_has(path, false, true));
	for (int i = 0; i < 17; i++)
		derived_has(path, false, false);
	assert_false(derived_has(path, false, true));
	/* a key's text kept anew replaces the one kept before */
	{
		static const unsigned char k[32] = { 'k' };
		struct sqlparse *p = NULL;
		struct sl_err err = SL_ERR_INIT;

		for (int i = 0; i < 2; i++) {
			assert_int_equal(sqlparse_open(&p, &err), 0);
			sqlparse_use_derived_cache(p, path);
			sqlparse_derived_put(p, k, i ? "second" : "first");
			sqlparse_close(p);
		}
		assert_int_equal(sqlparse_open(&p, &err), 0);
		sqlparse_use_derived_cache(p, path);
		assert_string_equal(sqlparse_derived_get(p, k), "second");
		sqlparse_close(p);
	}
	fixture_rmtree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_tree),
		cmocka_unit_test(test_statement_count),
		cmocka_unit_test(test_syntax_error_offset),
		cmocka_unit_test(test_error_offset_is_in_bytes),
		cmocka_unit_test(test_not_a_query),
		cmocka_unit_test(test_never_runs_sql),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_second_parser),
		cmocka_unit_test(test_function_catalog),
		cmocka_unit_test(test_cache_between_processes),
		cmocka_unit_test(test_derived_kept_while_used_elsewhere),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
