/*
 * The runner thread: a condition variable, the schedule and the runner.
 * All warehouse work happens on the thread's own connection, never under
 * the lock, so notify() never waits for a refresh.
 */
#include "live/thread.h"

#include "core/err.h"
#include "core/units.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "live/runner.h"
#include "live/schedule.h"
#include "project/model.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

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
	struct worker wk;
	bool notified, noted; /* noted: an advance the runner was told of */
	size_t cycles;
	struct project *p;
	struct wh *w;
	struct live_runner *runner;
	struct live_schedule sched;
	FILE *out;
	struct job *jobs;
	pthread_cond_t job_done;
	bool suspect; /* the warehouse is in doubt: no more cycles */
	bool down;    /* the connection is lost: said once, tried again */
};

/* How often a runner whose connection is lost tries the warehouse. */
#define RECONNECT_POLL_MS 100

/* Called without mu: whether the connection is up, opened anew when it
 * was lost. The loss is said once, and so is the recovery. */
static bool connected(struct live_thread *t)
{
	struct sl_err err = SL_ERR_INIT;
	bool up = wh_reconnect(t->w, &err) == 0, was;

	pthread_mutex_lock(&t->wk.mu);
	was = t->down;
	t->down = !up;
	pthread_mutex_unlock(&t->wk.mu);
	if (t->out && up && was)
		fprintf(t->out, "live runner: connected to the warehouse again\n");
	else if (t->out && !up && !was)
		fprintf(t->out, "live runner: %s\n", err.msg);
	return up;
}

/* A failure of the runner's: reported, and when it left the warehouse in
 * doubt, the last one; nothing is tried again in this process. Called
 * without mu. */
static void report(struct live_thread *t, struct sl_err *err)
{
	bool doubt = wh_suspect(t->w, err);

	if (t->out && doubt)
		fprintf(t->out,
			"live runner: the warehouse failed a write (%s); no more refreshes until "
			"it is opened again\n",
			err->msg);
	else if (t->out)
		fprintf(t->out, "live runner: %s\n", err->msg);
	pthread_mutex_lock(&t->wk.mu);
	t->suspect |= doubt;
	pthread_mutex_unlock(&t->wk.mu);
}

/* Under mu, which it lets go while a job runs. */
static void run_jobs(struct live_thread *t)
{
	while (t->jobs) {
		struct job *j = t->jobs;

		t->jobs = j->next;
		pthread_mutex_unlock(&t->wk.mu);
		j->rc = j->fn(t->runner, t->w, j->arg, j->err);
		pthread_mutex_lock(&t->wk.mu);
		j->done = true;
		pthread_cond_broadcast(&t->job_done);
	}
}

static void *run(void *arg)
{
	struct live_thread *t = arg;
	int64_t poll_ms = live_runner_poll_ms(t->runner, t->w);
	/* the first poll comes at once: catch up on what landed before */
	int64_t last_poll = units_mono_ms() - poll_ms;
	bool retry = false;

	pthread_mutex_lock(&t->wk.mu);
	while (!t->wk.stop) {
		int64_t now = units_mono_ms(), wait;

		if (t->jobs) {
			run_jobs(t);
			continue;
		}
		if (t->suspect) {
			pthread_cond_wait(&t->wk.cv, &t->wk.mu);
			continue;
		}
		if (t->noted) {
			live_schedule_advance(&t->sched, now);
			t->noted = false;
		}
		if (t->down || wh_lost(t->w)) {
			bool up;

			pthread_mutex_unlock(&t->wk.mu);
			up = connected(t);
			pthread_mutex_lock(&t->wk.mu);
			if (!up) {
				worker_wait_until(&t->wk, now + RECONNECT_POLL_MS);
				continue;
			}
			/* what landed meanwhile is looked for at once */
			t->notified = true;
		}
		/* told that something landed, but not what: look now */
		if (t->notified || now - last_poll >= poll_ms) {
			struct sl_err err = SL_ERR_INIT;
			bool moved = false;

			pthread_mutex_unlock(&t->wk.mu);
			if (live_runner_sources_moved(t->runner, t->w, &moved, &err))
				report(t, &err);
			pthread_mutex_lock(&t->wk.mu);
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
			pthread_mutex_unlock(&t->wk.mu);
			if (live_runner_cycle(t->runner, t->w, &c, &err))
				report(t, &err);
			pthread_mutex_lock(&t->wk.mu);
			t->cycles++;
			retry = c.failed || c.held || c.behind;
			continue;
		}
		if (wait < 0 || wait > poll_ms - (now - last_poll))
			wait = poll_ms - (now - last_poll);
		if (wait > 0)
			worker_wait_until(&t->wk, now + wait);
	}
	pthread_mutex_unlock(&t->wk.mu);
	return NULL;
}

