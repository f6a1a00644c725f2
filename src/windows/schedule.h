/*
 * Which windows a run of a temporal model builds. A fixed model's grid is
 * its grain from start up to end, as far as windows have closed (until at
 * or before the run's time); a flexible model's range is the same, sliced
 * by the run's chunk instead of the grid. The mode says how much of the
 * recorded coverage the run throws away first:
 *
 *   discover   keep every applied window; build the rest of the range
 *              (fixed: the grid windows not applied; flexible: the gaps)
 *   bulldozer  build every window of the run window again, applied or not
 *              (flexible: uncover the run window, then cover it)
 *   torch      forget every window, then build the run window (no run
 *              window: the whole range)
 *
 * A run without a run window discovers, and builds its newest lookback
 * windows again (a grid with an end: until lookback windows after it).
 * A schedule is kept as runs of consecutive windows, never one entry per
 * window, so that a grid of a century of hours costs what its few runs do:
 * the windows are cut from a run as they are taken (win_next).
 * Pure: the caller passes the time and the coverage.
 */
#ifndef SL_WINDOWS_SCHEDULE_H
#define SL_WINDOWS_SCHEDULE_H

#include "windows/coverage.h"
#include "windows/grid.h"

struct sl_err;

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum win_mode { WIN_DISCOVER, WIN_BULLDOZER, WIN_TORCH };

/* A temporal model's grid, as @config sets it. */
struct win_grid {
	enum win_grain grain;
	int64_t start, end; /* end INT64_MAX: open */
	int lookback;
	bool flex;
};

/* What the run asks for. */
struct win_ask {
	int64_t now;
	bool ranged; /* a run window [since, until) was given */
	int64_t since, until;
	enum win_mode mode;
	int64_t chunk; /* a flexible model's slice in seconds; 0: its grain */
};

/* A list of runs of windows in order, each cut into windows by win_next;
 * they may touch. malloc'd: free r. */
struct win_list {
	struct win_range *r;
	size_t n, cap;
};

/* The end of what has closed of g's range at now: for a fixed grid the
 * until of the newest window that has ended, for a flexible one now
 * itself, neither past end. */
int64_t win_grid_closed(const struct win_grid *g, int64_t now);

/* The most windows a grid may hold from its start to what has closed: a
 * grid of more (0001-01-01 by the hour: 17.7 million) is refused, as its
 * state would be a row per window and a run of it would never end. Two
 * million is 228 years of hours. */
#define WIN_GRID_MAX 2000000

/* SL_E_INVALID, with a message and a hint, when more than WIN_GRID_MAX
 * windows of g have closed at now; 0 otherwise. */
int win_grid_check(const struct win_grid *g, int64_t now, struct sl_err *err);

/* The runs of windows to build, in order, given the applied coverage. A
 * fixed grid's run window is widened to the grid windows it touches. */
void win_schedule(const struct win_grid *g, const struct win_ask *ask,
		  const struct win_set *applied, struct win_list *out);
/* The until of the window that starts at t in a run ending at until: the
 * next grid bound or chunk multiple, or until. */
int64_t win_next(const struct win_grid *g, const struct win_ask *ask, int64_t t, int64_t until);
/* How many windows the run [since, until) is cut into. */
int64_t win_run_count(const struct win_grid *g, const struct win_ask *ask, int64_t since,
		      int64_t until);

const char *win_mode_name(enum win_mode m);
/* "discover" -> WIN_DISCOVER; -1 when unknown. */
int win_mode_parse(const char *s);

#endif
