/*
 * The coverage algebra: sets of half-open time ranges [since, until) kept
 * as sorted islands (disjoint, none touching the next), with union,
 * subtraction, cover and gap queries. A flexible model's state is such a set, and a gate asks one
 * whether a window is covered. Pure functions over the caller's memory:
 * the set's array is malloc'd and freed by win_set_free; out of memory
 * aborts.
 */
#ifndef SL_WINDOWS_COVERAGE_H
#define SL_WINDOWS_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct win_range {
	int64_t since, until; /* since < until */
};

/* Zero-initialize. Invariant after every call: r[i].since < r[i].until <
 * r[i+1].since. */
struct win_set {
	struct win_range *r;
	size_t n, cap;
};

/* Adds [since, until), coalescing it with every island it overlaps or
 * touches. An empty range (since >= until) changes nothing. Adding ranges
 * in increasing order costs O(1) each. */
void win_set_add(struct win_set *s, int64_t since, int64_t until);
/* Removes [since, until) from the set, splitting an island it cuts. */
void win_set_sub(struct win_set *s, int64_t since, int64_t until);
/* Whether [since, until) lies inside one island (O(log n)). An empty range
 * is covered. */
bool win_set_covers(const struct win_set *s, int64_t since, int64_t until);
/* The parts of [since, until) the set does not cover, appended to *gaps in
 * order. */
void win_set_gaps(const struct win_set *s, int64_t since, int64_t until, struct win_set *gaps);
/* The index of the first island whose until is after t (s->n if none). */
size_t win_set_find(const struct win_set *s, int64_t t);
void win_set_free(struct win_set *s);

/* The first of n ascending keys that is after t (strict) or at least t
 * (n if none), the keys being the int64_t at first, then every stride
 * bytes on: the one binary search that a set's islands and a contract
 * index's rows (src/windows/contract.c) both use. first may be NULL when
 * n is 0. */
size_t win_search(const int64_t *first, size_t n, size_t stride, int64_t t, bool strict);

#endif
