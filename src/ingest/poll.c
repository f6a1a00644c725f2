/*
 * This file implements poll sources: the request (libcurl), the response
 * into rows (webhook.c's row building), the cursor, the landing through the
 * writer, and the schedule with its backoff. It must never land part of a
 * page, store a cursor apart from the rows that raised it, follow a
 * redirect (the headers may carry credentials meant for one host) or put
 * a header value into a message.
 */
#include "ingest/poll.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "ingest/isotime.h"
#include "ingest/jsontext.h"
#include "ingest/writer.h"
#include "live/advance.h"
#include "project/config.h"
#include "project/inputs.h"
#include "warehouse/wh.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define POLL_TIMEOUT_DEFAULT_MS 30000
#define POLL_CONNECT_TIMEOUT_MS 10000
#define POLL_SNIPPET 200 /* bytes of an error response quoted in the message */

struct poller {
	const struct source_cfg *src;
	char fqn[256];
	const char **names; /* typed columns, then payload */
	int64_t (*mono_ms)(void); /* the schedule's clock */
	atomic_bool cancel;

	pthread_mutex_t mu; /* guards everything below */
	pthread_cond_t cv;
	int64_t polls, rows;
	int64_t last_ok_ms, last_error_ms; /* wall clock; 0: never */
	char *last_error;
	int failures;
	int64_t due_mono_ms; /* the next attempt; 0: at once */
	char *cursor;        /* the last one read or stored */
	bool polled;

	/* the thread, when started */
	bool running, stop;
	pthread_t tid;
	struct wh *r;
	struct ingest_writer *wr;
	FILE *log;
};

/* ---- the response ---- */

static bool rows_array(const json_t *v)
{
	const json_t *item;
	size_t i;

	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, item)
		if (!json_is_object(item))
			return false;
	return true;
}

/* The value at json_path; *found is false when a key on the way is
 * missing. */
static const json_t *at_path(const json_t *root, const char *path, bool *found)
{
	const json_t *v = root;
	const char *seg = path, *dot;

	*found = false;
	for (;; seg = dot + 1) {
		dot = strchr(seg, '.');
		if (!json_is_object(v))
			return NULL;
		v = json_object_getn(v, seg, dot ? (size_t)(dot - seg) : strlen(seg));
		if (!v)
			return NULL;
		if (!dot)
			break;
	}
	*found = true;
	return v;
}

/* Where the rows are: *rows is NULL for none (JSON null at json_path). */
static int find_rows(struct arena *a, const struct source_cfg *src, const json_t *root,
		     const json_t **rows, struct sl_err *err)
{
	const char *key, *first = NULL;
	const json_t *v;
	size_t n = 0;
	bool found;

	*rows = NULL;
	if (src->json_path) {
		v = at_path(root, src->json_path, &found);
		if (!found)
			return sl_err_set(err, SL_E_INVALID,
					  "the response has no '%s'\n"
					  "  hint: json_path names the keys from the top of the response "
					  "down to the array of rows",
					  src->json_path);
		if (json_is_array(v) || json_is_object(v))
			*rows = v;
		else if (!json_is_null(v))
			return sl_err_set(err, SL_E_INVALID,
					  "'%s' in the response is %s, not an array of rows",
					  src->json_path, jsontext_kind(v));
		return 0;
	}
	if (json_is_array(root)) {
		*rows = root;
		return 0;
	}
	if (!json_is_object(root))
		return sl_err_set(err, SL_E_INVALID, "the response is %s, not an array of rows",
				  jsontext_kind(root));
	json_object_foreach((json_t *)root, key, v) {
		if (!rows_array(v))
			continue;
		if (!n++) {
			first = key;
			*rows = v;
		} else {
			first = arena_sprintf(a, "%s, %s", first, key);
		}
	}
	if (n == 1)
		return 0;
	*rows = NULL;
	if (!n)
		return sl_err_set(err, SL_E_INVALID,
				  "the response is an object without an array of rows\n"
				  "  hint: set json_path to where the rows are, e.g. data.items");
	return sl_err_set(err, SL_E_INVALID,
			  "the response holds several arrays of objects (%s)\n"
			  "  hint: set json_path to the one with the rows",
			  first);
}

