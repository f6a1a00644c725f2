#include "core/worker.h"

#include "core/err.h"
#include "core/units.h"

#include <stdio.h>
#include <time.h>

int worker_start(struct worker *w, void *(*fn)(void *), void *arg, const char *what,
		 struct sl_err *err)
{
	pthread_condattr_t attr;
	char comm[16];

	w->stop = false;
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&w->tid, NULL, fn, arg)) {
		worker_destroy(w);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the %s thread", what);
	}
	/* named for top -H and perf; Linux keeps the first 15 bytes */
	snprintf(comm, sizeof(comm), "%s", what);
	pthread_setname_np(w->tid, comm);
	return 0;
}

void worker_wait_until(struct worker *w, int64_t deadline_ms)
{
	worker_wait_until_us(w, deadline_ms * 1000);
}

void worker_wait_until_us(struct worker *w, int64_t deadline_us)
{
	struct timespec ts;
	int64_t us = deadline_us - units_mono_us();

	if (us <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += us / 1000000;
	ts.tv_nsec += (us % 1000000) * 1000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&w->cv, &w->mu, &ts);
}

void worker_wake(struct worker *w)
{
	pthread_mutex_lock(&w->mu);
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void worker_stop(struct worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->tid, NULL);
}

void worker_destroy(struct worker *w)
{
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
}
