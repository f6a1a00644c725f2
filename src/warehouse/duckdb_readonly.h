/*
 * The DuckDB backend's wh_query_readonly (README.md): a query for a reader
 * the server does not trust. Private to the DuckDB backend.
 */
#ifndef SL_WAREHOUSE_DUCKDB_READONLY_H
#define SL_WAREHOUSE_DUCKDB_READONLY_H

#include <stdbool.h>

struct sl_err;
struct wh;
struct wh_read_limits;
struct wh_result;

int duck_query_readonly(struct wh *w, const char *sql, const struct wh_read_limits *lim,
			struct wh_result **out, bool *truncated, struct sl_err *err);

#endif
