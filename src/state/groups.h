/*
 * The hidden state of a maintained model that counts its groups: one table
 * per model, `_sluice.groups__SCHEMA__NAME`, a row per group with its keys,
 * `_sluice_n` (the input rows in the group) and the sums and counts its
 * aggregates follow from. What goes into it is src/exec/maintain.c's; its
 * name and its dropping are here.
 */
#ifndef SL_STATE_GROUPS_H
#define SL_STATE_GROUPS_H

struct buf;
struct sl_err;
struct wh;

/* Appends the qualified name of the groups table of model schema.name. */
void state_sql_groups(struct buf *sql, const char *schema, const char *name);
/* Drops that table, when there is one. */
int state_groups_drop(struct wh *w, const char *schema, const char *name, struct sl_err *err);

#endif
