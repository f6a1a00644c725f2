/*
 * The decisions of a plan, from the state rows, the warehouse's relations
 * and the versions of each model's inputs. Nothing here reads or writes
 * the warehouse.
 */
#include "plan/plan.h"

#include "core/arena.h"
#include "core/buf.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "project/project.h"
#include "state/state.h"

#include <string.h>

/* Whether m reads a table outside the project that sluice cannot see
 * change. The landing tables of a model that keeps watermarks are seen:
 * their sequence says what is new. */
static bool reads_external(const struct model *m)
{
	bool tracked = inputs_tracks(m);

	for (size_t i = 0; i < m->nrefs; i++)
		if (!m->refs[i].target && !(tracked && strcmp(m->refs[i].schema, "landing") == 0))
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

const char *plan_signature(struct arena *a, const struct plan_facts *f, const struct model *m,
			   const int64_t *version)
{
	bool tracks = inputs_tracks(m);
	struct buf b = BUF_INIT;
	const char *s;

	for (size_t i = 0; i < m->ndeps; i++) {
		const struct model *d = m->deps[i];
		int64_t v = tracks ? tracked_version(f, d, version, 0) : version[d->order];

		buf_addf(&b, "%s%s@%lld", i ? "," : "", d->fqn, (long long)v);
	}
	s = arena_strdup(a, b.buf);
	buf_release(&b);
	return s;
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
static bool same_definition(const struct model *m, const struct state_model *st)
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

void plan_decide(const struct plan_facts *f, struct model *m, const char *sig,
		 struct plan_item *item)
{
	const struct state_model *st = state_models_find(f->state, f->nstate, m->fqn);

	item->full = false;
	if (!st || !dag_relation_exists(f->relations, f->nrelations, model_relation(m)))
		build(item, true, st ? "missing from the warehouse" : "new");
	else if (f->full_refresh && m->mat != MAT_SNAPSHOT)
		build(item, true, "full refresh");
	else if (!same_definition(m, st))
		/* a snapshot keeps its history through definition changes */
		build(item, m->mat != MAT_SNAPSHOT,
		      m->mat == MAT_SEED ? "file changed" : "definition changed");
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

	out->items = arena_alloc(a, (p->nmodels + 1) * sizeof(*out->items));
	out->n = 0;
	for (size_t i = 0; i < p->nmodels; i++) {
		struct model *m = p->models[i];
		struct plan_item *item;

		if (selected[i] && m->mat != MAT_EPHEMERAL) {
			item = &out->items[out->n++];
			memset(item, 0, sizeof(*item));
			item->m = m;
			item->sig = plan_signature(a, f, m, version);
			item->reason = f->hold ? f->hold(f->hold_ctx, m) : NULL;
			if (item->reason)
				item->what = PLAN_HELD;
			else
				plan_decide(f, m, item->sig, item);
			if (item->what == PLAN_BUILD)
				version[i] = INT64_MAX;
		}
		plan_pass_through(m, version, INT64_MAX);
	}
}
