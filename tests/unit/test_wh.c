/*
 * Unit tests for the warehouse interface on DuckDB (src/warehouse/wh.c,
 * duckdb.c and duckdb_text.c): statements and queries with their text
 * values and NULLs, values holding NUL bytes, results of several chunks,
 * every type family read as DuckDB's own cast writes it,
 * changed-row counts, kept statements with bound arguments, transactions
 * that really roll back, relation lookups,
 * open errors a user can act on (not a database, locked), a warehouse in
 * doubt after a failed write (a WAL on /dev/full fails its commits as a
 * full disk does) against the failures that leave it sound, and the
 * dialect SQL for swapping a table in and reading a CSV file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_wh.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The tests that need no file share the in-memory db, opened by the first
 * of them; the others open a file of their own in dir. */
struct fx {
	struct arena *a;
	struct wh *w;
	struct sl_err err;
	char dir[64];
	char path[PATH_MAX];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->a = arena_new(NULL);
	strcpy(f->dir, "/tmp/sluice-test-wh-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/warehouse.duckdb", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX + 16];
	int rc = 0;

	if (f->w == db)
		rc = fixture_db_clean();
	else
		wh_close(f->w);
	unlink(f->path);
	snprintf(path, sizeof(path), "%s.wal", f->path);
	unlink(path);
	rmdir(f->dir);
	arena_free(f->a);
	free(f);
	return rc ? -1 : 0;
}

/* Opened here rather than in a group setup, after the test that forks:
 * the child must not inherit a running DuckDB. */
static void open_memory(struct fx *f)
{
	if (!db && fixture_open_memory(&db))
		fail_msg("cannot open DuckDB");
	f->w = db;
}

