/*
 * Cross-model validation: builds the graph and applies the rules that look
 * at more than one model or at a model's placeholders in context.
 */
#include "project/validate.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/suggest.h"
#include "project/dag.h"
#include "project/header.h"
#include "project/inputs.h"
#include "project/maintain.h"
#include "project/project.h"
#include "project/refs.h"
#include "project/shape.h"
#include "state/changes.h"
#include "state/state.h"
#include "windows/contract.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void check_placeholders(struct project *p, const struct model *m)
{
	for (size_t i = 0; i < m->nplaceholders; i++) {
		const struct model_placeholder *ph = &m->placeholders[i];
		int line, col;

		if ((ph->kind == PH_SINCE || ph->kind == PH_UNTIL) && !m->temporal) {
			model_span_position(m, ph->span.part, ph->span.offset, &line, &col);
			diag_add(&p->diags, DIAG_ERROR, m->path, line, col,
				 "set temporality=temporal, time_column and grain in @config",
				 "placeholder '{%s}' needs a temporal model",
				 ph->kind == PH_SINCE ? "since" : "until");
		}
		if (ph->kind == PH_THIS && m->mat == MAT_EPHEMERAL) {
			model_span_position(m, ph->span.part, ph->span.offset, &line, &col);
			diag_add(&p->diags, DIAG_ERROR, m->path, line, col, NULL,
				 "an ephemeral model has no table for '{this}'");
		}
	}
}

/* A flexible model promises that its result for [a, c) is that of [a, b)
 * and [b, c) together, so that its work may be cut anywhere: a query that
 * aggregates breaks the promise, and a write by key risks an
 * order-dependent result (every window replaces its rows first, so an
 * append never doubles them). */
static void check_flexible(struct project *p, const struct model *m)
{
	const struct model_setting *st = model_setting_get(m, "flexibility");
	int line = st ? st->line : 1;

	if (!m->flex)
		return;
	if (m->aggregates)
		diag_add(&p->diags, DIAG_ERROR, m->path, line, 0,
			 "an aggregate's numbers change with how the range is cut: keep it "
			 "flexibility=fix",
			 "flexible model '%s' aggregates (%s%s)", m->fqn, m->aggregates,
			 strchr(m->aggregates, ' ') ? "" : "()");
	if (m->strategy == STRAT_MERGE || m->strategy == STRAT_DELETE_INSERT)
		diag_add(&p->diags, DIAG_WARNING, m->path, line, 0,
			 "the last write of a key wins, and which one is last depends on how the "
			 "range is cut unless ties break on a column of the data",
			 "flexible model '%s' %s on unique_key", m->fqn,
			 m->strategy == STRAT_MERGE ? "merges" : "deletes and inserts");
}

/* A temporal model's query is rendered once per window: it must read
 * only its window, or each window would write the rows of all of them. */
static void check_windowed(struct project *p, const struct model *m)
{
	bool since = false, until = false;
	const struct model_setting *st = model_setting_get(m, "temporality");

	if (!m->temporal)
		return;
	for (size_t i = 0; i < m->nplaceholders; i++) {
		since |= m->placeholders[i].kind == PH_SINCE;
		until |= m->placeholders[i].kind == PH_UNTIL;
	}
	check_flexible(p, m);
	if (!since || !until)
		diag_add(&p->diags, DIAG_ERROR, m->path, st ? st->line : 1, 0,
			 "filter the rows the query reads to the window: WHERE ts >= {since} AND "
			 "ts < {until}",
			 "a temporal model must read only its window with {since} and {until}");
}

/* A live model's inputs: a batch model it reads will not trigger it, and
 * its watermark placeholders must name what it tracks. */
