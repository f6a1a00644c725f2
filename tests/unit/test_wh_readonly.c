/*
 * A reader's query on DuckDB (wh_query_readonly, duckdb_read.c): what is
 * refused and by which check (the statement count, the parse tree's table
 * functions and file names, the statement type, the READ ONLY
 * transaction), what stays unchanged after a refusal, and the bounds on
 * rows, bytes and time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "warehouse/duckdb_read.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct wh *db;

#include "readonly_cases.h"

static int group_setup(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	if (wh_open_duckdb(":memory:", false, &db, &err) ||
	    wh_exec(db, "CREATE TABLE t (id BIGINT, name VARCHAR); "
			"INSERT INTO t VALUES (1, 'a'), (2, NULL), (3, 'c'); "
			"CREATE SEQUENCE ids",
		    &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	wh_close(db);
	return 0;
}

static int refusal(const char *sql, char *msg, size_t size)
{
	struct wh_result *r = NULL;
	bool truncated;
	int rc = reads(sql, &roomy, &r, &truncated, msg, size);

	assert_null(r);
	return rc;
}

static int64_t count_rows(void)
{
	int64_t n = -1;

	assert_int_equal(wh_query_int(db, "SELECT count(*) FROM t", &n, NULL), 0);
	return n;
}

static void test_a_query_reads(void **state)
{
	struct wh_result *r;
	bool truncated = true;
	char msg[4096];

	(void)state;
	assert_int_equal(reads("-- a comment first\nSELECT id, name FROM t ORDER BY id", &roomy,
			       &r, &truncated, msg, sizeof(msg)),
			 0);
	assert_false(truncated);
	assert_int_equal(wh_result_nrows(r), 3);
	assert_string_equal(wh_result_colname(r, 1), "name");
	assert_null(wh_result_value(r, 1, 1));
	assert_string_equal(wh_result_value(r, 2, 1), "c");
	wh_result_free(r);
	/* and the connection is out of its transaction: it writes again */
	assert_int_equal(wh_exec(db, "CREATE TABLE after_read (x INT); DROP TABLE after_read", NULL),
			 0);
}

static void test_writes_refused_by_statement_type(void **state)
{
	static const char *const writes[] = {
		"INSERT INTO t VALUES (9, 'x')",
		"UPDATE t SET name = 'x'",
		"DELETE FROM t",
		"DROP TABLE t",
		"CREATE TABLE u AS SELECT 1",
		"COPY t TO '/tmp/sluice-unit-copied.csv'",
		"COPY (SELECT 1) TO '/tmp/sluice-unit-copied.csv'",
		"EXPORT DATABASE '/tmp/sluice-unit-exported'",
		"ATTACH ':memory:' AS other",
		"PRAGMA version",
		"SET threads = 1",
		"BEGIN TRANSACTION",
		"CALL pragma_version()",
		"CHECKPOINT",
		"EXPLAIN ANALYZE DELETE FROM t",
		"INSTALL httpfs",
		"LOAD httpfs",
	};
	char msg[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(writes) / sizeof(*writes); i++) {
		assert_int_equal(refusal(writes[i], msg, sizeof(msg)), SL_E_USAGE);
		assert_non_null(strstr(msg, "only a query"));
	}
	/* SET and PRAGMA are statements: no query holds one */
	assert_int_equal(refusal("SELECT * FROM (PRAGMA version)", msg, sizeof(msg)), SL_E_SQL);
	assert_int_equal(refusal("SELECT 1 FROM t WHERE (SET threads = 1)", msg, sizeof(msg)),
			 SL_E_SQL);
	assert_int_equal(count_rows(), 3);
	assert_int_equal(access("/tmp/sluice-unit-copied.csv", F_OK), -1);
}

static void test_one_query_only(void **state)
{
	char msg[4096];

	(void)state;
	/* a write after a query is refused as a write, two queries as two */
	assert_int_equal(refusal("SELECT 1; DROP TABLE t", msg, sizeof(msg)), SL_E_USAGE);
	assert_int_equal(refusal("SELECT 1; SELECT 2", msg, sizeof(msg)), SL_E_USAGE);
	assert_string_equal(msg, "2 statements: a read through the server runs one query at a time");
	assert_int_equal(count_rows(), 3);
}

static void test_files_refused(void **state)
{
	static const char *const files[] = {
		"SELECT * FROM read_text('/etc/passwd')",
		"SELECT * FROM read_csv_auto('/etc/passwd')",
		"SELECT * FROM '/etc/passwd'",
		"SELECT * FROM 'data.csv'",
		"SELECT * FROM 's3://bucket/key'",
		"SELECT * FROM glob('/etc/*')",
		"SELECT id FROM t WHERE id IN (SELECT 1 FROM read_blob('/etc/hostname'))",
		"SELECT (SELECT count(*) FROM read_text('/etc/passwd')) AS n",
		"WITH x AS (SELECT * FROM read_parquet('x.parquet')) SELECT * FROM x",
		"SELECT * FROM query('DELETE FROM t')",
		"SELECT * FROM query_table('t')",
	};
	char msg[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		assert_int_equal(refusal(files[i], msg, sizeof(msg)), SL_E_USAGE);
		assert_non_null(strstr(msg, "refused"));
	}
	assert_int_equal(count_rows(), 3);
}

