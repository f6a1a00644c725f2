/*
 * This file implements the coverage algebra: sets of half-open ranges
 * kept as sorted, disjoint, non-touching islands. It must never leave a set outside that invariant
 * after a call (every query is a binary search that trusts it), and never
 * touch a warehouse, a clock or anything but the caller's set.
 */
#include "windows/coverage.h"

#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Room for at least want islands; doubling keeps appends O(1) amortized. */
static void set_reserve(struct win_set *s, size_t want)
{
	size_t cap = s->cap ? s->cap : 8;
	struct win_range *r;

	if (want <= s->cap)
		return;
	while (cap < want)
		cap *= 2;
	r = xreallocarray(s->r, cap, sizeof(*r));
	s->r = r;
	s->cap = cap;
}

/* Replaces islands [lo, hi) with the k ranges of with. */
static void set_splice(struct win_set *s, size_t lo, size_t hi, const struct win_range *with,
		       size_t k)
{
	size_t n = s->n - (hi - lo) + k;

	set_reserve(s, n);
	memmove(s->r + lo + k, s->r + hi, (s->n - hi) * sizeof(*s->r));
	memcpy(s->r + lo, with, k * sizeof(*with));
	s->n = n;
}

size_t win_search(const int64_t *first, size_t n, size_t stride, int64_t t, bool strict)
{
	const char *base = (const char *)first;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t key = *(const int64_t *)(base + mid * stride);

		if (strict ? key <= t : key < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* win_search over islands [from, n), by their since or their until: which
 * bound and which comparison decide whether touching islands count. */
static size_t set_bound(const struct win_set *s, size_t from, int64_t t, bool by_since,
			bool strict)
{
	const struct win_range *r;

	if (from >= s->n)
		return s->n;
	r = s->r + from;
	return from + win_search(by_since ? &r->since : &r->until, s->n - from, sizeof(*r), t,
				 strict);
}

size_t win_set_find(const struct win_set *s, int64_t t)
{
	return set_bound(s, 0, t, false, true);
}

void win_set_add(struct win_set *s, int64_t since, int64_t until)
{
	struct win_range *last = s->n ? &s->r[s->n - 1] : NULL;
	struct win_range merged = { since, until };
	size_t lo, hi;

	if (since >= until)
		return;
	/* the ranges of a run arrive in order: append or extend the last
	 * island without a search */
	if (!last || since > last->until) {
		set_reserve(s, s->n + 1);
		s->r[s->n++] = merged;
		return;
	}
	if (since >= last->since) {
		if (until > last->until)
			last->until = until;
		return;
	}
	/* islands that overlap or touch the range: until >= since, since <= until */
	lo = set_bound(s, 0, since, false, false);
	hi = set_bound(s, lo, until, true, true);
	if (lo < hi) {
		if (s->r[lo].since < merged.since)
			merged.since = s->r[lo].since;
		if (s->r[hi - 1].until > merged.until)
			merged.until = s->r[hi - 1].until;
	}
	set_splice(s, lo, hi, &merged, 1);
}

void win_set_sub(struct win_set *s, int64_t since, int64_t until)
{
	struct win_range keep[2];
	size_t lo, hi, k = 0;

	if (since >= until)
		return;
	/* islands that overlap it: touching ones keep all they have */
	lo = win_set_find(s, since);
	hi = set_bound(s, lo, until, true, false);
	if (lo == hi)
		return;
	if (s->r[lo].since < since)
		keep[k++] = (struct win_range){ s->r[lo].since, since };
	if (s->r[hi - 1].until > until)
		keep[k++] = (struct win_range){ until, s->r[hi - 1].until };
	set_splice(s, lo, hi, keep, k);
}

bool win_set_covers(const struct win_set *s, int64_t since, int64_t until)
{
	size_t i;

	if (since >= until)
		return true;
	i = win_set_find(s, since);
	return i < s->n && s->r[i].since <= since && until <= s->r[i].until;
}

void win_set_gaps(const struct win_set *s, int64_t since, int64_t until, struct win_set *gaps)
{
	int64_t at = since;

	if (since >= until)
		return;
	for (size_t i = win_set_find(s, since); i < s->n && s->r[i].since < until; i++) {
		win_set_add(gaps, at, s->r[i].since);
		at = s->r[i].until; /* find's island ends after since, and the next ones later */
	}
	win_set_add(gaps, at, until);
}

void win_set_free(struct win_set *s)
{
	free(s->r);
	s->r = NULL;
	s->n = s->cap = 0;
}
