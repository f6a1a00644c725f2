/*
 * One profiling query per model: every column's figures in one scan.
 */
#include "live/profile.h"

#include "state/state.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "project/model.h"
#include "warehouse/wh.h"

int live_profile(struct wh *w, const struct model *m, struct sl_err *err)
{
	struct arena *a = arena_new(NULL);
	struct wh_column *cols;
	struct buf sql = BUF_INIT, col = BUF_INIT;
	char now[32];
	size_t n;
	int rc = wh_table_columns(w, a, m->schema, m->name, &cols, &n, err);

	if (rc || !n)
		goto out;
	units_format_ts(units_now_ms(), now, sizeof(now));
	buf_adds(&sql, "INSERT INTO _sluice.profiles SELECT ");
	buf_add_sql_str(&sql, m->fqn);
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
	wh_sql_qualified(&sql, m->schema, m->name);
	buf_adds(&sql, ") AS s, LATERAL (VALUES ");
	for (size_t i = 0; i < n; i++) {
		buf_adds(&sql, i ? ", (" : "(");
		buf_add_sql_str(&sql, cols[i].name);
		buf_addf(&sql, ", s.r, s.n%zu, s.lo%zu, s.hi%zu)", i, i, i);
	}
	buf_adds(&sql, ") AS c(name, rows, nulls, lo, hi)");
	rc = wh_exec(w, sql.buf, err);
out:
	buf_release(&col);
	buf_release(&sql);
	arena_free(a);
	return rc;
}
