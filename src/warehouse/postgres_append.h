/*
 * The PostgreSQL backend's appender (wh_appender_*): one COPY in text
 * format per flush. Private to the PostgreSQL backend.
 */
#ifndef SL_WAREHOUSE_POSTGRES_APPEND_H
#define SL_WAREHOUSE_POSTGRES_APPEND_H

#include <stddef.h>

struct sl_err;
struct wh;
struct wh_appender;
int pg_appender_open(struct wh *w, const char *schema, const char *table,
		     struct wh_appender **out, struct sl_err *err);
int pg_appender_row(struct wh_appender *base, const char *const *values, size_t n,
		    struct sl_err *err);
int pg_appender_flush(struct wh_appender *base, struct sl_err *err);
void pg_appender_close(struct wh_appender *base);

#endif
