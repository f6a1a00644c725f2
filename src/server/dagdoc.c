/*
 * This file implements the documents of GET /api/models and GET /api/dag
 * (dagdoc.h): a copy of what they show of the project, the drawing made
 * from it on a thread of its own, and the last drawing kept. It reads the
 * project on the HTTP thread only and never changes it; the drawing
 * thread sees only the copy, so a server that stops (and frees its
 * project) while a drawing runs leaves it nothing to read that is gone.
 */
#include "server/dagdoc.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "ingest/jsontext.h"
#include "project/dag_graph.h"
#include "project/dag_layout.h"
#include "project/model.h"
#include "server/http.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last answer drawn, by its graph's hash, and the thread that draws,
 * started by the first drawing and stopped with the document. */
struct dag_doc {
	pthread_mutex_t mu;
	uint64_t hash;
	char *text; /* malloc'ed, NULL: none yet */
	size_t len;
	struct worker_queue *drawer;
};

struct dag_doc *dag_doc_new(void)
{
	struct dag_doc *d = xcalloc(1, sizeof(*d));

	pthread_mutex_init(&d->mu, NULL);
	return d;
}

void dag_doc_free(struct dag_doc *d)
{
	if (!d)
		return;
	/* the drawings queued answer their calls first */
	if (d->drawer)
		worker_queue_stop(d->drawer);
	pthread_mutex_destroy(&d->mu);
	free(d->text);
	free(d);
}

/* What the documents show of a project, in an arena of its own (a root:
 * a drawing outlives its request, and maybe the project). */
struct snap {
	struct arena *a;
	const char *project;
	struct dag_graph g; /* names copied, no node's model or source kept */
	size_t nsources;    /* the first nodes; the models (seeds among them) follow */
	/* per node: its materialization (NULL for a source) and path ("" for
	 * a source) */
	const char **mat, **path;
	/* the edges between models in the order GET /api/models always gave
	 * them: each model's dependencies in turn */
	struct dag_layout_link *deps;
	size_t ndeps;
	char hash[17];
};

static struct snap *snap_take(const struct project *p)
{
	struct snap *s = xcalloc(1, sizeof(*s));
	size_t ns = p->cfg.nsources, cap = 0;

	s->a = arena_new(NULL);
	s->nsources = ns;
	s->project = arena_strdup(s->a, p->cfg.name ? p->cfg.name : "");
	dag_graph_build(s->a, p, &s->g);
	s->mat = arena_alloc(s->a, (s->g.nnodes + 1) * sizeof(char *));
	s->path = arena_alloc(s->a, (s->g.nnodes + 1) * sizeof(char *));
	for (size_t i = 0; i < s->g.nnodes; i++) {
		struct dag_node *n = &s->g.nodes[i];

		n->name = arena_strdup(s->a, n->name);
		s->mat[i] = n->model ? model_mat_name(n->model->mat) : NULL;
		s->path[i] = arena_strdup(s->a, n->model && n->model->path ? n->model->path : "");
		n->model = NULL;
		n->source = NULL;
	}
	for (size_t i = 0; i < p->nmodels; i++)
		for (size_t k = 0; k < p->models[i]->ndeps; k++)
			*ARENA_PUSH(s->a, &s->deps, &s->ndeps, &cap) = (struct dag_layout_link){
				ns + p->models[i]->deps[k]->order, ns + i
			};
	snprintf(s->hash, sizeof(s->hash), "%016" PRIx64, s->g.hash);
	return s;
}

static void snap_free(struct snap *s)
{
	arena_free(s->a);
	free(s);
}

static void add_string(struct buf *b, const char *s)
{
	buf_addch(b, '"');
	jsontext_escape(b, s, strlen(s));
	buf_addch(b, '"');
}

static void add_int(struct buf *b, const char *key, int v)
{
	char t[JSONTEXT_INT_MAX];

	buf_adds(b, key);
	buf_add(b, t, jsontext_integer(v, t));
}

/* "models" (and with edges, "edges") of s, each model with its
 * materialization, live flag and path. */
static void add_models(struct buf *b, const struct snap *s, bool edges)
{
	buf_adds(b, "\"models\":[");
	for (size_t i = s->nsources; i < s->g.nnodes; i++) {
		buf_adds(b, i > s->nsources ? ",{\"name\":" : "{\"name\":");
		add_string(b, s->g.nodes[i].name);
		buf_adds(b, ",\"materialized\":");
		add_string(b, s->mat[i]);
		buf_adds(b, s->g.nodes[i].live ? ",\"live\":true,\"path\":" : ",\"live\":false,\"path\":");
		add_string(b, s->path[i]);
		buf_addch(b, '}');
	}
	buf_addch(b, ']');
	if (!edges)
		return;
	buf_adds(b, ",\"edges\":[");
	for (size_t e = 0; e < s->ndeps; e++) {
		buf_adds(b, e ? ",[" : "[");
		add_string(b, s->g.nodes[s->deps[e].from].name);
		buf_addch(b, ',');
		add_string(b, s->g.nodes[s->deps[e].to].name);
		buf_addch(b, ']');
	}
	buf_addch(b, ']');
}

/* "nodes" and "layout", written as text directly: a graph of 2,000
 * models can hold 50,000 points, which as jansson values would cost more
 * than the drawing. */
