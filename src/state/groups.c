/*
 * This file implements the name and the dropping of a maintained model's
 * groups table (groups.h). It must never decide what the table holds.
 */
#include "state/groups.h"

#include "state/state.h"

void state_sql_groups(struct buf *sql, const char *schema, const char *name)
{
	state_sql_model_table(sql, "groups", schema, name);
}

int state_groups_drop(struct wh *w, const char *schema, const char *name, struct sl_err *err)
{
	return state_model_table_drop(w, "groups", schema, name, err);
}
