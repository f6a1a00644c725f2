/*
 * This file implements a temporal model's build: the windows its schedule
 * makes due, gated on its upstreams' contracts, the met ones built each in
 * its own transaction (build.c), shared out among the run's workers, taken
 * in in window order, and the rows of those that did not build recorded
 * after them. It must never build a window outside build_model.
 */
#include "exec/temporal.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/parfor.h"
#include "core/units.h"
#include "project/inputs.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What one of the workers that build windows at once works with: its own
 * connection and arena, kept for the rest of the run. */
struct run_slot {
	struct wh *w;
	struct arena *a;
};

/* Joins the rows of flexible model m that a crash or a failed join left
 * apart into their islands, before its windows are scheduled. */
static int join_loose(struct run *r, const struct model *m, struct sl_err *err)
{
	const struct state_window *loose;
	int rc = 0;

	while (!rc && (loose = run_windows_loose(&r->wins, m)) != NULL) {
		struct state_window row = *loose;

		rc = build_island_join(r, m, &row, err);
	}
	return rc;
}

/* What the blocked windows of a model wait for, one group per reason:
 * "3 windows wait for a.b (encapsulate); 1 for c.d (whole)". */
struct waits {
	const char **reason;
	int64_t *count;
	size_t n;
};

static void waits_add(struct run *r, struct waits *w, const char *reason)
{
	for (size_t i = 0; i < w->n; i++) {
		if (strcmp(w->reason[i], reason) == 0) {
			w->count[i]++;
			return;
		}
	}
	/* few reasons, one per set of upstreams a window waits for: grown by
	 * doubling from one */
	if ((w->n & (w->n - 1)) == 0) {
		const char **reasons = arena_alloc(r->a, (2 * w->n + 1) * sizeof(*reasons));
		int64_t *count = arena_alloc(r->a, (2 * w->n + 1) * sizeof(*count));

		if (w->n) {
			memcpy(reasons, w->reason, w->n * sizeof(*reasons));
			memcpy(count, w->count, w->n * sizeof(*count));
		}
		w->reason = reasons;
		w->count = count;
	}
	w->reason[w->n] = reason;
	w->count[w->n++] = 1;
}

static const char *waits_text(struct run *r, const struct waits *w)
{
	struct buf b = BUF_INIT;
	const char *s;

	for (size_t i = 0; i < w->n; i++)
		buf_addf(&b, "%s%lld%s for %s", i ? "; " : "", (long long)w->count[i],
			 i ? "" : w->count[i] == 1 ? " window waits" : " windows wait", w->reason[i]);
	s = b.len ? arena_strdup(r->a, b.buf) : NULL;
	buf_release(&b);
	return s;
}

/* The row of a window that did not build: blocked with what it waits for,
 * or failed with its error (one more attempt). */
static struct state_window unbuilt_row(const struct run *r, const struct model *m,
				       const struct win_range *win, const char *reason,
				       const char *error)
{
	const struct state_window *old = run_windows_at(&r->wins, m, win->since);

	return (struct state_window){
		.model = m->fqn,
		.since = win->since,
		.until = win->until,
		.status = error ? WINDOW_FAILED : WINDOW_BLOCKED,
		.reason = reason,
		.error = error,
		/* a failure counts the tries since the window last applied */
		.attempts = error ? (old && old->status == WINDOW_FAILED ? old->attempts : 0) + 1
				  : old ? old->attempts : 0,
		.grain = m->flex ? NULL : win_grain_name(m->grain),
	};
}

/* Whether the row of a window that did not build says something new: a
 * flexible model's window inside its applied coverage keeps its data and
 * the island stays as it is; a window blocked for the same reason as
 * before needs no new row. */
static bool worth_recording(const struct run *r, const struct model *m,
			    const struct state_window *row)
{
	const struct state_window *old = run_windows_at(&r->wins, m, row->since);

	if (m->flex && run_windows_covered(&r->wins, m, row->since, row->until))
		return false;
	/* a grid row holds the window: its until is its run's */
	return !old || old->status != row->status ||
	       (old->grain ? old->until < row->until : old->until != row->until) ||
	       row->status == WINDOW_FAILED || !old->reason || !row->reason ||
	       strcmp(old->reason, row->reason) != 0;
}

/* The rows of the windows that did not build, the model's comment when
 * some did, and its run-log row, in one transaction after its windows;
 * when the model was to be built anew and no window was, its old window
 * rows go too. */
