/*
 * The decisions of a plan, from the state rows, the warehouse's relations
 * and the versions of each model's inputs. Nothing here reads or writes
 * the warehouse.
 */
#include "plan/plan.h"

#include "core/arena.h"
#include "core/buf.h"
#include "plan/columns.h"
#include "project/dag.h"
#include "project/declared.h"
#include "project/inputs.h"
#include "project/project.h"
#include "state/state.h"

#include <string.h>

/* Whether m reads a table outside the project that sluice cannot see
 * change. The landing tables of a model that keeps watermarks are seen:
 * their sequence says what is new; so are adopted tables, by their
 * cursor. */
static bool reads_external(const struct model *m)
{
	bool tracked = inputs_tracks(m);

	for (size_t i = 0; i < m->nrefs; i++)
		if (!m->refs[i].target &&
		    !(tracked && (strcmp(m->refs[i].schema, "landing") == 0 || m->refs[i].adopted)) &&
		    !declared_hardcoded_named(m, m->refs[i].schema, m->refs[i].name))
			return true;
	return false;
}

/* The version of an input as a model that keeps watermarks sees it: the
 * landing tables behind a view or ephemeral are covered by its watermarks,
 * so only the definition and the model inputs behind them count. */
static int64_t tracked_version(const struct plan_facts *f, const struct model *d,
			       const int64_t *version, int depth)
{
	const struct state_model *st;
	int64_t v;

	if ((d->mat != MAT_VIEW && d->mat != MAT_EPHEMERAL) || depth > 64)
		return version[d->order];
	st = state_models_find(f->state, f->nstate, d->fqn);
	v = st ? st->data_version : 0;
	for (size_t i = 0; i < d->ndeps; i++) {
		int64_t dv = tracked_version(f, d->deps[i], version, depth + 1);

		if (dv > v)
			v = dv;
	}
	return v;
}

/* The version of input d that m sees: a build of d this plan makes that
 * changes columns m does not read (pending[d]), or one that did (its
 * state row's column_versions), leaves what m sees of d as it was. */
static int64_t seen(struct arena *a, const struct plan_facts *f, const struct model *m,
		    const struct model *d, int64_t v, const struct shape_diff *const *pending)
{
	const struct state_model *st;

	if (!f->columns_changed && !(pending && pending[d->order]))
		return v;
	st = state_models_find(f->state, f->nstate, d->fqn);
	if (!st || (v != st->data_version && !(pending && pending[d->order])))
		return v;
	if (v != st->data_version)
		return plan_reads_any(a, m, d, pending[d->order])
			       ? v
			       : plan_seen_version(a, m, d, st, st->data_version);
	return plan_seen_version(a, m, d, st, v);
}

static const char *signature(struct arena *a, const struct plan_facts *f, const struct model *m,
			     const int64_t *version, const struct shape_diff *const *pending)
{
	bool tracks = inputs_tracks(m);
	struct buf b = BUF_INIT;
	const char *s, *declared;

	for (size_t i = 0; i < m->ndeps; i++) {
		const struct model *d = m->deps[i];
		int64_t v = tracks ? tracked_version(f, d, version, 0)
				   : seen(a, f, m, d, version[d->order], pending);

		buf_addf(&b, "%s%s@%lld", i ? "," : "", d->fqn, (long long)v);
	}
	declared = declared_signature(a, m);
	buf_adds(&b, b.len || !*declared ? declared : declared + 1);
	s = arena_strdup(a, b.buf ? b.buf : "");
	buf_release(&b);
	return s;
}

const char *plan_signature(struct arena *a, const struct plan_facts *f, const struct model *m,
			   const int64_t *version)
{
	return signature(a, f, m, version, NULL);
}

int64_t *plan_versions(struct arena *a, const struct plan_facts *f)
{
	int64_t *version = arena_alloc(a, (f->p->nmodels + 1) * sizeof(int64_t));

	for (size_t i = 0; i < f->p->nmodels; i++) {
		const struct state_model *st =
			state_models_find(f->state, f->nstate, f->p->models[i]->fqn);

		version[i] = st ? st->data_version : 0;
	}
	return version;
}

void plan_pass_through(const struct model *m, int64_t *version, int64_t fresh)
{
	int64_t v = version[m->order];

	if (m->mat != MAT_VIEW && m->mat != MAT_EPHEMERAL)
		return;
	if (reads_external(m)) {
		version[m->order] = fresh;
		return;
	}
	for (size_t i = 0; i < m->ndeps; i++)
		if (version[m->deps[i]->order] > v)
			v = version[m->deps[i]->order];
	version[m->order] = v;
}

