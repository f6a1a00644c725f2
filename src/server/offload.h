/*
 * Slow calls off the HTTP thread: a queue and one thread that runs what is
 * pushed, one job at a time, in order. Control calls (pause, resume,
 * refresh, advance, starting and stopping the runner) wait here for the
 * warehouse or the runner, so that the HTTP thread never does: a refresh
 * that takes seconds delays the control calls behind it, never a health
 * check or an ingest acknowledgement.
 */
#ifndef SL_SERVER_OFFLOAD_H
#define SL_SERVER_OFFLOAD_H

struct sl_err;
struct offload;

typedef void (*offload_fn)(void *arg);

int offload_start(struct offload **out, struct sl_err *err);
/* Queues fn(arg) for the thread; never blocks. fn owns arg. */
void offload_push(struct offload *o, offload_fn fn, void *arg);
/* Runs what is still queued, joins the thread and frees o. */
void offload_stop(struct offload *o);

#endif