static int record_unbuilt(struct run *r, struct run_item *item, const struct state_window *rows,
			  size_t n, bool clear, int64_t started, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	if (clear)
		state_sql_windows_drop(&sql, r->opts->env, item->m->fqn, 0, 0, STATE_DROP_OVERLAPPING);
	for (size_t i = 0; i < n; i++)
		state_sql_window_unbuilt(&sql, r->opts->env, &rows[i],
					 run_windows_at(&r->wins, item->m, rows[i].since));
	rc = run_id_need(r, err);
	if (!rc)
		rc = wh_begin(r->w, err);
	if (!rc && sql.len)
		rc = wh_exec(r->w, sql.buf, err);
	if (!rc && item->windows && item->m->description)
		rc = build_describe(r->w, item->m, err);
	if (!rc && item->status == RUN_FAILED)
		rc = state_run_log(r->w,
				   &(struct state_run_row){ .run_id = r->run_id, .model = item->m->fqn,
							   .env = r->opts->env, .run_type = "batch",
							   .status = "failed", .message = item->message,
							   .rows = item->rows, .started_ms = started,
							   .finished_ms = units_now_ms() },
				   err);
	else if (!rc && item->windows)
		rc = run_log_done(r, item, item->rows, started, err);
	if (!rc)
		rc = wh_commit(r->w, err);
	else
		wh_rollback(r->w);
	buf_release(&sql);
	for (size_t i = 0; !rc && i < n; i++)
		run_windows_put(&r->wins, item->m, &rows[i]);
	return rc;
}

/* What the build of one window came to, taken in by its model's run in
 * window order whichever worker built it. */
struct window_built {
	struct state_window failed; /* status failed: it failed, this its row */
	bool made;                  /* its data committed */
	int64_t rows;
	const char *warning; /* of a failed warn-severity check */
	/* of a window failed or warned: its checks, sample rows and all */
	struct assert_result *asserts;
	size_t nasserts;
	int rc; /* SL_E_SUSPECT: the run stops there, err says why */
	struct sl_err err;
};

/* One window that its gates let through, built in its own transaction.
 * A failure (an error, a failing check, another process's commit undoing
 * it) makes its failed row; else its status is left pending. */
static void build_window(struct run *r, struct model *m, const char *sig,
			 const struct win_range *win, bool fresh, struct window_built *out)
{
	struct run_item one = { .m = m };

	memset(out, 0, sizeof(*out));
	out->failed.status = WINDOW_PENDING;
	out->rc = build_model(r, &one, fresh, sig, win, &out->made, &out->err);
	if (out->rc == SL_E_BUSY) {
		out->rc = 0;
		one.status = RUN_FAILED;
		one.message = "changed by another process meanwhile";
	}
	if (!out->rc && one.status == RUN_FAILED) {
		const char *msg = arena_strdup(r->a, one.message ? one.message : "failed");

		pthread_mutex_lock(r->rows_mu);
		out->failed = unbuilt_row(r, m, win, NULL, msg);
		pthread_mutex_unlock(r->rows_mu);
	} else if (!out->rc) {
		out->rows = one.rows;
		if (one.status == RUN_WARN)
			out->warning = arena_strdup(r->a, one.message);
	}
	out->asserts = one.asserts;
	out->nasserts = one.nasserts;
}

/* The checks of window win, which the model's report shows: they take
 * the place of any it showed. */
static void show_checks(struct run *r, struct run_item *item, const struct win_range *win,
			struct window_built *b)
{
	char since[WIN_TIME_MAX], until[WIN_TIME_MAX];

	win_time_format(win->since, since);
	win_time_format(win->until, until);
	assert_results_free(item->asserts, item->nasserts);
	item->asserts = b->asserts;
	item->nasserts = b->nasserts;
	item->checked_window = arena_sprintf(r->a, "window [%s, %s)", since, until);
	b->asserts = NULL;
	b->nasserts = 0;
}

/* Takes a built window in: counted, or its failed row kept for the
 * model's last transaction. The model's report shows the checks of its
 * first failed window, else of its first warned one. */