/* Why m's checks must run again although its data is up to date, or NULL:
 * they changed since they last held, its data changed without them (a
 * refresh that spaced checks out), or m is a view, whose data changes with
 * its inputs. */
static const char *checks_due(const struct plan_facts *f, const struct model *m,
			      const struct state_model *st, const char *sig)
{
	if (!m->checks_hash[0] || f->skip_checks)
		return NULL;
	if (!st->checks)
		return "checks not yet run on its data";
	if (strcmp(st->checks, m->checks_hash) != 0)
		return "checks changed";
	if (m->mat == MAT_VIEW && (reads_external(m) || !st->inputs || strcmp(st->inputs, sig) != 0))
		return "inputs changed";
	return NULL;
}

/* Whether the state row records m's definition as it is. A build records
 * two forms, "tree:text" (model.h), a version before the tree hash only
 * the text's; one of them matching m's change hash or its text hash is
 * enough: the tree's lets a model be reformatted, the text's lets a parser
 * whose tree reads otherwise, or an upgrade, rebuild nothing. */
bool plan_same_definition(const struct model *m, const struct state_model *st)
{
	const char *part = st->hash;

	if (!st->hash || !st->materialized ||
	    strcmp(st->materialized, model_mat_name(m->mat)) != 0)
		return false;
	if (strcmp(st->hash, m->recorded_hash) == 0)
		return true;
	while (*part) {
		size_t len = strcspn(part, ":");

		if (len && ((len == strlen(m->hash) && strncmp(part, m->hash, len) == 0) ||
			    (len == strlen(m->text_hash) && strncmp(part, m->text_hash, len) == 0)))
			return true;
		part += len + (part[len] == ':');
	}
	return false;
}

static void up_to_date(const struct plan_facts *f, const struct model *m,
		       const struct state_model *st, const char *sig, const char *reason,
		       struct plan_item *item)
{
	const char *why = checks_due(f, m, st, sig);

	item->what = why ? PLAN_CHECK : PLAN_UP_TO_DATE;
	item->reason = why ? why : reason;
}

static void build(struct plan_item *item, bool full, const char *reason)
{
	item->what = PLAN_BUILD;
	item->full = full;
	item->reason = reason;
}

static void add_names(struct buf *b, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf_addf(b, "%s%s", i ? (i + 1 == n ? " and " : ", ") : "", names[i]);
}

/* An incremental model whose query changed as d says: its table keeps
 * the rows it has and gains or loses columns as on_schema_change asks, is
 * built anew, or the build refuses, saying how to go on. */
static void evolve(struct arena *a, const struct model *m, const struct shape_diff *d,
		   struct buf *why, struct plan_item *item)
{
	bool added_only = !d->rows && !d->nchanged && !d->nremoved;
	enum model_schema_change osc = m->on_schema_change;

	/* a temporal model's windows are built again from their inputs, each
	 * as its own run would (the grid says which; --mode torch keeps them) */
	if (osc == MODEL_OSC_FULL || m->temporal) {
		build(item, true, arena_strdup(a, why->buf));
	} else if (!m->maintained &&
		   ((osc == MODEL_OSC_APPEND && added_only) || (osc == MODEL_OSC_SYNC && !d->rows))) {
		buf_adds(why, added_only || !d->nremoved ? "; its table gains the new columns"
							 : "; its table's columns follow the query");
		build(item, false, arena_strdup(a, why->buf));
	} else {
		buf_addf(why, ", and its table holds the rows the old query made: to build it anew "
			      "run with --full-refresh, or set on_schema_change=full_refresh%s",
			 d->rows || osc == MODEL_OSC_SYNC || m->maintained
				 ? ""
				 : " (or sync_all_columns to keep the old rows as they are)");
		item->what = PLAN_REFUSED;
		item->full = false;
		item->reason = arena_strdup(a, why->buf);
	}
}

/* Why m, whose definition changed, is built: what the change touches, and
 * for a change of some columns, which readers read them. A build that
 * changes those columns alone is marked so (item->columns). */
