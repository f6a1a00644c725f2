/*
 * Poll sources (src/ingest/poll*.c) against a fake API served in-process by
 * the HTTP module on a free port, landing through the real writer into an
 * in-memory DuckDB: typed rows, the cursor sent and advanced, json_path,
 * headers from the environment, failures that land nothing and back off
 * (on a clock the fake API moves, so the schedule is checked to the
 * millisecond), a page that lands whole or not at all, and the poller's
 * thread. No assertion reads the time a test took.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_wh.h"

#include "core/arena.h"
#include "core/err.h"
#include "ingest/poll.h"
#include "ingest/poll_fetch.h"
#include "ingest/poll_page.h"
#include "ingest/writer.h"
#include "project/config.h"
#include "server/http.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ---- the fake API ---- */

#define MAX_HELD 8

/* The clock of the pollers whose schedule a test looks at: it moves only
 * when the fake API takes a request, by api.took_ms, so that the waits
 * the schedule computes are known to the millisecond. */
static _Atomic int64_t fake_now_ms = 1000000;

static int64_t fake_clock(void)
{
	return atomic_load(&fake_now_ms);
}

struct api {
	struct http_server *s;
	int port;
	pthread_mutex_t mu;
	/* the next answer */
	int status;
	const char *body;
	bool hang; /* hold the call: the client times out */
	int64_t took_ms; /* how far a request moves fake_clock */
	/* what the last request carried */
	int requests;
	char query[256], auth[256];
	bool query_set;
	const char *param; /* the query parameter to look at */
	struct http_call *held[MAX_HELD];
	int nheld;
};

static void api_handle(void *ctx, struct http_call *c)
{
	struct api *api = ctx;
	const char *q, *auth;

	pthread_mutex_lock(&api->mu);
	api->requests++;
	atomic_fetch_add(&fake_now_ms, api->took_ms);
	q = http_call_query(c, api->param ? api->param : "since");
	auth = http_call_header(c, "Authorization");
	api->query_set = q != NULL;
	snprintf(api->query, sizeof(api->query), "%s", q ? q : "");
	snprintf(api->auth, sizeof(api->auth), "%s", auth ? auth : "");
	if (api->hang && api->nheld < MAX_HELD) {
		api->held[api->nheld++] = c;
		pthread_mutex_unlock(&api->mu);
		return;
	}
	pthread_mutex_unlock(&api->mu);
	http_reply(c, api->status, "application/json", api->body, strlen(api->body));
}

static void api_answer(struct api *api, int status, const char *body)
{
	pthread_mutex_lock(&api->mu);
	api->status = status;
	api->body = body;
	api->hang = false;
	pthread_mutex_unlock(&api->mu);
}

/* ---- the fixture: API, warehouse, writer, a poll source ---- */

static struct cfg_column COLUMNS[] = {
	{ "id", "BIGINT" },
	{ "price", "DOUBLE" },
	{ "updated_at", "TIMESTAMP" },
};

struct fx {
	struct api api;
	struct wh *probe, *reader;
	struct ingest_writer *wr;
	struct source_cfg src;
	struct cfg_header headers[2];
	char url[128];
	struct poller *p;
	struct sl_err err;
	struct poll_result res;
};

