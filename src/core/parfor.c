#include "core/parfor.h"

#include "core/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

struct pool {
	pthread_mutex_t mu;
	size_t next, n; /* under mu */
	bool stop;      /* under mu */
	bool (*fn)(void *ctx, size_t slot, size_t i);
	void *ctx;
};

struct slot {
	struct pool *pool;
	size_t slot;
};

/* The next item for a thread, or false when none is left. */
static bool take(struct pool *p, size_t *i)
{
	bool got;

	pthread_mutex_lock(&p->mu);
	got = !p->stop && p->next < p->n;
	if (got)
		*i = p->next++;
	pthread_mutex_unlock(&p->mu);
	return got;
}

static void *run_slot(void *arg)
{
	struct slot *s = arg;
	struct pool *p = s->pool;
	size_t i;

	while (take(p, &i)) {
		if (p->fn(p->ctx, s->slot, i))
			continue;
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_mutex_unlock(&p->mu);
	}
	return NULL;
}

void parfor(size_t nslots, size_t n, bool (*fn)(void *ctx, size_t slot, size_t i), void *ctx)
{
	struct pool p = { .n = n, .fn = fn, .ctx = ctx };
	struct slot *slots;
	pthread_t *tids;
	size_t started = 0;

	if (nslots > n)
		nslots = n;
	if (nslots <= 1) {
		for (size_t i = 0; i < n && fn(ctx, 0, i); i++)
			;
		return;
	}
	slots = xcalloc(nslots, sizeof(*slots));
	tids = xcalloc(nslots, sizeof(*tids));
	pthread_mutex_init(&p.mu, NULL);
	for (size_t s = 0; s < nslots; s++)
		slots[s] = (struct slot){ .pool = &p, .slot = s };
	for (size_t s = 1; s < nslots; s++)
		if (pthread_create(&tids[s], NULL, run_slot, &slots[s]) == 0)
			tids[started++] = tids[s];
	run_slot(&slots[0]);
	for (size_t k = 0; k < started; k++)
		pthread_join(tids[k], NULL);
	pthread_mutex_destroy(&p.mu);
	free(slots);
	free(tids);
}
