/*
 * This file implements a project's column lineage (lineage_graph.h): one
 * pass in dependency order, so that a model's output columns are known
 * before any model that reads it is walked. It must never look at the
 * warehouse: tables outside the project are the caller's to describe.
 */
#include "project/lineage_graph.h"

#include "core/arena.h"
#include "project/lineage_kept.h"
#include "project/project.h"
#include "project/refs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A seed's columns: its CSV header's names, lowercase, quotes removed. */
static void seed_columns(struct lineage_graph *g, const struct model *m)
{
	const char **cols = NULL;
	size_t n = 0, cap = 0;
	const char *s = m->text ? m->text : "";

	while (*s && *s != '\n' && *s != '\r') {
		size_t len = strcspn(s, ",\r\n");
		const char *name = s;
		char *low;

		if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
			name++;
			len -= 2;
		}
		low = arena_strndup(g->a, name, len);
		for (char *q = low; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		*ARENA_PUSH(g->a, &cols, &n, &cap) = low;
		s += strcspn(s, ",\r\n");
		if (*s == ',')
			s++;
	}
	g->seed_cols[m->order] = cols;
	g->nseed_cols[m->order] = n;
}

static const struct lineage_column *find_star(const struct lineage *l)
{
	for (size_t i = 0; i < l->ncols; i++)
		if (strcmp(l->cols[i].name, "*") == 0)
			return &l->cols[i];
	return NULL;
}

const struct model *lineage_graph_model(const struct lineage_graph *g, const char *relation)
{
	return project_find_model(g->p, relation);
}

static bool graph_columns(void *ctx, const char *schema, const char *table,
			  const char *const **cols, size_t *n)
{
	struct lineage_graph *g = ctx;
	const struct model *m = lineage_graph_model(g, arena_sprintf(g->a, "%s.%s", schema, table));
	const struct lineage *l;
	const char **names;

	if (!m)
		return g->outside && g->outside(g->ctx, schema, table, cols, n);
	if (m->mat == MAT_SEED) {
		*cols = g->seed_cols[m->order];
		*n = g->nseed_cols[m->order];
		return true;
	}
	/* a model whose * is of a table not known has no column list: each
	 * column named through it is its own */
	if (!(l = g->of[m->order]) || find_star(l))
		return false;
	names = arena_alloc(g->a, (l->ncols + 1) * sizeof(*names));
	for (size_t i = 0; i < l->ncols; i++)
		names[i] = l->cols[i].name;
	*cols = names;
	*n = l->ncols;
	return true;
}

/* The lineage of the models want marks (NULL: every model). */
static void build(struct arena *a, struct project *p, struct sqlparse *kept, const bool *want,
		  lineage_columns_fn outside, void *ctx, struct lineage_graph *g)
{
	size_t n = p->nmodels;

	*g = (struct lineage_graph){ .p = p, .a = a, .outside = outside, .ctx = ctx };
	g->of = arena_alloc(a, (n + 1) * sizeof(*g->of));
	g->seed_cols = arena_alloc(a, (n + 1) * sizeof(*g->seed_cols));
	g->nseed_cols = arena_alloc(a, (n + 1) * sizeof(*g->nseed_cols));
	memset(g->of, 0, (n + 1) * sizeof(*g->of));
	for (size_t i = 0; i < n; i++) {
		struct model *m = p->models[i];
		struct lineage *l;
		size_t filter_start;
		char *text;

		g->seed_cols[i] = NULL;
		g->nseed_cols[i] = 0;
		if (want && !want[i])
			continue;
		if (m->mat == MAT_SEED) {
			seed_columns(g, m);
			continue;
		}
		if (!m->tree)
			continue;
		l = arena_alloc(a, sizeof(*l));
		text = refs_parse_text(m, &filter_start);
		if (lineage_query_kept(kept, a, m->tree, text, m->filter != NULL, graph_columns, g,
				       l) == 0) {
			for (size_t r = 0; r < m->nrefs; r++) {
				const struct model *read = m->refs[r].target;

				if (read && g->of[read->order])
					lineage_add_rows(a, l, read->fqn, &g->of[read->order]->rows);
			}
			g->of[i] = l;
		}
		free(text);
	}
}

void lineage_graph_build(struct arena *a, struct project *p, struct sqlparse *kept,
			 lineage_columns_fn outside, void *ctx, struct lineage_graph *g)
{
	build(a, p, kept, NULL, outside, ctx, g);
}