/* A row's cursor as text; NULL when it has none. */
static int cursor_text(struct arena *a, const json_t *v, size_t row, const char *name,
		       const char **out, struct sl_err *err)
{
	char real[JSONTEXT_REAL_MAX];

	*out = NULL;
	switch (json_typeof(v)) {
	case JSON_STRING:
		*out = json_string_value(v);
		return 0;
	case JSON_INTEGER:
		*out = arena_sprintf(a, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_REAL:
		jsontext_real(json_real_value(v), real);
		*out = arena_strdup(a, real);
		return 0;
	case JSON_NULL:
		return 0;
	default:
		return sl_err_set(err, SL_E_INVALID, "row %zu, cursor %s: %s is not a number or a "
						     "string",
				  row, name, jsontext_kind(v));
	}
}

/* The highest cursor among the rows. */
static int page_cursor(struct arena *a, const struct source_cfg *src, const json_t *rows,
		       const char **out, struct sl_err *err)
{
	const json_t *obj, *v;
	const char *text;
	size_t i;
	int rc;

	*out = NULL;
	if (!src->cursor || !rows)
		return 0;
	if (json_is_object(rows)) {
		v = webhook_field(rows, src->cursor);
		rc = v ? cursor_text(a, v, 1, src->cursor, out, err) : 0;
		if (!rc && *out)
			*out = arena_strdup(a, *out);
		return rc;
	}
	json_array_foreach(rows, i, obj) {
		v = webhook_field(obj, src->cursor);
		if (!v)
			continue;
		rc = cursor_text(a, v, i + 1, src->cursor, &text, err);
		if (rc)
			return rc;
		if (text && (!*out || poll_cursor_cmp(text, *out) > 0))
			*out = text;
	}
	if (*out)
		*out = arena_strdup(a, *out); /* the JSON goes before the page does */
	return 0;
}

int poll_page_parse(struct arena *a, const struct source_cfg *src, const char *body, size_t len,
		    struct poll_page *out, struct sl_err *err)
{
	const json_t *rows;
	json_error_t je;
	json_t *root;
	int rc;

	memset(out, 0, sizeof(*out));
	out->rows.ncols = src->ncolumns + 1;
	if (jsontext_blank(body, len))
		return 0;
	root = json_loadb(body, len, JSON_DECODE_ANY, &je);
	if (!root)
		return sl_err_set(err, SL_E_PARSE, "invalid JSON at line %d, column %d: %s", je.line,
				  je.column, je.text);
	rc = find_rows(a, src, root, &rows, err);
	if (!rc && rows)
		rc = webhook_rows_from_json(a, src, rows, &out->rows, err);
	if (!rc)
		rc = page_cursor(a, src, rows, &out->cursor, err);
	json_decref(root);
	if (rc) {
		memset(out, 0, sizeof(*out));
		out->rows.ncols = src->ncolumns + 1;
	}
	return rc;
}

/* ---- cursors ---- */

static bool int_text(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return !*s;
}

/* Integers of any length: sign, then length without leading zeros, then
 * digits. */
static int int_cmp(const char *a, const char *b)
{
	bool na = *a == '-', nb = *b == '-';
	size_t la, lb;
	int c;

	if (*a == '-' || *a == '+')
		a++;
	if (*b == '-' || *b == '+')
		b++;
	while (*a == '0' && a[1])
		a++;
	while (*b == '0' && b[1])
		b++;
	if (!strcmp(a, "0"))
		na = false;
	if (!strcmp(b, "0"))
		nb = false;
	if (na != nb)
		return na ? -1 : 1;
	la = strlen(a);
	lb = strlen(b);
	c = la != lb ? (la < lb ? -1 : 1) : strcmp(a, b);
	if (c > 0)
		c = 1;
	else if (c < 0)
		c = -1;
	return na ? -c : c;
}

/* A number as JSON writes one (and a leading '+'): no hex, inf or nan. */
static bool num_text(const char *s, double *out)
{
	char *end;

	if (!*s || strspn(s, "+-0123456789.eE") != strlen(s))
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !*end && !errno && isfinite(*out);
}

int poll_cursor_cmp(const char *a, const char *b)
{
	char ta[ISOTIME_MAX], tb[ISOTIME_MAX];
	const char *why;
	double da, db;
	int c;

	if (int_text(a) && int_text(b))
		return int_cmp(a, b);
	if (num_text(a, &da) && num_text(b, &db))
		return da < db ? -1 : da > db ? 1 : 0;
	if (!isotime_parse(ISOTIME_TIMESTAMP, a, ta, &why) &&
	    !isotime_parse(ISOTIME_TIMESTAMP, b, tb, &why)) {
		a = ta;
		b = tb;
	}
	c = strcmp(a, b);
	return c < 0 ? -1 : c > 0 ? 1 : 0;
}

/* ---- the request ---- */

int poll_header_expand(struct arena *a, const char *value, const char **out, struct sl_err *err)
{
	struct buf b = BUF_INIT;
	const char *p = value, *open;

	while ((open = strstr(p, "${"))) {
		const char *close = strchr(open, '}');
		char name[256];
		const char *v;

		if (!close || (size_t)(close - open - 2) >= sizeof(name)) {
			buf_release(&b);
			return sl_err_set(err, SL_E_CONFIG, "unclosed ${ in a header value");
		}
		snprintf(name, sizeof(name), "%.*s", (int)(close - open - 2), open + 2);
		v = getenv(name);
		/* an empty token is a mistake, not a token */
		if (!v || !*v) {
			buf_release(&b);
			return sl_err_set(err, SL_E_CONFIG,
					  "environment variable %s is %s (a header of the source "
					  "reads ${%s})\n"
					  "  hint: export %s=... before starting sluice",
					  name, v ? "empty" : "not set", name, name);
		}
		buf_add(&b, p, (size_t)(open - p));
		buf_adds(&b, v);
		p = close + 1;
	}
	buf_adds(&b, p);
	*out = arena_strndup(a, b.buf, b.len);
	buf_release(&b);
	return 0;
}

int poll_request_url(struct arena *a, const struct source_cfg *src, const char *cursor,
		     const char **out, struct sl_err *err)
{
	const char *param = src->cursor_param ? src->cursor_param : POLL_CURSOR_PARAM;
	CURLU *u = curl_url();
	char *url = NULL;
	CURLUcode uc;

	*out = NULL;
	if (!u)
		abort();
	uc = curl_url_set(u, CURLUPART_URL, src->url ? src->url : "", 0);
	/* curl encodes all but the first '=', and config.c lets no '=' into
	 * the name: the value is encoded whole */
	if (!uc && cursor)
		uc = curl_url_set(u, CURLUPART_QUERY, arena_sprintf(a, "%s=%s", param, cursor),
				  CURLU_APPENDQUERY | CURLU_URLENCODE);
	if (!uc)
		uc = curl_url_get(u, CURLUPART_URL, &url, 0);
	curl_url_cleanup(u);
	if (uc == CURLUE_OUT_OF_MEMORY)
		abort();
	if (uc)
		return sl_err_set(err, SL_E_CONFIG, "invalid url '%s' of source %s: %s",
				  src->url ? src->url : "", src->name, curl_url_strerror(uc));
	*out = arena_strdup(a, url);
	curl_free(url);
	return 0;
}

int64_t poll_backoff_ms(int64_t interval_ms, int failures)
{
	int64_t cap = interval_ms > POLL_BACKOFF_MAX_MS / 10 ? POLL_BACKOFF_MAX_MS
							     : interval_ms * 10;
	int64_t d = interval_ms;

	if (cap < interval_ms)
		cap = interval_ms;
	for (int i = 0; i < failures && d < cap; i++)
		d *= 2;
	return d < cap ? d : cap;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_setup(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct buf *body = ctx;

	return buf_add(body, data, size * n) ? 0 : size * n;
}

static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	struct poller *p = ctx;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return atomic_load(&p->cancel) ? 1 : 0;
}

/* The start of an error answer, on one line. */
static const char *snippet(struct arena *a, const struct buf *body)
{
	size_t n = body->len < POLL_SNIPPET ? body->len : POLL_SNIPPET;
	bool cut = n < body->len;
	char *s = arena_strndup(a, body->buf, n);

	for (char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = ' ';
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
	return cut ? arena_sprintf(a, "%s...", s) : s;
}

static int http_failed(CURLcode cr, const char *errbuf, int64_t timeout_ms, struct sl_err *err)
{
	char d[32];

	switch (cr) {
	case CURLE_WRITE_ERROR:
		return sl_err_set(err, SL_E_TOOBIG, "the response is larger than %d MiB",
				  POLL_MAX_BODY / (1024 * 1024));
	case CURLE_OPERATION_TIMEDOUT:
		units_format_duration(timeout_ms, d, sizeof(d));
		return sl_err_set(err, SL_E_IO, "no complete answer within %s\n"
						"  hint: raise the source's timeout",
				  d);
	case CURLE_ABORTED_BY_CALLBACK:
		return sl_err_set(err, SL_E_BUSY, "stopped");
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
		/* the URL names host and port already */
		return sl_err_set(err, SL_E_IO, "cannot connect: %s", curl_easy_strerror(cr));
	default:
		return sl_err_set(err, SL_E_IO, "%s", errbuf[0] ? errbuf : curl_easy_strerror(cr));
	}
}

/* GETs url into body; a non-2xx answer is an error quoting its start. */
static int fetch(struct poller *p, struct arena *a, const char *url, struct buf *body,
		 int *status, struct sl_err *err)
{
	const struct source_cfg *src = p->src;
	int64_t timeout = src->timeout_ms > 0 ? src->timeout_ms : POLL_TIMEOUT_DEFAULT_MS;
	struct curl_slist *hdrs = NULL, *more;
	char errbuf[CURL_ERROR_SIZE] = "";
	bool accept = false;
	long code = 0;
	CURLcode cr;
	CURL *c;
	int rc = 0;

	*status = 0;
	pthread_once(&curl_once, curl_setup);
	for (size_t i = 0; !rc && i < src->nheaders; i++) {
		const char *value;

		rc = poll_header_expand(a, src->headers[i].value, &value, err);
		if (rc) {
			sl_err_context(err, "in header %s of source %s", src->headers[i].name,
				       src->name);
			break;
		}
		accept = accept || !strcasecmp(src->headers[i].name, "Accept");
		more = curl_slist_append(hdrs, arena_sprintf(a, "%s: %s", src->headers[i].name,
							     value));
		if (!more)
			abort();
		hdrs = more;
	}
	if (!rc && !accept) {
		more = curl_slist_append(hdrs, "Accept: application/json");
		if (!more)
			abort();
		hdrs = more;
	}
	c = rc ? NULL : curl_easy_init();
	if (!rc && !c)
		rc = sl_err_set(err, SL_E_INTERNAL, "cannot start an HTTP request");
	if (rc) {
		curl_slist_free_all(hdrs);
		return rc;
	}
	body->cap = POLL_MAX_BODY;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "sluice/" SLUICE_VERSION);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(timeout < POLL_CONNECT_TIMEOUT_MS ? timeout
								  : POLL_CONNECT_TIMEOUT_MS));
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, p);
	cr = atomic_load(&p->cancel) ? CURLE_ABORTED_BY_CALLBACK : curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	*status = (int)code;
	if (cr != CURLE_OK) {
		rc = http_failed(cr, errbuf, timeout, err);
	} else if (code >= 300 && code < 400) {
		char *to = NULL;

		curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &to);
		rc = sl_err_set(err, SL_E_IO,
				"HTTP %ld, redirected%s%s\n"
				"  hint: redirects are not followed; set url to the address it "
				"points to",
				code, to ? " to " : "", to ? to : "");
	} else if (code < 200 || code >= 300) {
		rc = body->len ? sl_err_set(err, SL_E_IO, "HTTP %ld: %s", code, snippet(a, body))
			       : sl_err_set(err, SL_E_IO, "HTTP %ld", code);
	}
	curl_easy_cleanup(c);
	curl_slist_free_all(hdrs);
	return rc;
}