/* A replacement scan joins a name's parts into a path (secrets.csv is
 * schema secrets, table csv), and DESCRIBE, SUMMARIZE and SHOW read what
 * they name: each is refused wherever it stands in the query, while the
 * same file is read by a trusted query. */
static void test_files_by_name_refused(void **state)
{
	static const char *const files[] = {
		"SELECT * FROM secrets.csv",
		"FROM secrets.\"csv\"",
		"SELECT * FROM \"%s/secrets\".csv",
		"SELECT * FROM \"secrets.csv\"",
		"SELECT * FROM memory.secrets.csv",
		"DESCRIBE secrets.csv",
		"SUMMARIZE secrets.csv",
		"SHOW secrets.csv",
		"DESCRIBE 'secrets.csv'",
		"SUMMARIZE '%s/secrets.csv'",
		"SELECT * FROM t, LATERAL (SELECT * FROM secrets.csv)",
		"SELECT 'x' UNION ALL SELECT * FROM secrets.csv",
		"SELECT * FROM t EXCEPT SELECT 1, * FROM secrets.csv",
		"WITH c AS (FROM secrets.csv) FROM c",
		"WITH RECURSIVE c AS (SELECT 1 AS x UNION ALL SELECT 1 FROM secrets.csv) FROM c",
		"SELECT (SELECT count(*) FROM secrets.csv) AS n",
		"SELECT * FROM t WHERE EXISTS (SELECT 1 FROM secrets.csv)",
		"SELECT * FROM t JOIN secrets.csv ON true",
		"SELECT * FROM t, LATERAL (SELECT * FROM read_text('secrets.csv'))",
		"SELECT 'x' UNION SELECT content FROM read_text('secrets.csv')",
	};
	char dir[] = "/tmp/sluice-readonly-XXXXXX", cwd[4096], sql[4096], path[4200], msg[4096];
	struct wh_result *r;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(path, sizeof(path), "%s/secrets.csv", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("secret\nhidden\n", f);
	fclose(f);
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(wh_query(db, "SELECT * FROM secrets.csv", &r, NULL), 0);
	assert_string_equal(wh_result_value(r, 0, 0), "hidden");
	wh_result_free(r);
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		snprintf(sql, sizeof(sql), files[i], dir);
		assert_int_equal(refusal(sql, msg, sizeof(msg)), SL_E_USAGE);
		assert_non_null(strstr(msg, "refused"));
	}
	assert_int_equal(chdir(cwd), 0);
	unlink(path);
	rmdir(dir);
}

static void test_generators_and_catalog_read(void **state)
{
	static const char *const ok[] = {
		"SELECT * FROM range(3)",
		"SELECT * FROM generate_series(1, 3)",
		"SELECT * FROM duckdb_tables()",
		"DESCRIBE t",
		"SELECT table_name FROM information_schema.tables",
		"SELECT * FROM main.t",
		"SELECT * FROM memory.t",
		"SELECT * FROM memory.main.t",
		"SELECT * FROM \"T\"",
		"SELECT count(*) FROM pg_catalog.pg_class",
		"SELECT * FROM system.information_schema.tables",
		"SHOW TABLES",
		"SHOW ALL TABLES",
		"SUMMARIZE t",
		"WITH c AS (SELECT 1 AS x) SELECT * FROM c",
	};
	struct wh_result *r;
	bool truncated;
	char msg[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		assert_int_equal(reads(ok[i], &roomy, &r, &truncated, msg, sizeof(msg)), 0);
		wh_result_free(r);
	}
}

/* What gets past the checks and still would write fails in the READ ONLY
 * transaction, and the sequence stays where it was. */
static void test_read_only_transaction(void **state)
{
	int64_t next = 0;
	char msg[4096];

	(void)state;
	assert_int_equal(refusal("SELECT nextval('ids') AS n", msg, sizeof(msg)), SL_E_SQL);
	assert_non_null(strstr(msg, "read-only"));
	assert_int_equal(wh_query_int(db, "SELECT nextval('ids')", &next, NULL), 0);
	assert_int_equal(next, 1);
}

static void test_rows_and_bytes_bounded(void **state)
{
	struct wh_read_limits lim = roomy;
	struct wh_result *r;
	bool truncated;
	char msg[4096];

	(void)state;
	lim.max_rows = 2;
	assert_int_equal(reads("SELECT * FROM range(100000000000)", &lim, &r, &truncated, msg,
			       sizeof(msg)),
			 0);
	assert_true(truncated);
	assert_int_equal(wh_result_nrows(r), 2);
	wh_result_free(r);
	lim.max_rows = 3;
	assert_int_equal(reads("SELECT * FROM range(3)", &lim, &r, &truncated, msg, sizeof(msg)), 0);
	assert_false(truncated);
	wh_result_free(r);
	lim = roomy;
	lim.max_bytes = 10000;
	assert_int_equal(reads("SELECT repeat('x', 1000) AS v FROM range(100000)", &lim, &r,
			       &truncated, msg, sizeof(msg)),
			 0);
	assert_true(truncated);
	assert_true(wh_result_nrows(r) < 100000);
	wh_result_free(r);
}

