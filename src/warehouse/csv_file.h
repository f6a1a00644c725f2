/*
 * A seed file read by DuckDB's CSV reader in a DuckDB of its own in memory,
 * for a warehouse that reads no CSV itself. Private to src/warehouse/.
 */
#ifndef SL_WAREHOUSE_CSV_FILE_H
#define SL_WAREHOUSE_CSV_FILE_H

#include <stddef.h>

struct arena;
struct sl_err;
struct wh;
struct wh_result;

/* A seed file as DuckDB read it: its columns' names and DuckDB type names
 * (as information_schema.columns spells them: "BIGINT", "DECIMAL(18,3)",
 * "TIMESTAMP WITH TIME ZONE") in arena a, and its rows, each value as
 * DuckDB's text (NULL for a NULL). */
struct csv_file {
	size_t ncols, nrows;
	const char **names, **types;
	struct wh *duck;	/* the in-memory DuckDB that read it */
	struct wh_result *rows; /* row by row, ncols values each */
};

/* Reads the file at path. Returns 0, or SL_E_IO for a file that cannot be
 * read, or the reader's error as csv_error words it. A file read must be
 * closed with csv_close. */
int csv_open(struct arena *a, const char *path, struct csv_file *f, struct sl_err *err);
void csv_close(struct csv_file *f);

#endif
