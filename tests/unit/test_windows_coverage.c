/*
 * Unit tests for the coverage algebra (src/windows/coverage.c): union,
 * subtraction, cover, gaps and find on chosen cases, then random
 * operations from fixed seeds checked against a plain model, one bool per
 * unit cell, after every step: the islands' invariant, and every query's
 * answer against the cells.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "windows/coverage.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The set as text, "[0,10) [20,30)", so a failure shows what it holds. */
static const char *text(const struct win_set *s)
{
	static char out[4096];
	size_t len = 0;

	out[0] = 0;
	for (size_t i = 0; i < s->n && len < sizeof(out) - 64; i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s[%lld,%lld)", i ? " " : "",
					(long long)s->r[i].since, (long long)s->r[i].until);
	return out;
}

static void assert_set(const struct win_set *s, const char *want)
{
	assert_string_equal(text(s), want);
}

/* since < until < the next since: what every query trusts. */
static void assert_invariant(const struct win_set *s)
{
	assert_true(s->n <= s->cap);
	for (size_t i = 0; i < s->n; i++) {
		if (s->r[i].since >= s->r[i].until)
			fail_msg("island %zu is empty: %s", i, text(s));
		if (i + 1 < s->n && s->r[i].until >= s->r[i + 1].since)
			fail_msg("islands %zu and %zu touch or overlap: %s", i, i + 1, text(s));
	}
}

static void test_add(void **state)
{
	struct win_set s = { 0 };

	(void)state;
	win_set_add(&s, 10, 20);
	assert_set(&s, "[10,20)");
	win_set_add(&s, 30, 40);
	assert_set(&s, "[10,20) [30,40)");
	win_set_add(&s, 20, 25); /* touches the first: coalesced */
	assert_set(&s, "[10,25) [30,40)");
	win_set_add(&s, 26, 29); /* between, touching neither */
	assert_set(&s, "[10,25) [26,29) [30,40)");
	win_set_add(&s, 0, 5); /* before all */
	assert_set(&s, "[0,5) [10,25) [26,29) [30,40)");
	win_set_add(&s, 12, 14); /* inside */
	assert_set(&s, "[0,5) [10,25) [26,29) [30,40)");
	win_set_add(&s, 25, 26); /* fills a gap of one: three become one */
	assert_set(&s, "[0,5) [10,29) [30,40)");
	win_set_add(&s, 7, 35); /* overlaps two, touches none on the left */
	assert_set(&s, "[0,5) [7,40)");
	win_set_add(&s, 5, 7); /* touches both sides */
	assert_set(&s, "[0,40)");
	win_set_add(&s, 40, 40); /* empty */
	win_set_add(&s, 60, 50); /* reversed: empty */
	assert_set(&s, "[0,40)");
	win_set_add(&s, 50, 60);
	win_set_add(&s, 55, 70); /* overlaps the last: extended */
	win_set_add(&s, 52, 58); /* inside the last */
	assert_set(&s, "[0,40) [50,70)");
	win_set_add(&s, -100, 100); /* swallows all */
	assert_set(&s, "[-100,100)");
	assert_invariant(&s);
	win_set_free(&s);
	assert_int_equal(s.n, 0);
	assert_null(s.r);
}

/* Ranges added in increasing order, touching or not: every island right,
 * and the array grown only by doubling (few reallocations). */
static void test_add_in_order(void **state)
{
	struct win_set s = { 0 };
	size_t grows = 0, cap = 0;

	(void)state;
	for (int64_t i = 0; i < 100000; i++) {
		win_set_add(&s, i * 10, i * 10 + 5);
		if (s.cap != cap) {
			grows++;
			cap = s.cap;
		}
	}
	assert_int_equal(s.n, 100000);
	assert_true(grows <= 20);
	assert_int_equal(s.r[99999].since, 999990);
	assert_int_equal(s.r[99999].until, 999995);
	assert_invariant(&s);
	win_set_free(&s);
	for (int64_t i = 0; i < 1000; i++)
		win_set_add(&s, i * 10, i * 10 + 10); /* each touches the last */
	assert_set(&s, "[0,10000)");
	win_set_free(&s);
}

