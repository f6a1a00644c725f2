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

#include "core/err.h"
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
	for (size_t i = 0; i < l.n; i++) {
		int64_t n = 0;

		for (int64_t t = l.r[i].since, next; t < l.r[i].until && len < sizeof(out) - 32;
		     t = next, n++) {
			next = win_next(g, ask, t, l.r[i].until);
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%lld-%lld",
						len ? "," : "", (long long)((t - T0) / H),
						(long long)((next - T0) / H));
		}
		assert_int_equal(win_run_count(g, ask, l.r[i].since, l.r[i].until), n);
	}
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
	assert_int_equal(l.n, 1);
	assert_int_equal(win_run_count(&g, &ask, l.r[0].since, l.r[0].until), 2);
	assert_int_equal(win_next(&g, &ask, l.r[0].since, l.r[0].until) - l.r[0].since, 30 * D);
	assert_int_equal(l.r[0].until - l.r[0].since, 61 * D);
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
		/* the runs cut into windows, as a run takes them */
		struct win_list cells = { 0 };

		for (size_t r = 0; r < l.n; r++) {
			for (int64_t t = l.r[r].since; t < l.r[r].until;) {
				int64_t next = win_next(&g, &ask, t, l.r[r].until);

				cells.r = realloc(cells.r, (cells.n + 1) * sizeof(*cells.r));
				cells.r[cells.n++] = (struct win_range){ t, next };
				t = next;
			}
		}
		free(l.r);
		l = cells;
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

/* A century of hours never applied is one run, whatever its length; the
 * applied windows in it split it into as many runs as there are holes. */
static void runs_not_windows(void **state)
{
	struct win_grid g = hourly();
	struct win_ask ask = { .mode = WIN_DISCOVER };
	struct win_set applied = { 0 };
	struct win_list l = { 0 };
	int64_t total = 0;

	(void)state;
	g.start = T0 - 100LL * 365 * D;
	ask.now = T0 + 30 * 60;
	win_schedule(&g, &ask, &applied, &l);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.r[0].since, g.start);
	assert_int_equal(l.r[0].until, T0);
	assert_int_equal(win_run_count(&g, &ask, l.r[0].since, l.r[0].until), 100 * 365 * 24);
	free(l.r);
	/* two applied stretches: three runs, the windows between them */
	win_set_add(&applied, T0 - 50 * D, T0 - 40 * D);
	win_set_add(&applied, T0 - 10 * D, T0 - 5 * D);
	l = (struct win_list){ 0 };
	win_schedule(&g, &ask, &applied, &l);
	assert_int_equal(l.n, 3);
	for (size_t i = 0; i < l.n; i++)
		total += win_run_count(&g, &ask, l.r[i].since, l.r[i].until);
	assert_int_equal(total, 100 * 365 * 24 - 15 * 24);
	assert_int_equal(l.r[1].since, T0 - 40 * D);
	assert_int_equal(l.r[1].until, T0 - 10 * D);
	free(l.r);
	/* a flexible model's chunks: a run not on a multiple counts its ends */
	g.flex = true;
	ask.chunk = 2 * H;
	assert_int_equal(win_run_count(&g, &ask, T0 + H, T0 + 6 * H), 3);
	assert_int_equal(win_run_count(&g, &ask, T0 + H, T0 + 5 * H), 3);
	assert_int_equal(win_run_count(&g, &ask, T0, T0 + 4 * H), 2);
	ask.chunk = 0;
	assert_int_equal(win_run_count(&g, &ask, T0 + 600, T0 + 2 * H + 600), 3);
	win_set_free(&applied);
}

/* A grid of more than WIN_GRID_MAX closed windows is refused, with the
 * earliest start that would do; one at the bound is not. */
static void grid_bound(void **state)
{
	struct win_grid g = hourly();
	struct sl_err err = SL_ERR_INIT;
	int64_t now = T0 + 30 * 60;

	(void)state;
	g.start = T0 - (int64_t)WIN_GRID_MAX * H;
	assert_int_equal(win_grid_check(&g, now, &err), 0);
	g.start -= H;
	assert_int_equal(win_grid_check(&g, now, &err), SL_E_INVALID);
	assert_non_null(strstr(err.msg, "too many windows: 2000001 of 1h"));
	assert_non_null(strstr(err.msg, "on or after '1798-09-03 16:00:00'"));
	/* the bound is on what has closed: an end before now limits it */
	g.end = T0 - (int64_t)WIN_GRID_MAX * H / 2;
	assert_int_equal(win_grid_check(&g, now, NULL), 0);
	/* 0001-01-01 by the day is under it, by the hour far over */
	g = (struct win_grid){ .grain = WIN_DAY, .start = WIN_TIME_MIN, .end = INT64_MAX };
	assert_int_equal(win_grid_check(&g, now, NULL), 0);
	g.grain = WIN_HOUR;
	assert_int_equal(win_grid_check(&g, now, NULL), SL_E_INVALID);
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
		cmocka_unit_test(runs_not_windows),
		cmocka_unit_test(grid_bound),
		cmocka_unit_test(mode_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
