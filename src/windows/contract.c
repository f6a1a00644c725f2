/*
 * This file implements upstream contracts: the index of an upstream's
 * applied rows and the gate that answers, for one window, whether the
 * contract's level and freshness are met. It must never read a warehouse,
 * a clock or the project: everything it decides comes from the rows and
 * the now it is handed, so that a gate says the same thing every time it
 * is asked, and a dry run decides as a run would.
 */
#include "windows/contract.h"

#include "core/suggest.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char *const level_names[] = {
	[WIN_EXISTS] = "exists",
	[WIN_EXACT] = "exact",
	[WIN_ENCAPSULATE] = "encapsulate",
	[WIN_THROUGH] = "through",
	[WIN_WHOLE] = "whole",
	NULL,
};

const char *win_level_name(enum win_level l)
{
	return (unsigned)l <= WIN_WHOLE ? level_names[l] : "?";
}

int win_level_parse(const char *s)
{
	return suggest_index(s, level_names);
}

static void *copy_of(const void *src, size_t size)
{
	void *p = xmalloc(size);

	if (src)
		memcpy(p, src, size);
	return p;
}

static int row_cmp(const void *a, const void *b)
{
	const struct win_row *x = a, *y = b;

	return (x->since > y->since) - (x->since < y->since);
}

void win_index_build(struct win_index *ix, enum win_shape shape, int64_t start,
		     int64_t through, const struct win_row *rows, size_t n)
{
	memset(ix, 0, sizeof(*ix));
	ix->shape = shape;
	ix->start = start;
	ix->through = through;
	if (!n)
		return;
	ix->n = n;
	ix->rows = copy_of(rows, n * sizeof(*rows));
	ix->pre_max = copy_of(NULL, n * sizeof(*ix->pre_max));
	ix->pre_min = copy_of(NULL, n * sizeof(*ix->pre_min));
	/* a timeless upstream's one row has no bounds to sort or cover by */
	if (shape != WIN_TIMELESS) {
		qsort(ix->rows, n, sizeof(*ix->rows), row_cmp);
		/* in order, so each row costs O(1) */
		for (size_t i = 0; i < n; i++)
			win_set_add(&ix->cover, ix->rows[i].since, ix->rows[i].until);
	}
	for (ix->leaves = 1; ix->leaves < n; ix->leaves *= 2)
		;
	ix->built = copy_of(NULL, 2 * ix->leaves * sizeof(*ix->built));
	for (size_t i = 0; i < ix->leaves; i++)
		ix->built[ix->leaves + i] = i < n ? ix->rows[i].oldest_at : INT64_MIN;
	for (size_t i = ix->leaves - 1; i > 0; i--)
		ix->built[i] = ix->built[2 * i] > ix->built[2 * i + 1] ? ix->built[2 * i]
								       : ix->built[2 * i + 1];
	for (size_t i = 0; i < n; i++) {
		int64_t newest = ix->rows[i].applied_at, oldest = ix->rows[i].oldest_at;

		if (i && ix->pre_max[i - 1] > newest)
			newest = ix->pre_max[i - 1];
		if (i && ix->pre_min[i - 1] < oldest)
			oldest = ix->pre_min[i - 1];
		ix->pre_max[i] = newest;
		ix->pre_min[i] = oldest;
	}
}

void win_index_free(struct win_index *ix)
{
	free(ix->rows);
	free(ix->pre_max);
	free(ix->pre_min);
	free(ix->built);
	win_set_free(&ix->cover);
	memset(ix, 0, sizeof(*ix));
}

/* The first row whose since (by_since) or until is after t (strict) or at
 * least t. Rows are disjoint and sorted by since, so their untils are
 * sorted too and either bound can be searched. */
static size_t row_bound(const struct win_index *ix, int64_t t, bool by_since, bool strict)
{
	if (!ix->n)
		return 0;
	return win_search(by_since ? &ix->rows[0].since : &ix->rows[0].until, ix->n,
			  sizeof(*ix->rows), t, strict);
}

/* The freshness gate over rows [a, b), the level's selection. Rows from
 * the first on are a prefix whose newest and oldest are kept; any other
 * selection is scanned (a window's own rows, few but for a coarse window
 * over a fine upstream). An empty selection has nothing too old. */
static enum win_verdict fresh_rows(const struct win_index *ix, const struct win_contract *c,
				   size_t a, size_t b, int64_t now)
{
	int64_t newest, oldest;

	if (c->fresh <= 0 || a >= b)
		return WIN_MET;
	if (a == 0) {
		newest = ix->pre_max[b - 1];
		oldest = ix->pre_min[b - 1];
	} else {
		newest = ix->rows[a].applied_at;
		oldest = ix->rows[a].oldest_at;
		for (size_t i = a + 1; i < b; i++) {
			if (ix->rows[i].applied_at > newest)
				newest = ix->rows[i].applied_at;
			if (ix->rows[i].oldest_at < oldest)
				oldest = ix->rows[i].oldest_at;
		}
	}
	return (c->fresh_all ? oldest : newest) >= now - c->fresh ? WIN_MET : WIN_STALE;
}

