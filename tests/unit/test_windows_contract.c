/*
 * Unit tests for upstream contracts (src/windows/contract.c): every level
 * on fixed, flexible and timeless upstreams, the refusals, freshness of
 * either scope over the rows each level selects, and random upstreams and
 * windows checked against a plain evaluation of the rules, hour by hour
 * and row by row.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "windows/contract.h"
#include "windows/grid.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define H 3600LL
#define D 86400LL
#define T0 1767225600LL /* 2026-01-01 00:00 UTC, a Thursday */
#define NOW (T0 + 30 * D)

static struct win_row row(int64_t since, int64_t until, int64_t applied_at)
{
	return (struct win_row){ since, until, applied_at, applied_at };
}

/* The verdict of level l (no freshness gate) for [since, until). */
static enum win_verdict gate(const struct win_index *ix, enum win_level l, int64_t since,
			     int64_t until)
{
	struct win_contract c = { l, 0, false };
	const char *why = "unset";
	enum win_verdict v = win_gate(ix, &c, since, until, NOW, &why);

	if (v == WIN_REFUSED)
		assert_non_null(why);
	else
		assert_null(why);
	return v;
}

static enum win_verdict gate_fresh(const struct win_index *ix, enum win_level l, int64_t fresh,
				   bool all, int64_t since, int64_t until)
{
	struct win_contract c = { l, fresh, all };

	return win_gate(ix, &c, since, until, NOW, NULL);
}

/* hours [from, to) of T0's grid as rows applied at `at` */
static size_t hours(struct win_row *rows, size_t n, int from, int to, int64_t at)
{
	for (int h = from; h < to; h++)
		rows[n++] = row(T0 + h * H, T0 + (h + 1) * H, at);
	return n;
}

static void test_level_names(void **state)
{
	static const char *const names[] = { "exists", "exact", "encapsulate", "through", "whole" };

	(void)state;
	for (int l = WIN_EXISTS; l <= WIN_WHOLE; l++) {
		assert_string_equal(win_level_name(l), names[l]);
		assert_int_equal(win_level_parse(names[l]), l);
	}
	assert_int_equal(win_level_parse("window"), -1);
	assert_int_equal(win_level_parse("EXACT"), -1);
	assert_int_equal(win_level_parse(""), -1);
	assert_int_equal(win_level_parse("exact "), -1);
}

static void test_exact(void **state)
{
	struct win_row rows[48];
	struct win_index ix;
	size_t n = 0;

	(void)state;
	/* a daily upstream: day 0 and day 2 */
	rows[n++] = row(T0, T0 + D, NOW);
	rows[n++] = row(T0 + 2 * D, T0 + 3 * D, NOW);
	win_index_build(&ix, WIN_FIXED, T0, T0 + 3 * D, rows, n);
	assert_int_equal(gate(&ix, WIN_EXACT, T0, T0 + D), WIN_MET);
	assert_int_equal(gate(&ix, WIN_EXACT, T0 + 2 * D, T0 + 3 * D), WIN_MET);
	assert_int_equal(gate(&ix, WIN_EXACT, T0 + D, T0 + 2 * D), WIN_MISSING);
	/* a coarser row holding my hour does not count */
	assert_int_equal(gate(&ix, WIN_EXACT, T0 + 5 * H, T0 + 6 * H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_EXACT, T0, T0 + H), WIN_MISSING);
	/* nor a row that starts with mine and ends elsewhere */
	assert_int_equal(gate(&ix, WIN_EXACT, T0, T0 + 2 * D), WIN_MISSING);
	win_index_free(&ix);

	/* an hourly upstream: 24 rows make my day, but not one row equal to it */
	n = hours(rows, 0, 0, 24, NOW);
	win_index_build(&ix, WIN_FIXED, T0, T0 + D, rows, n);
	assert_int_equal(gate(&ix, WIN_EXACT, T0, T0 + D), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0, T0 + D), WIN_MET);
	assert_int_equal(gate(&ix, WIN_EXACT, T0 + 23 * H, T0 + D), WIN_MET);
	assert_int_equal(gate(&ix, WIN_EXACT, T0 + 24 * H, T0 + 25 * H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_EXACT, T0 - H, T0), WIN_MISSING);
	win_index_free(&ix);
}

