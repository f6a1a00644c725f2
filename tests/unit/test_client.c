/*
 * The CLI's client of the loopback server (src/server/client.c) against
 * the real HTTP module on a free port: what a request carries (method,
 * path, token, an empty body; a body, a query and a content type), the
 * answer's status and JSON (or its bytes, and whether it was cut), a path that
 * cannot turn into a query, a proxy in the environment left alone, and
 * the failures: refused, not HTTP, an answer too big.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "server/client.h"
#include "server/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- the server: routes that answer, and what the last request carried ---- */

struct server {
	struct http_server *s;
	int port;
	pthread_mutex_t mu;
	int requests;
	char method[16], path[256], auth[256], type[256], length[32], body[256], query[64];
};

static void copy_or_none(char *to, size_t size, const char *s)
{
	snprintf(to, size, "%s", s ? s : "(none)");
}

static void handle(void *ctx, struct http_call *c)
{
	struct server *sv = ctx;
	const char *path = http_call_path(c);

	pthread_mutex_lock(&sv->mu);
	sv->requests++;
	copy_or_none(sv->method, sizeof(sv->method), http_call_method(c));
	copy_or_none(sv->path, sizeof(sv->path), path);
	copy_or_none(sv->auth, sizeof(sv->auth), http_call_header(c, "Authorization"));
	copy_or_none(sv->type, sizeof(sv->type), http_call_header(c, "Content-Type"));
	copy_or_none(sv->length, sizeof(sv->length), http_call_header(c, "Content-Length"));
	copy_or_none(sv->body, sizeof(sv->body), http_call_body(c, NULL));
	copy_or_none(sv->query, sizeof(sv->query), http_call_query(c, "format"));
	pthread_mutex_unlock(&sv->mu);
	if (!strcmp(path, "/api/doc")) {
		http_reply(c, 200, "application/json", "{\"seq\": 7}", 10);
	} else if (!strcmp(path, "/api/cut")) {
		http_call_add_header(c, "X-Sluice-Truncated", "true");
		http_reply(c, 200, "text/csv", "a\r\n1\r\n", 6);
	} else if (!strcmp(path, "/api/text")) {
		http_reply(c, 200, "text/plain", "hello", 5);
	} else if (!strcmp(path, "/api/big")) {
		size_t len = SERVER_MAX_ANSWER + 1;
		char *big = malloc(len);

		memset(big, ' ', len);
		big[0] = '[';
		big[len - 1] = ']';
		http_reply(c, 200, "application/json", big, len);
		free(big);
	} else {
		http_reply_error(c, 404, "not found", path);
	}
}

static struct server *server_start(void)
{
	struct http_config hc = { .listen = "127.0.0.1:0" };
	struct sl_err err = SL_ERR_INIT;
	struct server *sv = calloc(1, sizeof(*sv));

	pthread_mutex_init(&sv->mu, NULL);
	if (http_server_start(&hc, handle, sv, &sv->s, &err))
		fail_msg("cannot start a server: %s", err.msg);
	sv->port = http_server_port(sv->s);
	return sv;
}

static void server_free(struct server *sv)
{
	http_server_stop(sv->s);
	pthread_mutex_destroy(&sv->mu);
	free(sv);
}

static int requests(struct server *sv)
{
	int n;

	pthread_mutex_lock(&sv->mu);
	n = sv->requests;
	pthread_mutex_unlock(&sv->mu);
	return n;
}

static int setup(void **state)
{
	*state = server_start();
	return 0;
}

static int teardown(void **state)
{
	server_free(*state);
	return 0;
}

/* ---- what goes, what comes back ---- */

static void test_get_with_token(void **state)
{
	struct server *sv = *state;
	struct sl_err err = SL_ERR_INIT;
	json_t *doc;
	int status;

	assert_int_equal(server_request(sv->port, "GET", "/api/doc", "t0k", &status, &doc, &err),
			 0);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(json_object_get(doc, "seq")), 7);
	json_decref(doc);
	assert_string_equal(sv->method, "GET");
	assert_string_equal(sv->path, "/api/doc");
	assert_string_equal(sv->auth, "Bearer t0k");
}

/* A POST has an empty body and says so, and no form content type. */
static void test_post_without_token(void **state)
{
	struct server *sv = *state;
	struct sl_err err = SL_ERR_INIT;
	json_t *doc;
	int status;

	assert_int_equal(server_request(sv->port, "POST", "/api/doc", NULL, &status, &doc, &err),
			 0);
	assert_int_equal(status, 200);
	json_decref(doc);
	assert_string_equal(sv->method, "POST");
	assert_string_equal(sv->auth, "(none)");
	assert_string_equal(sv->length, "0");
	assert_string_equal(sv->type, "(none)");
	assert_string_equal(sv->body, "");
}

/* A call with a body, a query and a content type gets the answer's bytes as
 * they came, and whether it was cut. */