static void take_window(struct run *r, struct run_item *item, const struct win_range *win,
			struct window_built *b, struct state_window *unbuilt, size_t *nunbuilt)
{
	if (b->failed.status == WINDOW_FAILED) {
		if (!item->failed_windows++) {
			show_checks(r, item, win, b);
			item->message = arena_sprintf(r->a, "%s: %s", item->checked_window,
						      b->failed.error);
		}
		unbuilt[*nunbuilt] = b->failed;
		*nunbuilt += worth_recording(r, item->m, &unbuilt[*nunbuilt]);
	} else {
		item->windows++;
		item->rows += b->rows;
		if (b->warning && !item->message) {
			show_checks(r, item, win, b);
			item->message = b->warning;
		}
	}
	assert_results_free(b->asserts, b->nasserts);
}

/* The run's workers, opened on first need: up to want of them, as many as
 * connect (the first works on the run's own connection). */
static size_t open_slots(struct run *r, size_t want)
{
	if (!r->slots)
		r->slots = arena_alloc(r->a, r->opts->workers * sizeof(*r->slots));
	while (r->nslots < want) {
		struct run_slot *s = &r->slots[r->nslots];
		struct sl_err err = SL_ERR_INIT;

		s->w = r->w;
		/* a server out of connections leaves the run fewer workers */
		if (r->nslots && wh_connect(r->w, &s->w, &err))
			break;
		s->a = arena_new(r->a);
		r->nslots++;
	}
	return r->nslots < want ? r->nslots : want;
}

void temporal_slots_close(struct run *r)
{
	for (size_t i = 1; i < r->nslots; i++)
		wh_close(r->slots[i].w);
}

struct window_pool {
	struct run *runs; /* per worker, the run on its connection */
	struct model *m;
	const char *sig;
	const struct win_range *go;
	struct window_built *built;
};

static bool pool_build(void *ctx, size_t slot, size_t i)
{
	struct window_pool *p = ctx;

	build_window(&p->runs[slot], p->m, p->sig, &p->go[i], false, &p->built[i]);
	return p->built[i].rc == 0;
}

/* The model's row before its windows are shared out, as a window's
 * transaction writes it when they build one after another: the workers'
 * would all write that one row. Written first, so that a run stopped
 * after some windows leaves it saying what they changed. */
static int record_model(struct run *r, const struct model *m, const char *sig,
			struct sl_err *err)
{
	const struct state_model *st = state_models_find(r->state, r->nstate, m->fqn);
	struct state_model row = build_model_row(r, m, st, sig, true);
	struct buf sql = BUF_INIT;
	int rc;

	state_sql_model(&sql, r->opts->env, &row, st != NULL);
	rc = wh_exec_atomic(r->w, sql.buf, err);
	buf_release(&sql);
	if (!rc) {
		r->version[m->order] = row.data_version;
		run_keep_row(r, &row);
	}
	return rc;
}

/* Builds n windows of m that are not fresh, shared out among the run's
 * workers, the model's row written before them. A model whose builds keep
 * watermarks builds its windows one after the other. Fails only when the
 * model's row could not be written (nothing built). */
static int share_windows(struct run *r, struct model *m, const char *sig,
			 const struct win_range *go, size_t n, struct window_built *built,
			 struct sl_err *err)
{
	struct window_pool p = { .m = m, .sig = sig, .go = go, .built = built };
	size_t nslots = r->opts->workers < n ? r->opts->workers : n;
	int rc = 0;

	if (inputs_tracks(m) && r->book)
		nslots = 1;
	if (nslots > 1) {
		rc = run_id_need(r, err);
		nslots = rc ? 0 : open_slots(r, nslots);
	}
	if (!rc && nslots > 1)
		rc = record_model(r, m, sig, err);
	if (rc)
		return rc;
	if (nslots <= 1) {
		for (size_t i = 0; !rc && i < n; i++) {
			build_window(r, m, sig, &go[i], false, &built[i]);
			rc = built[i].rc;
		}
		return 0;
	}
	p.runs = arena_alloc(r->a, nslots * sizeof(*p.runs));
	for (size_t s = 0; s < nslots; s++) {
		p.runs[s] = *r;
		p.runs[s].w = r->slots[s].w;
		p.runs[s].a = r->slots[s].a;
		p.runs[s].pooled = true;
	}
	parfor(nslots, n, pool_build, &p);
	return 0;
}

/* Builds the windows m's gates let through (n of them, in order) and takes
 * them in, in window order. A fresh build makes the table anew with the
 * first window that builds, alone; the windows after it are shared out
 * among the workers. */