static void check_live_inputs(struct project *p, const struct model *m)
{
	struct model_inputs in;

	if (!inputs_tracks(m))
		return;
	inputs_find(p->arena, m, &in);
	for (size_t i = 0; m->live && i < in.nbatch; i++)
		diag_add(&p->diags, DIAG_WARNING, m->path, 0, 0,
			 "make the input live too, or accept that it refreshes only on 'sluice run'",
			 "live model '%s' reads batch model '%s', which will not trigger its "
			 "refreshes",
			 m->fqn, in.batch[i]->fqn);
	for (size_t i = 0; i < m->nplaceholders; i++) {
		const struct model_placeholder *ph = &m->placeholders[i];
		int line, col;

		if (ph->kind != PH_WATERMARK)
			continue;
		model_span_position(m, ph->span.part, ph->span.offset, &line, &col);
		if (ph->arg && !inputs_get(&in, ph->arg))
			diag_add(&p->diags, DIAG_ERROR, m->path, line, col,
				 in.n ? arena_sprintf(p->arena, "it tracks %s%s", in.items[0].name,
						      in.n > 1 ? " and more" : "")
				      : "a watermark belongs to a landing table, an adopted source's table or a "
					  "live model",
				 "'{watermark:%s}' names no input model '%s' tracks", ph->arg,
				 m->fqn);
		else if (!ph->arg && in.n > 1)
			diag_add(&p->diags, DIAG_ERROR, m->path, line, col,
				 arena_sprintf(p->arena, "write {watermark:%s} (or another input)",
					       in.items[0].name),
				 "'{watermark}' is ambiguous: model '%s' tracks %zu inputs", m->fqn,
				 in.n);
		else if (!ph->arg && in.n == 0)
			diag_add(&p->diags, DIAG_ERROR, m->path, line, col,
				 "read a landing table, an adopted source's table or a live incremental model",
				 "'{watermark}' in model '%s', which tracks no input", m->fqn);
	}
}

/* ivm=required: a live model whose refreshes would run its whole query
 * is an error at the construct (or the input) that makes it so, and one
 * whose refreshes are written by hand (a strategy or a key without a
 * filter: settings refuse the filter itself) cannot be maintained. */
static void check_ivm(struct project *p, const struct model *m)
{
	const struct maint *mt = m->maint;
	int line = m->body_line, col = 0;

	if (m->ivm != MODEL_IVM_REQUIRED || !inputs_refreshes(m) || m->filter)
		return;
	if (!m->maintained) {
		diag_add(&p->diags, DIAG_ERROR, m->path, line, 0,
			 "remove incremental_strategy and unique_key: sluice finds the keys in "
			 "the query",
			 "ivm 'required' derives the refresh of live model '%s' from its query, but "
			 "its settings write it by hand",
			 m->fqn);
		return;
	}
	if (!mt || mt->cls != IVM_FULL)
		return;
	if (mt->offset >= 0)
		model_span_position(m, PART_BODY, (size_t)mt->offset, &line, &col);
	diag_add(&p->diags, DIAG_ERROR, m->path, line, col,
		 "ivm=required refuses to rebuild it on each refresh: rewrite the query, or "
		 "set ivm=auto to accept that",
		 "live model '%s' cannot be maintained incrementally: %s", m->fqn, mt->blocker);
}

static bool uses_watermark(const struct model *m)
{
	for (size_t i = 0; i < m->nplaceholders; i++)
		if (m->placeholders[i].kind == PH_WATERMARK)
			return true;
	return false;
}

/* Whether m reads u's change log. */
static bool reads_changes(const struct model *m, const struct model *u)
{
	for (size_t i = 0; i < m->nrefs; i++)
		if (m->refs[i].changes_of == u)
			return true;
	return false;
}

/* A model that finds what changed in a merge or delete+insert model by
 * its new rows alone never sees the old values those rows replaced, nor
 * the rows deleted: the groups they were in are never recomputed. Warned
 * once per such input, at its first reference. */
static void check_rewritten_inputs(struct project *p, const struct model *m)
{
	if (!uses_watermark(m))
		return;
	for (size_t i = 0; i < m->nrefs; i++) {
		const struct model *u = m->refs[i].target;
		bool first = true;
		char table[512];
		int line, col;

		for (size_t k = 0; k < i && first; k++)
			first = m->refs[k].target != u;
		if (!u || !first || !model_keeps_changes(u) || reads_changes(m, u))
			continue;
		state_changes_table(table, sizeof(table), u->home_schema, u->name);
		model_span_position(m, m->refs[i].span.part, m->refs[i].span.offset, &line, &col);
		diag_add(&p->diags, DIAG_WARNING, m->path, line, col,
			 arena_sprintf(p->arena,
				       "find the changed rows, old values and deleted rows too, in "
				       "its change log " STATE_SCHEMA ".%s (see docs/live.md)",
				       table),
			 "model '%s' reads %s model '%s' by {watermark}: it rewrites rows in "
			 "place, so the groups of their old values are never recomputed",
			 m->fqn, model_strategy_name(u->strategy), u->fqn);
	}
}

