/*
 * This file implements the documents of GET /api/models and GET /api/dag
 * (dagdoc.h) and keeps the last drawing made. It reads the project and
 * never changes it, and never draws a graph whose hash it has drawn.
 */
#include "server/dagdoc.h"

#include "core/arena.h"
#include "core/err.h"
#include "project/dag_graph.h"
#include "project/dag_layout.h"
#include "project/inputs.h"
#include "project/model.h"
#include "server/http.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last answer drawn, by its graph's hash. A server serves one
 * project, loaded once, so one kept answer serves every request after the
 * first; another server in the same process (the tests start several)
 * replaces it with its own. */
static struct {
	pthread_mutex_t mu;
	uint64_t hash;
	char *text; /* malloc'ed, NULL: none yet */
	size_t len;
} kept = { PTHREAD_MUTEX_INITIALIZER, 0, NULL, 0 };

json_t *dag_doc_models(const struct project *p, bool edges)
{
	json_t *root = json_object(), *nodes = json_array(), *links = json_array();

	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(m->fqn));
		json_object_set_new(o, "materialized", json_string(model_mat_name(m->mat)));
		json_object_set_new(o, "live", json_boolean(inputs_refreshes(m)));
		json_object_set_new(o, "path", json_string(m->path ? m->path : ""));
		json_array_append_new(nodes, o);
		for (size_t k = 0; edges && k < m->ndeps; k++)
			json_array_append_new(links, json_pack("[s, s]", m->deps[k]->fqn, m->fqn));
	}
	json_object_set_new(root, "models", nodes);
	if (edges)
		json_object_set_new(root, "edges", links);
	else
		json_decref(links);
	return root;
}

static json_t *node_doc(const struct dag_node *n, const struct dag_layout_node *at)
{
	return json_pack("{s:s, s:s, s:s?, s:b, s:i, s:i, s:i, s:i, s:i}", "name", n->name, "kind",
			 dag_node_kind_name(n->kind), "materialized",
			 n->model ? model_mat_name(n->model->mat) : NULL, "live", n->live, "layer",
			 at->layer, "x", at->x, "y", at->y, "width", at->width, "height", at->height);
}

static json_t *edge_doc(const struct dag_graph *g, size_t e, const struct dag_layout_edge *drawn)
{
	json_t *points = json_array();

	for (size_t k = 0; k < drawn->npoints; k++)
		json_array_append_new(points,
				      json_pack("[i, i]", drawn->points[k].x, drawn->points[k].y));
	return json_pack("{s:s, s:s, s:o}", "from", g->nodes[g->edges[e].from].name, "to",
			 g->nodes[g->edges[e].to].name, "points", points);
}

/* The whole answer for graph g of p, as compact JSON text (to be freed
 * with free()); NULL with err set when it cannot be drawn. */
static char *draw(struct arena *a, const struct project *p, const struct dag_graph *g,
		  const char *hash, struct sl_err *err)
{
	struct dag_layout d;
	json_t *doc, *nodes, *edges;
	char *text;

	if (dag_layout_compute(a, g->nnodes, g->edges, g->nedges, NULL, &d, err)) {
		sl_err_context(err, "in the drawing of project %s's graph",
			       p->cfg.name ? p->cfg.name : "");
		return NULL;
	}
	doc = dag_doc_models(p, true);
	nodes = json_array();
	edges = json_array();
	for (size_t i = 0; i < g->nnodes; i++)
		json_array_append_new(nodes, node_doc(&g->nodes[i], &d.nodes[i]));
	for (size_t e = 0; e < g->nedges; e++)
		json_array_append_new(edges, edge_doc(g, e, &d.edges[e]));
	json_object_set_new(doc, "nodes", nodes);
	json_object_set_new(doc, "layout",
			    json_pack("{s:s, s:i, s:i, s:i, s:o}", "hash", hash, "width", d.width,
				      "height", d.height, "layers", d.nlayers, "edges", edges));
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	if (!text)
		sl_err_set(err, SL_E_NOMEM, "cannot write the graph of project %s as JSON",
			   p->cfg.name ? p->cfg.name : "");
	return text;
}

/* The kept answer for hash, copied into a; NULL when another is kept. */
static char *kept_copy(struct arena *a, uint64_t hash, size_t *len)
{
	char *text = NULL;

	pthread_mutex_lock(&kept.mu);
	if (kept.text && kept.hash == hash) {
		text = arena_strndup(a, kept.text, kept.len);
		*len = kept.len;
	}
	pthread_mutex_unlock(&kept.mu);
	return text;
}

static void keep(uint64_t hash, char *text)
{
	pthread_mutex_lock(&kept.mu);
	free(kept.text);
	kept.hash = hash;
	kept.text = text;
	kept.len = strlen(text);
	pthread_mutex_unlock(&kept.mu);
}

void dag_doc_answer(struct http_call *c, const struct project *p)
{
	struct arena *a = http_call_arena(c);
	struct sl_err err = SL_ERR_INIT;
	const char *if_none = http_call_header(c, "If-None-Match");
	struct dag_graph g;
	char hash[17], etag[20], *text;
	size_t len = 0;

	dag_graph_build(a, p, &g);
	snprintf(hash, sizeof(hash), "%016" PRIx64, g.hash);
	snprintf(etag, sizeof(etag), "\"%s\"", hash);
	http_call_add_header(c, "ETag", etag);
	http_call_add_header(c, "Cache-Control", "no-cache");
	if (if_none && (strstr(if_none, etag) || strcmp(if_none, "*") == 0)) {
		http_reply(c, 304, NULL, "", 0);
		return;
	}
	text = kept_copy(a, g.hash, &len);
	if (!text) {
		char *drawn = draw(a, p, &g, hash, &err);

		if (!drawn) {
			http_reply_sl_err(c, &err);
			return;
		}
		text = arena_strdup(a, drawn);
		len = strlen(text);
		keep(g.hash, drawn);
	}
	http_reply(c, 200, "application/json", text, len);
}
