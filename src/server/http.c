/*
 * The HTTP server over libmicrohttpd (MHD): one internal poll thread, calls
 * answered from any thread through suspend/resume, server-sent events, and
 * the checks made before a handler sees a request. It must never block the
 * server thread: the only waits on it are for the server lock, which guards
 * bookkeeping only, and libmicrohttpd's own lock is only ever taken inside
 * ours (suspend, resume), never the other way round.
 */
#include "server/http.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "server/guard.h"

#include <microhttpd.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HTTP_DEFAULT_MAX_BODY ((size_t)1 << 20)
/* A chunked body that outgrows max_body is read on and dropped, so that the
 * 413 can be sent: libmicrohttpd cannot answer in the middle of an upload.
 * A sender still going this far past the limit is cut off instead. */
#define HTTP_DRAIN_MAX ((size_t)1 << 20)
#define HTTP_BODY_HINT_MAX ((size_t)64 << 10)
/* the body a request outside the guard's segment may carry: the sign-in's
 * JSON is the largest there is */
#define HTTP_OUTSIDE_BODY ((size_t)4 << 10)
#define HTTP_IDLE_TIMEOUT_MS 60000
#define HTTP_HEADER_TIMEOUT_MS 10000
#define HTTP_MIN_BODY_RATE 4096
#define HTTP_MAX_CLIENT_CONNECTIONS 256
/* how often the ticker looks for connections past their deadline */
#define HTTP_WATCH_MS 250
/* poll has no FD_SETSIZE ceiling; accept() failing at the process's file
 * limit is handled by libmicrohttpd */
#define HTTP_MAX_CONNECTIONS 10000
#define HTTP_STREAM_BLOCK 16384
#define HTTP_STREAM_BACKLOG ((size_t)1 << 20)
#define HTTP_STOP_GRACE_MS 2000

static const char content_json[] = "application/json";
/* Said on every answer, the UI's pages and the API's alike: nothing runs
 * but the server's own scripts, nothing is framed or sniffed, and no
 * address leaves in a Referer. */
static const char content_security_policy[] =
	"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
/* what a JSON answer becomes when it cannot be encoded */
static const char json_broken[] =
	"{\"error\":\"internal error\",\"detail\":\"the answer could not be encoded as JSON\"}";

/* Where a connection is in its current request, for the slow-client
 * deadlines. */
enum conn_phase {
	CONN_IDLE,    /* between requests: no request line yet */
	CONN_HEADERS, /* request line in, header block arriving */
	CONN_BODY,    /* headers in, body arriving */
	CONN_HANDLED, /* with the handler or its owner: no deadline */
};

/* One TCP connection, from MHD's start to its close notification (which
 * MHD sends before it closes the socket, so that fd is this connection's
 * for as long as the record is in the list). */
struct http_conn {
	int fd;
	enum conn_phase phase;
	int64_t since_ms;   /* when the phase began (monotonic) */
	int64_t body_bytes; /* of the current request */
	bool cut;           /* shut down for being too slow */
	struct http_conn *prev, *next;
};

enum call_state {
	CALL_RECEIVING, /* request arriving; only the server thread knows it */
	CALL_WAITING,   /* handed to its owner, no answer yet */
	CALL_ANSWERED,  /* answered, by the owner or by stop */
	CALL_STREAMING, /* answered with an event stream */
};

struct http_stream {
	struct http_call *call;
	struct buf backlog; /* framed events not yet taken by the server thread */
	int64_t heartbeat_ms;
	int64_t beat_at;    /* when the next heartbeat is due (monotonic ms) */
	bool open;          /* accepting events: not closed, client there, server running */
};

/*
 * A call is held by the server thread (from its first byte until MHD
 * reports the request done: conn != NULL) and by its owner (from the
 * handler until the answer or the stream's close: owned). Whichever lets go
 * last frees it.
 */
struct http_call {
	struct http_server *s;
	struct arena *a; /* the owner's: a child of the server's, freed with the call */
	struct MHD_Connection *conn;
	struct http_call *prev, *next; /* s->calls */
	enum call_state state;
	bool owned;
	bool begun;      /* its headers were checked (call_begin) */
	bool refused;    /* answered by that check: nothing more is read */
	bool suspended;  /* suspended by us: we owe it a resume */
	bool too_big;
	size_t dropped;  /* body bytes past max_body */
	/* its body's bound: the server's max_body under the guard's segment
	 * (the API, its webhooks), at most HTTP_OUTSIDE_BODY elsewhere:
	 * nothing outside it takes more, and no one without authority may
	 * make the server hold megabytes */
	size_t max_body;
	unsigned status;
	struct MHD_Response *response; /* the answer, until the server thread queues it */
	/* method, path, then the header and the query name/value pairs, every
	 * string NUL-terminated: MHD's own copies go when the request ends,
	 * which stop may bring about while the owner still reads */
	struct buf req;
	size_t headers_at, query_at, nheaders, nquery;
	char *target;    /* the request target as it came, until call_begin */
	struct http_path path;
	struct buf reply_headers; /* name/value pairs, NUL-terminated */
	size_t nreply_headers;
	struct buf body;
	struct http_stream stream;
};