static int setup(void **state)
{
	struct http_config hc = { .listen = "127.0.0.1:0" };
	struct ingest_opts io = { .flush_interval_ms = 1, .flush_rows = 1000, .max_rows = 100000 };
	struct fx *f = calloc(1, sizeof(*f));
	struct wh *w;

	pthread_mutex_init(&f->api.mu, NULL);
	api_answer(&f->api, 200, "[]");
	if (http_server_start(&hc, api_handle, &f->api, &f->api.s, &f->err))
		return -1;
	f->api.port = http_server_port(f->api.s);
	snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%d/rates", f->api.port);
	if (wh_open_duckdb(NULL, false, &w, &f->err) || wh_connect(w, &f->probe, &f->err) ||
	    wh_connect(w, &f->reader, &f->err) ||
	    wh_exec(f->probe,
		    "CREATE SCHEMA landing; CREATE TABLE landing.rates (id BIGINT, price DOUBLE, "
		    "updated_at TIMESTAMP, payload JSON, _sluice_landed_at TIMESTAMP, _sluice_seq "
		    "BIGINT)",
		    &f->err) ||
	    ingest_writer_start(w, &io, &f->wr, &f->err)) {
		fprintf(stderr, "setup: %s\n", f->err.msg);
		return -1;
	}
	f->src = (struct source_cfg){ .name = "rates",
				      .kind = "poll",
				      .columns = COLUMNS,
				      .ncolumns = 3,
				      .url = f->url,
				      .cursor = "updated_at",
				      .interval_ms = 1000,
				      .timeout_ms = 2000 };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	poller_free(f->p);
	ingest_writer_stop(f->wr);
	wh_close(f->reader);
	wh_close(f->probe);
	/* held calls get a 503 from the stop, and are let go of here */
	http_server_stop(f->api.s);
	for (int i = 0; i < f->api.nheld; i++)
		http_reply(f->api.held[i], 503, NULL, "", 0);
	pthread_mutex_destroy(&f->api.mu);
	free(f);
	return 0;
}

/* The one value of a query as text ("NULL" for SQL NULL), in a static
 * buffer. */
static const char *qstr(struct fx *f, const char *sql)
{
	static char out[512];
	struct wh_result *r;

	if (wh_query(f->probe, sql, &r, &f->err))
		fail_msg("%s\n%s", f->err.msg, sql);
	assert_int_equal(wh_result_nrows(r), 1);
	snprintf(out, sizeof(out), "%s", wh_result_value(r, 0, 0) ? wh_result_value(r, 0, 0)
								    : "NULL");
	wh_result_free(r);
	return out;
}

static const char *stored_cursor(struct fx *f)
{
	if (query_int(f->probe, "SELECT count(*) FROM _sluice.live_sources") == 0)
		return "NULL";
	return qstr(f, "SELECT cursor FROM _sluice.live_sources WHERE source = 'landing.rates'");
}

static int poll_now(struct fx *f)
{
	if (!f->p)
		assert_int_equal(poller_new(NULL, &f->src, &f->p, &f->err), 0);
	sl_err_clear(&f->err);
	return poller_poll(f->p, f->reader, f->wr, &f->res, &f->err);
}

static const char *status_str(struct fx *f, const char *key)
{
	static char out[1024];
	json_t *st = poller_status(f->p);
	const json_t *v = json_object_get(st, key);

	snprintf(out, sizeof(out), "%s", json_is_string(v) ? json_string_value(v) : "null");
	json_decref(st);
	return out;
}

static int64_t status_int(struct fx *f, const char *key)
{
	json_t *st = poller_status(f->p);
	int64_t v = json_integer_value(json_object_get(st, key));

	json_decref(st);
	return v;
}

static int held(struct fx *f)
{
	int n;

	pthread_mutex_lock(&f->api.mu);
	n = f->api.nheld;
	pthread_mutex_unlock(&f->api.mu);
	return n;
}

static void hang(struct fx *f)
{
	pthread_mutex_lock(&f->api.mu);
	f->api.hang = true;
	pthread_mutex_unlock(&f->api.mu);
}

/* Waits until done(f), looking every 10 ms. The bound only keeps a broken
 * poller from hanging the suite: it is far beyond what a slow machine
 * needs, and what is asserted is done(f), not the time it took. */
static bool wait_until(struct fx *f, bool (*done)(struct fx *))
{
	for (int i = 0; i < 6000 && !done(f); i++)
		nanosleep(&(struct timespec){ 0, 10000000L }, NULL);
	return done(f);
}

/* ---- landing ---- */

