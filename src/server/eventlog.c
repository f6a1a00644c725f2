/*
 * The event log: a ring of the last events, bounded in count and bytes.
 * It only keeps and hands back; it never sends anything.
 */
#include "server/eventlog.h"

#include "core/xalloc.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVENT_LOG_EVENTS 1024
#define EVENT_LOG_BYTES ((size_t)1 << 20)

struct kept {
	uint64_t seq;
	char *event, *data;
	size_t bytes;
};

struct event_log {
	uint32_t epoch;
	size_t cap, max_bytes, bytes;
	size_t first, n; /* the ring: n events from first on */
	uint64_t last;   /* the last seq given */
	struct kept *ring;
};

struct event_log *event_log_new(uint32_t epoch, size_t max_events, size_t max_bytes)
{
	struct event_log *l = xcalloc(1, sizeof(*l));

	l->epoch = epoch;
	l->cap = max_events ? max_events : EVENT_LOG_EVENTS;
	l->max_bytes = max_bytes ? max_bytes : EVENT_LOG_BYTES;
	l->ring = xcalloc(l->cap, sizeof(*l->ring));
	return l;
}

static void drop_oldest(struct event_log *l)
{
	struct kept *k = &l->ring[l->first];

	l->bytes -= k->bytes;
	free(k->event);
	free(k->data);
	memset(k, 0, sizeof(*k));
	l->first = (l->first + 1) % l->cap;
	l->n--;
}

void event_log_free(struct event_log *l)
{
	if (!l)
		return;
	while (l->n)
		drop_oldest(l);
	free(l->ring);
	free(l);
}

static void format_id(uint32_t epoch, uint64_t seq, char *id)
{
	snprintf(id, EVENT_ID_MAX, "%08" PRIx32 "-%" PRIu64, epoch, seq);
}

void event_log_add(struct event_log *l, const char *event, const char *data, char *id)
{
	size_t bytes = strlen(event) + strlen(data);
	struct kept *k;

	/* an event larger than the whole log is still sent, and stands
	 * alone in it until the next */
	while (l->n && (l->n == l->cap || l->bytes + bytes > l->max_bytes))
		drop_oldest(l);
	k = &l->ring[(l->first + l->n) % l->cap];
	k->seq = ++l->last;
	k->event = xstrdup(event);
	k->data = xstrdup(data);
	k->bytes = bytes;
	l->bytes += bytes;
	l->n++;
	format_id(l->epoch, k->seq, id);
}

void event_log_last_id(const struct event_log *l, char *id)
{
	format_id(l->epoch, l->last, id);
}

/* "EPOCH-SEQ" into its parts; false for anything else. */
static bool parse_id(const char *id, uint32_t *epoch, uint64_t *seq)
{
	char *end;
	unsigned long long e, n;

	if (strlen(id) < 10 || id[8] != '-' || strspn(id, "0123456789abcdef") != 8 ||
	    !strchr("0123456789", id[9]))
		return false;
	e = strtoull(id, &end, 16);
	if (end != id + 8)
		return false;
	n = strtoull(id + 9, &end, 10);
	if (*end)
		return false;
	*epoch = (uint32_t)e;
	*seq = n;
	return true;
}

enum event_resume event_log_replay(const struct event_log *l, const char *last_id,
				   event_log_fn fn, void *ctx)
{
	uint64_t oldest = l->n ? l->ring[l->first].seq : l->last + 1, seen = 0;
	enum event_resume how;
	uint32_t epoch;

	if (!last_id || !*last_id || !parse_id(last_id, &epoch, &seen))
		return EVENT_NEW;
	if (epoch == l->epoch && seen <= l->last && seen + 1 >= oldest)
		how = EVENT_CONTINUES;
	else if (epoch != l->epoch && oldest == 1)
		how = EVENT_RESTARTED;
	else
		how = EVENT_GAP;
	/* a watcher that does not continue gets every kept event */
	if (how != EVENT_CONTINUES)
		seen = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct kept *k = &l->ring[(l->first + i) % l->cap];
		char id[EVENT_ID_MAX];

		if (k->seq <= seen)
			continue;
		format_id(l->epoch, k->seq, id);
		fn(ctx, id, k->event, k->data);
	}
	return how;
}

const char *event_resume_name(enum event_resume r)
{
	static const char *const names[] = { "new", "continues", "gap", "restarted" };

	return names[r];
}
