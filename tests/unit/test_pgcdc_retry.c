/*
 * Trying a postgres_cdc consumer again (pgcdc_retry.c): the backoff
 * doubles from 1 s to 60 s, each failure and the recovery after them are
 * logged once, a recovery takes progress or 5 s of streaming, the
 * attempts' figures add up without an LSN going back, and only connection
 * trouble is worth another attempt.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "core/units.h"
#include "pgcdc/pgcdc_retry.h"

#include <stdlib.h>
#include <string.h>

static void test_backoff_doubles_to_a_minute(void **state)
{
	static const int64_t want[] = { 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000 };

	(void)state;
	for (int i = 0; i < 8; i++)
		assert_int_equal(pgcdc_retry_backoff_ms(i + 1), want[i]);
	assert_int_equal(pgcdc_retry_backoff_ms(1000), 60000);
}

static void test_failures_and_recovery_logged(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	struct pgcdc_retry r;
	struct pgcdc_stats st = { .snapshot_rows = -1 };
	char *text = NULL;
	size_t len = 0;
	FILE *log = open_memstream(&text, &len);
	int64_t before = units_mono_ms();

	(void)state;
	pgcdc_retry_init(&r, "shop", log);
	pgcdc_retry_progress(&r, &st, true, before); /* nothing failed: nothing to say */
	sl_err_set(&err, SL_E_IO, "source database: cannot connect: refused");
	pgcdc_retry_failed(&r, err.code, &err);
	assert_int_equal(r.failures, 1);
	assert_string_equal(r.last_error, "source database: cannot connect: refused");
	assert_true(r.next_attempt_ms >= before + 1000);
	assert_true(r.next_attempt_ms <= units_mono_ms() + 1000);
	/* 0: the server ended the stream without an error */
	pgcdc_retry_failed(&r, 0, NULL);
	assert_int_equal(r.failures, 2);
	assert_string_equal(r.last_error, "the server ended the replication stream");
	pgcdc_retry_progress(&r, &st, true, r.next_attempt_ms);
	assert_int_equal(r.failures, 0);
	/* the last error stays for the status to show */
	assert_string_equal(r.last_error, "the server ended the replication stream");
	pgcdc_retry_progress(&r, &st, true, r.next_attempt_ms);
	fclose(log);
	assert_string_equal(text, "slot shop: source database: cannot connect: refused (attempt 1; "
				  "again in 1000 ms)\n"
				  "slot shop: the server ended the replication stream (attempt 2; "
				  "again in 2000 ms)\n"
				  "slot shop: streaming again\n");
	free(text);
}

/* A failure of several lines (a hint, the source and slot it happened
 * in) is logged with its attempt on its first line, which names the slot. */
static void test_failure_lines_logged(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	struct pgcdc_retry r;
	char *text = NULL;
	size_t len = 0;
	FILE *log = open_memstream(&text, &len);

	(void)state;
	pgcdc_retry_init(&r, "shop", log);
	sl_err_set(&err, SL_E_IO, "publication \"p\" does not exist\n  hint: make it");
	sl_err_context(&err, "in source orders (slot shop)");
	pgcdc_retry_failed(&r, err.code, &err);
	fclose(log);
	assert_string_equal(r.last_error, "publication \"p\" does not exist\n  hint: make it\n"
					  "  in source orders (slot shop)");
	assert_string_equal(text, "slot shop: publication \"p\" does not exist (attempt 1; again in "
				  "1000 ms)\n  hint: make it\n  in source orders (slot shop)\n");
	free(text);
}

/* An attempt that reached the server and heard from it (a keepalive)
 * before it failed at the same change again is no recovery: the backoff
 * grows. Landing, confirming beyond where it stood when first heard of,
 * or 5 s since then is; the wait before it (or a slow start) does not
 * count towards the 5 s. */
static void test_recovery_takes_progress_or_time(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	struct pgcdc_stats st = { .landed_lsn = 500, .confirmed_lsn = 600, .snapshot_rows = -1 };
	struct pgcdc_retry r;
	int64_t heard;

	(void)state;
	pgcdc_retry_init(&r, "shop", NULL);
	sl_err_set(&err, SL_E_IO, "source database: replication stream: ERROR: out of memory");
	for (int i = 1; i <= 4; i++) {
		pgcdc_retry_failed(&r, err.code, &err);
		heard = r.next_attempt_ms + 30000;
		pgcdc_retry_progress(&r, &st, false, heard);
		pgcdc_retry_progress(&r, &st, false, heard + 4999);
		assert_int_equal(r.failures, i);
	}
	assert_true(r.next_attempt_ms - units_mono_ms() > 4000);
	pgcdc_retry_progress(&r, &st, false, heard + 5000);
	assert_int_equal(r.failures, 0);

	/* confirmed beyond where it stood when first heard of */
	pgcdc_retry_failed(&r, err.code, &err);
	pgcdc_retry_progress(&r, &st, false, r.next_attempt_ms);
	st.confirmed_lsn = 601;
	pgcdc_retry_progress(&r, &st, false, r.next_attempt_ms);
	assert_int_equal(r.failures, 0);

	/* a landing, even in the first word heard */
	pgcdc_retry_failed(&r, err.code, &err);
	pgcdc_retry_progress(&r, &st, true, r.next_attempt_ms);
	assert_int_equal(r.failures, 0);

	/* each attempt is heard of anew: the last one's time does not carry */
	pgcdc_retry_failed(&r, err.code, &err);
	pgcdc_retry_progress(&r, &st, false, r.next_attempt_ms);
	pgcdc_retry_failed(&r, err.code, &err);
	pgcdc_retry_progress(&r, &st, false, r.next_attempt_ms + 6000);
	assert_int_equal(r.failures, 2);
}

