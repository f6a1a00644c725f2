/*
 * Unit tests for the PostgreSQL backend (src/warehouse/postgres.c) on the
 * server tests/run.sh starts for the suite (SLUICE_TEST_PG holds its
 * connection string; without it every test fails): values and NULLs as
 * PostgreSQL's text, statements with arguments, transactions, COPY
 * appenders with the characters COPY escapes, refusals with libpq's
 * reason, a second connection, and the dialect's cases that DuckDB passes
 * too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_pg.h"
#include "fixture_sql.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/pg_array.h"
#include "warehouse/wh.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fx {
	struct arena *a;
	struct wh *w;
	struct sl_err err;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->a = arena_new(NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	int rc = 0;

	if (f->w)
		rc = wh_exec(f->w, "DROP SCHEMA IF EXISTS d CASCADE; DROP TABLE IF EXISTS tmp",
			     &f->err);
	if (f->w)
		wh_close(f->w);
	arena_free(f->a);
	free(f);
	return rc ? -1 : 0;
}

static struct fx *dialect_open(void **state)
{
	struct fx *f = *state;

	if (wh_open_postgres(fixture_pg_dsn(), &f->w, &f->err))
		fail_msg("%s", f->err.msg);
	return f;
}

#include "wh_dialect_cases.h"

static void test_open_and_values(void **state)
{
	struct fx *f = dialect_open(state);
	struct wh_result *r;

	assert_non_null(strstr(wh_version(f->w), "PostgreSQL 1"));
	assert_int_equal(wh_kind(f->w), WH_POSTGRES);
	assert_int_equal(wh_query(f->w,
				  "SELECT 42 AS n, 'it''s' AS s, NULL AS z, true AS b, "
				  "CAST(1.5 AS NUMERIC(4, 2)) AS d, DATE '2026-01-02' AS day",
				  &r, &f->err),
			 0);
	assert_int_equal(wh_result_ncols(r), 6);
	assert_string_equal(wh_result_colname(r, 1), "s");
	assert_string_equal(wh_result_value(r, 0, 0), "42");
	assert_string_equal(wh_result_value(r, 0, 1), "it's");
	assert_null(wh_result_value(r, 0, 2));
	assert_string_equal(wh_result_value(r, 0, 3), "t");
	assert_string_equal(wh_result_value(r, 0, 4), "1.50");
	assert_string_equal(wh_result_value(r, 0, 5), "2026-01-02");
	wh_result_free(r);
}

static void test_errors_and_rows_changed(void **state)
{
	struct fx *f = dialect_open(state);
	int64_t changed = 0;

	assert_int_equal(wh_exec(f->w, "SELECT * FROM no_such_table", &f->err), SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "no_such_table"));
	assert_null(strchr(f->err.msg, '\n'));
	exec(f->w, "CREATE SCHEMA d; CREATE TABLE d.t (n INTEGER)");
	assert_int_equal(wh_exec_count(f->w, "INSERT INTO d.t VALUES (1), (2), (3)", &changed,
				       &f->err),
			 0);
	assert_int_equal(changed, 3);
	assert_false(wh_suspect(f->w, NULL));
}

static void test_args_and_transactions(void **state)
{
	struct fx *f = dialect_open(state);
	const struct wh_arg args[] = { WH_INT(7), WH_TEXT("a\tb"), WH_TS_MS(1767323045678) };

	exec(f->w, "CREATE SCHEMA d; CREATE TABLE d.t (n BIGINT, s TEXT, at TIMESTAMP)");
	assert_int_equal(wh_exec_args(f->w, "INSERT INTO d.t VALUES ($1::BIGINT, $2, $3::TIMESTAMP)",
				      args, 3, NULL, &f->err),
			 0);
	assert_string_equal(query_str(f->w, f->a, "SELECT s || '|' || at FROM d.t WHERE n = 7"),
			    "a\tb|2026-01-02 03:04:05.678");
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	exec(f->w, "INSERT INTO d.t (n) VALUES (8)");
	wh_rollback(f->w);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM d.t"), 1);
	assert_int_equal(wh_exec_atomic(f->w, "INSERT INTO d.t (n) VALUES (9)", &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM d.t"), 2);
}

static void test_appender_copies(void **state)
{
	struct fx *f = dialect_open(state);
	const char *rows[][3] = { { "1", "tab\there", "back\\slash" },
				  { "2", "new\nline", NULL },
				  { "3", "\\N", "carriage\rreturn" } };
	struct wh_appender *ap;

	exec(f->w, "CREATE SCHEMA d; CREATE TABLE d.t (n INTEGER, a TEXT, b TEXT)");
	assert_int_equal(wh_appender_open(f->w, "d", "t", &ap, &f->err), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(wh_appender_row(ap, rows[i], 3, &f->err), 0);
	assert_int_equal(wh_appender_flush(ap, &f->err), 0);
	/* a second flush is a second COPY */
	assert_int_equal(wh_appender_row(ap, rows[0], 3, &f->err), 0);
	assert_int_equal(wh_appender_flush(ap, &f->err), 0);
	wh_appender_close(ap);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM d.t"), 4);
	assert_string_equal(query_str(f->w, f->a, "SELECT a FROM d.t WHERE n = 1 LIMIT 1"),
			    "tab\there");
	assert_string_equal(query_str(f->w, f->a, "SELECT b FROM d.t WHERE n = 1 LIMIT 1"),
			    "back\\slash");
	assert_string_equal(query_str(f->w, f->a, "SELECT a FROM d.t WHERE n = 2"), "new\nline");
	assert_string_equal(query_str(f->w, f->a, "SELECT b FROM d.t WHERE n = 2"), "NULL");
	/* the text \N is a value, not a NULL */
	assert_string_equal(query_str(f->w, f->a, "SELECT a FROM d.t WHERE n = 3"), "\\N");
	assert_string_equal(query_str(f->w, f->a, "SELECT b FROM d.t WHERE n = 3"),
			    "carriage\rreturn");
}

