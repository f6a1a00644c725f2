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
 * Pure: the caller passes the time and the coverage.
 */
#ifndef SL_WINDOWS_SCHEDULE_H
#define SL_WINDOWS_SCHEDULE_H

#include "windows/coverage.h"
#include "windows/grid.h"

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

/* A list of windows in order; they may touch. malloc'd: free r. */
struct win_list {
	struct win_range *r;
	size_t n, cap;
};

/* The end of what has closed of g's range at now: for a fixed grid the
 * until of the newest window that has ended, for a flexible one now
 * itself, neither past end. */
int64_t win_grid_closed(const struct win_grid *g, int64_t now);

/* The windows to build, in order, given the applied coverage. A fixed
 * grid's run window is widened to the grid windows it touches. */
void win_schedule(const struct win_grid *g, const struct win_ask *ask,
		  const struct win_set *applied, struct win_list *out);

const char *win_mode_name(enum win_mode m);
/* "discover" -> WIN_DISCOVER; -1 when unknown. */
int win_mode_parse(const char *s);

#endif