static void test_timeout_interrupts(void **state)
{
	struct wh_read_limits lim = roomy;
	struct wh_result *r;
	bool truncated;
	char msg[4096];

	(void)state;
	lim.timeout_ms = 200;
	assert_int_equal(reads("SELECT count(*) FROM range(100000000000) a(x), range(1000) b(y)",
			       &lim, &r, &truncated, msg, sizeof(msg)),
			 SL_E_BUSY);
	assert_string_equal(msg, "the query ran past its 200 ms and was stopped");
	/* the connection serves the next query */
	assert_int_equal(reads("SELECT 1", &roomy, &r, &truncated, msg, sizeof(msg)), 0);
	wh_result_free(r);
	assert_false(wh_suspect(db, NULL));
}

/* A watchdog that fires as the query ends must not leave the connection
 * in its transaction or unable to run the next one. */
static void test_timeout_at_the_end(void **state)
{
	struct wh_read_limits lim = roomy;
	struct wh_result *r;
	bool truncated;
	char msg[4096];
	int rc;

	(void)state;
	lim.timeout_ms = 1;
	for (int i = 0; i < 300; i++) {
		rc = reads("SELECT sum(x) AS s FROM range(20000) t(x)", &lim, &r, &truncated, msg,
			   sizeof(msg));
		if (rc != SL_E_BUSY)
			assert_int_equal(rc, 0);
		wh_result_free(r);
	}
	assert_int_equal(reads("SELECT 1", &roomy, &r, &truncated, msg, sizeof(msg)), 0);
	wh_result_free(r);
	assert_int_equal(wh_exec(db, "CREATE TABLE after_race (x INT); DROP TABLE after_race", NULL),
			 0);
}

static int no_relation(void *ctx, const char *catalog, const char *schema, const char *table,
		       bool *found, struct sl_err *err)
{
	(void)ctx;
	(void)catalog;
	(void)schema;
	(void)table;
	(void)err;
	*found = false;
	return 0;
}

static void test_tree_check(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	const struct duck_read_names names = { no_relation, NULL };

	(void)state;
	assert_int_equal(duck_read_check_tree("{\"error\":true,\"error_type\":\"not implemented\","
					      "\"error_message\":\"Only SELECT statements can be "
					      "serialized to json!\"}",
					      &names, &err),
			 SL_E_USAGE);
	assert_int_equal(duck_read_check_tree("{\"error\":true,\"error_message\":\"Parser Error: x\"}",
					      &names, &err),
			 SL_E_SQL);
	assert_string_equal(err.msg, "Parser Error: x");
	assert_int_equal(duck_read_check_tree("{\"error\":false,\"statements\":[{\"node\":{\"a\":[{"
					      "\"type\":\"TABLE_FUNCTION\",\"function\":{"
					      "\"function_name\":\"READ_TEXT\"}}]}}]}",
					      &names, &err),
			 SL_E_USAGE);
	assert_int_equal(duck_read_check_tree("{\"error\":false,\"statements\":[{\"node\":{"
					      "\"type\":\"TABLE_FUNCTION\",\"function\":{"
					      "\"function_name\":\"Range\"}},\"at\":"
					      "18446744073709551615}]}",
					      &names, &err),
			 0);
	assert_int_equal(duck_read_check_tree("not json", &names, &err), SL_E_INTERNAL);
}

/* A query DuckDB fails with an internal error is an error of that query
 * alone: the database is not put in doubt, the next write goes through,
 * and the message carries no stack. */
static void test_internal_error_of_a_read(void **state)
{
	struct wh_result *r = NULL;
	bool truncated;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(wh_query_readonly(db,
					   "SELECT * FROM range(3) t1(a) ASOF JOIN range(3) t2(a) ON "
					   "t1.a >= t2.a AND t1.a = (SELECT 1)",
					   &roomy, &r, &truncated, &err),
			 SL_E_SQL);
	assert_non_null(strstr(err.msg, "INTERNAL Error"));
	assert_null(strstr(err.msg, "Stack Trace"));
	assert_false(wh_suspect(db, NULL));
	assert_int_equal(wh_exec(db, "CREATE TABLE after_internal (x INT); DROP TABLE "
				     "after_internal",
				 NULL),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_query_reads),
		cmocka_unit_test(test_internal_error_of_a_read),
		cmocka_unit_test(test_writes_refused_by_statement_type),
		cmocka_unit_test(test_one_query_only),
		cmocka_unit_test(test_files_refused),
		cmocka_unit_test(test_files_by_name_refused),
		cmocka_unit_test(test_generators_and_catalog_read),
		cmocka_unit_test(test_read_only_transaction),
		cmocka_unit_test(test_rows_and_bytes_bounded),
		cmocka_unit_test(test_bytes_bounded_per_row),
		cmocka_unit_test(test_offset_pages),
		cmocka_unit_test(test_timeout_interrupts),
		cmocka_unit_test(test_timeout_at_the_end),
		cmocka_unit_test(test_tree_check),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
