/*
 * Who may make a request (server/guard.c): the bearer token, a session
 * cookie with its CSRF token for what may change something, and no change
 * from a browser of another origin, with or without a token; what needs
 * nothing (the UI's files, an open server) passes. The cookie's value is
 * read strictly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "server/guard.h"
#include "server/http.h"
#include "server/session.h"

#include <stdio.h>
#include <string.h>

#define TOKEN "s3cret"
#define HOST "127.0.0.1:8080"

struct fx {
	struct session_store *st;
	struct guard g;
	char id[SESSION_TOKEN_LEN + 1], csrf[SESSION_TOKEN_LEN + 1];
	char cookie[128];
	struct http_path api, root;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->st = session_store_new(NULL);
	guard_token_init(&f->g.token, TOKEN);
	f->g.segment = "api";
	f->g.sessions = f->st;
	assert_int_equal(session_create(f->st, 0, f->id, f->csrf, NULL), 0);
	snprintf(f->cookie, sizeof(f->cookie), "theme=dark; " GUARD_COOKIE "=%s", f->id);
	assert_int_equal(http_path_parse("/api/live/stop", &f->api, NULL), 0);
	assert_int_equal(http_path_parse("/", &f->root, NULL), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	session_store_free(f->st);
	free(f);
	return 0;
}

static int decide(struct fx *f, struct guard_request rq, enum guard_authority *by)
{
	struct guard_verdict v;

	if (!rq.path)
		rq.path = &f->api;
	if (!rq.host)
		rq.host = HOST;
	guard_decide(&f->g, &rq, 10, &v);
	if (by)
		*by = v.by;
	if (v.status)
		assert_non_null(v.error);
	return v.status;
}

static void test_token(void **state)
{
	struct fx *f = *state;
	enum guard_authority by;

	assert_int_equal(decide(f, (struct guard_request){ .method = "GET" }, NULL), 401);
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET",
						    .authorization = "Bearer " TOKEN }, &by), 0);
	assert_int_equal(by, GUARD_BEARER);
	assert_int_equal(decide(f, (struct guard_request){ .method = "POST",
						    .authorization = "bearer  " TOKEN }, NULL), 0);
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET",
						    .authorization = "Bearer s3cre" }, NULL), 401);
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET",
						    .authorization = "Basic czNjcmV0" }, NULL), 401);
	/* a wrong bearer is refused even beside a good cookie */
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET", .authorization = "Bearer x",
						    .cookie = f->cookie }, NULL), 401);
	/* outside the segment nothing is needed */
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET", .path = &f->root }, &by), 0);
	assert_int_equal(by, GUARD_OPEN);
	assert_true(guard_token_matches(&f->g.token, TOKEN, strlen(TOKEN)));
	assert_false(guard_token_matches(&f->g.token, TOKEN, 3));
	assert_false(guard_token_matches(&f->g.token, NULL, 0));
}

static void test_session_and_csrf(void **state)
{
	struct fx *f = *state;
	enum guard_authority by;
	char wrong[SESSION_TOKEN_LEN + 1];

	assert_int_equal(decide(f, (struct guard_request){ .method = "GET", .cookie = f->cookie,
						    .fetch_site = "same-origin" }, &by), 0);
	assert_int_equal(by, GUARD_SESSION);
	/* what may change something needs the session's CSRF token */
	assert_int_equal(decide(f, (struct guard_request){ .method = "POST", .cookie = f->cookie }, NULL),
			 403);
	memset(wrong, 'a', SESSION_TOKEN_LEN);
	wrong[SESSION_TOKEN_LEN] = '\0';
	assert_int_equal(decide(f, (struct guard_request){ .method = "POST", .cookie = f->cookie,
						    .csrf = wrong }, NULL), 403);
	assert_int_equal(decide(f, (struct guard_request){ .method = "POST", .cookie = f->cookie,
						    .csrf = "short" }, NULL), 403);
	assert_int_equal(decide(f, (struct guard_request){ .method = "POST", .cookie = f->cookie,
						    .csrf = f->csrf, .origin = "http://" HOST,
						    .fetch_site = "same-origin" }, &by), 0);
	assert_int_equal(by, GUARD_SESSION);
	/* a session is the server's own pages' only, which a browser says */
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET", .cookie = f->cookie,
						    .fetch_site = "same-site" }, NULL), 403);
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET", .cookie = f->cookie },
				NULL),
			 403);
	/* a session signed out, or a cookie of no session */
	session_end(f->st, f->id, 10);
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET", .cookie = f->cookie }, NULL),
			 401);
}

