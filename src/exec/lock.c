/*
 * Build locks: a registry of the models being built (or waited for), keyed
 * by name under one mutex, each with a held flag and a condition variable
 * its waiters sleep on. One model's lock never stands in for another's, so
 * the live runner is told a model is held only when that very model is.
 * Must never block while holding the registry's mutex, except in the wait
 * that releases it.
 *
 * An entry lives only while its model is held or waited for and is freed by
 * the last one out: the registry stays as short as the number of builds in
 * flight (a batch run and the live runner: one or two), which a list
 * searched from the front serves better than a table sized for every model
 * of the largest project.
 */
#include "exec/lock.h"

#include "core/err.h"
#include "core/xalloc.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lock_entry {
	struct lock_entry *next;
	pthread_cond_t released; /* signalled when the holder lets go */
	size_t waiters;          /* build_lock calls asleep on released */
	bool held;
	char model[];
};

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static struct lock_entry *registry;

/* The model's entry, or NULL. Call with registry_mu held. */
static struct lock_entry *entry_find(const char *model)
{
	struct lock_entry *e = registry;

	while (e && strcmp(e->model, model) != 0)
		e = e->next;
	return e;
}

/* The model's entry, made (not held, no waiters) when it has none. Call
 * with registry_mu held. */
static struct lock_entry *entry_get(const char *model)
{
	struct lock_entry *e = entry_find(model);
	size_t len = strlen(model);

	if (e)
		return e;
	e = xmalloc(sizeof(*e) + len + 1);
	memcpy(e->model, model, len + 1);
	pthread_cond_init(&e->released, NULL);
	e->waiters = 0;
	e->held = false;
	e->next = registry;
	registry = e;
	return e;
}

/* Unlinks and frees e, which nobody holds or waits for. Call with
 * registry_mu held. */
static void entry_free(struct lock_entry *e)
{
	struct lock_entry **p = &registry;

	while (*p != e)
		p = &(*p)->next;
	*p = e->next;
	pthread_cond_destroy(&e->released);
	free(e);
}

static void local_lock(const char *model)
{
	struct lock_entry *e;

	pthread_mutex_lock(&registry_mu);
	e = entry_get(model);
	e->waiters++;
	while (e->held)
		pthread_cond_wait(&e->released, &registry_mu);
	e->waiters--;
	e->held = true;
	pthread_mutex_unlock(&registry_mu);
}

static bool local_lock_try(const char *model)
{
	struct lock_entry *e;
	bool got;

	pthread_mutex_lock(&registry_mu);
	e = entry_get(model);
	got = !e->held;
	e->held = true;
	pthread_mutex_unlock(&registry_mu);
	return got;
}

static void local_unlock(const char *model)
{
	struct lock_entry *e;

	pthread_mutex_lock(&registry_mu);
	e = entry_find(model);
	/* unlocking a model nobody holds is a bug in the caller */
	if (!e || !e->held)
		abort();
	e->held = false;
	if (e->waiters)
		pthread_cond_signal(&e->released);
	else
		entry_free(e);
	pthread_mutex_unlock(&registry_mu);
}

/* The name of m's lock between processes. */
static void shared_key(const char *model, char *key, size_t n)
{
	snprintf(key, n, "build:%s", model);
}

int build_lock(struct wh *w, const char *model, bool *waited, struct sl_err *err)
{
	char key[300];
	bool got;
	int rc;

	shared_key(model, key, sizeof(key));
	*waited = !local_lock_try(model);
	if (*waited)
		local_lock(model);
	rc = wh_lock(w, key, WH_LOCK_TRY, &got, err);
	if (!rc && !got) {
		*waited = true;
		rc = wh_lock(w, key, WH_LOCK_WAIT, &got, err);
	}
	if (rc)
		local_unlock(model);
	return rc;
}

int build_lock_try(struct wh *w, const char *model, bool *got, struct sl_err *err)
{
	char key[300];
	int rc;

	shared_key(model, key, sizeof(key));
	*got = local_lock_try(model);
	if (!*got)
		return 0;
	rc = wh_lock(w, key, WH_LOCK_TRY, got, err);
	if (rc || !*got)
		local_unlock(model);
	return rc;
}

int build_unlock(struct wh *w, const char *model, struct sl_err *err)
{
	char key[300];
	int rc;

	shared_key(model, key, sizeof(key));
	rc = wh_unlock(w, key, err);
	local_unlock(model);
	return rc;
}