static void test_rows_land_typed(void **state)
{
	struct fx *f = *state;

	api_answer(&f->api, 200,
		   "[{\"id\": 1, \"price\": \"1.5\", \"updated_at\": \"2024-01-01T12:00:00+02:00\", "
		   "\"note\": \"kept\"},\n"
		   " {\"id\": \"2\", \"price\": 2, \"updated_at\": 1704103200}]");
	assert_int_equal(poll_now(f), 0);
	assert_int_equal(f->res.http_status, 200);
	assert_int_equal(f->res.rows, 2);
	assert_true(f->res.seq > 0);
	assert_int_equal(query_int(f->probe, "SELECT sum(id) FROM landing.rates"), 3);
	assert_int_equal(query_int(f->probe, "SELECT sum(price) * 10 FROM landing.rates"), 35);
	/* the offset applied, unix seconds read */
	assert_string_equal(qstr(f, "SELECT min(updated_at) FROM landing.rates"),
			    "2024-01-01 10:00:00");
	assert_string_equal(qstr(f, "SELECT max(updated_at) FROM landing.rates"),
			    "2024-01-01 10:00:00");
	assert_string_equal(qstr(f, "SELECT payload->>'note' FROM landing.rates WHERE id = 1"),
			    "kept");
	assert_int_equal(query_int(f->probe,
				   "SELECT count(*) FROM landing.rates WHERE _sluice_seq = "
				   "(SELECT watermark FROM _sluice.live_sources) AND "
				   "_sluice_landed_at IS NOT NULL"),
			 2);
	assert_int_equal(query_int(f->probe, "SELECT sum(rows) FROM _sluice.live_advances"), 2);
	assert_string_equal(status_str(f, "state"), "ok");
	assert_int_equal(status_int(f, "rows"), 2);
}

static void test_empty_page_lands_nothing(void **state)
{
	struct fx *f = *state;

	api_answer(&f->api, 200, "[]");
	assert_int_equal(poll_now(f), 0);
	assert_int_equal(f->res.rows, 0);
	api_answer(&f->api, 200, "");
	assert_int_equal(poll_now(f), 0);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 0);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM _sluice.live_advances"), 0);
	assert_string_equal(status_str(f, "state"), "ok");
}

/* ---- the cursor ---- */

static void test_cursor_sent_and_advanced(void **state)
{
	struct fx *f = *state;

	api_answer(&f->api, 200,
		   "[{\"id\": 1, \"updated_at\": \"2024-01-02T00:00:00Z\"},"
		   " {\"id\": 2, \"updated_at\": \"2024-01-03T00:00:00Z\"},"
		   " {\"id\": 3, \"updated_at\": \"2024-01-01T00:00:00Z\"}]");
	assert_int_equal(poll_now(f), 0);
	/* the first poll knows no cursor and sends none */
	assert_false(f->api.query_set);
	assert_string_equal(f->res.cursor, "2024-01-03T00:00:00Z");
	assert_string_equal(stored_cursor(f), "2024-01-03T00:00:00Z");

	/* rows older than the cursor land, but the cursor never goes back */
	api_answer(&f->api, 200, "[{\"id\": 4, \"updated_at\": \"2023-12-31T00:00:00Z\"}]");
	assert_int_equal(poll_now(f), 0);
	assert_true(f->api.query_set);
	assert_string_equal(f->api.query, "2024-01-03T00:00:00Z");
	assert_int_equal(f->res.rows, 1);
	assert_string_equal(stored_cursor(f), "2024-01-03T00:00:00Z");

	/* an offset is an instant: 2024-01-03T02:00+03:00 is before the cursor */
	api_answer(&f->api, 200,
		   "[{\"id\": 5, \"updated_at\": \"2024-01-03T02:00:00+03:00\"},"
		   " {\"id\": 6, \"updated_at\": null}, {\"id\": 7}]");
	assert_int_equal(poll_now(f), 0);
	assert_string_equal(stored_cursor(f), "2024-01-03T00:00:00Z");
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 7);
	assert_string_equal(status_str(f, "cursor"), "2024-01-03T00:00:00Z");
}