static void test_call_with_body(void **state)
{
	struct server *sv = *state;
	struct sl_err err = SL_ERR_INIT;
	struct server_ask ask = { .method = "POST", .path = "/api/cut", .query = "format=csv",
				  .token = "t0k", .body = "SELECT 1", .body_len = 8,
				  .content_type = "application/sql" };
	struct server_answer ans;

	assert_int_equal(server_call(sv->port, &ask, &ans, &err), 0);
	assert_int_equal(ans.status, 200);
	assert_true(ans.truncated);
	assert_int_equal(ans.len, 6);
	assert_memory_equal(ans.body, "a\r\n1\r\n", 6);
	free(ans.body);
	assert_string_equal(sv->body, "SELECT 1");
	assert_string_equal(sv->type, "application/sql");
	assert_string_equal(sv->query, "csv");
	assert_string_equal(sv->length, "8");
	ask.path = "/api/doc";
	assert_int_equal(server_call(sv->port, &ask, &ans, &err), 0);
	assert_false(ans.truncated);
	free(ans.body);
}

/* An error answer is an answer: its status and its document. */
static void test_error_answer_and_text(void **state)
{
	struct server *sv = *state;
	struct sl_err err = SL_ERR_INIT;
	json_t *doc;
	int status;

	assert_int_equal(server_request(sv->port, "POST", "/api/nope", NULL, &status, &doc, &err),
			 0);
	assert_int_equal(status, 404);
	assert_string_equal(json_string_value(json_object_get(doc, "detail")), "/api/nope");
	json_decref(doc);
	assert_int_equal(server_request(sv->port, "GET", "/api/text", NULL, &status, &doc, &err),
			 0);
	assert_int_equal(status, 200);
	assert_null(doc);
}

/* A name typed on the command line stays in the path: a '#' does not cut
 * it short and a '?' does not start a query. The server refuses such a
 * path before any handler sees it. */
static void test_path_stays_a_path(void **state)
{
	struct server *sv = *state;
	struct sl_err err = SL_ERR_INIT;
	const char *paths[] = { "/api/doc#x/advance", "/api/doc?x/advance", "/api/doc x" };
	json_t *doc;
	int status;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		assert_int_equal(server_request(sv->port, "POST", paths[i], NULL, &status, &doc, &err),
				 0);
		assert_int_equal(status, 400);
		json_decref(doc);
	}
	assert_int_equal(requests(sv), 0);
}

/* http_proxy is for the world: a call to the loopback server never goes to
 * it, whatever the user's environment says. */
static void test_proxy_left_alone(void **state)
{
	struct server *sv = *state, *proxy = server_start();
	struct sl_err err = SL_ERR_INIT;
	char url[64];
	json_t *doc;
	int status, rc;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", proxy->port);
	setenv("http_proxy", url, 1);
	unsetenv("no_proxy");
	unsetenv("NO_PROXY");
	rc = server_request(sv->port, "GET", "/api/doc", "t0k", &status, &doc, &err);
	unsetenv("http_proxy");
	assert_int_equal(rc, 0);
	assert_int_equal(status, 200);
	json_decref(doc);
	assert_int_equal(requests(sv), 1);
	assert_int_equal(requests(proxy), 0);
	server_free(proxy);
}

/* ---- failures ---- */

static void test_refused(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	json_t *doc = (json_t *)1;
	int status;

	(void)state;
	assert_int_equal(server_request(1, "GET", "/api/doc", NULL, &status, &doc, &err), SL_E_IO);
	assert_string_equal(err.msg, "cannot reach the server on port 1: Connection refused");
	assert_null(doc);
}

static void test_too_big(void **state)
{
	struct server *sv = *state;
	struct sl_err err = SL_ERR_INIT;
	char want[128];
	json_t *doc;
	int status;

	assert_int_equal(server_request(sv->port, "GET", "/api/big", NULL, &status, &doc, &err),
			 SL_E_TOOBIG);
	snprintf(want, sizeof(want), "the server on port %d answered more than 16 MiB", sv->port);
	assert_string_equal(err.msg, want);
	assert_null(doc);
}

/* Something on the port that is not the server: it answers a line that
 * is not HTTP, then closes. */
struct liar {
	int fd, port;
	pthread_t tid;
};

static void *liar_run(void *arg)
{
	struct liar *l = arg;
	char buf[4096];
	int c = accept(l->fd, NULL, NULL);

	if (c >= 0) {
		(void)!recv(c, buf, sizeof(buf), 0);
		(void)!send(c, "hello there\r\n\r\n", 15, MSG_NOSIGNAL);
		close(c);
	}
	return NULL;
}

static void test_not_http(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct sl_err err = SL_ERR_INIT;
	struct liar l;
	char want[128];
	json_t *doc;
	int status;

	(void)state;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l.fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(l.fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l.fd, 1), 0);
	assert_int_equal(getsockname(l.fd, (struct sockaddr *)&sa, &len), 0);
	l.port = ntohs(sa.sin_port);
	assert_int_equal(pthread_create(&l.tid, NULL, liar_run, &l), 0);
	assert_int_equal(server_request(l.port, "GET", "/api/doc", NULL, &status, &doc, &err),
			 SL_E_IO);
	pthread_join(l.tid, NULL);
	close(l.fd);
	snprintf(want, sizeof(want), "the server on port %d gave no HTTP answer", l.port);
	assert_string_equal(err.msg, want);
	assert_null(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_call_with_body),
		T(test_get_with_token),
		T(test_post_without_token),
		T(test_error_answer_and_text),
		T(test_path_stays_a_path),
		T(test_proxy_left_alone),
		cmocka_unit_test(test_refused),
		T(test_too_big),
		cmocka_unit_test(test_not_http),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
