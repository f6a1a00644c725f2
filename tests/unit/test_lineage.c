/*
 * Unit tests for column lineage of one query (src/project/lineage.c) on
 * DuckDB's parser: direct inputs (identity, transformation, aggregation)
 * and indirect ones (join, filter, group by, sort, window, conditional)
 * through CTEs, subqueries, stars with EXCLUDE and REPLACE, joins with
 * USING, set operations, window functions and table functions; DISTINCT
 * and set operations without ALL, whose rows depend on every column; a
 * column that names nothing of a subquery or model it reads has its rows
 * all the same; what it cannot see through is named, never dropped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "project/lineage.h"
#include "project/lineage_graph.h"
#include "project/lineage_kept.h"
#include "warehouse/sqlparse.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tables the queries read: main.t(a, b, c, d, g, ts), main.u(id, x, b),
 * main.v(id, y); any other is not known. */
static bool columns(void *ctx, const char *schema, const char *table, const char *const **cols,
		    size_t *n)
{
	static const char *const t[] = { "a", "b", "c", "d", "g", "ts" };
	static const char *const u[] = { "id", "x", "b" };
	static const char *const v[] = { "id", "y" };

	(void)ctx;
	if (strcmp(schema, "main") != 0)
		return false;
	if (strcmp(table, "t") == 0) {
		*cols = t;
		*n = 6;
	} else if (strcmp(table, "u") == 0) {
		*cols = u;
		*n = 3;
	} else if (strcmp(table, "v") == 0) {
		*cols = v;
		*n = 2;
	} else {
		return false;
	}
	return true;
}

