/*
 * Unit tests for the maintenance classifier (src/project/ivm.c) on DuckDB's
 * parser: a corpus of queries, each with the class it must get and, when
 * that is not the best, the construct that blocks a better one at its
 * line:col in the model file; then the keys and aggregates a counted
 * query hands on, and arguments as written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "core/arena.h"
#include "core/err.h"
#include "project/ivm.h"
#include "project/model.h"
#include "warehouse/sqlparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Classifies sql; out's strings live in a. */
static void classify(struct arena *a, const char *sql, bool append_only, struct ivm_result *out)
{
	struct sl_err err = SL_ERR_INIT;
	char *tree = NULL;
	long off;

	if (sqlparse_tree(parser, sql, &tree, &off, &err))
		fail_msg("'%s' does not parse: %s", sql, err.msg);
	assert_int_equal(ivm_classify(a, tree, sql, append_only, out), 0);
	free(tree);
}

struct corpus_case {
	const char *sql;
	bool append_only;
	enum ivm_class cls;
	const char *blocker; /* NULL for mapped and counted */
	int line, col;       /* of the blocker; 0 0 when the tree gives no place */
};

#define BEST(sql, ao, cls) { sql, ao, cls, NULL, 0, 0 }

static const struct corpus_case corpus[] = {
	/* counted and mapped */
	BEST("SELECT region, count(*) AS n, sum(amount) AS revenue\nFROM silver.orders\nGROUP BY region",
	     false, IVM_COUNTED),
	BEST("SELECT count(*) FROM landing.orders", false, IVM_COUNTED),
	BEST("SELECT order_id, amount * 2 AS doubled FROM silver.orders WHERE amount > 0", false,
	     IVM_MAPPED),
	BEST("SELECT * FROM landing.orders", false, IVM_MAPPED),
	BEST("SELECT region, sum(amount) / count(*) AS mean FROM silver.orders GROUP BY region", false,
	     IVM_COUNTED),
	BEST("SELECT region, sum(CASE WHEN status = 'paid' THEN amount ELSE 0 END) AS paid\n"
	     "FROM silver.orders GROUP BY region",
	     false, IVM_COUNTED),
	BEST("SELECT region, count(*) FROM silver.orders GROUP BY 1", false, IVM_COUNTED),
	BEST("SELECT upper(region) AS r, count(*) FROM silver.orders GROUP BY r", false, IVM_COUNTED),
	BEST("SELECT upper(region) AS r, count(*) FROM silver.orders GROUP BY upper(region)", false,
	     IVM_COUNTED),
	BEST("SELECT coalesce(region, 'none') AS region, count(region), avg(amount)\n"
	     "FROM silver.orders GROUP BY coalesce(region, 'none')",
	     false, IVM_COUNTED),
	BEST("SELECT region, count(*) FROM silver.orders WHERE region IS NULL GROUP BY region", false,
	     IVM_COUNTED),
	BEST("SELECT \"Region\", count(\"Order Id\") AS \"N\" FROM \"Silver\".\"Orders\" GROUP BY \"Region\"",
	     false, IVM_COUNTED),
	BEST("SELECT region, min(amount), max(amount) FROM landing.orders GROUP BY region", true,
	     IVM_COUNTED),
	BEST("SELECT region, count(*) FROM (SELECT region FROM silver.orders WHERE amount > 0) AS o\n"
	     "GROUP BY region",
	     false, IVM_COUNTED),
	BEST("WITH paid AS (SELECT * FROM silver.orders WHERE status = 'paid')\n"
	     "SELECT region, sum(amount) FROM paid GROUP BY region",
	     false, IVM_COUNTED),
	BEST("WITH a AS (SELECT * FROM t WHERE x > 0), b AS (SELECT x, y FROM a)\n"
	     "SELECT y, sum(x) FROM b GROUP BY y",
	     false, IVM_COUNTED),
	BEST("WITH orders AS (SELECT * FROM orders WHERE amount > 0) SELECT count(*) FROM orders", false,
	     IVM_COUNTED),
	BEST("SELECT DISTINCT region FROM silver.orders", false, IVM_COUNTED),
	BEST("SELECT region, status, count(*) FROM silver.orders GROUP BY ALL", false, IVM_COUNTED),
	BEST("SELECT region, count(*) FROM silver.orders GROUP BY region ORDER BY region", false,
	     IVM_COUNTED),
	BEST("SELECT o.region, count() FROM silver.orders AS o GROUP BY region", false, IVM_COUNTED),
	BEST("SELECT region FROM silver.orders GROUP BY region", false, IVM_COUNTED),
	BEST("SELECT id FROM t WHERE _sluice_seq > 0000000000000", false, IVM_MAPPED),
	/* regroup */
	{ "SELECT region,\n       count(DISTINCT customer) AS customers\nFROM silver.orders\nGROUP BY region",
	  false, IVM_REGROUP, "COUNT(DISTINCT)", 2, 8 },
	{ "SELECT region, count(*) FROM silver.orders\nGROUP BY region\nHAVING count(*) > 1", false,
	  IVM_REGROUP, "HAVING", 3, 1 },
	{ "SELECT region, region || '!' AS loud, count(*) FROM silver.orders GROUP BY region", false,
	  IVM_REGROUP, "a selected expression that is not a GROUP BY key", 1, 16 },
	{ "SELECT upper(region), count(*) FROM silver.orders GROUP BY upper(region)", false,
	  IVM_FULL, "a key without a name (give it an alias)", 1, 8 },
	{ "SELECT region, count(*) FILTER (WHERE amount > 10) AS big FROM silver.orders GROUP BY region",
	  false, IVM_REGROUP, "FILTER", 1, 25 },
	{ "SELECT region, arg_max(amount, ts) AS latest FROM silver.orders GROUP BY region", false,
	  IVM_REGROUP, "arg_max()", 1, 16 },
	{ "SELECT region, median(amount) FROM silver.orders GROUP BY region", false, IVM_REGROUP,
	  "median()", 1, 16 },
	{ "SELECT region, string_agg(name, ',' ORDER BY name) FROM t GROUP BY region", false,
	  IVM_REGROUP, "string_agg(... ORDER BY)", 1, 16 },
	{ "SELECT count(*) AS n\nFROM silver.orders\nGROUP BY region", false, IVM_REGROUP,
	  "a GROUP BY key that is not selected", 3, 10 },
	{ "SELECT region, min(amount) FROM silver.orders GROUP BY region", false, IVM_REGROUP,
	  "min() over input that updates or deletes rows", 1, 16 },
	{ "SELECT region, count(*), max(amount) FROM silver.orders GROUP BY region", false,
	  IVM_REGROUP, "max() over input that updates or deletes rows", 1, 26 },
	{ "SELECT count(DISTINCT b), min(a) FROM t", false, IVM_REGROUP, "COUNT(DISTINCT)", 1, 8 },
	/* full */
	{ "SELECT region, count(DISTINCT c), now() FROM t GROUP BY region", false, IVM_FULL, "now()",
	  1, 35 },
	{ "SELECT o.region, count(*)\nFROM silver.orders o\nJOIN silver.customers c ON c.id = o.customer_id\n"
	  "GROUP BY o.region",
	  false, IVM_FULL, "a join", 3, 1 },
	{ "SELECT a FROM t, u", false, IVM_FULL, "a join", 1, 18 },
	{ "SELECT region, row_number() OVER (ORDER BY amount) FROM t", false, IVM_FULL,
	  "a window function (row_number)", 1, 16 },
	{ "SELECT region, sum(amount) OVER (PARTITION BY region) FROM t", false, IVM_FULL,
	  "a window function (sum)", 1, 16 },
	{ "SELECT * FROM t QUALIFY row_number() OVER (PARTITION BY id) = 1", false, IVM_FULL,
	  "a window function (row_number)", 1, 25 },
	{ "SELECT region, count(*), now() AS at FROM t GROUP BY region", false, IVM_FULL, "now()", 1,
	  26 },
	{ "SELECT * FROM t\nWHERE created_at > current_timestamp - INTERVAL 1 DAY", false, IVM_FULL,
	  "current_timestamp", 2, 20 },
	{ "SELECT id FROM t WHERE random() < 0.1", false, IVM_FULL, "random()", 1, 24 },
	{ "SELECT nextval('seq') AS id, name FROM t", false, IVM_FULL, "nextval()", 1, 8 },
	{ "SELECT * FROM t ORDER BY id\nLIMIT 10", false, IVM_FULL, "LIMIT", 2, 1 },
	{ "SELECT * FROM t OFFSET 5", false, IVM_FULL, "OFFSET", 1, 17 },
	{ "SELECT id FROM t\nUNION ALL\nSELECT id FROM u", false, IVM_FULL, "UNION ALL", 2, 1 },
	{ "SELECT a FROM t UNION SELECT a FROM u EXCEPT SELECT a FROM v", false, IVM_FULL, "UNION",
	  1, 17 },
	{ "SELECT id FROM t\nWHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id)", false, IVM_FULL,
	  "EXISTS (subquery)", 2, 7 },
	{ "SELECT id FROM t WHERE id IN (SELECT id FROM u)", false, IVM_FULL, "IN (subquery)", 1, 27 },
	{ "SELECT id, (SELECT max(x) FROM u) AS m FROM t", false, IVM_FULL, "a scalar subquery", 1,
	  12 },
	{ "SELECT DISTINCT ON (customer) customer, amount FROM t", false, IVM_FULL, "DISTINCT ON", 1,
	  8 },
	{ "SELECT a, b, count(*) FROM t GROUP BY ROLLUP (a, b)", false, IVM_FULL,
	  "GROUPING SETS, ROLLUP or CUBE", 1, 39 },
	{ "SELECT a, b, count(*) FROM t\nGROUP BY GROUPING SETS ((a), (b))", false, IVM_FULL,
	  "GROUPING SETS, ROLLUP or CUBE", 2, 10 },
	{ "SELECT max(n) FROM (SELECT region, count(*) AS n FROM t GROUP BY region) s", true,
	  IVM_FULL, "count() in a subquery", 1, 36 },
	{ "WITH s AS (SELECT region, sum(amount) AS total FROM t GROUP BY region)\n"
	  "SELECT region, total FROM s",
	  false, IVM_FULL, "sum() in a subquery", 1, 27 },
	{ "SELECT count(*) FROM (SELECT * FROM t LIMIT 10) s", false, IVM_FULL, "LIMIT", 1, 39 },
	{ "SELECT count(*) FROM (SELECT DISTINCT a FROM t) s", false, IVM_FULL,
	  "DISTINCT in a subquery", 1, 30 },
	{ "WITH x AS (SELECT id, random() AS r FROM t) SELECT id FROM x", false, IVM_FULL,
	  "random()", 1, 23 },
	{ "SELECT * FROM read_parquet('x.parquet')", false, IVM_FULL,
	  "a table function (read_parquet)", 1, 15 },
	{ "SELECT * FROM t TABLESAMPLE 10%", false, IVM_FULL, "TABLESAMPLE", 1, 15 },
	{ "SELECT 1 AS one", false, IVM_FULL, "no input table", 0, 0 },
	{ "SELECT DISTINCT count(*) FROM t GROUP BY region", false, IVM_FULL, "DISTINCT over groups",
	  1, 8 },
	{ "SELECT 'h\xc3\xa9llo' AS s, now() FROM t", false, IVM_FULL, "now()", 1, 23 },
	{ "SELECT sum(DISTINCT x) FROM t", false, IVM_REGROUP, "SUM(DISTINCT)", 1, 8 },
	{ "SELECT a, list(x) FROM t GROUP BY a", false, IVM_REGROUP, "list()", 1, 11 },
	{ "SELECT a, count(*) FROM t GROUP BY a, b", false, IVM_REGROUP,
	  "a GROUP BY key that is not selected", 1, 39 },
	{ "SELECT max(x) FROM t", false, IVM_REGROUP, "max() over input that updates or deletes rows",
	  1, 8 },
	{ "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3)\n"
	  "SELECT n FROM r",
	  false, IVM_FULL, "WITH RECURSIVE", 1, 6 },
	{ "SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM u)", false, IVM_FULL,
	  "EXISTS (subquery)", 1, 28 },
	{ "SELECT a FROM t WHERE a > (SELECT avg(a) FROM t)", false, IVM_FULL, "a scalar subquery", 1,
	  27 },
	{ "SELECT * FROM (VALUES (1), (2)) v(a)", false, IVM_FULL, "VALUES", 1, 16 },
	{ "SELECT a FROM t INTERSECT ALL SELECT a FROM u", false, IVM_FULL, "INTERSECT ALL", 1, 17 },
	{ "(SELECT a FROM t) UNION BY NAME (SELECT a FROM u)", false, IVM_FULL, "UNION BY NAME", 1,
	  19 },
	{ "SELECT * FROM 'orders.csv'", false, IVM_FULL, "a file in FROM", 1, 15 },
	{ "SELECT * FROM t USING SAMPLE 5", false, IVM_FULL, "USING SAMPLE", 0, 0 },
};