/* ---- the poller ---- */

int poller_new(const struct source_cfg *src, struct poller **out, struct sl_err *err)
{
	struct arena *a = arena_new(NULL);
	struct source_cfg probe = *src;
	struct poll_page page;
	struct poller *p;
	int rc;

	/* the column types are checked once here, not first at a poll */
	probe.json_path = NULL;
	rc = poll_page_parse(a, &probe, "[]", 2, &page, err);
	arena_free(a);
	if (rc)
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p)
		abort();
	p->src = src;
	inputs_source_name(src->name, p->fqn, sizeof(p->fqn));
	p->names = calloc(src->ncolumns + 1, sizeof(char *));
	if (!p->names)
		abort();
	for (size_t c = 0; c < src->ncolumns; c++)
		p->names[c] = src->columns[c].name;
	p->names[src->ncolumns] = "payload";
	p->mono_ms = units_mono_ms;
	atomic_init(&p->cancel, false);
	pthread_mutex_init(&p->mu, NULL);
	{
		pthread_condattr_t attr;

		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&p->cv, &attr);
		pthread_condattr_destroy(&attr);
	}
	*out = p;
	return 0;
}

void poller_set_clock(struct poller *p, int64_t (*mono_ms)(void))
{
	p->mono_ms = mono_ms;
}

