/*
 * A reader's query on PostgreSQL (wh_query_readonly in postgres_readonly.c), on the
 * suite's server (SLUICE_TEST_PG): a cursor in a READ ONLY transaction,
 * so that writes, several statements and data-modifying WITH are refused
 * and what would still write (nextval) fails; rows and bytes bounded, a
 * row at a time, one deadline stops a slow query however it is slow, and
 * the connection serves the next one, out of any transaction and without
 * the advisory locks the query took.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_pg.h"

#include "core/err.h"
#include "core/units.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct wh *db;

#include "readonly_cases.h"

static int group_setup(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	db = fixture_pg_open();
	if (wh_exec(db, "DROP SCHEMA IF EXISTS ro CASCADE; CREATE SCHEMA ro; "
			"CREATE TABLE ro.t (id BIGINT, name TEXT); "
			"INSERT INTO ro.t VALUES (1, 'a'), (2, NULL), (3, 'c'); "
			"CREATE SEQUENCE ro.ids",
		    &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	wh_exec(db, "DROP SCHEMA IF EXISTS ro CASCADE", NULL);
	wh_close(db);
	return 0;
}

static int64_t count_rows(void)
{
	int64_t n = -1;

	assert_int_equal(wh_query_int(db, "SELECT count(*) FROM ro.t", &n, NULL), 0);
	return n;
}

static void test_a_query_reads(void **state)
{
	struct wh_result *r;
	bool truncated = true;
	char msg[4096];

	(void)state;
	assert_int_equal(reads("-- first\nSELECT id, name FROM ro.t ORDER BY id;", &roomy, &r,
			       &truncated, msg, sizeof(msg)),
			 0);
	assert_false(truncated);
	assert_int_equal(wh_result_nrows(r), 3);
	assert_null(wh_result_value(r, 1, 1));
	wh_result_free(r);
	assert_int_equal(wh_exec(db, "CREATE TABLE ro.after (x INT); DROP TABLE ro.after", NULL), 0);
}

static void test_writes_refused(void **state)
{
	static const char *const writes[] = {
		"INSERT INTO ro.t VALUES (9, 'x')",
		"/* a comment */ DELETE FROM ro.t",
		"DROP TABLE ro.t",
		"COPY ro.t TO STDOUT",
		"SET TRANSACTION READ WRITE",
		"COMMIT",
		"SELECT 1; DELETE FROM ro.t",
		"SELECT nextval('ro.ids')",
	};
	struct wh_result *r = NULL;
	bool truncated;
	char msg[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(writes) / sizeof(*writes); i++) {
		assert_int_equal(reads(writes[i], &roomy, &r, &truncated, msg, sizeof(msg)),
				 SL_E_USAGE);
		assert_null(r);
	}
	/* refused by the cursor, not taken for the reader's syntax error */
	assert_int_equal(reads("WITH x AS (DELETE FROM ro.t RETURNING *) SELECT * FROM x", &roomy,
			       &r, &truncated, msg, sizeof(msg)),
			 SL_E_SQL);
	/* a first word that is no query's is no query, whatever it was meant
	 * to be; a syntax error further on is the query's own */
	assert_int_equal(reads("SELEC 1", &roomy, &r, &truncated, msg, sizeof(msg)), SL_E_USAGE);
	assert_string_equal(msg, "only a query may be read through the server (syntax error at or "
				 "near \"SELEC\")");
	assert_int_equal(reads("SELECT 1 FRM ro.t", &roomy, &r, &truncated, msg, sizeof(msg)),
			 SL_E_SQL);
	assert_int_equal(count_rows(), 3);
	assert_int_equal(wh_query_int(db, "SELECT nextval('ro.ids')", &(int64_t){ 0 }, NULL), 0);
}

static void test_bounded(void **state)
{
	struct wh_read_limits lim = roomy;
	struct wh_result *r;
	bool truncated;
	char msg[4096];

	(void)state;
	lim.max_rows = 2500;
	assert_int_equal(reads("SELECT * FROM generate_series(1, 1000000)", &lim, &r, &truncated,
			       msg, sizeof(msg)),
			 0);
	assert_true(truncated);
	assert_int_equal(wh_result_nrows(r), 2500);
	assert_string_equal(wh_result_value(r, 2499, 0), "2500");
	wh_result_free(r);
	lim = roomy;
	lim.max_bytes = 10000;
	assert_int_equal(reads("SELECT repeat('x', 1000) FROM generate_series(1, 100)", &lim, &r,
			       &truncated, msg, sizeof(msg)),
			 0);
	assert_true(truncated);
	wh_result_free(r);
	lim = roomy;
	lim.timeout_ms = 200;
	assert_int_equal(reads("SELECT pg_sleep(10)", &lim, &r, &truncated, msg, sizeof(msg)),
			 SL_E_BUSY);
	assert_string_equal(msg, "the query ran past its 200 ms and was stopped");
	assert_int_equal(reads("SELECT 1", &roomy, &r, &truncated, msg, sizeof(msg)), 0);
	wh_result_free(r);
}

/* One deadline for the whole read: a query that switches statement_timeout
 * off for the fetches after its first, or whose every fetch stays under
 * the limit, is stopped when timeout_ms have passed in all. */
static void test_one_deadline(void **state)
{
	static const char *const slow[] = {
		"SELECT set_config('statement_timeout', '0', true), "
		"pg_sleep(CASE WHEN g = 1001 THEN 4 ELSE 0 END) FROM generate_series(1, 1500) g",
		"SELECT pg_sleep(CASE WHEN g % 1000 = 0 THEN 0.5 ELSE 0 END) "
		"FROM generate_series(1, 5000) g",
	};
	struct wh_read_limits lim = roomy;
	struct wh_result *r = NULL;
	bool truncated;
	char msg[4096];

	(void)state;
	lim.timeout_ms = 1000;
	lim.max_rows = 10000;
	for (size_t i = 0; i < sizeof(slow) / sizeof(*slow); i++) {
		int64_t start = units_mono_ms();

		assert_int_equal(reads(slow[i], &lim, &r, &truncated, msg, sizeof(msg)), SL_E_BUSY);
		assert_null(r);
		assert_string_equal(msg, "the query ran past its 1000 ms and was stopped");
		assert_true(units_mono_ms() - start < 2500);
	}
	assert_int_equal(reads("SELECT 1", &roomy, &r, &truncated, msg, sizeof(msg)), 0);
	wh_result_free(r);
	assert_int_equal(wh_exec(db, "CREATE TABLE ro.after (x INT); DROP TABLE ro.after", NULL), 0);
}

/* A session's advisory lock a read takes ends with the read: another
 * session gets it at once. */
static void test_advisory_locks_released(void **state)
{
	struct wh_result *r;
	struct wh *other = fixture_pg_open();
	bool truncated = true;
	char msg[4096];
	int64_t got = 0;

	(void)state;
	assert_int_equal(reads("SELECT pg_advisory_lock(4242)", &roomy, &r, &truncated, msg,
			       sizeof(msg)),
			 0);
	wh_result_free(r);
	assert_int_equal(wh_query_int(other, "SELECT CAST(pg_try_advisory_lock(4242) AS INT)", &got,
				      NULL),
			 0);
	assert_int_equal(got, 1);
	wh_close(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_query_reads),
		cmocka_unit_test(test_writes_refused),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_bytes_bounded_per_row),
		cmocka_unit_test(test_offset_pages),
		cmocka_unit_test(test_one_deadline),
		cmocka_unit_test(test_advisory_locks_released),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