struct http_server {
	/* the parent of every call's arena. A root: the server outlives
	 * whoever started it until its last call is answered */
	struct arena *a;
	struct MHD_Daemon *daemon;
	int port;
	http_handler handler;
	void *ctx;
	size_t max_body;
	struct guard guard; /* who may make a request: guard.h */
	char *auth_segment; /* the guard's segment, owned */
	int64_t header_timeout_ms, idle_timeout_ms, min_body_rate;
	pthread_t ticker; /* heartbeats and slow-client deadlines */
	pthread_mutex_t mu;
	pthread_cond_t tick; /* wakes the ticker: a stream opened, stop */
	pthread_cond_t idle; /* inflight dropped to 0 */
	bool stopping, stopped;
	size_t inflight; /* calls past RECEIVING that MHD has not finished */
	size_t ncalls;   /* calls alive: a stopped server lives until its last */
	struct http_call *calls;
	struct http_conn *conns;
};

/* ---- responses ---- */

static void add_safety_headers(struct MHD_Response *r)
{
	MHD_add_response_header(r, "Content-Security-Policy", content_security_policy);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
}

static struct MHD_Response *text_response(const char *type, const char *body, size_t len,
					  enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, mode);

	if (!r)
		xalloc_die();
	add_safety_headers(r);
	if (type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	return r;
}

/* doc as compact JSON text to free(), or NULL when it cannot be encoded;
 * takes doc */
static char *json_text(json_t *doc)
{
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;

	json_decref(doc);
	return text;
}

static struct MHD_Response *json_response(char *text)
{
	if (!text)
		return text_response(content_json, json_broken, strlen(json_broken),
				     MHD_RESPMEM_PERSISTENT);
	return text_response(content_json, text, strlen(text), MHD_RESPMEM_MUST_FREE);
}

static struct MHD_Response *error_response(const char *error, const char *detail)
{
	json_t *doc = json_pack("{s:s, s:s?}", "error", error, "detail", detail);

	/* a detail quoting the client's bytes may not be UTF-8: the error
	 * alone still says what went wrong */
	if (!doc)
		doc = json_pack("{s:s, s:n}", "error", error, "detail");
	return json_response(json_text(doc));
}

static struct MHD_Response *stopping_response(void)
{
	struct MHD_Response *r = error_response("service unavailable", "the server is stopping");

	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	return r;
}

/* Answers on the server thread, never through the handler. */
static enum MHD_Result refuse(struct MHD_Connection *conn, unsigned status,
			      struct MHD_Response *r)
{
	enum MHD_Result ret = MHD_queue_response(conn, status, r);

	MHD_destroy_response(r);
	return ret;
}

/* A request the server will not read on: the connection closes after the
 * answer, so no byte of what follows is taken for another request. */
static enum MHD_Result refuse_closing(struct MHD_Connection *conn, unsigned status,
				      const char *error, const char *detail)
{
	struct MHD_Response *r = error_response(error, detail);

	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	return refuse(conn, status, r);
}

static enum MHD_Result refuse_too_big(const struct http_call *c, struct MHD_Connection *conn)
{
	char detail[96];

	snprintf(detail, sizeof(detail), "the body is limited to %zu bytes", c->max_body);
	return refuse(conn, MHD_HTTP_CONTENT_TOO_LARGE,
		      error_response("payload too large", detail));
}

/* ---- calls ---- */

static void add_pair(struct buf *b, const char *name, const char *value)
{
	buf_add(b, name, strlen(name) + 1);
	buf_add(b, value, strlen(value) + 1);
}

static enum MHD_Result copy_pair(void *cls, enum MHD_ValueKind kind, const char *name,
				 const char *value)
{
	(void)kind;
	add_pair(cls, name, value ? value : "");
	return MHD_YES;
}

static const char *find_pair(const char *p, size_t n, const char *name, bool any_case)
{
	for (size_t i = 0; i < n; i++) {
		const char *value = p + strlen(p) + 1;

		if (any_case ? !strcasecmp(p, name) : !strcmp(p, name))
			return value;
		p = value + strlen(value) + 1;
	}
	return NULL;
}

/* A call is made as soon as its request line is in, with the target as it
 * came: the path MHD hands the handler callback is already decoded. */
static struct http_call *call_new(struct http_server *s, struct MHD_Connection *conn,
				  const char *target)
{
	struct http_call *c = xcalloc(1, sizeof(*c));

	c->target = xstrdup(target);
	c->a = arena_new(s->a);
	c->s = s;
	c->conn = conn;
	c->state = CALL_RECEIVING;
	buf_init(&c->req, 0);
	buf_init(&c->reply_headers, 0);
	buf_init(&c->body, 0);
	buf_init(&c->stream.backlog, 0);
	c->stream.backlog.cap = HTTP_STREAM_BACKLOG;
	c->stream.call = c;
	return c;
}

/* The copy of the request the owner reads, once its headers are in. */
static void call_copy_request(struct http_call *c, const char *method, size_t body_hint)
{
	struct MHD_Connection *conn = c->conn;
	size_t n = strcspn(c->target, "?");

	buf_init(&c->req, 512);
	buf_adds(&c->req, method);
	buf_addch(&c->req, '\0');
	buf_add(&c->req, c->target, n);
	buf_addch(&c->req, '\0');
	c->headers_at = c->req.len;
	c->nheaders = MHD_get_connection_values(conn, MHD_HEADER_KIND, copy_pair, &c->req);
	c->query_at = c->req.len;
	c->nquery = MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, copy_pair, &c->req);
	buf_init(&c->body, body_hint);
	c->body.cap = c->max_body;
	free(c->target);
	c->target = NULL;
}

