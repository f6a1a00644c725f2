/*
 * The live runner's cycle: a batch run restricted to live models, with the
 * runner deciding what to hold back, then the failure, recovery, lag and
 * logging bookkeeping around it. Never waits on anything: what cannot run
 * now is looked at again next cycle.
 */
#include "live/runner.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "exec/run.h"
#include "live/adopted.h"
#include "live/advance.h"
#include "live/alert.h"
#include "live/claims.h"
#include "live/gate.h"
#include "live/ledger.h"
#include "live/profile.h"
#include "live/retention.h"
#include "live/watermark.h"
#include "live/windows.h"
#include "project/inputs.h"
#include "project/model.h"
#include "state/live.h"
#include "state/profiles.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the runner remembers of a model between cycles. */
struct model_rt {
	int64_t last_refresh_ms; /* monotonic */
	int64_t last_profile_ms; /* monotonic; 0: never */
	int64_t lag_before_ms;   /* measured as its refresh started */
	bool was_failing;        /* as its refresh started */
	/* the current run-log window */
	int64_t window_start_ms, refreshes, events, lag_sum, lag_max;
};

struct live_runner {
	struct project *p;
	FILE *out;
	struct model_rt *rt;
	struct arena *a; /* the cycle, the catalog, the ledger and the claims hang under it */
	struct arena *cycle;
	struct wh *w;
	/* the live bookkeeping and the model rows, kept while the runner
	 * holds the warehouse */
	struct live_ledger *ledger;
	struct live_books books; /* the runs' hooks over ledger */
	/* on a shared warehouse, the groups of live models this runner
	 * refreshes; NULL until it first holds one */
	struct live_claims *claims;
	bool share; /* a lasting runner: it shares the live models out */
	struct state_cache cache;
	int64_t last_assert_ms, last_checkpoint_ms;
	int64_t last_count_ms; /* when adopted tables' rows were last counted */
	bool prepared; /* state schema and landing tables made sure of */
	/* each cycle holds the landing gate (gate.h), decided once */
	bool gate, gate_known;
	/* the catalog as the last cycle left it; read again after a cycle
	 * that created or replaced a relation */
	struct arena *catalog;
	const char **relations, **kinds;
	size_t nrelations;
	bool catalog_stale;
	uint64_t sessions; /* wh_sessions of the connection when last read */
	bool reread;       /* the ledger is to be read anew: a new session */
	struct live_cycle *cycle_out;
	const struct model *only; /* a refresh asked for one model */
	/* what a build from scratch records beside its data (run_opts) */
	int (*on_full_build)(void *ctx, struct wh *w, const struct model *m, const char *env,
			     int64_t run_id, struct buf *sql, struct sl_err *err);
	void *record_ctx;
	live_event_fn watch;
	void *watch_ctx;
	struct live_windows *windows; /* NULL: no model gates on a stream */
};

void live_runner_share(struct live_runner *r)
{
	r->share = true;
}

void live_runner_watch(struct live_runner *r, live_event_fn fn, void *ctx)
{
	r->watch = fn;
	r->watch_ctx = ctx;
}

static void tell(struct live_runner *r, const char *event, const struct model *m,
		 const char *detail)
{
	if (r->watch)
		r->watch(r->watch_ctx, event, m->fqn, detail);
}

struct live_runner *live_runner_new(struct arena *a, struct project *p, FILE *out)
{
	struct live_runner *r = xcalloc(1, sizeof(*r));

	r->p = p;
	r->out = out;
	r->rt = xcalloc(p->nmodels + 1, sizeof(*r->rt));
	r->a = arena_new(a);
	r->cycle = arena_new(r->a);
	r->catalog = arena_new(r->a);
	r->catalog_stale = true;
	r->ledger = live_ledger_new(r->a, p);
	live_books_over(&r->books, p, r->ledger);
	r->windows = live_windows_new(p);
	r->last_checkpoint_ms = units_mono_ms();
	for (size_t i = 0; i < p->nmodels; i++)
		r->rt[i].window_start_ms = units_mono_ms();
	return r;
}