/* JSON arrays as array literals: elements quoted with their escapes
 * decoded, numbers as written, objects as their text, nesting kept; what
 * is not one JSON array is left alone. */
static void test_array_from_json(void **state)
{
	static const char *const good[][2] = {
		{ "[1, 2]", "{1,2}" },
		{ " [ ] ", "{}" },
		{ "[[1, 2], [3, -4.5e+2]]", "{{1,2},{3,-4.5e+2}}" },
		{ "[\"a, b\", \"say \\\"hi\\\"\", \"x\\\\y\", null, true]",
		  "{\"a, b\",\"say \\\"hi\\\"\",\"x\\\\y\",NULL,true}" },
		{ "[\"tab\\there\", \"\\u00e9\\ud83d\\ude00\", \"{}\"]",
		  "{\"tab\there\",\"\u00e9\U0001F600\",\"{}\"}" },
		{ "[{\"k\": [1, \"]\"]}]", "{\"{\\\"k\\\": [1, \\\"]\\\"]}\"}" },
	};
	static const char *const bad[] = {
		"not an array", "{1,2}", "[1,]", "[1 2]", "[01]", "[1.]", "[nul]", "[1] x",
		"[\"\\u0000\"]", "[\"\\ud800\"]", "[\"open]", "",
	};
	struct buf b = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		buf_reset(&b);
		if (!pg_array_from_json(good[i][0], &b))
			fail_msg("refused %s", good[i][0]);
		assert_string_equal(b.buf, good[i][1]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		buf_reset(&b);
		buf_adds(&b, "kept");
		if (pg_array_from_json(bad[i], &b))
			fail_msg("read %s as %s", bad[i], b.buf);
		assert_string_equal(b.buf, "kept");
	}
	buf_release(&b);
}