static void call_free(struct http_call *c)
{
	if (c->response)
		MHD_destroy_response(c->response);
	buf_release(&c->req);
	buf_release(&c->reply_headers);
	buf_release(&c->body);
	buf_release(&c->stream.backlog);
	free(c->target);
	arena_free(c->a);
	free(c);
}

static void server_free(struct http_server *s)
{
	pthread_cond_destroy(&s->tick);
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->mu);
	free(s->auth_segment);
	arena_free(s->a);
	free(s);
}

/* Unlocks the server, first freeing c when neither the server thread nor
 * its owner holds it any more, and then the server too when it was stopped
 * and c was its last call. */
static void call_unlock_release(struct http_call *c)
{
	struct http_server *s = c->s;
	bool last = false;

	if (!c->owned && !c->conn) {
		if (c->prev)
			c->prev->next = c->next;
		else
			s->calls = c->next;
		if (c->next)
			c->next->prev = c->prev;
		s->ncalls--;
		last = s->stopped && !s->ncalls;
		call_free(c);
	}
	pthread_mutex_unlock(&s->mu);
	if (last)
		server_free(s);
}

/* Under the lock. The resume happens at once: MHD never calls us with its
 * own lock held, so taking it inside ours cannot deadlock. */
static void resume_locked(struct http_call *c)
{
	if (c->suspended) {
		c->suspended = false;
		MHD_resume_connection(c->conn);
	}
}

/* Under the lock: makes r c's answer if c is still waiting for one (stop
 * may have answered it first) and wakes its connection. Returns r when it
 * was not taken, for the caller to destroy outside the lock. */
static struct MHD_Response *answer_locked(struct http_call *c, enum call_state state,
					  unsigned status, struct MHD_Response *r)
{
	if (c->state != CALL_WAITING)
		return r;
	c->state = state;
	c->status = status;
	c->response = r;
	resume_locked(c);
	return NULL;
}

static void add_reply_headers(const struct http_call *c, struct MHD_Response *r)
{
	const char *p = c->reply_headers.buf;

	for (size_t i = 0; i < c->nreply_headers; i++) {
		const char *value = p + strlen(p) + 1;

		MHD_add_response_header(r, p, value);
		p = value + strlen(value) + 1;
	}
}

/* The owner's answer: c is the server thread's alone afterwards. */
static void call_answer(struct http_call *c, unsigned status, struct MHD_Response *r)
{
	add_reply_headers(c, r);
	/* an answer that says nothing of caching is kept nowhere: sessions,
	 * CSRF tokens and the warehouse's rows among them */
	if (!MHD_get_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL))
		MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	pthread_mutex_lock(&c->s->mu);
	r = answer_locked(c, CALL_ANSWERED, status, r);
	c->owned = false;
	call_unlock_release(c);
	if (r)
		MHD_destroy_response(r);
}

/* ---- paths ---- */

/* RFC 3986's pchar less '%': unreserved, sub-delims, ':' and '@'. */
static bool path_char(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       (ch && strchr("-._~!$&'()*+,;=:@", ch));
}

int http_path_parse(const char *target, struct http_path *out, struct sl_err *err)
{
	size_t len;
	char *p;

	out->n = 0;
	if (target[0] != '/')
		return sl_err_set(err, SL_E_PARSE, "the path must start with '/'");
	/* the bytes after the leading '/' */
	len = strcspn(target + 1, "?");
	if (len >= sizeof(out->buf))
		return sl_err_set(err, SL_E_TOOBIG, "the path is longer than %d bytes",
				  HTTP_PATH_MAX - 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)target[i + 1];

		if (ch == '%')
			return sl_err_set(err, SL_E_PARSE,
					  "the path has a percent-encoded byte at %zu: paths are "
					  "taken as they come, never decoded", i + 2);
		if (ch != '/' && !path_char(ch))
			return sl_err_set(err, SL_E_PARSE,
					  "the path has a byte that paths cannot hold (0x%02x) at %zu",
					  ch, i + 2);
	}
	memcpy(out->buf, target + 1, len);
	out->buf[len] = '\0';
	if (!len)
		return 0;
	p = out->buf;
	for (;;) {
		char *slash = strchr(p, '/');

		if (slash)
			*slash = '\0';
		if (!*p)
			return sl_err_set(err, SL_E_PARSE, "the path has an empty segment");
		if (!strcmp(p, ".") || !strcmp(p, ".."))
			return sl_err_set(err, SL_E_PARSE, "the path has a '%s' segment", p);
		if (out->n == HTTP_PATH_SEGMENTS)
			return sl_err_set(err, SL_E_TOOBIG, "the path has more than %d segments",
					  HTTP_PATH_SEGMENTS);
		out->seg[out->n++] = p;
		if (!slash)
			return 0;
		p = slash + 1;
	}
}

/* ---- the server thread ---- */

/* The connection's record, made when MHD started it. */
static struct http_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* Under the lock. */
static void conn_enter(struct http_conn *hc, enum conn_phase phase)
{
	if (!hc)
		return;
	hc->phase = phase;
	hc->since_ms = units_mono_ms();
	hc->body_bytes = 0;
}

