/*
 * Unit tests for the canonical form of a parse tree (src/project/canon.c):
 * locations left out wherever they are, a marked location written as its
 * text, strings that hold the key's words or escaped quotes left alone,
 * numbers kept digit for digit, and malformed text refused; then on real
 * trees, queries that differ in layout alone give one form.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "core/buf.h"
#include "core/err.h"
#include "project/canon.h"
#include "warehouse/sqlparse.h"

static void expect_form(const char *tree, canon_mark_fn *mark, const char *want)
{
	struct buf b = BUF_INIT;

	assert_int_equal(canon_tree(tree, mark, NULL, &b), 0);
	assert_string_equal(b.buf, want);
	buf_release(&b);
}

/* Marks location 7 as the text of a placeholder. */
static const char *mark_seven(void *ctx, size_t location, size_t *len)
{
	(void)ctx;
	if (location != 7)
		return NULL;
	*len = strlen("{watermark}");
	return "{watermark}";
}

static void test_locations_left_out(void **state)
{
	(void)state;
	expect_form("{\"a\":1,\"query_location\":12,\"b\":[{\"query_location\":18446744073709551615}]}",
		    NULL, "{\"a\":1,,\"b\":[{}]}");
	expect_form("{\"query_location\":7,\"v\":9007199254740993}", mark_seven,
		    "{\"placeholder\":{watermark},\"v\":9007199254740993}");
	expect_form("{\"query_location\":8}", mark_seven, "{}");
	/* the key's words inside a string are a value, not the key */
	expect_form("{\"s\":\"\\\"query_location\\\":5\",\"t\":\"query_location\"}", NULL,
		    "{\"s\":\"\\\"query_location\\\":5\",\"t\":\"query_location\"}");
	expect_form("", NULL, "");
}

static void test_malformed_refused(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(canon_tree("{\"a\":\"open", NULL, NULL, &b), SL_E_PARSE);
	buf_reset(&b);
	assert_int_equal(canon_tree("{\"query_location\":x}", NULL, NULL, &b), SL_E_PARSE);
	buf_release(&b);
}

/* The form of sql's real parse tree, which the caller must free(). */
static char *form_of(const char *sql)
{
	struct sl_err err = SL_ERR_INIT;
	struct buf b = BUF_INIT;
	char *tree;
	long off;

	if (sqlparse_tree(parser, sql, &tree, &off, &err))
		fail_msg("%s: %s", sql, err.msg);
	assert_int_equal(canon_tree(tree, NULL, NULL, &b), 0);
	assert_null(strstr(b.buf, "query_location"));
	free(tree);
	return buf_detach(&b, NULL);
}

static void test_real_trees(void **state)
{
	char *base = form_of("SELECT a + 1 AS b FROM t WHERE c > 0");
	char *same = form_of("-- x\nselect a+1   as b\n  from t /* y */ where c>0");
	char *other = form_of("SELECT a + 1 AS b FROM t WHERE c >= 0");

	(void)state;
	assert_string_equal(base, same);
	assert_string_not_equal(base, other);
	free(base);
	free(same);
	free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locations_left_out),
		cmocka_unit_test(test_malformed_refused),
		cmocka_unit_test(test_real_trees),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
