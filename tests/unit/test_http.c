/*
 * The HTTP server (src/server/http.c) on 127.0.0.1, talked to through raw
 * sockets so that every byte on the wire can be checked: answers now and
 * later, keep-alive, the refusals made without the handler (400 for paths
 * and framing, 401, 413, 503), slow clients cut off, event streams, and
 * stopping with calls and streams still open.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MAX_BODY 1024
#define TOKEN "s3cret"

/* ---- the server side: a handler with a few routes ---- */

struct fx {
	struct http_server *s;
	int port;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int handled;
	struct http_call *held[8]; /* /later calls, in arrival order */
	int nheld;
	struct http_stream *stream; /* the last /events stream */
};

static const char *or_none(const char *s)
{
	return s ? s : "(none)";
}

static void handle(void *ctx, struct http_call *c)
{
	struct fx *f = ctx;
	const char *path = http_call_path(c);
	char text[512];
	size_t len;

	pthread_mutex_lock(&f->mu);
	f->handled++;
	pthread_mutex_unlock(&f->mu);
	if (!strcmp(path, "/hello") || !strcmp(path, "/api/hello")) {
		http_reply(c, 200, "text/plain", "hello", 5);
	} else if (!strcmp(path, "/echo")) {
		const char *body = http_call_body(c, &len);

		http_reply(c, 200, "application/octet-stream", body, len);
	} else if (!strcmp(path, "/seen")) {
		snprintf(text, sizeof(text), "%s %s a=%s b=%s flag=[%s] none=%s x-test=%s body=[%s]",
			 http_call_method(c), path, or_none(http_call_query(c, "a")),
			 or_none(http_call_query(c, "b")), or_none(http_call_query(c, "flag")),
			 or_none(http_call_query(c, "none")),
			 or_none(http_call_header(c, "x-test")), http_call_body(c, NULL));
		http_reply(c, 200, "text/plain", text, strlen(text));
	} else if (!strcmp(path, "/error")) {
		http_reply_error(c, 404, "not found", "no route for '/error'");
	} else if (!strcmp(path, "/error-bare")) {
		http_reply_error(c, 409, "conflict", NULL);
	} else if (!strcmp(path, "/json")) {
		http_call_add_header(c, "Retry-After", "7");
		http_reply_json(c, 429, json_pack("{s:i}", "n", 1));
	} else if (!strcmp(path, "/json-null")) {
		http_reply_json(c, 200, NULL);
	} else if (!strcmp(path, "/sl-err")) {
		struct sl_err err = SL_ERR_INIT;

		sl_err_set(&err, atoi(or_none(http_call_query(c, "code"))), "it failed");
		http_reply_sl_err(c, &err);
	} else if (!strcmp(path, "/error-bytes")) {
		http_reply_error(c, 400, "bad request", "unexpected byte \xff");
	} else if (!strcmp(path, "/events")) {
		struct http_stream *st = http_stream_open(c, atoi(or_none(http_call_query(c, "hb"))));

		pthread_mutex_lock(&f->mu);
		f->stream = st;
		pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
	} else if (!strcmp(path, "/later")) {
		pthread_mutex_lock(&f->mu);
		f->held[f->nheld++] = c;
		pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
	} else {
		http_reply_error(c, 404, "not found", path);
	}
}

static void fx_wait(struct fx *f, int held, bool stream)
{
	int64_t deadline = units_mono_ms() + 5000;

	pthread_mutex_lock(&f->mu);
	while ((f->nheld < held || (stream && !f->stream)) && units_mono_ms() < deadline) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&f->cv, &f->mu, &ts);
	}
	pthread_mutex_unlock(&f->mu);
	assert_true(f->nheld >= held);
	assert_true(!stream || f->stream);
}

static int handled(struct fx *f)
{
	int n;

	pthread_mutex_lock(&f->mu);
	n = f->handled;
	pthread_mutex_unlock(&f->mu);
	return n;
}

static struct fx *fx_start_with(struct http_config cfg)
{
	struct sl_err err = SL_ERR_INIT;
	struct fx *f = calloc(1, sizeof(*f));

	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	if (http_server_start(&cfg, handle, f, &f->s, &err)) {
		fprintf(stderr, "cannot start the server: %s\n", err.msg);
		return NULL;
	}
	f->port = http_server_port(f->s);
	return f;
}

static struct fx *fx_start(void)
{
	return fx_start_with((struct http_config){ .listen = "127.0.0.1:0", .max_body = MAX_BODY,
						   .token = TOKEN, .auth_segment = "api" });
}

