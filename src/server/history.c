/*
 * This file implements the pages' reading thread (history.h): a queue of
 * jobs on a thread of its own, and the connection they read on. It
 * answers only what a job could not; the documents are the jobs'.
 */
#include "server/history.h"

#include "core/err.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "server/http.h"
#include "warehouse/wh.h"

#include <stdatomic.h>
#include <stdlib.h>

struct server_history {
	struct wh *w;    /* the first connection: the thread's is opened from it */
	struct wh *conn; /* the thread's */
	struct worker_queue *queue;
	atomic_int waiting;
	atomic_bool stopping; /* what is still queued is not read */
};

/* A job on its way through the queue. */
struct queued {
	struct server_history *h;
	struct history_job *job;
};

int history_start(struct wh *w, struct server_history **out, struct sl_err *err)
{
	struct server_history *h = xcalloc(1, sizeof(*h));
	int rc = worker_queue_start(&h->queue, "page history", err);

	if (rc) {
		free(h);
		return rc;
	}
	h->w = w;
	*out = h;
	return 0;
}

void history_stop(struct server_history *h)
{
	if (!h)
		return;
	atomic_store(&h->stopping, true);
	worker_queue_stop(h->queue);
	if (h->conn)
		wh_close(h->conn);
	free(h);
}

/* On the thread: the job reads, or its call gets the error. */
static void run(void *arg)
{
	struct queued *q = arg;
	struct server_history *h = q->h;
	struct history_job *job = q->job;
	struct sl_err err = SL_ERR_INIT;
	int rc;

	if (atomic_load(&h->stopping)) {
		http_reply_error(job->c, 503, "stopping", "the server is stopping");
	} else {
		rc = h->conn ? 0 : wh_connect(h->w, &h->conn, &err);
		if (!rc)
			rc = job->read(job, h->conn, &err);
		if (rc) {
			/* a failure other than the query's own may have broken
			 * the connection: the next read opens another */
			if (h->conn && rc != SL_E_SQL) {
				wh_close(h->conn);
				h->conn = NULL;
			}
			http_reply_sl_err(job->c, &err);
		}
	}
	atomic_fetch_sub(&h->waiting, 1);
	job->free(job);
	free(q);
}

void history_submit(struct server_history *h, struct history_job *job)
{
	struct queued *q;

	if (atomic_fetch_add(&h->waiting, 1) >= HISTORY_MAX_WAITING) {
		atomic_fetch_sub(&h->waiting, 1);
		http_call_add_header(job->c, "Retry-After", "1");
		http_reply_error(job->c, 503, "busy", "too many reads waiting; retry");
		job->free(job);
		return;
	}
	q = xcalloc(1, sizeof(*q));
	q->h = h;
	q->job = job;
	worker_queue_push(h->queue, run, q);
}
