/*
 * What server.c (the server's life: its parts started and stopped, the
 * source threads, the state file), routes.c (the routes) and events.c
 * (the runner and the event watchers, which both use) share: the server
 * itself. Nothing else includes it.
 */
#ifndef SL_SERVER_SERVER_INT_H
#define SL_SERVER_SERVER_INT_H

#include "server/guard.h"
#include "server/server.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct http_call;
struct live_advance;
struct pgcdc_landed;

struct server {
	struct arena *a; /* the writer's and the pollers' arenas hang under it */
	struct project *p;
	struct wh *w; /* the first connection: reads open connections from it */
	int folder_lock; /* .sluice/server.lock, held while the server runs */
	const struct server_opts *opts;
	struct ingest_writer *writer;
	struct server_ingest *ingest;
	pthread_rwlock_t lock; /* live: read to use it, write to start or stop it */
	atomic_bool live_on;   /* live != NULL, for whoever must not wait for the lock */
	pthread_mutex_t watch_mu; /* guards watchers and events */
	struct watcher *watchers;
	struct event_log *events; /* what was sent lately, for watchers that come back */
	struct session_store *sessions; /* the UI's sign-ins */
	struct guard_token token; /* the server's token, for signing in */
	struct live_thread *live;
	struct poller **pollers; /* one per poll source, each on its own thread */
	size_t npollers;
	struct pgcdc_thread **consumers; /* one per postgres_cdc slot */
	size_t nconsumers;
	struct kafka_thread **kafkas; /* one per kafka source */
	size_t nkafkas;
	struct files_thread **landers; /* one per files source */
	size_t nlanders;
	/* sources that could not start (what they need from the environment
	 * is not set): the server serves the others */
	struct unavailable *unavailable;
	size_t nunavailable;
	struct worker_queue *control; /* control calls, off the HTTP thread */
	struct server_reader *reader; /* POST /api/sql */
	struct server_history *history; /* the model and runs pages' reads */
	struct status_doc *status;  /* GET /api/live/status */
	struct dag_doc *dag;        /* GET /api/dag */
	struct win_doc *windows;    /* GET /api/windows */
	struct wh *status_conn;     /* the status thread's, opened at its first build */
	char state_file[4096];
};

struct unavailable {
	const char *source;
	char why[512];
};

/* A client of GET /api/live/events. */
struct watcher {
	struct http_stream *stream;
	struct watcher *next;
};

/* events.c: */

/* The writer or the control queue advanced source: the runner and the
 * watchers hear of it. */
void server_advanced(void *ctx, const char *source, const struct live_advance *adv);
/* A postgres_cdc slot landed source transactions: the same. */
void server_cdc_landed(void *ctx, const struct pgcdc_landed *landed);
/* Starts the live runner unless it runs; stops it (waiting for its
 * refresh in progress). */
int server_live_start(struct server *s, struct sl_err *err);
void server_live_stop(struct server *s);
/* Answers c with the event stream: first what a client that saw last_id
 * (the Last-Event-ID it sends back; NULL: none) missed, then a "hello"
 * event saying how it resumed, then every event as it happens. */
void server_watch(struct server *s, struct http_call *c, const char *last_id);
/* Ends every watcher's stream. */
void server_watchers_close(struct server *s);

/* webui.c: */

/* The UI's routes: its files at / and under /ui/, signing in and out, and
 * GET /api/session; false for any other path. */
bool server_webui_route(struct server *s, struct http_call *c);

/* routes.c: */

/* The HTTP handler: on the HTTP thread, never waiting there. */
void server_route(void *ctx, struct http_call *c);
/* Every source that cannot take data for its settings, with why: the
 * webhook sources and those left out at the start. */
json_t *server_unavailable_sources(struct server *s);

#endif