void poller_free(struct poller *p)
{
	if (!p)
		return;
	poller_stop(p);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p->last_error);
	free(p->cursor);
	free(p->names);
	free(p);
}

static char *dup_or_null(const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		abort();
	return d;
}

/* The outcome into the status and the schedule. */
static void poller_record(struct poller *p, int rc, const struct sl_err *err, int64_t started,
			  int64_t rows, const char *cursor)
{
	int64_t now = p->mono_ms();

	pthread_mutex_lock(&p->mu);
	p->polled = true;
	p->polls++;
	if (cursor && (!p->cursor || strcmp(cursor, p->cursor))) {
		free(p->cursor);
		p->cursor = dup_or_null(cursor);
	}
	if (rc) {
		p->failures++;
		p->last_error_ms = units_now_ms();
		free(p->last_error);
		p->last_error = dup_or_null(err->msg);
		p->due_mono_ms = now + poll_backoff_ms(p->src->interval_ms, p->failures);
	} else {
		p->failures = 0;
		p->rows += rows;
		p->last_ok_ms = units_now_ms();
		p->due_mono_ms = started + p->src->interval_ms;
	}
	pthread_mutex_unlock(&p->mu);
}

/* The page's rows and its cursor, in one batch. */
static int land(struct poller *p, struct ingest_writer *wr, const struct poll_page *page,
		const char *cursor, struct poll_result *res, struct sl_err *err)
{
	struct ingest_batch b = {
		.source = p->fqn,
		.names = p->names,
		.ncols = page->rows.ncols,
		.nrows = page->rows.nrows,
		.cells = page->rows.cells,
		.cursor = cursor,
	};
	struct ingest_result ires;
	int rc = ingest_submit_wait(wr, &b, &ires, err);

	if (rc)
		return rc;
	if (ires.code)
		return sl_err_set(err, ires.code, "%s", ires.error);
	res->rows = ires.rows;
	res->seq = ires.seq;
	return 0;
}