static void test_attempts_add_up(void **state)
{
	struct pgcdc_retry r;
	struct pgcdc_stats first = { .txns = 3, .rows = 7, .skipped = 1, .landed_lsn = 500,
				     .confirmed_lsn = 600, .snapshot_rows = 40 };
	/* failed before it read the stored LSNs */
	struct pgcdc_stats early = { .snapshot_rows = -1 };
	struct pgcdc_stats later = { .txns = 2, .rows = 2, .skipped = 2, .landed_lsn = 900,
				     .confirmed_lsn = 950, .snapshot_rows = -1 };

	(void)state;
	pgcdc_retry_init(&r, "shop", NULL);
	assert_int_equal(r.total.snapshot_rows, -1);
	pgcdc_retry_ended(&r, &first);
	pgcdc_retry_ended(&r, &early);
	assert_int_equal(r.total.landed_lsn, 500);
	assert_int_equal(r.total.confirmed_lsn, 600);
	pgcdc_retry_ended(&r, &later);
	assert_int_equal(r.total.txns, 5);
	assert_int_equal(r.total.rows, 9);
	assert_int_equal(r.total.skipped, 3);
	assert_int_equal(r.total.landed_lsn, 900);
	assert_int_equal(r.total.confirmed_lsn, 950);
	assert_int_equal(r.total.snapshot_rows, 40);
}

static void test_only_connection_trouble_mends(void **state)
{
	(void)state;
	assert_true(pgcdc_retry_mends(0));
	assert_true(pgcdc_retry_mends(SL_E_IO));
	/* the warehouse's connection lost: the next attempt opens it again */
	assert_true(pgcdc_retry_mends(SL_E_CONN));
	assert_false(pgcdc_retry_mends(SL_E_CONFIG));
	assert_false(pgcdc_retry_mends(SL_E_USAGE));
	assert_false(pgcdc_retry_mends(SL_E_NOTFOUND));
	assert_false(pgcdc_retry_mends(SL_E_INVALID));
	assert_false(pgcdc_retry_mends(SL_E_PARSE));
	assert_false(pgcdc_retry_mends(SL_E_SQL));
	assert_false(pgcdc_retry_mends(SL_E_SUSPECT));
}

/* What the server raises on the stream: a missing publication (42704)
 * comes again at the same change; a lock not granted (55P03), the server
 * going down, out of memory, a privilege or a function an administrator
 * may mend, or a lost connection, may not. */
static void test_stream_errors_that_come_again(void **state)
{
	(void)state;
	assert_int_equal(pgcdc_retry_stream_code("42704"), SL_E_INVALID);
	assert_int_equal(pgcdc_retry_stream_code("42501"), SL_E_IO);
	assert_int_equal(pgcdc_retry_stream_code("42883"), SL_E_IO);
	assert_int_equal(pgcdc_retry_stream_code("55P03"), SL_E_IO);
	assert_int_equal(pgcdc_retry_stream_code("55000"), SL_E_IO);
	assert_int_equal(pgcdc_retry_stream_code("57P01"), SL_E_IO);
	assert_int_equal(pgcdc_retry_stream_code("53200"), SL_E_IO);
	assert_int_equal(pgcdc_retry_stream_code("08006"), SL_E_IO);
	assert_int_equal(pgcdc_retry_stream_code("XX000"), SL_E_IO);
	assert_int_equal(pgcdc_retry_stream_code("4270"), SL_E_IO);
	assert_int_equal(pgcdc_retry_stream_code(""), SL_E_IO);
	assert_int_equal(pgcdc_retry_stream_code(NULL), SL_E_IO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backoff_doubles_to_a_minute),
		cmocka_unit_test(test_failures_and_recovery_logged),
		cmocka_unit_test(test_failure_lines_logged),
		cmocka_unit_test(test_recovery_takes_progress_or_time),
		cmocka_unit_test(test_attempts_add_up),
		cmocka_unit_test(test_only_connection_trouble_mends),
		cmocka_unit_test(test_stream_errors_that_come_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