/* The contract rules the definitions alone decide (the reference's
 * definition-time errors), and warnings for the contracts a gate will
 * refuse because of the upstream's shape. */
/* Freshness is measured on the rows a contract selects. */
static void check_freshness(struct project *p, const struct model *m,
			    const struct model_upstream *u, const char *level)
{
	if (u->fresh_s && !level)
		diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
			 "freshness is checked on the rows a contract selects: add contract=…",
			 "freshness on '%s' without a contract", u->name);
	else if (u->fresh_s && u->level == WIN_EXISTS)
		diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
			 "exists looks at no rows: use contract=whole or encapsulate",
			 "freshness on '%s' with contract exists", u->name);
}

/* A contract on a declared source gates on the coverage its event_time
 * publishes: everything before its newest event less its lateness. That
 * is a coverage without windows of a grain and without an end. */
static void check_source_gate(struct project *p, const struct model *m,
			      const struct model_upstream *u, const char *level)
{
	const struct source_cfg *s = u->source;

	check_freshness(p, m, u, level);
	if (!level)
		return;
	if (!s->event_time)
		diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
			 arena_sprintf(p->arena,
				       "give source '%s' event_time: COLUMN (and lateness: DURATION) "
				       "in sluice.yml, or remove contract",
				       s->name),
			 "contract on source '%s', which publishes no coverage without event_time",
			 s->name);
	else if (u->level == WIN_EXACT || u->level == WIN_WHOLE)
		diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
			 "a stream's coverage has no windows and no end: use encapsulate or through",
			 "contract %s on source '%s' can never be met", level, s->name);
	else if (!m->temporal && u->level != WIN_EXISTS)
		diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
			 "a timeless model has no window: gate it exists, or read the source ungated",
			 "contract %s on source '%s' from timeless model '%s'", level, s->name, m->fqn);
}

static void check_upstreams(struct project *p, const struct model *m)
{
	for (size_t i = 0; i < m->nupstreams; i++) {
		const struct model_upstream *u = &m->upstreams[i];
		const char *level = u->level >= 0 ? win_level_name((enum win_level)u->level) : NULL;
		const struct model *t = u->target;

		if (!*u->name)
			continue;
		if (u->source) {
			check_source_gate(p, m, u, level);
			continue;
		}
		if (level && strcmp(u->type, "model") != 0)
			diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
				 "only a model's windows are recorded: remove contract, or read a model",
				 "contract on %s input '%s', which nothing gates on", u->type, u->name);
		check_freshness(p, m, u, level);
		if (level && strcmp(u->type, "model") == 0 && !t) {
			const char *near = suggest_nearest(u->name, project_model_names(p));

			diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
				 near ? arena_sprintf(p->arena, "did you mean '%s'?", near)
				      : "a contract gates on a model of the project; without one the "
					"input is read ungated",
				 "gated upstream '%s' is not a model of the project", u->name);
		}
		if (t == m)
			diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0, NULL,
				 "model '%s' names itself as its upstream", m->fqn);
		if (level && t && t->mat == MAT_EPHEMERAL)
			diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
				 "an ephemeral model is inlined, never built: gate on what it reads",
				 "contract on ephemeral model '%s', which records nothing", t->fqn);
		if (!level || !t || t == m || u->level == WIN_EXISTS || u->level == WIN_WHOLE)
			continue;
		if (!m->temporal)
			diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
				 "a timeless model has no window: gate it whole or exists",
				 "contract %s on '%s' from timeless model '%s'", level, t->fqn, m->fqn);
		else if (!t->temporal)
			diag_add(&p->diags, DIAG_WARNING, m->path, u->line, 0,
				 "a timeless upstream has no windows: gate it whole or exists",
				 "contract %s on timeless upstream '%s' will fail every window", level,
				 t->fqn);
		else if (t->flex && u->level == WIN_EXACT)
			diag_add(&p->diags, DIAG_WARNING, m->path, u->line, 0,
				 "a flexible upstream keeps coverage, not windows: use encapsulate",
				 "contract exact on flexible upstream '%s' will fail every window",
				 t->fqn);
	}
}