static void test_encapsulate(void **state)
{
	struct win_row rows[64];
	struct win_index ix;
	size_t n;

	(void)state;
	/* a coarser row covers my hour, and the exact row my day */
	rows[0] = row(T0, T0 + D, NOW);
	win_index_build(&ix, WIN_FIXED, T0, T0 + D, rows, 1);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0 + 7 * H, T0 + 8 * H), WIN_MET);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0, T0 + D), WIN_MET);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0 + 23 * H, T0 + 25 * H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0 + D, T0 + D + H), WIN_MISSING);
	win_index_free(&ix);

	/* 24 hourly rows for a day, given out of order */
	n = hours(rows, 0, 12, 24, NOW);
	n = hours(rows, n, 0, 12, NOW);
	win_index_build(&ix, WIN_FIXED, T0, T0 + D, rows, n);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0, T0 + D), WIN_MET);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0 + 3 * H, T0 + 4 * H), WIN_MET);
	win_index_free(&ix);

	/* ... with one hour missing */
	n = hours(rows, 0, 0, 13, NOW);
	n = hours(rows, n, 14, 24, NOW);
	win_index_build(&ix, WIN_FIXED, T0, T0 + D, rows, n);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0, T0 + D), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0 + 13 * H, T0 + 14 * H), WIN_MISSING);
	/* a window on either side of the hole is met: nothing outside blocks */
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0, T0 + 13 * H), WIN_MET);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0 + 14 * H, T0 + D), WIN_MET);
	win_index_free(&ix);

	/* no rows at all */
	win_index_build(&ix, WIN_FIXED, T0, T0 + D, NULL, 0);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0, T0 + H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_EXACT, T0, T0 + H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_THROUGH, T0, T0 + H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_WHOLE, T0, T0 + H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_EXISTS, T0, T0 + H), WIN_MET);
	win_index_free(&ix);
}

static void test_through(void **state)
{
	struct win_row rows[64];
	struct win_index ix;
	size_t n;

	(void)state;
	/* hours 0..47 but an old hole at hour 3 */
	n = hours(rows, 0, 0, 3, NOW);
	n = hours(rows, n, 4, 48, NOW);
	win_index_build(&ix, WIN_FIXED, T0, T0 + 48 * H, rows, n);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0 + 40 * H, T0 + 41 * H), WIN_MET);
	assert_int_equal(gate(&ix, WIN_THROUGH, T0 + 40 * H, T0 + 41 * H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_THROUGH, T0 + 3 * H, T0 + 4 * H), WIN_MISSING);
	/* windows before the hole are met */
	assert_int_equal(gate(&ix, WIN_THROUGH, T0, T0 + H), WIN_MET);
	assert_int_equal(gate(&ix, WIN_THROUGH, T0 + 2 * H, T0 + 3 * H), WIN_MET);
	/* a window from before the upstream's start asks for what it never had */
	assert_int_equal(gate(&ix, WIN_THROUGH, T0 - H, T0 + H), WIN_MISSING);
	win_index_free(&ix);

	/* the hole filled: every window through the last is met */
	n = hours(rows, n, 3, 4, NOW);
	win_index_build(&ix, WIN_FIXED, T0, T0 + 48 * H, rows, n);
	assert_int_equal(gate(&ix, WIN_THROUGH, T0 + 40 * H, T0 + 41 * H), WIN_MET);
	assert_int_equal(gate(&ix, WIN_THROUGH, T0 + D, T0 + 2 * D), WIN_MET);
	assert_int_equal(gate(&ix, WIN_THROUGH, T0 + D, T0 + 2 * D + H), WIN_MISSING);
	win_index_free(&ix);
}