static void add_drawing(struct buf *b, const struct snap *s, const struct dag_layout *d)
{
	const struct dag_graph *g = &s->g;

	buf_adds(b, ",\"nodes\":[");
	for (size_t i = 0; i < g->nnodes; i++) {
		buf_adds(b, i ? ",{\"name\":" : "{\"name\":");
		add_string(b, g->nodes[i].name);
		buf_adds(b, ",\"kind\":");
		add_string(b, dag_node_kind_name(g->nodes[i].kind));
		buf_adds(b, ",\"materialized\":");
		if (s->mat[i])
			add_string(b, s->mat[i]);
		else
			buf_adds(b, "null");
		buf_adds(b, g->nodes[i].live ? ",\"live\":true" : ",\"live\":false");
		add_int(b, ",\"layer\":", d->nodes[i].layer);
		add_int(b, ",\"x\":", d->nodes[i].x);
		add_int(b, ",\"y\":", d->nodes[i].y);
		add_int(b, ",\"width\":", d->nodes[i].width);
		add_int(b, ",\"height\":", d->nodes[i].height);
		buf_addch(b, '}');
	}
	buf_adds(b, "],\"layout\":{\"hash\":");
	add_string(b, s->hash);
	add_int(b, ",\"width\":", d->width);
	add_int(b, ",\"height\":", d->height);
	add_int(b, ",\"layers\":", d->nlayers);
	buf_adds(b, ",\"edges\":[");
	for (size_t e = 0; e < g->nedges; e++) {
		buf_adds(b, e ? ",{\"from\":" : "{\"from\":");
		add_string(b, g->nodes[g->edges[e].from].name);
		buf_adds(b, ",\"to\":");
		add_string(b, g->nodes[g->edges[e].to].name);
		buf_adds(b, ",\"points\":[");
		for (size_t k = 0; k < d->edges[e].npoints; k++) {
			add_int(b, k ? ",[" : "[", d->edges[e].points[k].x);
			add_int(b, ",", d->edges[e].points[k].y);
			buf_addch(b, ']');
		}
		buf_adds(b, "]}");
	}
	buf_adds(b, "]}");
}

void dag_doc_answer_models(struct http_call *c, const struct project *p)
{
	struct snap *s = snap_take(p);
	struct buf b = BUF_INIT;

	buf_addch(&b, '{');
	add_models(&b, s, false);
	buf_addch(&b, '}');
	http_reply(c, 200, "application/json", b.buf, b.len);
	buf_release(&b);
	snap_free(s);
}

/* Answers c with the kept text when it is hash's; false when another is
 * kept. http_reply copies it under this lock: the lock order is this
 * lock, then the HTTP server's, which never calls out holding its own. */
static bool answer_kept(struct dag_doc *kept, struct http_call *c, uint64_t hash)
{
	bool hit;

	pthread_mutex_lock(&kept->mu);
	hit = kept->text && kept->hash == hash;
	if (hit)
		http_reply(c, 200, "application/json", kept->text, kept->len);
	pthread_mutex_unlock(&kept->mu);
	return hit;
}

/* The whole document of GET /api/dag for s, drawn, into b. */
static int draw_text(const struct snap *s, struct buf *b, struct sl_err *err)
{
	struct dag_layout d;

	if (dag_layout_compute(s->a, s->g.nnodes, s->g.edges, s->g.nedges, NULL, &d, err)) {
		sl_err_context(err, "in the drawing of project %s's graph", s->project);
		return err->code;
	}
	buf_addch(b, '{');
	add_models(b, s, true);
	add_drawing(b, s, &d);
	buf_addch(b, '}');
	return 0;
}

int dag_doc_write(const struct project *p, struct buf *out, struct sl_err *err)
{
	struct snap *s = snap_take(p);
	int rc = draw_text(s, out, err);

	snap_free(s);
	return rc;
}

/* A call waiting for the drawing of its snapshot. */
struct drawing {
	struct dag_doc *kept;
	struct http_call *c;
	struct snap *s;
};

/* On the drawing thread: draws s (unless a drawing before this one did),
 * answers the call and keeps the text. */
static void draw(void *arg)
{
	struct drawing *job = arg;
	struct snap *s = job->s;
	struct sl_err err = SL_ERR_INIT;
	struct buf b = BUF_INIT;
	struct dag_doc *kept = job->kept;

	if (!answer_kept(kept, job->c, s->g.hash)) {
		if (draw_text(s, &b, &err)) {
			http_reply_sl_err(job->c, &err);
		} else {
			http_reply(job->c, 200, "application/json", b.buf, b.len);
			pthread_mutex_lock(&kept->mu);
			free(kept->text);
			kept->hash = s->g.hash;
			kept->len = b.len;
			kept->text = buf_detach(&b, NULL);
			pthread_mutex_unlock(&kept->mu);
		}
	}
	snap_free(s);
	free(job);
}

void dag_doc_answer(struct dag_doc *kept, struct http_call *c, const struct project *p)
{
	const char *if_none = http_call_header(c, "If-None-Match");
	struct snap *s = snap_take(p);
	struct sl_err err = SL_ERR_INIT;
	struct drawing *job;
	char etag[20];

	snprintf(etag, sizeof(etag), "\"%s\"", s->hash);
	http_call_add_header(c, "ETag", etag);
	http_call_add_header(c, "Cache-Control", "no-cache");
	if (if_none && (strstr(if_none, etag) || strcmp(if_none, "*") == 0)) {
		http_reply(c, 304, NULL, "", 0);
		snap_free(s);
		return;
	}
	if (answer_kept(kept, c, s->g.hash)) {
		snap_free(s);
		return;
	}
	pthread_mutex_lock(&kept->mu);
	if (!kept->drawer && worker_queue_start(&kept->drawer, "dag drawing", &err)) {
		pthread_mutex_unlock(&kept->mu);
		http_reply_sl_err(c, &err);
		snap_free(s);
		return;
	}
	job = xcalloc(1, sizeof(*job));
	job->kept = kept;
	job->c = c;
	job->s = s;
	worker_queue_push(kept->drawer, draw, job);
	pthread_mutex_unlock(&kept->mu);
}
