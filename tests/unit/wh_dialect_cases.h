/*
 * Behaviour tests of the warehouse's dialect operations, the same for
 * every backend: each builds its statement through wh.h, runs it and
 * checks what it did, never the text. Included by a test file that first
 * defines struct fx (with w, a and err) and dialect_open(state), which
 * gives the fixture with its connection open; the cases create the schema
 * d and the temporary table tmp, which the file's teardown drops.
 */
#ifndef SL_TESTS_WH_DIALECT_CASES_H
#define SL_TESTS_WH_DIALECT_CASES_H

#include <stdlib.h>
#include <unistd.h>

/* A statement of the dialect, built by f, run and its one value read. */
static const char *dialect_value(struct fx *f, void (*build)(struct fx *f, struct buf *sql))
{
	struct buf sql = BUF_INIT;
	const char *v;

	build(f, &sql);
	v = query_str(f->w, f->a, sql.buf);
	buf_release(&sql);
	return v;
}

static void first_per_key(struct fx *f, struct buf *sql)
{
	buf_adds(sql, "SELECT string_agg(x, ',' ORDER BY x) FROM (");
	wh_sql_first_per_key(f->w, sql, "(SELECT * FROM d.ev WHERE s > 0) AS e", "k", "s DESC, x");
	buf_adds(sql, ") AS f");
}

static void epoch_ms(struct fx *f, struct buf *sql)
{
	buf_adds(sql, "SELECT ");
	wh_sql_epoch_ms(f->w, sql, "TIMESTAMP '2026-01-02 03:04:05.678'");
}

static void epoch_us(struct fx *f, struct buf *sql)
{
	buf_adds(sql, "SELECT ");
	wh_sql_epoch_us(f->w, sql, "TIMESTAMP '2026-01-02 03:04:05.678'");
}

static void try_casts(struct fx *f, struct buf *sql)
{
	buf_adds(sql, "SELECT concat_ws('|', ");
	wh_sql_try_cast(f->w, sql, "'12'", wh_sql_type(f->w, WH_TYPE_BIGINT));
	buf_adds(sql, ", coalesce(CAST(");
	wh_sql_try_cast(f->w, sql, "'12x'", wh_sql_type(f->w, WH_TYPE_BIGINT));
	buf_addf(sql, " AS %s), 'none'), CAST(CAST('123456789012345678901234567890' AS %s) AS %s))",
		 wh_sql_type(f->w, WH_TYPE_TEXT), wh_sql_type(f->w, WH_TYPE_INT128),
		 wh_sql_type(f->w, WH_TYPE_TEXT));
}

static void matches(struct fx *f, struct buf *sql)
{
	static const char *const texts[] = { "'42'", "'x42'", "'42x'", "'-7'" };

	buf_adds(sql, "SELECT concat_ws('|'");
	for (size_t i = 0; i < 4; i++) {
		buf_adds(sql, ", CASE WHEN ");
		wh_sql_matches(f->w, sql, texts[i], "[+-]?[0-9]+");
		buf_adds(sql, " THEN 'y' ELSE 'n' END");
	}
	buf_adds(sql, ")");
}

