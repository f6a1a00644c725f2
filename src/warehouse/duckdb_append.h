/*
 * The DuckDB backend's appender (wh_appender_*): rows held typed in a
 * feed (duckdb_feed.c) kept per connection and table, or DuckDB's own
 * appender for a table a feed does not take. Private to the DuckDB
 * backend.
 */
#ifndef SL_WAREHOUSE_DUCKDB_APPEND_H
#define SL_WAREHOUSE_DUCKDB_APPEND_H

#include <stddef.h>

struct sl_err;
struct wh;
struct wh_appender;

int duck_appender_open(struct wh *w, const char *schema, const char *table,
		       struct wh_appender **out, struct sl_err *err);
int duck_appender_row(struct wh_appender *ap, const char *const *values, size_t n,
		      struct sl_err *err);
int duck_appender_flush(struct wh_appender *ap, struct sl_err *err);
void duck_appender_close(struct wh_appender *ap);

#endif