static const char *header_of(struct MHD_Connection *conn, const char *name)
{
	return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

/* The guard's word on the request (guard.h): the one place that decides
 * who may make it. */
static void call_guard(const struct http_server *s, struct MHD_Connection *conn,
		       const char *method, const struct http_path *path, struct guard_verdict *v)
{
	struct guard_request rq = {
		.method = method,
		.path = path,
		.authorization = header_of(conn, MHD_HTTP_HEADER_AUTHORIZATION),
		.cookie = header_of(conn, MHD_HTTP_HEADER_COOKIE),
		.origin = header_of(conn, MHD_HTTP_HEADER_ORIGIN),
		.host = header_of(conn, MHD_HTTP_HEADER_HOST),
		.fetch_site = header_of(conn, "Sec-Fetch-Site"),
		.csrf = header_of(conn, GUARD_CSRF_HEADER),
	};

	guard_decide(&s->guard, &rq, units_now_ms(), v);
}

/* What the header block says of itself, counted once over its headers. */
struct header_facts {
	int lengths, encodings, auths, hosts;
	const char *encoding;
	bool bad_name;
};

/* RFC 9110's token characters, the only ones a header name may have. */
static bool token_char(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *name,
				    const char *value)
{
	struct header_facts *f = cls;

	(void)kind;
	for (const char *p = name; *p; p++)
		f->bad_name |= !token_char((unsigned char)*p);
	f->bad_name |= !*name;
	if (!strcasecmp(name, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
		f->lengths++;
	} else if (!strcasecmp(name, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		f->encodings++;
		f->encoding = value ? value : "";
	} else if (!strcasecmp(name, MHD_HTTP_HEADER_AUTHORIZATION)) {
		f->auths++;
	} else if (!strcasecmp(name, MHD_HTTP_HEADER_HOST)) {
		f->hosts++;
	}
	return MHD_YES;
}

/* NULL when the header block can be read one way only, else why not. A
 * second length, a length beside chunking, or a name a proxy may read
 * otherwise ("Transfer-Encoding : chunked", which MHD takes for another
 * header) is how a request is smuggled past a proxy that reads the other
 * one; two tokens or hosts leave which one counts to whoever looks. */
static const char *header_refusal(struct MHD_Connection *conn)
{
	struct header_facts f = { 0 };

	MHD_get_connection_values(conn, MHD_HEADER_KIND, count_header, &f);
	if (f.bad_name)
		return "a header name has a space or another character names cannot hold";
	if (f.lengths > 1)
		return "the request has more than one Content-Length";
	if (f.lengths && f.encodings)
		return "the request has both Content-Length and Transfer-Encoding";
	if (f.encodings > 1 || (f.encodings && strcasecmp(f.encoding, "chunked")))
		return "the only Transfer-Encoding taken is a single 'chunked'";
	if (f.auths > 1)
		return "the request has more than one Authorization";
	if (f.hosts > 1)
		return "the request has more than one Host";
	return NULL;
}

/* Takes the call made for a request line, so that the handler callback
 * finds it waiting in *con_cls. */
static void *on_request_line(void *cls, const char *target, struct MHD_Connection *conn)
{
	struct http_server *s = cls;
	struct http_call *c = call_new(s, conn, target);

	pthread_mutex_lock(&s->mu);
	conn_enter(conn_of(conn), CONN_HEADERS);
	c->next = s->calls;
	if (s->calls)
		s->calls->prev = c;
	s->calls = c;
	s->ncalls++;
	pthread_mutex_unlock(&s->mu);
	return c;
}

/* Whether the request line's target held a NUL byte. MHD reads the
 * target in place and ends it with a NUL before the version it found at
 * the line's end, so a target whose text stops short of there carried a
 * NUL of its own: "/x/ev\0y" must not be taken for "/x/ev". */
static bool target_has_nul(const struct http_call *c, const char *url, const char *version)
{
	size_t span;

	if (!version || !*version || version <= url)
		return false;
	span = (size_t)(version - 1 - url);
	return span < HTTP_PATH_MAX * 64 && strlen(c->target) < span;
}

/* The first call for a request: its headers are in, its body not yet. An
 * answer queued now makes MHD close the connection, which only refusals
 * do. */
static enum MHD_Result call_begin(struct http_server *s, struct http_call *c,
				  const char *method, const char *url, const char *version)
{
	struct MHD_Connection *conn = c->conn;
	struct sl_err err = SL_ERR_INIT;
	struct guard_verdict verdict;
	const char *refusal, *length;
	unsigned long long announced = 0;
	bool stopping;
	int rc;

	c->begun = true;
	/* every return below but the last is a refusal */
	c->refused = true;
	if (target_has_nul(c, url, version))
		return refuse_closing(conn, MHD_HTTP_BAD_REQUEST, "bad path",
				      "the request target has a NUL byte");
	rc = http_path_parse(c->target, &c->path, &err);
	if (rc == SL_E_TOOBIG && c->path.n == HTTP_PATH_SEGMENTS)
		return refuse_closing(conn, MHD_HTTP_NOT_FOUND, "not found", err.msg);
	if (rc == SL_E_TOOBIG)
		return refuse_closing(conn, MHD_HTTP_URI_TOO_LONG, "path too long", err.msg);
	if (rc)
		return refuse_closing(conn, MHD_HTTP_BAD_REQUEST, "bad path", err.msg);
	if ((refusal = header_refusal(conn)))
		return refuse_closing(conn, MHD_HTTP_BAD_REQUEST, "bad headers", refusal);
	call_guard(s, conn, method, &c->path, &verdict);
	if (verdict.status) {
		struct MHD_Response *r = error_response(verdict.error, verdict.detail);

		if (verdict.status == MHD_HTTP_UNAUTHORIZED)
			MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
		return refuse(conn, (unsigned)verdict.status, r);
	}
	length = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (length)
		announced = strtoull(length, NULL, 10);
	c->max_body = s->max_body;
	if (s->guard.segment && !(c->path.n && !strcmp(c->path.seg[0], s->guard.segment)) &&
	    c->max_body > HTTP_OUTSIDE_BODY)
		c->max_body = HTTP_OUTSIDE_BODY;
	if (announced > c->max_body)
		return refuse_too_big(c, conn);
	pthread_mutex_lock(&s->mu);
	stopping = s->stopping;
	conn_enter(conn_of(conn), CONN_BODY);
	pthread_mutex_unlock(&s->mu);
	if (stopping)
		return refuse(conn, MHD_HTTP_SERVICE_UNAVAILABLE, stopping_response());
	/* room for what was announced, up to a point: a client announcing
	 * much and sending little must not hold much memory */
	call_copy_request(c, method,
			  (size_t)(announced < HTTP_BODY_HINT_MAX ? announced : HTTP_BODY_HINT_MAX));
	c->refused = false;
	return MHD_YES;
}

static enum MHD_Result call_take_body(struct http_call *c, const char *data, size_t len)
{
	struct http_conn *hc = conn_of(c->conn);

	if (hc) {
		pthread_mutex_lock(&c->s->mu);
		hc->body_bytes += (int64_t)len;
		pthread_mutex_unlock(&c->s->mu);
	}
	if (!c->too_big && buf_add(&c->body, data, len) == 0)
		return MHD_YES;
	if (!c->too_big) {
		c->too_big = true;
		buf_release(&c->body);
	}
	c->dropped += len;
	return c->dropped > HTTP_DRAIN_MAX ? MHD_NO : MHD_YES;
}

/* After the handler, and after every resume: queues the answer when there
 * is one, else suspends the connection until it is posted. */
static enum MHD_Result call_flush(struct http_call *c)
{
	struct http_server *s = c->s;
	struct MHD_Response *r;
	unsigned status;
	enum MHD_Result ret;

	pthread_mutex_lock(&s->mu);
	/* stop went past this call while its handler ran */
	if (s->stopping && c->state == CALL_WAITING)
		answer_locked(c, CALL_ANSWERED, MHD_HTTP_SERVICE_UNAVAILABLE, stopping_response());
	if (!c->response) {
		c->suspended = true;
		MHD_suspend_connection(c->conn);
		pthread_mutex_unlock(&s->mu);
		return MHD_YES;
	}
	r = c->response;
	status = c->status;
	c->response = NULL;
	pthread_mutex_unlock(&s->mu);
	ret = MHD_queue_response(c->conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *path,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct http_server *s = cls;
	struct http_call *c = *con_cls;

	(void)con_cls;
	if (!c) /* every request line makes a call: this cannot happen */
		return refuse_closing(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error",
				      "a request arrived without its call");
	if (!c->begun)
		return call_begin(s, c, method, path, version);
	if (c->refused)
		return MHD_NO;
	if (*upload_size) {
		enum MHD_Result ret = call_take_body(c, upload, *upload_size);

		*upload_size = 0;
		return ret;
	}
	if (c->state == CALL_RECEIVING) {
		if (c->too_big)
			return refuse_too_big(c, conn);
		pthread_mutex_lock(&s->mu);
		conn_enter(conn_of(conn), CONN_HANDLED);
		c->state = CALL_WAITING;
		c->owned = true;
		s->inflight++;
		pthread_mutex_unlock(&s->mu);
		s->handler(s->ctx, c);
	}
	return call_flush(c);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_server *s = cls;
	struct http_call *c = *con_cls;

	(void)toe;
	if (!c)
		return;
	*con_cls = NULL;
	pthread_mutex_lock(&s->mu);
	conn_enter(conn_of(conn), CONN_IDLE);
	if (c->state != CALL_RECEIVING && --s->inflight == 0)
		pthread_cond_broadcast(&s->idle);
	c->conn = NULL;
	c->stream.open = false;
	call_unlock_release(c);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http_server *s = cls;
	struct http_conn *hc = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		if (!ci || !(hc = calloc(1, sizeof(*hc))))
			return; /* untracked: MHD's own idle timeout still holds */
		hc->fd = ci->connect_fd;
		pthread_mutex_lock(&s->mu);
		conn_enter(hc, CONN_IDLE);
		hc->next = s->conns;
		if (s->conns)
			s->conns->prev = hc;
		s->conns = hc;
		/* the ticker may sleep until the next heartbeat: it has
		 * deadlines to watch now */
		if (!hc->next)
			pthread_cond_broadcast(&s->tick);
		pthread_mutex_unlock(&s->mu);
		*socket_context = hc;
		return;
	}
	if (!hc)
		return;
	pthread_mutex_lock(&s->mu);
	if (hc->prev)
		hc->prev->next = hc->next;
	else
		s->conns = hc->next;
	if (hc->next)
		hc->next->prev = hc->prev;
	pthread_mutex_unlock(&s->mu);
	free(hc);
	*socket_context = NULL;
}

/* Under the lock: the moment hc has been too slow, or INT64_MAX. */
static int64_t conn_deadline(const struct http_server *s, const struct http_conn *hc)
{
	switch (hc->phase) {
	case CONN_IDLE:
		return hc->since_ms + s->idle_timeout_ms;
	case CONN_HEADERS:
		return hc->since_ms + s->header_timeout_ms;
	case CONN_BODY:
		/* like a minimum rate with a grace: each min_body_rate bytes
		 * buy a second more */
		return hc->since_ms + s->header_timeout_ms +
		       hc->body_bytes * 1000 / s->min_body_rate;
	case CONN_HANDLED:
		break;
	}
	return INT64_MAX;
}

/* Under the lock. A connection past its deadline is shut down, not
 * closed: MHD sees the end of it and closes it on its own thread. */
static void cut_slow_connections(struct http_server *s, int64_t now)
{
	for (struct http_conn *hc = s->conns; hc; hc = hc->next)
		if (!hc->cut && now >= conn_deadline(s, hc)) {
			hc->cut = true;
			shutdown(hc->fd, SHUT_RDWR);
		}
}

/* ---- event streams ---- */

/* MHD asks for the next bytes of a stream; with nothing queued the
 * connection sleeps until the next send, heartbeat or end. */
static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct http_stream *st = cls;
	struct http_call *c = st->call;
	struct buf *b = &st->backlog;
	ssize_t n;

	(void)pos;
	pthread_mutex_lock(&c->s->mu);
	if (b->len) {
		size_t take = b->len < max ? b->len : max;

		memcpy(out, b->buf, take);
		memmove(b->buf, b->buf + take, b->len - take);
		buf_setlen(b, b->len - take);
		n = (ssize_t)take;
	} else if (!st->open) {
		n = MHD_CONTENT_READER_END_OF_STREAM;
	} else {
		c->suspended = true;
		MHD_suspend_connection(c->conn);
		n = 0;
	}
	pthread_mutex_unlock(&c->s->mu);
	return n;
}

/* Under the lock, on an open stream. */
static int stream_push_locked(struct http_stream *st, const char *text, size_t len)
{
	int rc = buf_add(&st->backlog, text, len);

	if (rc)
		return rc;
	st->beat_at = units_mono_ms() + st->heartbeat_ms;
	resume_locked(st->call);
	return 0;
}

static void wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t at_ms)
{
	struct timespec ts = { .tv_sec = at_ms / 1000, .tv_nsec = (at_ms % 1000) * 1000000L };

	pthread_cond_timedwait(cv, mu, &ts);
}

static void *ticker_run(void *arg)
{
	static const char beat[] = ": ping\n\n";
	struct http_server *s = arg;

	pthread_mutex_lock(&s->mu);
	while (!s->stopping) {
		int64_t now = units_mono_ms(), next = INT64_MAX;

		for (struct http_call *c = s->calls; c; c = c->next) {
			struct http_stream *st = &c->stream;

			if (c->state != CALL_STREAMING || !st->open || st->heartbeat_ms <= 0)
				continue;
			/* beating up to a quarter early lets streams fall into
			 * step, so thousands of them cost a few wake-ups per
			 * period; a full backlog means a client that does not
			 * read, and one more line would not tell us anything */
			if (st->beat_at - now <= st->heartbeat_ms / 4 &&
			    stream_push_locked(st, beat, strlen(beat)))
				st->beat_at = now + st->heartbeat_ms;
			if (st->beat_at < next)
				next = st->beat_at;
		}
		cut_slow_connections(s, now);
		if (s->conns && next > now + HTTP_WATCH_MS)
			next = now + HTTP_WATCH_MS;
		if (next == INT64_MAX)
			pthread_cond_wait(&s->tick, &s->mu);
		else
			wait_until(&s->tick, &s->mu, next);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* ---- listening ---- */

/* Splits "HOST:PORT", "[HOST]:PORT" or ":PORT" into host (NULL: every
 * interface) and port. */
static int listen_split(const char *addr, char *host, size_t hostlen, const char **port)
{
	const char *colon;
	size_t n;

	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');

		if (!end || end[1] != ':')
			return SL_E_CONFIG;
		addr++;
		n = (size_t)(end - addr);
		colon = end + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			return SL_E_CONFIG;
		n = (size_t)(colon - addr);
	}
	*port = colon + 1;
	if (n >= hostlen || !**port || strspn(*port, "0123456789") != strlen(*port) ||
	    strlen(*port) > 5 || atoi(*port) > 65535)
		return SL_E_CONFIG;
	memcpy(host, addr, n);
	host[n] = '\0';
	return 0;
}

static int listen_open(const char *addr, int *fd_out, int *port_out, struct sl_err *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	struct sockaddr_storage bound;
	socklen_t boundlen = sizeof(bound);
	char host[256];
	const char *port;
	int fd = -1, e = 0, rc;

	if (!addr || listen_split(addr, host, sizeof(host), &port))
		return sl_err_set(err, SL_E_CONFIG,
				  "invalid listen address '%s' (expected HOST:PORT, e.g. 127.0.0.1:8080)",
				  addr ? addr : "");
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc)
		return sl_err_set(err, SL_E_CONFIG, "cannot resolve '%s': %s", addr,
				  gai_strerror(rc));
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		int one = 1;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		/* lets a restarted server take over its port from connections
		 * still in TIME_WAIT; a live listener still makes bind fail */
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, SOMAXCONN)) {
			e = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return sl_err_set(err, SL_E_IO, "cannot listen on '%s': %s", addr, strerror(e));
	if (getsockname(fd, (struct sockaddr *)&bound, &boundlen)) {
		e = errno;
		close(fd);
		return sl_err_set(err, SL_E_IO, "cannot listen on '%s': %s", addr, strerror(e));
	}
	*port_out = ntohs(bound.ss_family == AF_INET6 ?
				  ((struct sockaddr_in6 *)&bound)->sin6_port :
				  ((struct sockaddr_in *)&bound)->sin_port);
	*fd_out = fd;
	return 0;
}

