/*
 * End-to-end lag of a live model: how long ago the oldest landing arrival
 * it has not applied arrived, through any number of live hops; 0 when it is
 * caught up. A model's `covered` sequence says which arrivals it has
 * applied: every advance of its sources at or below it.
 */
#ifndef SL_LIVE_LAG_H
#define SL_LIVE_LAG_H

#include <stdint.h>

struct arena;
struct model;
struct sl_err;
struct wh;

int live_lag_ms(struct wh *w, struct arena *a, const struct model *m, int64_t now_ms,
		int64_t *lag_ms, struct sl_err *err);

#endif
