/*
 * This file implements binding a project's queries (bind.h). A model is
 * bound only when everything it reads is: a table not made yet, or a
 * query whose placeholders take their values at build time, would give
 * errors that are not the model's own.
 */
#include "project/bind.h"

#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "project/refs.h"
#include "warehouse/sqlbind.h"

#include <stdlib.h>
#include <string.h>

/* A table outside the project asked for: whether it is in the binder. */
struct table_seen {
	const char *fqn;
	bool made;
};

struct outside {
	struct table_seen *v;
	size_t n, cap;
};

/* Whether the table schema.name outside the project is in the binder,
 * making it on first use. */
static bool outside_table(struct arena *a, struct sqlbind *b, struct outside *o,
			  bind_table_fn fn, void *ctx, const char *schema, const char *name)
{
	const char *fqn = arena_sprintf(a, "%s.%s", schema, name);
	struct sl_err err = SL_ERR_INIT;
	struct wh_column *cols;
	size_t n = 0;

	struct table_seen *t;

	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->v[i].fqn, fqn) == 0)
			return o->v[i].made;
	t = ARENA_PUSH(a, &o->v, &o->n, &o->cap);
	t->fqn = fqn;
	t->made = fn && fn(ctx, schema, name, &cols, &n) && n &&
		  sqlbind_table(b, schema, name, cols, n, &err) == 0;
	return t->made;
}

/* Placeholders other than {watermark} take values only a build has; the
 * body alone is bound (an incremental filter's {this} is no matter). */
static bool plain_enough(const struct model *m)
{
	for (size_t i = 0; i < m->nplaceholders; i++)
		if (m->placeholders[i].span.part == PART_BODY &&
		    m->placeholders[i].kind != PH_WATERMARK)
			return false;
	return true;
}

static bool inputs_bound(struct arena *a, struct sqlbind *b, struct outside *o, bind_table_fn fn,
			 void *ctx, const struct model *m, const bool *bound)
{
	for (size_t i = 0; i < m->nrefs; i++) {
		const struct model_ref *r = &m->refs[i];

		if (r->target ? !bound[r->target->order]
			      : !outside_table(a, b, o, fn, ctx, r->schema, r->name))
			return false;
	}
	return true;
}

/* The model's schema and name as the project's queries name it. */
static void home_name(struct arena *a, const struct model *m, const char **schema,
		      const char **name)
{
	const char *dot = strchr(m->fqn, '.');

	*schema = arena_strndup(a, m->fqn, (size_t)(dot - m->fqn));
	*name = dot + 1;
}

/* The tables m reads, as the binder knows them. */
static const struct sqlbind_read *reads_of(struct arena *a, const struct model *m)
{
	struct sqlbind_read *reads = arena_alloc(a, (m->nrefs + 1) * sizeof(*reads));

	for (size_t i = 0; i < m->nrefs; i++) {
		const struct model_ref *r = &m->refs[i];

		if (r->target)
			home_name(a, r->target, &reads[i].schema, &reads[i].name);
		else
			reads[i] = (struct sqlbind_read){ r->schema, r->name };
	}
	return reads;
}

/* A binding error of m's query, at its place in the model file. */
static void report(struct diag_list *diags, const struct model *m, long offset, const char *hint,
		   const struct sl_err *err)
{
	int line = m->body_line, col = 0;

	if (offset >= 0)
		model_span_position(m, PART_BODY, (size_t)offset, &line, &col);
	diag_add(diags, DIAG_ERROR, m->path, line, col, hint, "%s (model '%s')", err->msg, m->fqn);
}

size_t project_bind(struct project *p, struct sqlbind *b, bind_table_fn outside, void *ctx,
		    struct diag_list *diags)
{
	struct arena *a = arena_new(p->arena);
	struct outside o = { 0 };
	bool *bound = arena_alloc(a, p->nmodels + 1);
	size_t nbound = 0;

	memset(bound, 0, p->nmodels + 1);
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		struct sl_err err = SL_ERR_INIT;
		const char *schema, *name, *hint;
		long offset;
		char *body;

		home_name(a, m, &schema, &name);
		if (m->mat == MAT_SEED) {
			bound[i] = sqlbind_csv(b, schema, name, m->abspath, m->hash, &err) == 0;
			nbound += bound[i];
			continue;
		}
		if (!m->tree || !plain_enough(m) || !inputs_bound(a, b, &o, outside, ctx, m, bound))
			continue;
		body = refs_masked_body(m);
		if (sqlbind_query(b, a, schema, name, body, reads_of(a, m), m->nrefs, &offset, &hint,
				  &err) == 0) {
			bound[i] = true;
			nbound++;
		} else if (err.code == SL_E_INVALID) {
			report(diags, m, offset, hint, &err);
		}
		free(body);
	}
	arena_free(a);
	return nbound;
}

/* Whether every input of m is in the warehouse as its query expects it:
 * a model built from its definition as it is now (current), a table
 * outside the project that is there; no ephemeral, which is inlined. */
static bool inputs_current(const struct model *m, bind_current_fn current,
			   bind_table_fn outside, void *ctx)
{
	for (size_t i = 0; i < m->nrefs; i++) {
		const struct model_ref *r = &m->refs[i];
		struct wh_column *cols;
		size_t n;

		if (r->target ? r->target->mat == MAT_EPHEMERAL || !current(ctx, r->target)
			      : !outside(ctx, r->schema, r->name, &cols, &n))
			return false;
	}
	return true;
}

size_t project_bind_in_place(struct project *p, bind_query_fn bind, bind_current_fn current,
			     bind_table_fn outside, void *ctx, struct diag_list *diags)
{
	struct arena *a = arena_new(p->arena);
	size_t nbound = 0;

	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		struct sl_err err = SL_ERR_INIT;
		const char *hint;
		long offset;
		char *body;

		if (m->mat == MAT_SEED || !m->tree || !plain_enough(m) ||
		    !inputs_current(m, current, outside, ctx))
			continue;
		body = refs_masked_body(m);
		if (bind(ctx, a, body, &offset, &hint, &err) == 0)
			nbound++;
		else if (err.code == SL_E_INVALID)
			report(diags, m, offset, hint, &err);
		free(body);
	}
	arena_free(a);
	return nbound;
}
