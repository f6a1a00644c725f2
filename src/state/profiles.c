/*
 * This file implements the statements on `_sluice.profiles`: one query per
 * profile that figures every column in one scan and writes its rows, and
 * when a model was profiled last. It must never begin, commit or roll back.
 */
#include "state/profiles.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "warehouse/wh.h"

int state_profile_write(struct wh *w, const char *model, const char *schema, const char *table,
			const struct wh_column *cols, size_t n, int64_t now_ms,
			struct sl_err *err)
{
	struct buf sql = BUF_INIT, col = BUF_INIT;
	char now[32];
	int rc;

	units_format_ts(now_ms, now, sizeof(now));
	buf_adds(&sql, "INSERT INTO _sluice.profiles SELECT ");
	buf_add_sql_str(&sql, model);
	buf_addf(&sql,
		 ", TIMESTAMP '%s', c.name, c.rows, c.nulls, c.lo, c.hi FROM (SELECT count(*) AS r",
		 now);
	for (size_t i = 0; i < n; i++) {
		buf_reset(&col);
		buf_add_sql_ident(&col, cols[i].name);
		buf_addf(&sql, ", count(*) - count(%s) AS n%zu, ", col.buf, i);
		wh_sql_min_text(w, &sql, col.buf, cols[i].type);
		buf_addf(&sql, " AS lo%zu, ", i);
		wh_sql_max_text(w, &sql, col.buf, cols[i].type);
		buf_addf(&sql, " AS hi%zu", i);
	}
	buf_adds(&sql, " FROM ");
	wh_sql_qualified(&sql, schema, table);
	buf_adds(&sql, ") AS s, LATERAL (VALUES ");
	for (size_t i = 0; i < n; i++) {
		buf_adds(&sql, i ? ", (" : "(");
		buf_add_sql_str(&sql, cols[i].name);
		buf_addf(&sql, ", s.r, s.n%zu, s.lo%zu, s.hi%zu)", i, i, i);
	}
	buf_adds(&sql, ") AS c(name, rows, nulls, lo, hi)");
	rc = wh_exec(w, sql.buf, err);
	buf_release(&col);
	buf_release(&sql);
	return rc;
}

int state_profile_last_ms(struct wh *w, const char *model, int64_t *ms, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "SELECT coalesce(");
	wh_sql_epoch_ms(w, &sql, "max(profiled_at)");
	buf_adds(&sql, ", 0) FROM _sluice.profiles WHERE model = ");
	buf_add_sql_str(&sql, model);
	rc = wh_query_int(w, sql.buf, ms, err);
	buf_release(&sql);
	return rc;
}
