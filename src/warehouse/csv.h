/*
 * Seed files, read by DuckDB's CSV reader on every warehouse with one set
 * of options: a header row, the delimiter, quoting, types and column names
 * DuckDB detects. The DuckDB warehouse reads a seed in SQL (csv_sql_read);
 * a warehouse that reads no CSV has it read in a DuckDB of its own in
 * memory (csv_file.h), and sends the rows on. Private to src/warehouse/.
 */
#ifndef SL_WAREHOUSE_CSV_H
#define SL_WAREHOUSE_CSV_H

#include <stddef.h>

struct arena;
struct buf;
struct sl_err;

/* Appends the table function call that reads the seed file at path. */
void csv_sql_read(struct buf *sql, const char *path);

/* Whether the file at path can be read; SL_E_IO naming it when not, which
 * DuckDB would report as a pattern that matches no file. */
int csv_check_readable(const char *path, struct sl_err *err);

/* Rewords an error (code, err) of DuckDB's CSV reader on the file at path
 * as sluice says it: the file and line first ("seeds/x.csv:3: ..."), the
 * reason from DuckDB's message, without the read_csv options it
 * suggests. Returns code. */
int csv_error(const char *path, int code, struct sl_err *err);

/* The name a column of a seed gets on a warehouse that folds unquoted
 * names to lower case: name in lower case when it is a plain identifier
 * (ASCII letters, digits and underscores, not starting with a digit), so
 * that the same unquoted SQL reads it there and on DuckDB, whose names
 * match in any case; any other name as it is. In arena a when it
 * differs. */
const char *csv_name_folded(struct arena *a, const char *name);

#endif
