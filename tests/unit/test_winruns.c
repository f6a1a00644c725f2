/*
 * Unit tests for a model's windows as runs (src/server/winruns.c): a
 * grid's rows and gaps, the time not yet closed, rows recorded past it,
 * rows of an older grain, reasons that keep runs apart, the cut at
 * max_runs, a flexible model's islands; and random grids against an
 * oracle that lists every window one by one, as `sluice windows` does,
 * and joins them afterwards.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_rng.h"
#include "server/winruns.h"

#include <stdlib.h>
#include <string.h>

#define H 3600LL
#define D 86400LL
#define NOV01_2026 1793491200LL
#define JAN01_2026 1767225600LL

static struct state_window row(int64_t since, int64_t until, enum state_win_status st,
			       const char *why)
{
	struct state_window w = { .model = "s.m", .since = since, .until = until, .status = st };

	if (st == WINDOW_FAILED)
		w.error = why;
	else
		w.reason = why;
	return w;
}

static void expect_run(const struct win_runs *r, size_t i, int64_t since, int64_t until,
		       enum state_win_status st, int64_t count, const char *why)
{
	assert_true(i < r->n);
	assert_int_equal(r->r[i].since, since);
	assert_int_equal(r->r[i].until, until);
	assert_int_equal(r->r[i].status, st);
	assert_int_equal(r->r[i].count, count);
	if (why)
		assert_string_equal(r->r[i].why, why);
	else
		assert_null(r->r[i].why);
}

static struct win_runs grid(enum win_grain g, const struct win_span *span,
			    const struct state_window *rows, size_t n, size_t max)
{
	struct win_runs r = { .max = max };

	win_runs_grid(&r, g, span, rows, n);
	return r;
}

/* Two days of hours, one failed: three runs; applied rows of different
 * times join, as the page draws them as one. */
static void test_grid_rows(void **state)
{
	(void)state;
	struct state_window rows[] = {
		row(NOV01_2026, NOV01_2026 + 5 * H, WINDOW_APPLIED, NULL),
		row(NOV01_2026 + 5 * H, NOV01_2026 + 6 * H, WINDOW_FAILED, "@assert v >= 0"),
		row(NOV01_2026 + 6 * H, NOV01_2026 + 20 * H, WINDOW_APPLIED, NULL),
		row(NOV01_2026 + 20 * H, NOV01_2026 + 48 * H, WINDOW_APPLIED, NULL),
	};
	struct win_span span = win_runs_span(NOV01_2026, NOV01_2026 + 48 * H, rows, 4, INT64_MIN,
					     INT64_MAX);
	struct win_runs r;

	rows[3].applied_at = 1;
	r = grid(WIN_HOUR, &span, rows, 4, 100);
	assert_int_equal(r.n, 3);
	expect_run(&r, 0, NOV01_2026, NOV01_2026 + 5 * H, WINDOW_APPLIED, 5, NULL);
	expect_run(&r, 1, NOV01_2026 + 5 * H, NOV01_2026 + 6 * H, WINDOW_FAILED, 1,
		   "@assert v >= 0");
	expect_run(&r, 2, NOV01_2026 + 6 * H, NOV01_2026 + 48 * H, WINDOW_APPLIED, 42, NULL);
	assert_int_equal(r.windows, 48);
	assert_false(r.truncated);
	win_runs_free(&r);
}

/* No rows: the windows closed are pending, one run however many (a
 * century of hours costs one entry); those not closed are not listed. */
static void test_grid_gaps(void **state)
{
	(void)state;
	int64_t start = JAN01_2026 - 100 * 365 * D;
	struct win_span span = win_runs_span(start, JAN01_2026, NULL, 0, INT64_MIN, INT64_MAX);
	struct win_runs r = grid(WIN_HOUR, &span, NULL, 0, 100);

	assert_int_equal(r.n, 1);
	expect_run(&r, 0, start, JAN01_2026, WINDOW_PENDING, 100 * 365 * 24, NULL);
	win_runs_free(&r);

	/* applied ahead of closed (a run with a later clock) stands; the
	 * gap between closed and it is not listed */
	struct state_window ahead = row(JAN01_2026 + 5 * H, JAN01_2026 + 6 * H, WINDOW_APPLIED,
					NULL);

	span = win_runs_span(JAN01_2026 - 2 * H, JAN01_2026, &ahead, 1, INT64_MIN, INT64_MAX);
	assert_int_equal(span.hi, JAN01_2026 + 6 * H);
	r = grid(WIN_HOUR, &span, &ahead, 1, 100);
	assert_int_equal(r.n, 2);
	expect_run(&r, 0, JAN01_2026 - 2 * H, JAN01_2026, WINDOW_PENDING, 2, NULL);
	expect_run(&r, 1, JAN01_2026 + 5 * H, JAN01_2026 + 6 * H, WINDOW_APPLIED, 1, NULL);
	win_runs_free(&r);
}

