/*
 * A background thread with its own lock and wake-up signal, the shape
 * every long-running loop (the landing writer, the live runner, a poller,
 * a slot) shares: the loop runs under mu, sleeps on cv (on the monotonic
 * clock, so wall-clock changes do not stretch a wait) and ends when stop
 * is set. A queue of jobs run in order on such a thread (the server's
 * control calls, the writer's answers) is a worker_queue.
 */
#ifndef SL_CORE_WORKER_H
#define SL_CORE_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct sl_err;

struct worker {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop; /* under mu */
};

/* Starts fn(arg) on a new thread; what is says when it cannot. */
int worker_start(struct worker *w, void *(*fn)(void *), void *arg, const char *what,
		 struct sl_err *err);
/* The lock and the signal alone, for state read under mu before the
 * thread starts (worker_run), or between two runs. */
void worker_init(struct worker *w);
/* Starts fn(arg) on a worker made with worker_init; after worker_stop it
 * may run again. */
int worker_run(struct worker *w, void *(*fn)(void *), void *arg, const char *what,
	       struct sl_err *err);
/* Under mu: sleeps until woken. */
void worker_wait(struct worker *w);
/* Under mu: sleeps until woken or until the monotonic clock reads
 * deadline_ms (units_mono_ms). */
void worker_wait_until(struct worker *w, int64_t deadline_ms);
/* The same to the microsecond (units_mono_us). */
void worker_wait_until_us(struct worker *w, int64_t deadline_us);
/* Wakes the loop (takes mu). */
void worker_wake(struct worker *w);
/* Sets stop, wakes the loop and joins it. */
void worker_stop(struct worker *w);
/* After worker_stop: frees the lock and the signal. */
void worker_destroy(struct worker *w);

/* Jobs run one at a time, in the order pushed, on a thread of their own;
 * a job runs with the lock let go, so pushing never waits for one. */
typedef void (*worker_job_fn)(void *arg);
struct worker_queue;

/* what names the thread. Stop with worker_queue_stop. */
int worker_queue_start(struct worker_queue **out, const char *what, struct sl_err *err);
/* Queues fn(arg); never blocks. fn owns arg. */
void worker_queue_push(struct worker_queue *q, worker_job_fn fn, void *arg);
/* Runs what is still queued, joins the thread and frees q. */
void worker_queue_stop(struct worker_queue *q);

#endif
