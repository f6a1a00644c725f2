/*
 * Build locks: a fixed table of mutexes indexed by a hash of the model's
 * name. Two models may share a mutex; that only serializes them, it never
 * lets two builds of one model overlap.
 */
#include "build/lock.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define BUILD_LOCKS 64

static pthread_mutex_t locks[BUILD_LOCKS];
static pthread_once_t locks_once = PTHREAD_ONCE_INIT;

static void locks_init(void)
{
	for (size_t i = 0; i < BUILD_LOCKS; i++)
		pthread_mutex_init(&locks[i], NULL);
}

static pthread_mutex_t *lock_of(const char *model)
{
	uint32_t h = 2166136261u;

	pthread_once(&locks_once, locks_init);
	for (const char *p = model; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return &locks[h % BUILD_LOCKS];
}

void build_lock(const char *model)
{
	pthread_mutex_lock(lock_of(model));
}

bool build_lock_try(const char *model)
{
	return pthread_mutex_trylock(lock_of(model)) == 0;
}

void build_unlock(const char *model)
{
	pthread_mutex_unlock(lock_of(model));
}