/* Blocked windows join when they wait for the same thing, not otherwise. */
static void test_grid_reasons(void **state)
{
	(void)state;
	struct state_window rows[] = {
		row(NOV01_2026, NOV01_2026 + D, WINDOW_BLOCKED, "a.b (encapsulate)"),
		row(NOV01_2026 + D, NOV01_2026 + 2 * D, WINDOW_BLOCKED, "a.b (encapsulate)"),
		row(NOV01_2026 + 2 * D, NOV01_2026 + 3 * D, WINDOW_BLOCKED, "c.d (whole, stale)"),
		row(NOV01_2026 + 3 * D, NOV01_2026 + 4 * D, WINDOW_FAILED, "a.b (encapsulate)"),
	};
	struct win_span span = win_runs_span(NOV01_2026, NOV01_2026 + 4 * D, rows, 4, INT64_MIN,
					     INT64_MAX);
	struct win_runs r = grid(WIN_DAY, &span, rows, 4, 100);

	assert_int_equal(r.n, 3);
	expect_run(&r, 0, NOV01_2026, NOV01_2026 + 2 * D, WINDOW_BLOCKED, 2, "a.b (encapsulate)");
	expect_run(&r, 1, NOV01_2026 + 2 * D, NOV01_2026 + 3 * D, WINDOW_BLOCKED, 1,
		   "c.d (whole, stale)");
	expect_run(&r, 2, NOV01_2026 + 3 * D, NOV01_2026 + 4 * D, WINDOW_FAILED, 1,
		   "a.b (encapsulate)");
	win_runs_free(&r);
}

/* since and until cut the span (a window that starts before until is in
 * whole); max_runs stops the runs and says where the next one starts. */
static void test_grid_cut(void **state)
{
	(void)state;
	struct state_window rows[] = {
		row(NOV01_2026, NOV01_2026 + 5 * H, WINDOW_APPLIED, NULL),
		row(NOV01_2026 + 5 * H, NOV01_2026 + 6 * H, WINDOW_FAILED, "x"),
		row(NOV01_2026 + 6 * H, NOV01_2026 + 9 * H, WINDOW_APPLIED, NULL),
	};
	struct win_span span = win_runs_span(NOV01_2026, NOV01_2026 + 48 * H, rows, 3,
					     NOV01_2026 + 3 * H + 1800, NOV01_2026 + 7 * H + 60);
	struct win_runs r = grid(WIN_HOUR, &span, rows, 3, 100);

	assert_int_equal(r.n, 3);
	expect_run(&r, 0, NOV01_2026 + 3 * H, NOV01_2026 + 5 * H, WINDOW_APPLIED, 2, NULL);
	expect_run(&r, 2, NOV01_2026 + 6 * H, NOV01_2026 + 8 * H, WINDOW_APPLIED, 2, NULL);
	win_runs_free(&r);

	span = win_runs_span(NOV01_2026, NOV01_2026 + 48 * H, rows, 3, INT64_MIN, INT64_MAX);
	r = grid(WIN_HOUR, &span, rows, 3, 2);
	assert_int_equal(r.n, 2);
	assert_true(r.truncated);
	assert_int_equal(r.next, NOV01_2026 + 6 * H);
	assert_int_equal(r.windows, 6);
	win_runs_free(&r);

	/* a span that is empty, and one before the start */
	span = win_runs_span(NOV01_2026, NOV01_2026 + 48 * H, rows, 3, NOV01_2026 + 60 * H,
			     INT64_MAX);
	r = grid(WIN_HOUR, &span, rows, 3, 100);
	assert_int_equal(r.n, 0);
	span = win_runs_span(NOV01_2026, NOV01_2026 + 48 * H, rows, 3, 0, NOV01_2026 + H);
	assert_int_equal(span.lo, NOV01_2026);
	r = grid(WIN_HOUR, &span, rows, 3, 100);
	assert_int_equal(r.n, 1);
	expect_run(&r, 0, NOV01_2026, NOV01_2026 + H, WINDOW_APPLIED, 1, NULL);
	win_runs_free(&r);
}

