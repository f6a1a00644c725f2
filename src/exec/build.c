/*
 * This file implements one model's build in its own transaction: its data
 * written, its checks run on it, published under the model's name, its
 * state and run-log rows recorded, all committed together or rolled back
 * together; and the checks-only transaction of a model whose data is up to
 * date. It must never decide what to build: the run (run.c) does.
 */
#include "exec/build.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "exec/anomaly.h"
#include "exec/materialize.h"
#include "exec/profile.h"
#include "exec/render.h"
#include "plan/columns.h"
#include "project/declared.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "state/columns.h"
#include "state/profiles.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The ephemerals m inlines, directly or through others, each once. */
bool run_relation_exists(const struct run *r, const char *fqn)
{
	return dag_relation_exists(r->relations, r->nrelations, fqn);
}

/* What a name held when the run started: "table", "view" or NULL. */
const char *run_relation_kind(const struct run *r, const char *fqn)
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

/* What the item's checks and profile found: its failing checks on the
 * first line, then a line per anomaly; "" when nothing. */
static const char *format_findings(struct run *r, const struct run_item *item)
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
	for (size_t i = 0; item->profile && i < item->profile->nanomalies; i++) {
		const struct state_anomaly *an = &item->profile->anomalies[i];

		buf_addf(&b, "%sanomaly (%s): %s", b.len ? "\n" : "", an->error ? "error" : "warn",
			 anomaly_describe(r->a, an));
	}
	s = arena_strdup(r->a, b.buf);
	buf_release(&b);
	return s;
}

int run_id_need(struct run *r, struct sl_err *err)
{
	return r->run_id ? 0 : state_run_begin(r->w, &r->run_id, err);
}

void run_log_failed(struct run *r, const struct run_item *item, int64_t started)
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
	run_id_need(r, NULL);
	row.run_id = r->run_id;
	wh_exec(r->w, "BEGIN TRANSACTION", NULL);
	if (state_run_log(r->w, &row, NULL) == 0)
		wh_exec(r->w, "COMMIT", NULL);
	else
		wh_rollback(r->w);
}

