/*
 * This file implements the request of a poll: its URL, its headers and the
 * GET through libcurl, with the answer's failures put into words. It must
 * never follow a redirect (the headers may carry credentials meant for one
 * host), put a header value into a message, or read more than
 * POLL_MAX_BODY.
 */
#include "ingest/poll_fetch.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/envref.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "project/config.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define POLL_TIMEOUT_DEFAULT_MS 30000
#define POLL_CONNECT_TIMEOUT_MS 10000
#define POLL_SNIPPET 200 /* bytes of an error response quoted in the message */

int poll_header_expand(struct arena *a, const char *value, const char **out, struct sl_err *err)
{
	return envref_expand(a, value, "a header of the source", out, err);
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
		xalloc_die();
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
		xalloc_die();
	if (uc)
		return sl_err_set(err, SL_E_CONFIG, "invalid url '%s' of source %s: %s",
				  src->url ? src->url : "", src->name, curl_url_strerror(uc));
	*out = arena_strdup(a, url);
	curl_free(url);
	return 0;
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
	atomic_bool *cancel = ctx;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return atomic_load(cancel) ? 1 : 0;
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

static void headers_free(void *hdrs)
{
	curl_slist_free_all(hdrs);
}

static void handle_free(void *c)
{
	curl_easy_cleanup(c);
}

int poll_fetch(struct arena *a, const struct source_cfg *src, const char *url,
	       atomic_bool *cancel, struct buf *body, int *status, struct sl_err *err)
{
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
			xalloc_die();
		hdrs = more;
	}
	if (!rc && !accept) {
		more = curl_slist_append(hdrs, "Accept: application/json");
		if (!more)
			xalloc_die();
		hdrs = more;
	}
	/* the request's handles go with the poll's arena, whatever happens */
	if (hdrs)
		arena_on_reset(a, headers_free, hdrs);
	c = rc ? NULL : curl_easy_init();
	if (!rc && !c)
		rc = sl_err_set(err, SL_E_INTERNAL, "cannot start an HTTP request");
	if (rc)
		return rc;
	arena_on_reset(a, handle_free, c);
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
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, cancel);
	cr = atomic_load(cancel) ? CURLE_ABORTED_BY_CALLBACK : curl_easy_perform(c);
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
	return rc;
}