static void test_whole(void **state)
{
	struct win_row rows[64];
	struct win_index ix;
	size_t n;

	(void)state;
	/* WHOLE asks for [start, through): hours 0..23 */
	n = hours(rows, 0, 0, 24, NOW);
	win_index_build(&ix, WIN_FIXED, T0, T0 + D, rows, n);
	assert_int_equal(gate(&ix, WIN_WHOLE, T0 + 5 * H, T0 + 6 * H), WIN_MET);
	/* whatever my window: it is the upstream's whole that counts */
	assert_int_equal(gate(&ix, WIN_WHOLE, T0 + 5 * D, T0 + 6 * D), WIN_MET);
	win_index_free(&ix);
	/* rows past through change nothing, a hole past it neither */
	n = hours(rows, n, 30, 31, NOW);
	win_index_build(&ix, WIN_FIXED, T0, T0 + D, rows, n);
	assert_int_equal(gate(&ix, WIN_WHOLE, T0, T0 + H), WIN_MET);
	win_index_free(&ix);
	/* a hole inside blocks every window */
	n = hours(rows, 0, 0, 20, NOW);
	n = hours(rows, n, 21, 24, NOW);
	win_index_build(&ix, WIN_FIXED, T0, T0 + D, rows, n);
	assert_int_equal(gate(&ix, WIN_WHOLE, T0, T0 + H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0, T0 + H), WIN_MET);
	assert_int_equal(gate(&ix, WIN_THROUGH, T0, T0 + H), WIN_MET);
	win_index_free(&ix);
}

static void test_flexible(void **state)
{
	struct win_row rows[4];
	struct win_index ix;
	struct win_contract c = { WIN_EXACT, 0, false };
	const char *why = NULL;

	(void)state;
	/* two coalesced islands: [T0, T0+10h) and [T0+12h, T0+2d) */
	rows[0] = row(T0 + 12 * H, T0 + 2 * D, NOW);
	rows[1] = row(T0, T0 + 10 * H, NOW);
	win_index_build(&ix, WIN_FLEX, T0, T0 + 2 * D, rows, 2);
	assert_int_equal(win_gate(&ix, &c, T0, T0 + 10 * H, NOW, &why), WIN_REFUSED);
	assert_non_null(why);
	assert_non_null(strstr(why, "'exact'"));
	assert_non_null(strstr(why, "flexible"));
	assert_non_null(strstr(why, "encapsulate"));
	/* refused whether or not a row happens to equal the window */
	assert_int_equal(gate(&ix, WIN_EXACT, T0 + 3 * H, T0 + 4 * H), WIN_REFUSED);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0 + 3 * H, T0 + 4 * H), WIN_MET);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0 + D, T0 + 2 * D), WIN_MET);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0 + 9 * H, T0 + 11 * H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0, T0 + D), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_THROUGH, T0 + 5 * H, T0 + 6 * H), WIN_MET);
	assert_int_equal(gate(&ix, WIN_THROUGH, T0 + D, T0 + D + H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_WHOLE, T0, T0 + H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_EXISTS, T0, T0 + H), WIN_MET);
	win_index_free(&ix);
	/* islands that touch are one cover */
	rows[2] = row(T0 + 10 * H, T0 + 12 * H, NOW);
	win_index_build(&ix, WIN_FLEX, T0, T0 + 2 * D, rows, 3);
	assert_int_equal(gate(&ix, WIN_WHOLE, T0, T0 + H), WIN_MET);
	assert_int_equal(gate(&ix, WIN_ENCAPSULATE, T0, T0 + 2 * D), WIN_MET);
	assert_int_equal(ix.cover.n, 1);
	win_index_free(&ix);
}

