/*
 * `sluice windows MODEL`: a model's window state. A fixed model's grid
 * from its start to the newest closed window, never past its end (a
 * window without a row is pending), a flexible model's coverage islands,
 * a timeless model's existence row; each with its status, when it was
 * applied, its attempts and what it waits for or failed with. `sluice
 * windows SOURCE`: the coverage a source's event_time publishes, as one
 * island. Reads only.
 */
#include "cli/commands.h"

#include "core/arena.h"
#include "core/err.h"
#include "exec/windows.h"
#include "project/dag.h"
#include "project/model.h"
#include "state/state.h"
#include "state/windows.h"
#include "warehouse/wh.h"
#include "windows/grid.h"
#include "windows/schedule.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

struct shown {
	bool json;
	int status; /* only this status, or -1 */
	json_t *list;
	size_t n;
};

/* One row, text or JSON; since and until NULL where there is no bound. */
static void emit(struct shown *sh, const char *since, const char *until,
		 enum state_win_status status, const char *at, int64_t attempts, const char *reason,
		 const char *error)
{
	const char *why = status == WINDOW_FAILED ? error : reason;

	sh->n++;
	if (sh->json) {
		json_t *o = json_object();

		json_object_set_new(o, "since", since ? json_string(since) : json_null());
		json_object_set_new(o, "until", until ? json_string(until) : json_null());
		json_object_set_new(o, "status", json_string(state_win_status_name(status)));
		json_object_set_new(o, "applied_at", *at ? json_string(at) : json_null());
		json_object_set_new(o, "attempts", json_integer(attempts));
		json_object_set_new(o, "blocked_reason", reason ? json_string(reason) : json_null());
		json_object_set_new(o, "error", error ? json_string(error) : json_null());
		json_array_append_new(sh->list, o);
		return;
	}
	printf("%-19s  %-19s  %-8s  %-19s  %8lld  %s\n", since ? since : "-", until ? until : "-",
	       state_win_status_name(status), *at ? at : "-", (long long)attempts, why ? why : "");
}

static void show(struct shown *sh, const struct state_window *w)
{
	char since[WIN_TIME_MAX] = "", until[WIN_TIME_MAX] = "", at[WIN_TIME_MAX] = "";

	if (sh->status >= 0 && (int)w->status != sh->status)
		return;
	if (!w->timeless) {
		win_time_format(w->since, since);
		win_time_format(w->until, until);
	}
	if (w->applied_at)
		win_time_format(w->applied_at, at);
	emit(sh, w->timeless ? NULL : since, w->timeless ? NULL : until, w->status, at,
	     w->attempts, w->reason, w->error);
}

/* The grid windows of [lo, hi) in order, from the rows where there are
 * some (a row may hold a run of them); from closed on, those alone. */
static void show_grid(struct shown *sh, const struct model *m, const struct state_window *rows,
		      size_t n, int64_t lo, int64_t hi, int64_t closed)
{
	size_t i = 0;

	for (int64_t t = win_floor(m->grain, lo); t < hi; t = win_add(m->grain, t, 1)) {
		struct state_window one = { .model = m->fqn, .since = t,
					    .until = win_add(m->grain, t, 1) };

		while (i < n && rows[i].until <= t)
			i++;
		if (i < n && rows[i].since <= t) {
			one = rows[i];
			one.since = t;
			one.until = win_add(m->grain, t, 1);
		} else if (t >= closed) {
			continue;
		}
		show(sh, &one);
	}
}

/* A source's coverage as the island a gate sees: everything before its
 * newest event less its lateness, applied at its newest landing. */
static int show_source(struct shown *sh, struct cli_session *s, const struct source_cfg *src,
		       const char *relation, struct sl_err *err)
{
	struct source_cover c = { 0 };
	char until[WIN_TIME_MAX] = "", at[WIN_TIME_MAX] = "";
	int rc = 0;

	if (s->wh)
		rc = run_windows_source_cover(s->wh, s->arena, src, relation, &c, err);
	if (rc)
		return rc;
	if (c.known) {
		win_time_format(c.until, until);
		win_time_format(c.landed_at, at);
	}
	if (sh->status >= 0 && sh->status != (c.known ? WINDOW_APPLIED : WINDOW_PENDING))
		return 0;
	emit(sh, NULL, c.known ? until : NULL, c.known ? WINDOW_APPLIED : WINDOW_PENDING, at, 0,
	     c.known ? NULL : "nothing landed yet", NULL);
	return 0;
}

