/*
 * This file implements what the watchers of GET /api/live/events hear and
 * the live runner as the server holds it: the runner started and stopped
 * under the server's lock, told of advances and of postgres_cdc landings,
 * and every event kept in the event log and sent to every watcher, with
 * its id; a watcher that comes back with the id it saw last gets what it
 * missed first. It calls nothing of server.c or routes.c, which both use
 * it.
 */
#include "server/server_int.h"

#include "core/err.h"
#include "live/advance.h"
#include "live/runner.h"
#include "live/thread.h"
#include "pgcdc/pgcdc_thread.h"
#include "core/xalloc.h"
#include "server/eventlog.h"
#include "server/http.h"
#include "server/statusdoc.h"
#include "warehouse/wh.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* How long a client waits before it connects again, told in the first
 * event of every stream. */
#define WATCH_RETRY_MS 1000
#define WATCH_HEARTBEAT_MS 15000

/* Keeps an event in the log and sends it to every watcher; a watcher that
 * went away is dropped. Under one lock, so that a watcher that joins sees
 * each event once: in its replay or sent, never both, never neither. */
static void emit(struct server *s, const char *event, json_t *data)
{
	char *text = json_dumps(data, JSON_COMPACT);
	char id[EVENT_ID_MAX];

	/* whatever is worth an event changes what the status shows */
	status_doc_touch(s->status);
	json_decref(data);
	if (!text)
		return;
	pthread_mutex_lock(&s->watch_mu);
	event_log_add(s->events, event, text, id);
	for (struct watcher **w = &s->watchers; *w;) {
		struct http_event ev = { .id = id, .event = event, .data = text };

		if (http_stream_post((*w)->stream, &ev) == 0) {
			w = &(*w)->next;
			continue;
		}
		struct watcher *gone = *w;

		*w = gone->next;
		http_stream_close(gone->stream);
		free(gone);
	}
	pthread_mutex_unlock(&s->watch_mu);
	free(text);
}

static void replay_one(void *ctx, const char *id, const char *event, const char *data)
{
	http_stream_post(ctx, &(struct http_event){ .id = id, .event = event, .data = data });
}

void server_watch(struct server *s, struct http_call *c, const char *last_id)
{
	struct watcher *w = xcalloc(1, sizeof(*w));
	enum event_resume how;
	char id[EVENT_ID_MAX];
	json_t *hello;
	char *text;

	w->stream = http_stream_open(c, WATCH_HEARTBEAT_MS);
	pthread_mutex_lock(&s->watch_mu);
	how = event_log_replay(s->events, last_id, replay_one, w->stream);
	/* after what it missed, so that a connection lost during the replay
	 * resumes from the last event that arrived, not from this one */
	event_log_last_id(s->events, id);
	hello = json_pack("{s:s, s:s}", "resume", event_resume_name(how), "id", id);
	text = json_dumps(hello, JSON_COMPACT);
	http_stream_post(w->stream, &(struct http_event){ .id = id, .event = "hello", .data = text,
							  .retry_ms = WATCH_RETRY_MS });
	free(text);
	json_decref(hello);
	w->next = s->watchers;
	s->watchers = w;
	pthread_mutex_unlock(&s->watch_mu);
}

void server_watchers_close(struct server *s)
{
	pthread_mutex_lock(&s->watch_mu);
	while (s->watchers) {
		struct watcher *w = s->watchers;

		s->watchers = w->next;
		http_stream_close(w->stream);
		free(w);
	}
	pthread_mutex_unlock(&s->watch_mu);
}

static void on_runner_event(void *ctx, const char *event, const char *model, const char *detail)
{
	json_t *o = json_object();

	json_object_set_new(o, "model", json_string(model));
	if (detail && strcmp(event, "refresh") == 0)
		json_object_set_new(o, "rows", json_integer(strtoll(detail, NULL, 10)));
	else if (detail)
		json_object_set_new(o, "error", json_string(detail));
	emit(ctx, event, o);
}

static int watch_job(struct live_runner *r, struct wh *w, void *arg, struct sl_err *err)
{
	struct server *s = arg;

	(void)w;
	(void)err;
	live_runner_watch(r, on_runner_event, arg);
	live_runner_on_full_build(r, s->opts->on_full_build, s->opts->record_ctx);
	return 0;
}

void server_advanced(void *ctx, const char *source, const struct live_advance *adv)
{
	struct server *s = ctx;
	json_t *o = json_object();

	pthread_rwlock_rdlock(&s->lock);
	if (s->live)
		live_thread_advanced(s->live, source, adv);
	pthread_rwlock_unlock(&s->lock);
	json_object_set_new(o, "source", json_string(source));
	/* an adopted table's place is the runner's reckoning: its cursor says it */
	if (adv->cursor[0])
		json_object_set_new(o, "cursor", json_string(adv->cursor));
	else
		json_object_set_new(o, "seq", json_integer(adv->seq));
	json_object_set_new(o, "rows", json_integer(adv->rows));
	emit(s, "advance", o);
}

int server_live_start(struct server *s, struct sl_err *err)
{
	struct wh *conn;
	int rc = 0;

	pthread_rwlock_wrlock(&s->lock);
	if (!s->live) {
		rc = wh_connect(s->w, &conn, err);
		if (!rc)
			rc = live_thread_start(s->a, s->p, conn, s->opts->log, &s->live, err);
		if (!rc)
			rc = live_thread_call(s->live, watch_job, s, err);
		atomic_store(&s->live_on, s->live != NULL);
	}
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

void server_live_stop(struct server *s)
{
	struct live_thread *t;

	pthread_rwlock_wrlock(&s->lock);
	t = s->live;
	s->live = NULL;
	atomic_store(&s->live_on, false);
	pthread_rwlock_unlock(&s->lock);
	if (t)
		live_thread_stop(t);
}

/* Source transactions landed: the runner reads the advances anew, and
 * the watchers hear of it. */
void server_cdc_landed(void *ctx, const struct pgcdc_landed *landed)
{
	struct server *s = ctx;
	json_t *o = json_object();

	pthread_rwlock_rdlock(&s->lock);
	if (s->live)
		live_thread_notify(s->live);
	pthread_rwlock_unlock(&s->lock);
	json_object_set_new(o, "slot", json_string(landed->slot));
	json_object_set_new(o, "seq", json_integer(landed->seq));
	json_object_set_new(o, "transactions", json_integer(landed->txns));
	json_object_set_new(o, "changes", json_integer(landed->changes));
	emit(s, "landed", o);
}
