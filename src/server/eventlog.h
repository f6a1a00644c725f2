/*
 * The events the server sent lately, kept so that a watcher that lost its
 * connection gets what it missed when it comes back (the Last-Event-ID of
 * server-sent events). Every event gets an id "EPOCH-SEQ": EPOCH is drawn
 * at the server's start (8 hex digits), SEQ counts from 1. The log keeps
 * the last max_events events within max_bytes; an older id is a gap, an id
 * of another epoch is a server that restarted since. Not thread-safe: the
 * server holds its watchers' lock around every use.
 */
#ifndef SL_SERVER_EVENTLOG_H
#define SL_SERVER_EVENTLOG_H

#include <stddef.h>
#include <stdint.h>

struct event_log;

/* "xxxxxxxx-" and 20 digits, and a NUL */
#define EVENT_ID_MAX 32

/* How a watcher that comes back with an id stands. */
enum event_resume {
	EVENT_NEW,       /* no id (or none this server wrote): from now on */
	EVENT_CONTINUES, /* every event after its id is kept: they follow */
	EVENT_GAP,       /* some after its id are gone: the kept ones follow */
	EVENT_RESTARTED, /* an id of the server before: every event since
			  * this start follows (what the other sent after
			  * the id is gone with it) */
};

/* max_events and max_bytes 0: 1024 events, 1 MiB. */
struct event_log *event_log_new(uint32_t epoch, size_t max_events, size_t max_bytes);
void event_log_free(struct event_log *l);

/* Keeps an event (copies event and data) and writes its id into id
 * (EVENT_ID_MAX bytes). */
void event_log_add(struct event_log *l, const char *event, const char *data, char *id);
/* The id of the last event kept ("EPOCH-0" before the first), into id. */
void event_log_last_id(const struct event_log *l, char *id);

typedef void (*event_log_fn)(void *ctx, const char *id, const char *event, const char *data);
/* Calls fn, oldest first, for every kept event a watcher that saw last_id
 * (NULL or "": none) has not, and says how it stands. */
enum event_resume event_log_replay(const struct event_log *l, const char *last_id,
				   event_log_fn fn, void *ctx);
/* "new", "continues", "gap", "restarted" */
const char *event_resume_name(enum event_resume r);

#endif