static void test_second_connection_and_relations(void **state)
{
	struct fx *f = dialect_open(state);
	struct wh *other;
	const char **names, **kinds;
	size_t n;
	bool found = false;

	exec(f->w, "CREATE SCHEMA d; CREATE TABLE d.t AS SELECT 1 AS n; CREATE VIEW d.v AS "
		   "SELECT n FROM d.t");
	assert_int_equal(wh_connect(f->w, &other, &f->err), 0);
	assert_int_equal(query_int(other, "SELECT count(*) FROM d.v"), 1);
	wh_close(other);
	assert_int_equal(wh_relation_kinds(f->w, f->a, &names, &kinds, &n, &f->err), 0);
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], "d.v") == 0)
			found = strcmp(kinds[i], "view") == 0;
	assert_true(found);
}

static void test_refusals_name_their_reason(void **state)
{
	struct fx *f = *state;
	struct wh *w = NULL;
	char bad[4096];

	assert_int_equal(wh_open_postgres("host=/nonexistent-sluice-dir port=5432", &w, &f->err),
			 SL_E_IO);
	assert_non_null(strstr(f->err.msg, "cannot connect to PostgreSQL"));
	snprintf(bad, sizeof(bad), "%s dbname=no_such_database_here", fixture_pg_dsn());
	assert_int_equal(wh_open_postgres(bad, &w, &f->err), SL_E_IO);
	assert_non_null(strstr(f->err.msg, "no_such_database_here"));
	assert_null(w);
}

/* A table that views read takes its new rows in place while its columns
 * stay. */
static void test_swap_in_keeps_views(void **state)
{
	struct fx *f = dialect_open(state);
	struct buf sql = BUF_INIT;

	exec(f->w, "CREATE SCHEMA d; CREATE TABLE d.t AS SELECT 1 AS n; CREATE VIEW d.v AS "
		   "SELECT n * 10 AS n10 FROM d.t; CREATE TABLE d.t__new AS SELECT 2 AS n");
	wh_sql_swap_in(f->w, &sql, "d", "t__new", "t", "table");
	assert_int_equal(wh_exec_atomic(f->w, sql.buf, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT n10 FROM d.v"), 20);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM information_schema.tables WHERE "
					 "table_schema = 'd' AND table_name = 't__new'"),
			 0);
	/* new columns: the view is in the way, and the old table stays */
	buf_reset(&sql);
	exec(f->w, "CREATE TABLE d.t__new AS SELECT 'x' AS label");
	wh_sql_swap_in(f->w, &sql, "d", "t__new", "t", "table");
	assert_int_equal(wh_exec_atomic(f->w, sql.buf, &f->err), SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "depend"));
	assert_int_equal(query_int(f->w, "SELECT n10 FROM d.v"), 20);
	buf_release(&sql);
}

/* A view is replaced in place while its columns stay (views that read it
 * keep reading it), and made anew when they change; with a view reading
 * it, that is refused and the old one stays. */
static void test_view_replaced_whatever_its_columns(void **state)
{
	struct fx *f = dialect_open(state);
	struct buf sql = BUF_INIT;

	exec(f->w, "CREATE SCHEMA d");
	wh_sql_replace_as(f->w, &sql, WH_VIEW, "d", "v", "SELECT 1 AS a, 2 AS b");
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), 0);
	buf_reset(&sql);
	wh_sql_replace_as(f->w, &sql, WH_VIEW, "d", "v", "SELECT 'x' AS c");
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), 0);
	assert_string_equal(query_str(f->w, f->a, "SELECT c FROM d.v"), "x");
	exec(f->w, "CREATE VIEW d.w AS SELECT c FROM d.v");
	buf_reset(&sql);
	wh_sql_replace_as(f->w, &sql, WH_VIEW, "d", "v", "SELECT 'y' AS c");
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), 0);
	assert_string_equal(query_str(f->w, f->a, "SELECT c FROM d.w"), "y");
	buf_reset(&sql);
	wh_sql_replace_as(f->w, &sql, WH_VIEW, "d", "v", "SELECT 3 AS n");
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "depend"));
	assert_string_equal(query_str(f->w, f->a, "SELECT c FROM d.w"), "y");
	buf_release(&sql);
}

