/*
 * The HTTP server: the only code in sluice that serves HTTP and knows
 * libmicrohttpd. It listens, reads each request with its complete body into
 * memory, refuses what the handler must never see (a path that is not
 * canonical or a request framed two ways: 400, whatever the guard
 * refuses (guard.h: a missing or wrong token or session: 401, a browser's
 * request from another origin or without its CSRF token: 403), bodies over
 * max_body: 413, anything once stopping: 503),
 * closes connections that are too slow to send their request, hands the
 * rest to one handler, and sends back whatever answer the handler (or a
 * thread it hands the call to) posts, when it posts it. It knows no
 * routes: unknown paths and methods are the handler's to answer, from the
 * path's segments, the same ones the token check looked at.
 *
 * Threading:
 * - One server thread polls every connection (poll(2)) and runs the handler,
 *   one call at a time. The handler must not block: slow work (the
 *   warehouse, a batch waiting for its commit) goes to another thread
 *   together with the call. A call not answered when the handler returns
 *   waits, costing no thread, until its answer is posted.
 * - A call belongs to its owner: the handler, then whichever thread the
 *   handler gives it to. The owner reads it, adds headers and answers it
 *   exactly once (http_reply*, or http_stream_open then http_stream_close),
 *   from any thread. Two threads must not use one call at the same time.
 * - http_stream_send may be called from any thread, from several at once;
 *   http_stream_close is the handle's last use.
 * - http_server_stop may be called from any thread but the server's own
 *   (a handler must not call it). Calls and streams stay valid handles
 *   after it until their owner answers or closes them: late answers are
 *   dropped, late events fail. The server's memory goes with its last call.
 * There is no global state: servers are independent of each other.
 */
#ifndef SL_SERVER_HTTP_H
#define SL_SERVER_HTTP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct session_store;
struct sl_err;
struct http_server;
struct http_call;
struct http_stream;

struct http_config {
	/* "HOST:PORT", "[IPv6]:PORT" or ":PORT" (every interface); port 0
	 * picks a free port (see http_server_port) */
	const char *listen;
	/* bigger request bodies are answered 413 without calling the handler;
	 * 0 means 1 MiB */
	size_t max_body;
	/* when set, every path whose first segment is auth_segment (every
	 * path when auth_segment is NULL) needs "Authorization: Bearer TOKEN" */
	const char *token;
	const char *auth_segment;
	/* the UI's sign-in sessions: a session cookie then authorizes the
	 * protected paths too (guard.h says how); NULL: the token alone.
	 * Not the server's: it must outlive the server */
	struct session_store *sessions;
	/* Slow clients: a connection is closed without an answer when its
	 * request's header block has not arrived header_timeout_ms after its
	 * request line (0: 10 s), when it starts no request for
	 * idle_timeout_ms (0: 60 s), or when its body arrives slower than
	 * min_body_rate bytes/s after a grace of header_timeout_ms (0: 4 KiB/s).
	 * One client address may hold at most max_client_connections
	 * connections (0: 256); more are closed at once. */
	int64_t header_timeout_ms, idle_timeout_ms, min_body_rate;
	unsigned max_client_connections;
};

/* A request path split into its segments: "/api/live/status" is "api",
 * "live", "status"; "/" has none. */
#define HTTP_PATH_MAX 1024
#define HTTP_PATH_SEGMENTS 8
struct http_path {
	size_t n;
	const char *seg[HTTP_PATH_SEGMENTS];
	char buf[HTTP_PATH_MAX];
};

/* Splits the path of a request target (what precedes '?') into segments,
 * or refuses it: SL_E_PARSE when it is not canonical (not starting with
 * '/', an empty segment as in "//x" or "x/", a "." or ".." segment, a
 * percent-encoded or any other byte outside RFC 3986's path characters),
 * SL_E_TOOBIG for a path over HTTP_PATH_MAX bytes or HTTP_PATH_SEGMENTS
 * segments. err says which. The one place that decides what a path means:
 * the token check and the handler's routing both read its result. */
int http_path_parse(const char *target, struct http_path *out, struct sl_err *err);

/* Called on the server thread for every request that passed the checks. */
typedef void (*http_handler)(void *ctx, struct http_call *call);

/* Listens on cfg->listen and starts the server thread. Fails with
 * SL_E_CONFIG for an address that does not parse or resolve, SL_E_IO when
 * it cannot be bound (in use, not local), SL_E_INTERNAL when a thread
 * cannot start. cfg's strings are copied. Stop with http_server_stop. */
