/*
 * Results of the DuckDB backend as text (README.md): queries prepared with
 * the columns duckdb_text.c does not write cast to VARCHAR, remembered per
 * connection, and rows read chunk by chunk. Private to the DuckDB backend.
 */
#ifndef SL_WAREHOUSE_DUCKDB_RESULT_H
#define SL_WAREHOUSE_DUCKDB_RESULT_H

#include <duckdb.h>
#include <stdbool.h>

struct duck_text_col;
struct duck_wrapped;
struct sl_err;
struct wh_duckdb;
struct wh_read_limits;
struct wh_result;

/* sql prepared so that every column it returns has a writer, or as it is
 * when it cannot be wrapped; NULL when it does not prepare (several
 * statements, say). *memo is what is remembered of the query, if anything.
 * The statement must be destroyed with duckdb_destroy_prepare. */
duckdb_prepared_statement duck_prepare_as_text(struct wh_duckdb *d, const char *sql,
					       struct duck_wrapped **memo);
/* How the query m remembers is to run next time, by how many reals r
 * holds. */
void duck_choose_direct(struct duck_wrapped *m, const struct wh_result *r);

/* An empty result with res's columns, and in *cols their writers (to be
 * freed with free). */
struct wh_result *duck_result_new(duckdb_result *res, struct duck_text_col **cols);
/* Materializes the rows as text, chunk by chunk, and destroys res. With
 * lim, stops at its rows or bytes (*truncated says whether it did): the
 * row that would pass max_bytes is not read, so a value of any size costs
 * no more than the limit. lim and truncated may be NULL. */
int duck_result_read(struct wh_duckdb *d, duckdb_result *res, const struct wh_read_limits *lim,
		     struct wh_result **out, bool *truncated, struct sl_err *err);

#endif
