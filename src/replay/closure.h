/*
 * What a replay rebuilds and where it reads history from: the selected
 * models and every model that reads them (the closure), the anchors the
 * closure reads (a source's table, or a model that carries a source's
 * rows one for one with its boundary columns), the models between a
 * reader and its nearest anchor added to the closure, and, for a replay
 * from a start time, each anchor read from that time on. Pure: from the
 * project and its column lineage; replay_closure_reads alone asks the
 * warehouse.
 */
#ifndef SL_REPLAY_CLOSURE_H
#define SL_REPLAY_CLOSURE_H

#include "exec/render.h"
#include "project/config.h"
#include "project/lineage_graph.h"

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct sl_err;
struct wh;

struct replay_anchor {
	const char *relation;            /* "schema.name", as the closure reads it */
	const struct model *model;       /* NULL: a source's table */
	const struct source_cfg *source; /* the source whose rows it carries */
	const char *time;                /* its column a start time cuts on, or NULL */
};

/* A closure model that reads a source's table itself: its boundaries are
 * recorded, and retention is checked against them. */
struct replay_direct {
	const struct model *m;
	const struct source_cfg *source;
};

struct replay_closure {
	bool *rebuild;     /* per model order */
	const char **why;  /* per model order: why it is rebuilt */
	size_t nrebuild;
	struct replay_anchor *anchors;
	size_t nanchors, anchors_cap;
	struct replay_direct *direct;
	size_t ndirect, direct_cap;
	/* a replay from a start time: each anchor read from then on */
	struct render_read *reads;
	size_t nreads, reads_cap;
};

/* The closure of the models selector picks, over g (every model's
 * lineage); start ("YYYY-MM-DD HH:MM:SS[.ffffff]", UTC) or NULL. Fails
 * with SL_E_USAGE when a start time cannot be applied (a source without a
 * time) and with dag_select's errors. */
int replay_closure_make(struct arena *a, struct project *p, const struct lineage_graph *g,
			const char *selector, const char *start, struct replay_closure *out,
			struct sl_err *err);

/* The declared sources whose tables m reads itself (through the
 * ephemerals it inlines), each once, into *out (in a); how many. */
size_t replay_sources_read(struct arena *a, const struct project *p, const struct model *m,
			   const struct source_cfg ***out);

/* What a replay reads of c's anchors, asked in the replay's open
 * transaction of w: c->reads, and for the table of an adopted source in
 * mode offsets (whose writer may have written a message more than once)
 * that holds more rows than distinct (partition, offset) pairs, counted
 * exactly, one row per pair instead. The list goes to a. */
int replay_closure_reads(struct arena *a, struct wh *w, const struct replay_closure *c,
			 const struct render_read **reads, size_t *nreads, struct sl_err *err);

/* Whether every row of m is one row of what it reads, all the way down to
 * its sources, looking up nothing that changes; else *why says what
 * breaks it. */
bool replay_one_for_one(struct arena *a, const struct lineage_graph *g, const struct model *m,
			const char **why);

/* A relation a model reads, and what it holds of the sources' history. */
struct replay_read {
	const char *relation;       /* as the query names it */
	const struct model *target; /* NULL: not a model of the project */
	bool carries;               /* it holds rows of a source (landing) */
	/* its column that holds its sources' event time one for one, NULL
	 * when it has none (or two) */
	const char *time;
};

/* The relations m reads itself (an ephemeral's in its place), each once,
 * into *out (in a); how many. */
size_t replay_reads_of(struct arena *a, const struct project *p, const struct lineage_graph *g,
		       const struct model *m, struct replay_read **out);
/* What model m itself holds of the sources' history. */
struct replay_read replay_history_of(struct arena *a, const struct project *p,
				     const struct lineage_graph *g, const struct model *m);

#endif