/* The statements that differ between warehouses do what they say. */
static void test_dialect_statements(void **state)
{
	struct fx *f = dialect_open(state);
	struct buf sql = BUF_INIT;
	struct wh_column *cols;
	size_t n;

	exec(f->w, "CREATE SCHEMA d");
	/* made, then made again in place of the first */
	for (int round = 0; round < 2; round++) {
		static const char *const rows[] = { "SELECT 1 AS n", "SELECT 2 AS n UNION ALL SELECT 3" };

		buf_reset(&sql);
		wh_sql_replace_as(f->w, &sql, WH_TABLE, "d", "t", rows[round]);
		buf_adds(&sql, ";\n");
		wh_sql_replace_as(f->w, &sql, WH_VIEW, "d", "v", rows[round]);
		buf_adds(&sql, ";\n");
		wh_sql_replace_as(f->w, &sql, WH_TEMP_TABLE, NULL, "tmp", rows[round]);
		exec(f->w, sql.buf);
	}
	assert_int_equal(query_int(f->w, "SELECT sum(n) FROM d.t"), 5);
	assert_int_equal(query_int(f->w, "SELECT sum(n) FROM d.v"), 5);
	assert_int_equal(query_int(f->w, "SELECT sum(n) FROM tmp"), 5);

	exec(f->w, "CREATE TABLE d.ev AS SELECT * FROM (VALUES (1, 10, 'a'), (1, 20, 'b'), "
		   "(1, 20, 'c'), (2, 5, 'd'), (3, 0, 'e')) AS v(k, s, x)");
	/* per key the highest s, ties to the first x; the filtered-out key
	 * has no row */
	assert_string_equal(dialect_value(f, first_per_key), "b,d");
	assert_string_equal(dialect_value(f, epoch_ms), "1767323045678");
	assert_string_equal(dialect_value(f, epoch_us), "1767323045678000");
	assert_string_equal(dialect_value(f, try_casts), "12|none|123456789012345678901234567890");
	assert_string_equal(dialect_value(f, matches), "y|n|n|y");

	assert_int_equal(wh_query_columns(f->w, f->a, "SELECT k, x AS label FROM d.ev", &cols, &n,
					  &f->err),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(cols[0].name, "k");
	assert_string_equal(cols[1].name, "label");
	assert_int_equal(wh_query_columns(f->w, f->a, "SELECT * FROM d.ev", &cols, &n, &f->err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(cols[2].name, "x");
	exec(f->w, "DROP TABLE tmp");
	buf_release(&sql);
}

/* Each column's least and greatest value as text, in the order of its
 * type: 10 is above 9, true above false. */
static void test_dialect_min_max_text(void **state)
{
	struct fx *f = dialect_open(state);
	struct buf sql = BUF_INIT, name = BUF_INIT;
	struct wh_column *cols;
	size_t n;

	exec(f->w, "CREATE SCHEMA d");
	exec(f->w, "CREATE TABLE d.m AS SELECT * FROM (VALUES (9, true, 'b', TIMESTAMP "
		   "'2026-01-02 03:04:05'), (10, false, 'a', TIMESTAMP '2025-12-31 23:59:59.5'), "
		   "(NULL, NULL, NULL, NULL)) AS v(n, b, s, t)");
	assert_int_equal(wh_table_columns(f->w, f->a, "d", "m", &cols, &n, &f->err), 0);
	assert_int_equal(n, 4);
	buf_adds(&sql, "SELECT concat_ws('|'");
	for (size_t i = 0; i < n; i++) {
		buf_reset(&name);
		buf_add_sql_ident(&name, cols[i].name);
		buf_adds(&sql, ", ");
		wh_sql_min_text(f->w, &sql, name.buf, cols[i].type);
		buf_adds(&sql, ", ");
		wh_sql_max_text(f->w, &sql, name.buf, cols[i].type);
	}
	buf_adds(&sql, ") FROM d.m");
	assert_string_equal(query_str(f->w, f->a, sql.buf),
			    "9|10|false|true|a|b|2025-12-31 23:59:59.5|2026-01-02 03:04:05");
	buf_release(&name);
	buf_release(&sql);
}

/* How many distinct values each column holds, NULL not counted: the
 * exact count, or on DuckDB an estimate that small counts get right. */
static void test_dialect_distinct(void **state)
{
	struct fx *f = dialect_open(state);
	struct buf sql = BUF_INIT, name = BUF_INIT;
	struct wh_column *cols;
	size_t n;

	exec(f->w, "CREATE SCHEMA d");
	exec(f->w, "CREATE TABLE d.m AS SELECT * FROM (VALUES (9, true, 'b'), (10, false, 'a'), "
		   "(9, NULL, 'a'), (NULL, NULL, 'a')) AS v(n, b, s)");
	assert_int_equal(wh_table_columns(f->w, f->a, "d", "m", &cols, &n, &f->err), 0);
	buf_adds(&sql, "SELECT concat_ws('|'");
	for (size_t i = 0; i < n; i++) {
		buf_reset(&name);
		buf_add_sql_ident(&name, cols[i].name);
		buf_adds(&sql, ", ");
		wh_sql_distinct_estimate(f->w, &sql, name.buf, cols[i].type);
	}
	buf_adds(&sql, ") FROM d.m");
	assert_string_equal(query_str(f->w, f->a, sql.buf), "2|2|2");
	buf_release(&name);
	buf_release(&sql);
}

/* Which column types can order changes: integers, dates and timestamps as
 * they are, text read as either, nothing else. */
static void test_seq_kinds(void **state)
{
	static const enum wh_seq_kind want[] = {
		WH_SEQ_NATIVE, WH_SEQ_NATIVE, WH_SEQ_NATIVE, WH_SEQ_NATIVE,
		WH_SEQ_NATIVE, WH_SEQ_TEXT,   WH_SEQ_NONE,   WH_SEQ_NONE,
	};
	static const enum wh_type types[] = {
		WH_TYPE_BIGINT, WH_TYPE_INT128, WH_TYPE_TIMESTAMP, WH_TYPE_TIMESTAMPTZ,
		WH_TYPE_TEXT,   WH_TYPE_DOUBLE, WH_TYPE_BOOLEAN,
	};
	struct fx *f = dialect_open(state);
	struct buf sql = BUF_INIT;
	struct wh_column *cols;
	size_t n;

	buf_adds(&sql, "SELECT DATE '2026-01-02' AS d");
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		buf_addf(&sql, ", CAST(NULL AS %s) AS c%zu", wh_sql_type(f->w, types[i]), i);
	assert_int_equal(wh_query_columns(f->w, f->a, sql.buf, &cols, &n, &f->err), 0);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(wh_sql_seq_kind(f->w, cols[i].type), want[i]);
	buf_release(&sql);
}

/* Rows go to the columns their names say, whatever the case and the order. */
static void test_dialect_by_name(void **state)
{
	static const char *const source = "SELECT 'b' AS LABEL, k FROM (VALUES (1), (2)) AS v(k)";
	struct fx *f = dialect_open(state);
	struct buf sql = BUF_INIT;

	exec(f->w, "CREATE SCHEMA d;\n"
		   "CREATE TABLE d.t (k INTEGER, \"Label\" VARCHAR, n INTEGER DEFAULT 7)");
	/* a query may end in a line comment */
	assert_int_equal(wh_sql_insert_by_name(f->w, f->a, &sql, "d", "t",
					       "SELECT 'a' AS label, 1 AS K -- one row", &f->err),
			 0);
	exec(f->w, sql.buf);
	assert_string_equal(query_str(f->w, f->a, "SELECT concat_ws('|', k, \"Label\", n) FROM d.t"),
			    "1|a|7");

	buf_reset(&sql);
	assert_int_equal(wh_sql_insert_by_name(f->w, f->a, &sql, "d", "t",
					       "SELECT 2 AS k, 3 AS other", &f->err),
			 0);
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "other"));

	/* key 1 takes the label and keeps its n; key 2 is new */
	exec(f->w, "UPDATE d.t SET n = 8");
	buf_reset(&sql);
	buf_addf(&sql, "MERGE INTO d.t AS _t USING (%s) AS s ON (_t.k = s.k) ", source);
	assert_int_equal(wh_sql_merge_by_name(f->w, f->a, &sql, "d", "t", source, "s", &f->err), 0);
	exec(f->w, sql.buf);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT string_agg(concat_ws('|', k, \"Label\", n), ',' "
				      "ORDER BY k) FROM d.t"),
			    "1|b|8,2|b|7");
	buf_release(&sql);
}

/* A CSV file into a table, each column's type inferred: a quoted comma,
 * a doubled quote, an empty field as NULL. */
static void test_load_csv(void **state)
{
	struct fx *f = dialect_open(state);
	char path[] = "/tmp/sluice-test-csv-XXXXXX";
	int fd = mkstemp(path);
	static const char text[] =
		"id,name,active,price,day,seen\n"
		"1,\"ada, the first\",true,2.5,2026-01-02,2026-01-02 03:04:05\n"
		"2,\"say \"\"hi\"\"\",false,,2026-02-03,2026-02-03 04:05:06.5\n"
		"3,,TRUE,4,2026-03-04,\n";

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	exec(f->w, "CREATE SCHEMA d");
	if (wh_load_csv(f->w, "d", "c", path, &f->err))
		fail_msg("%s", f->err.msg);
	unlink(path);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM d.c"), 3);
	/* each column computes as its type: numbers add, booleans count, dates
	 * move by days, timestamps keep their fraction */
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT concat_ws('|', sum(id + 1), sum(CAST(active AS INTEGER)), "
				      "CAST(sum(price * 2) AS DECIMAL(10, 1)), count(price), max(day + 1), "
				      "CAST(max(seen) AS VARCHAR), count(name)) FROM d.c"),
			    "9|2|13.0|2|2026-03-05|2026-02-03 04:05:06.5|2");
	assert_string_equal(query_str(f->w, f->a, "SELECT name FROM d.c WHERE id = 1"),
			    "ada, the first");
	assert_string_equal(query_str(f->w, f->a, "SELECT name FROM d.c WHERE id = 2"),
			    "say \"hi\"");
}