void live_runner_free(struct live_runner *r)
{
	if (!r)
		return;
	live_ledger_free(r->ledger);
	live_claims_free(r->claims);
	live_windows_free(r->windows);
	state_cache_free(&r->cache);
	arena_free(r->a);
	free(r->rt);
	free(r);
}

/* Whether this runner refreshes m: every live model, unless the runners
 * sharing the warehouse split them up. */
static bool ours(const struct live_runner *r, const struct model *m)
{
	return inputs_refreshes(m) && (!r->claims || live_claims_holds(r->claims, m));
}

/* A refresh asked for one model is done by whoever is asked. */
static bool pick(void *ctx, const struct model *m)
{
	const struct live_runner *r = ctx;

	return r->only ? r->only == m : ours(r, m);
}

static const char *hold(void *ctx, const struct model *m)
{
	struct live_runner *r = ctx;
	const struct ledger_model *lm = live_ledger_model(r->ledger, m);
	const struct model_rt *rt = &r->rt[m->order];

	if (lm->paused)
		return "paused";
	if (lm->failing && lm->next_retry_ms > units_now_ms())
		return "backing off after a failure";
	if (m->live_interval_ms && rt->last_refresh_ms &&
	    units_mono_ms() - rt->last_refresh_ms < m->live_interval_ms)
		return "live_interval not reached";
	for (size_t i = 0; i < lm->in.n; i++) {
		const struct model *up = lm->in.items[i].model;
		const struct ledger_model *ul = up ? live_ledger_model(r->ledger, up) : NULL;

		if (ul && ul->failing)
			return arena_sprintf(r->cycle, "waiting for %s", lm->in.items[i].name);
	}
	return NULL;
}

static void on_start(void *ctx, const struct run_item *item, size_t index, size_t total)
{
	struct live_runner *r = ctx;
	struct model_rt *rt = &r->rt[item->m->order];

	(void)index;
	(void)total;
	rt->lag_before_ms = live_ledger_lag_ms(r->ledger, item->m, units_now_ms());
	rt->was_failing = live_ledger_model(r->ledger, item->m)->failing;
}

static int64_t backoff_ms(const struct live_cfg *cfg, int failures)
{
	int64_t d = cfg->backoff_base_ms;

	for (int i = 1; i < failures && d < cfg->backoff_max_ms; i++)
		d *= 2;
	return d < cfg->backoff_max_ms ? d : cfg->backoff_max_ms;
}

/* A failed refresh rolled back; its failure is recorded on its own. */
static int record_failure(struct live_runner *r, const struct run_item *item, int failures,
			  struct sl_err *err)
{
	struct ledger_model *lm = live_ledger_model(r->ledger, item->m);
	int64_t retry_ms = units_now_ms() + backoff_ms(&r->p->cfg.live, failures);
	struct buf sql = BUF_INIT;
	int rc;

	state_live_sql_failing(&sql, item->m->fqn, failures, item->message ? item->message : "failed",
			       retry_ms);
	rc = wh_exec(r->w, sql.buf, err);
	buf_release(&sql);
	if (!rc) {
		lm->known = lm->failing = true;
		lm->failures = failures;
		lm->next_retry_ms = retry_ms;
	}
	return rc;
}

static void log_event(struct live_runner *r, const struct model *m, const char *status,
		      const char *message)
{
	struct state_run_row row = {
		.model = m->fqn,
		.env = "",
		.run_type = "live",
		.status = status,
		.message = message,
		.started_ms = units_now_ms(),
		.finished_ms = units_now_ms(),
	};

	state_run_log(r->w, &row, NULL);
}