static void test_sub(void **state)
{
	struct win_set s = { 0 };

	(void)state;
	win_set_sub(&s, 0, 10); /* from nothing */
	assert_int_equal(s.n, 0);
	win_set_add(&s, 0, 100);
	win_set_sub(&s, 40, 60); /* splits */
	assert_set(&s, "[0,40) [60,100)");
	win_set_sub(&s, 40, 60); /* again: nothing there */
	win_set_sub(&s, 100, 120); /* touches the end only */
	win_set_sub(&s, -10, 0); /* touches the start only */
	win_set_sub(&s, 50, 50); /* empty */
	win_set_sub(&s, 70, 65); /* reversed */
	assert_set(&s, "[0,40) [60,100)");
	win_set_sub(&s, 30, 70); /* trims both islands */
	assert_set(&s, "[0,30) [70,100)");
	win_set_sub(&s, 70, 100); /* exactly an island */
	assert_set(&s, "[0,30)");
	win_set_add(&s, 40, 50);
	win_set_add(&s, 60, 70);
	win_set_add(&s, 80, 90);
	win_set_sub(&s, 20, 85); /* over several */
	assert_set(&s, "[0,20) [85,90)");
	win_set_sub(&s, 0, 5);
	assert_set(&s, "[5,20) [85,90)");
	win_set_sub(&s, -1000, 1000);
	assert_int_equal(s.n, 0);
	assert_invariant(&s);
	win_set_free(&s);
}

static void test_covers_and_find(void **state)
{
	struct win_set s = { 0 };

	(void)state;
	assert_true(win_set_covers(&s, 5, 5)); /* an empty range is covered */
	assert_false(win_set_covers(&s, 0, 1));
	assert_int_equal(win_set_find(&s, 0), 0);
	win_set_add(&s, 0, 10);
	win_set_add(&s, 20, 30);
	win_set_add(&s, 40, 50);
	assert_true(win_set_covers(&s, 0, 10));
	assert_true(win_set_covers(&s, 3, 7));
	assert_true(win_set_covers(&s, 20, 30));
	assert_true(win_set_covers(&s, 49, 50));
	assert_true(win_set_covers(&s, 15, 15));
	assert_true(win_set_covers(&s, 30, 20)); /* reversed: empty */
	assert_false(win_set_covers(&s, 0, 11));
	assert_false(win_set_covers(&s, -1, 5));
	assert_false(win_set_covers(&s, 5, 25));
	assert_false(win_set_covers(&s, 10, 20));
	assert_false(win_set_covers(&s, 0, 50));
	assert_false(win_set_covers(&s, 50, 51));
	/* the first island whose until is after t */
	assert_int_equal(win_set_find(&s, -5), 0);
	assert_int_equal(win_set_find(&s, 9), 0);
	assert_int_equal(win_set_find(&s, 10), 1);
	assert_int_equal(win_set_find(&s, 15), 1);
	assert_int_equal(win_set_find(&s, 29), 1);
	assert_int_equal(win_set_find(&s, 30), 2);
	assert_int_equal(win_set_find(&s, 49), 2);
	assert_int_equal(win_set_find(&s, 50), 3);
	win_set_free(&s);
}

static void test_gaps(void **state)
{
	struct win_set s = { 0 }, g = { 0 };

	(void)state;
	win_set_gaps(&s, 0, 10, &g);
	assert_set(&g, "[0,10)");
	win_set_free(&g);
	win_set_add(&s, 10, 20);
	win_set_add(&s, 30, 40);
	win_set_gaps(&s, 0, 50, &g);
	assert_set(&g, "[0,10) [20,30) [40,50)");
	win_set_free(&g);
	win_set_gaps(&s, 10, 40, &g);
	assert_set(&g, "[20,30)");
	win_set_free(&g);
	win_set_gaps(&s, 12, 18, &g); /* covered: none */
	win_set_gaps(&s, 5, 5, &g);
	assert_int_equal(g.n, 0);
	win_set_gaps(&s, 15, 35, &g);
	assert_set(&g, "[20,30)");
	/* appended after what the caller's set holds */
	win_set_gaps(&s, 38, 60, &g);
	assert_set(&g, "[20,30) [40,60)");
	win_set_free(&g);
	win_set_gaps(&s, 20, 30, &g);
	assert_set(&g, "[20,30)");
	win_set_free(&g);
	win_set_free(&s);
}

