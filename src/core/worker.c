#include "core/worker.h"

#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void worker_init(struct worker *w)
{
	pthread_condattr_t attr;

	w->stop = false;
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &attr);
	pthread_condattr_destroy(&attr);
}

int worker_run(struct worker *w, void *(*fn)(void *), void *arg, const char *what,
	       struct sl_err *err)
{
	char comm[16];

	w->stop = false;
	if (pthread_create(&w->tid, NULL, fn, arg))
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the %s thread", what);
	/* named for top -H and perf; Linux keeps the first 15 bytes */
	snprintf(comm, sizeof(comm), "%s", what);
	pthread_setname_np(w->tid, comm);
	return 0;
}

int worker_start(struct worker *w, void *(*fn)(void *), void *arg, const char *what,
		 struct sl_err *err)
{
	int rc;

	worker_init(w);
	rc = worker_run(w, fn, arg, what, err);
	if (rc)
		worker_destroy(w);
	return rc;
}

void worker_wait(struct worker *w)
{
	pthread_cond_wait(&w->cv, &w->mu);
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

struct job {
	worker_job_fn fn;
	void *arg;
	struct job *next;
};

struct worker_queue {
	struct worker wk;
	struct job *head, *tail; /* under wk.mu */
};

static void *queue_run(void *arg)
{
	struct worker_queue *q = arg;

	pthread_mutex_lock(&q->wk.mu);
	for (;;) {
		struct job *j;

		while (!q->head && !q->wk.stop)
			worker_wait(&q->wk);
		j = q->head;
		if (!j)
			break;
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
		pthread_mutex_unlock(&q->wk.mu);
		j->fn(j->arg);
		free(j);
		pthread_mutex_lock(&q->wk.mu);
	}
	pthread_mutex_unlock(&q->wk.mu);
	return NULL;
}

int worker_queue_start(struct worker_queue **out, const char *what, struct sl_err *err)
{
	struct worker_queue *q = xcalloc(1, sizeof(*q));
	int rc = worker_start(&q->wk, queue_run, q, what, err);

	if (rc) {
		free(q);
		return rc;
	}
	*out = q;
	return 0;
}

void worker_queue_push(struct worker_queue *q, worker_job_fn fn, void *arg)
{
	struct job *j = xmalloc(sizeof(*j));

	*j = (struct job){ .fn = fn, .arg = arg };
	pthread_mutex_lock(&q->wk.mu);
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
	pthread_cond_signal(&q->wk.cv);
	pthread_mutex_unlock(&q->wk.mu);
}

void worker_queue_stop(struct worker_queue *q)
{
	/* the loop empties the queue before it looks at stop */
	worker_stop(&q->wk);
	worker_destroy(&q->wk);
	free(q);
}