/* Rows of hours read as a daily grid (the grain changed): a day takes the
 * state of the row that holds its start; months count their windows. */
static void test_grid_other_grain(void **state)
{
	(void)state;
	struct state_window rows[] = {
		row(NOV01_2026, NOV01_2026 + 30 * H, WINDOW_APPLIED, NULL),
		row(NOV01_2026 + 30 * H, NOV01_2026 + 50 * H, WINDOW_FAILED, "e"),
	};
	struct win_span span = win_runs_span(NOV01_2026, NOV01_2026 + 3 * D, rows, 2, INT64_MIN,
					     INT64_MAX);
	struct win_runs r = grid(WIN_DAY, &span, rows, 2, 100);

	assert_int_equal(r.n, 2);
	expect_run(&r, 0, NOV01_2026, NOV01_2026 + 2 * D, WINDOW_APPLIED, 2, NULL);
	expect_run(&r, 1, NOV01_2026 + 2 * D, NOV01_2026 + 3 * D, WINDOW_FAILED, 1, "e");
	win_runs_free(&r);

	span = win_runs_span(JAN01_2026, NOV01_2026, NULL, 0, INT64_MIN, INT64_MAX);
	r = grid(WIN_MONTH, &span, NULL, 0, 100);
	assert_int_equal(r.n, 1);
	expect_run(&r, 0, JAN01_2026, NOV01_2026, WINDOW_PENDING, 10, NULL);
	win_runs_free(&r);
}

/* A flexible model: islands and windows cut to the span, the closed time
 * between them pending (no windows), overlapping rows counted once. */
static void test_cover(void **state)
{
	(void)state;
	struct state_window rows[] = {
		row(NOV01_2026 + 2 * H, NOV01_2026 + 10 * H, WINDOW_APPLIED, NULL),
		row(NOV01_2026 + 8 * H, NOV01_2026 + 12 * H, WINDOW_APPLIED, NULL),
		row(NOV01_2026 + 12 * H, NOV01_2026 + 13 * H, WINDOW_BLOCKED, "a.b (exists)"),
		row(NOV01_2026 + 20 * H, NOV01_2026 + 40 * H, WINDOW_APPLIED, NULL),
	};
	struct win_span span = win_runs_span(NOV01_2026, NOV01_2026 + 30 * H, rows, 4, INT64_MIN,
					     INT64_MAX);
	struct win_runs r = { .max = 100 };

	win_runs_cover(&r, &span, rows, 4);
	assert_int_equal(r.n, 5);
	expect_run(&r, 0, NOV01_2026, NOV01_2026 + 2 * H, WINDOW_PENDING, 0, NULL);
	expect_run(&r, 1, NOV01_2026 + 2 * H, NOV01_2026 + 12 * H, WINDOW_APPLIED, 2, NULL);
	expect_run(&r, 2, NOV01_2026 + 12 * H, NOV01_2026 + 13 * H, WINDOW_BLOCKED, 1,
		   "a.b (exists)");
	expect_run(&r, 3, NOV01_2026 + 13 * H, NOV01_2026 + 20 * H, WINDOW_PENDING, 0, NULL);
	expect_run(&r, 4, NOV01_2026 + 20 * H, NOV01_2026 + 40 * H, WINDOW_APPLIED, 1, NULL);
	win_runs_free(&r);

	/* cut to [5h, 25h), closed at 15h: the gap after closed is not listed */
	span = win_runs_span(NOV01_2026, NOV01_2026 + 15 * H, rows, 4, NOV01_2026 + 5 * H,
			     NOV01_2026 + 25 * H);
	r = (struct win_runs){ .max = 100 };
	win_runs_cover(&r, &span, rows, 4);
	assert_int_equal(r.n, 4);
	expect_run(&r, 0, NOV01_2026 + 5 * H, NOV01_2026 + 12 * H, WINDOW_APPLIED, 2, NULL);
	expect_run(&r, 2, NOV01_2026 + 13 * H, NOV01_2026 + 15 * H, WINDOW_PENDING, 0, NULL);
	expect_run(&r, 3, NOV01_2026 + 20 * H, NOV01_2026 + 25 * H, WINDOW_APPLIED, 1, NULL);
	win_runs_free(&r);
}

