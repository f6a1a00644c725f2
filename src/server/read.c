/*
 * This file implements the read endpoint (read.h). The HTTP thread only
 * checks the request and queues it; the reader's thread runs the queries
 * one at a time on its own connection. It must never write: what the
 * warehouse would take as a write is refused by wh_query_readonly, not
 * here.
 */
#include "server/read.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "server/http.h"
#include "server/sqlout.h"
#include "warehouse/wh.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct server_reader {
	struct wh *w;    /* the first connection: the reader's is opened from it */
	struct wh *conn; /* the reader thread's */
	struct worker_queue *queue;
	atomic_int waiting;
	atomic_bool stopping; /* what is still queued is not run */
};

struct read_call {
	struct server_reader *r;
	struct http_call *c;
	enum sql_format format;
	struct wh_read_limits lim;
};

int server_reader_start(struct wh *w, struct server_reader **out, struct sl_err *err)
{
	struct server_reader *r = xcalloc(1, sizeof(*r));
	int rc;

	r->w = w;
	rc = worker_queue_start(&r->queue, "sql reader", err);
	if (rc) {
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void server_reader_stop(struct server_reader *r)
{
	atomic_store(&r->stopping, true);
	worker_queue_stop(r->queue);
	if (r->conn)
		wh_close(r->conn);
	free(r);
}

static void reply_failure(struct http_call *c, const struct sl_err *err)
{
	switch (err->code) {
	case SL_E_USAGE:
		http_reply_error(c, 403, "read only", err->msg);
		break;
	case SL_E_SQL:
		http_reply_error(c, 400, "query failed", err->msg);
		break;
	case SL_E_BUSY:
		http_reply_error(c, 504, "query timeout", err->msg);
		break;
	default:
		http_reply_sl_err(c, err);
	}
}

/* Runs the query and answers it. */
static void read_answer(struct server_reader *r, struct read_call *rc)
{
	struct sl_err err = SL_ERR_INIT;
	struct wh_result *res = NULL;
	struct buf body = BUF_INIT;
	bool truncated = false;
	int code = r->conn ? 0 : wh_connect(r->w, &r->conn, &err);

	if (!code)
		code = wh_query_readonly(r->conn, http_call_body(rc->c, NULL), &rc->lim, &res,
					 &truncated, &err);
	if (code) {
		/* a failure other than the query's own may have broken the
		 * connection: the next query opens another */
		if (r->conn && code != SL_E_USAGE && code != SL_E_SQL && code != SL_E_BUSY) {
			wh_close(r->conn);
			r->conn = NULL;
		}
		reply_failure(rc->c, &err);
		return;
	}
	sql_format_write(res, rc->lim.max_rows, rc->format, truncated, &body);
	http_call_add_header(rc->c, "X-Sluice-Truncated", truncated ? "true" : "false");
	http_reply(rc->c, 200, sql_format_type(rc->format), body.buf, body.len);
	wh_result_free(res);
	buf_release(&body);
}

/* On the reader's thread. */
static void read_run(void *arg)
{
	struct read_call *rc = arg;

	if (atomic_load(&rc->r->stopping))
		http_reply_error(rc->c, 503, "stopping", "the server is stopping");
	else
		read_answer(rc->r, rc);
	atomic_fetch_sub(&rc->r->waiting, 1);
	free(rc);
}

static bool read_params(struct http_call *c, struct read_call *rc)
{
	const char *format = http_call_query(c, "format");
	long long rows, ms, offset;

	if (format && !sql_format_parse(format, &rc->format)) {
		http_reply_error(c, 400, "bad parameter", "format must be json, csv or ndjson");
		return false;
	}
	if (!format)
		rc->format = sql_format_accept(http_call_header(c, "Accept"));
	if (!http_call_query_number(c, "max_rows", SQL_DEFAULT_ROWS, 1, SQL_MAX_ROWS, &rows) ||
	    !http_call_query_number(c, "timeout_ms", SQL_TIMEOUT_MS, 1, SQL_TIMEOUT_MAX_MS, &ms) ||
	    !http_call_query_number(c, "offset", 0, 0, SQL_MAX_OFFSET, &offset))
		return false;
	rc->lim = (struct wh_read_limits){ .max_rows = (size_t)rows, .max_bytes = SQL_MAX_BYTES,
					   .timeout_ms = ms, .offset = (uint64_t)offset };
	return true;
}

static bool read_body(struct http_call *c)
{
	size_t len;
	const char *sql = http_call_body(c, &len);
	char detail[128];

	if (len > SQL_MAX_TEXT) {
		snprintf(detail, sizeof(detail), "the query is %zu bytes, over the %d bytes taken",
			 len, SQL_MAX_TEXT);
		http_reply_error(c, 413, "query too long", detail);
		return false;
	}
	if (strspn(sql, " \t\r\n") == len) {
		http_reply_error(c, 400, "no query", "send the query as the request's body");
		return false;
	}
	if (strlen(sql) != len) {
		http_reply_error(c, 400, "bad query", "the query holds a NUL byte");
		return false;
	}
	return true;
}

void server_reader_answer(struct server_reader *r, struct http_call *c)
{
	struct read_call *rc = xcalloc(1, sizeof(*rc));

	rc->r = r;
	rc->c = c;
	if (!read_body(c) || !read_params(c, rc)) {
		free(rc);
		return;
	}
	if (atomic_fetch_add(&r->waiting, 1) >= SQL_MAX_WAITING) {
		atomic_fetch_sub(&r->waiting, 1);
		http_call_add_header(c, "Retry-After", "1");
		http_reply_error(c, 503, "busy", "too many queries waiting; retry");
		free(rc);
		return;
	}
	worker_queue_push(r->queue, read_run, rc);
}
