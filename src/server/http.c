/*
 * The HTTP server over libmicrohttpd (MHD): one internal poll thread, calls
 * answered from any thread through suspend/resume, server-sent events, and
 * the checks made before a handler sees a request. It must never block the
 * server thread: the only waits on it are for the server lock, which guards
 * bookkeeping only, and libmicrohttpd's own lock is only ever taken inside
 * ours (suspend, resume), never the other way round.
 */
#include "server/http.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"

#include <microhttpd.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

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
#define HTTP_IDLE_TIMEOUT_S 60
/* poll has no FD_SETSIZE ceiling; accept() failing at the process's file
 * limit is handled by libmicrohttpd */
#define HTTP_MAX_CONNECTIONS 10000
#define HTTP_STREAM_BLOCK 16384
#define HTTP_STREAM_BACKLOG ((size_t)1 << 20)
#define HTTP_STOP_GRACE_MS 2000

static const char content_json[] = "application/json";
/* what a JSON answer becomes when it cannot be encoded */
static const char json_broken[] =
	"{\"error\":\"internal error\",\"detail\":\"the answer could not be encoded as JSON\"}";

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
	struct MHD_Connection *conn;
	struct http_call *prev, *next; /* s->calls */
	enum call_state state;
	bool owned;
	bool suspended;  /* suspended by us: we owe it a resume */
	bool too_big;
	size_t dropped;  /* body bytes past max_body */
	unsigned status;
	struct MHD_Response *response; /* the answer, until the server thread queues it */
	/* method, path, then the header and the query name/value pairs, every
	 * string NUL-terminated: MHD's own copies go when the request ends,
	 * which stop may bring about while the owner still reads */
	struct buf req;
	size_t headers_at, query_at, nheaders, nquery;
	struct buf reply_headers; /* name/value pairs, NUL-terminated */
	size_t nreply_headers;
	struct buf body;
	struct http_stream stream;
};

struct http_server {
	struct MHD_Daemon *daemon;
	int port;
	http_handler handler;
	void *ctx;
	size_t max_body;
	bool has_token;
	unsigned char token_digest[SHA256_DIGEST_LENGTH];
	char *auth_prefix;
	pthread_t ticker; /* heartbeats */
	pthread_mutex_t mu;
	pthread_cond_t tick; /* wakes the ticker: a stream opened, stop */
	pthread_cond_t idle; /* inflight dropped to 0 */
	bool stopping, stopped;
	size_t inflight; /* calls past RECEIVING that MHD has not finished */
	size_t ncalls;   /* calls alive: a stopped server lives until its last */
	struct http_call *calls;
};

static void die_nomem(void)
{
	fputs("sluice: out of memory\n", stderr);
	abort();
}

/* ---- responses ---- */

static struct MHD_Response *text_response(const char *type, const char *body, size_t len,
					  enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, mode);

	if (!r)
		die_nomem();
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

static enum MHD_Result refuse_too_big(struct http_server *s, struct MHD_Connection *conn)
{
	char detail[96];

	snprintf(detail, sizeof(detail), "the body is limited to %zu bytes", s->max_body);
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

static struct http_call *call_new(struct http_server *s, struct MHD_Connection *conn,
				  const char *method, const char *path, size_t body_hint)
{
	struct http_call *c = calloc(1, sizeof(*c));

	if (!c)
		die_nomem();
	c->s = s;
	c->conn = conn;
	c->state = CALL_RECEIVING;
	buf_init(&c->req, 512);
	add_pair(&c->req, method, path);
	c->headers_at = c->req.len;
	c->nheaders = MHD_get_connection_values(conn, MHD_HEADER_KIND, copy_pair, &c->req);
	c->query_at = c->req.len;
	c->nquery = MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, copy_pair, &c->req);
	buf_init(&c->reply_headers, 0);
	buf_init(&c->body, body_hint);
	c->body.cap = s->max_body;
	buf_init(&c->stream.backlog, 0);
	c->stream.backlog.cap = HTTP_STREAM_BACKLOG;
	c->stream.call = c;
	return c;
}

static void call_free(struct http_call *c)
{
	if (c->response)
		MHD_destroy_response(c->response);
	buf_release(&c->req);
	buf_release(&c->reply_headers);
	buf_release(&c->body);
	buf_release(&c->stream.backlog);
	free(c);
}

static void server_free(struct http_server *s)
{
	pthread_cond_destroy(&s->tick);
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->mu);
	free(s->auth_prefix);
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
	pthread_mutex_lock(&c->s->mu);
	r = answer_locked(c, CALL_ANSWERED, status, r);
	c->owned = false;
	call_unlock_release(c);
	if (r)
		MHD_destroy_response(r);
}

/* ---- the server thread ---- */

