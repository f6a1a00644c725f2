/*
 * The tombstones of a model that applies change events (src/exec/cdc.c):
 * one table per model, `_sluice.cdc_tombstones__SCHEMA__NAME`, holding per
 * deleted key the sequence of its delete. What goes into it, and when, is
 * cdc.c's to decide; its name, its making and its dropping are here.
 * Statements go into the caller's transaction.
 */
#ifndef SL_STATE_TOMBSTONES_H
#define SL_STATE_TOMBSTONES_H

struct buf;
struct sl_err;
struct wh;

/* Appends the qualified name of the tombstones table of model
 * schema.name. */
void state_sql_tombstones(struct buf *sql, const char *schema, const char *name);
/* Appends the statements that make that table anew, empty, with the
 * columns (names and types) of the rows of query. */
void state_sql_tombstones_create(struct wh *w, struct buf *sql, const char *schema,
				 const char *name, const char *query);
/* Drops that table, when there is one. */
int state_tombstones_drop(struct wh *w, const char *schema, const char *name, struct sl_err *err);

#endif
