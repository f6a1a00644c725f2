/*
 * Binding a query on PostgreSQL without running it: its parse and
 * analysis as the server does them, for `sluice validate`. Private to the
 * PostgreSQL backend.
 */
#ifndef SL_WAREHOUSE_POSTGRES_BIND_H
#define SL_WAREHOUSE_POSTGRES_BIND_H

#include "warehouse/wh.h"

int pg_bind(struct wh *w, struct arena *a, const char *query, long *offset, const char **hint,
	    struct sl_err *err);

#endif
