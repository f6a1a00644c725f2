/*
 * The rows of `_sluice.deliveries`: per landing table, the delivery ids
 * (X-Sluice-Delivery) of the requests that landed, with the sequence and
 * row count each got, kept for a day so that a retried delivery lands
 * nothing and gets the first one's answer. Writes go into the caller's
 * transaction, so an id and its rows commit together.
 */
#ifndef SL_STATE_DELIVERIES_H
#define SL_STATE_DELIVERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sl_err;
struct wh;

struct state_delivery {
	const char *source; /* "landing.NAME" */
	const char *id;
	int64_t seq, rows;  /* recorded, or found by state_deliveries_find */
	bool landed;        /* found by state_deliveries_find */
};

/* Which of the n deliveries landed before: sets landed, seq and rows of
 * those. One query, an IN list per landing table; it scans the table (its
 * primary key serves no IN list), so it is for flushes that met an id the
 * key refused. */
int state_deliveries_find(struct wh *w, struct state_delivery *d, size_t n, struct sl_err *err);

/* Records the n deliveries (of one landing table), received at now (a UTC
 * timestamp's text), through an appender: a VALUES list costs a parse that
 * grows with the flush. The primary key refuses an id recorded before, at
 * the flush: *refused then says so (the caller looks its ids up and tries
 * again); it is left alone when n is 0. */
int state_deliveries_record(struct wh *w, const struct state_delivery *d, size_t n,
			    const char *now, bool *refused, struct sl_err *err);

/* Forgets the deliveries received before before_ms (UTC milliseconds). */
int state_deliveries_prune(struct wh *w, int64_t before_ms, struct sl_err *err);

#endif
