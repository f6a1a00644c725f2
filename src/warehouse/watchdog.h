/*
 * The deadline of a reader's query (wh_query_readonly): whatever the query
 * does, fire is called when its time is up, to interrupt it (DuckDB) or
 * cancel it (PostgreSQL). Private to src/warehouse/.
 */
#ifndef SL_WAREHOUSE_WATCHDOG_H
#define SL_WAREHOUSE_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

struct sl_err;

/* Calls fire(ctx) once, from a thread of its own, when timeout_ms pass
 * before wh_watchdog_stop; stop joins it and tells whether it fired. */
struct wh_watchdog;
int wh_watchdog_start(int64_t timeout_ms, void (*fire)(void *ctx), void *ctx,
		      struct wh_watchdog **out, struct sl_err *err);
bool wh_watchdog_stop(struct wh_watchdog *wd);
/* Whether it fired already; the query goes on until stop. */
bool wh_watchdog_fired(struct wh_watchdog *wd);

#endif
