/*
 * A model's windows as runs: consecutive windows in one state (the same
 * status and, for a blocked or failed window, the same reason) as one
 * entry [since, until, status, count, reason], what GET /api/windows/NAME
 * answers and the Windows page draws as one rectangle. The work grows
 * with the rows of `_sluice.windows` (already joined into runs when read,
 * state/windows.h) and the runs answered, never with the windows: a grid
 * of two million pending hours is one run. Pure: the caller reads the rows
 * and the clock.
 */
#ifndef SL_SERVER_WINRUNS_H
#define SL_SERVER_WINRUNS_H

#include "state/windows.h"
#include "windows/grid.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One run: [since, until) in UTC seconds, count windows of a grid (rows
 * of a flexible model or a source: its islands and windows, 0 for time
 * no row covers), why for blocked (what it waits for) and failed (the
 * error) runs, NULL for the others. */
struct win_run {
	int64_t since, until;
	enum state_win_status status;
	int64_t count;
	const char *why;
};

/* Runs in order, at most max of them (malloc'd: win_runs_free). Past
 * max, truncated is set and next is the since of the first run left out,
 * where a client asks again. windows counts the windows of the runs kept. */
struct win_runs {
	struct win_run *r;
	size_t n, cap, max;
	bool truncated;
	int64_t next;
	int64_t windows;
};

/* What is listed: windows that start in [lo, hi); time from closed on has
 * not happened yet (or is past the model's end), and no row recorded
 * there means no window there to list. */
struct win_span {
	int64_t lo, hi, closed;
};

/* The span of a model's windows: from start (or since, when later) to
 * closed or the last row recorded past it (a run with a later clock), cut
 * at until. since and until are INT64_MIN and INT64_MAX when not asked.
 * rows are the model's windows by since, no existence row among them. */
struct win_span win_runs_span(int64_t start, int64_t closed, const struct state_window *rows,
			      size_t n, int64_t since, int64_t until);

/* The runs of a fixed grid of grain g over span, from its rows (sorted by
 * since; a row may stand for a run of windows, and rows of an older grain
 * are read as the CLI lists them: a window takes the state of the row
 * that holds its start). A window no row holds is pending when it has
 * closed, and not listed after. */
void win_runs_grid(struct win_runs *out, enum win_grain g, const struct win_span *span,
		   const struct state_window *rows, size_t n);
/* The runs of a flexible model's rows (coverage islands and windows, by
 * since; a row overlapping the one before counts from where that one
 * ends) over span: each row cut to the span, and the closed time between
 * rows pending with a count of 0. */
void win_runs_cover(struct win_runs *out, const struct win_span *span,
		    const struct state_window *rows, size_t n);

void win_runs_free(struct win_runs *out);

/* Why a row is in its state, as its run says it: what a blocked window
 * waits for, a failed one's error; NULL for an applied or pending one. */
const char *win_run_why(const struct state_window *row);

#endif
