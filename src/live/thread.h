/*
 * The live runner on a thread of its own, for a process that also lands
 * data (the server, tests): woken at once by in-process advances
 * (live_thread_notify), and every poll_interval to pick up other writers,
 * it coalesces advances with the live schedule and runs cycles on its own
 * warehouse connection. After a failure that leaves the warehouse in doubt
 * (wh_suspect) it runs no more cycles and tries nothing again: the process
 * is to exit and open the warehouse anew (the server does).
 */
#ifndef SL_LIVE_THREAD_H
#define SL_LIVE_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct arena;
struct project;
struct live_advance;
struct sl_err;
struct wh;
struct live_runner;
struct live_thread;

/* Starts the runner on connection w (which it owns from now on and closes
 * when stopped), its arena a child of a (may be NULL; stop it before a
 * goes). out gets the runner's lines (may be NULL). */
int live_thread_start(struct arena *a, struct project *p, struct wh *w, FILE *out,
		      struct live_thread **t, struct sl_err *err);
/* Something landed and was announced on another connection: the runner
 * reads the new advances, and the schedule takes it from there. */
void live_thread_notify(struct live_thread *t);
/* This process announced adv on source ("landing.NAME"): the runner knows
 * of it without asking the warehouse. */
void live_thread_advanced(struct live_thread *t, const char *source,
			  const struct live_advance *adv);
/* Runs fn on the runner's thread between cycles, with its runner and
 * connection, and waits for its result: the way other threads steer the
 * runner (pause, resume, refresh) without racing it. */
typedef int (*live_job_fn)(struct live_runner *r, struct wh *w, void *arg, struct sl_err *err);
int live_thread_call(struct live_thread *t, live_job_fn fn, void *arg, struct sl_err *err);
/* Whether the runner's connection to the warehouse is lost: it tries to
 * open it again every 100 ms (within the connection's backoff), runs no
 * cycle meanwhile, and reads what it keeps of the warehouse anew once it
 * is back. Any thread. */
bool live_thread_down(struct live_thread *t);
/* Cycles run so far. */
size_t live_thread_cycles(struct live_thread *t);
/* Stops after the current cycle, writes what the runner left unwritten and
 * the pending run-log rows, joins. */
void live_thread_stop(struct live_thread *t);

#endif
