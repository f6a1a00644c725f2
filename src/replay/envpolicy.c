/*
 * This file implements the change policy of environments (envpolicy.h):
 * which history a model built from scratch in an environment replays,
 * and what it takes from the main tables.
 */
#include "replay/envpolicy.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "plan/columns.h"
#include "project/project.h"
#include "replay/closure.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <string.h>
#include <strings.h>

/* The policy for a change of the class given ("breaking" or
 * "non_breaking"): the model's own (one policy for both, or a list of
 * CLASS:POLICY, checked when the project was loaded), else the
 * project's. */
static const char *policy_for(const struct env_policy *e, const struct model *m,
			      const char *class)
{
	const struct model_setting *st = model_setting_get(m, "replay_on_change");
	size_t n = strlen(class);

	if (st && !st->is_list)
		return st->value;
	for (size_t i = 0; st && i < st->nlist; i++) {
		const char *item = st->list[i];

		if (strncmp(item, class, n) == 0 && item[n] == ':')
			return item + n + 1;
	}
	return strcmp(class, "breaking") == 0 ? e->p->cfg.replay.on_change_breaking
					      : e->p->cfg.replay.on_change_non_breaking;
}

/* The change of m since the main tables' build st: "breaking",
 * "non_breaking", or NULL when its query reads as then (a change of
 * settings alone). One that cannot be told is breaking. */
static const char *change_class(struct arena *a, const struct model *m,
				const struct state_model *st)
{
	struct shape_diff d;

	if (plan_same_definition(m, st))
		return NULL;
	if (!plan_change_of(a, m, st, &d) || d.rows || d.nchanged || d.nremoved)
		return "breaking";
	return d.nadded ? "non_breaking" : NULL;
}

/* Why m's rows cannot be split at a time into older (the main table's)
 * and newer (replayed) ones, or NULL when they can; its time column into
 * *time. */
static const char *unsplittable(struct env_policy *e, const struct model *m, const char **time)
{
	struct replay_read own = replay_history_of(e->a, e->p, e->g, m);
	const char *why = NULL;

	*time = own.time;
	if (!replay_one_for_one(e->a, e->g, m, &why))
		return why;
	if (m->strategy == STRAT_MERGE || m->strategy == STRAT_DELETE_INSERT || m->nunique_key)
		return arena_sprintf(e->a, "%s keeps one row per key", m->fqn);
	if (!own.time)
		return arena_sprintf(e->a, "%s does not pass its sources' event time through",
				     m->fqn);
	return NULL;
}

/* Each relation m reads that holds a source's history, read from cutoff
 * on, into out; false (and *why) when one has no event time to cut on. */
static bool bounded_reads(struct env_policy *e, const struct model *m, const char *cutoff,
			  struct run_scratch *out, const char **why)
{
	struct render_ctx ctx = { .env = e->env };
	struct replay_read *rd;
	size_t n = replay_reads_of(e->a, e->p, e->g, m, &rd);
	struct render_read *reads = arena_alloc(e->a, (n + 1) * sizeof(*reads));

	out->nreads = 0;
	for (size_t i = 0; i < n; i++) {
		struct buf q = BUF_INIT;
		const char *dot = strchr(rd[i].relation, '.');

		if (!rd[i].carries)
			continue;
		if (!rd[i].time || !dot) {
			*why = arena_sprintf(e->a, "%s has no event time to start from",
					     rd[i].relation);
			return false;
		}
		buf_adds(&q, "SELECT * FROM ");
		if (rd[i].target && render_reads_env_copy(m, rd[i].target, &ctx))
			wh_sql_qualified(&q, rd[i].target->schema, rd[i].target->name);
		else
			wh_sql_qualified(&q,
					 arena_strndup(e->a, rd[i].relation,
						       (size_t)(dot - rd[i].relation)),
					 dot + 1);
		buf_adds(&q, " WHERE ");
		wh_sql_ident(&q, rd[i].time);
		buf_addf(&q, " >= TIMESTAMP '%s'", cutoff);
		reads[out->nreads++] = (struct render_read){ .relation = rd[i].relation,
							     .query = arena_strdup(e->a, q.buf) };
		buf_release(&q);
	}
	out->reads = reads;
	return true;
}

/* The main table's rows of m from before cutoff, into the columns both
 * it and m's query have; false when the main table is not there. */
