/*
 * This file implements the CLI's side of the loopback server: one HTTP
 * request with libcurl to 127.0.0.1, its whole answer (bounded) read
 * before it is parsed. It must never go through a proxy (the server is on
 * this machine, and the token is meant for it alone) nor touch signals (the
 * CLI has handlers of its own).
 */
#include "server/client.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"

#include <curl/curl.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CLIENT_TIMEOUT_MS 30000

bool server_find(const char *root, int *port)
{
	char path[4096];
	json_t *doc;
	long pid;

	snprintf(path, sizeof(path), "%s/.sluice/server.json", root);
	doc = json_load_file(path, 0, NULL);
	if (!doc)
		return false;
	pid = (long)json_integer_value(json_object_get(doc, "pid"));
	*port = (int)json_integer_value(json_object_get(doc, "port"));
	json_decref(doc);
	/* a server killed without its clean stop leaves the file behind */
	return pid > 0 && *port > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

struct request {
	CURL *c;
	CURLU *url;
	struct curl_slist *hdrs;
	struct buf body;
	bool truncated;
	char errbuf[CURL_ERROR_SIZE];
};

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct buf *body = ctx;

	/* a short count makes curl end the transfer with CURLE_WRITE_ERROR */
	return buf_add(body, data, size * n) ? 0 : size * n;
}

static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
	static const char name[] = "x-sluice-truncated: true";
	struct request *rq = ctx;

	if (size * n >= sizeof(name) - 1 && strncasecmp(data, name, sizeof(name) - 1) == 0)
		rq->truncated = true;
	return size * n;
}

static void headers_add(struct curl_slist **hdrs, const char *line)
{
	struct curl_slist *more = curl_slist_append(*hdrs, line);

	if (!more)
		xalloc_die();
	*hdrs = more;
}

/* The server's URL for path, with the bytes a path may not hold
 * percent-encoded: a name from the command line can never turn into a
 * query or a fragment, and the server refuses it as a path instead. */
static int url_make(struct request *rq, int port, const char *path, const char *query,
		    struct sl_err *err)
{
	char base[64];

	snprintf(base, sizeof(base), "http://127.0.0.1:%d", port);
	rq->url = curl_url();
	if (!rq->url)
		xalloc_die();
	if (curl_url_set(rq->url, CURLUPART_URL, base, 0) ||
	    curl_url_set(rq->url, CURLUPART_PATH, path, CURLU_URLENCODE) ||
	    (query && curl_url_set(rq->url, CURLUPART_QUERY, query, 0)))
		return sl_err_set(err, SL_E_INTERNAL, "cannot make a URL of '%s'", path);
	return 0;
}

/* The token, and the body's Content-Type or none: the empty body of a
 * POST is no form, which curl would call it. */
static void headers_make(struct request *rq, const char *token, const char *type)
{
	struct buf line = BUF_INIT;

	buf_addf(&line, "Content-Type:%s%s", type ? " " : "", type ? type : "");
	headers_add(&rq->hdrs, line.buf);
	if (token) {
		buf_reset(&line);
		buf_addf(&line, "Authorization: Bearer %s", token);
		headers_add(&rq->hdrs, line.buf);
	}
	buf_release(&line);
}

static int request_setup(struct request *rq, int port, const struct server_ask *ask,
			 struct sl_err *err)
{
	int rc = url_make(rq, port, ask->path, ask->query, err);

	if (rc)
		return rc;
	headers_make(rq, ask->token, ask->content_type);
	rq->c = curl_easy_init();
	if (!rq->c)
		return sl_err_set(err, SL_E_INTERNAL, "cannot start an HTTP request");
	rq->body.cap = SERVER_MAX_ANSWER;
	curl_easy_setopt(rq->c, CURLOPT_CURLU, rq->url);
	if (strcmp(ask->method, "GET")) {
		curl_easy_setopt(rq->c, CURLOPT_POSTFIELDS, ask->body ? ask->body : "");
		curl_easy_setopt(rq->c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(ask->body ? ask->body_len : 0));
		curl_easy_setopt(rq->c, CURLOPT_CUSTOMREQUEST, ask->method);
	}
	curl_easy_setopt(rq->c, CURLOPT_HTTPHEADER, rq->hdrs);
	curl_easy_setopt(rq->c, CURLOPT_USERAGENT, "sluice/" SLUICE_VERSION);
	/* http_proxy and its kin name a proxy for the world, not for loopback */
	curl_easy_setopt(rq->c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(rq->c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(rq->c, CURLOPT_TIMEOUT_MS,
			 ask->timeout_ms ? ask->timeout_ms : (long)CLIENT_TIMEOUT_MS);
	curl_easy_setopt(rq->c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(rq->c, CURLOPT_HEADERDATA, rq);
	curl_easy_setopt(rq->c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(rq->c, CURLOPT_WRITEDATA, &rq->body);
	curl_easy_setopt(rq->c, CURLOPT_ERRORBUFFER, rq->errbuf);
	return 0;
}

static void request_free(struct request *rq)
{
	curl_easy_cleanup(rq->c);
	curl_url_cleanup(rq->url);
	curl_slist_free_all(rq->hdrs);
	buf_release(&rq->body);
}

static int request_failed(struct request *rq, CURLcode cr, int port, struct sl_err *err)
{
	long os_errno = 0;

	switch (cr) {
	case CURLE_COULDNT_CONNECT:
		curl_easy_getinfo(rq->c, CURLINFO_OS_ERRNO, &os_errno);
		return sl_err_set(err, SL_E_IO, "cannot reach the server on port %d: %s", port,
				  os_errno ? strerror((int)os_errno) : curl_easy_strerror(cr));
	case CURLE_SEND_ERROR:
		return sl_err_set(err, SL_E_IO, "cannot send to the server: %s",
				  rq->errbuf[0] ? rq->errbuf : curl_easy_strerror(cr));
	case CURLE_WRITE_ERROR:
		return sl_err_set(err, SL_E_TOOBIG, "the server on port %d answered more than %d MiB",
				  port, SERVER_MAX_ANSWER / (1024 * 1024));
	default:
		/* closed, timed out, or answered something that is not HTTP */
		return sl_err_set(err, SL_E_IO, "the server on port %d gave no HTTP answer", port);
	}
}

int server_call(int port, const struct server_ask *ask, struct server_answer *ans,
		struct sl_err *err)
{
	struct request rq = { .body = BUF_INIT };
	long code = 0;
	CURLcode cr;
	int rc;

	memset(ans, 0, sizeof(*ans));
	/* curl_easy_init sets libcurl up on first use, under a lock of its own
	 * (libcurl 7.84 on) */
	rc = request_setup(&rq, port, ask, err);
	if (!rc) {
		cr = curl_easy_perform(rq.c);
		rc = cr ? request_failed(&rq, cr, port, err) : 0;
	}
	if (!rc) {
		curl_easy_getinfo(rq.c, CURLINFO_RESPONSE_CODE, &code);
		ans->status = (int)code;
		ans->truncated = rq.truncated;
		ans->body = buf_detach(&rq.body, &ans->len);
	}
	request_free(&rq);
	return rc;
}

int server_request(int port, const char *method, const char *path, const char *token,
		   int *status, json_t **doc, struct sl_err *err)
{
	struct server_ask ask = { .method = method, .path = path, .token = token };
	struct server_answer ans;
	int rc = server_call(port, &ask, &ans, err);

	*status = ans.status;
	*doc = rc ? NULL : json_loadb(ans.body, ans.len, 0, NULL);
	free(ans.body);
	return rc;
}
