/*
 * This file implements the taking of a profile: one query over the table
 * that gives every column's figures, read back into a struct
 * state_profile. It must never write: where a profile goes is its
 * caller's to decide.
 */
#include "exec/profile.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "project/model.h"
#include "state/profiles.h"
#include "warehouse/wh.h"

#include <stdlib.h>

bool profile_builds_of(const struct model *m)
{
	return m->mat != MAT_VIEW && m->mat != MAT_EPHEMERAL && !m->temporal;
}

/* SELECT count(*), then per column its NULLs, least, greatest and
 * distinct values, from the table. */
static void profile_sql(struct wh *w, struct buf *sql, const char *schema, const char *name,
			const struct wh_column *cols, size_t n)
{
	struct buf col = BUF_INIT;

	buf_adds(sql, "SELECT count(*)");
	for (size_t i = 0; i < n; i++) {
		buf_reset(&col);
		wh_sql_ident(&col, cols[i].name);
		buf_addf(sql, ", count(*) - count(%s), ", col.buf);
		wh_sql_min_text(w, sql, col.buf, cols[i].type);
		buf_adds(sql, ", ");
		wh_sql_max_text(w, sql, col.buf, cols[i].type);
		buf_adds(sql, ", ");
		wh_sql_distinct_estimate(w, sql, col.buf, cols[i].type);
	}
	buf_adds(sql, " FROM ");
	wh_sql_qualified(sql, schema, name);
	buf_release(&col);
}

static int64_t count_of(const struct wh_result *r, size_t col)
{
	const char *v = wh_result_value(r, 0, col);

	return v ? strtoll(v, NULL, 10) : 0;
}

int profile_take(struct wh *w, struct arena *a, const char *schema, const char *name,
		 struct state_profile *out, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_column *cols;
	struct wh_result *r;
	size_t n;
	int rc = wh_table_columns(w, a, schema, name, &cols, &n, err);

	if (rc)
		return rc;
	profile_sql(w, &sql, schema, name, cols, n);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	out->rows = count_of(r, 0);
	out->cols = arena_alloc(a, (n + 1) * sizeof(*out->cols));
	out->ncols = n;
	for (size_t i = 0; i < n; i++)
		out->cols[i] = (struct state_profile_column){
			.name = cols[i].name,
			.type = cols[i].type,
			.nulls = count_of(r, 1 + 4 * i),
			.min = arena_strdup(a, wh_result_value(r, 0, 2 + 4 * i)),
			.max = arena_strdup(a, wh_result_value(r, 0, 3 + 4 * i)),
			.distinct = count_of(r, 4 + 4 * i),
		};
	wh_result_free(r);
	return 0;
}