/* The rows that intersect [since, until), as [*a, *b). */
static void rows_touching(const struct win_index *ix, int64_t since, int64_t until, size_t *a,
			  size_t *b)
{
	*a = row_bound(ix, since, false, true);
	*b = row_bound(ix, until, true, false);
}

/* The first (or, last, the last) row in [a, b) built after `after`, in
 * the subtree of node, which spans rows [lo, hi); SIZE_MAX when none. */
static size_t built_after(const struct win_index *ix, size_t node, size_t lo, size_t hi,
			  size_t a, size_t b, int64_t after, bool last)
{
	size_t mid = (lo + hi) / 2, found;

	if (hi <= a || lo >= b || ix->built[node] <= after)
		return SIZE_MAX;
	if (hi - lo == 1)
		return lo;
	found = last ? built_after(ix, 2 * node + 1, mid, hi, a, b, after, last)
		     : built_after(ix, 2 * node, lo, mid, a, b, after, last);
	if (found == SIZE_MAX)
		found = last ? built_after(ix, 2 * node, lo, mid, a, b, after, last)
			     : built_after(ix, 2 * node + 1, mid, hi, a, b, after, last);
	return found;
}

bool win_rebuilt(const struct win_index *ix, enum win_level level, int64_t since,
		 int64_t until, int64_t after, int64_t *from, int64_t *to)
{
	size_t a = 0, b = ix->n, first, last;

	if (ix->shape == WIN_TIMELESS || !ix->n)
		return false;
	switch (level) {
	case WIN_EXISTS:
		return false;
	case WIN_EXACT:
		a = row_bound(ix, since, true, false);
		b = a < ix->n && ix->rows[a].since == since && ix->rows[a].until == until ? a + 1
											 : a;
		break;
	case WIN_ENCAPSULATE:
		rows_touching(ix, since, until, &a, &b);
		break;
	case WIN_THROUGH:
		rows_touching(ix, since < ix->start ? since : ix->start, until, &a, &b);
		break;
	case WIN_WHOLE:
		break;
	}
	first = built_after(ix, 1, 0, ix->leaves, a, b, after, false);
	if (first == SIZE_MAX)
		return false;
	last = built_after(ix, 1, 0, ix->leaves, a, b, after, true);
	*from = ix->rows[first].since;
	*to = ix->rows[last].until;
	return true;
}

#define TIMELESS_REFUSAL(level)                                                  \
	"'" level "' can never be met by a timeless upstream: it has no windows " \
	"(use 'whole' or 'exists')"

/* Why level l can never be met on an upstream of this shape, or NULL: the
 * gate would otherwise block the model forever without saying why. */
static const char *refusal(enum win_shape shape, enum win_level l)
{
	if (shape == WIN_FLEX && l == WIN_EXACT)
		return "'exact' can never be met by a flexible upstream: its rows are coalesced "
		       "into islands, so none keeps a window's bounds (use 'encapsulate')";
	if (shape != WIN_TIMELESS)
		return NULL;
	switch (l) {
	case WIN_EXACT:
		return TIMELESS_REFUSAL("exact");
	case WIN_ENCAPSULATE:
		return TIMELESS_REFUSAL("encapsulate");
	case WIN_THROUGH:
		return TIMELESS_REFUSAL("through");
	default:
		return NULL;
	}
}

enum win_verdict win_gate(const struct win_index *ix, const struct win_contract *c,
			  int64_t since, int64_t until, int64_t now, const char **why)
{
	const char *no = refusal(ix->shape, c->level);
	int64_t from;
	size_t a, b;

	if (why)
		*why = no;
	if (no)
		return WIN_REFUSED;
	switch (c->level) {
	case WIN_EXISTS:
		/* registration only: no rows are selected, so no freshness */
		return WIN_MET;
	case WIN_EXACT:
		a = row_bound(ix, since, true, false);
		if (a == ix->n || ix->rows[a].since != since || ix->rows[a].until != until)
			return WIN_MISSING;
		return fresh_rows(ix, c, a, a + 1, now);
	case WIN_ENCAPSULATE:
		if (!win_set_covers(&ix->cover, since, until))
			return WIN_MISSING;
		rows_touching(ix, since, until, &a, &b);
		return fresh_rows(ix, c, a, b, now);
	case WIN_THROUGH:
		from = since < ix->start ? since : ix->start;
		if (!win_set_covers(&ix->cover, from, until))
			return WIN_MISSING;
		/* a prefix (a == 0) unless rows lie wholly before start */
		rows_touching(ix, ix->start, until, &a, &b);
		return fresh_rows(ix, c, a, b, now);
	case WIN_WHOLE:
		if (ix->shape == WIN_TIMELESS ? ix->n == 0
					      : !win_set_covers(&ix->cover, ix->start, ix->through))
			return WIN_MISSING;
		return fresh_rows(ix, c, 0, ix->n, now);
	}
	if (why)
		*why = "unknown contract level";
	return WIN_REFUSED;
}
