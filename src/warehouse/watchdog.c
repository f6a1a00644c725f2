/*
 * This file implements the watchdog of a reader's query (watchdog.h): a
 * thread that sleeps until the deadline or until it is stopped, whichever
 * comes first. It must call fire at most once, and never after stop
 * returned.
 */
#include "warehouse/watchdog.h"

#include "core/err.h"
#include "core/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct wh_watchdog {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct timespec deadline;
	bool stopped, fired;
	void (*fire)(void *ctx);
	void *ctx;
};

static void *watch(void *arg)
{
	struct wh_watchdog *wd = arg;
	int rc = 0;

	pthread_mutex_lock(&wd->mu);
	while (!wd->stopped && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&wd->cv, &wd->mu, &wd->deadline);
	if (!wd->stopped) {
		wd->fired = true;
		wd->fire(wd->ctx);
	}
	pthread_mutex_unlock(&wd->mu);
	return NULL;
}

int wh_watchdog_start(int64_t timeout_ms, void (*fire)(void *ctx), void *ctx,
		      struct wh_watchdog **out, struct sl_err *err)
{
	struct wh_watchdog *wd = xcalloc(1, sizeof(*wd));
	pthread_condattr_t attr;

	wd->fire = fire;
	wd->ctx = ctx;
	pthread_mutex_init(&wd->mu, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&wd->cv, &attr);
	pthread_condattr_destroy(&attr);
	clock_gettime(CLOCK_MONOTONIC, &wd->deadline);
	wd->deadline.tv_sec += timeout_ms / 1000;
	wd->deadline.tv_nsec += (timeout_ms % 1000) * 1000000L;
	if (wd->deadline.tv_nsec >= 1000000000L) {
		wd->deadline.tv_sec++;
		wd->deadline.tv_nsec -= 1000000000L;
	}
	if (pthread_create(&wd->thread, NULL, watch, wd)) {
		pthread_cond_destroy(&wd->cv);
		pthread_mutex_destroy(&wd->mu);
		free(wd);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the query's watchdog");
	}
	*out = wd;
	return 0;
}

bool wh_watchdog_stop(struct wh_watchdog *wd)
{
	bool fired;

	pthread_mutex_lock(&wd->mu);
	wd->stopped = true;
	pthread_cond_signal(&wd->cv);
	pthread_mutex_unlock(&wd->mu);
	pthread_join(wd->thread, NULL);
	fired = wd->fired;
	pthread_cond_destroy(&wd->cv);
	pthread_mutex_destroy(&wd->mu);
	free(wd);
	return fired;
}

bool wh_watchdog_fired(struct wh_watchdog *wd)
{
	bool fired;

	pthread_mutex_lock(&wd->mu);
	fired = wd->fired;
	pthread_mutex_unlock(&wd->mu);
	return fired;
}