/* Kept first: it forks, and the child must not inherit a running DuckDB. */
static void test_locked_by_another_process(void **state)
{
	struct fx *f = *state;
	int ready[2], done[2];
	pid_t pid;
	char c = 0;
	int status;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sl_err err = SL_ERR_INIT;
		struct wh *w;
		int rc = wh_open_duckdb(f->path, false, &w, &err);

		if (write(ready[1], rc ? "x" : "k", 1) != 1 || rc)
			_exit(1);
		if (read(done[0], &c, 1) < 0)
			_exit(1);
		wh_close(w);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(c, 'k');
	assert_int_equal(wh_open_duckdb(f->path, false, &f->w, &f->err), SL_E_LOCKED);
	assert_null(f->w);
	assert_non_null(strstr(f->err.msg, "is locked by another process"));
	assert_non_null(strstr(f->err.msg, "hint: stop the other sluice"));
	assert_int_equal(wh_open_duckdb(f->path, true, &f->w, &f->err), SL_E_LOCKED);
	assert_int_equal(write(done[1], "q", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
	/* free again once the other process is gone */
	assert_int_equal(wh_open_duckdb(f->path, false, &f->w, &f->err), 0);
}

static void test_open_memory(void **state)
{
	struct fx *f = *state;
	struct wh *other;

	open_memory(f);
	assert_int_equal(wh_kind(f->w), WH_DUCKDB);
	assert_int_equal(wh_version(f->w)[0], 'v');
	/* NULL is in memory too, and each in-memory database is its own */
	assert_int_equal(wh_open_duckdb(NULL, false, &other, &f->err), 0);
	exec(f->w, "CREATE TABLE only_here (x INTEGER)");
	assert_int_equal(wh_exec(other, "SELECT * FROM only_here", &f->err), SL_E_SQL);
	wh_close(other);
	wh_close(NULL);
}

/* DuckDB's threads, the calling one counted, once `cores` are left. */
static int64_t threads_leaving(struct wh *w, int cores)
{
	struct sl_err err = SL_ERR_INIT;

	assert_int_equal(wh_leave_cores(w, cores, &err), 0);
	return query_int(w, "SELECT current_setting('threads')");
}

static void test_leave_cores(void **state)
{
	struct fx *f = *state;
	cpu_set_t all, one;
	int n, first = 0;
	struct wh *w;

	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	assert_int_equal(wh_open_duckdb(NULL, false, &w, &f->err), 0);
	/* DuckDB's own count (a CPU quota may lower it), within the affinity */
	n = (int)query_int(w, "SELECT CAST(current_setting('threads') AS BIGINT)");
	if (CPU_COUNT(&all) < n)
		n = CPU_COUNT(&all);
	assert_int_equal(threads_leaving(w, 0), n);
	assert_int_equal(threads_leaving(w, 1), n > 1 ? n - 1 : 1);
	/* never fewer than the calling thread */
	assert_int_equal(threads_leaving(w, n + 4), 1);
	/* counted from DuckDB's own count each time, not from the last call's */
	assert_int_equal(threads_leaving(w, 0), n);
	/* the cores the process may run on, not the machine's */
	while (!CPU_ISSET(first, &all))
		first++;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(threads_leaving(w, 0), 1);
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
	wh_close(w);
}

static void test_exec_and_errors(void **state)
{
	struct fx *f = *state;

	open_memory(f);
	exec(f->w, "CREATE SCHEMA s; CREATE TABLE s.t (id INTEGER, name VARCHAR); "
		   "INSERT INTO s.t VALUES (1, 'a')");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t"), 1);
	assert_int_equal(wh_exec(f->w, "SELECT * FROM s.missing", &f->err), SL_E_SQL);
	assert_int_equal(f->err.code, SL_E_SQL);
	/* DuckDB's own message, which names the table */
	assert_non_null(strstr(f->err.msg, "Catalog Error"));
	assert_non_null(strstr(f->err.msg, "missing"));
	sl_err_clear(&f->err);
	assert_int_equal(wh_exec(f->w, "SELEC 1", &f->err), SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "syntax error"));
	/* a NULL error struct is allowed */
	assert_int_equal(wh_exec(f->w, "SELEC 1", NULL), SL_E_SQL);
	/* the connection is still usable after errors */
	assert_int_equal(query_int(f->w, "SELECT 40 + 2"), 42);
}

static void test_query_values(void **state)
{
	struct fx *f = *state;
	struct wh_result *r;

	open_memory(f);
	assert_int_equal(wh_query(f->w,
				  "SELECT 1 AS id, 'it''s' AS \"Name\", NULL AS nothing, 2.5 AS x, "
				  "DATE '2024-02-29' AS d, true AS b, 12345678901234567890 AS h "
				  "UNION ALL SELECT 2, '', NULL, NULL, NULL, NULL, NULL ORDER BY id",
				  &r, &f->err),
			 0);
	assert_int_equal(wh_result_ncols(r), 7);
	assert_int_equal(wh_result_nrows(r), 2);
	assert_string_equal(wh_result_colname(r, 0), "id");
	assert_string_equal(wh_result_colname(r, 1), "Name");
	assert_string_equal(wh_result_colname(r, 2), "nothing");
	assert_string_equal(wh_result_value(r, 0, 0), "1");
	assert_string_equal(wh_result_value(r, 0, 1), "it's");
	assert_null(wh_result_value(r, 0, 2));
	assert_string_equal(wh_result_value(r, 0, 3), "2.5");
	assert_string_equal(wh_result_value(r, 0, 4), "2024-02-29");
	assert_string_equal(wh_result_value(r, 0, 5), "true");
	assert_string_equal(wh_result_value(r, 0, 6), "12345678901234567890");
	/* an empty string is not NULL */
	assert_non_null(wh_result_value(r, 1, 1));
	assert_string_equal(wh_result_value(r, 1, 1), "");
	for (size_t c = 2; c < 7; c++)
		assert_null(wh_result_value(r, 1, c));
	wh_result_free(r);
	wh_result_free(NULL);
}

static void test_nested_values_are_not_null(void **state)
{
	struct fx *f = *state;
	struct wh_result *r;

	open_memory(f);
	/* lists, structs, maps and arrays come back as DuckDB prints them */
	assert_int_equal(wh_query(f->w,
				  "SELECT 1 AS id, [1, 2] AS l, {'a': 1} AS s, MAP {'k': 1} AS m, "
				  "[3, 4]::INTEGER[2] AS a, NULL::INTEGER[] AS nothing",
				  &r, &f->err),
			 0);
	assert_int_equal(wh_result_ncols(r), 6);
	assert_int_equal(wh_result_nrows(r), 1);
	assert_string_equal(wh_result_colname(r, 1), "l");
	assert_string_equal(wh_result_value(r, 0, 0), "1");
	assert_non_null(wh_result_value(r, 0, 1));
	assert_string_equal(wh_result_value(r, 0, 1), "[1, 2]");
	assert_non_null(wh_result_value(r, 0, 2));
	assert_string_equal(wh_result_value(r, 0, 2), "{'a': 1}");
	assert_non_null(wh_result_value(r, 0, 3));
	assert_string_equal(wh_result_value(r, 0, 3), "{k=1}");
	assert_non_null(wh_result_value(r, 0, 4));
	assert_string_equal(wh_result_value(r, 0, 4), "[3, 4]");
	/* a NULL list is still NULL */
	assert_null(wh_result_value(r, 0, 5));
	wh_result_free(r);
}

static void test_value_with_nul_bytes(void **state)
{
	struct fx *f = *state;
	struct wh_result *r;

	open_memory(f);
	/* short strings are kept inside DuckDB's string struct, longer ones
	 * behind a pointer: both read whole, with their length */
	assert_int_equal(wh_query(f->w,
				  "SELECT 'a' || chr(0) || 'b' AS short, chr(0) AS nul, "
				  "repeat('x', 20) || chr(0) || 'y' AS long, '' AS empty, "
				  "NULL::VARCHAR AS nothing, 'plain' AS plain",
				  &r, &f->err),
			 0);
	assert_int_equal(wh_result_value_len(r, 0, 0), 3);
	assert_memory_equal(wh_result_value(r, 0, 0), "a\0b", 4);
	assert_int_equal(wh_result_value_len(r, 0, 1), 1);
	assert_memory_equal(wh_result_value(r, 0, 1), "\0", 2);
	assert_int_equal(wh_result_value_len(r, 0, 2), 22);
	assert_memory_equal(wh_result_value(r, 0, 2), "xxxxxxxxxxxxxxxxxxxx\0y", 23);
	assert_int_equal(wh_result_value_len(r, 0, 3), 0);
	assert_string_equal(wh_result_value(r, 0, 3), "");
	assert_int_equal(wh_result_value_len(r, 0, 4), 0);
	assert_null(wh_result_value(r, 0, 4));
	assert_int_equal(wh_result_value_len(r, 0, 5), 5);
	assert_string_equal(wh_result_value(r, 0, 5), "plain");
	wh_result_free(r);
	/* stored and read back, from a statement that is not a query too */
	exec(f->w, "CREATE TABLE bytes (id INTEGER, v VARCHAR); "
		   "INSERT INTO bytes VALUES (1, 'a' || chr(0) || 'b')");
	assert_int_equal(wh_query(f->w, "UPDATE bytes SET id = 2 RETURNING v", &r, &f->err), 0);
	assert_int_equal(wh_result_value_len(r, 0, 0), 3);
	assert_memory_equal(wh_result_value(r, 0, 0), "a\0b", 3);
	wh_result_free(r);
	/* a BLOB's NUL bytes are written out, as DuckDB prints them */
	assert_int_equal(wh_query(f->w, "SELECT v::BLOB FROM bytes", &r, &f->err), 0);
	assert_string_equal(wh_result_value(r, 0, 0), "a\\x00b");
	assert_int_equal(wh_result_value_len(r, 0, 0), 6);
	wh_result_free(r);
}

/* NULLs of every kind of column, at every position of a data chunk's
 * validity mask (its words hold 64 rows) and across chunks. */
static void test_nulls(void **state)
{
	struct fx *f = *state;
	struct wh_result *r;

	open_memory(f);
	assert_int_equal(wh_query(f->w,
				  "SELECT i, CASE WHEN i % 3 = 0 THEN NULL ELSE i END AS n, "
				  "CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || i END AS s, "
				  "CASE WHEN i % 7 = 0 THEN NULL ELSE i / 4 END AS d, "
				  "CASE WHEN i % 2 = 0 THEN NULL ELSE [i] END AS l, "
				  "NULL AS always FROM range(5000) t(i) ORDER BY i",
				  &r, &f->err),
			 0);
	assert_int_equal(wh_result_nrows(r), 5000);
	for (size_t i = 0; i < 5000; i++) {
		char want[32];

		assert_true((wh_result_value(r, i, 1) == NULL) == (i % 3 == 0));
		assert_true((wh_result_value(r, i, 2) == NULL) == (i % 5 == 0));
		assert_true((wh_result_value(r, i, 3) == NULL) == (i % 7 == 0));
		assert_true((wh_result_value(r, i, 4) == NULL) == (i % 2 == 0));
		assert_null(wh_result_value(r, i, 5));
		if (i % 5 == 0)
			continue;
		snprintf(want, sizeof(want), "v%zu", i);
		assert_string_equal(wh_result_value(r, i, 2), want);
	}
	wh_result_free(r);
}

/* DuckDB hands results over in chunks of 2048 rows: every row of a
 * longer result is there, in order. */
static void test_several_chunks(void **state)
{
	struct fx *f = *state;
	struct wh_result *r;
	int64_t n = 0;

	open_memory(f);
	exec(f->w, "CREATE TABLE many AS SELECT i, 'row ' || i AS name, "
		   "TIMESTAMP '2024-01-01' + to_seconds(i) AS ts, i / 8 AS d "
		   "FROM range(10000) t(i)");
	assert_int_equal(wh_query(f->w, "SELECT * FROM many ORDER BY i", &r, &f->err), 0);
	assert_int_equal(wh_result_nrows(r), 10000);
	for (size_t i = 0; i < 10000; i++) {
		char want[32];

		snprintf(want, sizeof(want), "%zu", i);
		assert_string_equal(wh_result_value(r, i, 0), want);
		snprintf(want, sizeof(want), "row %zu", i);
		assert_string_equal(wh_result_value(r, i, 1), want);
		snprintf(want, sizeof(want), "%.10g", (double)i / 8);
		if (!strchr(want, '.'))
			strcat(want, ".0");
		assert_string_equal(wh_result_value(r, i, 3), want);
	}
	assert_string_equal(wh_result_value(r, 9999, 2), "2024-01-01 02:46:39");
	wh_result_free(r);
	/* the same through a kept statement with an argument */
	assert_int_equal(wh_query_int_args(f->w, "SELECT count(*) FROM many WHERE i >= $1",
					   (struct wh_arg[]){ WH_INT(2000) }, 1, &n, &f->err),
			 0);
	assert_int_equal(n, 8000);
}

/* Every value of column 0 of r reads as column 1, DuckDB's own cast of
 * it to VARCHAR. */
static void assert_reads_as_cast(const struct wh_result *r, const char *what)
{
	assert_int_equal(wh_result_ncols(r), 2);
	for (size_t i = 0; i < wh_result_nrows(r); i++) {
		const char *got = wh_result_value(r, i, 0), *want = wh_result_value(r, i, 1);

		if (!got || !want || strcmp(got, want) != 0)
			fail_msg("%s, row %zu: read '%s', DuckDB casts it to '%s'", what, i,
				 got ? got : "NULL", want ? want : "NULL");
		assert_int_equal(wh_result_value_len(r, i, 0), wh_result_value_len(r, i, 1));
	}
}

/* The values of one type, read from a query and from a statement that is
 * not one (which cannot have its columns cast to text in SQL), against
 * DuckDB's cast; returns the query's result for spot checks. */
static struct wh_result *check_family(struct fx *f, const char *type, const char *values)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;

	buf_addf(&sql, "DROP TABLE IF EXISTS family; CREATE TABLE family (k INTEGER, x %s); "
		       "INSERT INTO family SELECT row_number() OVER (), v FROM (VALUES %s) t(v)",
		 type, values);
	exec(f->w, sql.buf);
	assert_int_equal(wh_query(f->w, "UPDATE family SET k = k RETURNING x, CAST(x AS VARCHAR)",
				  &r, &f->err),
			 0);
	assert_reads_as_cast(r, type);
	wh_result_free(r);
	assert_int_equal(wh_query(f->w, "SELECT x, CAST(x AS VARCHAR) FROM family ORDER BY k", &r,
				  &f->err),
			 0);
	assert_reads_as_cast(r, type);
	buf_release(&sql);
	return r;
}