/* At most one profile per profile_interval, across runner restarts too. */
static bool profile_due(struct live_runner *r, const struct model *m, struct model_rt *rt)
{
	int64_t interval = r->p->cfg.live.profile_interval_ms;

	if (!rt->last_profile_ms) {
		int64_t last = 0;

		if (state_profile_last_ms(r->w, m->fqn, &last, NULL) == 0 && last &&
		    units_now_ms() - last < interval)
			rt->last_profile_ms = units_mono_ms() - (units_now_ms() - last);
	}
	return !rt->last_profile_ms || units_mono_ms() - rt->last_profile_ms >= interval;
}

static void after_item(struct live_runner *r, const struct run_item *item, struct live_cycle *c)
{
	const struct model *m = item->m;
	struct model_rt *rt = &r->rt[m->order];
	const struct ledger_model *lm = live_ledger_model(r->ledger, m);
	const struct project *p = r->p;
	char lag[32], rows[32];

	switch (item->status) {
	case RUN_OK:
	case RUN_WARN:
		if (item->action && (strcmp(item->action, "created") == 0 ||
				     strcmp(item->action, "replaced") == 0))
			r->catalog_stale = true;
		c->refreshed++;
		c->events += item->rows;
		rt->last_refresh_ms = units_mono_ms();
		rt->refreshes++;
		rt->events += item->rows;
		rt->lag_sum += rt->lag_before_ms;
		if (rt->lag_before_ms > rt->lag_max)
			rt->lag_max = rt->lag_before_ms;
		if (live_profile_wanted(m, &p->cfg.anomaly) && profile_due(r, m, rt)) {
			struct sl_err err = SL_ERR_INIT;

			if (live_profile(r->cycle, r->w, m, lm->refresh_count, &err) && r->out)
				fprintf(r->out, "profile of %s failed: %s\n", m->fqn, err.msg);
			rt->last_profile_ms = units_mono_ms();
		}
		units_format_duration(rt->lag_before_ms, lag, sizeof(lag));
		if (r->out)
			fprintf(r->out, "refreshed %s: %lld row%s, lag %s\n", m->fqn,
				(long long)item->rows, item->rows == 1 ? "" : "s", lag);
		snprintf(rows, sizeof(rows), "%lld", (long long)item->rows);
		tell(r, "refresh", m, rows);
		if (rt->was_failing) {
			live_alert(p->cfg.alerts.command, p->root, r->out, "live_model_recovered",
				   m->fqn, NULL);
			log_event(r, m, "recovered", NULL);
			tell(r, "recovery", m, NULL);
		}
		break;
	case RUN_FAILED:
		c->failed++;
		tell(r, "failure", m, item->message);
		if (record_failure(r, item, lm->failures + 1, NULL) == 0 && !rt->was_failing) {
			live_alert(p->cfg.alerts.command, p->root, r->out, "live_model_failed",
				   m->fqn, item->message);
		} else if (r->out) {
			fprintf(r->out, "refresh of %s failed again (attempt %d): %s\n", m->fqn,
				lm->failures, item->message ? item->message : "");
		}
		break;
	case RUN_HELD:
	case RUN_UPSTREAM_FAILED:
		c->held++;
		break;
	default:
		break;
	}
	/* a log read as it grows (a file, a pipe, the journal) sees each line */
	if (r->out)
		fflush(r->out);
}

int live_runner_flush_log(struct live_runner *r, struct wh *w, bool force, struct sl_err *err)
{
	int64_t now = units_mono_ms();
	int rc = 0;

	for (size_t i = 0; i < r->p->nmodels && !rc; i++) {
		struct model_rt *rt = &r->rt[i];
		char msg[160];
		struct state_run_row row = {
			.model = r->p->models[i]->fqn,
			.env = "",
			.run_type = "live",
			.status = "ok",
			.message = msg,
		};

		if (!rt->refreshes ||
		    (!force && now - rt->window_start_ms < r->p->cfg.live.log_interval_ms))
			continue;
		snprintf(msg, sizeof(msg), "%lld refreshes, avg lag %lld ms, max lag %lld ms",
			 (long long)rt->refreshes, (long long)(rt->lag_sum / rt->refreshes),
			 (long long)rt->lag_max);
		row.rows = rt->events;
		row.finished_ms = units_now_ms();
		row.started_ms = row.finished_ms - (now - rt->window_start_ms);
		rc = state_run_log(w, &row, err);
		rt->window_start_ms = now;
		rt->refreshes = rt->events = rt->lag_sum = rt->lag_max = 0;
	}
	return rc;
}

