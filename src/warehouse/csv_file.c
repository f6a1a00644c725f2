/*
 * This file implements the reading of a seed file for a warehouse that
 * reads no CSV itself: DuckDB's CSV reader, with csv.c's options, in a
 * DuckDB of its own in memory, whose rows the warehouse then sends on. It
 * must never read a CSV file any other way.
 */
#include "warehouse/csv_file.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/csv.h"
#include "warehouse/wh.h"

#include <string.h>

/* The seed's table in the reader's DuckDB. */
#define SEED_TABLE "seed"

static int read_columns(struct arena *a, struct csv_file *f, struct sl_err *err)
{
	struct wh_result *r;
	int rc = wh_query(f->duck,
			  "SELECT column_name, data_type FROM information_schema.columns "
			  "WHERE table_name = '" SEED_TABLE "' ORDER BY ordinal_position",
			  &r, err);

	if (rc)
		return rc;
	f->ncols = wh_result_nrows(r);
	f->names = arena_alloc(a, (f->ncols + 1) * sizeof(*f->names));
	f->types = arena_alloc(a, (f->ncols + 1) * sizeof(*f->types));
	for (size_t c = 0; c < f->ncols; c++) {
		f->names[c] = arena_strdup(a, wh_result_value(r, c, 0));
		f->types[c] = arena_strdup(a, wh_result_value(r, c, 1));
	}
	wh_result_free(r);
	return 0;
}

int csv_open(struct arena *a, const char *path, struct csv_file *f, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc = csv_check_readable(path, err);

	memset(f, 0, sizeof(*f));
	if (!rc)
		rc = wh_open_duckdb(":memory:", false, &f->duck, err);
	if (rc)
		return rc;
	buf_adds(&sql, "CREATE TABLE " SEED_TABLE " AS SELECT * FROM ");
	csv_sql_read(&sql, path);
	rc = wh_exec(f->duck, sql.buf, err);
	buf_release(&sql);
	if (rc)
		csv_error(path, rc, err);
	if (!rc)
		rc = read_columns(a, f, err);
	if (!rc)
		rc = wh_query(f->duck, "SELECT * FROM " SEED_TABLE, &f->rows, err);
	if (rc) {
		csv_close(f);
		return rc;
	}
	f->nrows = wh_result_nrows(f->rows);
	return 0;
}

void csv_close(struct csv_file *f)
{
	if (f->rows)
		wh_result_free(f->rows);
	if (f->duck)
		wh_close(f->duck);
	f->rows = NULL;
	f->duck = NULL;
}