/* A seed read by DuckDB's reader and sent with COPY: the delimiter and
 * quoting it detects, DuckDB's types as PostgreSQL's, plain names folded
 * to lower case and others kept, values exact; a file the reader refuses
 * names its line. */
static void test_csv_reader(void **state)
{
	struct fx *f = dialect_open(state);
	char path[] = "/tmp/sluice-test-csv-XXXXXX";
	static const char good[] = "\"orderNumber\";Order Date;note;price;paid;at;t\r\n"
				   "10100;2003-01-06;\"two\nlines; quoted\";0.1;true;"
				   "2003-01-06 10:00:00;10:30:00\r\n"
				   "10101;;plain;136.00;false;;\r\n";
	static const char bad[] = "k,note\n1,a\n2,b\n3,\xe9t\xe9\n";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, good, sizeof(good) - 1), (ssize_t)(sizeof(good) - 1));
	close(fd);
	exec(f->w, "CREATE SCHEMA d");
	if (wh_load_csv(f->w, "d", "c", path, &f->err))
		fail_msg("%s", f->err.msg);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT string_agg(column_name || ' ' || data_type, ', ' "
				      "ORDER BY ordinal_position) FROM information_schema.columns "
				      "WHERE table_schema = 'd' AND table_name = 'c'"),
			    "ordernumber bigint, Order Date date, note character varying, "
			    "price double precision, paid boolean, at timestamp without time zone, "
			    "t time without time zone");
	assert_string_equal(query_str(f->w, f->a, "SELECT note FROM d.c WHERE ordernumber = 10100"),
			    "two\nlines; quoted");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM d.c WHERE price = 0.1 AND paid"), 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM d.c WHERE \"Order Date\" IS NULL "
					 "AND price = 136 AND at IS NULL"),
			 1);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, bad, sizeof(bad) - 1), (ssize_t)(sizeof(bad) - 1));
	close(fd);
	assert_int_not_equal(wh_load_csv(f->w, "d", "c2", path, &f->err), 0);
	assert_non_null(strstr(f->err.msg, ":4: invalid unicode"));
	assert_non_null(strstr(f->err.msg, path));
	unlink(path);
}

/* Ends w's session from another one, as a server restart or an
 * administrator does. */
static void terminate(struct wh *w)
{
	struct wh *admin = fixture_pg_open();
	char sql[128];
	int64_t pid = query_int(w, "SELECT pg_backend_pid()"), done = 0;

	snprintf(sql, sizeof(sql), "SELECT count(pg_terminate_backend(%lld))", (long long)pid);
	assert_int_equal(wh_query_int(admin, sql, &done, NULL), 0);
	assert_int_equal(done, 1);
	wh_close(admin);
}

/* A session the server ended fails the call that meets it with
 * SL_E_CONN, not as a statement's error; the next call opens a new
 * session and goes on, and the warehouse is not in doubt. */
static void test_lost_session_comes_back(void **state)
{
	struct fx *f = *state;

	f->w = fixture_pg_open();
	assert_false(wh_lost(f->w));
	terminate(f->w);
	assert_int_equal(wh_exec(f->w, "SELECT 1", &f->err), SL_E_CONN);
	assert_non_null(strstr(f->err.msg, "the connection to PostgreSQL was lost"));
	assert_true(wh_lost(f->w));
	assert_false(wh_suspect(f->w, NULL));
	assert_int_equal(wh_sessions(f->w), 0);
	assert_int_equal(query_int(f->w, "SELECT 41 + 1"), 42);
	assert_false(wh_lost(f->w));
	assert_int_equal(wh_sessions(f->w), 1);
	/* the new session has what sluice makes in each */
	assert_int_equal(query_int(f->w, "SELECT pg_temp.sluice_try_cast('7', 0::int)"), 7);
}

/* A transaction the loss ended stays failed until its caller rolled it
 * back: nothing of it goes on, in autocommit, on the new session. */