/* A numeric cursor compares by value, under a parameter of its own. */
static void test_cursor_param_numeric(void **state)
{
	struct fx *f = *state;
	char url[160];

	snprintf(url, sizeof(url), "%s?limit=10", f->url);
	f->src.cursor = "meta.version";
	f->src.cursor_param = "after";
	f->src.url = url;
	f->api.param = "after";
	api_answer(&f->api, 200, "[{\"id\": 1, \"meta\": {\"version\": 9}}]");
	assert_int_equal(poll_now(f), 0);
	assert_string_equal(stored_cursor(f), "9");
	api_answer(&f->api, 200,
		   "[{\"id\": 2, \"meta\": {\"version\": 10}}, {\"id\": 3, \"meta\": {\"version\": "
		   "\"8\"}}]");
	assert_int_equal(poll_now(f), 0);
	assert_string_equal(f->api.query, "9");
	assert_string_equal(stored_cursor(f), "10");
	api_answer(&f->api, 200, "[]");
	assert_int_equal(poll_now(f), 0);
	assert_string_equal(f->api.query, "10");
	assert_string_equal(f->res.cursor, "10");
	/* a cursor that is no number or string fails the whole page */
	api_answer(&f->api, 200,
		   "[{\"id\": 4, \"meta\": {\"version\": 11}}, {\"id\": 5, \"meta\": {\"version\": "
		   "{\"major\": 12}}}]");
	assert_int_equal(poll_now(f), SL_E_INVALID);
	assert_non_null(
		strstr(f->err.msg, "row 2, cursor meta.version: an object is not a number or a string"));
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 3);
	assert_string_equal(stored_cursor(f), "10");
	f->src.url = f->url;
}

/* A cursor reaches the API as the bytes it was, whatever they are: an '&'
 * does not end it, nor a '#' in it or in the URL's own fragment. */
static void test_cursor_arrives_whole(void **state)
{
	struct fx *f = *state;
	const char *odd = "a&since=b c#d%e+f/g\xc3\xa9";
	char url[160];

	snprintf(url, sizeof(url), "%s?limit=10#latest", f->url);
	f->src.url = url;
	f->src.cursor = "token";
	api_answer(&f->api, 200, "[{\"id\": 1, \"token\": \"a&since=b c#d%e+f/g\\u00e9\"}]");
	assert_int_equal(poll_now(f), 0);
	assert_string_equal(stored_cursor(f), odd);
	api_answer(&f->api, 200, "[]");
	assert_int_equal(poll_now(f), 0);
	assert_true(f->api.query_set);
	assert_string_equal(f->api.query, odd);
	f->src.url = f->url;
}

static void test_cursor_cmp(void **state)
{
	(void)state;
	assert_true(poll_cursor_cmp("9", "10") < 0);
	assert_true(poll_cursor_cmp("-5", "3") < 0);
	assert_true(poll_cursor_cmp("-10", "-9") < 0);
	assert_int_equal(poll_cursor_cmp("007", "7"), 0);
	assert_true(poll_cursor_cmp("123456789012345678901234567890", "99") > 0);
	assert_true(poll_cursor_cmp("1.5", "10") < 0);
	assert_true(poll_cursor_cmp("2.0", "1.99") > 0);
	assert_true(poll_cursor_cmp("2024-01-01T12:00:00+02:00", "2024-01-01T11:00:00Z") < 0);
	assert_true(poll_cursor_cmp("2024-01-02", "2024-01-01T23:59:59.5") > 0);
	assert_true(poll_cursor_cmp("abc", "abd") < 0);
	assert_int_equal(poll_cursor_cmp("x", "x"), 0);
}