static void definition_changed(const struct plan_facts *f, struct model *m,
			       const struct state_model *st, const char *sig, struct plan_item *item)
{
	struct shape_diff *d = f->a ? arena_alloc(f->a, sizeof(*d)) : NULL;
	struct buf b = BUF_INIT;
	bool only;

	if (!d || !plan_change_of(f->a, m, st, d) ||
	    (!d->rows && !d->nchanged && !d->nremoved && !d->nadded)) {
		build(item, m->mat != MAT_SNAPSHOT, "definition changed");
		return;
	}
	buf_adds(&b, "definition changed: ");
	if (d->rows) {
		buf_adds(&b, "what decides its rows, so every column");
		d->nchanged = d->nremoved = d->nadded = 0;
	}
	if (d->nchanged) {
		add_names(&b, d->changed, d->nchanged);
		buf_adds(&b, " changed");
	}
	if (d->nremoved) {
		buf_adds(&b, d->nchanged ? "; " : "");
		add_names(&b, d->removed, d->nremoved);
		buf_adds(&b, " removed");
	}
	if (d->nadded) {
		buf_adds(&b, d->nchanged || d->nremoved ? "; " : "");
		add_names(&b, d->added, d->nadded);
		buf_adds(&b, " added");
	}
	buf_adds(&b, d->rows || d->nchanged || d->nremoved ? " (breaking)" : " (non-breaking)");
	if (m->mat == MAT_INCREMENTAL) {
		evolve(f->a, m, d, &b, item);
		buf_release(&b);
		return;
	}
	only = plan_columns_only(m, st, sig, d);
	for (size_t i = 0, shown = 0; only && i < m->nchildren; i++) {
		const struct model *c = m->children[i];

		if (plan_reads_any(f->a, c, m, d))
			continue;
		buf_addf(&b, "%s%s", shown++ ? ", " : "; not read by ", c->fqn);
	}
	build(item, m->mat != MAT_SNAPSHOT, arena_strdup(f->a, b.buf));
	item->columns = only ? d : NULL;
	buf_release(&b);
}

void plan_decide(const struct plan_facts *f, struct model *m, const char *sig,
		 struct plan_item *item)
{
	const struct state_model *st = state_models_find(f->state, f->nstate, m->fqn);

	item->full = false;
	item->columns = NULL;
	if (!st || !dag_relation_exists(f->relations, f->nrelations, model_relation(m)))
		build(item, true, st ? "missing from the warehouse" : "new");
	else if (f->full_refresh && m->mat != MAT_SNAPSHOT)
		build(item, true, "full refresh");
	else if (m->mat == MAT_SEED && !plan_same_definition(m, st))
		build(item, true, "file changed");
	else if (!plan_same_definition(m, st))
		/* a snapshot keeps its history through definition changes */
		definition_changed(f, m, st, sig, item);
	else if (m->temporal)
		/* its windows come due with time, whatever its inputs did */
		if (f->windows_due && f->windows_due(f->windows_ctx, m))
			build(item, false, "windows due");
		else
			up_to_date(f, m, st, sig, "no window due", item);
	else if (m->mat == MAT_VIEW || m->mat == MAT_SEED)
		up_to_date(f, m, st, sig, "up to date", item);
	else if (reads_external(m))
		build(item, false, "reads tables outside the project");
	else if (f->behind && inputs_tracks(m) && f->behind(f->behind_ctx, m))
		build(item, false, "new events");
	else if (!st->inputs || strcmp(st->inputs, sig) != 0)
		build(item, false, "inputs changed");
	else
		up_to_date(f, m, st, sig,
			   f->full_refresh && m->mat == MAT_SNAPSHOT
				   ? "up to date (a full refresh keeps a snapshot's history)"
				   : "up to date",
			   item);
}

void plan_make(struct arena *a, const struct plan_facts *f, const bool *selected,
	       struct plan *out)
{
	const struct project *p = f->p;
	int64_t *version = plan_versions(a, f);
	/* per model, the columns alone a build this plan makes changes */
	const struct shape_diff **pending = arena_alloc(a, (p->nmodels + 1) * sizeof(*pending));

	memset(pending, 0, (p->nmodels + 1) * sizeof(*pending));
	out->items = arena_alloc(a, (p->nmodels + 1) * sizeof(*out->items));
	out->n = 0;
	for (size_t i = 0; i < p->nmodels; i++) {
		struct model *m = p->models[i];
		struct plan_item *item;

		if (selected[i] && m->mat != MAT_EPHEMERAL) {
			item = &out->items[out->n++];
			memset(item, 0, sizeof(*item));
			item->m = m;
			item->sig = signature(a, f, m, version, pending);
			item->reason = f->hold ? f->hold(f->hold_ctx, m) : NULL;
			if (item->reason)
				item->what = PLAN_HELD;
			else
				plan_decide(f, m, item->sig, item);
			if (item->what == PLAN_BUILD)
				version[i] = INT64_MAX;
			if (item->what == PLAN_BUILD)
				pending[i] = item->columns;
		}
		plan_pass_through(m, version, INT64_MAX);
	}
}