/* ---- the server ---- */

int http_server_start(const struct http_config *cfg, http_handler handler, void *ctx,
		      struct http_server **out, struct sl_err *err)
{
	struct http_server *s = xcalloc(1, sizeof(*s));
	pthread_condattr_t attr;
	int fd, rc;

	rc = listen_open(cfg->listen, &fd, &s->port, err);
	if (rc) {
		free(s);
		return rc;
	}
	s->a = arena_new(NULL);
	s->handler = handler;
	s->ctx = ctx;
	s->max_body = cfg->max_body ? cfg->max_body : HTTP_DEFAULT_MAX_BODY;
	guard_token_init(&s->guard.token, cfg->token);
	if (cfg->auth_segment)
		s->auth_segment = xstrdup(cfg->auth_segment);
	s->guard.segment = s->auth_segment;
	s->guard.sessions = cfg->sessions;
	s->header_timeout_ms = cfg->header_timeout_ms > 0 ? cfg->header_timeout_ms
							   : HTTP_HEADER_TIMEOUT_MS;
	s->idle_timeout_ms = cfg->idle_timeout_ms > 0 ? cfg->idle_timeout_ms
						       : HTTP_IDLE_TIMEOUT_MS;
	s->min_body_rate = cfg->min_body_rate > 0 ? cfg->min_body_rate : HTTP_MIN_BODY_RATE;
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->tick, &attr);
	pthread_cond_init(&s->idle, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&s->ticker, NULL, ticker_run, s)) {
		close(fd);
		server_free(s);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the HTTP heartbeat thread");
	}
	s->daemon = MHD_start_daemon(
		MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, 0, NULL, NULL,
		on_request, s, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, s, MHD_OPTION_URI_LOG_CALLBACK, on_request_line, s,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, s, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)((s->idle_timeout_ms + 999) / 1000), MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)HTTP_MAX_CONNECTIONS, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		cfg->max_client_connections ? cfg->max_client_connections
					    : (unsigned)HTTP_MAX_CLIENT_CONNECTIONS,
		MHD_OPTION_END);
	if (!s->daemon) {
		pthread_mutex_lock(&s->mu);
		s->stopping = true;
		pthread_cond_broadcast(&s->tick);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->ticker, NULL);
		close(fd);
		server_free(s);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the HTTP server on '%s'",
				  cfg->listen);
	}
	*out = s;
	return 0;
}