/* The URL of src with cursor; fails the test when it cannot be made. */
static const char *request_url(struct arena *a, const struct source_cfg *src, const char *cursor)
{
	struct sl_err err = SL_ERR_INIT;
	const char *url;

	if (poll_request_url(a, src, cursor, &url, &err))
		fail_msg("%s", err.msg);
	return url;
}

static void test_request_url(void **state)
{
	struct arena *a = arena_new(NULL);
	struct source_cfg src = { .name = "rates", .url = "http://h/rates" };
	struct sl_err err = SL_ERR_INIT;
	const char *url;

	(void)state;
	assert_string_equal(request_url(a, &src, NULL), "http://h/rates");
	/* every byte but the unreserved ones encoded, a space as a form has it;
	 * hex digits in either case are the same byte */
	assert_int_equal(strcasecmp(request_url(a, &src, "a&b=c d#e%f+g/\xc3\xa9"),
				    "http://h/rates?since=a%26b%3Dc+d%23e%25f%2Bg%2F%C3%A9"),
			 0);
	src.url = "http://h/rates?limit=5";
	src.cursor_param = "after";
	assert_string_equal(request_url(a, &src, "7"), "http://h/rates?limit=5&after=7");
	src.url = "http://h/rates?";
	assert_string_equal(request_url(a, &src, "7"), "http://h/rates?after=7");
	src.url = "http://h/rates?limit=5&";
	assert_string_equal(request_url(a, &src, "7"), "http://h/rates?limit=5&after=7");
	/* a fragment stays the fragment, after the query */
	src.url = "http://h/rates?limit=5#latest";
	assert_string_equal(request_url(a, &src, "7"), "http://h/rates?limit=5&after=7#latest");
	src.url = "http://h/rates#latest";
	assert_string_equal(request_url(a, &src, "7"), "http://h/rates?after=7#latest");
	/* what is no URL is said before anything is sent */
	src.url = "http://h/a rate";
	assert_int_equal(poll_request_url(a, &src, "7", &url, &err), SL_E_CONFIG);
	assert_null(url);
	assert_non_null(strstr(err.msg, "invalid url 'http://h/a rate' of source rates: "));
	arena_free(a);
}

/* ---- where the rows are ---- */

static void test_json_path(void **state)
{
	struct fx *f = *state;

	f->src.json_path = "data.items";
	api_answer(&f->api, 200,
		   "{\"data\": {\"items\": [{\"id\": 1}, {\"id\": 2}], \"next\": null}, \"count\": 2}");
	assert_int_equal(poll_now(f), 0);
	assert_int_equal(f->res.rows, 2);
	/* null there: nothing new */
	api_answer(&f->api, 200, "{\"data\": {\"items\": null}}");
	assert_int_equal(poll_now(f), 0);
	assert_int_equal(f->res.rows, 0);
	/* missing: a failure naming the path */
	api_answer(&f->api, 200, "{\"data\": {}}");
	assert_int_equal(poll_now(f), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "the response has no 'data.items'"));
	api_answer(&f->api, 200, "{\"data\": {\"items\": 5}}");
	assert_int_equal(poll_now(f), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "'data.items' in the response is a number"));
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 2);
}

/* Without json_path: the body's array, or the one array of rows in an
 * object. */
static void test_default_rows(void **state)
{
	struct fx *f = *state;

	api_answer(&f->api, 200, "{\"rates\": [{\"id\": 1}], \"tags\": [\"a\"], \"total\": 1}");
	assert_int_equal(poll_now(f), 0);
	assert_int_equal(f->res.rows, 1);
	api_answer(&f->api, 200, "{\"a\": [{\"id\": 1}], \"b\": []}");
	assert_int_equal(poll_now(f), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "several arrays of objects (a, b)"));
	api_answer(&f->api, 200, "{\"id\": 1}");
	assert_int_equal(poll_now(f), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "an object without an array of rows"));
	api_answer(&f->api, 200, "\"text\"");
	assert_int_equal(poll_now(f), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "the response is a string"));
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 1);
}