/* A postgres_cdc landing stamps every source transaction of one landing
 * commit with the same _sluice_seq; only _sluice_pos, which counts on
 * across them, tells their changes apart. A model that orders by the
 * sequence without reading the position (nor every column) picks an
 * arbitrary winner among a key's changes of one commit. */
static void check_cdc_order(struct project *p, const struct model *m)
{
	const struct model_setting *set = model_setting_get(m, "cdc_seq");

	if (!m->cdc_seq || strcasecmp(m->cdc_seq, "_sluice_seq") != 0 ||
	    strcasestr(m->body, "_sluice_pos") || strchr(m->body, '*'))
		return;
	for (size_t i = 0; i < m->nrefs; i++) {
		const struct model_ref *r = &m->refs[i];
		const struct source_cfg *s;
		const char *relation;

		if (r->target || !r->schema_given)
			continue;
		s = dag_source_named(p, arena_sprintf(p->arena, "%s.%s", r->schema, r->name),
				     &relation);
		if (s && strcmp(s->kind, "postgres_cdc") == 0) {
			diag_add(&p->diags, DIAG_WARNING, m->path, set ? set->line : 0, 0,
				 "order by the source's commit with cdc_seq=lsn, and select "
				 "_sluice_pos so the last change of a key wins",
				 "cdc_seq=_sluice_seq on postgres_cdc landing '%s' orders the changes "
				 "of one landing commit arbitrarily: several source transactions "
				 "share its sequence",
				 relation);
			return;
		}
	}
}

/* The schemas sluice writes itself: a model there would replace its state,
 * a source's landed rows or a seed, and be replaced by them. */
static const struct {
	const char *schema, *why, *hint;
} owned_schemas[] = {
	{ "_sluice", "which holds sluice's own state",
	  "move the file to a folder of your own under models/: the folder names the schema" },
	{ "landing", "where sources land their rows",
	  "read landing tables from a model in a schema of your own, e.g. "
	  "models/bronze/NAME.sql" },
	{ "seeds", "which holds the seeds, loaded from seeds/*.csv",
	  "move the file to a folder of your own under models/, or make it a CSV file in "
	  "seeds/" },
};

/* The side tables a build makes beside a model's own, "NAME__sluice_new". */
#define SIDE_TABLE_MARK "__sluice_"

/* A model may never write where sluice writes: its own schemas, the table
 * a declared source lands in or follows, the side tables of builds. */
static void check_owned(struct project *p, const struct model *m)
{
	if (m->mat == MAT_SEED)
		return;
	for (size_t i = 0; i < sizeof(owned_schemas) / sizeof(owned_schemas[0]); i++) {
		if (strcmp(m->home_schema, owned_schemas[i].schema) != 0)
			continue;
		diag_add(&p->diags, DIAG_ERROR, m->path, 1, 0, owned_schemas[i].hint,
			 "model '%s' would write into schema '%s', %s", m->fqn,
			 owned_schemas[i].schema, owned_schemas[i].why);
		break;
	}
	for (size_t i = 0; i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];
		char table[512];

		inputs_source_table(s, table, sizeof(table));
		if (strcmp(table, m->fqn) == 0)
			diag_add(&p->diags, DIAG_ERROR, m->path, 1, 0,
				 arena_sprintf(p->arena,
					       "give the model another name, and read the source's "
					       "table in its query (source '%s' is at sluice.yml:%d)",
					       s->name, s->line),
				 "model '%s' would replace table '%s', which source '%s' %s", m->fqn,
				 table, s->name,
				 s->kind && strcmp(s->kind, "adopted") == 0 ? "follows" : "lands in");
	}
	if (strstr(m->name, SIDE_TABLE_MARK))
		diag_add(&p->diags, DIAG_ERROR, m->path, 1, 0,
			 "rename the file: a build keeps tables named NAME" SIDE_TABLE_MARK "… "
			 "beside a model's own",
			 "model name '%s' holds '" SIDE_TABLE_MARK "', which names sluice's side tables",
			 m->name);
}

