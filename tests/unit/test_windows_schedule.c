/*
 * Unit tests for the window schedule (src/windows/schedule.c): the closed
 * range of a grid, every mode on fixed and flexible models, run windows
 * widened to the grid, lookback, end, and against a brute force over
 * random coverage.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "windows/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H 3600
#define D 86400
/* 2026-11-01 00:00 UTC */
#define T0 1793491200LL

static struct win_grid hourly(void)
{
	return (struct win_grid){ .grain = WIN_HOUR, .start = T0, .end = INT64_MAX };
}

/* The schedule as "since-until,since-until" in hours from T0. */
static const char *scheduled(const struct win_grid *g, const struct win_ask *ask,
			     const struct win_set *applied)
{
	static char out[4096];
	struct win_list l = { 0 };
	size_t len = 0;

	win_schedule(g, ask, applied, &l);
	out[0] = '\0';
	for (size_t i = 0; i < l.n && len < sizeof(out) - 32; i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%lld-%lld", i ? "," : "",
					(long long)((l.r[i].since - T0) / H),
					(long long)((l.r[i].until - T0) / H));
	free(l.r);
	return out;
}

static void closed_range(void **state)
{
	struct win_grid g = hourly();

	(void)state;
	assert_int_equal(win_grid_closed(&g, T0 + 5 * H + 59), T0 + 5 * H);
	g.end = T0 + 3 * H;
	assert_int_equal(win_grid_closed(&g, T0 + 5 * H), T0 + 3 * H);
	/* before start nothing has closed */
	assert_int_equal(win_grid_closed(&g, T0 - D), T0);
	g.flex = true;
	g.end = INT64_MAX;
	assert_int_equal(win_grid_closed(&g, T0 + 5 * H + 59), T0 + 5 * H + 59);
}

static void discover_fixed(void **state)
{
	struct win_grid g = hourly();
	struct win_ask ask = { .now = T0 + 4 * H + 30, .mode = WIN_DISCOVER };
	struct win_set applied = { 0 };

	(void)state;
	assert_string_equal(scheduled(&g, &ask, &applied), "0-1,1-2,2-3,3-4");
	win_set_add(&applied, T0 + H, T0 + 3 * H);
	assert_string_equal(scheduled(&g, &ask, &applied), "0-1,3-4");
	/* lookback builds the newest windows again, applied or not */
	g.lookback = 2;
	assert_string_equal(scheduled(&g, &ask, &applied), "0-1,2-3,3-4");
	/* past end (and lookback windows after it) nothing is built again */
	g.end = T0 + 3 * H;
	ask.now = T0 + 4 * H + 30;
	assert_string_equal(scheduled(&g, &ask, &applied), "0-1,1-2,2-3");
	ask.now = T0 + 5 * H;
	assert_string_equal(scheduled(&g, &ask, &applied), "0-1");
	g.end = INT64_MAX;
	ask.now = T0 + 4 * H + 30;
	/* a run window limits discover to it */
	ask.ranged = true;
	ask.since = T0;
	ask.until = T0 + 2 * H;
	assert_string_equal(scheduled(&g, &ask, &applied), "0-1");
	win_set_free(&applied);
}

static void bulldozer_and_torch_fixed(void **state)
{
	struct win_grid g = hourly();
	struct win_ask ask = { .now = T0 + 10 * H, .mode = WIN_BULLDOZER, .ranged = true,
			       .since = T0 + 2 * H + 600, .until = T0 + 4 * H + 1 };
	struct win_set applied = { 0 };

	(void)state;
	win_set_add(&applied, T0, T0 + 10 * H);
	/* widened to the grid windows it touches, applied ones too */
	assert_string_equal(scheduled(&g, &ask, &applied), "2-3,3-4,4-5");
	ask.mode = WIN_TORCH;
	assert_string_equal(scheduled(&g, &ask, &applied), "2-3,3-4,4-5");
	/* torch without a window: the whole range */
	ask.ranged = false;
	assert_string_equal(scheduled(&g, &ask, &applied),
			    "0-1,1-2,2-3,3-4,4-5,5-6,6-7,7-8,8-9,9-10");
	/* a run window past what has closed stops there */
	ask.ranged = true;
	ask.mode = WIN_BULLDOZER;
	ask.since = T0 + 8 * H;
	ask.until = T0 + 20 * H;
	assert_string_equal(scheduled(&g, &ask, &applied), "8-9,9-10");
	win_set_free(&applied);
}