static int seed(struct env_policy *e, struct wh *w, const struct model *m, const char *time,
		const char *cutoff, struct run_scratch *out, bool *seeded, struct sl_err *err)
{
	const char *const *names = NULL;
	struct wh_column *cols;
	struct buf c = BUF_INIT, q = BUF_INIT;
	size_t n, nnames = 0, taken = 0;
	bool open = true;
	int rc = wh_table_columns(w, e->a, m->home_schema, m->name, &cols, &n, err);

	*seeded = false;
	if (rc || !n)
		return rc;
	if (!lineage_graph_names(e->g, m, &names, &nnames, &open))
		open = true;
	for (size_t i = 0; i < n; i++) {
		bool in = open;

		for (size_t k = 0; !in && k < nnames; k++)
			in = strcasecmp(names[k], cols[i].name) == 0;
		if (!in)
			continue;
		buf_adds(&c, taken++ ? ", " : "");
		wh_sql_ident(&c, cols[i].name);
	}
	buf_addf(&q, "SELECT %s FROM ", c.buf);
	wh_sql_qualified(&q, m->home_schema, m->name);
	buf_adds(&q, " WHERE ");
	wh_sql_ident(&q, time);
	buf_addf(&q, " < TIMESTAMP '%s'", cutoff);
	if (taken) {
		out->seed_columns = arena_strdup(e->a, c.buf);
		out->seed_query = arena_strdup(e->a, q.buf);
		*seeded = true;
	}
	buf_release(&c);
	buf_release(&q);
	return 0;
}

/* The history from cutoff on, the rows before it from the main table
 * when m can be split there, else as bounded_replay_fallback says. */
static int bounded(struct env_policy *e, struct wh *w, const struct model *m,
		   const struct state_model *main, const char *cutoff, const char *why,
		   struct run_scratch *out, struct sl_err *err)
{
	const struct model_setting *fb = model_setting_get(m, "bounded_replay_fallback");
	const char *fallback = fb ? fb->value : e->p->cfg.replay.bounded_replay_fallback;
	const char *time, *cannot = unsplittable(e, m, &time), *no_time = NULL;
	bool seeded = false;
	int rc = 0;

	if (!bounded_reads(e, m, cutoff, out, &no_time)) {
		*out = (struct run_scratch){
			.note = arena_sprintf(e->a, "all history replayed (%s): %s", why, no_time)
		};
		return 0;
	}
	if (!cannot && main)
		rc = seed(e, w, m, time, cutoff, out, &seeded, err);
	if (rc || seeded) {
		out->note = arena_sprintf(e->a,
					  "rows before %s taken from %s.%s, replayed from then on (%s)",
					  cutoff, m->home_schema, m->name, why);
		return rc;
	}
	if (!cannot)
		cannot = arena_sprintf(e->a, "the main tables hold no %s to take older rows from",
				       m->fqn);
	if (strcmp(fallback, "bounded_without_history") == 0) {
		out->note = arena_sprintf(e->a,
					  "replayed from %s on, older history left out (%s: %s; "
					  "bounded_replay_fallback: bounded_without_history)",
					  cutoff, why, cannot);
		return 0;
	}
	*out = (struct run_scratch){
		.note = arena_sprintf(e->a,
				      "all history replayed (%s: %s; bounded_replay_fallback: full)",
				      why, cannot)
	};
	return 0;
}

int env_policy_scratch(void *ctx, struct wh *w, const struct model *m, struct run_scratch *out,
		       struct sl_err *err)
{
	struct env_policy *e = ctx;
	const struct state_model *main;
	const char *class, *policy;
	char cutoff[32];
	int64_t bound;
	int rc;

	*out = (struct run_scratch){ 0 };
	if (e->full_refresh) {
		out->note = "all history replayed (--full-refresh)";
		return 0;
	}
	if (!e->main_read) {
		rc = state_models_load(w, e->a, "", &e->main, &e->nmain, err);
		if (rc)
			return rc;
		e->main_read = true;
	}
	main = state_models_find(e->main, e->nmain, m->fqn);
	if (e->start)
		return bounded(e, w, m, main, e->start, "--start-time", out, err);
	if (!main) {
		out->note = "all history replayed: the main tables have no build of it";
		return 0;
	}
	class = change_class(e->a, m, main);
	policy = policy_for(e, m, class ? class : "non_breaking");
	if (!config_policy_parse(policy, &bound))
		bound = 0;
	class = class ? arena_sprintf(e->a, "%s change, %s",
				      strcmp(class, "breaking") == 0 ? "breaking" : "non-breaking",
				      policy)
		      : arena_sprintf(e->a, "unchanged, %s", policy);
	if (!bound) {
		out->note = arena_sprintf(e->a, "all history replayed (%s)", class);
		return 0;
	}
	units_format_ts(e->now_ms - bound, cutoff, sizeof(cutoff));
	return bounded(e, w, m, main, arena_strdup(e->a, cutoff), class, out, err);
}
