/*
 * The executor. Takes the plan of the selected models, then builds each
 * that needs it in its own transaction: data, checks, state row and
 * run-log row commit together or not at all.
 */
#include "exec/run.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/parfor.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "exec/lock.h"
#include "exec/materialize.h"
#include "exec/render.h"
#include "exec/windows.h"
#include "plan/plan.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "state/state.h"
#include "state/windows.h"
#include "warehouse/wh.h"
#include "windows/grid.h"

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

struct run {
	struct arena *a;
	struct project *p;
	struct wh *w;
	const struct run_opts *opts;
	const char *const *relations;
	const char *const *kinds; /* per relation, when the run read them */
	size_t nrelations;
	struct state_model *state;
	size_t nstate;
	const struct run_book *book; /* when a model keeps watermarks */
	struct plan_facts facts;
	int64_t run_id; /* 0 until a build needs one */
	char run_ts[32];
	int64_t *version;       /* per model order: version of its data now */
	enum run_status *status; /* per model order, for models built this run */
	bool *built;
	/* per model order: a temporal model that failed some windows only,
	 * whose readers gate on what it holds instead of being skipped */
	bool *windows_failed;
	struct run_windows wins;
	int64_t now; /* the run's time in UTC seconds, for windows */
	/* per model order: a contract of some model names it */
	bool *gating;
	/* per model order: its window rows are read, being selected or named
	 * by a contract of a selected model */
	bool *wanted;
	bool windowed; /* the project has temporal models or contracts */
	/* wins and the rows' writes are under it while workers build */
	pthread_mutex_t *rows_mu;
	/* a worker's copy of the run: its windows leave the model's row
	 * (which they would all write) to the model's last transaction */
	bool pooled;
	struct run_slot *slots; /* opts->workers of them once opened */
	size_t nslots;
};

const char *run_status_name(enum run_status s)
{
	static const char *const names[] = { "ok", "warn", "failed", "up to date",
					     "upstream failed", "planned", "held", "blocked" };
	return names[s];
}

static bool relation_exists(const struct run *r, const char *fqn)
{
	return dag_relation_exists(r->relations, r->nrelations, fqn);
}

