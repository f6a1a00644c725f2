/*
 * The graph of a project as a picture shows it: every source of
 * sluice.yml, every seed and every model a node, and an edge from each
 * node to each model that reads it (a model's dependencies, and a source
 * whose table a model's SQL names or whose coverage it waits on), with a
 * hash that changes when the graph does. dag_layout.h draws it; the server
 * and the commands that write documentation share it.
 */
#ifndef SL_PROJECT_DAG_GRAPH_H
#define SL_PROJECT_DAG_GRAPH_H

#include "project/dag_layout.h"
#include "project/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;

enum dag_node_kind { DAG_NODE_SOURCE, DAG_NODE_SEED, DAG_NODE_MODEL };

struct dag_node {
	enum dag_node_kind kind;
	/* a source's name as sluice.yml gives it; a seed's or model's
	 * "schema.name" */
	const char *name;
	const struct source_cfg *source; /* for a source, else NULL */
	const struct model *model;	 /* for a seed or model, else NULL */
	bool live;			 /* a model that refreshes as rows land */
};

struct dag_graph {
	struct dag_node *nodes;
	size_t nnodes;
	struct dag_layout_link *edges; /* node indexes, by from then to, each once */
	size_t nedges;
	/* FNV-1a over the drawing's version, every node (kind, name,
	 * materialization, live, path) and every edge: the same graph gives
	 * the same hash, and so the same drawing */
	uint64_t hash;
};

/* The graph of p, whose models dag_build ordered, in arena a: the sources
 * by name, then the seeds and models in dependency order (ties by name),
 * so that neither the order of sluice.yml's sources nor that of a model's
 * references changes the graph. Tables outside the project that no source
 * lands in are no nodes. */
void dag_graph_build(struct arena *a, const struct project *p, struct dag_graph *out);

/* "source", "seed" or "model". */
const char *dag_node_kind_name(enum dag_node_kind kind);

#endif
