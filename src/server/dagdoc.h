/*
 * The documents of GET /api/models and GET /api/dag: the project's models,
 * and its graph (sources, seeds, models: project/dag_graph.h) drawn in
 * layers (project/dag_layout.h), named by the graph's hash. The drawing
 * is made once per graph and kept; a request for a graph already drawn,
 * the common case, costs a walk of the project to find its hash.
 */
#ifndef SL_SERVER_DAGDOC_H
#define SL_SERVER_DAGDOC_H

#include <jansson.h>
#include <stdbool.h>

struct http_call;
struct project;

/* Every model (name, materialized, live, path) under "models" and, with
 * edges, the edges between models as [from, to] under "edges". The caller
 * owns the reference. */
json_t *dag_doc_models(const struct project *p, bool edges);

/* Answers GET /api/dag on the calling thread: the models and edges as
 * above, every node with its kind and box, and the layout (hash, size,
 * each edge's polyline); ETag the hash, 304 when If-None-Match names it.
 * The first request for a graph draws it (about 10 ms for 2,000 nodes),
 * every later one answers the kept text. */
void dag_doc_answer(struct http_call *c, const struct project *p);

#endif