/* A JSON array appended to a list column lands as a list, on every
 * warehouse: elements quoted or not, a NULL one, an empty list. */
static void test_appender_lists(void **state)
{
	struct fx *f = dialect_open(state);
	const char *rows[][3] = {
		{ "1", "[1, 2]", "[\"a, b\", \"say \\\"hi\\\"\", null, \"x\\\\y\"]" },
		{ "2", "[]", NULL },
		{ "3", NULL, "[\"{braces}\"]" },
	};
	struct wh_appender *ap;

	exec(f->w, "CREATE SCHEMA d; CREATE TABLE d.l (id INTEGER, n INTEGER[], s VARCHAR[])");
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	assert_int_equal(wh_appender_open(f->w, "d", "l", &ap, &f->err), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(wh_appender_row(ap, rows[i], 3, &f->err), 0);
	if (wh_appender_flush(ap, &f->err))
		fail_msg("%s", f->err.msg);
	wh_appender_close(ap);
	assert_int_equal(wh_commit(f->w, &f->err), 0);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT concat_ws('|', n[1] + n[2], s[1], s[2], "
				      "coalesce(s[3], 'null'), s[4]) FROM d.l WHERE id = 1"),
			    "3|a, b|say \"hi\"|null|x\\y");
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT concat_ws('|', coalesce(array_length(n, 1), 0), "
				      "coalesce(s[1], 'none')) FROM d.l WHERE id = 2"),
			    "0|none");
	assert_string_equal(query_str(f->w, f->a, "SELECT s[1] FROM d.l WHERE id = 3"),
			    "{braces}");
}

