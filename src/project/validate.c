/*
 * Cross-model validation: builds the graph and applies the rules that look
 * at more than one model or at a model's placeholders in context.
 */
#include "project/validate.h"

#include "core/arena.h"
#include "core/err.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "project/project.h"

#include <string.h>

static bool is_temporal(const struct model *m)
{
	const struct model_setting *s = model_setting_get(m, "temporality");

	return s && strcmp(s->value, "temporal") == 0;
}

static void check_placeholders(struct project *p, const struct model *m)
{
	for (size_t i = 0; i < m->nplaceholders; i++) {
		const struct model_placeholder *ph = &m->placeholders[i];
		int line, col;

		if ((ph->kind == PH_SINCE || ph->kind == PH_UNTIL) && !is_temporal(m)) {
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

/* A microbatch model replaces one window at a time: it needs the windows'
 * grid (grain, start) and must read only its window. */
static void check_microbatch(struct project *p, const struct model *m)
{
	bool since = false, until = false;
	const struct model_setting *st = model_setting_get(m, "incremental_strategy");
	int line = st ? st->line : 1;

	if (m->mat != MAT_INCREMENTAL || m->strategy != STRAT_MICROBATCH)
		return;
	if (!model_setting_get(m, "grain") || !model_setting_get(m, "start"))
		diag_add(&p->diags, DIAG_ERROR, m->path, line, 0,
			 "e.g. grain=1d, start='2026-01-01'",
			 "incremental_strategy 'microbatch' needs grain and start");
	for (size_t i = 0; i < m->nplaceholders; i++) {
		since |= m->placeholders[i].kind == PH_SINCE;
		until |= m->placeholders[i].kind == PH_UNTIL;
	}
	if (!since || !until)
		diag_add(&p->diags, DIAG_ERROR, m->path, line, 0,
			 "filter the query's time column: WHERE ts >= {since} AND ts < {until}",
			 "a microbatch model must read only its window with {since} and {until}");
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
				      : "a watermark belongs to a landing table or a live model",
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
				 "read a landing table or a live incremental model",
				 "'{watermark}' in model '%s', which tracks no input", m->fqn);
	}
}

int project_validate(struct project *p, const char *const *relations, size_t nrelations)
{
	dag_build(p, relations, nrelations);
	for (size_t i = 0; i < p->nmodels; i++) {
		project_model_hash_inlined(p->models[i]);
		check_placeholders(p, p->models[i]);
		check_live_inputs(p, p->models[i]);
		check_microbatch(p, p->models[i]);
	}
	diag_sort(&p->diags);
	return diag_has_errors(&p->diags) ? SL_E_INVALID : 0;
}
