/*
 * The live runner on a thread of its own, for a process that also lands
 * data (the server, tests): woken at once by in-process advances
 * (live_thread_notify), and every poll_interval to pick up other writers,
 * it coalesces advances with the live schedule and runs cycles on its own
 * warehouse connection.
 */
#ifndef SL_LIVE_THREAD_H
#define SL_LIVE_THREAD_H

#include <stddef.h>
#include <stdio.h>

struct project;
struct sl_err;
struct wh;
struct live_thread;

/* Starts the runner on connection w (which it owns from now on and closes
 * when stopped). out gets the runner's lines (may be NULL). */
int live_thread_start(struct project *p, struct wh *w, FILE *out, struct live_thread **t,
		      struct sl_err *err);
/* An advance landed in this process: the schedule takes it from here. */
void live_thread_notify(struct live_thread *t);
/* Cycles run so far. */
size_t live_thread_cycles(struct live_thread *t);
/* Stops after the current cycle, writes the pending run-log rows, joins. */
void live_thread_stop(struct live_thread *t);

#endif