static void test_values_read_as_duckdb_casts_them(void **state)
{
	struct fx *f = *state;
	struct wh_result *r;

	open_memory(f);
	r = check_family(f, "BOOLEAN", "(true), (false)");
	assert_string_equal(wh_result_value(r, 0, 0), "true");
	wh_result_free(r);
	wh_result_free(check_family(f, "TINYINT", "(-128), (127), (0)"));
	wh_result_free(check_family(f, "SMALLINT", "(-32768), (32767)"));
	wh_result_free(check_family(f, "INTEGER", "(-2147483648), (2147483647), (-1)"));
	wh_result_free(check_family(f, "BIGINT", "(-9223372036854775808), (9223372036854775807)"));
	wh_result_free(check_family(f, "UTINYINT", "(255)"));
	wh_result_free(check_family(f, "USMALLINT", "(65535)"));
	wh_result_free(check_family(f, "UINTEGER", "(4294967295)"));
	wh_result_free(check_family(f, "UBIGINT", "(18446744073709551615), (0)"));
	r = check_family(f, "HUGEINT",
			 "(-170141183460469231731687303715884105728), "
			 "(170141183460469231731687303715884105727), (-5), (0), "
			 "(18446744073709551616), (-18446744073709551617)");
	assert_string_equal(wh_result_value(r, 0, 0), "-170141183460469231731687303715884105728");
	wh_result_free(r);
	wh_result_free(
		check_family(f, "UHUGEINT", "(340282366920938463463374607431768211455), (1)"));
	r = check_family(f, "DECIMAL(4,2)", "(0.0), (-1.23), (0.05), (99.99)");
	assert_string_equal(wh_result_value(r, 0, 0), "0.00");
	wh_result_free(r);
	/* no integer part when the type has no room for one */
	r = check_family(f, "DECIMAL(9,9)", "(0.123456789), (-0.5), (0)");
	assert_string_equal(wh_result_value(r, 1, 0), "-.500000000");
	wh_result_free(r);
	wh_result_free(check_family(f, "DECIMAL(18,6)", "(123456789012.345678), (-0.000001)"));
	wh_result_free(check_family(f, "DECIMAL(38,10)",
				    "(-9999999999999999999999999999.9999999999), (1.5)"));
	wh_result_free(
		check_family(f, "DECIMAL(38,38)", "(0.00000000000000000000000000000000000001)"));
	wh_result_free(check_family(f, "DECIMAL(5,0)", "(5), (-99999)"));
	/* DuckDB's own digits, even where they are not the shortest (2^91) */
	r = check_family(f, "DOUBLE",
			 "(0.1), (1e20), (1e-5), (-0.0), (1.0 / 3), (2.0 ^ 91), ('inf'), "
			 "('-inf'), ('nan'), (5e-324), (1e15), (1e16), (100), (2.5)");
	assert_string_equal(wh_result_value(r, 0, 0), "0.1");
	assert_string_equal(wh_result_value(r, 1, 0), "1e+20");
	assert_string_equal(wh_result_value(r, 12, 0), "100.0");
	wh_result_free(r);
	wh_result_free(
		check_family(f, "FLOAT", "(0.1), (147629008), (17101.5625), (1e-45), ('nan')"));
	r = check_family(f, "DATE",
			 "('2024-02-29'), ('0044-03-15 (BC)'), ('infinity'), ('-infinity'), "
			 "('5881580-07-10'), ('5877642-06-25 (BC)'), ('1970-01-01'), "
			 "('0001-01-01'), ('0001-12-31 (BC)')");
	assert_string_equal(wh_result_value(r, 1, 0), "0044-03-15 (BC)");
	wh_result_free(r);
	wh_result_free(check_family(f, "TIME",
				    "('00:00:00'), ('23:59:59.999999'), ('03:04:05.5'), "
				    "('24:00:00')"));
	r = check_family(f, "TIMESTAMP",
			 "(TIMESTAMP '2024-01-02 03:04:05'), (TIMESTAMP '2024-01-02 03:04:05.12'), "
			 "(TIMESTAMP '1969-12-31 23:59:59.999999'), (TIMESTAMP 'infinity'), "
			 "(TIMESTAMP '-infinity'), (TIMESTAMP '294246-12-31 23:59:59.999999'), "
			 "(TIMESTAMP '1900-01-01'), (DATE '0044-03-15 (BC)' + INTERVAL 13 HOUR)");
	assert_string_equal(wh_result_value(r, 1, 0), "2024-01-02 03:04:05.12");
	wh_result_free(r);
	r = check_family(f, "INTERVAL",
			 "(INTERVAL 1 DAY), (INTERVAL '1 year 2 months 3 days 04:05:06.789'), "
			 "(INTERVAL (-5) MINUTE), (INTERVAL 0 SECOND), (to_months(-13)), "
			 "(INTERVAL 123456 HOUR), (INTERVAL '1 day -1 hour'), "
			 "(to_microseconds(-9223372036854775808)), (INTERVAL (-1) YEAR)");
	assert_string_equal(wh_result_value(r, 1, 0), "1 year 2 months 3 days 04:05:06.789");
	wh_result_free(r);
	wh_result_free(check_family(f, "VARCHAR", "(''), ('héllo wörld'), (repeat('é', 40))"));
	r = check_family(f, "BLOB",
			 "(unhex('00010A1F20225C277E7F80FF')), (''::BLOB), ('abc'::BLOB)");
	assert_string_equal(wh_result_value(r, 0, 0),
			    "\\x00\\x01\\x0A\\x1F \\x22\\x5C\\x27~\\x7F\\x80\\xFF");
	wh_result_free(r);
	wh_result_free(check_family(f, "JSON", "('{\"a\": [1, 2]}')"));
}

/* Types without a writer of their own are cast to text in SQL (for a
 * query) and read as DuckDB prints them, not as NULL. */
