/*
 * Upstream contracts: whether one window of a model may build, given how
 * much of a gated upstream is applied and how recently. An upstream's
 * applied state rows are indexed once (win_index_build) and then answer
 * any number of gate checks, each in O(log n) but for the freshness of a
 * selection of rows (a scan of the rows touching the window, or O(1) from
 * prefix minima and maxima for THROUGH and WHOLE). Pure: no warehouse, no
 * clock (the caller passes now). The levels and their scopes:
 *
 *   EXISTS       always met: the upstream is a model of the project (that
 *                it is one was checked when the project was validated)
 *   EXACT        one applied row equal to [since, until)
 *   ENCAPSULATE  the applied rows cover [since, until): one coarser row,
 *                the exact row, or a gap-free union of finer rows
 *   THROUGH      the applied rows cover [min(start, since), until): every
 *                upstream window from its start through mine
 *   WHOLE        the applied rows cover [start, through) (a temporal
 *                upstream), or its existence row is applied (a timeless one)
 *
 * Freshness looks at the rows the level selects (EXACT: that row;
 * ENCAPSULATE: the rows that intersect my window; THROUGH: those that
 * intersect [start, until); WHOLE: all; timeless: the existence row):
 * latest scope is met when the newest applied_at of them is at least
 * now - fresh, all scope when the oldest is.
 *
 * The same selection says whether a window built at some time is due
 * again (win_rebuilt): a row of it was wholly applied after that, so its
 * data may differ from what the window read (a fixed row built again; a
 * flexible island all of whose coverage was applied since).
 */
#ifndef SL_WINDOWS_CONTRACT_H
#define SL_WINDOWS_CONTRACT_H

#include "windows/coverage.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum win_level { WIN_EXISTS, WIN_EXACT, WIN_ENCAPSULATE, WIN_THROUGH, WIN_WHOLE };
enum win_shape { WIN_TIMELESS, WIN_FIXED, WIN_FLEX };

/* One applied state row of an upstream. A fixed model's rows are its grid
 * windows, a flexible model's its coverage islands, a timeless model's its
 * one existence row (since and until unused). applied_at is the newest
 * application inside the row, oldest_at the oldest (equal but for a
 * flexible island that coalesced several), both seconds since the epoch. */
struct win_row {
	int64_t since, until;
	int64_t applied_at, oldest_at;
};

/* An upstream's applied rows, ready for gate checks. Build with
 * win_index_build, free with win_index_free. */
struct win_index {
	enum win_shape shape;
	int64_t start;   /* the upstream's first window's since (temporal) */
	int64_t through; /* the end of what WHOLE asks for (temporal) */
	struct win_row *rows; /* sorted by since, disjoint */
	size_t n;
	struct win_set cover;     /* the rows' coverage, coalesced */
	int64_t *pre_max, *pre_min; /* over rows[0..i]: newest applied_at, oldest oldest_at */
	/* a max tree of the rows' oldest_at: leaves at [leaves, 2 * leaves) */
	int64_t *built;
	size_t leaves;
};

/* Copies rows (in any order; for a temporal shape they must not overlap)
 * into ix. For WIN_TIMELESS, start and through are unused and n is 0 (not
 * applied) or 1. Out of memory aborts. */
void win_index_build(struct win_index *ix, enum win_shape shape, int64_t start,
		     int64_t through, const struct win_row *rows, size_t n);
void win_index_free(struct win_index *ix);

struct win_contract {
	enum win_level level;
	int64_t fresh;  /* seconds; 0: no freshness gate */
	bool fresh_all; /* all scope; else latest */
};

enum win_verdict {
	WIN_MET,
	WIN_MISSING, /* the level's rows are not all applied */
	WIN_STALE,   /* they are, but too old for the freshness gate */
	WIN_REFUSED, /* the level cannot apply to this upstream's shape */
};

/* Checks contract c of upstream ix for the window [since, until) at time
 * now. WIN_REFUSED, with *why a static message, for EXACT on a flexible
 * upstream and EXACT, ENCAPSULATE or THROUGH on a timeless one. */
enum win_verdict win_gate(const struct win_index *ix, const struct win_contract *c,
			  int64_t since, int64_t until, int64_t now, const char **why);

/* Whether a row that level selects for the window [since, until) of a
 * temporal upstream was wholly applied after `after` (its oldest_at is
 * later): then *from and *to span those rows. False for EXISTS and for a
 * timeless upstream, whose existence row says when it was built, not
 * what changed. O(log n). */
bool win_rebuilt(const struct win_index *ix, enum win_level level, int64_t since,
		 int64_t until, int64_t after, int64_t *from, int64_t *to);

/* The level as written in @upstream ("exact"), and back (-1: unknown). */
const char *win_level_name(enum win_level l);
int win_level_parse(const char *s);

#endif