static void test_corpus(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		const struct corpus_case *c = &corpus[i];
		struct arena *a = arena_new(NULL);
		struct model m = { .body = c->sql, .body_line = 1 };
		struct ivm_result r;
		int line = 0, col = 0;

		classify(a, c->sql, c->append_only, &r);
		if (r.offset >= 0)
			model_span_position(&m, PART_BODY, (size_t)r.offset, &line, &col);
		if (r.cls != c->cls || (r.blocker == NULL) != (c->blocker == NULL) ||
		    (c->blocker && strcmp(r.blocker, c->blocker) != 0) || line != c->line ||
		    col != c->col) {
			fprintf(stderr, "case %zu: %s\n  want %s '%s' at %d:%d\n  got  %s '%s' at %d:%d\n",
				i, c->sql, ivm_class_name(c->cls), c->blocker ? c->blocker : "",
				c->line, c->col, ivm_class_name(r.cls), r.blocker ? r.blocker : "", line,
				col);
			bad++;
		}
		arena_free(a);
	}
	assert_int_equal(bad, 0);
}

static void test_corpus_size(void **state)
{
	(void)state;
	assert_true(sizeof(corpus) / sizeof(corpus[0]) >= 40);
}

static void test_counted_keys_and_aggregates(void **state)
{
	struct arena *a = arena_new(NULL);
	struct ivm_result r;

	(void)state;
	classify(a,
		 "SELECT region, count(*) AS n, sum( amount ) AS revenue, avg(ALL price * qty),\n"
		 "       sum(amount) / count(amount) AS mean\n"
		 "FROM silver.orders GROUP BY region",
		 false, &r);
	assert_int_equal(r.cls, IVM_COUNTED);
	assert_string_equal(r.schema, "silver");
	assert_string_equal(r.table, "orders");
	assert_int_equal(r.nkeys, 1);
	assert_int_equal(r.keys[0].item, 0);
	assert_string_equal(r.keys[0].name, "region");
	assert_int_equal(r.naggs, 5);
	assert_int_equal(r.aggs[0].kind, IVM_COUNT_STAR);
	assert_null(r.aggs[0].arg);
	assert_true(r.aggs[0].bare);
	assert_int_equal(r.aggs[1].kind, IVM_SUM);
	assert_string_equal(r.aggs[1].arg, "amount");
	assert_int_equal(r.aggs[1].item, 2);
	assert_int_equal(r.aggs[2].kind, IVM_AVG);
	assert_string_equal(r.aggs[2].arg, "price * qty");
	assert_int_equal(r.aggs[3].kind, IVM_SUM);
	assert_int_equal(r.aggs[3].item, 4);
	assert_false(r.aggs[3].bare);
	assert_int_equal(r.aggs[4].kind, IVM_COUNT);
	assert_false(r.aggs[4].bare);
	arena_free(a);
}