static void test_types_cast_in_sql(void **state)
{
	struct fx *f = *state;
	struct wh_result *r;

	open_memory(f);
	assert_int_equal(wh_query(f->w,
				  "SELECT '12345678-1234-5678-1234-567812345678'::UUID AS u, "
				  "'b'::ENUM('a', 'b') AS e, "
				  "TIMESTAMP_S '2024-01-02 03:04:05' AS s, '0101'::BIT AS bits, "
				  "2.5::FLOAT AS r",
				  &r, &f->err),
			 0);
	assert_string_equal(wh_result_colname(r, 0), "u");
	assert_string_equal(wh_result_value(r, 0, 0), "12345678-1234-5678-1234-567812345678");
	assert_string_equal(wh_result_value(r, 0, 1), "b");
	assert_string_equal(wh_result_value(r, 0, 2), "2024-01-02 03:04:05");
	assert_string_equal(wh_result_value(r, 0, 3), "0101");
	assert_string_equal(wh_result_value(r, 0, 4), "2.5");
	wh_result_free(r);
	/* a query run again is prepared as remembered: with its reals cast
	 * while it returns many of them, as it is while it returns few; and
	 * what is remembered follows the table when its columns change */
	exec(f->w, "CREATE TABLE changing (d DOUBLE); INSERT INTO changing VALUES (1.5)");
	for (int i = 0; i < 6; i++) {
		size_t rows = i < 2 ? 1 : i < 4 ? 1001 : 1;

		assert_int_equal(wh_query(f->w, "SELECT * FROM changing ORDER BY d", &r, &f->err),
				 0);
		assert_int_equal(wh_result_nrows(r), rows);
		assert_string_equal(wh_result_value(r, rows - 1, 0), "1.5");
		if (rows > 1)
			assert_string_equal(wh_result_value(r, 0, 0), "0.001");
		wh_result_free(r);
		if (i == 1)
			exec(f->w, "INSERT INTO changing SELECT i / 1000 FROM range(1, 1001) t(i)");
		if (i == 3)
			exec(f->w, "DELETE FROM changing WHERE d < 1.5");
	}
	exec(f->w, "ALTER TABLE changing ADD COLUMN l INTEGER[] DEFAULT [1, 2]");
	assert_int_equal(wh_query(f->w, "SELECT * FROM changing", &r, &f->err), 0);
	assert_int_equal(wh_result_ncols(r), 2);
	assert_string_equal(wh_result_value(r, 0, 0), "1.5");
	assert_string_equal(wh_result_value(r, 0, 1), "[1, 2]");
	wh_result_free(r);
	exec(f->w, "ALTER TABLE changing DROP COLUMN d");
	assert_int_equal(wh_query(f->w, "SELECT * FROM changing", &r, &f->err), 0);
	assert_int_equal(wh_result_ncols(r), 1);
	assert_string_equal(wh_result_value(r, 0, 0), "[1, 2]");
	wh_result_free(r);
}

static void test_query_shapes(void **state)
{
	struct fx *f = *state;
	struct wh_result *r;

	open_memory(f);
	/* no rows, but the columns are known */
	assert_int_equal(wh_query(f->w, "SELECT 1 AS a, 2 AS b WHERE false", &r, &f->err), 0);
	assert_int_equal(wh_result_nrows(r), 0);
	assert_int_equal(wh_result_ncols(r), 2);
	assert_string_equal(wh_result_colname(r, 1), "b");
	wh_result_free(r);
	/* many rows (past any growth step) */
	assert_int_equal(wh_query(f->w, "SELECT i, i * 2 FROM range(5000) t(i)", &r, &f->err), 0);
	assert_int_equal(wh_result_nrows(r), 5000);
	assert_string_equal(wh_result_value(r, 4999, 1), "9998");
	assert_string_equal(wh_result_value(r, 17, 0), "17");
	wh_result_free(r);
	/* a statement without a result set */
	assert_int_equal(wh_query(f->w, "CREATE TABLE t (x INTEGER)", &r, &f->err), 0);
	wh_result_free(r);
	assert_int_equal(wh_query(f->w, "SELECT * FROM nowhere", &r, &f->err), SL_E_SQL);
}

static void test_query_int(void **state)
{
	struct fx *f = *state;
	int64_t v = 5;

	open_memory(f);
	assert_int_equal(query_int(f->w, "SELECT 9007199254740993"), 9007199254740993LL);
	assert_int_equal(query_int(f->w, "SELECT -12"), -12);
	assert_int_equal(query_int(f->w, "SELECT NULL"), 0);
	assert_int_equal(query_int(f->w, "SELECT 1 WHERE false"), 0);
	assert_int_equal(query_int(f->w, "SELECT 7, 8"), 7);
	assert_int_equal(wh_query_int(f->w, "SELECT * FROM nowhere", &v, &f->err), SL_E_SQL);
}

