/*
 * The snapshot of a project that `sluice docs` writes beside the UI's
 * files: what the pages would ask the API for, in one document, so that
 * the Models and DAG pages show the project without a server. Written as
 * snapshot.json, and as snapshot.js (the same document assigned to
 * window.SLUICE_SNAPSHOT), which a page opened from a file can load where
 * it could not fetch the JSON.
 */
#ifndef SL_SERVER_SNAPSHOT_H
#define SL_SERVER_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct lineage_graph;
struct project;
struct sl_err;
struct state_model_columns;

/* What the snapshot is made of beside the project: every model's columns
 * as the warehouse recorded them (ncolumns of them, none without a
 * warehouse), the column lineage of every model (NULL: none) and when it
 * is taken. */
struct snapshot_input {
	const struct state_model_columns *columns;
	size_t ncolumns;
	const struct lineage_graph *lineage;
	int64_t now_ms;
};

/* Appends the snapshot of p to out: {"sluice": VERSION, "project": NAME,
 * "generated_at", "dag": the document GET /api/dag answers, "models":
 * {"NAME": the model's document (exec/modeldoc.h: its project part, its
 * recorded columns, its checks' last results, its column lineage)}},
 * the models in dependency order. Scratch in a. */
int snapshot_write(struct arena *a, const struct project *p, const struct snapshot_input *in,
		   struct buf *out, struct sl_err *err);

#endif