/* ---- headers ---- */

static void test_headers_from_environment(void **state)
{
	struct fx *f = *state;

	f->headers[0] = (struct cfg_header){ "Authorization", "Bearer ${SLUICE_TEST_POLL_TOKEN}" };
	f->src.headers = f->headers;
	f->src.nheaders = 1;
	setenv("SLUICE_TEST_POLL_TOKEN", "t0k", 1);
	api_answer(&f->api, 200, "[{\"id\": 1}]");
	assert_int_equal(poll_now(f), 0);
	assert_string_equal(f->api.auth, "Bearer t0k");

	/* unset: nothing is requested, nothing lands, and the token is not quoted */
	unsetenv("SLUICE_TEST_POLL_TOKEN");
	assert_int_equal(poll_now(f), SL_E_CONFIG);
	assert_int_equal(f->api.requests, 1);
	assert_non_null(strstr(f->err.msg, "SLUICE_TEST_POLL_TOKEN is not set"));
	assert_null(strstr(f->err.msg, "t0k"));
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 1);
}

static void test_header_expand(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	const char *out;

	(void)state;
	setenv("SLUICE_TEST_A", "x", 1);
	setenv("SLUICE_TEST_B", "y", 1);
	assert_int_equal(poll_header_expand(a, "${SLUICE_TEST_A}-${SLUICE_TEST_B}-$5 ${SLUICE_TEST_A}",
					    &out, &err),
			 0);
	assert_string_equal(out, "x-y-$5 x");
	assert_int_equal(poll_header_expand(a, "plain", &out, &err), 0);
	assert_string_equal(out, "plain");
	setenv("SLUICE_TEST_B", "", 1);
	assert_int_equal(poll_header_expand(a, "Bearer ${SLUICE_TEST_B}", &out, &err),
			 SL_E_CONFIG);
	assert_non_null(strstr(err.msg, "environment variable SLUICE_TEST_B is empty"));
	unsetenv("SLUICE_TEST_A");
	unsetenv("SLUICE_TEST_B");
	arena_free(a);
}

/* ---- failures land nothing and back off ---- */

static void test_http_error_backs_off(void **state)
{
	struct fx *f = *state;

	/* every request takes 300 ms of the poller's clock, so a wait counted
	 * from the start of a poll differs from one counted from its end */
	assert_int_equal(poller_new(NULL, &f->src, &f->p, &f->err), 0);
	poller_set_clock(f->p, fake_clock);
	f->api.took_ms = 300;
	api_answer(&f->api, 500, "{\"error\": \"boom\"}");
	assert_int_equal(poll_now(f), SL_E_IO);
	assert_int_equal(f->res.http_status, 500);
	assert_non_null(strstr(f->err.msg, f->url));
	assert_non_null(strstr(f->err.msg, ": HTTP 500: {\"error\": \"boom\"}"));
	assert_string_equal(status_str(f, "state"), "failing");
	assert_int_equal(status_int(f, "failures"), 1);
	assert_non_null(strstr(status_str(f, "last_error"), "HTTP 500"));
	/* a backoff counts from the failure */
	assert_int_equal(poller_wait_ms(f->p), 2000);
	assert_int_equal(status_int(f, "next_attempt_in_ms"), 2000);
	assert_int_equal(poll_now(f), SL_E_IO);
	assert_int_equal(poller_wait_ms(f->p), 4000);
	/* a 404 and a redirect fail the same way */
	api_answer(&f->api, 404, "");
	assert_int_equal(poll_now(f), SL_E_IO);
	assert_non_null(strstr(f->err.msg, ": HTTP 404"));
	assert_int_equal(poller_wait_ms(f->p), 8000);
	api_answer(&f->api, 301, "");
	assert_int_equal(poll_now(f), SL_E_IO);
	assert_non_null(strstr(f->err.msg, "redirects are not followed"));
	assert_int_equal(status_int(f, "failures"), 4);
	assert_int_equal(poller_wait_ms(f->p), 10000);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 0);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM _sluice.live_advances"), 0);

	/* one success resets it */
	api_answer(&f->api, 200, "[{\"id\": 1}]");
	assert_int_equal(poll_now(f), 0);
	assert_string_equal(status_str(f, "state"), "ok");
	assert_int_equal(status_int(f, "failures"), 0);
	/* the last error stays on record, with its time */
	assert_non_null(strstr(status_str(f, "last_error"), "redirects are not followed"));
	assert_string_not_equal(status_str(f, "last_error_at"), "null");
	/* the interval counts from the start of the poll */
	assert_int_equal(poller_wait_ms(f->p), 1000 - 300);
	assert_int_equal(f->api.requests, 5);
}