/* Marks m and every model it reads, directly or not. */
static void mark_upstream(const struct model *m, bool *want)
{
	if (want[m->order])
		return;
	want[m->order] = true;
	for (size_t i = 0; i < m->nrefs; i++)
		if (m->refs[i].target)
			mark_upstream(m->refs[i].target, want);
}

void lineage_graph_build_upstream(struct arena *a, struct project *p, struct sqlparse *kept,
				  const struct model *m, lineage_columns_fn outside, void *ctx,
				  struct lineage_graph *g)
{
	bool *want = arena_alloc(a, p->nmodels + 1);

	memset(want, 0, p->nmodels + 1);
	mark_upstream(m, want);
	build(a, p, kept, want, outside, ctx, g);
}

static bool model_mutable(const struct model *m, int depth);

/* A table no model makes: a landing table or a change log only gains
 * rows; of any other, sluice cannot tell. */
static bool outside_mutable(const char *schema, const char *name)
{
	return strcmp(schema, "landing") != 0 &&
	       !(strcmp(schema, "_sluice") == 0 && strncmp(name, "changes__", 9) == 0);
}

static bool model_mutable(const struct model *m, int depth)
{
	if (m->mat == MAT_INCREMENTAL)
		return m->strategy != STRAT_APPEND;
	if ((m->mat != MAT_VIEW && m->mat != MAT_EPHEMERAL) || depth > 64)
		return true;
	for (size_t i = 0; i < m->nrefs; i++) {
		const struct model_ref *r = &m->refs[i];

		if (r->target ? model_mutable(r->target, depth + 1)
			      : outside_mutable(r->schema, r->name))
			return true;
	}
	return false;
}

bool lineage_graph_mutable(const struct lineage_graph *g, const char *relation)
{
	const struct model *m = lineage_graph_model(g, relation);
	const char *dot = strchr(relation, '.');
	char schema[256];

	if (m)
		return model_mutable(m, 0);
	if (!dot || (size_t)(dot - relation) >= sizeof(schema))
		return true;
	snprintf(schema, sizeof(schema), "%.*s", (int)(dot - relation), relation);
	return outside_mutable(schema, dot + 1);
}

bool lineage_graph_inputs_known(const struct model *m)
{
	return m->nrefs > 0 || m->nupstreams > 0 || m->mat == MAT_SEED;
}

const char *lineage_graph_declared(const struct model_upstream *u)
{
	static const char *const keys[] = { "path", "url", "rows", "sql", NULL };

	if (!u->type || strcmp(u->type, "model") == 0)
		return NULL;
	for (size_t k = 0; keys[k]; k++)
		if (model_upstream_option(u, keys[k]))
			return model_upstream_option(u, keys[k]);
	return "";
}

const struct lineage_column *lineage_graph_column(const struct lineage_graph *g,
						  const struct model *m, const char *name)
{
	const struct lineage *l = g->of[m->order];
	const struct lineage_column *star;
	struct lineage_column *c;

	for (size_t i = 0; l && i < l->ncols; i++)
		if (strcasecmp(l->cols[i].name, name) == 0)
			return &l->cols[i];
	if (!l || !(star = find_star(l)))
		return NULL;
	/* a column of a * not known: the star's inputs, each * the column */
	c = arena_alloc(g->a, sizeof(*c));
	memset(c, 0, sizeof(*c));
	c->name = arena_strdup(g->a, name);
	for (size_t i = 0; i < star->ninputs; i++) {
		struct lineage_input *in = ARENA_PUSH(g->a, &c->inputs, &c->ninputs, &c->inputs_cap);

		*in = star->inputs[i];
		if (strcmp(in->column, "*") == 0)
			in->column = c->name;
	}
	return c;
}

bool lineage_graph_names(const struct lineage_graph *g, const struct model *m,
			 const char *const **names, size_t *n, bool *open)
{
	const struct lineage *l = g->of[m->order];
	const char **v;

	*open = false;
	if (m->mat == MAT_SEED) {
		*names = g->seed_cols[m->order];
		*n = g->nseed_cols[m->order];
		return true;
	}
	if (!l)
		return false;
	v = arena_alloc(g->a, (l->ncols + 1) * sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < l->ncols; i++) {
		*open |= strcmp(l->cols[i].name, "*") == 0;
		v[(*n)++] = l->cols[i].name;
	}
	*names = v;
	return true;
}
