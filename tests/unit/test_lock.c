/*
 * Build locks: one holder per model; a try fails while another thread
 * holds it and succeeds once it is released; models whose names a table
 * of 64 mutexes would have put together are apart; many threads at once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "exec/lock.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void *try_from_thread(void *arg)
{
	bool *got = arg;

	*got = build_lock_try("silver.orders");
	if (*got)
		build_unlock("silver.orders");
	return NULL;
}

static bool try_elsewhere(void)
{
	pthread_t t;
	bool got = false;

	pthread_create(&t, NULL, try_from_thread, &got);
	pthread_join(t, NULL);
	return got;
}

static void test_try_fails_while_held(void **state)
{
	(void)state;
	build_lock("silver.orders");
	assert_false(try_elsewhere());
	build_unlock("silver.orders");
	assert_true(try_elsewhere());
}

static void test_other_models_free(void **state)
{
	(void)state;
	assert_true(build_lock_try("gold.revenue"));
	assert_true(try_elsewhere());
	build_unlock("gold.revenue");
}

/* The slot of the table of 64 mutexes, indexed by FNV-1a of the name,
 * that build locks used to be. */
static unsigned old_slot(const char *model)
{
	uint32_t h = 2166136261u;

	for (const char *p = model; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h % 64;
}

#define NCOLLIDING 4

/* Names that all shared silver.orders' slot, "silver.orders" first. */
static void colliding_names(char names[NCOLLIDING][32])
{
	int n = 1;

	snprintf(names[0], sizeof(names[0]), "silver.orders");
	for (int i = 0; n < NCOLLIDING; i++) {
		snprintf(names[n], sizeof(names[n]), "gold.m%d", i);
		if (old_slot(names[n]) == old_slot(names[0]))
			n++;
	}
}

static void test_colliding_names_apart(void **state)
{
	char names[NCOLLIDING][32];

	(void)state;
	colliding_names(names);
	assert_int_equal(old_slot(names[1]), old_slot("silver.orders"));
	/* held here, a model of the same slot is free for another thread */
	build_lock(names[1]);
	assert_true(try_elsewhere());
	build_unlock(names[1]);
	/* and the other way round */
	build_lock("silver.orders");
	for (int i = 1; i < NCOLLIDING; i++)
		assert_true(build_lock_try(names[i]));
	for (int i = 1; i < NCOLLIDING; i++)
		build_unlock(names[i]);
	build_unlock("silver.orders");
}

struct waiter {
	pthread_t t;
	const char *model;
	int got; /* set once build_lock returned */
};

static void *lock_from_thread(void *arg)
{
	struct waiter *w = arg;

	build_lock(w->model);
	__atomic_store_n(&w->got, 1, __ATOMIC_SEQ_CST);
	build_unlock(w->model);
	return NULL;
}

static void test_lock_waits_for_release(void **state)
{
	char names[NCOLLIDING][32];
	struct waiter w = { .model = "silver.orders" };
	struct timespec pause = { 0, 50 * 1000 * 1000 };

	(void)state;
	colliding_names(names);
	build_lock("silver.orders");
	pthread_create(&w.t, NULL, lock_from_thread, &w);
	nanosleep(&pause, NULL);
	assert_int_equal(__atomic_load_n(&w.got, __ATOMIC_SEQ_CST), 0);
	/* a build waiting for one model holds up no other */
	assert_true(build_lock_try(names[1]));
	build_unlock(names[1]);
	build_unlock("silver.orders");
	pthread_join(w.t, NULL);
	assert_int_equal(w.got, 1);
	/* nobody holds it any more */
	assert_true(build_lock_try("silver.orders"));
	build_unlock("silver.orders");
}

#define NTHREADS NCOLLIDING
#define ROUNDS 2000

/* Every thread has a model of its own (the names collided in the old
 * table), which it must always get at once, and all of them contend for
 * one shared model, which at most one may hold at a time. */
struct contender {
	pthread_t t;
	const char *own;
	int64_t taken; /* times this thread held the shared model */
	int64_t own_refused;
};

static const char *const shared_model = "gold.shared";
static int shared_inside;  /* holders of the shared model right now */
static int shared_overlaps; /* times a holder found another one inside */
static int64_t shared_count; /* changed only by a holder, without atomics */

static void hold_shared(struct contender *c)
{
	if (__atomic_fetch_add(&shared_inside, 1, __ATOMIC_SEQ_CST) != 0)
		__atomic_fetch_add(&shared_overlaps, 1, __ATOMIC_SEQ_CST);
	shared_count++;
	c->taken++;
	__atomic_fetch_sub(&shared_inside, 1, __ATOMIC_SEQ_CST);
}

static void *contend(void *arg)
{
	struct contender *c = arg;

	for (int i = 0; i < ROUNDS; i++) {
		if (build_lock_try(c->own))
			build_unlock(c->own);
		else
			c->own_refused++;
		if (i % 2) {
			build_lock(shared_model);
			hold_shared(c);
			build_unlock(shared_model);
		} else if (build_lock_try(shared_model)) {
			hold_shared(c);
			build_unlock(shared_model);
		}
	}
	return NULL;
}

static void test_many_threads(void **state)
{
	char names[NCOLLIDING][32];
	struct contender c[NTHREADS];
	int64_t taken = 0;

	(void)state;
	colliding_names(names);
	memset(c, 0, sizeof(c));
	for (int i = 0; i < NTHREADS; i++) {
		c[i].own = names[i];
		pthread_create(&c[i].t, NULL, contend, &c[i]);
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(c[i].t, NULL);
		taken += c[i].taken;
		assert_int_equal(c[i].own_refused, 0);
		/* every blocking lock got the shared model in the end */
		assert_true(c[i].taken >= ROUNDS / 2);
	}
	assert_int_equal(shared_overlaps, 0);
	assert_int_equal(shared_count, taken);
	/* everything was released */
	for (int i = 0; i < NTHREADS; i++) {
		assert_true(build_lock_try(names[i]));
		build_unlock(names[i]);
	}
	assert_true(build_lock_try(shared_model));
	build_unlock(shared_model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_try_fails_while_held),
		cmocka_unit_test(test_other_models_free),
		cmocka_unit_test(test_colliding_names_apart),
		cmocka_unit_test(test_lock_waits_for_release),
		cmocka_unit_test(test_many_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