static void test_timeless(void **state)
{
	static const enum win_level window_levels[] = { WIN_EXACT, WIN_ENCAPSULATE, WIN_THROUGH };
	struct win_row one = { 0, 0, NOW - H, NOW - H };
	struct win_index ix;
	const char *why;

	(void)state;
	win_index_build(&ix, WIN_TIMELESS, 0, 0, NULL, 0);
	assert_int_equal(gate(&ix, WIN_WHOLE, T0, T0 + H), WIN_MISSING);
	assert_int_equal(gate(&ix, WIN_EXISTS, T0, T0 + H), WIN_MET);
	win_index_free(&ix);
	win_index_build(&ix, WIN_TIMELESS, 0, 0, &one, 1);
	assert_int_equal(gate(&ix, WIN_WHOLE, T0, T0 + H), WIN_MET);
	assert_int_equal(gate(&ix, WIN_EXISTS, T0, T0 + H), WIN_MET);
	for (size_t i = 0; i < 3; i++) {
		struct win_contract c = { window_levels[i], 0, false };

		why = NULL;
		assert_int_equal(win_gate(&ix, &c, T0, T0 + H, NOW, &why), WIN_REFUSED);
		assert_non_null(why);
		assert_non_null(strstr(why, win_level_name(window_levels[i])));
		assert_non_null(strstr(why, "timeless"));
		/* refused even with freshness asked for, and with no why */
		c.fresh = H;
		assert_int_equal(win_gate(&ix, &c, T0, T0 + H, NOW, NULL), WIN_REFUSED);
	}
	/* freshness on its existence row */
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, 2 * H, false, T0, T0 + H), WIN_MET);
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, 2 * H, true, T0, T0 + H), WIN_MET);
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, H, false, T0, T0 + H), WIN_MET); /* at the edge */
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, H - 1, false, T0, T0 + H), WIN_STALE);
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, 60, true, T0, T0 + H), WIN_STALE);
	/* registration asks nothing of the data */
	assert_int_equal(gate_fresh(&ix, WIN_EXISTS, 60, true, T0, T0 + H), WIN_MET);
	win_index_free(&ix);
	win_index_build(&ix, WIN_TIMELESS, 0, 0, NULL, 0);
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, 60, true, T0, T0 + H), WIN_MISSING);
	win_index_free(&ix);
}

