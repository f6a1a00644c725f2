/*
 * CSV files for warehouses that cannot read one in SQL: the file parsed
 * (RFC 4180: a header row, fields separated by commas, quoted with double
 * quotes that a doubled quote escapes, rows ended by LF or CRLF) and each
 * column's type inferred the way DuckDB's reader infers it for the files a
 * seed holds: BOOLEAN, BIGINT, DOUBLE, DATE or TIMESTAMP when every value
 * reads as one, else VARCHAR; an empty field is NULL. Private to
 * src/warehouse/.
 */
#ifndef SL_WAREHOUSE_CSV_H
#define SL_WAREHOUSE_CSV_H

#include "warehouse/wh.h"

#include <stddef.h>

struct arena;
struct sl_err;

struct csv_table {
	size_t ncols, nrows;
	const char **names; /* the header's */
	enum wh_type *types;
	const char **cells; /* nrows * ncols, row by row; NULL for an empty field */
};

/* Reads the file at path into t, in arena a. Returns 0, or SL_E_IO for a
 * file that cannot be read, SL_E_PARSE (naming the line) for an unclosed
 * quote, a row with more or fewer fields than the header, or a file
 * without a header. */
int csv_read(struct arena *a, const char *path, struct csv_table *t, struct sl_err *err);

#endif