static int build_windows(struct run *r, struct run_item *item, const char *sig,
			 const struct win_range *go, size_t n, bool *fresh,
			 struct state_window *unbuilt, size_t *nunbuilt, struct sl_err *run_err)
{
	struct sl_err err = SL_ERR_INIT;
	struct window_built *built = arena_alloc(r->a, (n + 1) * sizeof(*built));
	size_t first = 0;
	int rc = 0;

	/* the take-in stops at the first that stopped the run: those after it
	 * may not have been started */
	memset(built, 0, (n + 1) * sizeof(*built));
	for (; first < n && *fresh && !rc; first++) {
		build_window(r, item->m, sig, &go[first], true, &built[first]);
		rc = built[first].rc;
		/* the table is made once a window's data committed */
		*fresh = !built[first].made;
	}
	/* the model's row not written, none of the others is built: each
	 * fails with why, and the next run tries them again */
	if (!rc && first < n && share_windows(r, item->m, sig, go + first, n - first,
					      built + first, &err)) {
		const char *msg = arena_sprintf(r->a, "recording the model's row: %s", err.msg);

		if (wh_suspect(r->w, run_err))
			return SL_E_SUSPECT;
		for (size_t i = first; i < n; i++)
			built[i].failed = unbuilt_row(r, item->m, &go[i], NULL, msg);
	}
	for (size_t i = 0; i < n; i++) {
		if (!rc && built[i].rc)
			*run_err = built[i].err;
		rc = rc ? rc : built[i].rc;
		if (!rc)
			take_window(r, item, &go[i], &built[i], unbuilt, nunbuilt);
		else
			assert_results_free(built[i].asserts, built[i].nasserts);
	}
	return rc;
}

/* What a run forgets of m's windows before it schedules them: torch
 * every one, bulldozer a flexible model's coverage of the run window
 * (uncover). A build from scratch forgets them with its first window, so
 * that until then the old ones stand. A dry run forgets in memory only. */