int http_server_port(const struct http_server *s)
{
	return s->port;
}

void http_server_stop(struct http_server *s)
{
	MHD_socket fd = MHD_quiesce_daemon(s->daemon);
	int64_t deadline = units_mono_ms() + HTTP_STOP_GRACE_MS;
	bool last;

	pthread_mutex_lock(&s->mu);
	s->stopping = true;
	for (struct http_call *c = s->calls; c; c = c->next) {
		if (c->state == CALL_WAITING) {
			answer_locked(c, CALL_ANSWERED, MHD_HTTP_SERVICE_UNAVAILABLE,
				      stopping_response());
		} else if (c->state == CALL_STREAMING && c->stream.open) {
			c->stream.open = false;
			resume_locked(c);
		}
	}
	pthread_cond_broadcast(&s->tick);
	/* let the 503s and the ends of streams go out; a client that does not
	 * read them must not hold up the stop */
	while (s->inflight && units_mono_ms() < deadline)
		wait_until(&s->idle, &s->mu, deadline);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->ticker, NULL);
	MHD_stop_daemon(s->daemon);
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
	pthread_mutex_lock(&s->mu);
	s->stopped = true;
	last = !s->ncalls;
	pthread_mutex_unlock(&s->mu);
	if (last)
		server_free(s);
}

