/*
 * The change log of a live model that rewrites rows (a merge or a
 * delete+insert, change events included): one table per model,
 * `_sluice.changes__SCHEMA__NAME`, holding the model's columns (its own
 * `_sluice_seq` aside), `_sluice_weight` (-1 for a row replaced or removed,
 * with its old values; +1 for a row written) and `_sluice_seq` (the
 * sequence of the refresh that made the change). Which rows go into it is
 * src/exec/changes.c's to decide, how far it is pruned src/live's; its
 * name, its making, its pruning and its dropping are here. Statements go
 * into the caller's transaction.
 */
#ifndef SL_STATE_CHANGES_H
#define SL_STATE_CHANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct sl_err;
struct wh;

/* The change log's name in the state schema, "changes__SCHEMA__NAME". */
void state_changes_table(char *out, size_t size, const char *schema, const char *name);
/* Appends the qualified name of the change log of model schema.name. */
void state_sql_changes(struct buf *sql, const char *schema, const char *name);
/* Appends the statements that make that table with the columns (names and
 * types) of the rows of query: anew and empty, or (anew false) only when
 * it is not there. */
void state_sql_changes_create(struct buf *sql, const char *schema, const char *name,
			      const char *query, bool anew);
/* Appends the statement that records a rebuild of the model: a row of
 * weight 0 and no values, stamped with the warehouse's next sequence, so
 * that it is above what any reader consumed and below whatever lands
 * next. */
void state_sql_changes_rebuilt(struct buf *sql, const char *schema, const char *name);
/* Appends the statement that forgets the changes up to sequence upto. */
void state_sql_changes_prune(struct buf *sql, const char *schema, const char *name, int64_t upto);
/* Drops that table, when there is one. */
int state_changes_drop(struct wh *w, const char *schema, const char *name, struct sl_err *err);

#endif
