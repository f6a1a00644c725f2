/*
 * The executor's run loop. Takes the plan of the selected models, then
 * goes through them in order: each that needs it is built (build.c, or
 * temporal.c window by window) under its build lock, its decision taken
 * again when its inputs came out other than planned. It must never write
 * a model's data or rows itself: the builds do, each in its own
 * transaction.
 */
#include "exec/run.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "exec/build.h"
#include "exec/checklog.h"
#include "exec/lock.h"
#include "exec/temporal.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *run_status_name(enum run_status s)
{
	static const char *const names[] = { "ok", "warn", "failed", "up to date",
					     "upstream failed", "planned", "held", "blocked" };
	return names[s];
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

/* row (its strings in r->a), another process's build of its model, in
 * place of the one the run read at its start, or added: the decision and
 * the build of that model go by it (an update of the row, not a second
 * one), and the models after it by its data version. */
static void adopt(struct run *r, const struct model *m, const struct state_model *row)
{
	r->version[m->order] = row->data_version;
	run_keep_row(r, row);
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
	bool got = true, waited = false, in_txn = r->opts->in_txn;
	int unlocked;
	/* the caller of a run in its transaction holds every lock */
	int rc = in_txn ? 0
		 : r->opts->live || r->opts->no_wait
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
	if (!rc && pi->what == PLAN_REFUSED) {
		item->status = RUN_FAILED;
		item->message = pi->reason;
	} else if (!rc && pi->m->temporal && pi->what != PLAN_CHECK) {
		rc = temporal_build(r, pi, sig, item, err);
		pi->what = PLAN_UP_TO_DATE; /* done: no build loop below */
	} else if (!rc && pi->what == PLAN_UP_TO_DATE) {
		item->status = RUN_UP_TO_DATE;
	} else if (!rc && pi->what == PLAN_CHECK) {
		rc = build_checks_only(r, item, sig, err);
	}
	/* a batch build tries again what another process undid; the runner
	 * holds the model back until its next cycle */
	for (int attempt = 0; !rc && pi->what == PLAN_BUILD; attempt++) {
		rc = build_model(r, item, pi->full, sig, NULL, NULL, err);
		if (rc != SL_E_BUSY)
			break;
		rc = 0;
		if (r->opts->live || in_txn || attempt == BUSY_ATTEMPTS - 1) {
			item->status = r->opts->live ? RUN_HELD : RUN_FAILED;
			item->reason = "changed by another process meanwhile";
			item->message = r->opts->live ? NULL : item->reason;
			break;
		}
	}
	unlocked = in_txn ? 0 : build_unlock(r->w, model_relation(m), rc ? NULL : err);
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

/* An up-to-date model whose row holds its definition in another form than
 * a build records now (the text hash of a version before the tree hash,
 * the text before a reformatting) is given the current form, so that the
 * next reformatting, or a parser that reads the text into another tree,
 * still finds a form that matches. A run that writes nothing leaves it. */
static int record_hash(struct run *r, const struct model *m, struct sl_err *err)
{
	const struct state_model *st = state_models_find(r->state, r->nstate, m->fqn);
	struct state_model row;
	struct buf sql = BUF_INIT;
	int rc;

	if (r->opts->dry_run || r->opts->test || !st || !st->hash ||
	    strcmp(st->hash, m->recorded_hash) == 0)
		return 0;
	state_sql_model_hash(&sql, r->opts->env, m->fqn, st->hash, m->recorded_hash);
	rc = wh_exec(r->w, sql.buf, err);
	buf_release(&sql);
	if (rc)
		return rc;
	row = *st;
	row.hash = m->recorded_hash;
	adopt(r, m, &row);
	return 0;
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
	} else if (pi->what == PLAN_REFUSED) {
		item->status = RUN_FAILED;
		item->message = pi->reason;
	} else if (pi->what == PLAN_UP_TO_DATE) {
		item->status = RUN_UP_TO_DATE;
		rc = record_hash(r, m, err);
	} else if (r->opts->dry_run && m->temporal && pi->what == PLAN_BUILD) {
		rc = temporal_build(r, pi, sig, item, err);
	} else if (r->opts->dry_run) {
		/* what the models after it gate on: the run records its row */
		if (pi->what == PLAN_BUILD && build_records_window(r, m, NULL)) {
			struct state_window row = build_applied_row(r, m, NULL);

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
	struct wh *rows_from; /* where a dry run reads window rows, NULL: nowhere */
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
			rc = state_cache_load(cache, r->w, r->a, env, err);
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
		return rc || r->opts->live ? rc : run_id_need(r, err);
	}
	r->run_id = INT64_MAX;
	if (!r->w || !run_relation_exists(r, STATE_MODELS_TABLE))
		return run_windows_load(&r->wins, r->a, r->p, NULL, env, NULL, err);
	rows_from = r->windowed && run_relation_exists(r, STATE_WINDOWS_TABLE) ? r->w : NULL;
	rc = state_models_load(r->w, r->a, env, &r->state, &r->nstate, err);
	return rc ? rc : run_windows_load(&r->wins, r->a, r->p, rows_from, env, r->wanted, err);
}

/* The models the run builds or checks, and how many items its report
 * holds. */
static int select_models(struct run *r, bool *selected, size_t *total, struct sl_err *err)
{
	const struct run_opts *opts = r->opts;
	int rc = 0;

	if (opts->chosen)
		memcpy(selected, opts->chosen, r->p->nmodels * sizeof(bool));
	else
		rc = dag_select(r->p, opts->selector, selected, err);
	*total = 0;
	for (size_t i = 0; !rc && i < r->p->nmodels; i++) {
		const struct model *m = r->p->models[i];

		if (selected[i] && m->temporal && opts->in_txn)
			return sl_err_set(err, SL_E_USAGE,
					  "model %s is temporal: each of its windows is built in a "
					  "transaction of its own, which one transaction for the "
					  "whole run cannot hold",
					  m->fqn);

		if ((opts->seeds_only && m->mat != MAT_SEED) || (opts->pick && !opts->pick(opts->ctx, m)) ||
		    (opts->test && !m->checks_hash[0]))
			selected[i] = false;
		*total += selected[i] && (m->mat != MAT_EPHEMERAL || opts->test);
	}
	return rc;
}

/* Which models a contract names, whose window rows the run reads, and
 * whether it reads any: the window rows are read when a selected model has
 * windows or gates (a live runner's cycles, say, need none). */
static void mark_windowed(struct run *r, const bool *selected)
{
	size_t n = r->p->nmodels;

	r->gating = arena_alloc(r->a, (n + 1) * sizeof(bool));
	memset(r->gating, 0, (n + 1) * sizeof(bool));
	r->wanted = arena_alloc(r->a, (n + 1) * sizeof(bool));
	memcpy(r->wanted, selected, n * sizeof(bool));
	for (size_t i = 0; i < n; i++) {
		const struct model *m = r->p->models[i];

		r->windowed |= selected[i] && m->temporal;
		for (size_t k = 0; k < m->nupstreams; k++) {
			if (m->upstreams[k].level >= 0 && m->upstreams[k].target) {
				r->gating[m->upstreams[k].target->order] = true;
				r->wanted[m->upstreams[k].target->order] |= selected[i];
			}
			if (m->upstreams[k].level >= 0 &&
			    (m->upstreams[k].target || model_upstream_streams(&m->upstreams[k])))
				r->windowed |= selected[i];
		}
	}
}

/* The run's time, and the facts its plan is decided on. */
static void open_facts(struct run *r)
{
	const struct run_opts *opts = r->opts;
	int64_t now_ms = units_now_ms();

	r->now = opts->windows.now ? opts->windows.now : now_ms / 1000;
	units_format_ts(now_ms, r->run_ts, sizeof(r->run_ts));
	r->facts = (struct plan_facts){
		.a = r->a,
		.p = r->p,
		.state = r->state,
		.nstate = r->nstate,
		.relations = r->relations,
		.nrelations = r->nrelations,
		.full_refresh = opts->full_refresh,
		.skip_checks = opts->skip_asserts,
		.behind = r->book ? r->book->behind : NULL,
		.behind_ctx = r->book ? r->book->ctx : NULL,
		.hold = opts->hold,
		.hold_ctx = opts->ctx,
		.windows_due = windows_due,
		.windows_ctx = r,
	};
	for (size_t i = 0; i < r->nstate; i++)
		r->facts.columns_changed |= r->state[i].column_versions != NULL;
}

/* One model of the run, at the boundary of its build: an error that stops
 * the run says, here and only here, in which model. */
static int run_model(struct run *r, struct plan_item *pi, const char *sig, struct run_item *item,
		     struct sl_err *err)
{
	const struct model *m = item->m;
	int rc = 0;

	if (r->opts->test && m->mat != MAT_EPHEMERAL &&
	    !run_relation_exists(r, model_relation(m))) {
		item->status = RUN_UP_TO_DATE;
		item->reason = "not built";
	} else if (r->opts->test) {
		rc = build_checks_only(r, item, sig, err);
	} else if (upstream_failed(r, m)) {
		item->status = RUN_UPSTREAM_FAILED;
		item->reason = "an input failed";
	} else {
		rc = execute(r, pi, sig, item, err);
	}
	if (rc)
		sl_err_context(err, "in model %s (%s)", m->fqn, m->path);
	return rc;
}

static void report_count(struct run_report *report, const struct run_item *item)
{
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
	size_t total, idx = 0, next = 0;
	int rc;

	memset(report, 0, sizeof(*report));
	rc = select_models(&r, selected, &total, err);
	if (rc)
		return rc;
	mark_windowed(&r, selected);
	rc = need_book(&r, selected, err);
	if (!rc)
		rc = open_state(&r, err);
	if (!rc && r.windowed)
		rc = run_windows_load_sources(&r.wins, r.w, selected, err);
	if (rc)
		return rc;
	open_facts(&r);
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
		rc = run_model(&r, pi, sig, item, err);
		if (rc)
			break;
		plan_pass_through(m, r.version, r.run_id);
		r.status[i] = item->status;
		item->ms = units_mono_ms() - t;
		report_count(report, item);
		/* the results are kept whatever the build became: a failed
		 * check is what rolled it back */
		if (!opts->dry_run)
			checklog_record(p->root, opts->env, r.run_id, item, units_now_ms(), NULL);
		if (opts->on_done)
			opts->on_done(opts->ctx, item, idx, total);
		/* the caller's one transaction is lost: nothing after could be kept */
		if (opts->in_txn && item->status == RUN_FAILED)
			break;
	}
	temporal_slots_close(&r);
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
