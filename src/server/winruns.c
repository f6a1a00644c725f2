/*
 * This file implements a model's windows as runs (winruns.h): walking its
 * rows and the gaps between them, a run at a time, joining neighbours in
 * the same state. It never walks the windows of a run one by one, reads
 * no clock and touches no warehouse.
 */
#include "server/winruns.h"

#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

const char *win_run_why(const struct state_window *row)
{
	return row->status == WINDOW_BLOCKED ? row->reason
	       : row->status == WINDOW_FAILED ? row->error
					       : NULL;
}

/* Appends [since, until) in status, joined to the last run when it goes
 * on from it in the same state; past max, says where the runs stop. */
static void add(struct win_runs *out, int64_t since, int64_t until, enum state_win_status status,
		int64_t count, const char *why)
{
	struct win_run *last = out->n ? &out->r[out->n - 1] : NULL;

	if (since >= until || out->truncated)
		return;
	if (last && last->until == since && last->status == status && same_text(last->why, why)) {
		last->until = until;
		last->count += count;
		out->windows += count;
		return;
	}
	if (out->n == out->max) {
		out->truncated = true;
		out->next = since;
		return;
	}
	if (out->n == out->cap) {
		out->cap = out->cap ? 2 * out->cap : 64;
		out->r = xreallocarray(out->r, out->cap, sizeof(*out->r));
	}
	out->r[out->n++] = (struct win_run){ since, until, status, count, why };
	out->windows += count;
}

struct win_span win_runs_span(int64_t start, int64_t closed, const struct state_window *rows,
			      size_t n, int64_t since, int64_t until)
{
	int64_t last = n && rows[n - 1].until > closed ? rows[n - 1].until : closed;

	return (struct win_span){ .lo = since > start ? since : start,
				  .hi = until < last ? until : last,
				  .closed = closed };
}

/* The first bound of grain g at or after t. */
static int64_t ceil_to(enum win_grain g, int64_t t)
{
	int64_t f = win_floor(g, t);

	return f == t ? t : win_add(g, f, 1);
}

void win_runs_grid(struct win_runs *out, enum win_grain g, const struct win_span *span,
		   const struct state_window *rows, size_t n)
{
	int64_t t = win_floor(g, span->lo), end = ceil_to(g, span->hi);
	size_t i = 0;

	while (t < end && !out->truncated) {
		int64_t u;

		while (i < n && rows[i].until <= t)
			i++;
		if (i < n && rows[i].since <= t) {
			/* the windows whose start the row holds */
			u = ceil_to(g, rows[i].until);
			u = u < end ? u : end;
			add(out, t, u, rows[i].status, win_count(g, t, u), win_run_why(&rows[i]));
		} else {
			/* no row: pending up to the next row, where closed */
			int64_t gap = i < n ? ceil_to(g, rows[i].since) : end;
			int64_t closed = span->closed > t ? span->closed : t;

			u = gap < end ? gap : end;
			closed = closed < u ? closed : u;
			add(out, t, closed, WINDOW_PENDING, win_count(g, t, closed), NULL);
		}
		t = u;
	}
}

void win_runs_cover(struct win_runs *out, const struct win_span *span,
		    const struct state_window *rows, size_t n)
{
	int64_t t = span->lo;

	for (size_t i = 0; i < n && t < span->hi && !out->truncated; i++) {
		int64_t since = rows[i].since > t ? rows[i].since : t;
		int64_t until = rows[i].until < span->hi ? rows[i].until : span->hi;

		if (until <= since)
			continue;
		if (since > t && t < span->closed)
			add(out, t, since < span->closed ? since : span->closed, WINDOW_PENDING, 0,
			    NULL);
		add(out, since, until, rows[i].status, 1, win_run_why(&rows[i]));
		t = until;
	}
	if (t < span->closed && t < span->hi)
		add(out, t, span->closed < span->hi ? span->closed : span->hi, WINDOW_PENDING, 0,
		    NULL);
}

void win_runs_free(struct win_runs *out)
{
	free(out->r);
	*out = (struct win_runs){ 0 };
}