static void test_freshness(void **state)
{
	struct win_row rows[64];
	struct win_index ix;
	size_t n;

	(void)state;
	/* a day of fresh hours but one, hour 5, loaded 3 days ago */
	n = hours(rows, 0, 0, 5, NOW - H);
	n = hours(rows, n, 5, 6, NOW - 3 * D);
	n = hours(rows, n, 6, 24, NOW - H);
	win_index_build(&ix, WIN_FIXED, T0, T0 + D, rows, n);
	/* latest: the newest is recent; all: the oldest is not */
	assert_int_equal(gate_fresh(&ix, WIN_ENCAPSULATE, D, false, T0, T0 + D), WIN_MET);
	assert_int_equal(gate_fresh(&ix, WIN_ENCAPSULATE, D, true, T0, T0 + D), WIN_STALE);
	/* a window away from the old row: it is not in the selection */
	assert_int_equal(gate_fresh(&ix, WIN_ENCAPSULATE, D, true, T0 + 6 * H, T0 + 7 * H), WIN_MET);
	assert_int_equal(gate_fresh(&ix, WIN_EXACT, D, true, T0 + 6 * H, T0 + 7 * H), WIN_MET);
	assert_int_equal(gate_fresh(&ix, WIN_EXACT, D, false, T0 + 5 * H, T0 + 6 * H), WIN_STALE);
	/* THROUGH selects the prefix: the old row before my window counts */
	assert_int_equal(gate_fresh(&ix, WIN_THROUGH, D, true, T0 + 6 * H, T0 + 7 * H), WIN_STALE);
	assert_int_equal(gate_fresh(&ix, WIN_THROUGH, D, false, T0 + 6 * H, T0 + 7 * H), WIN_MET);
	assert_int_equal(gate_fresh(&ix, WIN_THROUGH, D, true, T0 + 4 * H, T0 + 5 * H), WIN_MET);
	/* WHOLE selects all: the old row after my window counts */
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, D, true, T0, T0 + H), WIN_STALE);
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, D, false, T0, T0 + H), WIN_MET);
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, 4 * D, true, T0, T0 + H), WIN_MET);
	/* no gate at 0 */
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, 0, true, T0, T0 + H), WIN_MET);
	/* latest too old: nothing newer than an hour ago */
	assert_int_equal(gate_fresh(&ix, WIN_ENCAPSULATE, 30 * 60, false, T0, T0 + D), WIN_STALE);
	assert_int_equal(gate_fresh(&ix, WIN_EXISTS, 1, true, T0, T0 + D), WIN_MET);
	win_index_free(&ix);

	/* missing wins over stale: everything old, and a row missing */
	n = hours(rows, 0, 0, 23, NOW - 10 * D);
	win_index_build(&ix, WIN_FIXED, T0, T0 + D, rows, n);
	assert_int_equal(gate_fresh(&ix, WIN_ENCAPSULATE, D, false, T0, T0 + D), WIN_MISSING);
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, D, true, T0, T0 + H), WIN_MISSING);
	assert_int_equal(gate_fresh(&ix, WIN_EXACT, D, true, T0 + 23 * H, T0 + D), WIN_MISSING);
	/* stale once complete */
	assert_int_equal(gate_fresh(&ix, WIN_ENCAPSULATE, D, false, T0, T0 + 23 * H), WIN_STALE);
	win_index_free(&ix);

	/* a flexible island coalesced from loads of different ages */
	rows[0] = (struct win_row){ T0, T0 + D, NOW - H, NOW - 5 * D };
	win_index_build(&ix, WIN_FLEX, T0, T0 + D, rows, 1);
	assert_int_equal(gate_fresh(&ix, WIN_ENCAPSULATE, D, false, T0 + H, T0 + 2 * H), WIN_MET);
	assert_int_equal(gate_fresh(&ix, WIN_ENCAPSULATE, D, true, T0 + H, T0 + 2 * H), WIN_STALE);
	assert_int_equal(gate_fresh(&ix, WIN_ENCAPSULATE, 6 * D, true, T0 + H, T0 + 2 * H), WIN_MET);
	win_index_free(&ix);

	/* rows wholly before the upstream's start are outside THROUGH's
	 * selection, not a prefix of it */
	n = hours(rows, 0, 0, 2, NOW - 10 * D);
	n = hours(rows, n, 2, 6, NOW - H);
	win_index_build(&ix, WIN_FIXED, T0 + 2 * H, T0 + 6 * H, rows, n);
	assert_int_equal(gate_fresh(&ix, WIN_THROUGH, D, true, T0 + 4 * H, T0 + 5 * H), WIN_MET);
	assert_int_equal(gate_fresh(&ix, WIN_WHOLE, D, true, T0 + 4 * H, T0 + 5 * H), WIN_STALE);
	assert_int_equal(gate_fresh(&ix, WIN_THROUGH, 30 * 60, false, T0 + 4 * H, T0 + 5 * H),
			 WIN_STALE);
	win_index_free(&ix);
}

/* ---- random upstreams against a plain evaluation of the rules ---- */

#define GRID_HOURS (14 * 24) /* two weeks from a Monday */
#define GRID_START (T0 + 4 * D) /* Monday 2026-01-05 */

struct upstream {
	enum win_shape shape;
	bool applied[GRID_HOURS];
	struct win_row rows[GRID_HOURS];
	size_t n;
};

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A random subset of the hourly grid, loaded over the last ten days; as a
 * flexible upstream, its runs coalesced into islands. */
