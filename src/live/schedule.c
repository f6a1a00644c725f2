/*
 * Coalescing of advances into refresh cycles.
 */
#include "live/schedule.h"

#include "project/config.h"

void live_schedule_init(struct live_schedule *s, const struct live_cfg *cfg)
{
	s->debounce = cfg->debounce_ms;
	s->max_latency = cfg->max_latency_ms;
	s->min_interval = cfg->min_interval_ms;
	s->batch_open_at = 0;
	s->last_advance_at = 0;
	s->last_cycle_at = 0;
}

void live_schedule_advance(struct live_schedule *s, int64_t now)
{
	if (!s->batch_open_at)
		s->batch_open_at = now;
	s->last_advance_at = now;
}

int64_t live_schedule_wait(const struct live_schedule *s, int64_t now)
{
	int64_t at;

	if (!s->batch_open_at)
		return -1;
	at = s->last_advance_at + s->debounce;
	if (s->batch_open_at + s->max_latency < at)
		at = s->batch_open_at + s->max_latency;
	if (s->last_cycle_at && s->last_cycle_at + s->min_interval > at)
		at = s->last_cycle_at + s->min_interval;
	return at > now ? at - now : 0;
}

void live_schedule_cycle(struct live_schedule *s, int64_t now)
{
	s->batch_open_at = 0;
	s->last_cycle_at = now;
}