int http_server_start(const struct http_config *cfg, http_handler handler, void *ctx,
		      struct http_server **out, struct sl_err *err);
/* The port the server listens on (the one picked, for port 0). */
int http_server_port(const struct http_server *s);
/* Stops accepting, answers every call still waiting with 503, ends every
 * open stream, gives those answers a moment (at most 2 s) to go out, then
 * closes every connection and joins the server thread. Never waits for an
 * owner. */
void http_server_stop(struct http_server *s);

/* The request. Strings belong to the call: valid until it is answered. */
const char *http_call_method(const struct http_call *c);
/* The canonical path, without the query string: its bytes are exactly
 * what came, since a path that needs decoding is refused. */
const char *http_call_path(const struct http_call *c);
/* Its segments (see http_path_parse); i past the last gives NULL. */
size_t http_call_nsegments(const struct http_call *c);
const char *http_call_segment(const struct http_call *c, size_t i);
/* The first header called name (any case), or NULL. */
const char *http_call_header(const struct http_call *c, const char *name);
/* The first query parameter called name, percent-decoded; "" for a bare
 * "?name", NULL when absent. */
const char *http_call_query(const struct http_call *c, const char *name);
/* The query parameter name as a whole number from min to max into *out,
 * def when absent; false, the call answered 400 "bad parameter" saying
 * the range, for anything else. */
bool http_call_query_number(struct http_call *c, const char *name, long long def, long long min,
			    long long max, long long *out);
/* Memory for the call's owner, a child of the server's arena: it goes
 * with the call, so nothing in it may be used once the call is answered
 * (the last thing its owner does with it). */
struct arena *http_call_arena(struct http_call *c);
/* The body (NUL-terminated too, "" when there is none); len may be NULL. */
const char *http_call_body(const struct http_call *c, size_t *len);

/* Adds a header to the answer about to be posted (Retry-After, Location). */
void http_call_add_header(struct http_call *c, const char *name, const char *value);

/* Answers: exactly one per call, from any thread, at any time after the
 * handler was called; afterwards the call is gone. body is copied;
 * content_type may be NULL. */
void http_reply(struct http_call *c, int status, const char *content_type, const char *body,
		size_t len);
/* Answers with doc as JSON, taking the reference. A NULL or unencodable doc
 * becomes a 500 error. */
void http_reply_json(struct http_call *c, int status, json_t *doc);
/* Answers {"error": error, "detail": detail}, the shape of the server's own
 * refusals too; detail may be NULL (JSON null). A 500's detail ends with
 * a context line naming the request ("in request POST /api/sql": the
 * method and the path, nothing of the query, headers or body). */
void http_reply_error(struct http_call *c, int status, const char *error, const char *detail);
/* Answers a failure by its code: 404 for SL_E_NOTFOUND; 503 with
 * Retry-After: 1 for SL_E_BUSY and SL_E_CONN (a warehouse that cannot be
 * reached now may be soon); 500 for the rest. */
void http_reply_sl_err(struct http_call *c, const struct sl_err *err);

/* Server-sent events. Answers the call with a 200 text/event-stream that
 * stays open until http_stream_close, the client going away, or the server
 * stopping. While nothing is sent for heartbeat_ms (0: never) a comment
 * line goes out, which also notices a client that went away. Must still be
 * closed when it has ended. */
struct http_stream *http_stream_open(struct http_call *c, int64_t heartbeat_ms);
/* Queues "event: EVENT\ndata: LINE\n...\n" (no event line when event is
 * NULL; one data line per line of data). Returns SL_E_IO once the stream
 * has ended, SL_E_TOOBIG when 1 MiB is already waiting for a client that
 * does not read (the event is dropped; closing is the usual answer),
 * SL_E_USAGE for an event name with a line break. */
int http_stream_send(struct http_stream *s, const char *event, const char *data);
/* One event with every field: an id ("id: ID", which a client that
 * reconnects sends back as Last-Event-ID), the event's name and data as
 * above, and retry_ms > 0 to tell the client how long to wait before it
 * reconnects. The same answers as http_stream_send, and SL_E_USAGE for an
 * id with a line break. */
struct http_event {
	const char *id, *event, *data;
	int retry_ms;
};
int http_stream_post(struct http_stream *s, const struct http_event *ev);
/* Ends the stream once what is queued has gone out, and lets go of the
 * handle: exactly once per stream, whether or not it has already ended. */
void http_stream_close(struct http_stream *s);

#endif
