/*
 * Unit tests for the SQL lexical helpers (src/project/sqltext.c): how far a
 * qualified name extends (bare and quoted parts, "" escapes, spaces around
 * dots), which bytes lie inside string literals ('' escapes, comments and
 * quoted identifiers that hold quotes), skipping space and comments, and
 * the tokens of a query less their layout.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"
#include "project/sqltext.h"

#include <stdlib.h>
#include <string.h>

/* The name starting at the first occurrence of `at` in sql, as a string. */
static char *name_at(const char *sql, const char *at)
{
	const char *p = strstr(sql, at);
	size_t n;
	char *s;

	assert_non_null(p);
	n = sqltext_name_len(sql, (size_t)(p - sql));
	s = malloc(n + 1);
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static void expect_name(const char *sql, const char *at, const char *name)
{
	char *got = name_at(sql, at);

	assert_string_equal(got, name);
	free(got);
}

static void test_name_bare(void **state)
{
	(void)state;
	expect_name("SELECT * FROM orders", "orders", "orders");
	expect_name("FROM orders o", "orders", "orders");
	expect_name("FROM silver.orders AS o", "silver", "silver.orders");
	expect_name("FROM lake.silver.orders,x", "lake", "lake.silver.orders");
	expect_name("FROM _t$1 JOIN", "_t$1", "_t$1");
	expect_name("FROM s.t;", "s.t", "s.t");
	expect_name("FROM caf\xc3\xa9.x)", "caf", "caf\xc3\xa9.x");
	/* starting mid-name counts from there */
	expect_name("FROM silver.orders", "orders", "orders");
}

static void test_name_spaces_around_dots(void **state)
{
	(void)state;
	expect_name("FROM silver . orders o", "silver", "silver . orders");
	expect_name("FROM silver\n\t.\r\n orders\nWHERE", "silver", "silver\n\t.\r\n orders");
	expect_name("FROM silver .orders", "silver", "silver .orders");
	expect_name("FROM silver. orders", "silver", "silver. orders");
	/* whitespace without a dot ends the name */
	expect_name("FROM silver orders", "silver", "silver");
}

static void test_name_quoted(void **state)
{
	(void)state;
	expect_name("FROM \"Orders\" o", "\"Orders\"", "\"Orders\"");
	expect_name("FROM silver . \"Orders\" o", "silver", "silver . \"Orders\"");
	expect_name("FROM \"my schema\".\"my table\" x", "\"my", "\"my schema\".\"my table\"");
	expect_name("FROM \"a\"\"b\".c d", "\"a", "\"a\"\"b\".c");
	expect_name("FROM \"\"\"\" x", "\"", "\"\"\"\"");
	expect_name("FROM \"x.y\" z", "\"", "\"x.y\"");
	expect_name("FROM \"a\"  .  \"b\" . c", "\"a", "\"a\"  .  \"b\" . c");
	expect_name("FROM s.\"it's\" q", "s.", "s.\"it's\"");
}

static void test_name_parts_and_ends(void **state)
{
	(void)state;
	/* at most three parts: catalog.schema.table */
	expect_name("FROM a.b.c.d", "a.", "a.b.c");
	/* a dot with no name after it is not part of the name */
	expect_name("SELECT t.* FROM t", "t.", "t");
	expect_name("FROM s. ", "s.", "s");
	expect_name("FROM s.'x'", "s.", "s");
	expect_name("FROM s.\"unclosed", "s.", "s");
	expect_name("FROM t", "t", "t");
}

static void test_name_none(void **state)
{
	(void)state;
	assert_int_equal(sqltext_name_len("(SELECT 1)", 0), 0);
	assert_int_equal(sqltext_name_len("'data.csv'", 0), 0);
	assert_int_equal(sqltext_name_len("\"unclosed", 0), 0);
	assert_int_equal(sqltext_name_len(" orders", 0), 0);
	assert_int_equal(sqltext_name_len("", 0), 0);
	assert_int_equal(sqltext_name_len(".x", 0), 0);
	assert_int_equal(sqltext_name_len("ab", 2), 0);
}

/* A string with one char per byte of sql: 's' in a string, '.' outside. */
static char *map_of(const char *sql)
{
	size_t len = strlen(sql);
	bool *in = malloc(len + 1);
	char *out = malloc(len + 1);

	memset(in, 0x55, len + 1);
	sqltext_string_map(sql, len, in);
	for (size_t i = 0; i < len; i++)
		out[i] = in[i] ? 's' : '.';
	out[len] = '\0';
	free(in);
	return out;
}

static void expect_map(const char *sql, const char *map)
{
	char *got = map_of(sql);

	assert_int_equal(strlen(map), strlen(sql));
	assert_string_equal(got, map);
	free(got);
}

static void test_map_strings(void **state)
{
	(void)state;
	expect_map("SELECT 'a', b", ".......sss...");
	expect_map("x = 'it''s' y", "....sssssss..");
	expect_map("''", "ss");
	expect_map("'''' x", "ssss..");
	expect_map("'a' 'b'", "sss.sss");
	expect_map("'a''' x", "sssss..");
	/* the quotes belong to the literal */
	expect_map("'{this}'", "ssssssss");
}

static void test_map_comments(void **state)
{
	(void)state;
	expect_map("a -- it's\nb 'c'", "............sss");
	expect_map("-- '\n'x'", ".....sss");
	expect_map("a /* it's */ 'b'", ".............sss");
	expect_map("/* ' */'x'/* ' */", ".......sss.......");
	/* a comment marker inside a string is text */
	expect_map("'a -- b' c", "ssssssss..");
	expect_map("'/*' x '*/'", "ssss...ssss");
	/* an unterminated block comment runs to the end */
	expect_map("/* 'x", ".....");
}

static void test_map_quoted_identifiers(void **state)
{
	(void)state;
	expect_map("\"it's\" 'x'", ".......sss");
	expect_map("\"a\"\"'\" 'x'", ".......sss");
	/* an unterminated identifier runs to the end */
	expect_map("\"it's 'x'", ".........");
}

static void test_map_unterminated_string(void **state)
{
	(void)state;
	expect_map("a 'b c", "..ssss");
	expect_map("a 'b''", "..ssss");
}

static void test_map_stops_at_len(void **state)
{
	const char *sql = "'abc' 'def'";
	bool in[12];

	(void)state;
	memset(in, 0x55, sizeof(in));
	sqltext_string_map(sql, 8, in); /* "'abc' 'd" */
	assert_true(in[7]);
	assert_false(in[5]);
	assert_int_equal(((unsigned char *)in)[8], 0x55); /* nothing past len */
}

static void test_skip_space(void **state)
{
	const char *sql = "  \n\t-- a comment\n  /* block\n comment */ WITH x";

	(void)state;
	assert_int_equal(sqltext_skip_space(sql, 0), strlen(sql) - 6);
	assert_int_equal(sqltext_skip_space("SELECT", 0), 0);
	assert_int_equal(sqltext_skip_space("a  b", 1), 3);
	assert_int_equal(sqltext_skip_space("", 0), 0);
	assert_int_equal(sqltext_skip_space("  -- only a comment", 0), 19);
	assert_int_equal(sqltext_skip_space("/* unclosed", 0), 11);
	assert_int_equal(sqltext_skip_space("/**/x", 0), 4);
	/* a lone '-' or '/' is not a comment */
	assert_int_equal(sqltext_skip_space(" - 1", 0), 1);
	assert_int_equal(sqltext_skip_space(" / 1", 0), 1);
}

/* The items of a select list end at their commas and at FROM, past
 * parentheses, brackets, strings, quoted names and comments. */
static void test_split_list(void **state)
{
	const char *sql = "SELECT a, f(b, c) AS \"x,y\", 'p,q' -- r, s\n, [1, 2], "
			  "extract(year from ts) FROM t, u";
	size_t ends[8], start = 6;

	(void)state;
	assert_int_equal(sqltext_split_list(sql, start, "from", ends, 8), 5);
	assert_int_equal(ends[0], (size_t)(strchr(sql, ',') - sql));
	assert_int_equal(strncmp(sql + ends[4], "FROM t", 6), 0);
	assert_int_equal(strncmp(sql + ends[1] + 1, " 'p,q'", 6), 0);
	assert_int_equal(strncmp(sql + ends[3] + 1, " extract", 8), 0);
	/* a word that only begins with the keyword is no keyword */
	assert_int_equal(sqltext_split_list("SELECT fromage FROM t", 6, "from", ends, 8), 1);
	assert_int_equal(ends[0], 15);
	/* more items than room: counted all the same */
	assert_int_equal(sqltext_split_list("SELECT a, b, c FROM t", 6, "from", ends, 1), 3);
	/* no keyword: the list runs to the end */
	assert_int_equal(sqltext_split_list("SELECT 1, 2", 6, "from", ends, 8), 2);
	assert_int_equal(ends[1], 11);
}

static void test_find_word(void **state)
{
	(void)state;
	assert_int_equal(sqltext_find_word("WITH s AS (SELECT 1) SELECT x FROM s", 0, "select"), 21);
	assert_int_equal(sqltext_find_word("SELECT 'select' AS selected", 1, "select"), -1);
	assert_int_equal(sqltext_find_word("/* select */ select 1", 0, "select"), 13);
}

static void expect_tokens(const char *sql, const char *want)
{
	struct buf b = BUF_INIT;

	sqltext_tokens(sql, &b);
	assert_string_equal(b.buf, want);
	buf_release(&b);
}

static void test_tokens(void **state)
{
	(void)state;
	/* layout goes: comments, spacing, the case of bare words */
	expect_tokens("SELECT a , b+1 AS \"Total\" -- c\nFROM  t /* x */ WHERE b>0",
		      "select a,b+1 as \"Total\" from t where b>0");
	expect_tokens("select A,\n\tb + 1 as \"Total\"\nfrom T where b > 0\n",
		      "select a,b+1 as \"Total\" from t where b>0");
	/* strings and quoted names stay as written, with their spaces */
	expect_tokens("SELECT 'A  b', \"X y\"", "select 'A  b',\"X y\"");
	expect_tokens("SELECT 'it''s -- no comment'", "select 'it''s -- no comment'");
	/* a space that keeps words or quoted tokens apart stays */
	expect_tokens("SELECT 1 e3, 'a' 'b', x/**/y", "select 1 e3,'a' 'b',x y");
	expect_tokens("", "");
	expect_tokens("  -- only a comment", "");
	/* never past the end of what does not end */
	expect_tokens("SELECT 'open", "select 'open");
	expect_tokens("SELECT \"open", "select \"open");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_bare),
		cmocka_unit_test(test_name_spaces_around_dots),
		cmocka_unit_test(test_name_quoted),
		cmocka_unit_test(test_name_parts_and_ends),
		cmocka_unit_test(test_name_none),
		cmocka_unit_test(test_map_strings),
		cmocka_unit_test(test_map_comments),
		cmocka_unit_test(test_map_quoted_identifiers),
		cmocka_unit_test(test_map_unterminated_string),
		cmocka_unit_test(test_map_stops_at_len),
		cmocka_unit_test(test_skip_space),
		cmocka_unit_test(test_split_list),
		cmocka_unit_test(test_find_word),
		cmocka_unit_test(test_tokens),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
