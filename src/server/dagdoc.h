/*
 * The documents of GET /api/models and GET /api/dag: the project's models,
 * and its graph (sources, seeds, models: project/dag_graph.h) drawn in
 * layers (project/dag_layout.h), named by the graph's hash. The drawing
 * is made once per graph, on a thread of its own, and kept; a request for
 * a graph already drawn, the common case, costs a walk of the project to
 * find its hash and a copy of the kept text.
 */
#ifndef SL_SERVER_DAGDOC_H
#define SL_SERVER_DAGDOC_H

struct buf;
struct dag_doc;
struct http_call;
struct project;
struct sl_err;

/* A server's DAG document: the drawing it keeps and its drawing thread.
 * Free it after the HTTP server stopped: the drawings queued answer
 * first. */
struct dag_doc *dag_doc_new(void);
void dag_doc_free(struct dag_doc *d);

/* Answers GET /api/models on the calling thread: every model (name,
 * materialized, live, path) under "models". */
void dag_doc_answer_models(struct http_call *c, const struct project *p);

/* Answers GET /api/dag: the models as above, the edges between models as
 * [from, to] under "edges", every node with its kind and box, and the
 * layout (hash, size, each edge's polyline); ETag the hash, 304 when
 * If-None-Match names it. Never waits: a graph not drawn yet is handed,
 * with the call and a copy of what it shows of p, to the drawing thread,
 * which answers (tens of ms for 2,000 models), so the project may be
 * freed before the answer. */
void dag_doc_answer(struct dag_doc *d, struct http_call *c, const struct project *p);

/* Appends the document GET /api/dag answers for p to out, drawn on the
 * calling thread: for a static copy of the pages (`sluice docs`). */
int dag_doc_write(const struct project *p, struct buf *out, struct sl_err *err);

#endif
