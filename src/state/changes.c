/*
 * This file implements the change logs of the live models that rewrite
 * rows (changes.h): their names, their making, their pruning, their
 * dropping. It must never decide which rows are in them: src/exec/changes.c
 * does, and src/live/watermark.c how far every reader has consumed them.
 */
#include "state/changes.h"

#include "core/buf.h"
#include "core/err.h"
#include "state/state.h"
#include "warehouse/wh.h"


void state_changes_table(char *out, size_t size, const char *schema, const char *name)
{
	state_model_table(out, size, "changes", schema, name);
}

void state_sql_changes(struct buf *sql, const char *schema, const char *name)
{
	state_sql_model_table(sql, "changes", schema, name);
}

void state_sql_changes_create(struct buf *sql, const char *schema, const char *name,
			      const char *query, bool anew)
{
	buf_adds(sql, "CREATE SCHEMA IF NOT EXISTS " STATE_SCHEMA ";\n");
	if (anew) {
		buf_adds(sql, "DROP TABLE IF EXISTS ");
		state_sql_changes(sql, schema, name);
		buf_adds(sql, ";\n");
	}
	buf_adds(sql, "CREATE TABLE IF NOT EXISTS ");
	state_sql_changes(sql, schema, name);
	buf_addf(sql, " AS %s", query);
}

void state_sql_changes_rebuilt(struct buf *sql, const char *schema, const char *name)
{
	buf_adds(sql, "INSERT INTO ");
	state_sql_changes(sql, schema, name);
	buf_adds(sql, " (_sluice_weight, _sluice_seq) SELECT 0, nextval('" STATE_SCHEMA ".seq')");
}

void state_sql_changes_prune(struct buf *sql, const char *schema, const char *name, int64_t upto)
{
	buf_adds(sql, "DELETE FROM ");
	state_sql_changes(sql, schema, name);
	buf_addf(sql, " WHERE _sluice_seq <= %lld;\n", (long long)upto);
}

int state_changes_drop(struct wh *w, const char *schema, const char *name, struct sl_err *err)
{
	return state_model_table_drop(w, "changes", schema, name, err);
}
