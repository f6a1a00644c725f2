/*
 * This file implements the statements on `_sluice.landed_files`: the
 * lookup of one file, its record, the files of a source. It must never
 * begin, commit or roll back: a file's record commits with its rows.
 */
#include "state/files.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <stdlib.h>

int state_files_find(struct wh *w, struct state_landed_file *f, bool *landed,
		     struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_adds(&sql, "SELECT size, rows, seq FROM _sluice.landed_files WHERE source = ");
	buf_add_sql_str(&sql, f->source);
	buf_adds(&sql, " AND path = ");
	buf_add_sql_str(&sql, f->path);
	buf_adds(&sql, " AND sha256 = ");
	buf_add_sql_str(&sql, f->sha256);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	*landed = wh_result_nrows(r) > 0;
	if (*landed) {
		f->size = strtoll(wh_result_value(r, 0, 0), NULL, 10);
		f->rows = strtoll(wh_result_value(r, 0, 1), NULL, 10);
		f->seq = strtoll(wh_result_value(r, 0, 2), NULL, 10);
	}
	wh_result_free(r);
	return 0;
}

int state_files_record(struct wh *w, const struct state_landed_file *f, const char *now,
		       struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "INSERT INTO _sluice.landed_files (source, path, sha256, size, rows, seq, "
		       "landed_at) VALUES (");
	buf_add_sql_str(&sql, f->source);
	buf_adds(&sql, ", ");
	buf_add_sql_str(&sql, f->path);
	buf_adds(&sql, ", ");
	buf_add_sql_str(&sql, f->sha256);
	buf_addf(&sql, ", %lld, %lld, %lld, ", (long long)f->size, (long long)f->rows,
		 (long long)f->seq);
	buf_add_sql_str(&sql, now);
	buf_adds(&sql, ")");
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

int state_files_read(struct wh *w, struct arena *a, const char *source,
		     struct state_landed_file **out, size_t *n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_adds(&sql, "SELECT path, sha256, size, rows, seq FROM _sluice.landed_files WHERE "
		       "source = ");
	buf_add_sql_str(&sql, source);
	buf_adds(&sql, " ORDER BY seq, path");
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	*n = wh_result_nrows(r);
	*out = arena_alloc(a, (*n + 1) * sizeof(**out));
	for (size_t i = 0; i < *n; i++)
		(*out)[i] = (struct state_landed_file){
			.source = source,
			.path = arena_strdup(a, wh_result_value(r, i, 0)),
			.sha256 = arena_strdup(a, wh_result_value(r, i, 1)),
			.size = strtoll(wh_result_value(r, i, 2), NULL, 10),
			.rows = strtoll(wh_result_value(r, i, 3), NULL, 10),
			.seq = strtoll(wh_result_value(r, i, 4), NULL, 10),
		};
	wh_result_free(r);
	return 0;
}