int cli_windows(struct cli_args *args)
{
	struct cli_session s;
	struct sl_err err = SL_ERR_INIT;
	struct shown sh = { .json = args->json, .status = -1 };
	struct state_window *rows = NULL;
	size_t n = 0;
	const struct model *m;
	const struct source_cfg *src;
	const char *relation = NULL;
	struct win_grid grid;
	int64_t lo = 0, hi = 0, now;
	int rc;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice windows MODEL|SOURCE [--since T --until T] [--status S] [--json]\n");
		return CLI_USAGE;
	}
	if (args->status && (sh.status = state_win_status_parse(args->status)) < 0) {
		fprintf(stderr, "sluice windows: invalid --status '%s'\n"
				"  hint: pending, applied, blocked or failed\n", args->status);
		return CLI_USAGE;
	}
	if ((args->since && win_time_parse(args->since, &lo)) ||
	    (args->until && win_time_parse(args->until, &hi))) {
		fprintf(stderr, "sluice windows: invalid --%s\n"
				"  hint: a UTC date or time such as 2026-01-01 or '2026-01-01 06:00'\n",
			args->since && win_time_parse(args->since, &lo) ? "since" : "until");
		return CLI_USAGE;
	}
	now = cli_window_clock("windows");
	if (now < 0)
		return CLI_USAGE;
	rc = cli_session_open(&s, args, CLI_OPEN_READ, true);
	if (rc)
		return rc;
	src = dag_model_named(s.project, args->pos[0], NULL)
		      ? NULL
		      : dag_source_named(s.project, args->pos[0], &relation);
	m = src ? NULL : dag_model_named(s.project, args->pos[0], &err);
	if (m && m->mat == MAT_EPHEMERAL) {
		sl_err_set(&err, SL_E_USAGE, "'%s' is ephemeral: it has no windows", m->fqn);
		m = NULL;
	}
	rc = src && !src->event_time
		     ? sl_err_set(&err, SL_E_USAGE,
				  "source '%s' has no event_time: it publishes no coverage\n"
				  "  hint: give it event_time: COLUMN (and lateness: DURATION) in "
				  "sluice.yml",
				  src->name)
	     : src ? 0
	     : !m  ? SL_E_NOTFOUND
		: !s.wh || !dag_relation_exists(s.relations, s.nrelations, STATE_WINDOWS_TABLE)
		? 0
		: state_windows_load(s.wh, s.arena, args->env ? args->env : "", &m->fqn, 1,
					     &rows, &n, &err);
	if (!rc && m && m->temporal && !m->flex) {
		grid = (struct win_grid){ .grain = m->grain, .start = m->start, .end = m->end };
		rc = win_grid_check(&grid, now, &err);
		if (rc)
			sl_err_context(&err, "in model %s (%s)", m->fqn, m->path);
	}
	if (rc) {
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (sh.json)
		sh.list = json_array();
	else
		printf("%-19s  %-19s  %-8s  %-19s  %8s  %s\n", "since", "until", "status", "applied_at",
		       "attempts", "reason");
	if (src) {
		rc = show_source(&sh, &s, src, relation, &err);
	} else if (m->temporal && !m->flex) {
		int64_t closed = win_grid_closed(&grid, now);
		/* the grid ends where its windows stop closing, at end or now;
		 * rows recorded past now (by a run with a later clock) stand */
		int64_t last = n && !rows[n - 1].timeless ? rows[n - 1].until : closed;

		lo = args->since && lo > m->start ? lo : m->start;
		last = last > closed ? last : closed;
		hi = args->until && hi < last ? hi : last;
		show_grid(&sh, m, rows, n, lo, hi, closed);
	} else {
		for (size_t i = 0; i < n; i++)
			if (rows[i].timeless || ((!args->until || rows[i].since < hi) &&
						 (!args->since || rows[i].until > lo)))
				show(&sh, &rows[i]);
	}
	if (rc) {
		if (sh.json)
			json_decref(sh.list);
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (sh.json) {
		json_dumpf(sh.list, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(sh.list);
	} else if (!sh.n) {
		printf("(no windows)\n");
	}
	cli_session_close(&s);
	return CLI_OK;
}
