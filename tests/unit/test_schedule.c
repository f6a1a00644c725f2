/*
 * Coalescing of advances into cycles, on made-up clocks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "live/schedule.h"
#include "project/config.h"

static struct live_schedule fresh(int64_t debounce, int64_t max_latency, int64_t min_interval)
{
	struct live_cfg cfg = { .debounce_ms = debounce,
				.max_latency_ms = max_latency,
				.min_interval_ms = min_interval };
	struct live_schedule s;

	live_schedule_init(&s, &cfg);
	return s;
}

static void test_nothing_waiting(void **state)
{
	struct live_schedule s = fresh(200, 5000, 1000);

	(void)state;
	assert_int_equal(live_schedule_wait(&s, 1000), -1);
}

static void test_debounce_closes_a_quiet_batch(void **state)
{
	struct live_schedule s = fresh(200, 5000, 1000);

	(void)state;
	live_schedule_advance(&s, 10000);
	assert_int_equal(live_schedule_wait(&s, 10000), 200);
	assert_int_equal(live_schedule_wait(&s, 10150), 50);
	assert_int_equal(live_schedule_wait(&s, 10200), 0);
	/* a new advance pushes the close back */
	live_schedule_advance(&s, 10100);
	assert_int_equal(live_schedule_wait(&s, 10150), 150);
}

static void test_max_latency_caps_a_busy_batch(void **state)
{
	struct live_schedule s = fresh(200, 1000, 0);
	int64_t t;

	(void)state;
	/* an advance every 100 ms would hold the batch open for ever */
	for (t = 0; t < 1000; t += 100) {
		live_schedule_advance(&s, 50000 + t);
		if (t < 900)
			assert_true(live_schedule_wait(&s, 50000 + t) > 0);
	}
	assert_int_equal(live_schedule_wait(&s, 51000), 0);
}

static void test_min_interval_spaces_cycles(void **state)
{
	struct live_schedule s = fresh(0, 5000, 1000);

	(void)state;
	live_schedule_advance(&s, 1000);
	assert_int_equal(live_schedule_wait(&s, 1000), 0);
	live_schedule_cycle(&s, 1000);
	assert_int_equal(live_schedule_wait(&s, 1000), -1);
	live_schedule_advance(&s, 1100);
	assert_int_equal(live_schedule_wait(&s, 1100), 900);
	assert_int_equal(live_schedule_wait(&s, 2000), 0);
}

static void test_thousand_commits_few_cycles(void **state)
{
	struct live_schedule s = fresh(200, 5000, 1000);
	int cycles = 0;

	(void)state;
	/* a commit every 2 ms for 2 s, the runner checking every ms */
	for (int64_t now = 100000; now < 102500; now++) {
		if (now < 102000 && now % 2 == 0)
			live_schedule_advance(&s, now);
		if (live_schedule_wait(&s, now) == 0) {
			live_schedule_cycle(&s, now);
			cycles++;
		}
	}
	assert_int_equal(cycles, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_waiting),
		cmocka_unit_test(test_debounce_closes_a_quiet_batch),
		cmocka_unit_test(test_max_latency_caps_a_busy_batch),
		cmocka_unit_test(test_min_interval_spaces_cycles),
		cmocka_unit_test(test_thousand_commits_few_cycles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