int poller_poll(struct poller *p, struct wh *r, struct ingest_writer *wr,
		struct poll_result *res, struct sl_err *err)
{
	struct arena *a = arena_new(NULL);
	struct sl_err inner = SL_ERR_INIT, local = SL_ERR_INIT;
	struct poll_result mine;
	struct buf body = BUF_INIT;
	struct poll_page page;
	const char *last = NULL, *next = NULL, *url = NULL;
	int64_t started = p->mono_ms();
	int rc;

	if (!res)
		res = &mine;
	if (!err)
		err = &local;
	memset(res, 0, sizeof(*res));
	rc = atomic_load(&p->cancel) ? sl_err_set(&inner, SL_E_BUSY, "stopped") : 0;
	if (!rc)
		rc = live_cursor_get(r, a, p->fqn, &last, &inner);
	if (!rc)
		rc = poll_request_url(a, p->src, last, &url, &inner);
	if (!rc)
		rc = fetch(p, a, url, &body, &res->http_status, &inner);
	if (!rc)
		rc = poll_page_parse(a, p->src, body.buf, body.len, &page, &inner);
	if (!rc) {
		next = page.cursor && (!last || poll_cursor_cmp(page.cursor, last) > 0) ? page.cursor
											  : NULL;
		if (page.rows.nrows)
			rc = land(p, wr, &page, next, res, &inner);
	}
	if (rc) {
		if (url)
			sl_err_set(err, rc, "%s: %s", url, inner.msg);
		else
			sl_err_set(err, rc, "%s", inner.msg);
		next = NULL;
		res->rows = res->seq = 0;
	}
	if (!next)
		next = last;
	if (next)
		snprintf(res->cursor, sizeof(res->cursor), "%s", next);
	poller_record(p, rc, err, started, res->rows, next);
	buf_release(&body);
	arena_free(a);
	return rc;
}

