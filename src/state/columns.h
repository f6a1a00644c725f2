/*
 * `_sluice.model_columns`: per model and environment the columns of the
 * relation its last build made (position, name, type as the warehouse
 * names it), recorded in the build's transaction, so that they are the
 * columns of the data that committed with them. What builds record them
 * is src/exec/'s to decide.
 */
#ifndef SL_STATE_COLUMNS_H
#define SL_STATE_COLUMNS_H

#include <stddef.h>

struct arena;
struct buf;
struct sl_err;
struct wh;
struct wh_column;

/* One model's recorded columns, in their order. */
struct state_model_columns {
	const char *model;
	struct wh_column *cols;
	size_t n;
};

/* Appends the statements that replace model's columns of env by the n
 * cols (positions from 1); n 0 leaves it none. For the caller's
 * transaction. */
void state_sql_columns(struct buf *sql, const char *env, const char *model,
		       const struct wh_column *cols, size_t n);

/* The same for the columns the relation schema.name has now, as the
 * warehouse describes `SELECT *` of it: one query, its scratch in a child
 * of a, freed before it returns. */
int state_sql_relation_columns(struct wh *w, struct arena *a, struct buf *sql, const char *env,
			       const char *model, const char *schema, const char *name,
			       struct sl_err *err);

/* Every model's columns of env, in one query, from a warehouse whose state
 * is at this sluice's version (state_ensure): *models ordered by model as
 * the warehouse orders names, each model once, its columns by position.
 * A model without rows (an ephemeral, one never built) is not there. All
 * in a. */
int state_columns_read(struct wh *w, struct arena *a, const char *env,
		       struct state_model_columns **models, size_t *n, struct sl_err *err);

/* The same for one model, its columns none when it has no rows. */
int state_columns_read_model(struct wh *w, struct arena *a, const char *env, const char *model,
			     struct state_model_columns *out, struct sl_err *err);

/* model's entry of what state_columns_read gave, or NULL. */
const struct state_model_columns *state_columns_find(const struct state_model_columns *models,
						     size_t n, const char *model);

#endif