/* The oracle's windows: each one's state, as `sluice windows` lists a
 * grid (the first row that holds its start; pending while closed; not
 * listed after). */
struct one {
	int64_t since;
	enum state_win_status st;
	const char *why;
};

static size_t oracle(enum win_grain g, const struct win_span *span,
		     const struct state_window *rows, size_t n, struct one *out)
{
	size_t k = 0;

	for (int64_t t = win_floor(g, span->lo); t < span->hi; t = win_add(g, t, 1)) {
		const struct state_window *at = NULL;

		for (size_t i = 0; i < n && !at; i++)
			if (rows[i].since <= t && t < rows[i].until)
				at = &rows[i];
		if (at)
			out[k++] = (struct one){ t, at->status, win_run_why(at) };
		else if (t < span->closed)
			out[k++] = (struct one){ t, WINDOW_PENDING, NULL };
	}
	return k;
}

static bool same_why(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Random grids of hours: rows of runs of windows in random states (some
 * the same state as the row before, some apart with gaps), random spans
 * and clocks; the runs must list exactly the oracle's windows, joined
 * wherever two neighbours are in one state, and nowhere else. */
static void test_grid_oracle(void **state)
{
	(void)state;
	static const char *const whys[] = { "a.b (encapsulate)", "c.d (through)", "boom" };
	struct rng rng = { 20261207 };
	struct state_window rows[64];
	struct one *ones = malloc(4096 * sizeof(*ones));

	for (int round = 0; round < 2000; round++) {
		int64_t t = NOV01_2026 + (int64_t)rng_below(&rng, 5) * H;
		size_t n = rng_below(&rng, 40), k, w = 0;
		struct win_span span;
		struct win_runs r = { .max = rng_below(&rng, 3) ? 1000 : 3 };

		for (size_t i = 0; i < n; i++) {
			enum state_win_status st = (enum state_win_status)rng_below(&rng, 4);

			t += (int64_t)rng_below(&rng, 3) * H * (rng_below(&rng, 4) == 0);
			rows[i] = row(t, t + (1 + (int64_t)rng_below(&rng, 30)) * H, st,
				      st >= WINDOW_BLOCKED ? whys[rng_below(&rng, 3)] : NULL);
			t = rows[i].until;
		}
		span = win_runs_span(NOV01_2026, NOV01_2026 + (int64_t)rng_below(&rng, 800) * H, rows,
				     n, rng_below(&rng, 2) ? INT64_MIN
						: NOV01_2026 + (int64_t)rng_below(&rng, 200) * H - 1,
				     rng_below(&rng, 2) ? INT64_MAX
							: NOV01_2026 + (int64_t)rng_below(&rng, 900) * H + 7);
		k = oracle(WIN_HOUR, &span, rows, n, ones);
		win_runs_grid(&r, WIN_HOUR, &span, rows, n);
		for (size_t i = 0; i < r.n; i++) {
			const struct win_run *run = &r.r[i];

			assert_int_equal(run->count, (run->until - run->since) / H);
			if (i) {
				const struct win_run *prev = &r.r[i - 1];

				assert_true(prev->until <= run->since);
				assert_false(prev->until == run->since && prev->status == run->status &&
					     same_why(prev->why, run->why));
			}
			for (int64_t s = run->since; s < run->until; s += H, w++) {
				assert_true(w < k);
				assert_int_equal(ones[w].since, s);
				assert_int_equal(ones[w].st, run->status);
				assert_true(same_why(ones[w].why, run->why));
			}
		}
		if (r.truncated) {
			assert_int_equal(r.n, r.max);
			assert_true(w < k);
			assert_int_equal(ones[w].since, r.next);
		} else {
			assert_int_equal(w, k);
		}
		assert_int_equal(r.windows, (int64_t)w);
		win_runs_free(&r);
	}
	free(ones);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid_rows),
		cmocka_unit_test(test_grid_gaps),
		cmocka_unit_test(test_grid_reasons),
		cmocka_unit_test(test_grid_cut),
		cmocka_unit_test(test_grid_other_grain),
		cmocka_unit_test(test_cover),
		cmocka_unit_test(test_grid_oracle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