/* The columns a model's own anomaly_columns names must be columns its
 * query returns, where its select list says which (not through a star). A
 * folder's default may name columns of some of its models only. */
static void check_anomaly_columns(struct project *p, const struct model *m)
{
	const struct model_setting *st = model_setting_get(m, "anomaly_columns");
	const char **names;
	struct model_shape shape;

	if (!st || st->from_pipeline || !m->nanomaly_columns || !shape_of(p->arena, m, &shape))
		return;
	names = arena_alloc(p->arena, (shape.ncols + 1) * sizeof(*names));
	for (size_t i = 0; i < shape.ncols; i++) {
		if (strcmp(shape.cols[i].name, "*") == 0)
			return;
		names[i] = shape.cols[i].name;
	}
	names[shape.ncols] = NULL;
	for (size_t i = 0; i < m->nanomaly_columns; i++) {
		const char *name = m->anomaly_columns[i].name;
		bool found = false;

		for (size_t k = 0; k < shape.ncols && !found; k++)
			found = strcasecmp(names[k], name) == 0;
		if (!found)
			diag_add(&p->diags, DIAG_ERROR, m->path, st->line, 0,
				 header_mean_hint(p->arena, names, name, ""),
				 "anomaly_columns names '%s', which the query does not return", name);
	}
}

int project_validate(struct project *p, const char *const *relations, size_t nrelations)
{
	dag_build(p, relations, nrelations);
	for (size_t i = 0; i < p->nmodels; i++) {
		project_model_hash_inlined(p->models[i]);
		check_placeholders(p, p->models[i]);
		check_live_inputs(p, p->models[i]);
		check_ivm(p, p->models[i]);
		check_rewritten_inputs(p, p->models[i]);
		check_windowed(p, p->models[i]);
		check_upstreams(p, p->models[i]);
		check_cdc_order(p, p->models[i]);
		check_owned(p, p->models[i]);
		check_anomaly_columns(p, p->models[i]);
	}
	diag_sort(&p->diags);
	return diag_has_errors(&p->diags) ? SL_E_INVALID : 0;
}

/* A schema something is built into, with one model built there. */
struct schema_use {
	const char *schema;
	const struct model *model;            /* a model of the project, or */
	const struct state_env_model *copy;   /* an environment's copy */
};

/* By schema, then environment, then model name. */
static int cmp_schema_use(const void *x, const void *y)
{
	const struct schema_use *a = x, *b = y;
	int c = strcmp(a->schema, b->schema);

	if (!c && a->copy && b->copy)
		c = strcmp(a->copy->env, b->copy->env);
	if (!c)
		c = strcmp(a->model ? a->model->fqn : a->copy->name,
			   b->model ? b->model->fqn : b->copy->name);
	return c;
}

/* Sorts uses and keeps the first of each schema (of each environment's,
 * for copies), so each is reported once, naming the same model each time. */
static size_t schema_uses_unique(struct schema_use *uses, size_t n)
{
	size_t kept = 0;

	if (n > 1)
		qsort(uses, n, sizeof(*uses), cmp_schema_use);
	for (size_t i = 0; i < n; i++) {
		const struct schema_use *prev = kept ? &uses[kept - 1] : NULL;

		if (!prev || strcmp(prev->schema, uses[i].schema) != 0 ||
		    (prev->copy && strcmp(prev->copy->env, uses[i].copy->env) != 0))
			uses[kept++] = uses[i];
	}
	return kept;
}

static const struct schema_use *schema_use_find(const struct schema_use *uses, size_t n,
						const char *schema)
{
	size_t lo = 0, hi = n;

	/* the first entry of the schema, whatever its environment */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(uses[mid].schema, schema) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strcmp(uses[lo].schema, schema) == 0 ? &uses[lo] : NULL;
}

/* What env would write: each schema of the project as SCHEMA_env, against
 * the project's schemas and the recorded environments' copies. */
