/*
 * The landing gate (gate.h). In one process, a lock its threads share,
 * which prefers a waiting landing over the next cycle so that cycles run
 * back to back cannot starve it; on a shared warehouse, an advisory lock
 * besides, which the cycles of every process hold shared and a landing
 * takes alone for the rest of its transaction. A DuckDB warehouse is held
 * by one process, so its lock alone is the gate.
 */
#include "live/gate.h"

#include "core/arena.h"
#include "core/err.h"
#include "project/config.h"
#include "project/inputs.h"
#include "project/project.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <string.h>

#define GATE_KEY "live_gate"

static pthread_rwlock_t gate;
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;

static void gate_init(void)
{
	pthread_rwlockattr_t attr;

	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&gate, &attr);
	pthread_rwlockattr_destroy(&attr);
}

/* Whether name is the landing table of a source of slot. */
static bool of_slot(const struct project *p, const char *slot, const char *name)
{
	for (size_t i = 0; i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];
		char landing[256];

		if (!s->kind || strcmp(s->kind, "postgres_cdc") || !s->slot || strcmp(s->slot, slot))
			continue;
		inputs_source_table(s, landing, sizeof(landing));
		if (strcmp(landing, name) == 0)
			return true;
	}
	return false;
}

/* A landing table of slot that an input of a model reaches, and which
 * input. */
struct reach {
	const char *table;
	size_t input;
};

/* Adds to *r every landing table of slot that input k reaches. */
static void reaches(struct arena *a, const struct project *p, const char *slot,
		    const struct model_input *in, size_t k, struct reach **r, size_t *n,
		    size_t *cap)
{
	struct model_inputs behind = { 0 };

	if (in->kind == INPUT_SOURCE) {
		if (of_slot(p, slot, in->name))
			*ARENA_PUSH(a, r, n, cap) = (struct reach){ in->name, k };
		return;
	}
	inputs_find(a, in->model, &behind);
	for (size_t i = 0; i < behind.nsources; i++)
		if (of_slot(p, slot, behind.sources[i]))
			*ARENA_PUSH(a, r, n, cap) = (struct reach){ behind.sources[i], k };
	for (size_t i = 0; i < behind.n; i++)
		if (behind.items[i].kind == INPUT_SOURCE && of_slot(p, slot, behind.items[i].name))
			*ARENA_PUSH(a, r, n, cap) = (struct reach){ behind.items[i].name, k };
}

/* Whether two inputs reach two different tables. */
static bool split(const struct reach *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (r[i].input != r[j].input && strcmp(r[i].table, r[j].table))
				return true;
	return false;
}

bool live_gate_wanted(struct arena *parent, const struct project *p, const char *slot)
{
	struct arena *a = arena_new(parent);
	bool wanted = false;

	for (size_t i = 0; i < p->nmodels && !wanted; i++) {
		struct model_inputs in = { 0 };
		struct reach *r = NULL;
		size_t n = 0, cap = 0;

		if (!inputs_refreshes(p->models[i]))
			continue;
		inputs_find(a, p->models[i], &in);
		for (size_t k = 0; k < in.n; k++)
			reaches(a, p, slot, &in.items[k], k, &r, &n, &cap);
		wanted = split(r, n);
	}
	arena_free(a);
	return wanted;
}

bool live_gate_any(struct arena *a, const struct project *p)
{
	for (size_t i = 0; i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];

		if (s->kind && !strcmp(s->kind, "postgres_cdc") && s->slot &&
		    live_gate_wanted(a, p, s->slot))
			return true;
	}
	return false;
}

int live_gate_enter(struct wh *w, struct sl_err *err)
{
	int rc = 0;

	pthread_once(&gate_once, gate_init);
	pthread_rwlock_rdlock(&gate);
	if (wh_shared(w))
		rc = wh_lock(w, GATE_KEY, WH_LOCK_SHARED, NULL, err);
	if (rc)
		pthread_rwlock_unlock(&gate);
	return rc;
}

int live_gate_leave(struct wh *w, struct sl_err *err)
{
	int rc = wh_shared(w) ? wh_unlock_shared(w, GATE_KEY, err) : 0;

	pthread_rwlock_unlock(&gate);
	return rc;
}

int live_gate_take(struct wh *w, bool wait, bool *got, struct sl_err *err)
{
	int rc = 0;

	*got = false;
	pthread_once(&gate_once, gate_init);
	if (!wait && pthread_rwlock_trywrlock(&gate))
		return 0;
	if (wait)
		pthread_rwlock_wrlock(&gate);
	*got = true;
	if (wh_shared(w))
		rc = wh_lock(w, GATE_KEY, wait ? WH_LOCK_TXN : WH_LOCK_TXN_TRY, got, err);
	if (rc || !*got) {
		pthread_rwlock_unlock(&gate);
		if (rc)
			wh_rollback(w);
		*got = false;
	}
	return rc;
}

int live_gate_commit(struct wh *w, struct sl_err *err)
{
	int rc = wh_commit(w, err);

	pthread_rwlock_unlock(&gate);
	if (rc)
		wh_rollback(w);
	return rc;
}

void live_gate_abandon(struct wh *w)
{
	wh_rollback(w);
	pthread_rwlock_unlock(&gate);
}
