/*
 * This file implements the tombstones tables of the models that apply
 * change events (tombstones.h): their names, their making, their dropping.
 * It must never decide which keys are in them: src/exec/cdc.c does.
 */
#include "state/tombstones.h"

#include "core/buf.h"
#include "core/err.h"
#include "state/state.h"
#include "warehouse/wh.h"


void state_sql_tombstones(struct buf *sql, const char *schema, const char *name)
{
	state_sql_model_table(sql, "cdc_tombstones", schema, name);
}

void state_sql_tombstones_create(struct wh *w, struct buf *sql, const char *schema,
				 const char *name, const char *query)
{
	char table[512];

	buf_adds(sql, "CREATE SCHEMA IF NOT EXISTS " STATE_SCHEMA ";\n");
	state_model_table(table, sizeof(table), "cdc_tombstones", schema, name);
	wh_sql_replace_as(w, sql, WH_TABLE, STATE_SCHEMA, table, query);
}

int state_tombstones_drop(struct wh *w, const char *schema, const char *name, struct sl_err *err)
{
	return state_model_table_drop(w, "cdc_tombstones", schema, name, err);
}