static void random_upstream(struct upstream *u, enum win_shape shape, uint64_t *x)
{
	int64_t at[GRID_HOURS];
	int holes = (int)(next(x) % 4); /* from none to many */

	u->shape = shape;
	u->n = 0;
	for (int h = 0; h < GRID_HOURS; h++) {
		u->applied[h] = holes == 0 || next(x) % (uint64_t)(holes * 20) != 0;
		at[h] = NOW - (int64_t)(next(x) % (uint64_t)(10 * D));
	}
	for (int h = 0; h < GRID_HOURS; h++) {
		if (!u->applied[h])
			continue;
		if (shape == WIN_FIXED) {
			u->rows[u->n++] = row(GRID_START + h * H, GRID_START + (h + 1) * H, at[h]);
			continue;
		}
		if (h && u->applied[h - 1]) {
			struct win_row *r = &u->rows[u->n - 1];

			r->until += H;
			r->applied_at = at[h] > r->applied_at ? at[h] : r->applied_at;
			r->oldest_at = at[h] < r->oldest_at ? at[h] : r->oldest_at;
			continue;
		}
		u->rows[u->n++] = row(GRID_START + h * H, GRID_START + (h + 1) * H, at[h]);
	}
	/* handed over in any order */
	for (size_t i = u->n; i > 1; i--) {
		size_t j = next(x) % i;
		struct win_row t = u->rows[i - 1];

		u->rows[i - 1] = u->rows[j];
		u->rows[j] = t;
	}
}

/* Every hour of [a, b) applied (hours outside the grid never are). */
static bool all_applied(const struct upstream *u, int64_t a, int64_t b)
{
	for (int64_t t = a; t < b; t += H) {
		int64_t h = (t - GRID_START) / H;

		if (t < GRID_START || h >= GRID_HOURS || !u->applied[h])
			return false;
	}
	return true;
}

/* The rules as the header states them, one row at a time. */
static enum win_verdict plain_gate(const struct upstream *u, const struct win_contract *c,
				   int64_t since, int64_t until)
{
	const int64_t start = GRID_START, through = GRID_START + GRID_HOURS * H;
	int64_t lo = 0, hi = 0, newest = INT64_MIN, oldest = INT64_MAX;
	bool complete = false, any = false;
	int exact = -1;

	switch (c->level) {
	case WIN_EXISTS:
		return WIN_MET;
	case WIN_EXACT:
		if (u->shape == WIN_FLEX)
			return WIN_REFUSED;
		for (size_t i = 0; i < u->n; i++)
			if (u->rows[i].since == since && u->rows[i].until == until)
				exact = (int)i;
		complete = exact >= 0;
		break;
	case WIN_ENCAPSULATE:
		complete = all_applied(u, since, until);
		lo = since, hi = until;
		break;
	case WIN_THROUGH:
		complete = all_applied(u, since < start ? since : start, until);
		lo = start, hi = until;
		break;
	case WIN_WHOLE:
		complete = all_applied(u, start, through);
		lo = INT64_MIN, hi = INT64_MAX;
		break;
	}
	if (!complete)
		return WIN_MISSING;
	if (c->fresh <= 0)
		return WIN_MET;
	for (size_t i = 0; i < u->n; i++) {
		const struct win_row *r = &u->rows[i];
		bool in = c->level == WIN_EXACT ? (int)i == exact : r->since < hi && r->until > lo;

		if (!in)
			continue;
		any = true;
		newest = r->applied_at > newest ? r->applied_at : newest;
		oldest = r->oldest_at < oldest ? r->oldest_at : oldest;
	}
	if (!any)
		return WIN_MET;
	return (c->fresh_all ? oldest : newest) >= NOW - c->fresh ? WIN_MET : WIN_STALE;
}