static void check_env_schemas(struct project *p, const char *env, const struct schema_use *own,
			      size_t nown, const struct schema_use *copies, size_t ncopies)
{
	for (size_t i = 0; i < nown; i++) {
		const struct model *m = own[i].model;
		const char *copy = arena_sprintf(p->arena, "%s_%s", own[i].schema, env);
		const struct schema_use *hit = schema_use_find(own, nown, copy);

		if (hit) {
			diag_add(&p->diags, DIAG_ERROR, m->path, 1, 0,
				 arena_sprintf(p->arena,
					       "an environment's schemas are SCHEMA_ENV: use another "
					       "environment name, or rename models/%s/",
					       copy),
				 "environment '%s' would build model '%s' into schema '%s', which "
				 "holds model '%s'",
				 env, m->fqn, copy, hit->model->fqn);
			continue;
		}
		for (hit = schema_use_find(copies, ncopies, copy);
		     hit && hit < copies + ncopies && strcmp(hit->schema, copy) == 0; hit++) {
			if (strcmp(hit->copy->env, env) == 0)
				continue;
			diag_add(&p->diags, DIAG_ERROR, m->path, 1, 0,
				 arena_sprintf(p->arena,
					       "an environment's schemas are SCHEMA_ENV, so both are "
					       "'%s': use another environment name",
					       copy),
				 "environment '%s' would build model '%s' into schema '%s', where "
				 "environment '%s' keeps its copy of model '%s'",
				 env, m->fqn, copy, hit->copy->env, hit->copy->name);
			break;
		}
	}
}

/* Where the recorded environments keep their copies, against the schemas
 * the project builds into now. */
static void check_recorded_envs(struct project *p, const char *env, const struct schema_use *own,
				size_t nown, const struct schema_use *copies, size_t ncopies)
{
	for (size_t k = 0; k < ncopies; k++) {
		const struct state_env_model *r = copies[k].copy;
		const struct schema_use *hit = schema_use_find(own, nown, copies[k].schema);

		if (!hit || (env && strcmp(r->env, env) == 0))
			continue;
		diag_add(&p->diags, DIAG_ERROR, hit->model->path, 1, 0,
			 arena_sprintf(p->arena,
				       "an environment's schemas are SCHEMA_ENV: rename models/%s/, or "
				       "drop schema '%s' of environment '%s' from the warehouse",
				       copies[k].schema, copies[k].schema, r->env),
			 "model '%s' would be built into schema '%s', where environment '%s' keeps "
			 "its copy of model '%s'",
			 hit->model->fqn, copies[k].schema, r->env, r->name);
	}
}

int project_validate_envs(struct project *p, const char *env,
			  const struct state_env_model *recorded, size_t nrecorded)
{
	size_t before = diag_count(&p->diags, DIAG_ERROR);
	struct schema_use *own = arena_alloc(p->arena, (p->nmodels + 1) * sizeof(*own));
	struct schema_use *copies = arena_alloc(p->arena, (nrecorded + 1) * sizeof(*copies));
	size_t nown, ncopies;

	/* a name project_use_env refuses builds nothing */
	if (env && !project_env_name_valid(env))
		env = NULL;
	for (size_t i = 0; i < p->nmodels; i++)
		own[i] = (struct schema_use){ p->models[i]->home_schema, p->models[i], NULL };
	for (size_t i = 0; i < nrecorded; i++) {
		const char *dot = strchr(recorded[i].name, '.');
		size_t len = dot ? (size_t)(dot - recorded[i].name) : strlen(recorded[i].name);

		copies[i] = (struct schema_use){
			arena_sprintf(p->arena, "%.*s_%s", (int)len, recorded[i].name,
				      recorded[i].env),
			NULL, &recorded[i] };
	}
	nown = schema_uses_unique(own, p->nmodels);
	ncopies = schema_uses_unique(copies, nrecorded);
	if (env)
		check_env_schemas(p, env, own, nown, copies, ncopies);
	check_recorded_envs(p, env, own, nown, copies, ncopies);
	diag_sort(&p->diags);
	return diag_count(&p->diags, DIAG_ERROR) > before ? SL_E_INVALID : 0;
}