static void test_rows_changed(void **state)
{
	struct fx *f = *state;
	int64_t n = -1;

	open_memory(f);
	exec(f->w, "CREATE TABLE t (id INTEGER, v INTEGER)");
	assert_int_equal(wh_exec_count(f->w, "INSERT INTO t SELECT i, 0 FROM range(10) r(i)", &n,
				       &f->err),
			 0);
	assert_int_equal(n, 10);
	assert_int_equal(wh_exec_count(f->w, "UPDATE t SET v = 1 WHERE id < 3", &n, &f->err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(wh_exec_count(f->w, "DELETE FROM t WHERE id >= 6", &n, &f->err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(wh_exec_count(f->w, "DELETE FROM t WHERE false", &n, &f->err), 0);
	assert_int_equal(n, 0);
	/* with several statements, the last one counts */
	assert_int_equal(wh_exec_count(f->w,
				       "INSERT INTO t VALUES (100, 0); UPDATE t SET v = 2 WHERE v = 0",
				       &n, &f->err),
			 0);
	assert_int_equal(n, 4);
}

/* Kept statements: every kind of argument, counts and integers out, the
 * same text run again with other values, more texts than are kept, and a
 * failed one dropped so that it is prepared anew once it can run. */
static void test_exec_args(void **state)
{
	struct fx *f = *state;
	const char *insert = "INSERT INTO a VALUES ($1::BIGINT, $2, $3::TIMESTAMP, $4)";
	int64_t n = -1, v = -1;
	char sql[64];

	open_memory(f);
	exec(f->w, "CREATE TABLE a (id BIGINT, note VARCHAR, ts TIMESTAMP, gone VARCHAR)");
	for (int i = 1; i <= 3; i++) {
		const struct wh_arg args[] = { WH_INT(i), WH_TEXT(i == 2 ? "it's" : "x"),
					       WH_TS_MS(1764400000123LL + i), { .kind = WH_ARG_NULL } };

		assert_int_equal(wh_exec_args(f->w, insert, args, 4, &n, &f->err), 0);
		assert_int_equal(n, 1);
	}
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM a WHERE gone IS NULL"), 3);
	assert_int_equal(query_int(f->w, "SELECT id FROM a WHERE note = 'it''s'"), 2);
	assert_int_equal(query_int(f->w, "SELECT epoch_ms(ts) FROM a WHERE id = 3"),
			 1764400000126LL);
	assert_int_equal(wh_query_int_args(f->w, "SELECT sum(id) + $1::BIGINT FROM a",
					   (const struct wh_arg[]){ WH_INT(10) }, 1, &v, &f->err),
			 0);
	assert_int_equal(v, 16);
	for (int i = 0; i < 100; i++) {
		snprintf(sql, sizeof(sql), "SELECT %d + $1::BIGINT", i);
		assert_int_equal(wh_query_int_args(f->w, sql, (const struct wh_arg[]){ WH_INT(1) },
						   1, &v, &f->err),
				 0);
		assert_int_equal(v, i + 1);
	}
	/* the table goes: the statement fails, and runs again once it is back */
	exec(f->w, "DROP TABLE a");
	assert_int_equal(wh_exec_args(f->w, insert,
				      (const struct wh_arg[]){ WH_INT(4), WH_TEXT("y"), WH_TS_MS(0),
							       WH_TEXT("z") },
				      4, NULL, &f->err),
			 SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "does not exist"));
	exec(f->w, "CREATE TABLE a (id BIGINT, note VARCHAR, ts TIMESTAMP, gone VARCHAR)");
	assert_int_equal(wh_exec_args(f->w, insert,
				      (const struct wh_arg[]){ WH_INT(4), WH_TEXT("y"), WH_TS_MS(0),
							       WH_TEXT("z") },
				      4, NULL, &f->err),
			 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM a WHERE gone = 'z'"), 1);
}

/* An UPDATE kept from before its row existed: forgotten and run again, it
 * finds the row. */
static void test_forget_statement(void **state)
{
	struct fx *f = *state;
	const char *update = "UPDATE u SET n = n + $1::BIGINT WHERE k = 'a'";
	const struct wh_arg one[] = { WH_INT(1) };
	int64_t n = -1;

	open_memory(f);
	exec(f->w, "CREATE TABLE u (k VARCHAR PRIMARY KEY, n BIGINT)");
	assert_int_equal(wh_exec_args(f->w, update, one, 1, &n, &f->err), 0);
	assert_int_equal(n, 0);
	exec(f->w, "INSERT INTO u VALUES ('a', 0)");
	wh_forget_statement(f->w, update);
	wh_forget_statement(f->w, "SELECT 'never kept'");
	assert_int_equal(wh_exec_args(f->w, update, one, 1, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(wh_exec_args(f->w, update, one, 1, &n, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT n FROM u"), 2);
}

static void test_rollback(void **state)
{
	struct fx *f = *state;

	open_memory(f);
	exec(f->w, "CREATE TABLE t (id INTEGER); INSERT INTO t VALUES (1)");
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	exec(f->w, "INSERT INTO t VALUES (2), (3); CREATE TABLE u (x INTEGER); DROP TABLE t");
	wh_rollback(f->w);
	/* the inserts, the new table and the drop are all undone */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM t"), 1);
	assert_int_equal(wh_exec(f->w, "SELECT * FROM u", &f->err), SL_E_SQL);

	assert_int_equal(wh_begin(f->w, &f->err), 0);
	exec(f->w, "INSERT INTO t VALUES (4)");
	assert_int_equal(wh_commit(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM t"), 2);

	/* a rollback without a transaction is harmless */
	wh_rollback(f->w);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM t"), 2);
	/* after a failed statement the transaction can still be rolled back */
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	exec(f->w, "INSERT INTO t VALUES (5)");
	assert_int_equal(wh_exec(f->w, "INSERT INTO t VALUES ('x')", &f->err), SL_E_SQL);
	wh_rollback(f->w);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM t"), 2);
	/* a commit with no transaction is an error */
	assert_int_equal(wh_commit(f->w, &f->err), SL_E_SQL);
}

static void test_exec_atomic(void **state)
{
	struct fx *f = *state;

	open_memory(f);
	exec(f->w, "CREATE TABLE t (id INTEGER)");
	assert_int_equal(wh_exec_atomic(f->w, "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)",
					&f->err),
			 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM t"), 2);
	/* the second statement fails: the first is undone with it */
	assert_int_equal(wh_exec_atomic(f->w, "INSERT INTO t VALUES (3); INSERT INTO t VALUES ('x')",
					&f->err),
			 SL_E_SQL);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM t"), 2);
	/* and no transaction is left open */
	assert_int_equal(wh_commit(f->w, &f->err), SL_E_SQL);
}

static void test_appender(void **state)
{
	struct fx *f = *state;
	struct wh_appender *ap;
	const char *good[] = { "42", "1.5", "2024-01-02 03:04:05", NULL };
	const char *bad[] = { "x", "1", NULL, NULL };

	open_memory(f);
	exec(f->w, "CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT, amt DOUBLE, ts TIMESTAMP, note "
		   "VARCHAR)");
	/* rows commit with the transaction they were appended in */
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, good, 4, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, good, 4, &f->err), 0);
	assert_int_equal(wh_appender_flush(ap, &f->err), 0);
	wh_appender_close(ap);
	assert_int_equal(wh_commit(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t WHERE id = 42 AND note IS NULL"),
			 2);
	/* and go with a rollback */
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, good, 4, &f->err), 0);
	assert_int_equal(wh_appender_flush(ap, &f->err), 0);
	wh_appender_close(ap);
	wh_rollback(f->w);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t"), 2);
	/* rows never flushed are dropped, also when the transaction rolled
	 * back before the close, or outside one */
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, good, 4, &f->err), 0);
	wh_rollback(f->w);
	wh_appender_close(ap);
	assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, good, 4, &f->err), 0);
	wh_appender_close(ap);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t"), 2);
	/* a value that does not convert, a row of the wrong width, a missing table */
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, bad, 4, &f->err), SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "s.t"));
	wh_appender_close(ap);
	wh_rollback(f->w);
	assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, good, 3, &f->err), SL_E_INTERNAL);
	wh_appender_close(ap);
	assert_int_equal(wh_appender_open(f->w, "s", "nope", &ap, &f->err), SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "s.nope"));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t"), 2);
}

/* A transaction ended by a kept statement is ended for the connection too:
 * rows an appender never flushed after it are dropped, not committed by
 * the appender's close as if a transaction still held them. */
static void test_exec_args_follows_the_transaction(void **state)
{
	struct fx *f = *state;
	struct wh_appender *ap;
	const char *day[] = { "2024-01-02" };

	open_memory(f);
	/* a DATE column: DuckDB's own appender, not the typed feed */
	exec(f->w, "CREATE SCHEMA s; CREATE TABLE s.d (day DATE)");
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	exec(f->w, "INSERT INTO s.d VALUES (DATE '2024-01-01')");
	assert_int_equal(wh_exec_args(f->w, "COMMIT", NULL, 0, NULL, &f->err), 0);
	assert_int_equal(wh_appender_open(f->w, "s", "d", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, day, 1, &f->err), 0);
	wh_appender_close(ap);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.d"), 1);
}

/* Text the appender takes as typed values lands exactly as the warehouse's
 * own cast of it would, and text it leaves to that cast fails or lands the
 * same way too: the cast is the oracle, for each type held typed. */