static void test_against_plain_rules(void **state)
{
	static const int64_t freshes[] = { 0, H, D, 3 * D, 9 * D, 11 * D };
	static const enum win_grain grains[] = { WIN_HOUR, WIN_DAY, WIN_WEEK, WIN_MONTH };
	static struct upstream u;
	uint64_t x = 0x2026010112345ULL;
	int met = 0, missing = 0, stale = 0;

	(void)state;
	for (int round = 0; round < 200; round++) {
		struct win_index ix;

		random_upstream(&u, round % 3 ? WIN_FIXED : WIN_FLEX, &x);
		win_index_build(&ix, u.shape, GRID_START, GRID_START + GRID_HOURS * H, u.rows, u.n);
		for (int q = 0; q < 200; q++) {
			enum win_grain g = grains[next(&x) % 4];
			int64_t t = GRID_START - 2 * D +
				    (int64_t)(next(&x) % (uint64_t)(GRID_HOURS * H + 4 * D));
			int64_t since = win_floor(g, t), until = win_add(g, since, 1);
			struct win_contract c = {
				(enum win_level)(next(&x) % 5),
				freshes[next(&x) % 6],
				next(&x) % 2,
			};
			enum win_verdict want = plain_gate(&u, &c, since, until);
			enum win_verdict got = win_gate(&ix, &c, since, until, NOW, NULL);

			if (got != want)
				fail_msg("round %d: %s over [%lld, %lld) fresh %lld%s on a %s upstream: "
					 "got %d, want %d",
					 round, win_level_name(c.level), (long long)since,
					 (long long)until, (long long)c.fresh, c.fresh_all ? " all" : "",
					 u.shape == WIN_FLEX ? "flexible" : "fixed", got, want);
			met += want == WIN_MET;
			missing += want == WIN_MISSING;
			stale += want == WIN_STALE;
		}
		win_index_free(&ix);
	}
	/* the draw reached every verdict often enough to mean something */
	assert_true(met > 2000);
	assert_true(missing > 2000);
	assert_true(stale > 1000);
}

/* Hours of a day built at T0 + D, two of them built again a day later:
 * the windows that read them are due again, as each level's scope says. */
static void test_rebuilt(void **state)
{
	struct win_row rows[48];
	struct win_index ix;
	int64_t from = 0, to = 0, built = T0 + D;
	size_t n = hours(rows, 0, 0, 48, built);

	(void)state;
	rows[29].applied_at = rows[29].oldest_at = built + D;
	rows[30].applied_at = rows[30].oldest_at = built + D;
	win_index_build(&ix, WIN_FIXED, T0, T0 + 48 * H, rows, n);
	/* the first day read none of them; the second did */
	assert_false(win_rebuilt(&ix, WIN_ENCAPSULATE, T0, T0 + D, built, &from, &to));
	assert_true(win_rebuilt(&ix, WIN_ENCAPSULATE, T0 + D, T0 + 2 * D, built, &from, &to));
	assert_int_equal(from, T0 + 29 * H);
	assert_int_equal(to, T0 + 31 * H);
	/* a window built after them read them as they are */
	assert_false(win_rebuilt(&ix, WIN_ENCAPSULATE, T0 + D, T0 + 2 * D, built + D, &from, &to));
	/* through: every day from the second; whole: every day; exists: none */
	assert_true(win_rebuilt(&ix, WIN_THROUGH, T0 + 40 * H, T0 + 41 * H, built, &from, &to));
	assert_false(win_rebuilt(&ix, WIN_THROUGH, T0 + 28 * H, T0 + 29 * H, built, &from, &to));
	assert_true(win_rebuilt(&ix, WIN_WHOLE, T0, T0 + H, built, &from, &to));
	assert_false(win_rebuilt(&ix, WIN_EXISTS, T0 + D, T0 + 2 * D, built, &from, &to));
	assert_true(win_rebuilt(&ix, WIN_EXACT, T0 + 30 * H, T0 + 31 * H, built, &from, &to));
	assert_int_equal(from, T0 + 30 * H);
	assert_false(win_rebuilt(&ix, WIN_EXACT, T0 + 31 * H, T0 + 32 * H, built, &from, &to));
	win_index_free(&ix);
	/* a flexible island counts when all of it was applied since */
	rows[0] = (struct win_row){ T0, T0 + D, built + D, built };
	rows[1] = (struct win_row){ T0 + D, T0 + 2 * D, built + D, built + D };
	win_index_build(&ix, WIN_FLEX, T0, T0 + 48 * H, rows, 2);
	assert_false(win_rebuilt(&ix, WIN_ENCAPSULATE, T0, T0 + H, built, &from, &to));
	assert_true(win_rebuilt(&ix, WIN_ENCAPSULATE, T0 + D, T0 + D + H, built, &from, &to));
	win_index_free(&ix);
	/* a timeless upstream's existence row says nothing of what changed */
	rows[0] = row(0, 0, built + D);
	win_index_build(&ix, WIN_TIMELESS, 0, 0, rows, 1);
	assert_false(win_rebuilt(&ix, WIN_WHOLE, T0, T0 + D, built, &from, &to));
	win_index_free(&ix);
}

