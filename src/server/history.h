/*
 * The thread that reads what the pages show of the past (the state
 * schema's run log, columns, profiles; the folder's alerts and check
 * results) for the model page and the Runs and alerts page, on a
 * warehouse connection of its own: such a read never runs on the HTTP
 * thread, nor on the connection of the writer, the runner or the SQL
 * reader. Reads run one at a time, in order; HISTORY_MAX_WAITING calls
 * wait at most (503 beyond).
 */
#ifndef SL_SERVER_HISTORY_H
#define SL_SERVER_HISTORY_H

struct http_call;
struct server_history;
struct sl_err;
struct wh;

#define HISTORY_MAX_WAITING 8

/* A call for the thread. The caller embeds it first in a struct of its
 * own and fills the three members. */
struct history_job {
	struct http_call *c;
	/* On the thread: reads what it needs on w and answers c, or returns
	 * an error and leaves c unanswered: it is answered with the error
	 * (503 and Retry-After for a warehouse that cannot be reached). */
	int (*read)(struct history_job *job, struct wh *w, struct sl_err *err);
	/* Frees the job, once it ran or was answered without running. */
	void (*free)(struct history_job *job);
};

/* Starts the thread; its connection is opened from w at the first read,
 * and again after a read that failed for another reason than its query. */
int history_start(struct wh *w, struct server_history **out, struct sl_err *err);
/* On the HTTP thread: queues job, or answers its call 503 at once when
 * HISTORY_MAX_WAITING wait already (the job freed). */
void history_submit(struct server_history *h, struct history_job *job);
/* Answers what is still queued 503 without reading, joins the thread,
 * closes its connection. After the HTTP server stopped. */
void history_stop(struct server_history *h);

#endif