int64_t poller_wait_ms(struct poller *p)
{
	int64_t wait;

	pthread_mutex_lock(&p->mu);
	wait = p->due_mono_ms - p->mono_ms();
	pthread_mutex_unlock(&p->mu);
	return wait > 0 ? wait : 0;
}

void poller_cancel(struct poller *p)
{
	atomic_store(&p->cancel, true);
}

static json_t *time_or_null(int64_t ms)
{
	char out[32];
	time_t s = (time_t)(ms / 1000);
	struct tm tm;

	if (!ms)
		return json_null();
	gmtime_r(&s, &tm);
	strftime(out, sizeof(out), "%Y-%m-%d %H:%M:%S", &tm);
	return json_string(out);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *poller_status(struct poller *p)
{
	json_t *o = json_object();
	int64_t wait;

	pthread_mutex_lock(&p->mu);
	wait = p->due_mono_ms - p->mono_ms();
	if (wait < 0)
		wait = 0;
	json_object_set_new(o, "source", json_string(p->src->name));
	json_object_set_new(o, "url", json_string(p->src->url ? p->src->url : ""));
	json_object_set_new(o, "state", json_string(!p->polled ? "new"
						     : p->failures ? "failing"
								   : "ok"));
	json_object_set_new(o, "polls", json_integer(p->polls));
	json_object_set_new(o, "rows", json_integer(p->rows));
	json_object_set_new(o, "last_ok", time_or_null(p->last_ok_ms));
	json_object_set_new(o, "last_error", str_or_null(p->last_error));
	json_object_set_new(o, "last_error_at", time_or_null(p->last_error_ms));
	json_object_set_new(o, "failures", json_integer(p->failures));
	json_object_set_new(o, "next_attempt", time_or_null(units_now_ms() + wait));
	json_object_set_new(o, "next_attempt_in_ms", json_integer(wait));
	json_object_set_new(o, "cursor", str_or_null(p->cursor));
	pthread_mutex_unlock(&p->mu);
	return o;
}

/* ---- the thread ---- */

static void wait_for(struct poller *p, int64_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&p->cv, &p->mu, &ts);
}

static void *run(void *arg)
{
	struct poller *p = arg;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		int64_t wait = p->due_mono_ms - p->mono_ms();
		struct sl_err err = SL_ERR_INIT;
		int failures = p->failures, rc;

		if (wait > 0) {
			wait_for(p, wait);
			continue;
		}
		pthread_mutex_unlock(&p->mu);
		rc = poller_poll(p, p->r, p->wr, NULL, &err);
		if (p->log && rc && rc != SL_E_BUSY)
			fprintf(p->log, "sluice serve: poll %s failed: %s\n", p->src->name, err.msg);
		else if (p->log && !rc && failures)
			fprintf(p->log, "sluice serve: poll %s recovered\n", p->src->name);
		if (p->log)
			fflush(p->log);
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int poller_start(struct poller *p, struct wh *r, struct ingest_writer *wr, FILE *log,
		 struct sl_err *err)
{
	if (p->running)
		return sl_err_set(err, SL_E_USAGE, "poller '%s' is running already", p->src->name);
	p->r = r;
	p->wr = wr;
	p->log = log;
	p->stop = false;
	if (pthread_create(&p->tid, NULL, run, p)) {
		p->r = NULL;
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the poller of '%s'",
				  p->src->name);
	}
	p->running = true;
	return 0;
}

void poller_stop(struct poller *p)
{
	if (!p->running)
		return;
	poller_cancel(p);
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->tid, NULL);
	p->running = false;
	wh_close(p->r);
	p->r = NULL;
}
