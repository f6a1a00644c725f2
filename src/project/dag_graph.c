/*
 * This file implements the drawable graph of a project (dag_graph.h):
 * its nodes in an order that only the graph decides, the edges between
 * them, and the hash of both. It reads the project as dag_build left it
 * and must never change it.
 */
#include "project/dag_graph.h"

#include "core/arena.h"
#include "core/hash.h"
#include "core/xalloc.h"
#include "project/inputs.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Changes whenever the drawing of one graph would: a sluice that draws
 * otherwise gives other hashes. */
#define DAG_DRAWING_VERSION "sluice dag drawing 1"

const char *dag_node_kind_name(enum dag_node_kind kind)
{
	static const char *const names[] = { "source", "seed", "model" };

	return names[kind];
}

/* A source's table and its node, for finding the source a reference
 * names. */
struct source_table {
	char table[512];
	size_t node;
};

static int table_cmp(const void *a, const void *b)
{
	return strcmp(((const struct source_table *)a)->table, ((const struct source_table *)b)->table);
}

static int source_name_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct source_cfg *const *)a)->name,
		      (*(const struct source_cfg *const *)b)->name);
}

static int link_cmp(const void *pa, const void *pb)
{
	const struct dag_layout_link *a = pa, *b = pb;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

/* The sources' nodes, by name, and their tables sorted for lookup. */
static struct source_table *add_sources(const struct project *p, struct dag_graph *g)
{
	size_t n = p->cfg.nsources;
	const struct source_cfg **by_name = xcalloc(n + 1, sizeof(*by_name));
	struct source_table *tables = xcalloc(n + 1, sizeof(*tables));

	for (size_t i = 0; i < n; i++)
		by_name[i] = &p->cfg.sources[i];
	qsort(by_name, n, sizeof(*by_name), source_name_cmp);
	for (size_t i = 0; i < n; i++) {
		g->nodes[i] = (struct dag_node){ DAG_NODE_SOURCE, by_name[i]->name, by_name[i],
						 NULL, false };
		inputs_source_table(by_name[i], tables[i].table, sizeof(tables[i].table));
		tables[i].node = i;
	}
	qsort(tables, n, sizeof(*tables), table_cmp);
	free(by_name);
	return tables;
}

/* The node of the source whose table "schema.name" is, or SIZE_MAX. */
static size_t source_node(const struct source_table *tables, size_t n, const char *schema,
			  const char *name)
{
	struct source_table key;
	const struct source_table *hit;

	snprintf(key.table, sizeof(key.table), "%s.%s", schema, name);
	for (char *c = key.table; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	hit = bsearch(&key, tables, n, sizeof(*tables), table_cmp);
	return hit ? hit->node : SIZE_MAX;
}

/* The node of a declared source (a pointer into p->cfg.sources). */
static size_t source_cfg_node(const struct dag_graph *g, size_t nsources,
			      const struct source_cfg *s)
{
	for (size_t i = 0; i < nsources; i++)
		if (g->nodes[i].source == s)
			return i;
	return SIZE_MAX;
}

/* Every edge into the model at node to, appended to *edges. */
static void add_inputs(struct arena *a, const struct model *m, size_t to, size_t nsources,
		       const struct source_table *tables, struct dag_graph *g, size_t *cap)
{
	for (size_t k = 0; k < m->ndeps; k++)
		*ARENA_PUSH(a, &g->edges, &g->nedges, cap) =
			(struct dag_layout_link){ nsources + m->deps[k]->order, to };
	for (size_t k = 0; k < m->nrefs; k++) {
		const struct model_ref *r = &m->refs[k];
		size_t from = r->target || r->changes_of
				      ? SIZE_MAX
				      : source_node(tables, nsources, r->schema, r->name);

		if (from != SIZE_MAX)
			*ARENA_PUSH(a, &g->edges, &g->nedges, cap) =
				(struct dag_layout_link){ from, to };
	}
	for (size_t k = 0; k < m->nupstreams; k++) {
		size_t from = m->upstreams[k].source
				      ? source_cfg_node(g, nsources, m->upstreams[k].source)
				      : SIZE_MAX;

		if (from != SIZE_MAX)
			*ARENA_PUSH(a, &g->edges, &g->nedges, cap) =
				(struct dag_layout_link){ from, to };
	}
}

static uint64_t hash_text(uint64_t h, const char *s)
{
	return hash_bytes(h, s ? s : "", strlen(s ? s : "") + 1);
}

static uint64_t hash_number(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		h = hash_byte(h, (unsigned char)(v >> (8 * i)));
	return h;
}

static uint64_t graph_hash(const struct dag_graph *g)
{
	uint64_t h = hash_text(HASH_INIT, DAG_DRAWING_VERSION);

	for (size_t i = 0; i < g->nnodes; i++) {
		const struct dag_node *n = &g->nodes[i];

		h = hash_byte(h, (unsigned char)n->kind);
		h = hash_text(h, n->name);
		h = hash_text(h, n->model ? model_mat_name(n->model->mat) : NULL);
		h = hash_byte(h, n->live);
		h = hash_text(h, n->model ? n->model->path : NULL);
	}
	for (size_t e = 0; e < g->nedges; e++)
		h = hash_number(hash_number(h, g->edges[e].from), g->edges[e].to);
	return h;
}

void dag_graph_build(struct arena *a, const struct project *p, struct dag_graph *out)
{
	size_t ns = p->cfg.nsources, cap = 0, kept = 0;
	struct source_table *tables;

	memset(out, 0, sizeof(*out));
	out->nnodes = ns + p->nmodels;
	out->nodes = arena_alloc(a, (out->nnodes + 1) * sizeof(*out->nodes));
	tables = add_sources(p, out);
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];

		/* a model's node is found by its place in dependency order */
		assert(m->order == i);
		out->nodes[ns + i] = (struct dag_node){ m->mat == MAT_SEED ? DAG_NODE_SEED : DAG_NODE_MODEL,
							m->fqn, NULL, m, inputs_refreshes(m) };
		add_inputs(a, m, ns + i, ns, tables, out, &cap);
	}
	free(tables);
	qsort(out->edges, out->nedges, sizeof(*out->edges), link_cmp);
	for (size_t e = 0; e < out->nedges; e++)
		if (!kept || link_cmp(&out->edges[kept - 1], &out->edges[e]))
			out->edges[kept++] = out->edges[e];
	out->nedges = kept;
	out->hash = graph_hash(out);
}
