/*
 * This file implements the landing of a data file on a warehouse that
 * reads no files (file_copy.h): the SELECT of file_read.c run in a DuckDB
 * in memory, each row's values, DuckDB's text, appended to the table by
 * the columns' names. It must never read a file other than through that
 * SELECT.
 */
#include "warehouse/file_copy.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/file_read.h"
#include "warehouse/wh.h"

#include <string.h>

/* The file's rows, read in duck. */
static int read_rows(struct wh *duck, struct arena *a, const struct wh_file_read *rd,
		     struct wh_result **out, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	const char **found;
	int rc = file_columns_find(duck, a, rd, &found, err);

	if (rc)
		return rc;
	file_sql_select(&sql, rd, found);
	rc = wh_query(duck, sql.buf, out, err);
	buf_release(&sql);
	return rc == SL_E_SQL ? file_error(rd->path, rd->shown, rc, err) : rc;
}

/* Every row of r appended to schema.table, each column from r's column of
 * its name (NULL when r has none). */
static int append_rows(struct wh *w, struct arena *a, const char *schema, const char *table,
		       const struct wh_result *r, struct sl_err *err)
{
	struct wh_appender *ap = NULL;
	struct wh_column *cols;
	const char **row;
	size_t ncols;
	int *from;
	int rc = wh_table_columns(w, a, schema, table, &cols, &ncols, err);

	if (rc)
		return rc;
	from = arena_alloc(a, (ncols + 1) * sizeof(*from));
	row = arena_alloc(a, (ncols + 1) * sizeof(*row));
	for (size_t j = 0; j < ncols; j++) {
		from[j] = -1;
		for (size_t k = 0; from[j] < 0 && k < wh_result_ncols(r); k++)
			if (!strcmp(wh_result_colname(r, k), cols[j].name))
				from[j] = (int)k;
	}
	rc = wh_appender_open(w, schema, table, &ap, err);
	for (size_t i = 0; !rc && i < wh_result_nrows(r); i++) {
		for (size_t j = 0; j < ncols; j++)
			row[j] = from[j] < 0 ? NULL : wh_result_value(r, i, (size_t)from[j]);
		rc = wh_appender_row(ap, row, ncols, err);
	}
	if (!rc)
		rc = wh_appender_flush(ap, err);
	if (ap)
		wh_appender_close(ap);
	return rc;
}

int file_copy_land(struct wh *w, const char *schema, const char *table,
		   const struct wh_file_read *rd, int64_t *rows, struct sl_err *err)
{
	/* a root: wh_file_land takes no arena */
	struct arena *a = arena_new(NULL);
	struct wh_result *r = NULL;
	struct wh *duck = NULL;
	int rc = wh_open_duckdb(":memory:", false, &duck, err);

	if (!rc)
		rc = read_rows(duck, a, rd, &r, err);
	if (!rc)
		rc = append_rows(w, a, schema, table, r, err);
	if (!rc)
		*rows = (int64_t)wh_result_nrows(r);
	else if (rc == SL_E_INVALID)
		sl_err_context(err, "in file %s", rd->shown);
	if (r)
		wh_result_free(r);
	if (duck)
		wh_close(duck);
	arena_free(a);
	return rc;
}