static void test_backoff_ms(void **state)
{
	(void)state;
	assert_int_equal(poll_backoff_ms(1000, 0), 1000);
	assert_int_equal(poll_backoff_ms(1000, 1), 2000);
	assert_int_equal(poll_backoff_ms(1000, 3), 8000);
	assert_int_equal(poll_backoff_ms(1000, 4), 10000);
	assert_int_equal(poll_backoff_ms(1000, 50), 10000);
	assert_int_equal(poll_backoff_ms(60000, 1), 120000);
	assert_int_equal(poll_backoff_ms(60000, 3), 300000);
	assert_int_equal(poll_backoff_ms(3600000, 2), 3600000);
}

static void test_bad_json(void **state)
{
	struct fx *f = *state;

	api_answer(&f->api, 200, "[{\"id\": 1, \"updated_at\": \"2024-01-01\"}]");
	assert_int_equal(poll_now(f), 0);
	api_answer(&f->api, 200, "[{\"id\": 2},\n {\"id\": 3,]");
	assert_int_equal(poll_now(f), SL_E_PARSE);
	assert_non_null(strstr(f->err.msg, "?since=2024-01-01: invalid JSON at line 2, column"));
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 1);
	assert_string_equal(stored_cursor(f), "2024-01-01");
	assert_int_equal(status_int(f, "failures"), 1);
}

/* The request arrived and was never answered: only the client's timeout
 * can have ended the poll. */
static void test_timeout(void **state)
{
	struct fx *f = *state;

	f->src.timeout_ms = 300;
	hang(f);
	assert_int_equal(poll_now(f), SL_E_IO);
	assert_int_equal(held(f), 1);
	assert_non_null(strstr(f->err.msg, "no complete answer within 300ms"));
	assert_int_equal(f->res.http_status, 0);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 0);
	assert_string_equal(status_str(f, "state"), "failing");
}

static void test_connection_refused(void **state)
{
	struct fx *f = *state;

	f->src.url = "http://127.0.0.1:1/rates";
	assert_int_equal(poll_now(f), SL_E_IO);
	assert_non_null(strstr(f->err.msg, "http://127.0.0.1:1/rates: cannot connect"));
	assert_int_equal(status_int(f, "failures"), 1);
	f->src.url = f->url;
}

/* A page with one bad row lands none of its rows, and keeps the cursor. */
static void test_page_lands_whole(void **state)
{
	struct fx *f = *state;

	api_answer(&f->api, 200, "[{\"id\": 1, \"updated_at\": \"2024-01-01\"}]");
	assert_int_equal(poll_now(f), 0);
	api_answer(&f->api, 200,
		   "[{\"id\": 2, \"updated_at\": \"2024-02-01\"},"
		   " {\"id\": 3, \"updated_at\": \"2024-03-01\"},"
		   " {\"id\": 4, \"price\": \"abc\", \"updated_at\": \"2024-04-01\"}]");
	assert_int_equal(poll_now(f), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "row 3, column price: \"abc\" is not a DOUBLE"));
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 1);
	assert_string_equal(stored_cursor(f), "2024-01-01");
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM _sluice.live_advances"), 1);
}