static void test_appender_typed_values(void **state)
{
	static const char *const texts[] = {
		"0", "42", "-7", "007", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "-9223372036854775809", "99999999999999999999", "+5", " 5",
		"5 ", "1.5", "1e3", "-", "", "x1", "2147483647", "-2147483648", "2147483648",
		"-2147483649", "1.5e3", "-0.25", "1E-5", "1e400", "1e-400", "4.9e-324", ".5", "1.",
		"1e", "1e+", "0x10", "nan", "inf", "-inf", "1_000", "true", "false", "TRUE", "t",
		"f", "yes", "1", "0.1", "123456789012345678901234567890",
		"2024-01-02 03:04:05", "2024-01-02 03:04:05.1", "2024-01-02 03:04:05.123",
		"2024-01-02 03:04:05.123456", "2024-01-02 03:04:05.1234567", "2024-02-29 23:59:59",
		"2023-02-29 00:00:00", "2024-13-01 00:00:00", "2024-04-31 00:00:00",
		"2024-01-02 24:00:00", "2024-01-02T03:04:05", "2024-01-02 03:04:05.",
		"1970-01-01 00:00:00", "1969-12-31 23:59:59.999", "0001-01-01 00:00:00",
		"2024-01-02", "2024-01-02 03:04", "9999-12-31 23:59:59.999999",
	};
	static const char *const types[] = { "BIGINT", "TIMESTAMP", "INTEGER", "DOUBLE", "BOOLEAN" };
	enum { NTYPES = sizeof(types) / sizeof(types[0]) };
	struct fx *f = *state;

	open_memory(f);
	exec(f->w, "CREATE SCHEMA s; CREATE TABLE s.t (c0 BIGINT, c1 TIMESTAMP, c2 INTEGER, c3 "
		   "DOUBLE, c4 BOOLEAN, src VARCHAR)");
	for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
		for (int col = 0; col < NTYPES; col++) {
			const char *row[NTYPES + 1] = { NULL };
			struct wh_appender *ap;
			struct buf sql = BUF_INIT;
			int64_t casts;
			int rc;

			row[col] = texts[k];
			row[NTYPES] = texts[k];
			buf_adds(&sql, "SELECT (TRY_CAST(");
			buf_add_sql_str(&sql, texts[k]);
			buf_addf(&sql, " AS %s) IS NOT NULL)::INT", types[col]);
			casts = query_int(f->w, sql.buf);
			buf_release(&sql);
			assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
			rc = wh_appender_row(ap, row, NTYPES + 1, &f->err);
			if (!rc)
				rc = wh_appender_flush(ap, &f->err);
			wh_appender_close(ap);
			if ((rc == 0) != (casts == 1))
				fail_msg("'%s' as %s: appended %s (%s), the cast %s", texts[k],
					 types[col], rc ? "no" : "yes", rc ? f->err.msg : "",
					 casts ? "takes it" : "does not");
			if (rc)
				assert_non_null(strstr(f->err.msg, "s.t"));
		}
	}
	for (int col = 0; col < NTYPES; col++) {
		char sql[256];

		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM s.t WHERE c%d IS NOT NULL AND c%d IS DISTINCT FROM "
			 "TRY_CAST(src AS %s)",
			 col, col, types[col]);
		assert_int_equal(query_int(f->w, sql), 0);
	}
	assert_true(query_int(f->w, "SELECT count(*) FROM s.t") >= 100);
}

/* A table of the types the appender holds typed takes thousands of rows
 * (several of DuckDB's vectors), NULLs in any column, in one flush. */
static void test_appender_many_rows(void **state)
{
	struct fx *f = *state;
	struct wh_appender *ap;
	enum { N = 5000 };

	open_memory(f);
	exec(f->w, "CREATE SCHEMA s; CREATE TABLE s.t (i BIGINT, n INTEGER, d DOUBLE, b BOOLEAN, "
		   "ts TIMESTAMP, v VARCHAR)");
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
	for (int i = 0; i < N; i++) {
		char is[32], ds[32], ts[32], vs[64];
		const char *row[6] = { is, is, ds, i % 2 ? "true" : "false", ts, vs };

		snprintf(is, sizeof(is), "%d", i);
		snprintf(ds, sizeof(ds), "%d.5", i);
		snprintf(ts, sizeof(ts), "2024-01-01 00:00:%02d", i % 60);
		snprintf(vs, sizeof(vs), "value number %d, longer than twelve bytes", i);
		row[i % 7 < 6 ? i % 7 : 0] = i % 7 < 6 ? NULL : row[0];
		assert_int_equal(wh_appender_row(ap, row, 6, &f->err), 0);
	}
	assert_int_equal(wh_appender_flush(ap, &f->err), 0);
	wh_appender_close(ap);
	assert_int_equal(wh_commit(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t"), N);
	/* row i has column i % 7 NULL (none when i % 7 is 6) */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t WHERE i IS NULL"), (N + 6) / 7);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t WHERE v IS NULL"), (N + 1) / 7);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t WHERE i IS NOT NULL AND n IS "
					 "NOT NULL AND (i <> n OR d IS NOT NULL AND d <> i + 0.5 OR "
					 "b IS NOT NULL AND b <> (i % 2 = 1) OR ts IS NOT NULL AND "
					 "second(ts) <> i % 60 OR v IS NOT NULL AND v <> 'value "
					 "number ' || i || ', longer than twelve bytes')"),
			 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t WHERE b IS NULL"), (N + 4) / 7);
}

/* The appender follows the table: one dropped and made again with other
 * columns takes rows of its new columns, and two appenders open on one
 * table at once both land theirs. */
static void test_appender_follows_the_table(void **state)
{
	struct fx *f = *state;
	struct wh_appender *ap, *second;
	const char *old_row[] = { "1", "one" };
	const char *new_row[] = { "two", "2", "2024-01-01 00:00:00" };

	open_memory(f);
	exec(f->w, "CREATE SCHEMA s; CREATE TABLE s.t (i BIGINT, v VARCHAR)");
	assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, old_row, 2, &f->err), 0);
	assert_int_equal(wh_appender_flush(ap, &f->err), 0);
	wh_appender_close(ap);
	exec(f->w, "DROP TABLE s.t; CREATE TABLE s.t (v VARCHAR, i BIGINT, ts TIMESTAMP)");
	assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, old_row, 2, &f->err), SL_E_INTERNAL);
	assert_int_equal(wh_appender_row(ap, new_row, 3, &f->err), 0);
	assert_int_equal(wh_appender_open(f->w, "s", "t", &second, &f->err), 0);
	assert_int_equal(wh_appender_row(second, new_row, 3, &f->err), 0);
	assert_int_equal(wh_appender_flush(second, &f->err), 0);
	wh_appender_close(second);
	assert_int_equal(wh_appender_flush(ap, &f->err), 0);
	wh_appender_close(ap);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t WHERE v = 'two' AND i = 2 AND "
					 "ts = '2024-01-01'"),
			 2);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t"), 2);
}

/* The function the appender's rows are read through serves only the
 * connection appending them: another finds nothing to read. */
static void test_appender_rows_are_private(void **state)
{
	struct fx *f = *state;
	struct wh_appender *ap;
	struct wh *other;
	struct wh_result *r;
	const char *row[] = { "1" };
	const char *bad[] = { "\xff\xfe" };

	open_memory(f);
	exec(f->w, "CREATE SCHEMA s; CREATE TABLE s.t (v VARCHAR)");
	assert_int_equal(wh_appender_open(f->w, "s", "t", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, row, 1, &f->err), 0);
	assert_int_equal(wh_connect(f->w, &other, &f->err), 0);
	for (int k = 1; k < 64; k++) {
		char sql[64];

		snprintf(sql, sizeof(sql), "SELECT * FROM _sluice_feed('%d:s.t')", k);
		assert_int_equal(wh_query(other, sql, &r, &f->err), SL_E_SQL);
		assert_non_null(strstr(f->err.msg, "only the rows sluice is inserting"));
	}
	wh_close(other);
	assert_int_equal(wh_query(f->w, "SELECT * FROM _sluice_feed('s.t')", &r, &f->err), SL_E_SQL);
	/* text that is not UTF-8 is refused, naming the table */
	assert_int_not_equal(wh_appender_row(ap, bad, 1, &f->err), 0);
	assert_non_null(strstr(f->err.msg, "s.t"));
	assert_non_null(strstr(f->err.msg, "UTF-8"));
	assert_int_equal(wh_appender_flush(ap, &f->err), 0);
	wh_appender_close(ap);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.t"), 1);
}

/* Facts are shared by every connection of a database, not by another
 * database; forgetting forgets them for all connections. */