/* ---- the call API ---- */

const char *http_call_method(const struct http_call *c)
{
	return c->req.buf;
}

const char *http_call_path(const struct http_call *c)
{
	return c->req.buf + strlen(c->req.buf) + 1;
}

size_t http_call_nsegments(const struct http_call *c)
{
	return c->path.n;
}

const char *http_call_segment(const struct http_call *c, size_t i)
{
	return i < c->path.n ? c->path.seg[i] : NULL;
}

const char *http_call_header(const struct http_call *c, const char *name)
{
	return find_pair(c->req.buf + c->headers_at, c->nheaders, name, true);
}

const char *http_call_query(const struct http_call *c, const char *name)
{
	return find_pair(c->req.buf + c->query_at, c->nquery, name, false);
}

struct arena *http_call_arena(struct http_call *c)
{
	return c->a;
}

const char *http_call_body(const struct http_call *c, size_t *len)
{
	if (len)
		*len = c->body.len;
	return c->body.buf;
}

void http_call_add_header(struct http_call *c, const char *name, const char *value)
{
	add_pair(&c->reply_headers, name, value);
	c->nreply_headers++;
}

void http_reply(struct http_call *c, int status, const char *content_type, const char *body,
		size_t len)
{
	call_answer(c, (unsigned)status,
		    text_response(content_type, body, len, MHD_RESPMEM_MUST_COPY));
}