/* Rows the landing table refuses (its column is not what the source
 * declares) fail in the writer: the whole page is rolled back. */
static void test_page_refused_by_the_table(void **state)
{
	struct fx *f = *state;

	assert_int_equal(wh_exec(f->probe, "ALTER TABLE landing.rates ADD COLUMN tags INTEGER[]",
				 &f->err),
			 0);
	COLUMNS[1] = (struct cfg_column){ "tags", "INTEGER[]" };
	api_answer(&f->api, 200,
		   "[{\"id\": 1, \"tags\": [1, 2], \"updated_at\": \"2024-01-01\"},"
		   " {\"id\": 2, \"tags\": [\"x\"], \"updated_at\": \"2024-02-01\"}]");
	assert_int_equal(poll_now(f), SL_E_SQL);
	COLUMNS[1] = (struct cfg_column){ "price", "DOUBLE" };
	assert_non_null(strstr(f->err.msg, "row 2"));
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.rates"), 0);
	assert_string_equal(stored_cursor(f), "NULL");
}

static void test_bad_column_type(void **state)
{
	struct fx *f = *state;
	struct poller *p = NULL;

	COLUMNS[1] = (struct cfg_column){ "price", "DECIMAL(50, 2)" };
	assert_int_equal(poller_new(NULL, &f->src, &p, &f->err), SL_E_CONFIG);
	COLUMNS[1] = (struct cfg_column){ "price", "DOUBLE" };
	assert_null(p);
	assert_non_null(strstr(f->err.msg, "in column price of source rates"));
}

/* ---- the thread ---- */

static bool landed_three(struct fx *f)
{
	/* the status is updated once the poll's commit is answered */
	return query_int(f->probe, "SELECT count(*) FROM landing.rates") >= 3 &&
	       status_int(f, "polls") >= 3;
}

static bool one_held(struct fx *f)
{
	return held(f) >= 1;
}

static void test_thread_polls_and_stops(void **state)
{
	struct fx *f = *state;
	struct wh *r;

	f->src.interval_ms = 50;
	f->src.timeout_ms = 30000;
	assert_int_equal(poller_new(NULL, &f->src, &f->p, &f->err), 0);
	api_answer(&f->api, 200, "[{\"id\": 1}]");
	assert_int_equal(wh_connect(f->reader, &r, &f->err), 0);
	assert_int_equal(poller_start(f->p, r, f->wr, NULL, &f->err), 0);
	assert_true(wait_until(f, landed_three));
	/* a poll waiting for an answer does not hold the stop up: the stop ends
	 * it, where waiting would have ended it in its 30 s timeout */
	hang(f);
	assert_true(wait_until(f, one_held));
	poller_stop(f->p);
	assert_int_equal(held(f), 1);
	assert_string_equal(status_str(f, "state"), "failing");
	assert_non_null(strstr(status_str(f, "last_error"), "/rates: stopped"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_rows_land_typed),
		T(test_empty_page_lands_nothing),
		T(test_cursor_sent_and_advanced),
		T(test_cursor_param_numeric),
		T(test_cursor_arrives_whole),
		cmocka_unit_test(test_cursor_cmp),
		cmocka_unit_test(test_request_url),
		T(test_json_path),
		T(test_default_rows),
		T(test_headers_from_environment),
		cmocka_unit_test(test_header_expand),
		T(test_http_error_backs_off),
		cmocka_unit_test(test_backoff_ms),
		T(test_bad_json),
		T(test_timeout),
		T(test_connection_refused),
		T(test_page_lands_whole),
		T(test_page_refused_by_the_table),
		T(test_bad_column_type),
		T(test_thread_polls_and_stops),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