/* A table made from a query tells how many rows it made, also at the end
 * of a script, so that a build need not count them again. */
static void test_created_rows_counted(void **state)
{
	struct fx *f = dialect_open(state);
	int64_t rows = -1;

	assert_int_equal(wh_exec_count(f->w,
				       "CREATE SCHEMA d; CREATE TABLE d.n AS SELECT * FROM (VALUES "
				       "(1), (2), (3)) AS v (x) WHERE x > 1",
				       &rows, &f->err),
			 0);
	assert_int_equal(rows, 2);
	assert_int_equal(wh_exec_count(f->w, "CREATE TABLE d.e AS SELECT * FROM d.n WHERE x > 9",
				       &rows, &f->err),
			 0);
	assert_int_equal(rows, 0);
	assert_int_equal(wh_exec_count(f->w, "INSERT INTO d.n VALUES (7)", &rows, &f->err), 0);
	assert_int_equal(rows, 1);
}

/* Types declared in DuckDB's names make columns on every warehouse that
 * hold what DuckDB's would: the largest UBIGINT, a HUGEINT, a DOUBLE; a
 * TINYINT list is a list. */
static void test_declared_types(void **state)
{
	struct fx *f = dialect_open(state);
	struct buf sql = BUF_INIT;

	buf_addf(&sql, "CREATE SCHEMA d; CREATE TABLE d.ty (u %s, h %s, l %s, x %s)",
		 wh_sql_declared_type(f->w, f->a, "UBIGINT"),
		 wh_sql_declared_type(f->w, f->a, "hugeint"),
		 wh_sql_declared_type(f->w, f->a, "TINYINT[]"),
		 wh_sql_declared_type(f->w, f->a, "DOUBLE"));
	exec(f->w, sql.buf);
	exec(f->w, "INSERT INTO d.ty VALUES (18446744073709551615, "
		   "-170141183460469231731687303715884105728, NULL, 1.5)");
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT concat_ws('|', u, h, coalesce(l[1], 7), "
				      "CAST(x * 2 AS INTEGER)) FROM d.ty"),
			    "18446744073709551615|-170141183460469231731687303715884105728|7|3");
	/* its own names are kept */
	assert_string_equal(wh_sql_declared_type(f->w, f->a, "BIGINT"), "BIGINT");
	buf_release(&sql);
}