static void test_lost_transaction_is_rolled_back_first(void **state)
{
	struct fx *f = *state;

	f->w = fixture_pg_open();
	assert_int_equal(wh_exec(f->w, "DROP TABLE IF EXISTS tmp; CREATE TABLE tmp (k int)",
				 &f->err), 0);
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	assert_int_equal(wh_exec(f->w, "INSERT INTO tmp VALUES (1)", &f->err), 0);
	terminate(f->w);
	assert_int_equal(wh_exec(f->w, "INSERT INTO tmp VALUES (2)", &f->err), SL_E_CONN);
	assert_int_equal(wh_exec(f->w, "INSERT INTO tmp VALUES (3)", &f->err), SL_E_CONN);
	assert_non_null(strstr(f->err.msg, "rolled back first"));
	/* the rollback of a savepoint leaves the lost transaction open */
	assert_int_equal(wh_exec(f->w, "ROLLBACK TO SAVEPOINT s", &f->err), SL_E_CONN);
	assert_int_equal(wh_exec(f->w, "INSERT INTO tmp VALUES (3)", &f->err), SL_E_CONN);
	assert_non_null(strstr(f->err.msg, "rolled back first"));
	wh_rollback(f->w);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM tmp"), 0);
	assert_int_equal(wh_sessions(f->w), 1);
	/* a holder waiting for the warehouse holds no transaction: what the
	 * loss cut counts as rolled back */
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	terminate(f->w);
	assert_int_equal(wh_exec(f->w, "INSERT INTO tmp VALUES (4)", &f->err), SL_E_CONN);
	assert_int_equal(wh_reconnect(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM tmp"), 0);
	assert_int_equal(wh_sessions(f->w), 2);
}

/* A COMMIT that met the loss may or may not have committed: said so, and
 * the caller looks (the warehouse is not suspect for it). */
static void test_lost_commit_is_in_doubt(void **state)
{
	struct fx *f = *state;

	f->w = fixture_pg_open();
	assert_int_equal(wh_exec(f->w, "DROP TABLE IF EXISTS tmp; CREATE TABLE tmp (k int)",
				 &f->err), 0);
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	assert_int_equal(wh_exec(f->w, "INSERT INTO tmp VALUES (1)", &f->err), 0);
	terminate(f->w);
	assert_int_equal(wh_commit(f->w, &f->err), SL_E_CONN);
	assert_non_null(strstr(f->err.msg, "may or may not have committed"));
	assert_false(wh_suspect(f->w, NULL));
	wh_rollback(f->w);
	assert_int_equal(wh_reconnect(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM tmp"), 0);
}

/* While the server refuses sessions, attempts fail with SL_E_CONN, spaced
 * by the backoff, naming what the last one met; once it takes them
 * again, the connection comes back. */
static void test_refused_reconnect_backs_off(void **state)
{
	struct fx *f = *state;
	struct wh *admin = fixture_pg_open();
	char sql[256];

	assert_int_equal(wh_exec(admin, "DROP DATABASE IF EXISTS sluice_unit_reconnect", &f->err),
			 0);
	assert_int_equal(wh_exec(admin, "CREATE DATABASE sluice_unit_reconnect", &f->err), 0);
	snprintf(sql, sizeof(sql), "%s dbname=sluice_unit_reconnect", fixture_pg_dsn());
	assert_int_equal(wh_open_postgres(sql, &f->w, &f->err), 0);
	assert_int_equal(wh_exec(admin, "ALTER DATABASE sluice_unit_reconnect "
					"ALLOW_CONNECTIONS false", &f->err), 0);
	terminate(f->w);
	assert_int_equal(wh_exec(f->w, "SELECT 1", &f->err), SL_E_CONN);
	assert_int_equal(wh_reconnect(f->w, &f->err), SL_E_CONN);
	assert_non_null(strstr(f->err.msg, "not currently accepting connections"));
	assert_non_null(strstr(f->err.msg, "attempt 1; again in 100 ms"));
	/* not due yet: the server is not asked */
	assert_int_equal(wh_reconnect(f->w, &f->err), SL_E_CONN);
	assert_non_null(strstr(f->err.msg, "trying again in"));
	assert_true(wh_lost(f->w));
	assert_int_equal(wh_exec(admin, "ALTER DATABASE sluice_unit_reconnect "
					"ALLOW_CONNECTIONS true", &f->err), 0);
	for (int i = 0; i < 100 && wh_reconnect(f->w, NULL); i++)
		usleep(20000);
	assert_false(wh_lost(f->w));
	assert_int_equal(query_int(f->w, "SELECT 1"), 1);
	wh_close(f->w);
	f->w = NULL;
	assert_int_equal(wh_exec(admin, "DROP DATABASE sluice_unit_reconnect", &f->err), 0);
	wh_close(admin);
}

/* The server binds a query without running it: what it names that is not
 * there is SL_E_INVALID at its byte in the query, past characters of more
 * than one byte, with the server's hint; nothing runs, nothing stays. */
static void test_bind_without_running(void **state)
{
	struct fx *f = dialect_open(state);
	const char *hint;
	long off;

	assert_true(wh_binds(f->w));
	assert_int_equal(wh_exec(f->w, "CREATE SCHEMA d; CREATE TABLE d.t (id int, name text)",
				 &f->err),
			 0);
	assert_int_equal(wh_bind(f->w, f->a, "SELECT id, upper(name) AS n FROM d.t", &off, &hint,
				 &f->err),
			 0);
	assert_int_equal(off, -1);
	/* a second bind finds no statement left over by the first */
	assert_int_equal(wh_bind(f->w, f->a, "SELECT 'é' AS e, nme FROM d.t", &off, &hint, &f->err),
			 SL_E_INVALID);
	assert_string_equal(f->err.msg, "column \"nme\" does not exist");
	assert_int_equal(off, (long)strlen("SELECT 'é' AS e, "));
	assert_non_null(strstr(hint, "name"));
	assert_int_equal(wh_bind(f->w, f->a, "SELECT nope(id) FROM d.t", &off, &hint, &f->err),
			 SL_E_INVALID);
	assert_int_equal(off, (long)strlen("SELECT "));
	assert_int_equal(wh_bind(f->w, f->a, "SELECT id FROM d.missing", &off, &hint, &f->err),
			 SL_E_INVALID);
	/* no statement is left prepared on the session */
	assert_int_equal(wh_bind(f->w, f->a, "SELECT count(*) FROM d.t", &off, &hint, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM pg_prepared_statements"), 0);
}

/* A table's rows as its statistics last counted them: nothing scanned
 * for a crossover. A table analyzed empty and filled since is counted. */
static void test_row_estimate_from_statistics(void **state)
{
	struct fx *f = dialect_open(state);
	int64_t n = -1;

	exec(f->w, "CREATE SCHEMA d; CREATE TABLE d.r AS SELECT g AS x FROM "
		   "generate_series(1, 1000) AS g; ANALYZE d.r; "
		   "INSERT INTO d.r SELECT g FROM generate_series(1, 10) AS g");
	assert_int_equal(wh_row_estimate(f->w, "d", "r", &n, &f->err), 0);
	assert_int_equal(n, 1000);
	exec(f->w, "CREATE TABLE d.e (x INTEGER); ANALYZE d.e; INSERT INTO d.e VALUES (1), (2)");
	assert_int_equal(wh_row_estimate(f->w, "d", "e", &n, &f->err), 0);
	assert_int_equal(n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_open_and_values),
		T(test_errors_and_rows_changed),
		T(test_args_and_transactions),
		T(test_appender_copies),
		T(test_array_from_json),
		T(test_second_connection_and_relations),
		T(test_refusals_name_their_reason),
		T(test_swap_in_keeps_views),
		T(test_view_replaced_whatever_its_columns),
		T(test_csv_reader),
		T(test_lost_session_comes_back),
		T(test_lost_transaction_is_rolled_back_first),
		T(test_lost_commit_is_in_doubt),
		T(test_refused_reconnect_backs_off),
		T(test_bind_without_running),
		T(test_row_estimate_from_statistics),
		DIALECT_CASES(T),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
