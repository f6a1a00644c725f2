/*
 * A background thread with its own lock and wake-up signal, the shape both
 * long-running loops (the landing writer, the live runner) share: the loop
 * runs under mu, sleeps on cv (on the monotonic clock, so wall-clock
 * changes do not stretch a wait) and ends when stop is set.
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

#endif