/* An argument keeps its text as written: strings with parentheses,
 * comments, quoted names, text before it in other scripts. */
static void test_argument_as_written(void **state)
{
	struct arena *a = arena_new(NULL);
	struct ivm_result r;

	(void)state;
	classify(a,
		 "SELECT '\xc3\xa9t\xc3\xa9' AS season, sum(CASE WHEN note = ')(' THEN \"Net (EUR)\" "
		 "/* ) */ ELSE 0 END) FROM t",
		 false, &r);
	assert_int_equal(r.cls, IVM_COUNTED);
	assert_int_equal(r.naggs, 1);
	assert_string_equal(r.aggs[0].arg,
			    "CASE WHEN note = ')(' THEN \"Net (EUR)\" /* ) */ ELSE 0 END");
	arena_free(a);
}

/* Keys by position, alias, expression and under DISTINCT or GROUP BY ALL;
 * an alias that names the column it is computed from is the column. */
static void test_key_forms(void **state)
{
	struct arena *a = arena_new(NULL);
	struct ivm_result r;

	(void)state;
	classify(a, "SELECT count(*), \"Region\" FROM t GROUP BY 2, \"region\"", false, &r);
	assert_int_equal(r.cls, IVM_COUNTED);
	assert_int_equal(r.nkeys, 1);
	assert_int_equal(r.keys[0].item, 1);
	assert_string_equal(r.keys[0].name, "Region");

	/* a key DuckDB would name after its expression has no name to keep */
	classify(a, "SELECT upper(region), lower(city) AS c, count(*) FROM t GROUP BY upper(region), c",
		 false, &r);
	assert_int_equal(r.cls, IVM_FULL);
	assert_string_equal(r.blocker, "a key without a name (give it an alias)");

	classify(a, "SELECT DISTINCT a, b AS bee FROM t", false, &r);
	assert_int_equal(r.cls, IVM_COUNTED);
	assert_int_equal(r.nkeys, 2);
	assert_string_equal(r.keys[1].name, "bee");
	assert_int_equal(r.naggs, 0);

	classify(a, "SELECT a, sum(x), b FROM t GROUP BY ALL", false, &r);
	assert_int_equal(r.nkeys, 2);
	assert_int_equal(r.keys[1].item, 2);

	/* DuckDB groups by the input's column: the item is not the key */
	classify(a, "SELECT upper(region) AS region, count(*) FROM t GROUP BY region", false, &r);
	assert_int_equal(r.cls, IVM_REGROUP);
	assert_string_equal(r.blocker, "a selected expression that is not a GROUP BY key");
	arena_free(a);
}