void http_reply_json(struct http_call *c, int status, json_t *doc)
{
	char *text = json_text(doc);

	call_answer(c, text ? (unsigned)status : MHD_HTTP_INTERNAL_SERVER_ERROR,
		    json_response(text));
}

void http_reply_error(struct http_call *c, int status, const char *error, const char *detail)
{
	/* the server's own failure names the request it met, as a context
	 * line of its error; never the body, the query or a header */
	if (status == MHD_HTTP_INTERNAL_SERVER_ERROR)
		detail = arena_sprintf(c->a, "%s\n  in request %s %s", detail ? detail : error,
				       http_call_method(c), http_call_path(c));
	call_answer(c, (unsigned)status, error_response(error, detail));
}

bool http_call_query_number(struct http_call *c, const char *name, long long def, long long min,
			    long long max, long long *out)
{
	const char *v = http_call_query(c, name);
	char *end, detail[160];

	*out = def;
	if (!v)
		return true;
	errno = 0;
	*out = strtoll(v, &end, 10);
	if (end != v && !*end && !errno && *out >= min && *out <= max)
		return true;
	snprintf(detail, sizeof(detail), "%s must be a whole number from %lld to %lld", name, min,
		 max);
	http_reply_error(c, 400, "bad parameter", detail);
	return false;
}

void http_reply_sl_err(struct http_call *c, const struct sl_err *err)
{
	int status = err->code == SL_E_NOTFOUND			      ? 404
		     : err->code == SL_E_BUSY || err->code == SL_E_CONN ? 503
									 : 500;

	if (status == 503)
		http_call_add_header(c, "Retry-After", "1");
	http_reply_error(c, status, sl_code_text(err->code), err->msg);
}

struct http_stream *http_stream_open(struct http_call *c, int64_t heartbeat_ms)
{
	struct http_stream *st = &c->stream;
	struct MHD_Response *r = MHD_create_response_from_callback(
		MHD_SIZE_UNKNOWN, HTTP_STREAM_BLOCK, stream_read, st, NULL);

	if (!r)
		xalloc_die();
	add_safety_headers(r);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	add_reply_headers(c, r);
	st->heartbeat_ms = heartbeat_ms;
	pthread_mutex_lock(&c->s->mu);
	st->beat_at = units_mono_ms() + heartbeat_ms;
	st->open = c->state == CALL_WAITING;
	r = answer_locked(c, CALL_STREAMING, MHD_HTTP_OK, r);
	if (st->open && heartbeat_ms > 0)
		pthread_cond_broadcast(&c->s->tick);
	pthread_mutex_unlock(&c->s->mu);
	if (r)
		MHD_destroy_response(r);
	return st;
}

/* One event in the text/event-stream framing: a line break in data, in
 * any of its three spellings, starts a new data line. */
static void event_frame(struct buf *out, const struct http_event *ev)
{
	const char *p = ev->data ? ev->data : "";

	if (ev->retry_ms > 0)
		buf_addf(out, "retry: %d\n", ev->retry_ms);
	if (ev->id)
		buf_addf(out, "id: %s\n", ev->id);
	if (ev->event)
		buf_addf(out, "event: %s\n", ev->event);
	for (;;) {
		size_t n = strcspn(p, "\r\n");

		buf_adds(out, "data: ");
		buf_add(out, p, n);
		buf_addch(out, '\n');
		p += n;
		if (!*p)
			break;
		p += p[0] == '\r' && p[1] == '\n' ? 2 : 1;
	}
	buf_addch(out, '\n');
}

int http_stream_send(struct http_stream *st, const char *event, const char *data)
{
	return http_stream_post(st, &(struct http_event){ .event = event, .data = data });
}

int http_stream_post(struct http_stream *st, const struct http_event *ev)
{
	struct http_server *s = st->call->s;
	struct buf frame = BUF_INIT;
	int rc;

	/* an id with a NUL's stand-in or a line break would end its field
	 * early, and the client would resume from the wrong place */
	if ((ev->event && strpbrk(ev->event, "\r\n")) || (ev->id && strpbrk(ev->id, "\r\n")))
		return SL_E_USAGE;
	event_frame(&frame, ev);
	pthread_mutex_lock(&s->mu);
	rc = st->open ? stream_push_locked(st, frame.buf, frame.len) : SL_E_IO;
	pthread_mutex_unlock(&s->mu);
	buf_release(&frame);
	return rc;
}

void http_stream_close(struct http_stream *st)
{
	struct http_call *c = st->call;

	pthread_mutex_lock(&c->s->mu);
	if (st->open) {
		st->open = false;
		resume_locked(c);
	}
	c->owned = false;
	call_unlock_release(c);
}
