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

#include <stdio.h>

static void table_name(char *out, size_t size, const char *schema, const char *name)
{
	snprintf(out, size, "cdc_tombstones__%s__%s", schema, name);
}

void state_sql_tombstones(struct buf *sql, const char *schema, const char *name)
{
	char table[512];

	table_name(table, sizeof(table), schema, name);
	wh_sql_qualified(sql, STATE_SCHEMA, table);
}

void state_sql_tombstones_create(struct wh *w, struct buf *sql, const char *schema,
				 const char *name, const char *query)
{
	char table[512];

	buf_adds(sql, "CREATE SCHEMA IF NOT EXISTS " STATE_SCHEMA ";\n");
	table_name(table, sizeof(table), schema, name);
	wh_sql_replace_as(w, sql, WH_TABLE, STATE_SCHEMA, table, query);
}

int state_tombstones_drop(struct wh *w, const char *schema, const char *name, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "DROP TABLE IF EXISTS ");
	state_sql_tombstones(&sql, schema, name);
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}