int live_thread_start(struct arena *a, struct project *p, struct wh *w, FILE *out,
		      struct live_thread **tp, struct sl_err *err)
{
	struct live_thread *t = xcalloc(1, sizeof(*t));

	t->p = p;
	t->w = w;
	t->out = out;
	t->runner = live_runner_new(a, p, out);
	live_runner_share(t->runner);
	live_schedule_init(&t->sched, &p->cfg.live);
	pthread_cond_init(&t->job_done, NULL);
	if (worker_start(&t->wk, run, t, "live runner", err)) {
		live_runner_free(t->runner);
		pthread_cond_destroy(&t->job_done);
		free(t);
		return err ? err->code : SL_E_INTERNAL;
	}
	*tp = t;
	return 0;
}

void live_thread_advanced(struct live_thread *t, const char *source,
			  const struct live_advance *adv)
{
	live_runner_advanced(t->runner, source, adv);
	pthread_mutex_lock(&t->wk.mu);
	t->noted = true;
	pthread_cond_signal(&t->wk.cv);
	pthread_mutex_unlock(&t->wk.mu);
}

void live_thread_notify(struct live_thread *t)
{
	pthread_mutex_lock(&t->wk.mu);
	t->notified = true;
	pthread_cond_signal(&t->wk.cv);
	pthread_mutex_unlock(&t->wk.mu);
}

int live_thread_call(struct live_thread *t, live_job_fn fn, void *arg, struct sl_err *err)
{
	struct job j = { .fn = fn, .arg = arg, .err = err }, **tail;

	pthread_mutex_lock(&t->wk.mu);
	if (t->wk.stop) {
		pthread_mutex_unlock(&t->wk.mu);
		return sl_err_set(err, SL_E_BUSY, "the live runner is stopping");
	}
	for (tail = &t->jobs; *tail; tail = &(*tail)->next)
		;
	*tail = &j;
	pthread_cond_signal(&t->wk.cv);
	while (!j.done)
		pthread_cond_wait(&t->job_done, &t->wk.mu);
	pthread_mutex_unlock(&t->wk.mu);
	return j.rc;
}

bool live_thread_down(struct live_thread *t)
{
	bool down;

	pthread_mutex_lock(&t->wk.mu);
	down = t->down || wh_lost(t->w);
	pthread_mutex_unlock(&t->wk.mu);
	return down;
}

size_t live_thread_cycles(struct live_thread *t)
{
	size_t n;

	pthread_mutex_lock(&t->wk.mu);
	n = t->cycles;
	pthread_mutex_unlock(&t->wk.mu);
	return n;
}

void live_thread_stop(struct live_thread *t)
{
	worker_stop(&t->wk);
	/* jobs queued while it stopped still get their turn */
	pthread_mutex_lock(&t->wk.mu);
	run_jobs(t);
	pthread_mutex_unlock(&t->wk.mu);
	live_runner_release(t->runner, t->w, NULL);
	live_runner_flush_log(t->runner, t->w, true, NULL);
	live_runner_free(t->runner);
	wh_close(t->w);
	worker_destroy(&t->wk);
	pthread_cond_destroy(&t->job_done);
	free(t);
}