/* The rows of a table that match a source's, by a condition over both,
 * are deleted, and no other. */
static void test_delete_matching(void **state)
{
	struct fx *f = dialect_open(state);
	struct buf sql = BUF_INIT;

	exec(f->w, "CREATE SCHEMA d; CREATE TABLE d.t (k INTEGER, v VARCHAR); "
		   "INSERT INTO d.t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (NULL, 'n'); "
		   "CREATE TABLE d.s (k INTEGER); INSERT INTO d.s VALUES (2), (NULL), (9)");
	wh_sql_delete_matching(f->w, &sql, "d.t", "x", "d.s", "y", "x.k = y.k");
	exec(f->w, sql.buf);
	assert_string_equal(query_str(f->w, f->a, "SELECT string_agg(v, ',' ORDER BY v) FROM d.t"),
			    "a,c,n");
	buf_reset(&sql);
	wh_sql_delete_matching(f->w, &sql, "d.t", "x", "(SELECT k FROM d.s WHERE k IS NULL)", "y",
			       "x.k IS NOT DISTINCT FROM y.k");
	exec(f->w, sql.buf);
	assert_string_equal(query_str(f->w, f->a, "SELECT string_agg(v, ',' ORDER BY v) FROM d.t"),
			    "a,c");
	buf_release(&sql);
}

/* Without statistics to go by, a table's rows are counted. */
static void test_row_estimate_counts(void **state)
{
	struct fx *f = dialect_open(state);
	int64_t n = -1;

	exec(f->w, "CREATE SCHEMA d; CREATE TABLE d.e (x INTEGER); "
		   "CREATE TABLE d.r AS SELECT * FROM (VALUES (1), (2), (3)) AS v (x)");
	assert_int_equal(wh_row_estimate(f->w, "d", "r", &n, &f->err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(wh_row_estimate(f->w, "d", "e", &n, &f->err), 0);
	assert_int_equal(n, 0);
}

#define DIALECT_CASES(T)                                                                   \
	T(test_dialect_statements), T(test_dialect_min_max_text), T(test_dialect_distinct),     \
		T(test_seq_kinds),                                                                \
		T(test_dialect_by_name), T(test_load_csv), T(test_appender_lists),                \
		T(test_created_rows_counted), T(test_declared_types), T(test_delete_matching),    \
		T(test_row_estimate_counts)

#endif
