/*
 * This file implements the pollers: one poll (the stored cursor, the
 * request of poll_fetch.c, the page of poll_page.c, the landing of its
 * rows and cursor through the writer), the status, the schedule with its
 * backoff, and a poller's thread. It must never land part of a page, store
 * a cursor apart from the rows that raised it, or let a cursor go back.
 */
#include "ingest/poll.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "ingest/poll_fetch.h"
#include "ingest/poll_page.h"
#include "ingest/status_time.h"
#include "ingest/writer.h"
#include "live/advance.h"
#include "project/config.h"
#include "project/inputs.h"
#include "warehouse/wh.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct poller {
	struct arena *a; /* the poller itself; each poll's page is a child */
	const struct source_cfg *src;
	char fqn[256];
	const char **names; /* typed columns, then payload */
	int64_t (*mono_ms)(void); /* the schedule's clock */
	atomic_bool cancel;

	struct worker wk; /* its mu guards everything below */
	int64_t polls, rows;
	int64_t last_ok_ms, last_error_ms; /* wall clock; 0: never */
	char *last_error;
	int failures;
	int64_t due_mono_ms; /* the next attempt; 0: at once */
	char *cursor;        /* the last one read or stored */
	bool polled;

	/* the thread, when started */
	bool running;
	struct wh *r;
	struct ingest_writer *wr;
	FILE *log;
};

/* ---- the poller ---- */

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

int poller_new(struct arena *parent, const struct source_cfg *src, struct poller **out,
	       struct sl_err *err)
{
	struct arena *a = arena_new(parent);
	struct source_cfg probe = *src;
	struct poll_page page;
	struct poller *p;
	int rc;

	/* the column types are checked once here, not first at a poll */
	probe.json_path = NULL;
	rc = poll_page_parse(a, &probe, "[]", 2, &page, err);
	arena_reset(a);
	if (rc) {
		arena_free(a);
		return rc;
	}
	p = arena_alloc(a, sizeof(*p));
	p->a = a;
	p->src = src;
	inputs_source_name(src->name, p->fqn, sizeof(p->fqn));
	p->names = arena_alloc(a, (src->ncolumns + 1) * sizeof(char *));
	for (size_t c = 0; c < src->ncolumns; c++)
		p->names[c] = src->columns[c].name;
	p->names[src->ncolumns] = "payload";
	p->mono_ms = units_mono_ms;
	atomic_init(&p->cancel, false);
	worker_init(&p->wk);
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
	worker_destroy(&p->wk);
	free(p->last_error);
	free(p->cursor);
	arena_free(p->a);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The outcome into the status and the schedule. */
static void poller_record(struct poller *p, int rc, const struct sl_err *err, int64_t started,
			  int64_t rows, const char *cursor)
{
	int64_t now = p->mono_ms();

	pthread_mutex_lock(&p->wk.mu);
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
	pthread_mutex_unlock(&p->wk.mu);
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
	struct arena *a = arena_new(p->a);
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
		rc = poll_fetch(a, p->src, url, &p->cancel, &body, &res->http_status, &inner);
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

	pthread_mutex_lock(&p->wk.mu);
	wait = p->due_mono_ms - p->mono_ms();
	pthread_mutex_unlock(&p->wk.mu);
	return wait > 0 ? wait : 0;
}

void poller_cancel(struct poller *p)
{
	atomic_store(&p->cancel, true);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *poller_status(struct poller *p)
{
	json_t *o = json_object();
	int64_t wait;

	pthread_mutex_lock(&p->wk.mu);
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
	json_object_set_new(o, "last_ok", ingest_status_time(p->last_ok_ms));
	json_object_set_new(o, "last_error", str_or_null(p->last_error));
	json_object_set_new(o, "last_error_at", ingest_status_time(p->last_error_ms));
	json_object_set_new(o, "failures", json_integer(p->failures));
	json_object_set_new(o, "next_attempt", ingest_status_time(units_now_ms() + wait));
	json_object_set_new(o, "next_attempt_in_ms", json_integer(wait));
	json_object_set_new(o, "cursor", str_or_null(p->cursor));
	pthread_mutex_unlock(&p->wk.mu);
	return o;
}

/* ---- the thread ---- */

/* How often a poller whose warehouse connection is lost tries it. */
#define RECONNECT_POLL_MS 100

static void *run(void *arg)
{
	struct poller *p = arg;

	pthread_mutex_lock(&p->wk.mu);
	while (!p->wk.stop) {
		int64_t wait = p->due_mono_ms - p->mono_ms();
		struct sl_err err = SL_ERR_INIT;
		int failures = p->failures, rc;

		/* a lost warehouse connection is opened again while the poll
		 * waits, so that the health check sees it back */
		if (wait > 0 && wh_lost(p->r)) {
			pthread_mutex_unlock(&p->wk.mu);
			wh_reconnect(p->r, NULL);
			pthread_mutex_lock(&p->wk.mu);
			if (wh_lost(p->r) && wait > RECONNECT_POLL_MS)
				wait = RECONNECT_POLL_MS;
			if (wh_lost(p->r))
				worker_wait_until(&p->wk, units_mono_ms() + wait);
			continue;
		}
		if (wait > 0) {
			worker_wait_until(&p->wk, units_mono_ms() + wait);
			continue;
		}
		pthread_mutex_unlock(&p->wk.mu);
		rc = poller_poll(p, p->r, p->wr, NULL, &err);
		if (p->log && rc && rc != SL_E_BUSY)
			fprintf(p->log, "sluice serve: poll %s failed: %s\n", p->src->name, err.msg);
		else if (p->log && !rc && failures)
			fprintf(p->log, "sluice serve: poll %s recovered\n", p->src->name);
		if (p->log)
			fflush(p->log);
		pthread_mutex_lock(&p->wk.mu);
	}
	pthread_mutex_unlock(&p->wk.mu);
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
	if (worker_run(&p->wk, run, p, "poller", NULL)) {
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
	worker_stop(&p->wk);
	p->running = false;
	pthread_mutex_lock(&p->wk.mu);
	wh_close(p->r);
	p->r = NULL;
	pthread_mutex_unlock(&p->wk.mu);
}

bool poller_down(struct poller *p)
{
	bool down;

	pthread_mutex_lock(&p->wk.mu);
	down = p->r && wh_lost(p->r);
	pthread_mutex_unlock(&p->wk.mu);
	return down;
}
