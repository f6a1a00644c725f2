/*
 * When a warehouse connection counts as lost and when to open it again
 * (src/warehouse/reconnect.c): the server's codes for a session that is
 * gone, apart from a statement's own failures; the wait between attempts,
 * doubling from 100 ms to 5 s; no attempt before it is due, the first at
 * once, and the waits starting over once the connection is back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "warehouse/reconnect.h"

static void test_lost_states(void **state)
{
	static const char *const lost[] = { "08000", "08003", "08006", "08001", "08P01",
					    "57P01", "57P02", "57P03" };
	static const char *const not_lost[] = { "57014", "40001", "40P01", "42P01", "23505",
						"22P02", "53100", "XX000", "" };

	(void)state;
	for (size_t i = 0; i < sizeof(lost) / sizeof(*lost); i++)
		assert_true(wh_reconnect_lost_state(lost[i]));
	for (size_t i = 0; i < sizeof(not_lost) / sizeof(*not_lost); i++)
		assert_false(wh_reconnect_lost_state(not_lost[i]));
	assert_false(wh_reconnect_lost_state(NULL));
}

static void test_wait_doubles_to_five_seconds(void **state)
{
	static const int64_t want[] = { 0, 100, 200, 400, 800, 1600, 3200, 5000, 5000 };

	(void)state;
	for (int i = 0; i < 9; i++)
		assert_int_equal(wh_reconnect_wait_ms(i), want[i]);
	assert_int_equal(wh_reconnect_wait_ms(100000), 5000);
}

static void test_attempts_wait_their_turn(void **state)
{
	struct wh_reconnect r = { 0 };

	(void)state;
	/* the first attempt after a loss is at once */
	assert_true(wh_reconnect_due(&r, 1000));
	wh_reconnect_failed(&r, 1000);
	assert_int_equal(r.failures, 1);
	assert_false(wh_reconnect_due(&r, 1000));
	assert_false(wh_reconnect_due(&r, 1099));
	assert_true(wh_reconnect_due(&r, 1100));
	wh_reconnect_failed(&r, 1100);
	assert_false(wh_reconnect_due(&r, 1299));
	assert_true(wh_reconnect_due(&r, 1300));
	wh_reconnect_failed(&r, 1300);
	assert_false(wh_reconnect_due(&r, 1699));
	assert_true(wh_reconnect_due(&r, 1700));
	/* back: the next loss is tried at once, and waits from 100 ms again */
	wh_reconnect_done(&r);
	assert_true(wh_reconnect_due(&r, 1700));
	wh_reconnect_failed(&r, 5000);
	assert_false(wh_reconnect_due(&r, 5099));
	assert_true(wh_reconnect_due(&r, 5100));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_states),
		cmocka_unit_test(test_wait_doubles_to_five_seconds),
		cmocka_unit_test(test_attempts_wait_their_turn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
