/*
 * Materializations: the statements that turn a rendered query into a view,
 * a table, an incremental table, a snapshot or a seed. Runs inside the
 * caller's transaction in two steps, so checks can look at new data before
 * anyone else can: materialize_write puts the data in place (a staging table
 * for full builds), materialize_publish makes it visible under the model's
 * name.
 */
#ifndef SL_EXEC_MATERIALIZE_H
#define SL_EXEC_MATERIALIZE_H

#include "exec/render.h"
#include "project/model.h"

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct shape_diff;
struct wh;

struct mat_plan {
	bool full;          /* build from scratch rather than apply new rows */
	const char *run_ts; /* this run's UTC time, 'YYYY-MM-DD HH:MM:SS.mmm' */
	/* what the model's name holds now ("table", "view" or NULL), when the
	 * caller knows; else materialize_write looks it up */
	bool old_kind_known;
	const char *old_kind;
	struct render_ctx ctx;
	/* the build's arena, which the write's own are children of (NULL:
	 * they are roots) */
	struct arena *a;
	/* an incremental build after its query changed as evolve says (its
	 * rows' part alike): the table first gains the columns the query has
	 * and it lacks, and, drop_removed, loses those the query dropped */
	const struct shape_diff *evolve;
	bool drop_removed;
};

struct mat_outcome {
	int64_t rows;         /* rows written (or changed, for snapshots) */
	const char *action;   /* "created", "replaced", "appended", ... (static) */
	char relation[512];   /* where checks look: staging or the model itself */
	bool staged;          /* publish must swap the staging table in */
	const char *old_kind; /* "table" / "view" / NULL: what the name held before */
};

int materialize_write(struct wh *w, const struct model *m, const struct mat_plan *plan,
		      struct mat_outcome *out, struct sl_err *err);
/* schema.name made anew as a table of query's rows (its schema made when
 * it is not there), in the caller's transaction. */
int materialize_table_of(struct wh *w, const char *schema, const char *name, const char *query,
			 struct sl_err *err);
int materialize_publish(struct wh *w, const struct model *m, const struct mat_outcome *out,
			struct sl_err *err);
/* Whether schema.name has the landing order's columns, as a model's
 * seq_column says it: -1 no _sluice_seq, 1 _sluice_seq, 2 _sluice_pos
 * too. *out is left as it was on error. */
int materialize_seq_columns(struct wh *w, const char *schema, const char *name, int *out,
			    struct sl_err *err);

#endif