/* Every poll_interval: the refreshes not written yet, the books of the
 * adopted sources, the advances every reader has covered, the run log. */
static int housekeeping(struct live_runner *r, struct wh *w, struct sl_err *err)
{
	int rc = 0;

	if (units_mono_ms() - r->last_checkpoint_ms >= r->p->cfg.live.poll_interval_ms) {
		rc = live_ledger_checkpoint(r->ledger, w, err);
		if (!rc)
			rc = live_adopted_checkpoint(r->ledger, w, r->p, err);
		if (!rc)
			rc = live_ledger_prune(r->ledger, w, err);
		if (!rc)
			rc = live_retention_prune(w, r->p, units_now_ms(), err);
		r->last_checkpoint_ms = units_mono_ms();
	}
	return rc ? rc : live_runner_flush_log(r, w, false, err);
}

/* Forgets what the runner kept of the warehouse, to read it again. */
static void forget(struct live_runner *r)
{
	live_ledger_free(r->ledger);
	r->ledger = live_ledger_new(r->a, r->p);
	live_books_over(&r->books, r->p, r->ledger);
	state_cache_free(&r->cache);
	r->catalog_stale = true;
}

/* On a shared warehouse, the claims kept: a group this runner takes over
 * was refreshed by another, so what it kept of the warehouse is read
 * again. The ledger is read anew in place: other threads note advances in
 * it meanwhile. *fresh tells the caller so. */
static int keep_claims(struct live_runner *r, struct wh *w, bool *fresh, struct sl_err *err)
{
	bool gained;
	int rc;

	if (!r->share || !wh_shared(w))
		return 0;
	if (!r->claims)
		r->claims = live_claims_new(r->a, r->p, NULL);
	rc = live_claims_keep(r->claims, w, &gained, err);
	if (!rc && gained) {
		state_cache_free(&r->cache);
		r->catalog_stale = true;
		*fresh = true;
		rc = live_ledger_load(r->ledger, w, err);
	}
	return rc;
}

/* The ledger is read when the runner first looks at a warehouse it holds,
 * and again when it takes over live models from another runner. */
static int hold_ledger(struct live_runner *r, struct wh *w, bool *fresh, struct sl_err *err)
{
	int rc;

	*fresh = false;
	/* a new session: a refresh whose commit met the loss may have
	 * committed, so what the runner kept is read again (the ledger in
	 * place: other threads note advances in it meanwhile) */
	if (wh_sessions(w) != r->sessions) {
		r->sessions = wh_sessions(w);
		r->reread = live_ledger_loaded(r->ledger);
	}
	if (r->reread) {
		state_cache_free(&r->cache);
		r->catalog_stale = true;
		*fresh = true;
		rc = live_ledger_load(r->ledger, w, err);
		if (rc)
			return rc;
		r->reread = false;
	}
	rc = r->prepared ? keep_claims(r, w, fresh, err) : 0;
	if (!rc && !live_ledger_loaded(r->ledger)) {
		*fresh = true;
		rc = live_ledger_load(r->ledger, w, err);
	}
	return rc;
}

void live_pause_sql(struct buf *sql, const char *model, bool pause)
{
	state_live_sql_pause(sql, model, pause, units_now_ms());
}

int live_runner_pause(struct live_runner *r, struct wh *w, const struct model *m, bool pause,
		      struct sl_err *err)
{
	struct ledger_model *lm = live_ledger_model(r->ledger, m);
	struct buf sql = BUF_INIT;
	bool fresh;
	int rc;