/* win_rebuilt on random upstreams and windows against the selection of
 * each level read row by row. */
static void test_rebuilt_against_plain_rules(void **state)
{
	static const enum win_grain grains[] = { WIN_HOUR, WIN_DAY, WIN_WEEK, WIN_MONTH };
	static struct upstream u;
	uint64_t x = 0x20261107ULL;
	int yes = 0, no = 0;

	(void)state;
	for (int round = 0; round < 200; round++) {
		struct win_index ix;

		random_upstream(&u, round % 3 ? WIN_FIXED : WIN_FLEX, &x);
		win_index_build(&ix, u.shape, GRID_START, GRID_START + GRID_HOURS * H, u.rows, u.n);
		for (int q = 0; q < 200; q++) {
			enum win_grain g = grains[next(&x) % 4];
			int64_t t = GRID_START - 2 * D +
				    (int64_t)(next(&x) % (uint64_t)(GRID_HOURS * H + 4 * D));
			int64_t since = win_floor(g, t), until = win_add(g, since, 1);
			int64_t after = NOW - (int64_t)(next(&x) % (uint64_t)(11 * D));
			enum win_level l = (enum win_level)(next(&x) % 5);
			int64_t lo = l == WIN_THROUGH && since < GRID_START ? since : GRID_START;
			int64_t from = 0, to = 0, want_from = INT64_MAX, want_to = INT64_MIN;
			bool got = win_rebuilt(&ix, l, since, until, after, &from, &to);

			for (size_t i = 0; i < u.n; i++) {
				const struct win_row *r = &u.rows[i];
				bool in = l == WIN_EXACT	 ? r->since == since && r->until == until
					  : l == WIN_ENCAPSULATE ? r->since < until && r->until > since
					  : l == WIN_THROUGH	 ? r->since < until && r->until > lo
								 : l == WIN_WHOLE;

				if (!in || r->oldest_at <= after)
					continue;
				want_from = r->since < want_from ? r->since : want_from;
				want_to = r->until > want_to ? r->until : want_to;
			}
			if (got != (want_from != INT64_MAX) ||
			    (got && (from != want_from || to != want_to)))
				fail_msg("round %d: %s over [%lld, %lld) after %lld: got %d [%lld, %lld)",
					 round, win_level_name(l), (long long)since, (long long)until,
					 (long long)after, got, (long long)from, (long long)to);
			yes += got;
			no += !got;
		}
		win_index_free(&ix);
	}
	assert_true(yes > 2000);
	assert_true(no > 2000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_names),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_encapsulate),
		cmocka_unit_test(test_through),
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_flexible),
		cmocka_unit_test(test_timeless),
		cmocka_unit_test(test_freshness),
		cmocka_unit_test(test_against_plain_rules),
		cmocka_unit_test(test_rebuilt),
		cmocka_unit_test(test_rebuilt_against_plain_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