static void of(struct arena *a, const char *sql, struct lineage *out)
{
	struct sl_err err = SL_ERR_INIT;
	char *tree = NULL;
	long off;

	if (sqlparse_tree(parser, sql, &tree, &off, &err))
		fail_msg("'%s' does not parse: %s", sql, err.msg);
	assert_int_equal(lineage_query(a, tree, sql, false, columns, NULL, out), 0);
	free(tree);
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* A column's inputs as "KIND relation.column", sorted, joined by ", ". */
static const char *inputs(struct arena *a, const struct lineage *l, const char *col)
{
	struct buf b = BUF_INIT;
	const char **v;
	const char *s;

	for (size_t i = 0; i < l->ncols; i++) {
		const struct lineage_column *c = &l->cols[i];

		if (strcmp(c->name, col) != 0)
			continue;
		v = arena_alloc(a, (c->ninputs + 1) * sizeof(*v));
		for (size_t k = 0; k < c->ninputs; k++)
			v[k] = arena_sprintf(a, "%s %s.%s", lineage_kind_name(c->inputs[k].kind),
					     c->inputs[k].relation, c->inputs[k].column);
		qsort(v, c->ninputs, sizeof(*v), cmp_str);
		for (size_t k = 0; k < c->ninputs; k++)
			buf_addf(&b, "%s%s", k ? ", " : "", v[k]);
		s = arena_strdup(a, b.buf);
		buf_release(&b);
		return s;
	}
	fail_msg("no column '%s'", col);
	return NULL;
}

static const char *names(struct arena *a, const struct lineage *l)
{
	struct buf b = BUF_INIT;
	const char *s;

	for (size_t i = 0; i < l->ncols; i++)
		buf_addf(&b, "%s%s", i ? " " : "", l->cols[i].name);
	s = arena_strdup(a, b.buf);
	buf_release(&b);
	return s;
}

static void test_direct_and_filter(void **state)
{
	struct arena *a = arena_new(NULL);
	struct lineage l;

	(void)state;
	of(a, "SELECT a, b + 1 AS c, upper(c) AS uc FROM t WHERE d > 0", &l);
	assert_string_equal(names(a, &l), "a c uc");
	assert_string_equal(inputs(a, &l, "a"), "FILTER main.t.d, IDENTITY main.t.a");
	assert_string_equal(inputs(a, &l, "c"), "FILTER main.t.d, TRANSFORMATION main.t.b");
	assert_string_equal(inputs(a, &l, "uc"), "FILTER main.t.d, TRANSFORMATION main.t.c");
	assert_int_equal(l.nunknown, 0);
	arena_free(a);
}

static void test_aggregates_and_groups(void **state)
{
	struct arena *a = arena_new(NULL);
	struct lineage l;

	(void)state;
	of(a, "SELECT g, sum(a) / count(*) AS mean, count(DISTINCT b) FILTER (WHERE c > 1) AS n "
	      "FROM t GROUP BY 1 HAVING max(d) > 0 ORDER BY mean",
	   &l);
	assert_string_equal(inputs(a, &l, "g"),
			    "FILTER main.t.d, GROUP_BY main.t.g, IDENTITY main.t.g, SORT main.t.a");
	assert_string_equal(inputs(a, &l, "mean"), "AGGREGATION main.t.a, FILTER main.t.d, "
						    "GROUP_BY main.t.g, SORT main.t.a");
	assert_string_equal(inputs(a, &l, "n"), "AGGREGATION main.t.b, FILTER main.t.c, FILTER "
						 "main.t.d, GROUP_BY main.t.g, SORT main.t.a");
	arena_free(a);
}

static void test_joins(void **state)
{
	struct arena *a = arena_new(NULL);
	struct lineage l;

	(void)state;
	of(a, "SELECT t.a, x FROM t JOIN u ON u.id = t.g LEFT JOIN v AS w ON w.id = u.id", &l);
	assert_string_equal(inputs(a, &l, "a"), "IDENTITY main.t.a, JOIN main.t.g, JOIN main.u.id, "
						 "JOIN main.v.id");
	assert_string_equal(inputs(a, &l, "x"), "IDENTITY main.u.x, JOIN main.t.g, JOIN main.u.id, "
						 "JOIN main.v.id");

	/* USING shows the column once; b is ambiguous to nobody with u.b */
	of(a, "SELECT * FROM u JOIN v USING (id)", &l);
	assert_string_equal(names(a, &l), "id x b y");
	assert_string_equal(inputs(a, &l, "y"), "IDENTITY main.v.y, JOIN main.u.id, JOIN main.v.id");
	of(a, "SELECT * FROM u NATURAL JOIN v", &l);
	assert_string_equal(names(a, &l), "id x b y");
	arena_free(a);
}

static void test_stars(void **state)
{
	struct arena *a = arena_new(NULL);
	struct lineage l;

	(void)state;
	of(a, "SELECT * EXCLUDE (c, d, g, ts) REPLACE (a * 2 AS a) FROM t", &l);
	assert_string_equal(names(a, &l), "a b");
	assert_string_equal(inputs(a, &l, "a"), "TRANSFORMATION main.t.a");
	assert_string_equal(inputs(a, &l, "b"), "IDENTITY main.t.b");

	of(a, "SELECT v.*, u.x FROM u, v", &l);
	assert_string_equal(names(a, &l), "id y x");
	assert_string_equal(inputs(a, &l, "id"), "IDENTITY main.v.id");

	/* a table nobody described: its columns by name, its * as one */
	of(a, "SELECT k, s.* FROM other.s WHERE s.f = 1", &l);
	assert_string_equal(inputs(a, &l, "k"), "FILTER other.s.f, IDENTITY other.s.k");
	assert_string_equal(inputs(a, &l, "*"), "FILTER other.s.f, IDENTITY other.s.*");
	assert_int_equal(l.nunknown, 1);
	assert_string_equal(l.unknown[0].why, "* of other.s, whose columns are not known");

	/* through a subquery's * of it, by name, qualified or not */
	of(a, "SELECT k, x.f FROM (SELECT * EXCLUDE (z) FROM other.s WHERE g = 1) AS x", &l);
	assert_string_equal(inputs(a, &l, "k"), "FILTER other.s.g, IDENTITY other.s.k");
	assert_string_equal(inputs(a, &l, "f"), "FILTER other.s.g, IDENTITY other.s.f");
	arena_free(a);
}

static void test_through_ctes_and_subqueries(void **state)
{
	struct arena *a = arena_new(NULL);
	struct lineage l;

	(void)state;
	of(a, "WITH x AS (SELECT a AS k, b FROM t WHERE c = 1), y AS (SELECT * FROM x) "
	      "SELECT k, total FROM (SELECT k, sum(b) AS total FROM y GROUP BY k) AS s(k, total)",
	   &l);
	assert_string_equal(inputs(a, &l, "k"),
			    "FILTER main.t.c, GROUP_BY main.t.a, IDENTITY main.t.a");
	assert_string_equal(inputs(a, &l, "total"),
			    "AGGREGATION main.t.b, FILTER main.t.c, GROUP_BY main.t.a");

	/* a column that names none of a subquery's columns has its rows */
	of(a, "SELECT count(*) AS n FROM (SELECT a FROM t WHERE d > 0) AS s", &l);
	assert_string_equal(inputs(a, &l, "n"), "FILTER main.t.d");
	of(a, "WITH x AS (SELECT a FROM t JOIN u ON u.id = t.g) SELECT 1 AS one FROM x, v", &l);
	assert_string_equal(inputs(a, &l, "one"), "JOIN main.t.g, JOIN main.u.id");

	/* a correlated scalar subquery, and an EXISTS */
	of(a, "SELECT (SELECT max(x) FROM u WHERE u.id = t.g) AS top FROM t "
	      "WHERE EXISTS (SELECT 1 FROM v WHERE v.id = t.a)",
	   &l);
	assert_string_equal(inputs(a, &l, "top"),
			    "AGGREGATION main.u.x, FILTER main.t.a, FILTER main.t.g, FILTER main.u.id, "
			    "FILTER main.v.id");
	arena_free(a);
}

static void test_windows_cases_and_sets(void **state)
{
	struct arena *a = arena_new(NULL);
	struct lineage l;

	(void)state;
	of(a, "SELECT row_number() OVER (PARTITION BY g ORDER BY ts) AS n, "
	      "sum(a) OVER (PARTITION BY g) AS running, "
	      "CASE WHEN a > 0 THEN b ELSE c END AS v FROM t",
	   &l);
	assert_string_equal(inputs(a, &l, "n"), "WINDOW main.t.g, WINDOW main.t.ts");
	assert_string_equal(inputs(a, &l, "running"), "AGGREGATION main.t.a, WINDOW main.t.g");
	assert_string_equal(inputs(a, &l, "v"), "CONDITIONAL main.t.a, TRANSFORMATION main.t.b, "
						 "TRANSFORMATION main.t.c");

	of(a, "SELECT a AS k, b FROM t UNION ALL SELECT id, x FROM u", &l);
	assert_string_equal(names(a, &l), "k b");
	assert_string_equal(inputs(a, &l, "k"), "IDENTITY main.t.a, IDENTITY main.u.id");
	of(a, "SELECT b, a FROM t UNION BY NAME SELECT x AS a, b FROM u", &l);
	assert_string_equal(inputs(a, &l, "a"),
			    "GROUP_BY main.t.a, GROUP_BY main.t.b, GROUP_BY main.u.b, "
			    "GROUP_BY main.u.x, IDENTITY main.t.a, IDENTITY main.u.x");
	of(a, "SELECT b, a FROM t UNION ALL BY NAME SELECT x AS a, b FROM u", &l);
	assert_string_equal(inputs(a, &l, "a"), "IDENTITY main.t.a, IDENTITY main.u.x");
	of(a, "SELECT a FROM t EXCEPT SELECT id FROM u", &l);
	assert_string_equal(inputs(a, &l, "a"),
			    "FILTER main.t.a, FILTER main.u.id, GROUP_BY main.t.a, IDENTITY main.t.a");
	/* a side whose values are of no column (a constant, count(*)) makes
	 * the other side's copy a transformation: the column holds more */
	of(a, "SELECT a, b FROM t UNION ALL SELECT id, 0 FROM u", &l);
	assert_string_equal(inputs(a, &l, "a"), "IDENTITY main.t.a, IDENTITY main.u.id");
	assert_string_equal(inputs(a, &l, "b"), "TRANSFORMATION main.t.b");
	of(a, "SELECT count(*) AS n FROM u UNION ALL BY NAME SELECT a AS n FROM t", &l);
	assert_string_equal(inputs(a, &l, "n"), "TRANSFORMATION main.t.a");

	/* the ORDER BY of a whole UNION, which its LIMIT keeps rows by */
	of(a, "SELECT a FROM t UNION ALL SELECT id FROM u ORDER BY 1 LIMIT 2", &l);
	assert_string_equal(inputs(a, &l, "a"),
			    "IDENTITY main.t.a, IDENTITY main.u.id, SORT main.t.a, SORT main.u.id");
	arena_free(a);
}

/* DISTINCT keeps one row of each that are alike in every column, so which
 * rows a column has depends on all of them; a UNION, EXCEPT or INTERSECT
 * without ALL does the same, and EXCEPT and INTERSECT keep a row by all
 * of its columns. */
static void test_distinct_rows(void **state)
{
	struct arena *a = arena_new(NULL);
	struct lineage l;

	(void)state;
	of(a, "SELECT DISTINCT a, b + 1 AS c FROM t", &l);
	assert_string_equal(inputs(a, &l, "a"),
			    "GROUP_BY main.t.a, GROUP_BY main.t.b, IDENTITY main.t.a");
	assert_string_equal(inputs(a, &l, "c"),
			    "GROUP_BY main.t.a, GROUP_BY main.t.b, TRANSFORMATION main.t.b");

	of(a, "SELECT a, b FROM t UNION SELECT id, x FROM u", &l);
	assert_string_equal(inputs(a, &l, "a"),
			    "GROUP_BY main.t.a, GROUP_BY main.t.b, GROUP_BY main.u.id, "
			    "GROUP_BY main.u.x, IDENTITY main.t.a, IDENTITY main.u.id");
	of(a, "SELECT a, b FROM t UNION ALL SELECT id, x FROM u", &l);
	assert_string_equal(inputs(a, &l, "a"), "IDENTITY main.t.a, IDENTITY main.u.id");
	of(a, "SELECT a, b FROM t EXCEPT ALL SELECT id, x FROM u", &l);
	assert_string_equal(inputs(a, &l, "a"), "FILTER main.t.a, FILTER main.t.b, FILTER main.u.id, "
						 "FILTER main.u.x, IDENTITY main.t.a");
	of(a, "SELECT a, b FROM t INTERSECT SELECT id, x FROM u", &l);
	assert_string_equal(inputs(a, &l, "b"),
			    "FILTER main.t.a, FILTER main.t.b, FILTER main.u.id, FILTER main.u.x, "
			    "GROUP_BY main.t.a, GROUP_BY main.t.b, IDENTITY main.t.b");
	arena_free(a);
}

/* Across models: a column that names none of the columns of the model it
 * reads (count(*), a constant) has that model's rows all the same. */
static void test_rows_of_a_model_read(void **state)
{
	struct arena *a = arena_new(NULL);
	char root[PATH_MAX];
	struct project *p;
	struct lineage_graph g;
	struct lineage *l;

	(void)state;
	fixture_mkdtemp(root, "lineage-rows");
	fixture_put(root, "sluice.yml", "name: rows\n");
	fixture_put(root, "models/gen/a.sql", "SELECT x FROM raw.t WHERE y > 0\n");
	fixture_put(root, "models/gen/b.sql",
		    "SELECT count(*) AS n, 7 AS k, max(x) AS top FROM gen.a\n");
	p = fixture_load_valid(a, root);
	lineage_graph_build(a, p, NULL, NULL, NULL, &g);
	l = g.of[fixture_model(p, "gen.b")->order];
	assert_string_equal(inputs(a, l, "n"), "FILTER raw.t.y");
	assert_string_equal(inputs(a, l, "k"), "FILTER raw.t.y");
	assert_string_equal(inputs(a, l, "top"), "AGGREGATION gen.a.x");
	fixture_rmtree(root);
	arena_free(a);
}

/* An upstream walk's graph holds the model and what it reads, directly
 * or not, each as the whole graph has it, and no other model. */
static void test_upstream_graph(void **state)
{
	struct arena *a = arena_new(NULL);
	char root[PATH_MAX];
	struct project *p;
	struct lineage_graph whole, up;
	const struct model *b;

	(void)state;
	fixture_mkdtemp(root, "lineage-upstream");
	fixture_put(root, "sluice.yml", "name: up\n");
	fixture_put(root, "models/gen/a.sql", "SELECT x, y FROM raw.t\n");
	fixture_put(root, "models/gen/b.sql", "SELECT x + y AS s FROM gen.a WHERE y > 0\n");
	fixture_put(root, "models/gen/c.sql", "SELECT sum(s) AS total FROM gen.b\n");
	fixture_put(root, "models/gen/d.sql", "SELECT y FROM gen.a\n");
	p = fixture_load_valid(a, root);
	b = fixture_model(p, "gen.b");
	lineage_graph_build(a, p, NULL, NULL, NULL, &whole);
	lineage_graph_build_upstream(a, p, NULL, b, NULL, NULL, &up);
	assert_non_null(up.of[fixture_model(p, "gen.a")->order]);
	assert_null(up.of[fixture_model(p, "gen.c")->order]);
	assert_null(up.of[fixture_model(p, "gen.d")->order]);
	assert_string_equal(inputs(a, up.of[b->order], "s"), inputs(a, whole.of[b->order], "s"));
	assert_string_equal(inputs(a, up.of[b->order], "s"),
			    "FILTER gen.a.y, TRANSFORMATION gen.a.x, TRANSFORMATION gen.a.y");
	fixture_rmtree(root);
	arena_free(a);
}

/* A lineage whole, in order: edges, columns and their inputs, rows and
 * what could not be seen through. */
static const char *whole(struct arena *a, const struct lineage *l)
{
	const char *s = "";

	for (size_t i = 0; i < l->nedges; i++)
		s = arena_sprintf(a, "%s%s %s %s; ", s, l->edges[i].relation,
				  lineage_edge_name(l->edges[i].type),
				  l->edges[i].why ? l->edges[i].why : "-");
	for (size_t i = 0; i < l->ncols; i++)
		s = arena_sprintf(a, "%s%s <- %s; ", s, l->cols[i].name, inputs(a, l, l->cols[i].name));
	for (size_t i = 0; i < l->rows.ninputs; i++)
		s = arena_sprintf(a, "%srows %s.%s; ", s, l->rows.inputs[i].relation,
				  l->rows.inputs[i].column);
	for (size_t i = 0; i < l->nunknown; i++)
		s = arena_sprintf(a, "%s? %s @%ld; ", s, l->unknown[i].why, l->unknown[i].offset);
	return s;
}

/* t has one more column when ctx says so. */
static bool columns_grown(void *ctx, const char *schema, const char *table,
			  const char *const **cols, size_t *n)
{
	static const char *const t[] = { "a", "b", "c", "d", "g", "ts", "extra" };

	if (!*(bool *)ctx || strcmp(table, "t") != 0)
		return columns(NULL, schema, table, cols, n);
	*cols = t;
	*n = 7;
	return true;
}

/* sql's lineage by a parser (another process's) keeping it at path; its
 * tree not given when blind (what is kept must answer). */
static const char *kept_whole(struct arena *a, const char *path, const char *sql, bool *grown,
			      bool blind)
{
	struct sqlparse *p = NULL;
	struct sl_err err = SL_ERR_INIT;
	struct lineage l;
	char *tree = NULL;
	long off;

	assert_int_equal(sqlparse_open(&p, &err), 0);
	sqlparse_use_derived_cache(p, path);
	assert_int_equal(sqlparse_tree(p, sql, &tree, &off, &err), 0);
	assert_int_equal(lineage_query_kept(p, a, blind ? "{}" : tree, sql, false, columns_grown,
					    grown, &l),
			 0);
	free(tree);
	sqlparse_close(p);
	return whole(a, &l);
}

/* A lineage kept between processes reads back as it was found, and is
 * found again when a relation it reads has other columns now. */
static void test_kept_lineage(void **state)
{
	struct arena *a = arena_new(NULL);
	const char *sql = "WITH w AS (SELECT g, sum(a) OVER (PARTITION BY g ORDER BY ts) AS s "
			  "FROM t WHERE c > 0) SELECT w.*, u.x, random() AS r FROM w JOIN u "
			  "ON u.id = w.g WHERE EXISTS (SELECT 1 FROM v WHERE v.y = u.b) "
			  "ORDER BY s LIMIT 10";
	char root[PATH_MAX], path[PATH_MAX + 32];
	bool grown = false;
	struct lineage l;
	const char *found, *again;

	(void)state;
	fixture_mkdtemp(root, "lineage-kept");
	snprintf(path, sizeof(path), "%s/derived-cache", root);
	of(a, sql, &l);
	found = whole(a, &l);
	assert_string_equal(kept_whole(a, path, sql, &grown, false), found);
	again = kept_whole(a, path, sql, &grown, true);
	assert_string_equal(again, found);
	assert_non_null(strstr(found, "random() gives other values"));

	sql = "SELECT * FROM t";
	assert_null(strstr(kept_whole(a, path, sql, &grown, false), "extra"));
	grown = true;
	assert_non_null(
		strstr(kept_whole(a, path, sql, &grown, false), "extra <- IDENTITY main.t.extra"));
	fixture_rmtree(root);
	arena_free(a);
}

static void test_unknown_is_named(void **state)
{
	struct arena *a = arena_new(NULL);
	struct lineage l;

	(void)state;
	of(a, "SELECT id, random() AS r FROM read_csv('orders.csv')", &l);
	assert_string_equal(inputs(a, &l, "id"), "IDENTITY read_csv().id");
	assert_int_equal(l.nunknown, 2);
	assert_string_equal(l.unknown[0].why, "a table function (read_csv)");
	assert_string_equal(l.unknown[1].why, "random() gives other values on each run");

	/* an aggregate the catalog knows, a volatile function it knows */
	of(a, "SELECT g, arg_max(a, ts) AS latest, uuid() AS id FROM t GROUP BY g", &l);
	assert_string_equal(inputs(a, &l, "latest"),
			    "AGGREGATION main.t.a, AGGREGATION main.t.ts, GROUP_BY main.t.g");
	assert_int_equal(l.nunknown, 1);
	assert_string_equal(l.unknown[0].why, "uuid() gives other values on each run");

	of(a, "SELECT x FROM t, unnest(t.d) AS n(x)", &l);
	assert_string_equal(inputs(a, &l, "x"), "TRANSFORMATION main.t.d");
	arena_free(a);
}

/* The relations read, each as "relation type (why)", in the order read. */
static const char *edges(struct arena *a, const char *sql)
{
	struct lineage l;
	struct buf b = BUF_INIT;
	const char *s;

	of(a, sql, &l);
	for (size_t i = 0; i < l.nedges; i++)
		buf_addf(&b, "%s%s %s%s%s%s", i ? ", " : "", l.edges[i].relation,
			 lineage_edge_name(l.edges[i].type), l.edges[i].why ? " (" : "",
			 l.edges[i].why ? l.edges[i].why : "", l.edges[i].why ? ")" : "");
	s = arena_strdup(a, b.buf ? b.buf : "");
	buf_release(&b);
	return s;
}

/* A column of many inputs keeps each once, however often it is named:
 * past a few, they are found by hash. */
static void test_many_inputs_once(void **state)
{
	struct arena *a = arena_new(NULL);
	struct buf q = BUF_INIT;
	struct lineage l;

	(void)state;
	buf_adds(&q, "SELECT ");
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 40; i++)
			buf_addf(&q, "%sc%d", round || i ? " + " : "", i);
	buf_adds(&q, " AS s FROM w WHERE c0 > 0 AND c39 > 0");
	of(a, q.buf, &l);
	assert_int_equal(l.ncols, 1);
	/* 40 computed on, and 2 of them filtering too */
	assert_int_equal(l.cols[0].ninputs, 42);
	for (size_t i = 0; i < l.cols[0].ninputs; i++)
		for (size_t k = 0; k < i; k++)
			assert_false(l.cols[0].inputs[i].kind == l.cols[0].inputs[k].kind &&
				     strcmp(l.cols[0].inputs[i].column, l.cols[0].inputs[k].column) == 0);
	buf_release(&q);
	arena_free(a);
}