static void test_memo(void **state)
{
	struct fx *f = *state;
	struct wh *other, *second;

	assert_int_equal(wh_open_duckdb(f->path, false, &f->w, &f->err), 0);
	assert_int_equal(wh_open_duckdb(NULL, false, &other, &f->err), 0);
	assert_int_equal(wh_connect(f->w, &second, &f->err), 0);
	assert_false(wh_memo_has(f->w, "a"));
	wh_memo_add(f->w, "a");
	wh_memo_add(f->w, "a");
	wh_memo_add(second, "b");
	assert_true(wh_memo_has(second, "a"));
	assert_true(wh_memo_has(f->w, "b"));
	assert_false(wh_memo_has(other, "a"));
	wh_close(second);
	assert_true(wh_memo_has(f->w, "b"));
	wh_memo_forget(f->w);
	assert_false(wh_memo_has(f->w, "a"));
	assert_false(wh_memo_has(f->w, "b"));
	wh_close(other);
}

static void test_relation_kind(void **state)
{
	struct fx *f = *state;
	const char *kind = "unset";

	open_memory(f);
	exec(f->w,
	     "CREATE SCHEMA s; CREATE TABLE s.t (x INTEGER); CREATE VIEW s.v AS SELECT 1 AS x;"
	     "CREATE TABLE main.m (x INTEGER)");
	assert_int_equal(wh_relation_kind(f->w, f->a, "s", "t", &kind, &f->err), 0);
	assert_string_equal(kind, "table");
	assert_int_equal(wh_relation_kind(f->w, f->a, "s", "v", &kind, &f->err), 0);
	assert_string_equal(kind, "view");
	assert_int_equal(wh_relation_kind(f->w, f->a, "main", "m", &kind, &f->err), 0);
	assert_string_equal(kind, "table");
	assert_int_equal(wh_relation_kind(f->w, f->a, "s", "nope", &kind, &f->err), 0);
	assert_null(kind);
	kind = "unset";
	assert_int_equal(wh_relation_kind(f->w, f->a, "nope", "t", &kind, &f->err), 0);
	assert_null(kind);
	kind = "unset";
	/* names with quotes are looked up safely */
	assert_int_equal(wh_relation_kind(f->w, f->a, "s", "t' OR '1'='1", &kind, &f->err), 0);
	assert_null(kind);
}

static void test_relation_list(void **state)
{
	struct fx *f = *state;
	const char **names = NULL;
	size_t n = 0;

	open_memory(f);
	assert_int_equal(wh_relation_list(f->w, f->a, &names, &n, &f->err), 0);
	assert_int_equal(n, 0);
	exec(f->w, "CREATE SCHEMA \"Gold\"; CREATE TABLE \"Gold\".\"Revenue\" (x INTEGER);"
		   "CREATE SCHEMA b; CREATE VIEW b.v AS SELECT 1 AS x; CREATE TABLE a (x INTEGER)");
	assert_int_equal(wh_relation_list(f->w, f->a, &names, &n, &f->err), 0);
	assert_int_equal(n, 3);
	/* lowercase and sorted, as dag_build expects */
	assert_string_equal(names[0], "b.v");
	assert_string_equal(names[1], "gold.revenue");
	assert_string_equal(names[2], "main.a");
}