static void test_other_origins(void **state)
{
	struct fx *f = *state;
	struct guard open = { .segment = "api" };
	struct guard_verdict v;

	/* whatever the authority */
	assert_int_equal(decide(f, (struct guard_request){ .method = "POST",
						    .authorization = "Bearer " TOKEN,
						    .origin = "http://evil.example" }, NULL), 403);
	assert_int_equal(decide(f, (struct guard_request){ .method = "POST", .cookie = f->cookie,
						    .csrf = f->csrf, .origin = "null" }, NULL), 403);
	assert_int_equal(decide(f, (struct guard_request){ .method = "POST",
						    .authorization = "Bearer " TOKEN,
						    .fetch_site = "cross-site" }, NULL), 403);
	/* the sign-in route outside the segment too */
	assert_int_equal(decide(f, (struct guard_request){ .method = "POST", .path = &f->root,
						    .origin = "http://localhost:8080" }, NULL), 403);
	/* a page's link elsewhere may open the UI; nothing elsewhere reads
	 * the API, a stream of it neither */
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET", .path = &f->root,
						    .fetch_site = "cross-site" }, NULL), 0);
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET",
						    .authorization = "Bearer " TOKEN,
						    .fetch_site = "cross-site" }, NULL), 403);
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET",
						    .authorization = "Bearer " TOKEN,
						    .origin = "http://evil.example" }, NULL), 403);
	guard_decide(&open, &(struct guard_request){ .method = "GET", .path = &f->api, .host = HOST,
						      .fetch_site = "cross-site" }, 0, &v);
	assert_int_equal(v.status, 403);
	/* an open server: a browser elsewhere may not drive it; curl may */
	guard_decide(&open, &(struct guard_request){ .method = "POST", .path = &f->api, .host = HOST,
						      .origin = "http://evil.example" }, 0, &v);
	assert_int_equal(v.status, 403);
	guard_decide(&open, &(struct guard_request){ .method = "POST", .path = &f->api, .host = HOST },
		     0, &v);
	assert_int_equal(v.status, 0);
	assert_int_equal(v.by, GUARD_OPEN);
	guard_decide(&open, &(struct guard_request){ .method = "POST", .path = &f->api, .host = HOST,
						      .origin = "https://" HOST, .fetch_site = "same-origin" },
		     0, &v);
	assert_int_equal(v.status, 0);
}

/* An open server answers to addresses and localhost only: a name that
 * points here (DNS rebinding) makes a page elsewhere same-origin. */
static void test_open_server_hosts(void **state)
{
	struct fx *f = *state;
	struct guard open = { .segment = "api" };
	struct guard_verdict v;
	static const char *const good[] = { "127.0.0.1:8080", "127.0.0.1", "localhost:8080",
					    "LOCALHOST", "[::1]:8080", "[::1]", "10.1.2.3:80", NULL };
	static const char *const bad[] = { "evil.example:8080", "evil.example", "127.0.0.1.nip.io",
					   "[::1", "[evil]:80", "", "[::1]evil.example",
					   "[::1].evil.example", "localhost:abc", "127.0.0.1:99999999",
					   "127.0.0.1:65536", "127.0.0.1:", NULL };

	for (size_t i = 0; good[i]; i++) {
		guard_decide(&open, &(struct guard_request){ .method = "GET", .path = &f->root,
							      .host = good[i] }, 0, &v);
		assert_int_equal(v.status, 0);
	}
	for (size_t i = 0; bad[i]; i++) {
		guard_decide(&open, &(struct guard_request){ .method = "GET", .path = &f->root,
							      .host = bad[i] }, 0, &v);
		assert_int_equal(v.status, 403);
	}
	/* no Host at all (HTTP/1.0) is no name */
	guard_decide(&open, &(struct guard_request){ .method = "GET", .path = &f->root }, 0, &v);
	assert_int_equal(v.status, 0);
	/* with a token, a name is fine: the token decides */
	assert_int_equal(decide(f, (struct guard_request){ .method = "GET", .path = &f->root,
						    .host = "sluice.internal:8080" }, NULL), 0);
}

static void test_same_origin(void **state)
{
	(void)state;
	assert_true(guard_same_origin("http://127.0.0.1:8080", "127.0.0.1:8080"));
	assert_true(guard_same_origin("HTTP://Example.com", "example.com"));
	assert_false(guard_same_origin("http://127.0.0.1:8081", "127.0.0.1:8080"));
	assert_false(guard_same_origin("http://127.0.0.1:8080/", "127.0.0.1:8080"));
	assert_false(guard_same_origin("ftp://127.0.0.1:8080", "127.0.0.1:8080"));
	assert_false(guard_same_origin("null", "127.0.0.1:8080"));
	assert_false(guard_same_origin("http://127.0.0.1:8080", NULL));
	assert_false(guard_same_origin("http://", ""));
}

static void test_cookie(void **state)
{
	char out[SESSION_TOKEN_LEN + 1], big[GUARD_COOKIE_MAX + 200], hex[SESSION_TOKEN_LEN + 1];
	char text[256];

	(void)state;
	memset(hex, 'c', SESSION_TOKEN_LEN);
	hex[SESSION_TOKEN_LEN] = '\0';
	snprintf(text, sizeof(text), GUARD_COOKIE "=%s", hex);
	assert_true(guard_cookie_session(text, out));
	assert_string_equal(out, hex);
	snprintf(text, sizeof(text), "a=1;  " GUARD_COOKIE "=%s ; b=2", hex);
	assert_true(guard_cookie_session(text, out));
	assert_string_equal(out, hex);
	snprintf(text, sizeof(text), "x" GUARD_COOKIE "=%s", hex);
	assert_false(guard_cookie_session(text, out));
	snprintf(text, sizeof(text), GUARD_COOKIE "=%s; " GUARD_COOKIE "=%s", hex, hex);
	assert_false(guard_cookie_session(text, out));
	snprintf(text, sizeof(text), GUARD_COOKIE "=%.63s", hex);
	assert_false(guard_cookie_session(text, out));
	snprintf(text, sizeof(text), GUARD_COOKIE "=%.63sz", hex);
	assert_false(guard_cookie_session(text, out));
	assert_false(guard_cookie_session(GUARD_COOKIE "=", out));
	assert_false(guard_cookie_session("", out));
	assert_false(guard_cookie_session(NULL, out));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(big + GUARD_COOKIE_MAX, 100, "; " GUARD_COOKIE "=");
	assert_false(guard_cookie_session(big, out));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_token, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_and_csrf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_origins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_server_hosts, setup, teardown),
		cmocka_unit_test(test_same_origin),
		cmocka_unit_test(test_cookie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
