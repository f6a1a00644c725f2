/*
 * The offload queue: a list under the worker's lock. A job runs with the
 * lock let go, so pushing never waits for a job.
 */
#include "server/offload.h"

#include "core/err.h"
#include "core/worker.h"

#include <stdlib.h>

struct job {
	offload_fn fn;
	void *arg;
	struct job *next;
};

struct offload {
	struct worker wk;
	struct job *head, *tail;
};

static void *run(void *arg)
{
	struct offload *o = arg;

	pthread_mutex_lock(&o->wk.mu);
	for (;;) {
		struct job *j;

		while (!o->head && !o->wk.stop)
			pthread_cond_wait(&o->wk.cv, &o->wk.mu);
		j = o->head;
		if (!j)
			break;
		o->head = j->next;
		if (!o->head)
			o->tail = NULL;
		pthread_mutex_unlock(&o->wk.mu);
		j->fn(j->arg);
		free(j);
		pthread_mutex_lock(&o->wk.mu);
	}
	pthread_mutex_unlock(&o->wk.mu);
	return NULL;
}

int offload_start(struct offload **out, struct sl_err *err)
{
	struct offload *o = calloc(1, sizeof(*o));

	if (!o)
		abort();
	if (worker_start(&o->wk, run, o, "server control", err)) {
		free(o);
		return err ? err->code : SL_E_INTERNAL;
	}
	*out = o;
	return 0;
}

void offload_push(struct offload *o, offload_fn fn, void *arg)
{
	struct job *j = malloc(sizeof(*j));

	if (!j)
		abort();
	*j = (struct job){ .fn = fn, .arg = arg };
	pthread_mutex_lock(&o->wk.mu);
	if (o->tail)
		o->tail->next = j;
	else
		o->head = j;
	o->tail = j;
	pthread_cond_signal(&o->wk.cv);
	pthread_mutex_unlock(&o->wk.mu);
}

void offload_stop(struct offload *o)
{
	/* the loop empties the queue before it looks at stop */
	worker_stop(&o->wk);
	worker_destroy(&o->wk);
	free(o);
}