static void test_search(void **state)
{
	const int64_t keys[] = { 10, 20, 20, 30 };

	(void)state;
	assert_int_equal(win_search(NULL, 0, sizeof(int64_t), 5, false), 0);
	assert_int_equal(win_search(keys, 4, sizeof(int64_t), 5, false), 0);
	assert_int_equal(win_search(keys, 4, sizeof(int64_t), 20, false), 1);
	assert_int_equal(win_search(keys, 4, sizeof(int64_t), 20, true), 3);
	assert_int_equal(win_search(keys, 4, sizeof(int64_t), 30, true), 4);
	/* a stride: the second field of each pair */
	const int64_t pairs[] = { 0, 5, 100, 15, 0, 25 };
	assert_int_equal(win_search(&pairs[1], 3, 2 * sizeof(int64_t), 15, false), 1);
	assert_int_equal(win_search(&pairs[1], 3, 2 * sizeof(int64_t), 15, true), 2);
}

/* ---- against a model: one bool per unit cell [c, c + 1) ---- */

#define CELLS 200
#define PAD 5 /* operations reach a little past the universe */
#define LO (-PAD)
#define HI (CELLS + PAD)

struct model {
	bool on[HI - LO];
};

static bool cell(const struct model *m, int64_t c)
{
	return c >= LO && c < HI && m->on[c - LO];
}

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A bound in [LO, HI], ends more often than by chance, so that ranges
 * touch and line up with islands. */
static int64_t bound(uint64_t *x)
{
	uint64_t r = next(x);

	if (r % 8 == 0)
		return r % 16 ? LO : HI;
	return LO + (int64_t)((r >> 8) % (uint64_t)(HI - LO + 1));
}

/* The set and the model hold the same cells, and the islands are the
 * model's maximal runs. */
static void assert_same(const struct win_set *s, const struct model *m)
{
	size_t i = 0;

	assert_invariant(s);
	for (int64_t c = LO; c < HI; c++) {
		if (!cell(m, c) || cell(m, c - 1))
			continue;
		int64_t end = c;

		while (cell(m, end))
			end++;
		if (i >= s->n || s->r[i].since != c || s->r[i].until != end)
			fail_msg("run [%lld,%lld) of the model is not island %zu: %s", (long long)c,
				 (long long)end, i, text(s));
		i++;
	}
	if (i != s->n)
		fail_msg("the set has %zu islands, the model %zu runs: %s", s->n, i, text(s));
}

static void check_queries(const struct win_set *s, const struct model *m, uint64_t *x)
{
	for (int q = 0; q < 8; q++) {
		int64_t a = bound(x), b = bound(x);
		struct win_set g = { 0 };
		bool all = true;
		size_t first = 0, len = 0;
		char want[4096] = "";

		/* the gaps as the runs of uncovered cells, written out by hand */
		for (int64_t c = a; c < b; c++) {
			all = all && cell(m, c);
			if (cell(m, c) || (c > a && !cell(m, c - 1)))
				continue;
			int64_t end = c;

			while (end < b && !cell(m, end))
				end++;
			len += (size_t)snprintf(want + len, sizeof(want) - len, "%s[%lld,%lld)",
						len ? " " : "", (long long)c, (long long)end);
		}
		if (win_set_covers(s, a, b) != all)
			fail_msg("covers [%lld,%lld) said %d: %s", (long long)a, (long long)b, !all,
				 text(s));
		win_set_gaps(s, a, b, &g);
		assert_invariant(&g);
		assert_string_equal(text(&g), want);
		win_set_free(&g);
		while (first < s->n && s->r[first].until <= a)
			first++;
		assert_int_equal(win_set_find(s, a), first);
	}
}

static void run_model(uint64_t seed, int ops)
{
	struct win_set s = { 0 };
	struct model m;
	uint64_t x = seed;

	memset(&m, 0, sizeof(m));
	for (int i = 0; i < ops; i++) {
		int64_t a = bound(&x), b = bound(&x);
		bool add = next(&x) % 5 < 3;

		/* now and then a run in increasing order, the fast path */
		if (next(&x) % 10 == 0 && s.n)
			a = s.r[s.n - 1].until + (int64_t)(next(&x) % 3), b = a + 1 + (int64_t)(next(&x) % 6);
		if (b > HI)
			b = HI;
		if (add)
			win_set_add(&s, a, b);
		else
			win_set_sub(&s, a, b);
		for (int64_t c = a; c < b; c++)
			m.on[c - LO] = add;
		assert_same(&s, &m);
		check_queries(&s, &m, &x);
	}
	win_set_free(&s);
}

static void test_against_model(void **state)
{
	static const uint64_t seeds[] = { 1, 42, 0x5eed, 20260101, 0xdeadbeefcafeULL };

	(void)state;
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		run_model(seeds[i], 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_add_in_order),
		cmocka_unit_test(test_sub),
		cmocka_unit_test(test_covers_and_find),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_against_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
