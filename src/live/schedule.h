/*
 * When the live runner starts a cycle: advances open a batch; the batch
 * closes after `debounce` without a new advance, or `max_latency` after it
 * opened, whichever comes first; and cycles never start closer than
 * `min_interval` apart. A thousand small commits so become a handful of
 * refreshes. Pure arithmetic on millisecond clocks, so it can be tested
 * with made-up times.
 */
#ifndef SL_LIVE_SCHEDULE_H
#define SL_LIVE_SCHEDULE_H

#include <stdint.h>

struct live_cfg;

struct live_schedule {
	int64_t debounce, max_latency, min_interval;
	int64_t batch_open_at;   /* 0: no advance waiting */
	int64_t last_advance_at;
	int64_t last_cycle_at;   /* 0: none yet */
};

void live_schedule_init(struct live_schedule *s, const struct live_cfg *cfg);
/* An advance was seen at now. */
void live_schedule_advance(struct live_schedule *s, int64_t now);
/* Milliseconds until the next cycle should start (0: now), or -1 when no
 * advance is waiting. */
int64_t live_schedule_wait(const struct live_schedule *s, int64_t now);
/* A cycle starts at now: it takes every advance seen so far. */
void live_schedule_cycle(struct live_schedule *s, int64_t now);

#endif