/* The text of s[start, end). */
static const char *slice(struct arena *a, const char *s, size_t start, size_t end)
{
	return arena_strndup(a, s + start, end - start);
}

/* Where a refresh edits the query: each select item between its commas,
 * its expression before its alias, each aggregate's call, the place
 * past HAVING, DISTINCT and the input's name. */
static void test_places_in_the_text(void **state)
{
	struct arena *a = arena_new(NULL);
	struct ivm_result r;
	const char *sql = "WITH x AS (SELECT 1)\nSELECT region AS \"Reg\", coalesce(sum(amount), 0) AS "
			  "total, count(*)\nFROM silver.orders o GROUP BY region";
	const char *having = "SELECT region, count(DISTINCT id) FROM t GROUP BY region HAVING count(*) > 1";
	const char *distinct = "SELECT DISTINCT region, city AS c FROM t";

	(void)state;
	classify(a, sql, false, &r);
	assert_int_equal(r.cls, IVM_COUNTED);
	assert_int_equal(r.nitems, 3);
	assert_string_equal(slice(a, sql, r.items[0].start, r.items[0].end), " region AS \"Reg\"");
	assert_string_equal(slice(a, sql, r.items[0].start, r.items[0].expr_end), " region ");
	assert_true(r.items[0].key);
	assert_string_equal(slice(a, sql, r.items[1].start, r.items[1].expr_end),
			    " coalesce(sum(amount), 0) ");
	assert_false(r.items[1].key);
	assert_string_equal(slice(a, sql, r.items[2].start, r.items[2].end), " count(*)\n");
	assert_int_equal(r.items[2].expr_end, r.items[2].end);
	assert_int_equal(r.naggs, 2);
	assert_string_equal(slice(a, sql, r.aggs[0].start, r.aggs[0].end), "sum(amount)");
	assert_string_equal(slice(a, sql, r.aggs[1].start, r.aggs[1].end), "count(*)");
	assert_string_equal(slice(a, sql, (size_t)r.table_at, (size_t)r.table_at + 13),
			    "silver.orders");
	assert_true(r.direct);
	assert_int_equal(r.having_end, -1);
	assert_int_equal(r.distinct_at, -1);

	classify(a, having, false, &r);
	assert_int_equal(r.cls, IVM_REGROUP);
	assert_string_equal(having + r.having_end, " count(*) > 1");

	classify(a, distinct, false, &r);
	assert_int_equal(r.cls, IVM_COUNTED);
	assert_int_equal(strncmp(distinct + r.distinct_at, "DISTINCT region", 15), 0);
	assert_string_equal(slice(a, distinct, r.items[0].start, r.items[0].end), " region");
	assert_true(r.items[1].key);

	/* through a subquery the input is not the outer FROM */
	classify(a, "SELECT k, count(*) FROM (SELECT a AS k FROM t) AS s GROUP BY k", false, &r);
	assert_int_equal(r.cls, IVM_COUNTED);
	assert_false(r.direct);
	arena_free(a);
}

