/*
 * The runner thread: a condition variable, the schedule and the runner.
 * All warehouse work happens on the thread's own connection, never under
 * the lock, so notify() never waits for a refresh.
 */
#include "live/thread.h"

#include "core/err.h"
#include "core/units.h"
#include "live/runner.h"
#include "live/schedule.h"
#include "project/model.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

/* Work handed to the runner's thread by another thread, which waits. */
struct job {
	live_job_fn fn;
	void *arg;
	struct sl_err *err;
	int rc;
	bool done;
	struct job *next;
};

struct live_thread {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, notified, noted; /* noted: an advance the runner was told of */
	size_t cycles;
	struct project *p;
	struct wh *w;
	struct live_runner *runner;
	struct live_schedule sched;
	FILE *out;
	struct job *jobs;
	pthread_cond_t job_done;
};

static void wait_ms(struct live_thread *t, int64_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&t->cv, &t->mu, &ts);
}

static void report(struct live_thread *t, const struct sl_err *err)
{
	if (t->out)
		fprintf(t->out, "live runner: %s\n", err->msg);
}

/* Under mu, which it lets go while a job runs. */
static void run_jobs(struct live_thread *t)
{
	while (t->jobs) {
		struct job *j = t->jobs;

		t->jobs = j->next;
		pthread_mutex_unlock(&t->mu);
		j->rc = j->fn(t->runner, t->w, j->arg, j->err);
		pthread_mutex_lock(&t->mu);
		j->done = true;
		pthread_cond_broadcast(&t->job_done);
	}
}

static void *run(void *arg)
{
	struct live_thread *t = arg;
	const struct live_cfg *cfg = &t->p->cfg.live;
	/* the first poll comes at once: catch up on what landed before */
	int64_t last_poll = units_mono_ms() - cfg->poll_interval_ms;
	bool retry = false;

	pthread_mutex_lock(&t->mu);
	while (!t->stop) {
		int64_t now = units_mono_ms(), wait;

		if (t->jobs) {
			run_jobs(t);
			continue;
		}
		if (t->noted) {
			live_schedule_advance(&t->sched, now);
			t->noted = false;
		}
		/* told that something landed, but not what: look now */
		if (t->notified || now - last_poll >= cfg->poll_interval_ms) {
			struct sl_err err = SL_ERR_INIT;
			bool moved = false;

			pthread_mutex_unlock(&t->mu);
			if (live_runner_sources_moved(t->runner, t->w, &moved, &err))
				report(t, &err);
			pthread_mutex_lock(&t->mu);
			/* another connection's advance, or models to retry */
			if (moved || retry || t->notified)
				live_schedule_advance(&t->sched, now);
			t->notified = false;
			last_poll = now;
		}
		wait = live_schedule_wait(&t->sched, now);
		if (wait == 0) {
			struct sl_err err = SL_ERR_INIT;
			struct live_cycle c = { 0 };

			live_schedule_cycle(&t->sched, now);
			pthread_mutex_unlock(&t->mu);
			if (live_runner_cycle(t->runner, t->w, &c, &err))
				report(t, &err);
			pthread_mutex_lock(&t->mu);
			t->cycles++;
			retry = c.failed || c.held || c.behind;
			continue;
		}
		if (wait < 0 || wait > cfg->poll_interval_ms - (now - last_poll))
			wait = cfg->poll_interval_ms - (now - last_poll);
		if (wait > 0)
			wait_ms(t, wait);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

int live_thread_start(struct project *p, struct wh *w, FILE *out, struct live_thread **tp,
		      struct sl_err *err)
{
	struct live_thread *t = calloc(1, sizeof(*t));
	pthread_condattr_t attr;

	if (!t)
		abort();
	t->p = p;
	t->w = w;
	t->out = out;
	t->runner = live_runner_new(p, out);
	live_schedule_init(&t->sched, &p->cfg.live);
	pthread_mutex_init(&t->mu, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cv, &attr);
	pthread_cond_init(&t->job_done, NULL);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&t->tid, NULL, run, t)) {
		live_runner_free(t->runner);
		pthread_cond_destroy(&t->cv);
		pthread_cond_destroy(&t->job_done);
		pthread_mutex_destroy(&t->mu);
		free(t);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the live runner thread");
	}
	*tp = t;
	return 0;
}

void live_thread_advanced(struct live_thread *t, const char *source,
			  const struct live_advance *adv)
{
	live_runner_advanced(t->runner, source, adv);
	pthread_mutex_lock(&t->mu);
	t->noted = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

void live_thread_notify(struct live_thread *t)
{
	pthread_mutex_lock(&t->mu);
	t->notified = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

int live_thread_call(struct live_thread *t, live_job_fn fn, void *arg, struct sl_err *err)
{
	struct job j = { .fn = fn, .arg = arg, .err = err }, **tail;

	pthread_mutex_lock(&t->mu);
	if (t->stop) {
		pthread_mutex_unlock(&t->mu);
		return sl_err_set(err, SL_E_BUSY, "the live runner is stopping");
	}
	for (tail = &t->jobs; *tail; tail = &(*tail)->next)
		;
	*tail = &j;
	pthread_cond_signal(&t->cv);
	while (!j.done)
		pthread_cond_wait(&t->job_done, &t->mu);
	pthread_mutex_unlock(&t->mu);
	return j.rc;
}

size_t live_thread_cycles(struct live_thread *t)
{
	size_t n;

	pthread_mutex_lock(&t->mu);
	n = t->cycles;
	pthread_mutex_unlock(&t->mu);
	return n;
}

void live_thread_stop(struct live_thread *t)
{
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->tid, NULL);
	/* jobs queued while it stopped still get their turn */
	pthread_mutex_lock(&t->mu);
	run_jobs(t);
	pthread_mutex_unlock(&t->mu);
	live_runner_release(t->runner, t->w, NULL);
	live_runner_flush_log(t->runner, t->w, true, NULL);
	live_runner_free(t->runner);
	wh_close(t->w);
	pthread_cond_destroy(&t->cv);
	pthread_cond_destroy(&t->job_done);
	pthread_mutex_destroy(&t->mu);
	free(t);
}
