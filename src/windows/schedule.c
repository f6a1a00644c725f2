/*
 * This file implements the window schedule of a temporal model's run: the
 * range that has closed, widened run windows, the three modes and lookback.
 * It must never look at a warehouse or a clock: the caller brings both.
 */
#include "windows/schedule.h"

#include "core/err.h"
#include "core/suggest.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = { "discover", "bulldozer", "torch", NULL };

const char *win_mode_name(enum win_mode m)
{
	return mode_names[m];
}

int win_mode_parse(const char *s)
{
	return suggest_index(s, mode_names);
}

int64_t win_grid_closed(const struct win_grid *g, int64_t now)
{
	int64_t t = g->flex ? now : win_floor(g->grain, now);

	if (t > g->end)
		t = g->end;
	return t < g->start ? g->start : t;
}

static void push(struct win_list *out, int64_t since, int64_t until)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? 2 * out->cap : 16;
		out->r = xreallocarray(out->r, out->cap, sizeof(*out->r));
	}
	out->r[out->n++] = (struct win_range){ since, until };
}

int win_grid_check(const struct win_grid *g, int64_t now, struct sl_err *err)
{
	int64_t from = win_floor(g->grain, g->start);
	int64_t to = win_floor(g->grain, win_grid_closed(g, now));
	int64_t n = win_count(g->grain, from, to);
	char start[WIN_TIME_MAX], closed[WIN_TIME_MAX], later[WIN_TIME_MAX];

	if (n <= WIN_GRID_MAX)
		return 0;
	win_time_format(g->start, start);
	win_time_format(to, closed);
	win_time_format(win_add(g->grain, to, -WIN_GRID_MAX), later);
	return sl_err_set(err, SL_E_INVALID,
			  "too many windows: %lld of %s from '%s' to '%s' (at most %d)\n"
			  "  hint: give it a later start (on or after '%s') or a coarser grain",
			  (long long)n, win_grain_name(g->grain), start, closed, WIN_GRID_MAX, later);
}

/* Division rounding toward minus infinity (b > 0), as chunks are cut at
 * multiples of their length before the epoch too. */
static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

/* Runs are cut at grid bounds, or at multiples of a flexible model's
 * chunk (its grain's bounds when no chunk is given). */
static int64_t chunk_of(const struct win_grid *g, const struct win_ask *ask)
{
	return g->flex ? ask->chunk : 0;
}

int64_t win_next(const struct win_grid *g, const struct win_ask *ask, int64_t t, int64_t until)
{
	int64_t chunk = chunk_of(g, ask);
	int64_t next = chunk ? (floor_div(t, chunk) + 1) * chunk
			     : win_add(g->grain, win_floor(g->grain, t), 1);

	return next < until ? next : until;
}

int64_t win_run_count(const struct win_grid *g, const struct win_ask *ask, int64_t since,
		      int64_t until)
{
	int64_t chunk = chunk_of(g, ask), last;

	if (since >= until)
		return 0;
	if (chunk)
		return floor_div(until - 1, chunk) - floor_div(since, chunk) + 1;
	/* the window holding the run's last second closes the count */
	last = win_floor(g->grain, until - 1);
	return win_count(g->grain, win_floor(g->grain, since), last) + 1;
}

void win_schedule(const struct win_grid *g, const struct win_ask *ask,
		  const struct win_set *applied, struct win_list *out)
{
	int64_t lo = g->start, hi = win_grid_closed(g, ask->now);
	struct win_set todo = { 0 };

	if (ask->ranged) {
		int64_t since = g->flex ? ask->since : win_floor(g->grain, ask->since);
		int64_t until = ask->until;

		if (!g->flex && win_floor(g->grain, until) != until)
			until = win_add(g->grain, win_floor(g->grain, until), 1);
		lo = since > lo ? since : lo;
		hi = until < hi ? until : hi;
	}
	if (lo >= hi)
		return;
	if (ask->mode == WIN_DISCOVER || !ask->ranged) {
		if (ask->mode == WIN_DISCOVER)
			win_set_gaps(applied, lo, hi, &todo);
		else
			win_set_add(&todo, lo, hi);
		/* lookback is for rows still arriving: past end it would build
		 * the last windows again forever */
		if (!ask->ranged && ask->mode == WIN_DISCOVER && g->lookback > 0 &&
		    (g->end == INT64_MAX || g->flex ||
		     ask->now < win_add(g->grain, g->end, g->lookback))) {
			int64_t back = g->flex ? hi - (int64_t)g->lookback *
							  (ask->chunk ? ask->chunk
								      : win_add(g->grain, 0, 1))
					       : win_add(g->grain, hi, -g->lookback);

			win_set_add(&todo, back > lo ? back : lo, hi);
		}
	} else {
		win_set_add(&todo, lo, hi);
	}
	for (size_t i = 0; i < todo.n; i++)
		push(out, todo.r[i].since, todo.r[i].until);
	win_set_free(&todo);
}