int run_log_done(struct run *r, const struct run_item *item, int64_t rows, int64_t started,
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

void run_keep_row(struct run *r, const struct state_model *row)
{
	struct state_model *at;

	if (r->opts->cache) {
		state_cache_put(r->opts->cache, row);
		r->state = r->opts->cache->rows;
		r->nstate = r->opts->cache->n;
	} else if ((at = (struct state_model *)state_models_find(r->state, r->nstate, row->name))) {
		*at = *row;
	} else {
		struct state_model *rows = arena_alloc(r->a, (r->nstate + 2) * sizeof(*rows));

		if (r->nstate)
			memcpy(rows, r->state, r->nstate * sizeof(*rows));
		rows[r->nstate++] = *row;
		r->state = rows;
	}
	r->facts.state = r->state;
	r->facts.nstate = r->nstate;
	r->facts.columns_changed |= row->column_versions != NULL;
}

/* The model's description as its relation's comment, on every build: a
 * rebuild from scratch makes a relation without one. */
int build_describe(struct wh *w, const struct model *m, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	wh_sql_comment(&sql, m->mat == MAT_VIEW, m->schema, m->name, m->description);
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

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
struct state_window build_applied_row(const struct run *r, const struct model *m,
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
bool build_records_window(const struct run *r, const struct model *m, const struct win_range *win)
{
	return win || (m->mat != MAT_EPHEMERAL && (!r->opts->live || r->gating[m->order]));
}

/* The shape a build records: the one on record while the definition is
 * the same (a live refresh pays nothing for it), else worked out anew. */
static const char *shape_row(const struct run *r, const struct model *m,
			     const struct state_model *st, bool same)
{
	struct model_shape s;

	if (same && st->shape)
		return st->shape;
	return shape_of(r->a, m, &s) ? shape_format(r->a, &s) : NULL;
}

/* The column versions a build records: a build that changed some columns
 * alone, its rows as they were, says which (plan/columns.h); one that did
 * not change the data keeps them; any other forgets them. */
static const char *column_versions_row(const struct run *r, const struct model *m,
				       const struct state_model *st, const char *sig, bool same,
				       bool changed)
{
	struct shape_diff d;

	if (!st)
		return NULL;
	if (!same && m->mat == MAT_TABLE && plan_change_of(r->a, m, st, &d) &&
	    plan_columns_only(m, st, sig, &d))
		return plan_column_versions(r->a, st, &d, r->run_id);
	return changed ? NULL : st->column_versions;
}

struct state_model build_model_row(const struct run *r, const struct model *m,
				   const struct state_model *st, const char *sig, bool changed)
{
	bool same = st && st->hash && strcmp(st->hash, m->recorded_hash) == 0;

	return (struct state_model){
		.name = m->fqn,
		.hash = m->recorded_hash,
		.materialized = model_mat_name(m->mat),
		.inputs = sig,
		.last_built_at = r->run_ts,
		.build_count = (st ? st->build_count : 0) + 1,
		.data_version = changed ? r->run_id : (st ? st->data_version : r->run_id),
		/* data the checks did not see is not known to pass them */
		.checks = r->opts->skip_asserts && m->checks_hash[0] ? NULL : m->checks_hash,
		.shape = shape_row(r, m, st, same),
		.column_versions = column_versions_row(r, m, st, sig, same, changed),
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
int build_island_join(struct run *r, const struct model *m, const struct state_window *wrow,
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

/* One build's working state, from its first step to its failure path. */
struct build {
	struct run *r;
	struct run_item *item;
	struct model *m;
	const struct state_model *st; /* the model's row as the run knows it, or NULL */
	const char *sig;
	const struct win_range *win;
	bool full;
	struct mat_plan plan;
	struct mat_outcome out;
	const struct run_book *book; /* when m keeps watermarks */
	void *entry;                 /* the bookkeeping's own, for close and abort */
	bool silent;                 /* a live refresh that writes nothing (quiet) */
	struct state_model row;      /* the model's row after the build */
	struct state_window wrow;    /* its window's row, or its existence row */
	char since[WIN_TIME_MAX], until[WIN_TIME_MAX];
	int64_t started;
	int joined; /* a flexible window's join into its island, after the commit */
	struct state_profile *profile; /* of a batch build's new data, or NULL */
	struct sl_err err;
};

/* An incremental build of a query changed since its table was made, its
 * rows' part alike (the plan refuses any other unless built anew): the
 * table's columns follow the query first. */
static void evolving(struct build *b)
{
	const struct model *m = b->m;
	const struct state_model *st = b->st;
	struct shape_diff *d;

	if (b->full || m->mat != MAT_INCREMENTAL || !st || !st->hash ||
	    strcmp(st->hash, m->recorded_hash) == 0)
		return;
	d = arena_alloc(b->r->a, sizeof(*d));
	if (!plan_change_of(b->r->a, m, st, d) || d->rows)
		return;
	b->plan.evolve = d;
	b->plan.drop_removed = m->on_schema_change == MODEL_OSC_SYNC;
}

static void build_open(struct build *b, struct run *r, struct run_item *item, bool full,
		       const char *sig, const struct win_range *win)
{
	struct model *m = item->m;

	*b = (struct build){
		.r = r,
		.item = item,
		.m = m,
		.st = state_models_find(r->state, r->nstate, m->fqn),
		.sig = sig,
		.win = win,
		.full = full,
		.plan = { .full = full, .run_ts = r->run_ts, .old_kind_known = r->kinds != NULL,
			  .old_kind = run_relation_kind(r, model_relation(m)), .a = r->a },
		.book = inputs_tracks(m) ? r->book : NULL,
		.started = units_now_ms(),
		.err = SL_ERR_INIT,
	};
	pthread_mutex_lock(r->rows_mu);
	b->wrow = build_applied_row(r, m, win);
	pthread_mutex_unlock(r->rows_mu);
	b->plan.ctx.env = r->opts->env;
	b->plan.ctx.reads = r->opts->reads;
	b->plan.ctx.nreads = r->opts->nreads;
	evolving(b);
	if (win) {
		/* after the run's first window of the model its table is there */
		if (!full) {
			b->plan.old_kind_known = true;
			b->plan.old_kind = "table";
		}
		win_time_format(win->since, b->since);
		win_time_format(win->until, b->until);
		b->plan.ctx.since = b->since;
		b->plan.ctx.until = b->until;
	}
}

/* The data: into a staging table (full builds) or the table, the
 * watermarks it starts from pointed at first. */
/* The hardcoded tables the model declares, written anew (in the build's
 * transaction) when their content changed since sluice wrote them or they
 * are gone; each one's row in _sluice.models says which content it holds. */
static int write_hardcoded(struct build *b)
{
	struct run *r = b->r;
	const struct model *m = b->m;
	struct buf sql = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < m->nupstreams; i++) {
		const struct model_upstream *u = &m->upstreams[i];
		const struct state_model *st = state_models_find(r->state, r->nstate, u->name);
		const char *why, *query, *dot = strchr(u->name, '.');
		struct state_model row;

		if (!declared_hardcoded(u) || !*u->content_hash || !dot ||
		    (st && st->hash && strcmp(st->hash, u->content_hash) == 0 &&
		     run_relation_kind(r, u->name)))
			continue;
		query = declared_query(r->a, u, &why);
		rc = query ? run_id_need(r, &b->err)
			   : sl_err_set(&b->err, SL_E_INVALID, "hardcoded input '%s': %s", u->name, why);
		if (!rc)
			rc = materialize_table_of(r->w, arena_strndup(r->a, u->name, (size_t)(dot - u->name)),
						  dot + 1, query, &b->err);
		row = (struct state_model){ .name = u->name, .hash = u->content_hash,
					    .materialized = "hardcoded", .inputs = "",
					    .last_built_at = r->run_ts,
					    .build_count = (st ? st->build_count : 0) + 1,
					    .data_version = r->run_id };
		state_sql_model(&sql, r->opts->env, &row, st != NULL);
		if (!rc)
			rc = wh_exec(r->w, sql.buf, &b->err);
		buf_reset(&sql);
		if (!rc && !r->pooled)
			run_keep_row(r, &row);
	}
	buf_release(&sql);
	return rc;
}

/* A model that keeps watermarks, built from scratch in an environment:
 * what it reads of its history, asked of the caller's policy. */
static int scratch_open(struct build *b, struct run_scratch *sc)
{
	struct run *r = b->r;
	int rc;

	if (!b->full || !b->book || b->win || !r->opts->scratch || !r->opts->env ||
	    !*r->opts->env)
		return 0;
	rc = r->opts->scratch(r->opts->scratch_ctx, r->w, b->m, sc, &b->err);
	if (rc || !sc->nreads)
		return rc;
	b->plan.ctx.reads = sc->reads;
	b->plan.ctx.nreads = sc->nreads;
	return 0;
}

/* The main tables' rows the policy keeps, into the new data. */
static int scratch_seed(struct build *b, const struct run_scratch *sc)
{
	struct buf sql = BUF_INIT;
	int64_t rows = 0;
	int rc;

	if (!sc->seed_query)
		return 0;
	buf_addf(&sql, "INSERT INTO %s (%s) %s", b->out.relation, sc->seed_columns,
		 sc->seed_query);
	rc = wh_exec_count(b->r->w, sql.buf, &rows, &b->err);
	buf_release(&sql);
	b->out.rows += rows;
	return rc;
}

static int build_write(struct build *b)
{
	struct run_scratch sc = { 0 };
	int rc = write_hardcoded(b);

	if (!rc)
		rc = scratch_open(b, &sc);
	if (!rc && b->book)
		rc = b->book->open(b->book->ctx, b->r->w, b->r->a, b->m, b->full, &b->plan.ctx,
				   &b->entry, &b->err);
	if (!rc)
		rc = materialize_write(b->r->w, b->m, &b->plan, &b->out, &b->err);
	if (!rc)
		rc = scratch_seed(b, &sc);
	if (!rc)
		b->item->replayed = sc.note;
	return rc;
}

/* The checks on the new data, before anyone can see it: a window's on its
 * rows alone. A failing error-severity check fails the build. */
static int build_check(struct build *b)
{
	struct run *r = b->r;
	int rc = 0;

	if (b->m->checks_hash[0] && !r->opts->skip_asserts) {
		struct checked on = { .relation = b->out.relation };

		if (b->win)
			on = (struct checked){ .with = window_rows(r, b->m, b->out.relation,
								   &b->plan.ctx),
					       .relation = "_sluice_window" };
		rc = run_checks(r, b->item, &on, &b->plan.ctx, &b->err);
	}
	if (!rc && assert_errors(b->item->asserts, b->item->nasserts)) {
		rc = SL_E_ASSERT;
		b->item->message = format_findings(r, b->item);
	}
	return rc;
}

/* The staging table swapped in under the model's name, with its comment. */
static int build_publish(struct build *b)
{
	int rc = materialize_publish(b->r->w, b->m, &b->out, &b->err);

	/* a temporal model's comment is written with the window that makes
	 * its table, alone, and after its windows: in each window's
	 * transaction the workers' would conflict */
	if (!rc && b->m->description && (!b->win || b->full))
		rc = build_describe(b->r->w, b->m, &b->err);
	return rc;
}

/* A batch build's profile of the model's new data, judged against its
 * earlier ones. An anomaly at level error fails the build, as a failing
 * check does; the profile is recorded either way (build_record, else
 * record_rejected). A profile that cannot be taken fails the build. */
static int build_profile(struct build *b)
{
	struct run *r = b->r;
	const struct model *m = b->m;
	const struct anomaly_cfg *cfg = &r->p->cfg.anomaly;
	const char *env = r->opts->env ? r->opts->env : "";
	struct state_profile_ask ask = { .model = m->fqn, .env = env,
					 .limit = (size_t)cfg->history, .judged = true };
	struct state_profile *p, *hist;
	size_t nhist;
	int rc;

	if (r->opts->live || r->opts->in_txn || b->win || !profile_builds_of(m) ||
	    !anomaly_wanted(m, cfg))
		return 0;
	p = arena_alloc(r->a, sizeof(*p));
	*p = (struct state_profile){ .model = m->fqn, .env = env, .taken_ms = units_now_ms(),
				     .kind = PROFILE_BATCH, .refresh_count = -1 };
	rc = profile_take(r->w, r->a, m->schema, m->name, p, &b->err);
	if (!rc)
		rc = state_profiles_read(r->w, r->a, &ask, &hist, &nhist, &b->err);
	if (!rc)
		rc = run_id_need(r, &b->err);
	if (!rc)
		rc = state_profile_id_next(r->w, &p->id, &b->err);
	if (rc) {
		sl_err_context(&b->err, "while profiling %s (anomaly=off builds it without a profile)",
			       m->fqn);
		return rc;
	}
	p->run_id = r->run_id;
	p->kept = anomaly_judge(r->a, m, cfg, p, hist, nhist) == 0;
	b->profile = p;
	b->item->profile = p;
	if (p->kept)
		return 0;
	b->item->message = format_findings(r, b->item);
	return SL_E_ASSERT;
}

/* The profile of a build an error-level anomaly failed, in a transaction
 * of its own after the rollback: the data it describes is gone, so later
 * profiles are not judged against it, but it stays on record. */
static void record_rejected(struct run *r, const struct state_profile *p)
{
	struct buf sql = BUF_INIT;

	state_sql_profile(&sql, p);
	wh_exec_atomic(r->w, sql.buf, NULL);
	buf_release(&sql);
}

/* The columns of a relation the build made anew (a table or seed from its
 * staging table, a view). A build that wrote into the table leaves its
 * columns as they were (its rows go in by name, into the columns the
 * table has), so it leaves those on record: a live refresh pays no
 * catalog read for them. */
static int build_record_columns(struct build *b, struct buf *sql)
{
	const struct model *m = b->m;

	if (!b->out.staged && m->mat != MAT_VIEW)
		return 0;
	return state_sql_relation_columns(b->r->w, b->r->a, sql, b->r->opts->env, m->fqn,
					  m->schema, m->name, &b->err);
}

/* The model's row, its window row, its columns, the watermarks and the
 * run-log row, in the build's transaction. */
static int build_record(struct build *b)
{
	struct run *r = b->r;
	struct model *m = b->m;
	const struct win_range *win = b->win;
	/* a window replaced may hold fewer rows than before, or none */
	bool changed = b->full || b->out.rows > 0 || m->mat == MAT_VIEW || m->mat == MAT_TABLE ||
		       win;
	struct buf sql = BUF_INIT;
	int rc;

	b->silent = b->book && quiet(r, m, b->st, b->sig, changed);
	rc = b->silent ? 0 : run_id_need(r, &b->err);
	b->row = build_model_row(r, m, b->st, b->sig, changed);
	b->item->message = format_findings(r, b->item);
	if (!*b->item->message)
		b->item->message = NULL;
	b->item->status = b->item->message ? RUN_WARN : RUN_OK;
	if (!rc && !b->silent) {
		if (!r->pooled)
			state_sql_model(&sql, r->opts->env, &b->row, b->st != NULL);
		if (b->full && win)
			state_sql_windows_drop(&sql, r->opts->env, m->fqn, 0, 0, STATE_DROP_OVERLAPPING);
		/* a flexible window's own row, joined into its island after */
		else if (win && m->flex)
			state_sql_windows_drop(&sql, r->opts->env, m->fqn, win->since, win->until,
					       STATE_DROP_INSIDE);
		if (build_records_window(r, m, win))
			state_sql_window(&sql, r->opts->env, &b->wrow);
	}
	/* a quiet refresh that made its table anew still made its columns */
	if (!rc)
		rc = build_record_columns(b, &sql);
	if (!rc && b->profile)
		state_sql_profile(&sql, b->profile);
	if (!rc && b->full && !win && r->opts->on_full_build)
		rc = r->opts->on_full_build(r->opts->record_ctx, r->w, m, r->opts->env, r->run_id,
					    &sql, &b->err);
	if (!rc && b->book)
		rc = b->book->close(b->book->ctx, r->w, m, b->entry, b->out.rows, b->full,
				    b->silent ? NULL : &sql, &b->err);
	/* live refreshes are logged in aggregate by the runner, windows by
	 * their model's run */
	if (!rc && !b->silent && !r->opts->live && !win) {
		rc = wh_exec(r->w, sql.buf, &b->err);
		buf_reset(&sql);
		if (!rc)
			rc = run_log_done(r, b->item, b->out.rows, b->started, &b->err);
	}
	if (!rc && sql.len)
		rc = wh_exec(r->w, sql.buf, &b->err);
	buf_release(&sql);
	return rc;
}

/* The commit, then what the run keeps of it: the window rows, the data
 * version, the model's row. A run in its caller's transaction leaves the
 * commit to the caller, who drops what the run kept should it fail. */
static int build_commit(struct build *b)
{
	struct run *r = b->r;
	struct model *m = b->m;
	int rc = r->opts->in_txn ? 0 : wh_commit(r->w, &b->err);

	if (rc)
		return rc;
	pthread_mutex_lock(r->rows_mu);
	if (b->full && b->win)
		run_windows_clear(&r->wins, m);
	if (b->win && m->flex) {
		run_windows_add(&r->wins, m, &b->wrow);
		b->joined = build_island_join(r, m, &b->wrow, &b->err);
	} else if (!b->silent && build_records_window(r, m, b->win)) {
		run_windows_put(&r->wins, m, &b->wrow);
	}
	pthread_mutex_unlock(r->rows_mu);
	if (r->pooled)
		return 0;
	r->version[m->order] = b->row.data_version;
	if (b->book && !b->silent)
		b->book->saved(b->book->ctx, m);
	if (!b->silent)
		run_keep_row(r, &b->row);
	return 0;
}

/* A failed build rolls back alone, and the run goes on; unless the
 * warehouse is in doubt (SL_E_SUSPECT, into run_err): then nothing more
 * is written, not even the failure. A build that another process's commit
 * undid (SL_E_BUSY) is rolled back and left to the caller, unrecorded. In
 * a run in its caller's transaction the caller rolls every build back. */
static int build_fail(struct build *b, int rc, struct sl_err *run_err)
{
	struct run *r = b->r;
	struct run_item *item = b->item;
	bool suspect = wh_suspect(r->w, run_err);

	if (!suspect && !r->opts->in_txn)
		wh_rollback(r->w);
	if (b->entry)
		b->book->abort(b->book->ctx, b->entry);
	if (suspect)
		return SL_E_SUSPECT;
	if (rc == SL_E_BUSY)
		return SL_E_BUSY;
	item->status = RUN_FAILED;
	item->had_previous = run_relation_exists(r, model_relation(b->m));
	if (!item->message)
		item->message = arena_strdup(r->a, b->err.msg);
	if (!b->win && !r->opts->in_txn)
		run_log_failed(r, item, b->started);
	if (b->profile && !b->profile->kept)
		record_rejected(r, b->profile);
	return 0;
}

int build_model(struct run *r, struct run_item *item, bool full, const char *sig,
		const struct win_range *win, bool *made, struct sl_err *run_err)
{
	struct build b;
	int rc;

	build_open(&b, r, item, full, sig, win);
	rc = r->opts->in_txn ? 0 : wh_begin_snapshot(r->w, &b.err);
	if (!rc)
		rc = build_write(&b);
	if (!rc)
		rc = build_check(&b);
	if (!rc)
		rc = build_publish(&b);
	if (!rc)
		rc = build_profile(&b);
	if (!rc)
		rc = build_record(&b);
	if (!rc)
		rc = build_commit(&b);
	if (made)
		*made = !rc;
	item->rows = b.out.rows;
	item->action = b.out.action;
	/* a window whose row stands apart is built: the next run joins it */
	if (!rc && b.joined && wh_suspect(r->w, run_err))
		return SL_E_SUSPECT;
	return rc ? build_fail(&b, rc, run_err) : 0;
}

/*
 * A model whose data is up to date but whose checks are due, or one that
 * `sluice test` checks: the checks run in a transaction of their own on the
 * data as it is. When they hold, a run records them in the model's row
 * (and, for a view, the inputs they held on), with a run-log row; a test
 * writes nothing. A failing error-severity check fails the model.
 */
int build_checks_only(struct run *r, struct run_item *item, const char *sig, struct sl_err *run_err)
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
		item->message = format_findings(r, item);
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
		rc = run_id_need(r, &err);
	}
	if (!rc && record)
		rc = wh_exec(r->w, sql.buf, &err);
	if (!rc && record && !r->opts->live)
		rc = run_log_done(r, item, 0, started, &err);
	if (!rc && record)
		rc = wh_commit(r->w, &err);
	else if (!rc)
		wh_rollback(r->w);
	buf_release(&sql);
	if (!rc && record)
		run_keep_row(r, &row);
	if (rc && wh_suspect(r->w, run_err))
		return SL_E_SUSPECT;
	if (rc) {
		wh_rollback(r->w);
		item->status = RUN_FAILED;
		if (!item->message)
			item->message = arena_strdup(r->a, err.msg);
		if (!r->opts->test)
			run_log_failed(r, item, started);
	}
	return 0;
}