/* NULL when path needs no token or the right one came, else why not. */
static const char *auth_refusal(const struct http_server *s, struct MHD_Connection *conn,
				const char *path)
{
	unsigned char got[SHA256_DIGEST_LENGTH];
	const char *h;

	if (!s->has_token || (s->auth_prefix && strncmp(path, s->auth_prefix,
							 strlen(s->auth_prefix))))
		return NULL;
	h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (!h || strncasecmp(h, "Bearer ", 7))
		return "this path needs an 'Authorization: Bearer' header";
	for (h += 7; *h == ' '; h++)
		;
	/* comparing digests keeps the time independent of where the tokens
	 * differ and of the token's length */
	SHA256((const unsigned char *)h, strlen(h), got);
	if (CRYPTO_memcmp(got, s->token_digest, sizeof(got)))
		return "the bearer token is not the server's";
	return NULL;
}

/* The first call for a request: its headers are in, its body not yet. An
 * answer queued now makes MHD close the connection, which only refusals
 * do. */
static enum MHD_Result call_begin(struct http_server *s, struct MHD_Connection *conn,
				  const char *method, const char *path, void **con_cls)
{
	const char *refusal = auth_refusal(s, conn, path);
	const char *length;
	unsigned long long announced = 0;
	struct http_call *c;

	if (refusal) {
		struct MHD_Response *r = error_response("unauthorized", refusal);

		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
		return refuse(conn, MHD_HTTP_UNAUTHORIZED, r);
	}
	length = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (length)
		announced = strtoull(length, NULL, 10);
	if (announced > s->max_body)
		return refuse_too_big(s, conn);
	/* room for what was announced, up to a point: a client announcing
	 * much and sending little must not hold much memory */
	c = call_new(s, conn, method, path,
		     (size_t)(announced < HTTP_BODY_HINT_MAX ? announced : HTTP_BODY_HINT_MAX));
	pthread_mutex_lock(&s->mu);
	if (s->stopping) {
		pthread_mutex_unlock(&s->mu);
		call_free(c);
		return refuse(conn, MHD_HTTP_SERVICE_UNAVAILABLE, stopping_response());
	}
	c->next = s->calls;
	if (s->calls)
		s->calls->prev = c;
	s->calls = c;
	s->ncalls++;
	pthread_mutex_unlock(&s->mu);
	*con_cls = c;
	return MHD_YES;
}

static enum MHD_Result call_take_body(struct http_call *c, const char *data, size_t len)
{
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

	(void)version;
	if (!c)
		return call_begin(s, conn, method, path, con_cls);
	if (*upload_size) {
		enum MHD_Result ret = call_take_body(c, upload, *upload_size);

		*upload_size = 0;
		return ret;
	}
	if (c->state == CALL_RECEIVING) {
		if (c->too_big)
			return refuse_too_big(s, conn);
		pthread_mutex_lock(&s->mu);
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

	(void)conn;
	(void)toe;
	if (!c)
		return;
	*con_cls = NULL;
	pthread_mutex_lock(&s->mu);
	if (c->state != CALL_RECEIVING && --s->inflight == 0)
		pthread_cond_broadcast(&s->idle);
	c->conn = NULL;
	c->stream.open = false;
	call_unlock_release(c);
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
	struct http_server *s = calloc(1, sizeof(*s));
	pthread_condattr_t attr;
	int fd, rc;

	if (!s)
		die_nomem();
	rc = listen_open(cfg->listen, &fd, &s->port, err);
	if (rc) {
		free(s);
		return rc;
	}
	s->handler = handler;
	s->ctx = ctx;
	s->max_body = cfg->max_body ? cfg->max_body : HTTP_DEFAULT_MAX_BODY;
	if (cfg->token) {
		s->has_token = true;
		SHA256((const unsigned char *)cfg->token, strlen(cfg->token), s->token_digest);
	}
	if (cfg->auth_prefix && !(s->auth_prefix = strdup(cfg->auth_prefix)))
		die_nomem();
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
		on_completed, s, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_IDLE_TIMEOUT_S,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONNECTIONS, MHD_OPTION_END);
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

const char *http_call_header(const struct http_call *c, const char *name)
{
	return find_pair(c->req.buf + c->headers_at, c->nheaders, name, true);
}

const char *http_call_query(const struct http_call *c, const char *name)
{
	return find_pair(c->req.buf + c->query_at, c->nquery, name, false);
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
	call_answer(c, (unsigned)status, error_response(error, detail));
}

struct http_stream *http_stream_open(struct http_call *c, int64_t heartbeat_ms)
{
	struct http_stream *st = &c->stream;
	struct MHD_Response *r = MHD_create_response_from_callback(
		MHD_SIZE_UNKNOWN, HTTP_STREAM_BLOCK, stream_read, st, NULL);

	if (!r)
		die_nomem();
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
static void event_frame(struct buf *out, const char *event, const char *data)
{
	const char *p = data ? data : "";

	if (event)
		buf_addf(out, "event: %s\n", event);
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
	struct http_server *s = st->call->s;
	struct buf frame = BUF_INIT;
	int rc;

	if (event && strpbrk(event, "\r\n"))
		return SL_E_USAGE;
	event_frame(&frame, event, data);
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