/* The input is named through WITH and subqueries in FROM; none for a
 * join. */
static void test_input_table(void **state)
{
	struct arena *a = arena_new(NULL);
	struct ivm_result r;

	(void)state;
	classify(a, "WITH x AS (SELECT * FROM (SELECT * FROM Landing.Orders) o) SELECT * FROM x",
		 false, &r);
	assert_int_equal(r.cls, IVM_MAPPED);
	assert_string_equal(r.schema, "landing");
	assert_string_equal(r.table, "orders");
	assert_int_equal(r.nkeys, 0);

	classify(a,
		 "WITH a AS (WITH b AS (SELECT * FROM u) SELECT * FROM b), b AS (SELECT * FROM a)\n"
		 "SELECT x, count(*) FROM b GROUP BY x",
		 false, &r);
	assert_int_equal(r.cls, IVM_COUNTED);
	assert_string_equal(r.table, "u");

	classify(a, "WITH t AS (SELECT * FROM t WHERE x > 0) SELECT * FROM t", false, &r);
	assert_int_equal(r.cls, IVM_MAPPED);
	assert_string_equal(r.table, "t");

	classify(a, "SELECT * FROM t JOIN u USING (id)", false, &r);
	assert_null(r.table);
	assert_int_equal(r.nkeys, 0);
	arena_free(a);
}

static void test_not_one_query(void **state)
{
	struct arena *a = arena_new(NULL);
	struct ivm_result r;

	(void)state;
	assert_int_equal(ivm_classify(a, "{\"error\":false,\"statements\":[]}", "", false, &r),
			 SL_E_PARSE);
	assert_int_equal(ivm_classify(a, "not json", "", false, &r), SL_E_PARSE);
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_corpus_size),
		cmocka_unit_test(test_counted_keys_and_aggregates),
		cmocka_unit_test(test_argument_as_written),
		cmocka_unit_test(test_key_forms),
		cmocka_unit_test(test_input_table),
		cmocka_unit_test(test_places_in_the_text),
		cmocka_unit_test(test_not_one_query),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