/* What a name held when the run started: "table", "view" or NULL. */
static const char *relation_kind(const struct run *r, const char *fqn)
{
	for (size_t lo = 0, hi = r->nrelations; r->kinds && lo < hi;) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(r->relations[mid], fqn);

		if (!c)
			return r->kinds[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The ephemerals m inlines, directly or through others, each once. */
static void collect_inlined(const struct model *m, const struct model **out, size_t *n, int depth)
{
	for (size_t i = 0; i < m->ndeps && depth < 64; i++) {
		const struct model *d = m->deps[i];
		size_t k = 0;

		if (d->mat != MAT_EPHEMERAL)
			continue;
		while (k < *n && out[k] != d)
			k++;
		if (k < *n)
			continue;
		out[(*n)++] = d;
		collect_inlined(d, out, n, depth + 1);
	}
}

/* Where checks look: a relation's name and, for an ephemeral's own query,
 * the common table expression that gives the query that name (every
 * warehouse takes one; not every one takes a subquery without an alias). */
struct checked {
	const char *with;
	const char *relation;
};

/* Runs the checks of m (the item's model or one it inlines) on `on`,
 * adding their results to the item's. */
static int add_checks(struct run *r, struct run_item *item, const struct model *m,
		      const struct checked *on, struct sl_err *err)
{
	struct assert_result *res;
	size_t n;
	int rc = assert_run_all(r->w, r->a, m, on->with, on->relation, &res, &n, err);

	if (rc)
		return rc;
	item->asserts = xreallocarray(item->asserts, item->nasserts + n + 1, sizeof(*res));
	for (size_t i = 0; i < n; i++) {
		res[i].model = m;
		item->asserts[item->nasserts++] = res[i];
	}
	free(res); /* the samples now belong to the item */
	return 0;
}

/* Where the checks of m look when it is not being built: its relation, or
 * for an ephemeral its own query. */
static int checked_relation(struct run *r, const struct model *m, const struct render_ctx *ctx,
			    struct checked *out, struct sl_err *err)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	*out = (struct checked){ 0 };
	if (m->mat != MAT_EPHEMERAL) {
		wh_sql_qualified(&b, m->schema, m->name);
		out->relation = arena_strdup(r->a, b.buf);
	} else {
		buf_adds(&b, "_sluice_ephemeral AS (\n");
		rc = render_model(m, ctx, false, &b, err);
		buf_adds(&b, "\n)");
		out->with = arena_strdup(r->a, b.buf);
		out->relation = "_sluice_ephemeral";
	}
	buf_release(&b);
	return rc;
}

/* The item's model's own checks on relation, then those of every
 * ephemeral it inlines on that ephemeral's own query: their rows reach it
 * only through the query, so that is where they are checked. */
static int run_checks(struct run *r, struct run_item *item, const struct checked *on,
		      const struct render_ctx *ctx, struct sl_err *err)
{
	const struct model **ephs = arena_alloc(r->a, (r->p->nmodels + 1) * sizeof(*ephs));
	size_t neph = 0;
	int rc = item->m->nasserts ? add_checks(r, item, item->m, on, err) : 0;

	collect_inlined(item->m, ephs, &neph, 0);
	for (size_t i = 0; i < neph && !rc; i++) {
		struct checked eph;

		if (!ephs[i]->nasserts)
			continue;
		rc = checked_relation(r, ephs[i], ctx, &eph, err);
		if (!rc)
			rc = add_checks(r, item, ephs[i], &eph, err);
	}
	return rc;
}

static const char *format_assert_failures(struct run *r, const struct run_item *item)
{
	struct buf b = BUF_INIT;
	const char *s;

	for (size_t i = 0; i < item->nasserts; i++) {
		const struct assert_result *ar = &item->asserts[i];

		if (!ar->failures)
			continue;
		if (b.len)
			buf_adds(&b, "; ");
		buf_addf(&b, "%s@assert %s", ar->check->warn ? "warn: " : "", ar->check->text);
		if (ar->model != item->m)
			buf_addf(&b, " of %s", ar->model->fqn);
		buf_addf(&b, ": %lld failing row%s", (long long)ar->failures,
			 ar->failures == 1 ? "" : "s");
	}
	s = arena_strdup(r->a, b.buf);
	buf_release(&b);
	return s;
}

/* Live refreshes that change nothing need no run id: it is taken on first
 * use, so they cost no query for it. */
static int need_run_id(struct run *r, struct sl_err *err)
{
	return r->run_id ? 0 : state_run_begin(r->w, &r->run_id, err);
}

static void log_failure(struct run *r, const struct run_item *item, int64_t started)
{
	struct state_run_row row = {
		.run_id = r->run_id,
		.model = item->m->fqn,
		.env = r->opts->env,
		.run_type = r->opts->live ? "live" : "batch",
		.status = "failed",
		.message = item->message,
		.started_ms = started,
		.finished_ms = units_now_ms(),
	};
	/* the failure must be on record even though the build rolled back */
	need_run_id(r, NULL);
	row.run_id = r->run_id;
	wh_exec(r->w, "BEGIN TRANSACTION", NULL);
	if (state_run_log(r->w, &row, NULL) == 0)
		wh_exec(r->w, "COMMIT", NULL);
	else
		wh_rollback(r->w);
}

/* The run-log row of a model that ended ok or with warnings. */
static int log_done(struct run *r, const struct run_item *item, int64_t rows, int64_t started,
		    struct sl_err *err)
{
	struct state_run_row row = {
		.run_id = r->run_id,
		.model = item->m->fqn,
		.env = r->opts->env,
		.run_type = "batch",
		.status = item->status == RUN_WARN ? "warn" : "ok",
		.message = item->message,
		.rows = rows,
		.started_ms = started,
		.finished_ms = units_now_ms(),
	};

	return state_run_log(r->w, &row, err);
}

/* A live refresh that changed nothing and whose inputs' versions are the
 * ones on record writes nothing: its watermarks wait in the bookkeeping
 * until a refresh that changes something, or the runner's next checkpoint,
 * writes them. Should the process die first, the next refresh reads those
 * rows again and again finds nothing to apply. On a shared warehouse every
 * refresh writes: what another process finds on record must be what this
 * one consumed. */
static bool quiet(const struct run *r, const struct model *m, const struct state_model *st,
		  const char *sig, bool changed)
{
	return r->opts->live && !changed && st && st->inputs && strcmp(st->inputs, sig) == 0 &&
	       !wh_shared(r->w) && r->book->may_defer(r->book->ctx, m);
}

/* Keeps what a finished model's row now says for the rest of the run and
 * for a caller that holds the rows between runs. */
static void remember(struct run *r, const struct state_model *row)
{
	if (!r->opts->cache)
		return;
	state_cache_put(r->opts->cache, row);
	r->state = r->opts->cache->rows;
	r->nstate = r->opts->cache->n;
	r->facts.state = r->state;
	r->facts.nstate = r->nstate;
}

/* The model's description as its relation's comment, on every build: a
 * rebuild from scratch makes a relation without one. */
static int describe(struct wh *w, const struct model *m, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	wh_sql_comment(&sql, m->mat == MAT_VIEW, m->schema, m->name, m->description);
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

/* A failed build rolls back alone, and the run goes on; unless the
 * warehouse is in doubt (SL_E_SUSPECT, into run_err): then nothing more
 * is written, not even the failure. A build that another process's commit
 * undid (SL_E_BUSY) is rolled back and left to the caller, unrecorded. */
/* Where the checks of a window's build look: the window's rows alone. */
static const char *window_rows(struct run *r, const struct model *m, const char *relation,
			       const struct render_ctx *ctx)
{
	struct buf b = BUF_INIT;
	const char *with;

	buf_addf(&b, "_sluice_window AS (SELECT * FROM %s WHERE ", relation);
	wh_sql_ident(&b, m->time_column);
	buf_addf(&b, " >= TIMESTAMP '%s' AND ", ctx->since);
	wh_sql_ident(&b, m->time_column);
	buf_addf(&b, " < TIMESTAMP '%s')", ctx->until);
	with = arena_strdup(r->a, b.buf);
	buf_release(&b);
	return with;
}

/* The state row a build records beside its data: its window applied, or
 * a timeless model's existence row. */
static struct state_window applied_row(const struct run *r, const struct model *m,
				       const struct win_range *win)
{
	const struct state_window *old = win ? run_windows_at(&r->wins, m, win->since) : NULL;

	return (struct state_window){
		.model = m->fqn,
		.since = win ? win->since : 0,
		.until = win ? win->until : 0,
		.timeless = !win,
		.status = WINDOW_APPLIED,
		.applied_at = r->now,
		/* the tries it took: a window applied before starts again */
		.attempts = (old && old->status == WINDOW_FAILED ? old->attempts : 0) + 1,
		.grain = win && !m->flex ? win_grain_name(m->grain) : NULL,
	};
}

/* Whether a build records its window row: every window, and a timeless
 * model's existence row but on live refreshes, which are many and quick,
 * of a model no contract names. */
static bool records_window(const struct run *r, const struct model *m,
			   const struct win_range *win)
{
	return win || (m->mat != MAT_EPHEMERAL && (!r->opts->live || r->gating[m->order]));
}

/* The model's row after a build of it (changed: its data changed). */
static struct state_model model_row(const struct run *r, const struct model *m,
				    const struct state_model *st, const char *sig, bool changed)
{
	return (struct state_model){
		.name = m->fqn,
		.hash = m->hash,
		.materialized = model_mat_name(m->mat),
		.inputs = sig,
		.last_built_at = r->run_ts,
		.build_count = (st ? st->build_count : 0) + 1,
		.data_version = changed ? r->run_id : (st ? st->data_version : r->run_id),
		/* data the checks did not see is not known to pass them */
		.checks = r->opts->skip_asserts && m->checks_hash[0] ? NULL : m->checks_hash,
	};
}

/*
 * A flexible model's window, its data and its own row committed together,
 * joined into the island it makes with every applied row it reaches, in a
 * transaction of its own: in the window's, the rows of islands the other
 * workers join meanwhile would be taken twice (a deadlock on PostgreSQL, a
 * conflict on DuckDB). Only rows inside the island go, so a window another
 * worker committed beside it and has not joined yet stays. Joining only
 * tidies the rows: a crash or a failure before it leaves the window's row
 * apart, its coverage the same, and a later run joins it. Called with
 * rows_mu held, which orders the islands.
 */
static int coalesce(struct run *r, const struct model *m, const struct state_window *wrow,
		    struct sl_err *err)
{
	struct state_window island = run_windows_island(&r->wins, m, wrow);
	struct buf sql = BUF_INIT;
	int rc;

	state_sql_windows_drop(&sql, r->opts->env, m->fqn, island.since, island.until,
			       STATE_DROP_OVERLAPPING);
	state_sql_window(&sql, r->opts->env, &island);
	rc = wh_exec_atomic(r->w, sql.buf, err);
	buf_release(&sql);
	if (!rc)
		run_windows_put_island(&r->wins, m, &island);
	return rc;
}

/* Joins the rows of flexible model m that a crash or a failed join left
 * apart into their islands, before its windows are scheduled. */
static int join_loose(struct run *r, const struct model *m, struct sl_err *err)
{
	const struct state_window *loose;
	int rc = 0;

	while (!rc && (loose = run_windows_loose(&r->wins, m)) != NULL) {
		struct state_window row = *loose;

		rc = coalesce(r, m, &row, err);
	}
	return rc;
}

/* One build in its own transaction: the whole model, or with win one
 * window of a temporal model (full: the table made anew from it, every
 * window row of the model dropped). *made (may be NULL) says whether its
 * data committed. */
static int build_model(struct run *r, struct run_item *item, bool full, const char *sig,
		       const struct win_range *win, bool *made, struct sl_err *run_err)
{
	struct model *m = item->m;
	const struct state_model *st = state_models_find(r->state, r->nstate, m->fqn);
	struct mat_plan plan = { .full = full, .run_ts = r->run_ts, .old_kind_known = r->kinds != NULL,
				 .old_kind = relation_kind(r, model_relation(m)) };
	struct mat_outcome out = { 0 };
	struct sl_err err = SL_ERR_INIT;
	struct buf sql = BUF_INIT;
	int64_t started = units_now_ms();
	const struct run_book *book = inputs_tracks(m) ? r->book : NULL;
	void *entry = NULL;
	bool silent = false;
	struct state_model row = { 0 };
	struct state_window wrow;
	char since[WIN_TIME_MAX], until[WIN_TIME_MAX];
	int rc, joined = 0;

	pthread_mutex_lock(r->rows_mu);
	wrow = applied_row(r, m, win);
	pthread_mutex_unlock(r->rows_mu);
	plan.ctx.env = r->opts->env;
	plan.a = r->a;
	if (win) {
		/* after the run's first window of the model its table is there */
		if (!full) {
			plan.old_kind_known = true;
			plan.old_kind = "table";
		}
		win_time_format(win->since, since);
		win_time_format(win->until, until);
		plan.ctx.since = since;
		plan.ctx.until = until;
	}
	rc = wh_begin_snapshot(r->w, &err);
	if (!rc && book)
		rc = book->open(book->ctx, r->w, r->a, m, full, &plan.ctx, &entry, &err);
	if (!rc)
		rc = materialize_write(r->w, m, &plan, &out, &err);
	if (!rc && m->checks_hash[0] && !r->opts->skip_asserts)
		rc = run_checks(r, item,
				win ? &(struct checked){ .with = window_rows(r, m, out.relation, &plan.ctx),
							 .relation = "_sluice_window" }
				    : &(struct checked){ .relation = out.relation },
				&plan.ctx, &err);
	if (!rc && assert_errors(item->asserts, item->nasserts)) {
		rc = SL_E_ASSERT;
		item->message = format_assert_failures(r, item);
	}
	if (!rc)
		rc = materialize_publish(r->w, m, &out, &err);
	/* a temporal model's comment is written with the window that makes
	 * its table, alone, and after its windows: in each window's
	 * transaction the workers' would conflict */
	if (!rc && m->description && (!win || full))
		rc = describe(r->w, m, &err);
	if (!rc) {
		/* a window replaced may hold fewer rows than before, or none */
		bool changed = full || out.rows > 0 || m->mat == MAT_VIEW || m->mat == MAT_TABLE ||
			       win;

		silent = book && quiet(r, m, st, sig, changed);
		rc = silent ? 0 : need_run_id(r, &err);
		row = model_row(r, m, st, sig, changed);
		item->message = format_assert_failures(r, item);
		if (!*item->message)
			item->message = NULL;
		item->status = item->message ? RUN_WARN : RUN_OK;
	}
	if (!rc && !silent) {
		if (!r->pooled)
			state_sql_model(&sql, r->opts->env, &row, st != NULL);
		if (full && win)
			state_sql_windows_drop(&sql, r->opts->env, m->fqn, 0, 0, STATE_DROP_OVERLAPPING);
		/* a flexible window's own row, joined into its island after */
		else if (win && m->flex)
			state_sql_windows_drop(&sql, r->opts->env, m->fqn, win->since, win->until,
					       STATE_DROP_INSIDE);
		if (records_window(r, m, win))
			state_sql_window(&sql, r->opts->env, &wrow);
	}
	if (!rc && book)
		rc = book->close(book->ctx, r->w, m, entry, out.rows, full, silent ? NULL : &sql,
				 &err);
	/* live refreshes are logged in aggregate by the runner, windows by
	 * their model's run */
	if (!rc && !silent && !r->opts->live && !win) {
		rc = wh_exec(r->w, sql.buf, &err);
		buf_reset(&sql);
		if (!rc)
			rc = log_done(r, item, out.rows, started, &err);
	}
	if (!rc && sql.len)
		rc = wh_exec(r->w, sql.buf, &err);
	buf_release(&sql);
	if (!rc)
		rc = wh_commit(r->w, &err);
	if (!rc) {
		pthread_mutex_lock(r->rows_mu);
		if (full && win)
			run_windows_clear(&r->wins, m);
		if (win && m->flex) {
			run_windows_add(&r->wins, m, &wrow);
			joined = coalesce(r, m, &wrow, &err);
		} else if (!silent && records_window(r, m, win)) {
			run_windows_put(&r->wins, m, &wrow);
		}
		pthread_mutex_unlock(r->rows_mu);
	}
	if (!rc && !r->pooled) {
		r->version[m->order] = row.data_version;
		if (book && !silent)
			book->saved(book->ctx, m);
		if (!silent)
			remember(r, &row);
	}
	if (made)
		*made = !rc;
	item->rows = out.rows;
	item->action = out.action;
	/* a window whose row stands apart is built: the next run joins it */
	if (joined && wh_suspect(r->w, run_err)) {
		sl_err_context(run_err, "in model %s (%s)", m->fqn, m->path);
		return SL_E_SUSPECT;
	}
	if (rc && wh_suspect(r->w, run_err)) {
		if (entry)
			book->abort(book->ctx, entry);
		sl_err_context(run_err, "in model %s (%s)", m->fqn, m->path);
		return SL_E_SUSPECT;
	}
	if (rc) {
		wh_rollback(r->w);
		if (entry)
			book->abort(book->ctx, entry);
	}
	/* undone by another process's commit: the caller tries again */
	if (rc == SL_E_BUSY)
		return SL_E_BUSY;
	if (rc) {
		item->status = RUN_FAILED;
		item->had_previous = relation_exists(r, model_relation(m));
		if (!item->message)
			item->message = arena_strdup(r->a, err.msg);
		if (!win)
			log_failure(r, item, started);
	}
	return 0;
}

/*
 * A model whose data is up to date but whose checks are due, or one that
 * `sluice test` checks: the checks run in a transaction of their own on the
 * data as it is. When they hold, a run records them in the model's row
 * (and, for a view, the inputs they held on), with a run-log row; a test
 * writes nothing. A failing error-severity check fails the model.
 */
static int check_model(struct run *r, struct run_item *item, const char *sig,
		       struct sl_err *run_err)
{
	const struct model *m = item->m;
	const struct state_model *st = state_models_find(r->state, r->nstate, m->fqn);
	struct render_ctx ctx = { .env = r->opts->env };
	struct state_model row = { 0 };
	struct buf sql = BUF_INIT;
	struct checked on;
	struct sl_err err = SL_ERR_INIT;
	int64_t started = units_now_ms();
	bool record = !r->opts->test && st;
	int rc = checked_relation(r, m, &ctx, &on, &err);

	item->checks_only = true;
	item->action = "checked";
	if (!rc)
		rc = wh_begin_snapshot(r->w, &err);
	if (!rc)
		rc = run_checks(r, item, &on, &ctx, &err);
	if (!rc) {
		item->message = format_assert_failures(r, item);
		if (!*item->message)
			item->message = NULL;
		item->status = !item->message ? RUN_OK : assert_errors(item->asserts, item->nasserts)
								 ? RUN_FAILED
								 : RUN_WARN;
		if (item->status == RUN_FAILED)
			rc = SL_E_ASSERT;
	}
	if (!rc && record) {
		row = *st;
		row.inputs = sig;
		row.checks = m->checks_hash;
		state_sql_model(&sql, r->opts->env, &row, true);
		rc = need_run_id(r, &err);
	}
	if (!rc && record)
		rc = wh_exec(r->w, sql.buf, &err);
	if (!rc && record && !r->opts->live)
		rc = log_done(r, item, 0, started, &err);
	if (!rc && record)
		rc = wh_commit(r->w, &err);
	else if (!rc)
		wh_rollback(r->w);
	buf_release(&sql);
	if (!rc && record)
		remember(r, &row);
	if (rc && wh_suspect(r->w, run_err)) {
		sl_err_context(run_err, "in model %s (%s)", m->fqn, m->path);
		return SL_E_SUSPECT;
	}
	if (rc) {
		wh_rollback(r->w);
		item->status = RUN_FAILED;
		if (!item->message)
			item->message = arena_strdup(r->a, err.msg);
		if (!r->opts->test)
			log_failure(r, item, started);
	}
	return 0;
}

static bool upstream_failed(const struct run *r, const struct model *m)
{
	for (size_t i = 0; i < m->ndeps; i++) {
		const struct model *d = m->deps[i];

		if (r->built[d->order] && !r->windows_failed[d->order] &&
		    (r->status[d->order] == RUN_FAILED || r->status[d->order] == RUN_UPSTREAM_FAILED))
			return true;
		if (d->mat == MAT_EPHEMERAL && upstream_failed(r, d))
			return true;
	}
	return false;
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
	rc = need_run_id(r, err);
	if (!rc)
		rc = wh_begin(r->w, err);
	if (!rc && sql.len)
		rc = wh_exec(r->w, sql.buf, err);
	if (!rc && item->windows && item->m->description)
		rc = describe(r->w, item->m, err);
	if (!rc && item->status == RUN_FAILED)
		rc = state_run_log(r->w,
				   &(struct state_run_row){ .run_id = r->run_id, .model = item->m->fqn,
							   .env = r->opts->env, .run_type = "batch",
							   .status = "failed", .message = item->message,
							   .rows = item->rows, .started_ms = started,
							   .finished_ms = units_now_ms() },
				   err);
	else if (!rc && item->windows)
		rc = log_done(r, item, item->rows, started, err);
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

static void close_slots(struct run *r)
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
	struct state_model row = model_row(r, m, st, sig, true);
	struct buf sql = BUF_INIT;
	int rc;

	state_sql_model(&sql, r->opts->env, &row, st != NULL);
	rc = wh_exec_atomic(r->w, sql.buf, err);
	buf_release(&sql);
	if (!rc) {
		r->version[m->order] = row.data_version;
		remember(r, &row);
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
		rc = need_run_id(r, err);
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
		row = applied_row(r, m, win);
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
static int build_temporal(struct run *r, struct plan_item *pi, const char *sig,
			  struct run_item *item, struct sl_err *run_err)
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
		item->status = RUN_FAILED;
		item->message = arena_strdup(r->a, err.msg);
		if (!r->opts->dry_run)
			log_failure(r, item, started);
		return 0;
	}
	if (old_grain && ask.mode != WIN_TORCH) {
		item->status = RUN_FAILED;
		item->message = arena_sprintf(r->a, "grain changed from %s to %s: rerun with --mode torch",
					      old_grain, win_grain_name(m->grain));
		if (!r->opts->dry_run)
			log_failure(r, item, started);
		return 0;
	}
	rc = forget_windows(r, m, pi->full, clear, uncover ? &ask : NULL, &err);
	if (!rc && m->flex && !clear && !r->opts->dry_run)
		rc = join_loose(r, m, &err);
	if (rc && wh_suspect(r->w, run_err))
		return SL_E_SUSPECT;
	if (rc) {
		item->status = RUN_FAILED;
		item->message = arena_strdup(r->a, err.msg);
		return 0;
	}
	run_gates_open(&r->wins, m, r->now, &gates);
	run_windows_due(&r->wins, m, &ask, &gates, &due, &again);
	for (size_t k = 0; k < due.n && !rc; k++) {
		for (int64_t t = due.r[k].since; t < due.r[k].until && !rc;) {
			struct win_range win = { t, win_next(&grid, &ask, t, due.r[k].until) };

			rc = gate_window(r, item, &gates, &win, &gd, &err);
			t = win.until;
		}
	}
	run_gates_free(&gates);
	if (rc) { /* a contract that can never be met builds none */
		item->status = RUN_FAILED;
		item->message = arena_strdup(r->a, err.msg);
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
		if (!r->opts->dry_run)
			log_failure(r, item, started);
		return 0;
	}
	item->status = r->opts->dry_run ? (item->windows ? RUN_PLANNED : RUN_BLOCKED)
		       : item->failed_windows ? RUN_FAILED
		       : item->windows	      ? (item->message ? RUN_WARN : RUN_OK)
		       : item->blocked	      ? RUN_BLOCKED
					      : RUN_UP_TO_DATE;
	if (!due.n)
		item->status = RUN_UP_TO_DATE;
	r->windows_failed[m->order] = item->failed_windows > 0;
	if (r->opts->dry_run || (!gd.nunbuilt && !item->windows && !fresh))
		return 0;
	rc = record_unbuilt(r, item, gd.unbuilt, gd.nunbuilt, fresh, started, &err);
	if (rc && wh_suspect(r->w, run_err)) {
		sl_err_context(run_err, "in model %s (%s)", m->fqn, m->path);
		return SL_E_SUSPECT;
	}
	if (rc) {
		item->status = RUN_FAILED;
		item->message = arena_strdup(r->a, err.msg);
	}
	return 0;
}

/* row (its strings in r->a), another process's build of its model, in
 * place of the one the run read at its start, or added: the decision and
 * the build of that model go by it (an update of the row, not a second
 * one), and the models after it by its data version. */
static void adopt(struct run *r, const struct model *m, const struct state_model *row)
{
	struct state_model *at;

	r->version[m->order] = row->data_version;
	if (r->opts->cache) {
		remember(r, row);
		return;
	}
	at = (struct state_model *)state_models_find(r->state, r->nstate, row->name);
	if (!at) {
		struct state_model *rows = arena_alloc(r->a, (r->nstate + 2) * sizeof(*rows));

		if (r->nstate)
			memcpy(rows, r->state, r->nstate * sizeof(*rows));
		r->state = rows;
		at = &r->state[r->nstate++];
	}
	*at = *row;
	r->facts.state = r->state;
	r->facts.nstate = r->nstate;
}

/* Puts what fqn holds now (kind "table" or "view", NULL: nothing) in the
 * run's sorted list of relations, in place of what it held when the run
 * read the list. The list may be the caller's: a changed one is a copy. */
static void relation_put(struct run *r, const char *fqn, const char *kind)
{
	size_t lo = 0, hi = r->nrelations, n = r->nrelations;
	bool found = false;
	const char **names, **kinds = NULL;

	while (lo < hi && !found) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(r->relations[mid], fqn);

		if (!c)
			lo = mid, found = true;
		else if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (found == (kind != NULL) &&
	    (!kind || !r->kinds || strcmp(r->kinds[lo], kind) == 0))
		return;
	names = arena_alloc(r->a, (n + 2) * sizeof(*names));
	if (r->kinds)
		kinds = arena_alloc(r->a, (n + 2) * sizeof(*kinds));
	/* entries before lo stay, then fqn (when it is there), then the rest */
	for (size_t i = 0; i < lo; i++) {
		names[i] = r->relations[i];
		if (kinds)
			kinds[i] = r->kinds[i];
	}
	n = lo;
	if (kind) {
		names[n] = arena_strdup(r->a, fqn);
		if (kinds)
			kinds[n] = kind;
		n++;
	}
	for (size_t i = lo + found; i < r->nrelations; i++, n++) {
		names[n] = r->relations[i];
		if (kinds)
			kinds[n] = r->kinds[i];
	}
	r->relations = names;
	r->kinds = kinds;
	r->nrelations = n;
	r->facts.relations = names;
	r->facts.nrelations = n;
}

/* On a shared warehouse, once the model's lock is taken: another process
 * may have built the model since the run read the warehouse (whether this
 * one waited for its lock or not), made its relation, applied its windows.
 * What the warehouse holds of it is read again (its relation, its window
 * rows, its row) and the decision taken anew on that, its inputs being
 * where they were: that build may have left this one nothing to do. Only
 * that model: the others are as the run knows them. */
static int decide_again(struct run *r, struct plan_item *pi, const char *sig,
			struct sl_err *err)
{
	const char *env = r->opts->env ? r->opts->env : "";
	const struct model *m = pi->m;
	struct state_model row;
	const char *kind;
	bool found = false;
	int rc = wh_relation_kind(r->w, r->a, m->schema, m->name, &kind, err);

	if (!rc)
		relation_put(r, model_relation(m), kind);
	if (!rc && m->temporal && r->windowed)
		rc = run_windows_reload(&r->wins, r->w, m, err);
	if (!rc)
		rc = state_model_load(r->w, r->a, env, m->fqn, &row, &found, err);
	if (rc)
		return rc;
	if (found)
		adopt(r, pi->m, &row);
	plan_decide(&r->facts, pi->m, sig, pi);
	pi->sig = sig;
	return 0;
}

/* How often a batch build is tried when other processes keep undoing it. */
#define BUSY_ATTEMPTS 3

/* Builds or checks the item under the model's build lock. The live runner
 * never waits for it: a model another build holds is held back. */
static int locked_build(struct run *r, struct plan_item *pi, const char *sig,
			struct run_item *item, struct sl_err *err)
{
	const struct model *m = pi->m;
	bool got = true, waited = false;
	int unlocked;
	int rc = r->opts->live || r->opts->no_wait
			 ? build_lock_try(r->w, model_relation(m), &got, err)
			 : build_lock(r->w, model_relation(m), &waited, err);

	if (rc)
		return rc;
	if (!got) {
		item->status = RUN_HELD;
		item->reason = "being built by another run";
		return 0;
	}
	if (wh_shared(r->w))
		rc = decide_again(r, pi, sig, err);
	item->reason = pi->reason;
	item->checks_only = pi->what == PLAN_CHECK;
	if (!rc && pi->m->temporal && pi->what != PLAN_CHECK) {
		rc = build_temporal(r, pi, sig, item, err);
		pi->what = PLAN_UP_TO_DATE; /* done: no build loop below */
	} else if (!rc && pi->what == PLAN_UP_TO_DATE) {
		item->status = RUN_UP_TO_DATE;
	} else if (!rc && pi->what == PLAN_CHECK) {
		rc = check_model(r, item, sig, err);
	}
	/* a batch build tries again what another process undid; the runner
	 * holds the model back until its next cycle */
	for (int attempt = 0; !rc && pi->what != PLAN_UP_TO_DATE && pi->what != PLAN_CHECK;
	     attempt++) {
		rc = build_model(r, item, pi->full, sig, NULL, NULL, err);
		if (rc != SL_E_BUSY)
			break;
		rc = 0;
		if (r->opts->live || attempt == BUSY_ATTEMPTS - 1) {
			item->status = r->opts->live ? RUN_HELD : RUN_FAILED;
			item->reason = "changed by another process meanwhile";
			item->message = r->opts->live ? NULL : item->reason;
			break;
		}
	}
	unlocked = build_unlock(r->w, model_relation(m), rc ? NULL : err);
	return rc ? rc : unlocked;
}

/* Whether a timeless model waits for its upstreams' contracts (whole,
 * exists); says for what in item. A contract that can never be met fails
 * it when it builds. */
static bool gated(struct run *r, const struct model *m, struct run_item *item)
{
	struct run_gates gates;
	const char *reason = NULL;
	int rc;

	run_gates_open(&r->wins, m, r->now, &gates);
	rc = gates.n ? run_gates_check(&gates, 0, 0, &reason, NULL) : 0;
	run_gates_free(&gates);
	if (rc != SL_E_BLOCKED)
		return false;
	item->reason = arena_sprintf(r->a, "waits for %s", reason);
	return true;
}

/* One item of the plan, its inputs being at sig now. A decision that
 * rested on inputs this run built is taken again on what they became, and
 * the caller is asked again whether to hold the model back. */
static int execute(struct run *r, struct plan_item *pi, const char *sig, struct run_item *item,
		   struct sl_err *err)
{
	const struct model *m = pi->m;
	const char *held = r->facts.hold ? r->facts.hold(r->facts.hold_ctx, m) : NULL;
	int rc = 0;

	/* what holds a model back can end while the run goes, as when the
	 * input it waited for recovers; a dry run decides a temporal model
	 * with nothing due again on the windows its upstreams would hold by
	 * its turn, which may make its own due again */
	if (held) {
		pi->what = PLAN_HELD;
		pi->reason = held;
	} else if (pi->what == PLAN_HELD || (!r->opts->dry_run && strcmp(pi->sig, sig) != 0) ||
		   (r->opts->dry_run && m->temporal && pi->what == PLAN_UP_TO_DATE)) {
		plan_decide(&r->facts, pi->m, sig, pi);
		pi->sig = sig;
	}
	item->reason = pi->reason;
	item->checks_only = pi->what == PLAN_CHECK;
	/* a batch run holds every model to its contracts, one whose data is
	 * up to date too: a stalled upstream shows as a wait */
	if ((pi->what == PLAN_BUILD || (pi->what == PLAN_UP_TO_DATE && !r->opts->live)) &&
	    !m->temporal && gated(r, m, item)) {
		item->status = RUN_BLOCKED;
	} else if (pi->what == PLAN_HELD) {
		item->status = RUN_HELD;
	} else if (pi->what == PLAN_UP_TO_DATE) {
		item->status = RUN_UP_TO_DATE;
	} else if (r->opts->dry_run && m->temporal && pi->what == PLAN_BUILD) {
		rc = build_temporal(r, pi, sig, item, err);
	} else if (r->opts->dry_run) {
		/* what the models after it gate on: the run records its row */
		if (pi->what == PLAN_BUILD && records_window(r, m, NULL)) {
			struct state_window row = applied_row(r, m, NULL);

			run_windows_put(&r->wins, m, &row);
		}
		item->status = RUN_PLANNED;
	} else {
		rc = locked_build(r, pi, sig, item, err);
	}
	return rc;
}

/* Whether temporal model m has windows this run would build, its
 * contracts aside. */
static bool windows_due(void *ctx, const struct model *m)
{
	struct run *r = ctx;
	struct win_ask ask = r->opts->windows;
	struct win_list due = { 0 };
	struct run_gates gates;
	bool any;

	ask.now = r->now;
	if (ask.mode == WIN_TORCH)
		return true;
	run_gates_open(&r->wins, m, r->now, &gates);
	run_windows_due(&r->wins, m, &ask, &gates, &due, NULL);
	run_gates_free(&gates);
	any = due.n > 0;
	free(due.r);
	return any;
}

/* A build of a model that keeps watermarks records them, so a run that
 * may build one must have been given the bookkeeping. */
static int need_book(const struct run *r, const bool *selected, struct sl_err *err)
{
	/* the watermarks a model consumed are the main tables' own: an
	 * environment that shared them would make the main run skip rows */
	for (size_t i = 0; r->opts->env && *r->opts->env && i < r->p->nmodels; i++)
		if (selected[i] && inputs_tracks(r->p->models[i]))
			return sl_err_set(err, SL_E_USAGE,
					  "model %s keeps watermarks of live inputs, which an "
					  "environment does not keep apart yet\n"
					  "  hint: leave it out of the selection of the env run (-s)",
					  r->p->models[i]->fqn);
	if (r->book || r->opts->dry_run || r->opts->test)
		return 0;
	for (size_t i = 0; i < r->p->nmodels; i++)
		if (selected[i] && inputs_tracks(r->p->models[i]))
			return sl_err_set(err, SL_E_INTERNAL,
					  "model %s keeps watermarks, and the run was given no "
					  "bookkeeping for them",
					  r->p->models[i]->fqn);
	return 0;
}

/* A dry run reads the state when there is one and writes nothing; its run
 * id stands above every recorded version. */
static int open_state(struct run *r, struct sl_err *err)
{
	const char *env = r->opts->env ? r->opts->env : "";
	struct state_cache *cache = r->opts->cache;
	int rc;

	if (!r->opts->dry_run && !r->opts->test) {
		const char **names, **kinds;

		rc = r->opts->state_ready ? 0 : state_ensure(r->w, err);
		/* one catalog read for the whole run, instead of one per model */
		if (!rc && r->opts->kinds) {
			r->kinds = r->opts->kinds;
		} else if (!rc) {
			rc = wh_relation_kinds(r->w, r->a, &names, &kinds, &r->nrelations, err);
			r->relations = names;
			r->kinds = kinds;
		}
		if (!rc && cache && !cache->loaded)
			rc = state_cache_load(cache, r->w, env, err);
		if (!rc && cache) {
			r->state = cache->rows;
			r->nstate = cache->n;
		} else if (!rc) {
			rc = state_models_load(r->w, r->a, env, &r->state, &r->nstate, err);
		}
		if (!rc)
			rc = run_windows_load(&r->wins, r->a, r->p, r->windowed ? r->w : NULL, env,
					      r->wanted, err);
		/* a batch run reports its id even when everything is up to date */
		return rc || r->opts->live ? rc : need_run_id(r, err);
	}
	r->run_id = INT64_MAX;
	if (!r->w || !relation_exists(r, "_sluice.models"))
		return run_windows_load(&r->wins, r->a, r->p, NULL, env, NULL, err);
	rc = state_models_load(r->w, r->a, env, &r->state, &r->nstate, err);
	return rc ? rc
		  : run_windows_load(&r->wins, r->a, r->p,
				     r->windowed && relation_exists(r, "_sluice.windows") ? r->w
											 : NULL,
				     env, r->wanted, err);
}

int build_run(struct arena *a, struct project *p, struct wh *w, const char *const *relations,
	      size_t nrelations, const struct run_opts *opts, struct run_report *report,
	      struct sl_err *err)
{
	pthread_mutex_t rows_mu = PTHREAD_MUTEX_INITIALIZER;
	struct run r = { .a = a, .p = p, .w = w, .opts = opts, .relations = relations,
			 .nrelations = nrelations, .book = opts->book, .rows_mu = &rows_mu };
	bool *selected = arena_alloc(a, (p->nmodels + 1) * sizeof(bool));
	int64_t t0 = units_mono_ms();
	struct plan plan = { 0 };
	size_t total = 0, idx = 0, next = 0;
	int64_t now_ms;
	int rc;

	memset(report, 0, sizeof(*report));
	rc = dag_select(p, opts->selector, selected, err);
	for (size_t i = 0; !rc && i < p->nmodels; i++) {
		const struct model *m = p->models[i];

		if ((opts->seeds_only && m->mat != MAT_SEED) || (opts->pick && !opts->pick(opts->ctx, m)) ||
		    (opts->test && !m->checks_hash[0]))
			selected[i] = false;
		total += selected[i] && (m->mat != MAT_EPHEMERAL || opts->test);
	}
	r.gating = arena_alloc(a, (p->nmodels + 1) * sizeof(bool));
	memset(r.gating, 0, (p->nmodels + 1) * sizeof(bool));
	r.wanted = arena_alloc(a, (p->nmodels + 1) * sizeof(bool));
	memcpy(r.wanted, selected, p->nmodels * sizeof(bool));
	/* the window rows are read when a selected model has windows or
	 * gates: a live runner's cycles, say, need none */
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];

		r.windowed |= selected[i] && m->temporal;
		for (size_t k = 0; k < m->nupstreams; k++) {
			if (m->upstreams[k].level >= 0 && m->upstreams[k].target) {
				r.gating[m->upstreams[k].target->order] = true;
				r.wanted[m->upstreams[k].target->order] |= selected[i];
			}
			if (m->upstreams[k].level >= 0 &&
			    (m->upstreams[k].target || model_upstream_streams(&m->upstreams[k])))
				r.windowed |= selected[i];
		}
	}
	if (!rc)
		rc = need_book(&r, selected, err);
	if (!rc)
		rc = open_state(&r, err);
	if (!rc && r.windowed)
		rc = run_windows_load_sources(&r.wins, r.w, selected, err);
	if (rc)
		return rc;
	now_ms = units_now_ms();
	r.now = opts->windows.now ? opts->windows.now : now_ms / 1000;
	units_format_ts(now_ms, r.run_ts, sizeof(r.run_ts));
	r.facts = (struct plan_facts){
		.p = p,
		.state = r.state,
		.nstate = r.nstate,
		.relations = r.relations,
		.nrelations = r.nrelations,
		.full_refresh = opts->full_refresh,
		.skip_checks = opts->skip_asserts,
		.behind = r.book ? r.book->behind : NULL,
		.behind_ctx = r.book ? r.book->ctx : NULL,
		.hold = opts->hold,
		.hold_ctx = opts->ctx,
		.windows_due = windows_due,
		.windows_ctx = &r,
	};
	if (!opts->test)
		plan_make(a, &r.facts, selected, &plan);
	r.version = plan_versions(a, &r.facts);
	r.status = arena_alloc(a, (p->nmodels + 1) * sizeof(enum run_status));
	r.built = arena_alloc(a, (p->nmodels + 1) * sizeof(bool));
	r.windows_failed = arena_alloc(a, (p->nmodels + 1) * sizeof(bool));
	memset(r.windows_failed, 0, (p->nmodels + 1) * sizeof(bool));
	report->items = xcalloc(total + 1, sizeof(*report->items));
	for (size_t i = 0; i < p->nmodels; i++) {
		struct model *m = p->models[i];
		struct plan_item *pi = next < plan.n && plan.items[next].m == m ? &plan.items[next] : NULL;
		struct run_item *item;
		const char *sig;
		int64_t t;

		if (opts->test ? !selected[i] : !pi) {
			plan_pass_through(m, r.version, r.run_id);
			continue;
		}
		next += pi != NULL;
		item = &report->items[report->n++];
		item->m = m;
		idx++;
		r.built[i] = true;
		sig = plan_signature(a, &r.facts, m, r.version);
		if (opts->on_start)
			opts->on_start(opts->ctx, item, idx, total);
		t = units_mono_ms();
		if (opts->test && m->mat != MAT_EPHEMERAL && !relation_exists(&r, model_relation(m))) {
			item->status = RUN_UP_TO_DATE;
			item->reason = "not built";
		} else if (opts->test) {
			rc = check_model(&r, item, sig, err);
		} else if (upstream_failed(&r, m)) {
			item->status = RUN_UPSTREAM_FAILED;
			item->reason = "an input failed";
		} else {
			rc = execute(&r, pi, sig, item, err);
		}
		if (rc)
			break;
		plan_pass_through(m, r.version, r.run_id);
		r.status[i] = item->status;
		item->ms = units_mono_ms() - t;
		switch (item->status) {
		case RUN_OK:
			report->ok++;
			report->checked += item->checks_only;
			break;
		case RUN_WARN:
			report->warned++;
			report->checked += item->checks_only;
			break;
		case RUN_FAILED:
			report->failed++;
			break;
		case RUN_PLANNED:
			report->planned++;
			report->checked += item->checks_only;
			break;
		case RUN_BLOCKED:
			report->waiting++;
			break;
		default:
			report->skipped++;
		}
		if (opts->on_done)
			opts->on_done(opts->ctx, item, idx, total);
	}
	close_slots(&r);
	report->ms = units_mono_ms() - t0;
	report->run_id = r.run_id;
	if (rc)
		run_report_free(report);
	return rc;
}

void run_report_free(struct run_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		assert_results_free(r->items[i].asserts, r->items[i].nasserts);
	free(r->items);
	memset(r, 0, sizeof(*r));
}