static void test_table_columns(void **state)
{
	struct fx *f = *state;
	struct wh_column *cols = NULL;
	size_t n = 99;

	open_memory(f);
	exec(f->w,
	     "CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT, \"Name\" VARCHAR, amount DECIMAL(10, "
	     "2), ts TIMESTAMP)");
	assert_int_equal(wh_table_columns(f->w, f->a, "s", "t", &cols, &n, &f->err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(cols[0].name, "id");
	assert_string_equal(cols[0].type, "BIGINT");
	assert_string_equal(cols[1].name, "Name");
	assert_string_equal(cols[1].type, "VARCHAR");
	assert_string_equal(cols[2].name, "amount");
	assert_string_equal(cols[2].type, "DECIMAL(10,2)");
	assert_string_equal(cols[3].name, "ts");
	assert_string_equal(cols[3].type, "TIMESTAMP");
	assert_int_equal(wh_table_columns(f->w, f->a, "s", "none", &cols, &n, &f->err), 0);
	assert_int_equal(n, 0);
}

static void test_file_database(void **state)
{
	struct fx *f = *state;

	assert_int_equal(wh_open_duckdb(f->path, false, &f->w, &f->err), 0);
	exec(f->w, "CREATE TABLE kept AS SELECT 42 AS answer");
	wh_close(f->w);
	f->w = NULL;
	/* reopened read-only: the data is there and cannot be changed */
	assert_int_equal(wh_open_duckdb(f->path, true, &f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT answer FROM kept"), 42);
	assert_int_equal(wh_exec(f->w, "INSERT INTO kept VALUES (1)", &f->err), SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "read-only"));
}

static void test_not_a_database(void **state)
{
	struct fx *f = *state;
	FILE *fp = fopen(f->path, "wb");

	assert_non_null(fp);
	for (int i = 0; i < 5000; i++)
		fputc((i * 7919) & 0xff, fp);
	fclose(fp);
	assert_int_equal(wh_open_duckdb(f->path, false, &f->w, &f->err), SL_E_IO);
	assert_null(f->w);
	assert_non_null(strstr(f->err.msg, "is not a DuckDB database file"));
	assert_non_null(strstr(f->err.msg, f->path));
	assert_non_null(strstr(f->err.msg, "hint: point warehouse.path"));
	/* read-only fails the same way; the file is left as it was */
	assert_int_equal(wh_open_duckdb(f->path, true, &f->w, &f->err), SL_E_IO);
	assert_non_null(strstr(f->err.msg, "is not a DuckDB database file"));
	fp = fopen(f->path, "rb");
	fseek(fp, 0, SEEK_END);
	assert_int_equal(ftell(fp), 5000);
	fclose(fp);
}

static void test_cannot_open(void **state)
{
	struct fx *f = *state;

	assert_int_equal(wh_open_duckdb("/nonexistent-dir/sub/w.duckdb", false, &f->w, &f->err),
			 SL_E_IO);
	assert_null(f->w);
	assert_non_null(strstr(f->err.msg, "cannot open warehouse '/nonexistent-dir/sub/w.duckdb'"));
}

/* The next commit of f->w fails for want of space, as on a full disk: its
 * WAL, which DuckDB makes anew after a checkpoint, is /dev/full. */
static void fill_the_disk(struct fx *f)
{
	char wal[PATH_MAX + 8];

	exec(f->w, "CHECKPOINT");
	snprintf(wal, sizeof(wal), "%s.wal", f->path);
	unlink(wal);
	assert_int_equal(symlink("/dev/full", wal), 0);
}

static void test_failed_commit_makes_it_suspect(void **state)
{
	struct fx *f = *state;
	struct sl_err why = SL_ERR_INIT;
	struct wh *other, *third = NULL;
	struct wh_appender *ap = NULL;
	struct wh_result *r = NULL;
	int64_t n = 0;

	assert_int_equal(wh_open_duckdb(f->path, false, &f->w, &f->err), 0);
	exec(f->w, "CREATE TABLE t (i INTEGER)");
	assert_int_equal(wh_connect(f->w, &other, &f->err), 0);
	fill_the_disk(f);
	assert_false(wh_suspect(f->w, &why));
	assert_int_equal(why.code, 0);
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	exec(f->w, "INSERT INTO t VALUES (1)");
	assert_int_equal(wh_commit(f->w, &f->err), SL_E_SUSPECT);
	assert_int_equal(f->err.code, SL_E_SUSPECT);
	assert_non_null(strstr(f->err.msg, "Failed to commit"));
	assert_non_null(strstr(f->err.msg, "No space left on device"));
	/* every connection of the database knows it, and why */
	assert_true(wh_suspect(other, &why));
	assert_int_equal(why.code, SL_E_SUSPECT);
	assert_string_equal(why.msg, f->err.msg);
	/* nothing reaches the database any more, not even a read */
	assert_int_equal(wh_exec(other, "SELECT 1", &f->err), SL_E_SUSPECT);
	assert_string_equal(f->err.msg, why.msg);
	assert_int_equal(wh_query(other, "SELECT 1", &r, &f->err), SL_E_SUSPECT);
	assert_null(r);
	assert_int_equal(wh_query_int_args(other, "SELECT $1::INTEGER", &WH_INT(1), 1, &n, &f->err),
			 SL_E_SUSPECT);
	assert_int_equal(wh_appender_open(other, "main", "t", &ap, &f->err), SL_E_SUSPECT);
	assert_null(ap);
	assert_int_equal(wh_connect(other, &third, &f->err), SL_E_SUSPECT);
	assert_null(third);
	/* closing lets go of the connection and leaves the database as it is */
	wh_close(other);
	assert_true(wh_suspect(f->w, NULL));
}

/* A statement outside a transaction commits on its own, and its failed
 * commit is as much in doubt. */
static void test_failed_autocommit_makes_it_suspect(void **state)
{
	struct fx *f = *state;

	assert_int_equal(wh_open_duckdb(f->path, false, &f->w, &f->err), 0);
	exec(f->w, "CREATE TABLE t (i INTEGER)");
	fill_the_disk(f);
	assert_int_equal(wh_exec(f->w, "INSERT INTO t VALUES (1)", &f->err), SL_E_SUSPECT);
	assert_non_null(strstr(f->err.msg, "No space left on device"));
	assert_true(wh_suspect(f->w, NULL));
}

/* What a statement or its data did wrong leaves the database sound. */
static void test_ordinary_failures_leave_it_sound(void **state)
{
	struct fx *f = *state;
	const char *bad[] = { "nine" };
	struct wh_appender *ap;
	struct wh *other;

	assert_int_equal(wh_open_duckdb(f->path, false, &f->w, &f->err), 0);
	exec(f->w, "CREATE TABLE t (i INTEGER PRIMARY KEY)");
	assert_int_equal(wh_connect(f->w, &other, &f->err), 0);
	assert_int_equal(wh_exec(f->w, "SELEC 1", &f->err), SL_E_SQL);
	assert_int_equal(wh_exec(f->w, "INSERT INTO t VALUES ('nine')", &f->err), SL_E_SQL);
	assert_int_equal(wh_exec(f->w, "SELECT * FROM read_csv('/nonexistent/x.csv')", &f->err),
			 SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "IO Error"));
	/* a value its column refuses, through the appender */
	assert_int_equal(wh_appender_open(f->w, "main", "t", &ap, &f->err), 0);
	assert_int_equal(wh_appender_row(ap, bad, 1, &f->err), SL_E_SQL);
	wh_appender_close(ap);
	/* a key taken twice, within a transaction and between two: the second
	 * commit is refused before it writes anything */
	exec(f->w, "INSERT INTO t VALUES (1)");
	assert_int_equal(wh_exec(f->w, "INSERT INTO t VALUES (1)", &f->err), SL_E_SQL);
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	assert_int_equal(wh_begin(other, &f->err), 0);
	exec(f->w, "INSERT INTO t VALUES (2)");
	exec(other, "INSERT INTO t VALUES (2)");
	assert_int_equal(wh_commit(f->w, &f->err), 0);
	assert_int_equal(wh_commit(other, &f->err), SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "Failed to commit"));
	assert_non_null(strstr(f->err.msg, "constraint violation"));
	wh_rollback(other);
	assert_false(wh_suspect(f->w, NULL));
	assert_false(wh_suspect(other, NULL));
	exec(other, "INSERT INTO t VALUES (3)");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM t"), 3);
	wh_close(other);
}

static void test_sql_qualified(void **state)
{
	struct fx *f = *state;
	struct buf b = BUF_INIT;

	open_memory(f);
	wh_sql_qualified(&b, "silver", "My \"Table\"");
	assert_string_equal(b.buf, "\"silver\".\"My \"\"Table\"\"\"");
	buf_release(&b);
}

static void test_swap_in(void **state)
{
	struct fx *f = *state;
	struct buf sql = BUF_INIT;
	const char *kind;

	open_memory(f);
	exec(f->w, "CREATE SCHEMA s;\n"
		   "CREATE VIEW s.x AS SELECT 1 AS old;\n"
		   "CREATE TABLE s.x__new AS SELECT * FROM range(3) t(n)");
	/* a view replaced by a table */
	wh_sql_swap_in(f->w, &sql, "s", "x__new", "x", "view");
	exec(f->w, sql.buf);
	assert_int_equal(wh_relation_kind(f->w, f->a, "s", "x", &kind, &f->err), 0);
	assert_string_equal(kind, "table");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM s.x"), 3);
	assert_int_equal(wh_relation_kind(f->w, f->a, "s", "x__new", &kind, &f->err), 0);
	assert_null(kind);

	/* a table replaced by a table */
	buf_reset(&sql);
	exec(f->w, "CREATE TABLE s.x__new AS SELECT 7 AS n");
	wh_sql_swap_in(f->w, &sql, "s", "x__new", "x", "table");
	exec(f->w, sql.buf);
	assert_int_equal(query_int(f->w, "SELECT n FROM s.x"), 7);

	/* nothing there before */
	buf_reset(&sql);
	exec(f->w, "CREATE TABLE s.y__new AS SELECT 8 AS n");
	wh_sql_swap_in(f->w, &sql, "s", "y__new", "y", NULL);
	exec(f->w, sql.buf);
	assert_int_equal(query_int(f->w, "SELECT n FROM s.y"), 8);

	/* inside a transaction that rolls back, the old relation stays */
	buf_reset(&sql);
	exec(f->w, "CREATE TABLE s.y__new AS SELECT 9 AS n");
	wh_sql_swap_in(f->w, &sql, "s", "y__new", "y", "table");
	assert_int_equal(wh_begin(f->w, &f->err), 0);
	exec(f->w, sql.buf);
	assert_int_equal(query_int(f->w, "SELECT n FROM s.y"), 9);
	wh_rollback(f->w);
	assert_int_equal(query_int(f->w, "SELECT n FROM s.y"), 8);
	buf_release(&sql);
}

/* The dialect's cases, on this in-memory DuckDB. */
static struct fx *dialect_open(void **state)
{
	struct fx *f = *state;

	open_memory(f);
	return f;
}

#include "wh_dialect_cases.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_locked_by_another_process),
		T(test_open_memory),
		T(test_leave_cores),
		T(test_exec_and_errors),
		T(test_query_values),
		T(test_nested_values_are_not_null),
		T(test_value_with_nul_bytes),
		T(test_nulls),
		T(test_several_chunks),
		T(test_values_read_as_duckdb_casts_them),
		T(test_types_cast_in_sql),
		T(test_query_shapes),
		T(test_query_int),
		T(test_rows_changed),
		T(test_exec_args),
		T(test_forget_statement),
		T(test_rollback),
		T(test_exec_atomic),
		T(test_memo),
		T(test_appender),
		T(test_exec_args_follows_the_transaction),
		T(test_appender_typed_values),
		T(test_appender_many_rows),
		T(test_appender_follows_the_table),
		T(test_appender_rows_are_private),
		T(test_relation_kind),
		T(test_relation_list),
		T(test_table_columns),
		T(test_file_database),
		T(test_not_a_database),
		T(test_cannot_open),
		T(test_failed_commit_makes_it_suspect),
		T(test_failed_autocommit_makes_it_suspect),
		T(test_ordinary_failures_leave_it_sound),
		T(test_sql_qualified),
		T(test_swap_in),
		DIALECT_CASES(T),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, fixture_db_group_teardown);
}
