/*
 * This file implements the window schedule of a temporal model's run: the
 * range that has closed, widened run windows, the three modes and lookback.
 * It must never look at a warehouse or a clock: the caller brings both.
 */
#include "windows/schedule.h"

#include "core/suggest.h"

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
		out->r = realloc(out->r, out->cap * sizeof(*out->r));
		if (!out->r)
			abort();
	}
	out->r[out->n++] = (struct win_range){ since, until };
}

/* The pieces a range is built in: grid windows, or chunks of a flexible
 * model (its grain's windows when no chunk is given). */
static void cut(const struct win_grid *g, const struct win_ask *ask, int64_t since,
		int64_t until, struct win_list *out)
{
	struct win_set pieces = { 0 };

	if (!g->flex || !ask->chunk) {
		for (int64_t t = since; t < until;) {
			int64_t next = win_add(g->grain, win_floor(g->grain, t), 1);

			push(out, t, next < until ? next : until);
			t = next;
		}
		return;
	}
	win_slice(since, until, ask->chunk, &pieces);
	for (size_t i = 0; i < pieces.n; i++)
		push(out, pieces.r[i].since, pieces.r[i].until);
	win_set_free(&pieces);
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
		cut(g, ask, todo.r[i].since, todo.r[i].until, out);
	win_set_free(&todo);
}
