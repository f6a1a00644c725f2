/*
 * The request of a poll: the URL with the cursor in its query, the headers
 * with ${VAR} taken from the environment, and the HTTP GET itself
 * (libcurl), which a flag set from another thread or a signal handler ends
 * at once. Nothing here parses the page or touches the warehouse.
 */
#ifndef SL_INGEST_POLL_FETCH_H
#define SL_INGEST_POLL_FETCH_H

#include <stdatomic.h>

struct arena;
struct buf;
struct sl_err;
struct source_cfg;

/* The query parameter that carries the cursor unless cursor_param says. */
#define POLL_CURSOR_PARAM "since"
/* The largest response read; a bigger one fails the poll. */
#define POLL_MAX_BODY (64 * 1024 * 1024)

/* value with each ${NAME} replaced by the environment variable NAME, in a.
 * SL_E_CONFIG naming the variable when it is not set or empty. */
int poll_header_expand(struct arena *a, const char *value, const char **out, struct sl_err *err);

/* The URL one poll requests, in a: src->url, and when cursor is not NULL
 * the cursor parameter added to its query (before a fragment), the value
 * URL-encoded as a form encodes it (a space is '+'), so that the API reads
 * back the same bytes whatever they are. SL_E_CONFIG when src->url is not
 * a URL. */
int poll_request_url(struct arena *a, const struct source_cfg *src, const char *cursor,
		     const char **out, struct sl_err *err);

/* GETs url with src's headers (expanded; Accept: application/json unless
 * one of them is an Accept) and timeout into body, at most POLL_MAX_BODY
 * bytes; body stays the caller's to release, on failure too. Redirects are
 * not followed. *status gets the answer's status, 0 when none came.
 * cancel is only read: true before or during the transfer ends it.
 * What it builds (headers, the quoted start of a body) and the request's
 * libcurl handles go to a: the handles are closed when a is reset. Errors:
 *   SL_E_CONFIG    a header's variable not set or empty (with a context
 *                  line naming the header and the source)
 *   SL_E_IO        no connection, no complete answer within the timeout,
 *                  a redirect, a status other than 2xx (quoting the start
 *                  of the body: "HTTP 500: {...}")
 *   SL_E_TOOBIG    a body over POLL_MAX_BODY
 *   SL_E_BUSY      cancelled ("stopped")
 *   SL_E_INTERNAL  libcurl could not start a request */
int poll_fetch(struct arena *a, const struct source_cfg *src, const char *url,
	       atomic_bool *cancel, struct buf *body, int *status, struct sl_err *err);

#endif
