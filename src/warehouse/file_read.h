/*
 * Data files read by DuckDB's own readers (wh_file_land): the reader's
 * call with a files source's options, the SELECT of a file's landing
 * rows, which of the typed columns a file has, and the readers' errors
 * said as sluice says them. Every warehouse lands a file with this SQL,
 * run in the warehouse itself (DuckDB) or in a DuckDB of its own in
 * memory (file_copy.h). Private to src/warehouse/.
 */
#ifndef SL_WAREHOUSE_FILE_READ_H
#define SL_WAREHOUSE_FILE_READ_H

#include <stddef.h>

struct arena;
struct buf;
struct sl_err;
struct wh;
struct wh_file_read;

/* The name the file gives each typed column of rd: found[i] is the file's
 * own spelling of rd->columns[i].name (compared in any case), NULL when it
 * has none; read on w, a DuckDB connection, by describing the reader's
 * rows. A JSON file is read object by object, a column by its key (any
 * object may lack it): found[i] is then the name as given. In a. */
int file_columns_find(struct wh *w, struct arena *a, const struct wh_file_read *rd,
		      const char ***found, struct sl_err *err);

/* Appends the columns the SELECT gives, in its order: the typed ones,
 * the payload, the values. */
void file_sql_columns(struct buf *sql, const struct wh_file_read *rd);

/* Appends the SELECT of the file's landing rows, found as
 * file_columns_find gave it. */
void file_sql_select(struct buf *sql, const struct wh_file_read *rd, const char *const *found);

/* Appends the reader's table function call. A CSV file is read as text
 * (every column VARCHAR, so the payload of every file has one shape),
 * except the typed columns in found (NULL: none), which the reader types
 * itself. */
void file_sql_reader(struct buf *sql, const struct wh_file_read *rd, const char *const *found);

/* Rewords an error (code, err) of DuckDB's readers on the file opened as
 * path as sluice says it: "SHOWN:LINE: reason" when DuckDB gives a line,
 * else "SHOWN: reason"; the reason from DuckDB's message, without the
 * options it suggests, path written as shown. Returns code. */
int file_error(const char *path, const char *shown, int code, struct sl_err *err);

#endif
