/*
 * Poll sources: a JSON API read with an HTTP GET every interval. One poll
 * fetches one page, turns its rows into landing rows the way a webhook body
 * is turned (typed columns, the whole row as payload) and lands them through
 * the landing writer in one batch, together with the source's new cursor:
 * a page lands whole or not at all, and the cursor never runs ahead of the
 * rows. A failed poll (no answer, a non-2xx status, a body that is not the
 * expected JSON, rows the columns refuse) lands nothing and backs off.
 *
 * A poller is one source's state between polls: its status (last success,
 * last error, consecutive failures, next attempt) and its schedule. Polls
 * of one poller never overlap; its status may be read from any thread.
 * Nothing here opens the warehouse: callers hand in the connections.
 * The request is poll_fetch.h's, a page into rows and its cursor
 * poll_page.h's.
 */
#ifndef SL_INGEST_POLL_H
#define SL_INGEST_POLL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ingest_writer;
struct arena;
struct sl_err;
struct source_cfg;
struct wh;

/* The longest wait between attempts while failing, unless the interval is
 * longer still. */
#define POLL_BACKOFF_MAX_MS (5 * 60 * 1000)

/* The wait before the next attempt after `failures` failures in a row:
 * the interval when there is none, then twice the interval, doubling with
 * each further failure, up to ten times the interval or
 * POLL_BACKOFF_MAX_MS, whichever is less (never less than the interval). */
int64_t poll_backoff_ms(int64_t interval_ms, int failures);

struct poller;

/* What one poll did. */
struct poll_result {
	int http_status; /* the answer's status; 0 when none came */
	int64_t rows;    /* rows landed (0: the page was empty) */
	int64_t seq;     /* the sequence they were stamped with */
	char cursor[512]; /* the source's cursor after the poll, "" when none (cut
			   * short when longer) */
};

/* A poller for src (a poll source), which must outlive it, in an arena
 * of its own under parent (may be NULL; if not, it must outlive the
 * poller too), which each poll's page is a child of. Fails with
 * SL_E_CONFIG for a column type DuckDB would refuse. Free with
 * poller_free. */
int poller_new(struct arena *parent, const struct source_cfg *src, struct poller **out,
	       struct sl_err *err);
/* Stops its thread when it has one, then frees it. */
void poller_free(struct poller *p);
/* Makes its schedule (next attempts, the waits until them) read mono_ms,
 * milliseconds on a monotonic clock, instead of the system's, so that a
 * test decides how much time a poll took. Call it before the first poll. */
void poller_set_clock(struct poller *p, int64_t (*mono_ms)(void));

/* One poll now: reads the stored cursor through r, requests the page,
 * lands its rows through wr and waits for their commit. Updates the
 * status and the schedule (the next attempt is due an interval after this
 * one started, or after a backoff when it failed). Returns 0, or the
 * error, whose message starts with the URL requested ("http://h/rates?
 * since=5: HTTP 500: ..."). res may be NULL. */
int poller_poll(struct poller *p, struct wh *r, struct ingest_writer *wr,
		struct poll_result *res, struct sl_err *err);
/* Milliseconds until the next attempt is due (0 when it is). */
int64_t poller_wait_ms(struct poller *p);
/* Makes a transfer in progress end at once and every later poll fail
 * without trying (SL_E_BUSY). Only stores a flag: safe in a signal
 * handler. */
void poller_cancel(struct poller *p);

/* {"source", "url", "state" (new, ok, failing), "polls", "rows",
 * "last_ok", "last_error", "last_error_at", "failures" (in a row),
 * "next_attempt", "next_attempt_in_ms", "cursor"}; times are UTC
 * "YYYY-MM-DD HH:MM:SS" or null. The last error stays after a success;
 * "failures" says whether it is current. A new reference. */
json_t *poller_status(struct poller *p);

/* Runs the poller on a thread of its own until poller_stop: a poll
 * whenever one is due. It owns r from now on; wr must stay running until
 * the poller is stopped. Failures and recoveries are logged to log (may be
 * NULL), a line each. */
int poller_start(struct poller *p, struct wh *r, struct ingest_writer *wr, FILE *log,
		 struct sl_err *err);
/* Cancels the poll in progress, joins the thread and closes its
 * connection. A no-op for a poller without a thread. */
void poller_stop(struct poller *p);
/* Whether the running poller's warehouse connection is lost (it is
 * opened again every 100 ms meanwhile). Any thread. */
bool poller_down(struct poller *p);

#endif