static void test_typed_edges(void **state)
{
	/* each query, and how it reads each relation */
	static const char *const cases[][2] = {
		/* each output row is one input row's */
		{ "SELECT a, upper(b) AS b FROM t WHERE c > 1 ORDER BY a", "main.t row" },
		{ "SELECT a FROM t UNION ALL SELECT id FROM u", "main.t row, main.u row" },
		{ "SELECT * FROM (SELECT a FROM t) AS s", "main.t row" },
		/* the driving side of a join, and the other */
		{ "SELECT t.a, u.x FROM t LEFT JOIN u ON u.id = t.a",
		  "main.t row, main.u side (a join's other side)" },
		{ "SELECT t.a, u.x FROM t RIGHT JOIN u ON u.id = t.a",
		  "main.t side (a join's other side), main.u row" },
		{ "SELECT a FROM t WHERE b IN (SELECT b FROM u)",
		  "main.t row, main.u side (a subquery of an expression)" },
		{ "SELECT a, (SELECT max(y) FROM v) AS m FROM t",
		  "main.t row, main.v side (a subquery of an expression)" },
		/* aggregated in every way a query can */
		{ "SELECT g, sum(a) AS s FROM t GROUP BY g", "main.t agg (GROUP BY)" },
		{ "SELECT count(*) AS n FROM t", "main.t agg (an aggregate)" },
		{ "SELECT g, count(*) AS n FROM t GROUP BY ALL", "main.t agg (GROUP BY ALL)" },
		{ "SELECT a, row_number() OVER (ORDER BY ts) AS r FROM t",
		  "main.t agg (a window function)" },
		{ "SELECT DISTINCT g FROM t", "main.t agg (DISTINCT)" },
		{ "SELECT a FROM t LIMIT 5", "main.t agg (LIMIT)" },
		{ "SELECT a FROM t QUALIFY row_number() OVER (PARTITION BY g) = 1",
		  "main.t agg (a filter on window functions)" },
		{ "SELECT a FROM t UNION SELECT id FROM u", "main.t agg (UNION), main.u agg (UNION)" },
		{ "SELECT a FROM t EXCEPT SELECT id FROM u", "main.t agg (EXCEPT), main.u agg (EXCEPT)" },
		/* a side inside an aggregate stays a side; the driving side is agg */
		{ "SELECT t.g, count(*) AS n FROM t JOIN u ON u.id = t.a GROUP BY t.g",
		  "main.t agg (GROUP BY), main.u side (a join's other side)" },
		/* a WITH query is typed where it is read: here once as rows, once
		 * aggregated, and the table takes the strongest */
		{ "WITH w AS (SELECT a, g FROM t) SELECT a FROM w UNION ALL SELECT count(*) FROM w",
		  "main.t agg (an aggregate)" },
		{ "WITH w AS (SELECT g, count(*) AS n FROM t GROUP BY g) SELECT * FROM w",
		  "main.t agg (GROUP BY)" },
		/* what the walk cannot judge */
		{ "SELECT a FROM t WHERE ts > now() - INTERVAL 1 DAY",
		  "main.t unknown (a WHERE that changes with each run)" },
		{ "WITH RECURSIVE r(n) AS (SELECT a FROM t UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
		  "SELECT n FROM r",
		  "main.t unknown (WITH RECURSIVE)" },
	};
	struct arena *a = arena_new(NULL);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(edges(a, cases[i][0]), cases[i][1]);
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct_and_filter),
		cmocka_unit_test(test_aggregates_and_groups),
		cmocka_unit_test(test_joins),
		cmocka_unit_test(test_stars),
		cmocka_unit_test(test_through_ctes_and_subqueries),
		cmocka_unit_test(test_windows_cases_and_sets),
		cmocka_unit_test(test_distinct_rows),
		cmocka_unit_test(test_rows_of_a_model_read),
		cmocka_unit_test(test_upstream_graph),
		cmocka_unit_test(test_kept_lineage),
		cmocka_unit_test(test_unknown_is_named),
		cmocka_unit_test(test_typed_edges),
		cmocka_unit_test(test_many_inputs_once),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