static int forget_windows(struct run *r, const struct model *m, bool full, bool clear,
			  const struct win_ask *uncover, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct state_window *pieces;
	size_t npieces = 0;
	int rc = 0;

	if (uncover) {
		state_sql_windows_drop(&sql, r->opts->env, m->fqn, uncover->since, uncover->until,
				       STATE_DROP_OVERLAPPING);
		run_windows_uncover(&r->wins, m, uncover->since, uncover->until, &pieces, &npieces);
		for (size_t i = 0; i < npieces; i++)
			state_sql_window(&sql, r->opts->env, &pieces[i]);
	} else if (clear) {
		if (!full)
			state_sql_windows_drop(&sql, r->opts->env, m->fqn, 0, 0, STATE_DROP_OVERLAPPING);
		run_windows_clear(&r->wins, m);
	}
	if (sql.len && !r->opts->dry_run)
		rc = wh_exec_atomic(r->w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

/* What the gates of a temporal model's due windows came to: the windows
 * to build, the rows of those that will not (a run of blocked grid
 * windows with one reason is one row until written), grouped waits. */
struct gated {
	struct win_range *go;
	size_t ngo, go_cap;
	struct state_window *unbuilt;
	size_t nunbuilt, unbuilt_cap;
	struct waits waits;
};

/* Makes room for want elements in the array *p of *cap, in the run's
 * arena: growing by doubling keeps a list built one by one linear. */
static void *room_for(struct run *r, void *p, size_t n, size_t *cap, size_t want, size_t size)
{
	void *grown;

	if (want <= *cap)
		return p;
	while (*cap < want)
		*cap = *cap ? 2 * *cap : 16;
	grown = arena_alloc(r->a, *cap * size);
	if (n)
		memcpy(grown, p, n * size);
	return grown;
}

static void unbuilt_add(struct run *r, struct gated *gd, const struct state_window *row)
{
	struct state_window *last = gd->nunbuilt ? &gd->unbuilt[gd->nunbuilt - 1] : NULL;

	if (last && state_window_joins(last, row)) {
		last->until = row->until;
		return;
	}
	gd->unbuilt = room_for(r, gd->unbuilt, gd->nunbuilt, &gd->unbuilt_cap, gd->nunbuilt + 1,
			       sizeof(*gd->unbuilt));
	gd->unbuilt[gd->nunbuilt++] = *row;
}

/* Gates one due window: to build, blocked (its row kept), or, in a dry
 * run, taken as built. SL_E_INVALID, err set, when a contract can never
 * be met: no window of the model builds. */
static int gate_window(struct run *r, struct run_item *item, const struct run_gates *gates,
		       const struct win_range *win, struct gated *gd, struct sl_err *err)
{
	struct model *m = item->m;
	const char *reason;
	int gate = run_gates_check(gates, win->since, win->until, &reason, err);
	struct state_window row;

	if (gate == SL_E_INVALID)
		return gate;
	if (gate == SL_E_BLOCKED) {
		row = unbuilt_row(r, m, win, reason, NULL);
		if (worth_recording(r, m, &row)) {
			/* what a dry run's later models gate on: the run records
			 * the rows once its windows are done */
			if (r->opts->dry_run)
				run_windows_put(&r->wins, m, &row);
			unbuilt_add(r, gd, &row);
		}
		waits_add(r, &gd->waits, reason);
		item->blocked++;
		return 0;
	}
	if (r->opts->dry_run) {
		row = build_applied_row(r, m, win);
		if (m->flex) {
			row = run_windows_island(&r->wins, m, &row);
			run_windows_put_island(&r->wins, m, &row);
		} else {
			run_windows_put(&r->wins, m, &row);
		}
		item->windows++;
		return 0;
	}
	gd->go = room_for(r, gd->go, gd->ngo, &gd->go_cap, gd->ngo + 1, sizeof(*gd->go));
	gd->go[gd->ngo++] = *win;
	return 0;
}

/* A schedule of this many windows or more is told by its runs as well. */
#define RUNS_TOLD_FROM 1000
#define RUNS_TOLD_MAX 3

/* "N windows due", with the runs they lie in when they are many, how
 * many are blocked and, again (may be NULL), which are due again. */
static const char *due_text(struct run *r, const struct win_grid *g, const struct win_ask *ask,
			    const struct win_list *due, const struct run_item *item,
			    const char *again)
{
	struct buf b = BUF_INIT;
	char since[WIN_TIME_MAX], until[WIN_TIME_MAX];
	int64_t n = 0;
	const char *s;

	for (size_t i = 0; i < due->n; i++)
		n += win_run_count(g, ask, due->r[i].since, due->r[i].until);
	if (!n)
		return "no window due";
	buf_addf(&b, "%lld window%s due", (long long)n, n == 1 ? "" : "s");
	for (size_t i = 0; n >= RUNS_TOLD_FROM && i < due->n && i < RUNS_TOLD_MAX; i++) {
		win_time_format(due->r[i].since, since);
		win_time_format(due->r[i].until, until);
		buf_addf(&b, "%s[%s, %s)", i ? ", " : due->n == 1 ? " in " : " in runs ", since,
			 until);
	}
	if (n >= RUNS_TOLD_FROM && due->n > RUNS_TOLD_MAX)
		buf_addf(&b, " and %zu more", due->n - RUNS_TOLD_MAX);
	if (item->blocked)
		buf_addf(&b, ", %lld blocked", (long long)item->blocked);
	if (again)
		buf_addf(&b, ", %s", again);
	s = arena_strdup(r->a, b.buf);
	buf_release(&b);
	return s;
}

/* The model fails as a whole with msg; on record (log) unless the run is
 * dry. */
static void fail_model(struct run *r, struct run_item *item, const char *msg, bool log,
		       int64_t started)
{
	item->status = RUN_FAILED;
	item->message = msg;
	if (log && !r->opts->dry_run)
		run_log_failed(r, item, started);
}

/* A write of the model's rows that failed with err: the model fails, or
 * the run stops when the warehouse is in doubt. */
static int write_failed(struct run *r, struct run_item *item, const struct sl_err *err,
			struct sl_err *run_err)
{
	if (wh_suspect(r->w, run_err))
		return SL_E_SUSPECT;
	fail_model(r, item, arena_strdup(r->a, err->msg), false, 0);
	return 0;
}

/* Gates every due window, cut from its run one at a time. SL_E_INVALID,
 * err set, when a contract can never be met. */
static int gate_due(struct run *r, struct run_item *item, const struct run_gates *gates,
		    const struct win_grid *grid, const struct win_ask *ask,
		    const struct win_list *due, struct gated *gd, struct sl_err *err)
{
	int rc = 0;

	for (size_t k = 0; k < due->n && !rc; k++) {
		for (int64_t t = due->r[k].since; t < due->r[k].until && !rc;) {
			struct win_range win = { t, win_next(grid, ask, t, due->r[k].until) };

			rc = gate_window(r, item, gates, &win, gd, err);
			t = win.until;
		}
	}
	return rc;
}

/* What a temporal model's windows came to, once built or gated. */
static enum run_status windows_status(const struct run *r, const struct run_item *item,
				      const struct win_list *due)
{
	if (!due->n)
		return RUN_UP_TO_DATE;
	return r->opts->dry_run ? (item->windows ? RUN_PLANNED : RUN_BLOCKED)
	       : item->failed_windows ? RUN_FAILED
	       : item->windows	      ? (item->message ? RUN_WARN : RUN_OK)
	       : item->blocked	      ? RUN_BLOCKED
				      : RUN_UP_TO_DATE;
}

/*
 * A temporal model: the windows the run's mode and window make due, each
 * gated on every upstream contract and, when met, built in a transaction
 * of its own (data, checks, window row, model row). A failed window leaves
 * its previous data and is tried again by the next run; the others go on.
 * A dry run decides the same and counts, taking the windows it would build
 * as applied for the models after it. The due windows are cut from their
 * runs one at a time: what a run holds grows with the windows it builds
 * or records, not with those of the grid.
 */
int temporal_build(struct run *r, struct plan_item *pi, const char *sig, struct run_item *item,
		   struct sl_err *run_err)
{
	struct model *m = pi->m;
	struct win_ask ask = r->opts->windows;
	struct win_grid grid = run_windows_grid(m);
	const char *old_grain = run_windows_old_grain(&r->wins, m);
	bool fresh = pi->full, clear = pi->full || ask.mode == WIN_TORCH;
	bool uncover = !clear && m->flex && ask.ranged && ask.mode == WIN_BULLDOZER;
	struct win_list due = { 0 };
	struct run_gates gates;
	struct run_again again;
	struct gated gd = { 0 };
	struct sl_err err = SL_ERR_INIT;
	int64_t started = units_now_ms();
	int rc = 0;

	ask.now = r->now;
	item->action = "windows";
	/* before anything is forgotten: a refused grid changes nothing */
	if (win_grid_check(&grid, r->now, &err)) {
		fail_model(r, item, arena_strdup(r->a, err.msg), true, started);
		return 0;
	}
	if (old_grain && ask.mode != WIN_TORCH) {
		fail_model(r, item,
			   arena_sprintf(r->a, "grain changed from %s to %s: rerun with --mode torch",
					 old_grain, win_grain_name(m->grain)),
			   true, started);
		return 0;
	}
	rc = forget_windows(r, m, pi->full, clear, uncover ? &ask : NULL, &err);
	if (!rc && m->flex && !clear && !r->opts->dry_run)
		rc = join_loose(r, m, &err);
	if (rc)
		return write_failed(r, item, &err, run_err);
	run_gates_open(&r->wins, m, r->now, &gates);
	run_windows_due(&r->wins, m, &ask, &gates, &due, &again);
	rc = gate_due(r, item, &gates, &grid, &ask, &due, &gd, &err);
	run_gates_free(&gates);
	if (rc) { /* a contract that can never be met builds none */
		fail_model(r, item, arena_strdup(r->a, err.msg), false, started);
		rc = 0;
	}
	/* room for the rows of the windows to build that fail */
	gd.unbuilt = room_for(r, gd.unbuilt, gd.nunbuilt, &gd.unbuilt_cap,
			      gd.nunbuilt + gd.ngo + 1, sizeof(*gd.unbuilt));
	if (item->status != RUN_FAILED && gd.ngo)
		rc = build_windows(r, item, sig, gd.go, gd.ngo, &fresh, gd.unbuilt, &gd.nunbuilt,
				   run_err);
	item->waits = waits_text(r, &gd.waits);
	item->reason = due_text(r, &grid, &ask, &due, item, run_again_text(r->a, &again));
	free(due.r);
	if (rc)
		return rc;
	if (item->failed_windows > 1)
		item->message = arena_sprintf(r->a, "%s\n(%lld windows failed)", item->message,
					      (long long)item->failed_windows);
	if (item->status == RUN_FAILED) { /* a contract that can never be met */
		fail_model(r, item, item->message, true, started);
		return 0;
	}
	item->status = windows_status(r, item, &due);
	r->windows_failed[m->order] = item->failed_windows > 0;
	if (r->opts->dry_run || (!gd.nunbuilt && !item->windows && !fresh))
		return 0;
	rc = record_unbuilt(r, item, gd.unbuilt, gd.nunbuilt, fresh, started, &err);
	return rc ? write_failed(r, item, &err, run_err) : 0;
}