static void flexible(void **state)
{
	struct win_grid g = hourly();
	struct win_ask ask = { .now = T0 + 6 * H, .mode = WIN_DISCOVER, .chunk = 2 * H };
	struct win_set applied = { 0 };

	(void)state;
	g.flex = true;
	win_set_add(&applied, T0 + H, T0 + 2 * H);
	/* the gaps, cut at multiples of the chunk */
	assert_string_equal(scheduled(&g, &ask, &applied), "0-1,2-4,4-6");
	/* bulldozer uncovers the run window and covers it again, sliced */
	ask.mode = WIN_BULLDOZER;
	ask.ranged = true;
	ask.since = T0 + H;
	ask.until = T0 + 5 * H;
	assert_string_equal(scheduled(&g, &ask, &applied), "1-2,2-4,4-5");
	/* no chunk: the grain's windows */
	ask.chunk = 0;
	assert_string_equal(scheduled(&g, &ask, &applied), "1-2,2-3,3-4,4-5");
	win_set_free(&applied);
}

static void months_are_calendar(void **state)
{
	struct win_grid g = { .grain = WIN_MONTH, .start = T0, .end = INT64_MAX };
	struct win_ask ask = { .now = T0 + 75 * D, .mode = WIN_DISCOVER };
	struct win_set applied = { 0 };
	struct win_list l = { 0 };

	(void)state;
	win_schedule(&g, &ask, &applied, &l);
	/* November (30 days) and December (31) have closed; January has not */
	assert_int_equal(l.n, 2);
	assert_int_equal(l.r[0].until - l.r[0].since, 30 * D);
	assert_int_equal(l.r[1].until - l.r[1].since, 31 * D);
	free(l.r);
}

/* Random applied cells of a 64-hour grid: discover builds exactly the
 * cells not applied, bulldozer exactly the run window's. */
static void against_brute_force(void **state)
{
	struct win_grid g = hourly();

	(void)state;
	srand(7);
	for (int round = 0; round < 500; round++) {
		bool cell[64];
		struct win_set applied = { 0 };
		struct win_ask ask = { .now = T0 + 64 * H, .mode = rand() % 2 ? WIN_DISCOVER
										: WIN_BULLDOZER };
		struct win_list l = { 0 };
		int lo = rand() % 64, hi = lo + rand() % (64 - lo) + 1;
		size_t k = 0;

		ask.ranged = rand() % 2;
		ask.since = T0 + lo * H;
		ask.until = T0 + hi * H;
		for (int i = 0; i < 64; i++) {
			cell[i] = rand() % 3 == 0;
			if (cell[i])
				win_set_add(&applied, T0 + i * H, T0 + (i + 1) * H);
		}
		win_schedule(&g, &ask, &applied, &l);
		for (int i = 0; i < 64; i++) {
			bool in = !ask.ranged || (i >= lo && i < hi);
			bool want = in && (ask.mode == WIN_BULLDOZER && ask.ranged ? true
					   : ask.mode == WIN_DISCOVER	       ? !cell[i]
									       : true);

			if (!want)
				continue;
			assert_true(k < l.n);
			assert_int_equal(l.r[k].since, T0 + i * H);
			assert_int_equal(l.r[k].until, T0 + (i + 1) * H);
			k++;
		}
		assert_int_equal(k, l.n);
		free(l.r);
		win_set_free(&applied);
	}
}

static void mode_names(void **state)
{
	(void)state;
	assert_int_equal(win_mode_parse("torch"), WIN_TORCH);
	assert_int_equal(win_mode_parse("bulldoze"), -1);
	assert_string_equal(win_mode_name(WIN_DISCOVER), "discover");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(closed_range),
		cmocka_unit_test(discover_fixed),
		cmocka_unit_test(bulldozer_and_torch_fixed),
		cmocka_unit_test(flexible),
		cmocka_unit_test(months_are_calendar),
		cmocka_unit_test(against_brute_force),
		cmocka_unit_test(mode_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