	if (!lm || !inputs_refreshes(m))
		return sl_err_set(err, SL_E_NOTFOUND, "'%s' is not a live model", m->fqn);
	rc = hold_ledger(r, w, &fresh, err);
	if (rc)
		return rc;
	live_pause_sql(&sql, m->fqn, pause);
	rc = wh_exec_atomic(w, sql.buf, err);
	lm = live_ledger_model(r->ledger, m);
	buf_release(&sql);
	if (rc)
		return rc;
	lm->known = true;
	lm->paused = pause;
	tell(r, pause ? "pause" : "resume", m, NULL);
	if (!pause)
		lm->next_retry_ms = 0;
	return 0;
}

int live_runner_refresh(struct live_runner *r, struct wh *w, const struct model *m,
			struct live_cycle *out, struct sl_err *err)
{
	bool fresh;
	int rc = hold_ledger(r, w, &fresh, err);

	if (!rc) {
		r->only = m;
		rc = live_runner_cycle(r, w, out, err);
		r->only = NULL;
	}
	return rc;
}

int64_t live_runner_poll_ms(const struct live_runner *r, struct wh *w)
{
	return wh_shared(w) ? live_claims_period_ms(r->p) : r->p->cfg.live.poll_interval_ms;
}

/* Nobody announces the rows of an adopted table: the runner looks at
 * each one's highest cursor at every poll, and counts the rows below its
 * boundary at most once per poll_interval. */
static int poll_adopted(struct live_runner *r, struct wh *w, bool *moved, struct sl_err *err)
{
	bool count = units_mono_ms() - r->last_count_ms >= r->p->cfg.live.poll_interval_ms;

	if (count)
		r->last_count_ms = units_mono_ms();
	return live_adopted_poll(r->ledger, w, r->cycle, r->p, count, r->out ? r->out : stderr,
				 moved, err);
}

int live_runner_sources_moved(struct live_runner *r, struct wh *w, bool *moved,
			      struct sl_err *err)
{
	int rc = hold_ledger(r, w, moved, err);

	if (!rc && !*moved)
		rc = live_ledger_poll(r->ledger, w, moved, err);
	return rc ? rc : poll_adopted(r, w, moved, err);
}

void live_runner_on_full_build(struct live_runner *r,
			       int (*fn)(void *ctx, struct wh *w, const struct model *m,
					 const char *env, int64_t run_id, struct buf *sql,
					 struct sl_err *err),
			       void *ctx)
{
	r->on_full_build = fn;
	r->record_ctx = ctx;
}

void live_runner_advanced(struct live_runner *r, const char *source,
			  const struct live_advance *adv)
{
	live_ledger_note(r->ledger, source, adv, units_now_ms());
}

int live_runner_release(struct live_runner *r, struct wh *w, struct sl_err *err)
{
	int rc = 0;

	if (live_ledger_loaded(r->ledger)) {
		r->last_checkpoint_ms = units_mono_ms() - r->p->cfg.live.poll_interval_ms;
		rc = housekeeping(r, w, err);
	}
	if (!rc && r->claims)
		rc = live_claims_release(r->claims, w, err);
	forget(r);
	r->prepared = false;
	return rc;
}

/* Each model's outcome is taken in as it happens, so a model that
 * recovers lets its readers refresh in the same cycle. */
static void on_done(void *ctx, const struct run_item *item, size_t index, size_t total)
{
	struct live_runner *r = ctx;

	(void)index;
	(void)total;
	after_item(r, item, r->cycle_out);
}

/* How many live models are behind their inputs; due: how many of them
 * could be refreshed now (not held: paused, backing off, waiting for a
 * failing input or for live_interval), so that a runner with
 * min_interval 0 comes back at once only for those, never spinning on a
 * held one. */
static size_t count_behind(struct live_runner *r, size_t *due)
{
	size_t n = 0, now = 0;

	for (size_t i = 0; i < r->p->nmodels; i++) {
		const struct model *m = r->p->models[i];

		if (!ours(r, m) || !live_ledger_behind(r->ledger, m))
			continue;
		n++;
		now += !hold(r, m);
	}
	if (due)
		*due = now;
	return n;
}