static void fx_free(struct fx *f)
{
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	free(f);
}

static int setup(void **state)
{
	*state = fx_start();
	return *state ? 0 : -1;
}

/* Impatient limits, so that slow clients are cut off within a test. */
/* With a token, as the guard answers a server without one only for
 * requests addressed to an IP address or localhost, and these send Host: t. */
static int setup_impatient(void **state)
{
	*state = fx_start_with((struct http_config){ .listen = "127.0.0.1:0",
						     .max_body = MAX_BODY,
						     .token = TOKEN, .auth_segment = "api",
						     .header_timeout_ms = 300,
						     .idle_timeout_ms = 600,
						     .min_body_rate = 100,
						     .max_client_connections = 4 });
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	http_server_stop(f->s);
	fx_free(f);
	return 0;
}

/* ---- the client side: raw HTTP/1.1 over a socket ---- */

struct client {
	int fd;
	size_t len;
	char in[1 << 16];
};

struct response {
	int status;
	char head[4096]; /* "\n", then "name: value\n" per header */
	struct buf body;
};

static struct client *client_open(int port)
{
	struct client *cl = calloc(1, sizeof(*cl));
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { .tv_sec = 5 };

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cl->fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(cl->fd >= 0);
	/* a server that never answers fails the test instead of hanging it */
	setsockopt(cl->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(cl->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return cl;
}

static void client_close(struct client *cl)
{
	close(cl->fd);
	free(cl);
}

static void client_send(struct client *cl, const char *text)
{
	size_t len = strlen(text);

	while (len) {
		ssize_t n = send(cl->fd, text, len, MSG_NOSIGNAL);

		assert_true(n > 0);
		text += n;
		len -= (size_t)n;
	}
}

/* Reads more; false at the end of the connection or after 5 s. */
static bool client_fill(struct client *cl)
{
	ssize_t n = recv(cl->fd, cl->in + cl->len, sizeof(cl->in) - cl->len - 1, 0);

	if (n <= 0)
		return false;
	cl->len += (size_t)n;
	return true;
}

/* Moves n buffered bytes to out (may be NULL). */
static void client_take(struct client *cl, size_t n, struct buf *out)
{
	if (out)
		buf_add(out, cl->in, n);
	memmove(cl->in, cl->in + n, cl->len - n);
	cl->len -= n;
}

static bool client_line(struct client *cl, char *line, size_t size)
{
	char *eol;
	size_t n;

	while (!(eol = memmem(cl->in, cl->len, "\r\n", 2)))
		if (!client_fill(cl))
			return false;
	n = (size_t)(eol - cl->in);
	assert_true(n < size);
	memcpy(line, cl->in, n);
	line[n] = '\0';
	client_take(cl, n + 2, NULL);
	return true;
}

static bool has_header(const struct response *r, const char *line)
{
	char want[256];

	snprintf(want, sizeof(want), "\n%s\n", line);
	return strcasestr(r->head, want) != NULL;
}

static void read_head(struct client *cl, struct response *r)
{
	char line[1024];

	assert_true(client_line(cl, line, sizeof(line)));
	assert_int_equal(sscanf(line, "HTTP/1.1 %d", &r->status), 1);
	strcpy(r->head, "\n");
	while (client_line(cl, line, sizeof(line)) && line[0]) {
		assert_true(strlen(r->head) + strlen(line) + 2 < sizeof(r->head));
		strcat(r->head, line);
		strcat(r->head, "\n");
	}
	buf_init(&r->body, 0);
}

/* Appends one chunk of a chunked body to out; its size (0: the last one),
 * or -1 when the connection ended first. */
static long read_chunk(struct client *cl, struct buf *out)
{
	char line[64];
	long n;

	if (!client_line(cl, line, sizeof(line)))
		return -1;
	n = strtol(line, NULL, 16);
	while (cl->len < (size_t)n + 2)
		if (!client_fill(cl))
			return -1;
	client_take(cl, (size_t)n, out);
	client_take(cl, 2, NULL);
	return n;
}

static void read_response(struct client *cl, struct response *r)
{
	const char *length;

	read_head(cl, r);
	if (has_header(r, "Transfer-Encoding: chunked")) {
		while (read_chunk(cl, &r->body) > 0)
			;
		return;
	}
	length = strcasestr(r->head, "\ncontent-length: ");
	assert_non_null(length);
	for (size_t n = strtoul(length + 17, NULL, 10); cl->len < n;)
		assert_true(client_fill(cl));
	client_take(cl, strtoul(length + 17, NULL, 10), &r->body);
}

/* One request on its own connection. */
static void roundtrip(int port, const char *request, struct response *r)
{
	struct client *cl = client_open(port);

	client_send(cl, request);
	read_response(cl, r);
	client_close(cl);
}

static bool nothing_arrived(struct client *cl)
{
	char c;

	return recv(cl->fd, &c, 1, MSG_DONTWAIT | MSG_PEEK) < 0 && errno == EAGAIN;
}

static json_t *json_body(const struct response *r)
{
	json_t *doc = json_loadb(r->body.buf, r->body.len, 0, NULL);

	assert_non_null(doc);
	return doc;
}

static void assert_error_body(const struct response *r, const char *error)
{
	json_t *doc = json_body(r);

	assert_true(has_header(r, "Content-Type: application/json"));
	assert_int_equal(json_object_size(doc), 2);
	assert_string_equal(json_string_value(json_object_get(doc, "error")), error);
	assert_non_null(json_object_get(doc, "detail"));
	json_decref(doc);
}

/* ---- tests ---- */

static void test_answer_at_once(void **state)
{
	struct fx *f = *state;
	struct response r;

	assert_true(f->port > 0);
	roundtrip(f->port, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 200);
	assert_true(has_header(&r, "Content-Type: text/plain"));
	assert_string_equal(r.body.buf, "hello");
	buf_release(&r.body);
}

static void test_request_accessors(void **state)
{
	struct fx *f = *state;
	struct response r;

	roundtrip(f->port,
		  "POST /seen?a=1&b=two%20words&flag HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		  "X-Test: yes\r\nContent-Length: 4\r\n\r\nbody",
		  &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body.buf, "POST /seen a=1 b=two words flag=[] none=(none) "
					"x-test=yes body=[body]");
	buf_release(&r.body);
}

static void test_answer_later_out_of_order(void **state)
{
	struct fx *f = *state;
	struct client *cl[3];
	struct response r;
	char request[128];

	for (int i = 0; i < 3; i++) {
		cl[i] = client_open(f->port);
		snprintf(request, sizeof(request), "GET /later?n=%d HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", i);
		client_send(cl[i], request);
		fx_wait(f, i + 1, false);
	}
	for (int i = 0; i < 3; i++)
		assert_true(nothing_arrived(cl[i]));
	/* answered last to first, from this thread: each client gets its own
	 * answer, the others keep waiting */
	for (int i = 2; i >= 0; i--) {
		const char *n = http_call_query(f->held[i], "n");

		http_reply(f->held[i], 200, "text/plain", n, strlen(n));
		read_response(cl[i], &r);
		assert_int_equal(r.status, 200);
		snprintf(request, sizeof(request), "%d", i);
		assert_string_equal(r.body.buf, request);
		buf_release(&r.body);
		for (int j = 0; j < i; j++)
			assert_true(nothing_arrived(cl[j]));
	}
	for (int i = 0; i < 3; i++)
		client_close(cl[i]);
}

static void *answer_from_thread(void *arg)
{
	http_reply_error(arg, 503, "busy", "try again");
	return NULL;
}

static void test_keep_alive(void **state)
{
	struct fx *f = *state;
	struct client *cl = client_open(f->port);
	struct response r;
	pthread_t t;

	client_send(cl, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
	read_response(cl, &r);
	assert_int_equal(r.status, 200);
	assert_false(has_header(&r, "Connection: close"));
	buf_release(&r.body);

	client_send(cl, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc");
	read_response(cl, &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body.buf, "abc");
	assert_false(has_header(&r, "Connection: close"));
	buf_release(&r.body);

	/* an answer posted by another thread, on the same connection */
	client_send(cl, "GET /later HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
	fx_wait(f, 1, false);
	pthread_create(&t, NULL, answer_from_thread, f->held[0]);
	pthread_join(t, NULL);
	read_response(cl, &r);
	assert_int_equal(r.status, 503);
	assert_error_body(&r, "busy");
	assert_false(has_header(&r, "Connection: close"));
	buf_release(&r.body);

	client_send(cl, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
	read_response(cl, &r);
	assert_int_equal(r.status, 200);
	buf_release(&r.body);
	client_close(cl);
	assert_int_equal(handled(f), 4);
}

static void test_too_big_by_length(void **state)
{
	struct fx *f = *state;
	struct response r;

	roundtrip(f->port, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n", &r);
	assert_int_equal(r.status, 413);
	assert_error_body(&r, "payload too large");
	buf_release(&r.body);
	assert_int_equal(handled(f), 0);
}

static void test_too_big_chunked(void **state)
{
	struct fx *f = *state;
	struct client *cl = client_open(f->port);
	struct response r;
	char chunk[600];
	int head;

	/* within the limit: the handler gets the whole body */
	client_send(cl, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
			"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
	read_response(cl, &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body.buf, "abcde");
	buf_release(&r.body);

	/* growing past it: refused, and the connection stays usable */
	head = snprintf(chunk, sizeof(chunk), "%x\r\n", 500);
	memset(chunk + head, 'x', 500);
	strcpy(chunk + head + 500, "\r\n");
	client_send(cl, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n");
	for (int i = 0; i < 3; i++)
		client_send(cl, chunk);
	client_send(cl, "0\r\n\r\n");
	read_response(cl, &r);
	assert_int_equal(r.status, 413);
	assert_error_body(&r, "payload too large");
	buf_release(&r.body);
	assert_int_equal(handled(f), 1);

	client_send(cl, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
	read_response(cl, &r);
	assert_int_equal(r.status, 200);
	buf_release(&r.body);
	client_close(cl);
}

static void test_too_big_chunked_cut_off(void **state)
{
	struct fx *f = *state;
	struct client *cl = client_open(f->port);
	static char chunk[(64 << 10) + 16];
	size_t sent = 0;
	ssize_t n;
	int head;

	head = snprintf(chunk, sizeof(chunk), "%x\r\n", 64 << 10);
	memset(chunk + head, 'x', 64 << 10);
	strcpy(chunk + head + (64 << 10), "\r\n");
	client_send(cl, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n");
	/* a sender going on far past the limit is dropped without an answer;
	 * loopback buffers may take all of it before the server even reads */
	while (sent < ((size_t)3 << 20) &&
	       send(cl->fd, chunk, strlen(chunk), MSG_NOSIGNAL) == (ssize_t)strlen(chunk))
		sent += strlen(chunk);
	n = recv(cl->fd, cl->in, 1, 0);
	assert_true(n == 0 || (n < 0 && errno == ECONNRESET));
	client_close(cl);
	assert_int_equal(handled(f), 0);
}

static void test_bearer_token(void **state)
{
	struct fx *f = *state;
	struct response r;

	roundtrip(f->port, "GET /api/hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 401);
	assert_error_body(&r, "unauthorized");
	assert_true(has_header(&r, "WWW-Authenticate: Bearer"));
	buf_release(&r.body);

	roundtrip(f->port,
		  "GET /api/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cre\r\n\r\n", &r);
	assert_int_equal(r.status, 401);
	assert_error_body(&r, "unauthorized");
	buf_release(&r.body);

	roundtrip(f->port, "GET /api/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic czNjcmV0\r\n\r\n",
		  &r);
	assert_int_equal(r.status, 401);
	buf_release(&r.body);

	/* a path that could be read two ways is refused before the check */
	roundtrip(f->port, "GET /%61pi/hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 400);
	buf_release(&r.body);
	roundtrip(f->port, "GET //api/hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 400);
	buf_release(&r.body);
	assert_int_equal(handled(f), 0);

	roundtrip(f->port,
		  "GET /api/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\n\r\n", &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body.buf, "hello");
	buf_release(&r.body);

	roundtrip(f->port,
		  "GET /api/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nauthorization: bearer s3cret\r\n\r\n", &r);
	assert_int_equal(r.status, 200);
	buf_release(&r.body);

	/* outside the prefix no token is needed */
	roundtrip(f->port, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 200);
	buf_release(&r.body);
	assert_int_equal(handled(f), 3);
}

/* The status a failure's code answers: a warehouse that cannot be reached
 * or is busy is a 503 to retry, whatever the route. */
static void test_sl_err_answers(void **state)
{
	static const struct {
		int code, status;
		bool retry;
	} cases[] = {
		{ SL_E_CONN, 503, true },
		{ SL_E_BUSY, 503, true },
		{ SL_E_NOTFOUND, 404, false },
		{ SL_E_INTERNAL, 500, false },
	};
	struct fx *f = *state;
	struct response r;
	char req[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		snprintf(req, sizeof(req), "GET /sl-err?code=%d HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
			 cases[i].code);
		roundtrip(f->port, req, &r);
		assert_int_equal(r.status, cases[i].status);
		assert_int_equal(has_header(&r, "Retry-After: 1"), cases[i].retry);
		assert_error_body(&r, sl_code_text(cases[i].code));
		/* the server's own failure names the request, not its query */
		assert_int_equal(strstr(r.body.buf, "it failed\\n  in request GET /sl-err\"") != NULL,
				 cases[i].status == 500);
		assert_null(strstr(r.body.buf, "code="));
		buf_release(&r.body);
	}
}

static void test_json_answers(void **state)
{
	struct fx *f = *state;
	struct response r;
	json_t *doc;

	roundtrip(f->port, "GET /error HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 404);
	assert_error_body(&r, "not found");
	doc = json_body(&r);
	assert_string_equal(json_string_value(json_object_get(doc, "detail")),
			    "no route for '/error'");
	json_decref(doc);
	buf_release(&r.body);

	roundtrip(f->port, "GET /error-bare HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 409);
	assert_error_body(&r, "conflict");
	doc = json_body(&r);
	assert_true(json_is_null(json_object_get(doc, "detail")));
	json_decref(doc);
	buf_release(&r.body);

	/* a detail that is not UTF-8 cannot be JSON: the error still is */
	roundtrip(f->port, "GET /error-bytes HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 400);
	assert_error_body(&r, "bad request");
	buf_release(&r.body);

	roundtrip(f->port, "GET /json-null HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 500);
	assert_error_body(&r, "internal error");
	buf_release(&r.body);

	roundtrip(f->port, "GET /json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 429);
	assert_true(has_header(&r, "Retry-After: 7"));
	assert_true(has_header(&r, "Content-Type: application/json"));
	assert_string_equal(r.body.buf, "{\"n\":1}");
	buf_release(&r.body);
}

/* Reads stream chunks until text shows up; heartbeats are dropped
 * unless text is one. */
static void read_until(struct client *cl, struct buf *got, const char *text)
{
	while (!strstr(got->buf, text)) {
		struct buf chunk = BUF_INIT;
		char *beat;

		assert_true(read_chunk(cl, &chunk) > 0);
		while (strcmp(text, ": ping\n\n") && (beat = strstr(chunk.buf, ": ping\n\n"))) {
			memmove(beat, beat + 8, strlen(beat + 8) + 1);
			chunk.len -= 8;
		}
		buf_add(got, chunk.buf, chunk.len);
		buf_release(&chunk);
	}
}

static void test_event_stream(void **state)
{
	struct fx *f = *state;
	struct client *cl = client_open(f->port);
	struct response r;
	struct buf got = BUF_INIT;
	struct http_stream *st;

	client_send(cl, "GET /events?hb=50 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
	read_head(cl, &r);
	assert_int_equal(r.status, 200);
	assert_true(has_header(&r, "Content-Type: text/event-stream"));
	assert_true(has_header(&r, "Cache-Control: no-cache"));
	fx_wait(f, 0, true);
	st = f->stream;

	assert_int_equal(http_stream_send(st, "tick", "1"), 0);
	assert_int_equal(http_stream_send(st, NULL, "line1\nline2\r\nline3"), 0);
	assert_int_equal(http_stream_send(st, "done", "x"), 0);
	assert_int_equal(http_stream_send(st, "bad\nname", "x"), SL_E_USAGE);
	read_until(cl, &got, "event: done\ndata: x\n\n");
	assert_string_equal(got.buf, "event: tick\ndata: 1\n\n"
				     "data: line1\ndata: line2\ndata: line3\n\n"
				     "event: done\ndata: x\n\n");
	/* an id (what a client sends back as Last-Event-ID) and a retry */
	buf_reset(&got);
	assert_int_equal(http_stream_post(st, &(struct http_event){ .id = "ab-7", .event = "e",
								  .data = "d", .retry_ms = 500 }),
			 0);
	assert_int_equal(http_stream_post(st, &(struct http_event){ .id = "a\nb", .data = "d" }),
			 SL_E_USAGE);
	read_until(cl, &got, "data: d\n\n");
	assert_string_equal(got.buf, "retry: 500\nid: ab-7\nevent: e\ndata: d\n\n");

	/* quiet for a while: heartbeats */
	buf_reset(&got);
	read_until(cl, &got, ": ping\n\n");

	http_stream_close(st);
	while (read_chunk(cl, &got) > 0)
		;
	assert_true(strstr(got.buf, ": ping\n\n") != NULL);
	buf_release(&got);
	client_close(cl);
}

static void test_event_stream_opened_later(void **state)
{
	struct fx *f = *state;
	struct client *cl = client_open(f->port);
	struct response r;
	struct buf got = BUF_INIT;
	struct http_stream *st;

	client_send(cl, "GET /later HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
	fx_wait(f, 1, false);
	st = http_stream_open(f->held[0], 0);
	read_head(cl, &r);
	assert_int_equal(r.status, 200);
	assert_true(has_header(&r, "Content-Type: text/event-stream"));
	assert_int_equal(http_stream_send(st, "hello", "world"), 0);
	read_until(cl, &got, "event: hello\ndata: world\n\n");
	http_stream_close(st);
	assert_int_equal(read_chunk(cl, &got), 0);
	buf_release(&got);
	client_close(cl);
}

static void test_event_stream_client_gone(void **state)
{
	struct fx *f = *state;
	struct client *cl = client_open(f->port);
	struct response r;
	int64_t deadline;
	int rc = 0;

	client_send(cl, "GET /events?hb=20 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
	read_head(cl, &r);
	fx_wait(f, 0, true);
	client_close(cl);
	/* the next writes, heartbeats in between the events, find out */
	deadline = units_mono_ms() + 5000;
	while (!rc && units_mono_ms() < deadline) {
		usleep(100000);
		rc = http_stream_send(f->stream, "tick", "1");
	}
	assert_int_equal(rc, SL_E_IO);
	http_stream_close(f->stream);
}

static void test_stop_answers_what_waits(void **state)
{
	struct fx *f = *state;
	struct client *held[2], *streaming, *uploading, *idle;
	struct response r;
	struct buf got = BUF_INIT;
	int64_t t0;

	for (int i = 0; i < 2; i++) {
		held[i] = client_open(f->port);
		client_send(held[i], "GET /later HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
		fx_wait(f, i + 1, false);
	}
	streaming = client_open(f->port);
	client_send(streaming, "GET /events?hb=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
	read_head(streaming, &r);
	fx_wait(f, 2, true);
	assert_int_equal(http_stream_send(f->stream, "a", "1"), 0);
	uploading = client_open(f->port);
	client_send(uploading, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nabc");
	idle = client_open(f->port);

	t0 = units_mono_ms();
	http_server_stop(f->s);
	assert_true(units_mono_ms() - t0 < 1500);

	for (int i = 0; i < 2; i++) {
		read_response(held[i], &r);
		assert_int_equal(r.status, 503);
		assert_error_body(&r, "service unavailable");
		assert_true(has_header(&r, "Connection: close"));
		buf_release(&r.body);
		client_close(held[i]);
	}
	while (read_chunk(streaming, &got) > 0)
		;
	assert_string_equal(got.buf, "event: a\ndata: 1\n\n");
	buf_release(&got);
	client_close(streaming);
	client_close(uploading);
	client_close(idle);

	/* the owners still hold their calls: answers are dropped, events
	 * fail, and letting go frees the last of the server */
	http_reply(f->held[0], 200, "text/plain", "late", 4);
	http_reply_error(f->held[1], 500, "late", NULL);
	assert_int_equal(http_stream_send(f->stream, "b", "2"), SL_E_IO);
	http_stream_close(f->stream);
	fx_free(f);
}

static void test_path_parse(void **state)
{
	static const struct {
		const char *target;
		int rc;
		size_t n;
		const char *last;
	} cases[] = {
		{ "/", 0, 0, NULL },
		{ "/api", 0, 1, "api" },
		{ "/api/live/status", 0, 3, "status" },
		{ "/api/live/status?x=%2F&y", 0, 3, "status" },
		{ "/a-b_c.d~e/f:g@h!$&'()*+,;=", 0, 2, "f:g@h!$&'()*+,;=" },
		{ "/a/b/c/d/e/f/g/h", 0, 8, "h" },
		{ "", SL_E_PARSE, 0, NULL },
		{ "api/live", SL_E_PARSE, 0, NULL },
		{ "*", SL_E_PARSE, 0, NULL },
		{ "//api/live/stop", SL_E_PARSE, 0, NULL },
		{ "/api//live", SL_E_PARSE, 0, NULL },
		{ "/api/live/", SL_E_PARSE, 0, NULL },
		{ "/api/./live", SL_E_PARSE, 0, NULL },
		{ "/api/../live", SL_E_PARSE, 0, NULL },
		{ "/..", SL_E_PARSE, 0, NULL },
		{ "/api/%6Cive", SL_E_PARSE, 0, NULL },
		{ "/api/ev%00x", SL_E_PARSE, 0, NULL },
		{ "/api/l ive", SL_E_PARSE, 0, NULL },
		{ "/api/l\tive", SL_E_PARSE, 0, NULL },
		{ "/api/l\xc3\xa9", SL_E_PARSE, 0, NULL },
		{ "/api/a#b", SL_E_PARSE, 0, NULL },
		{ "/api/a\\b", SL_E_PARSE, 0, NULL },
		{ "/a/b/c/d/e/f/g/h/i", SL_E_TOOBIG, 0, NULL },
	};
	struct http_path path;
	char long_path[HTTP_PATH_MAX + 8];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sl_err err = SL_ERR_INIT;
		int rc = http_path_parse(cases[i].target, &path, &err);

		if (rc != cases[i].rc)
			fail_msg("'%s': %d, want %d (%s)", cases[i].target, rc, cases[i].rc, err.msg);
		if (rc) {
			assert_true(err.msg[0] != '\0');
			continue;
		}
		assert_int_equal(path.n, cases[i].n);
		if (cases[i].last)
			assert_string_equal(path.seg[path.n - 1], cases[i].last);
	}
	long_path[0] = '/';
	memset(long_path + 1, 'a', HTTP_PATH_MAX);
	long_path[HTTP_PATH_MAX + 1] = '\0';
	assert_int_equal(http_path_parse(long_path, &path, NULL), SL_E_TOOBIG);
	long_path[HTTP_PATH_MAX - 1] = '\0';
	assert_int_equal(http_path_parse(long_path, &path, NULL), 0);
}

/* The answer, and that the server closed the connection after it. */
static void assert_refused_closing(struct fx *f, const char *request, int status,
				   const char *error)
{
	struct client *cl = client_open(f->port);
	struct response r;

	client_send(cl, request);
	read_response(cl, &r);
	if (r.status != status)
		fail_msg("%s: %d, want %d", request, r.status, status);
	assert_error_body(&r, error);
	assert_true(has_header(&r, "Connection: close"));
	buf_release(&r.body);
	assert_false(client_fill(cl));
	client_close(cl);
}

static void test_path_refusals(void **state)
{
	struct fx *f = *state;
	static char huge[HTTP_PATH_MAX + 64];
	char target[HTTP_PATH_MAX + 16];

	assert_refused_closing(f, "POST //api/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n",
			       400, "bad path");
	assert_refused_closing(f, "GET /api/./hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "bad path");
	assert_refused_closing(f, "GET /hello/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "bad path");
	assert_refused_closing(f, "GET /h%65llo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "bad path");
	assert_refused_closing(f, "GET /a/b/c/d/e/f/g/h/i HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 404,
			       "not found");
	memset(target, 'x', sizeof(target) - 1);
	target[0] = '/';
	target[sizeof(target) - 1] = '\0';
	snprintf(huge, sizeof(huge), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", target);
	assert_refused_closing(f, huge, 414, "path too long");
	assert_int_equal(handled(f), 0);
}

/* A NUL in the request line cannot be sent as a C string. */
static void test_path_with_nul(void **state)
{
	struct fx *f = *state;
	static const char request[] = "GET /hello\0x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
	struct client *cl = client_open(f->port);
	struct response r;

	assert_int_equal(send(cl->fd, request, sizeof(request) - 1, MSG_NOSIGNAL),
			 (ssize_t)sizeof(request) - 1);
	read_response(cl, &r);
	assert_int_equal(r.status, 400);
	assert_error_body(&r, "bad path");
	buf_release(&r.body);
	client_close(cl);
	assert_int_equal(handled(f), 0);
}

static void test_header_refusals(void **state)
{
	struct fx *f = *state;

	/* the bytes after the first length must never be served as a request */
	assert_refused_closing(f,
			       "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
			       "Content-Length: 38\r\n\r\nabGET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
			       400, "bad headers");
	assert_refused_closing(f,
			       "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
			       "Transfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n",
			       400, "bad headers");
	assert_refused_closing(f,
			       "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n",
			       400, "bad headers");
	assert_refused_closing(f,
			       "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
			       "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
			       400, "bad headers");
	/* a name a proxy may take for Transfer-Encoding, MHD for another */
	assert_refused_closing(f,
			       "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding : chunked\r\n"
			       "\r\n0\r\n\r\n",
			       400, "bad headers");
	/* which token or host counts must not depend on who reads */
	assert_refused_closing(f,
			       "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer a\r\n"
			       "Authorization: Bearer s3cret\r\n\r\n",
			       400, "bad headers");
	assert_refused_closing(f, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: u\r\n\r\n", 400,
			       "bad headers");
	assert_int_equal(handled(f), 0);
}

/* Milliseconds until the server ends the connection, or -1 after 5 s. */
static int64_t ms_until_closed(struct client *cl)
{
	int64_t start = units_mono_ms();
	char c;
	ssize_t n = recv(cl->fd, &c, 1, 0);

	return n == 0 || (n < 0 && errno == ECONNRESET) ? units_mono_ms() - start : -1;
}

static void assert_served(struct fx *f)
{
	struct response r;

	roundtrip(f->port, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", &r);
	assert_int_equal(r.status, 200);
	buf_release(&r.body);
}

static void test_slow_headers_cut(void **state)
{
	struct fx *f = *state;
	struct client *slow = client_open(f->port);
	int64_t ms;

	client_send(slow, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
	for (int i = 0; i < 3; i++) {
		/* trickling keeps an idle timer alive, never the deadline */
		usleep(80 * 1000);
		client_send(slow, "a");
	}
	assert_served(f);
	ms = ms_until_closed(slow);
	assert_true(ms >= 0);
	assert_true(ms < 2000);
	client_close(slow);
	assert_served(f);
	assert_int_equal(handled(f), 2);
}

static void test_slow_body_cut(void **state)
{
	struct fx *f = *state;
	struct client *slow = client_open(f->port);
	struct client *quick = client_open(f->port);
	struct response r;
	int64_t ms;

	/* 100 bytes/s after a grace of 300 ms: 10 bytes buy 100 ms more */
	client_send(slow, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 900\r\n\r\n0123456789");
	client_send(quick, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 20\r\n\r\n0123456789");
	usleep(200 * 1000);
	client_send(quick, "0123456789");
	read_response(quick, &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body.buf, "01234567890123456789");
	buf_release(&r.body);
	client_close(quick);
	ms = ms_until_closed(slow);
	assert_true(ms >= 0);
	assert_true(ms < 2000);
	client_close(slow);
}

static void test_idle_cut(void **state)
{
	struct fx *f = *state;
	struct client *idle = client_open(f->port);
	int64_t start = units_mono_ms(), ms;

	/* a request answered, then nothing: the connection goes idle_timeout
	 * after the answer */
	client_send(idle, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
	{
		struct response r;

		read_response(idle, &r);
		buf_release(&r.body);
	}
	ms = ms_until_closed(idle);
	assert_true(ms >= 0);
	assert_true(units_mono_ms() - start >= 500);
	client_close(idle);
}

static void test_client_connection_cap(void **state)
{
	struct fx *f = *state;
	struct client *held[4], *over;

	for (int i = 0; i < 4; i++) {
		held[i] = client_open(f->port);
		client_send(held[i], "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
		{
			struct response r;

			read_response(held[i], &r);
			assert_int_equal(r.status, 200);
			buf_release(&r.body);
		}
	}
	/* one more from the same address is closed at once */
	over = client_open(f->port);
	assert_true(ms_until_closed(over) >= 0);
	client_close(over);
	client_close(held[0]);
	usleep(100 * 1000);
	assert_served(f);
	for (int i = 1; i < 4; i++)
		client_close(held[i]);
}

static void test_listen_errors(void **state)
{
	struct fx *f = *state;
	struct http_server *s;
	struct sl_err err = SL_ERR_INIT;
	char addr[64], want[160];
	struct http_config cfg = { .listen = addr };

	snprintf(addr, sizeof(addr), "127.0.0.1:%d", f->port);
	assert_int_equal(http_server_start(&cfg, handle, f, &s, &err), SL_E_IO);
	snprintf(want, sizeof(want), "cannot listen on '%s': Address already in use", addr);
	assert_string_equal(err.msg, want);

	strcpy(addr, "localhost");
	assert_int_equal(http_server_start(&cfg, handle, f, &s, &err), SL_E_CONFIG);
	assert_non_null(strstr(err.msg, "invalid listen address 'localhost'"));
	strcpy(addr, "127.0.0.1:99999");
	assert_int_equal(http_server_start(&cfg, handle, f, &s, &err), SL_E_CONFIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_answer_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_request_accessors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sl_err_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answer_later_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_alive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_big_by_length, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_big_chunked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_big_chunked_cut_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bearer_token, setup, teardown),
		cmocka_unit_test(test_path_parse),
		cmocka_unit_test_setup_teardown(test_path_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_with_nul, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_headers_cut, setup_impatient, teardown),
		cmocka_unit_test_setup_teardown(test_slow_body_cut, setup_impatient, teardown),
		cmocka_unit_test_setup_teardown(test_idle_cut, setup_impatient, teardown),
		cmocka_unit_test_setup_teardown(test_client_connection_cap, setup_impatient,
						teardown),
		cmocka_unit_test_setup_teardown(test_json_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_stream_opened_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_stream_client_gone, setup, teardown),
		cmocka_unit_test_setup(test_stop_answers_what_waits, setup),
		cmocka_unit_test_setup_teardown(test_listen_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