/* Whether a cycle has anything to do: a live model never refreshed, one
 * due for a retry, or one behind its inputs. Asks the warehouse nothing. */
static bool work_waiting(struct live_runner *r)
{
	for (size_t i = 0; i < r->p->nmodels; i++) {
		const struct model *m = r->p->models[i];
		const struct ledger_model *lm;

		if (!ours(r, m))
			continue;
		lm = live_ledger_model(r->ledger, m);
		if (!lm->known || (lm->failing && lm->next_retry_ms <= units_now_ms()))
			return true;
	}
	return count_behind(r, NULL) > 0;
}

/* The windows the streams passed since the last look, built after the
 * live models (a refresh asked for one model builds none); a model that
 * another build held counts as behind, so that a cycle comes back to it. */
static int stream_windows(struct live_runner *r, struct wh *w, struct live_cycle *out,
			  struct sl_err *err)
{
	bool built = false;
	size_t held = 0;
	int rc = r->windows && !r->only
			 ? live_windows_pass(r->windows, r->ledger, live_books_hooks(&r->books),
					     r->cycle, w, r->out, &built, &held, err)
			 : 0;

	r->catalog_stale |= built;
	out->behind += held;
	out->due += held;
	return rc;
}

int live_runner_cycle(struct live_runner *r, struct wh *w, struct live_cycle *out,
		      struct sl_err *err)
{
	struct run_opts opts = {
		.env = "",
		.live = true,
		.state_ready = true,
		.pick = pick,
		.hold = hold,
		.on_start = on_start,
		.on_done = on_done,
		.ctx = r,
		.on_full_build = r->on_full_build,
		.record_ctx = r->record_ctx,
	};
	const struct live_cfg *cfg = &r->p->cfg.live;
	struct run_report rep;
	bool fresh;
	int rc;

	memset(out, 0, sizeof(*out));
	r->cycle_out = out;
	arena_reset(r->cycle);
	r->w = w;
	/* once per runner: catalog changes would conflict with writers */
	if (!r->prepared) {
		rc = state_ensure(w, err);
		if (!rc)
			rc = live_sources_ensure(w, r->cycle, r->p, err);
		if (rc)
			return rc;
		r->prepared = true;
	}
	rc = hold_ledger(r, w, &fresh, err);
	if (!rc && fresh)
		rc = poll_adopted(r, w, &fresh, err);
	if (rc)
		return rc;
	if (!work_waiting(r)) {
		rc = stream_windows(r, w, out, err);
		return rc ? rc : housekeeping(r, w, err);
	}
	/* checks run on every refresh, or at most every assertion_interval */
	opts.skip_asserts = cfg->assertion_interval_ms &&
			    units_mono_ms() - r->last_assert_ms < cfg->assertion_interval_ms;
	if (!opts.skip_asserts)
		r->last_assert_ms = units_mono_ms();
	if (r->catalog_stale) {
		arena_reset(r->catalog);
		rc = wh_relation_kinds(w, r->catalog, &r->relations, &r->kinds, &r->nrelations, err);
		if (rc)
			return rc;
		r->catalog_stale = false;
	}
	opts.kinds = r->kinds;
	opts.cache = &r->cache;
	opts.book = live_books_hooks(&r->books);
	if (!r->gate_known) {
		r->gate = live_gate_any(r->cycle, r->p);
		r->gate_known = true;
	}
	rc = r->gate ? live_gate_enter(w, err) : 0;
	if (rc)
		return rc;
	rc = build_run(r->cycle, r->p, w, r->relations, r->nrelations, &opts, &rep, err);
	if (r->gate) {
		int left = live_gate_leave(w, rc ? NULL : err);

		rc = rc ? rc : left;
	}
	if (rc)
		return rc;
	run_report_free(&rep);
	out->behind = count_behind(r, &out->due);
	rc = stream_windows(r, w, out, err);
	return rc ? rc : housekeeping(r, w, err);
}
