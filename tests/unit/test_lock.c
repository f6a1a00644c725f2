/*
 * Build locks: one holder per model; a try fails while another thread
 * holds it and succeeds once it is released; models whose names a table
 * of 64 mutexes would have put together are apart; many threads at once.
 * Within a process on an embedded DuckDB, then between connections of a
 * PostgreSQL server (SLUICE_TEST_PG, which tests/run.sh starts), where
 * each connection stands for another process.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_pg.h"

#include "core/err.h"
#include "exec/lock.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The in-process tests' warehouse: one process holds it, so the locks are
 * the process's alone and no call reaches it. */
static struct wh *local;

static void lk(const char *model)
{
	bool waited;

	assert_int_equal(build_lock(local, model, &waited, NULL), 0);
}

static bool try_lk(const char *model)
{
	bool got;

	assert_int_equal(build_lock_try(local, model, &got, NULL), 0);
	return got;
}

static void unlk(const char *model)
{
	assert_int_equal(build_unlock(local, model, NULL), 0);
}

static void *try_from_thread(void *arg)
{
	bool *got = arg;

	*got = try_lk("silver.orders");
	if (*got)
		unlk("silver.orders");
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
	lk("silver.orders");
	assert_false(try_elsewhere());
	unlk("silver.orders");
	assert_true(try_elsewhere());
}

static void test_other_models_free(void **state)
{
	(void)state;
	assert_true(try_lk("gold.revenue"));
	assert_true(try_elsewhere());
	unlk("gold.revenue");
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
	lk(names[1]);
	assert_true(try_elsewhere());
	unlk(names[1]);
	/* and the other way round */
	lk("silver.orders");
	for (int i = 1; i < NCOLLIDING; i++)
		assert_true(try_lk(names[i]));
	for (int i = 1; i < NCOLLIDING; i++)
		unlk(names[i]);
	unlk("silver.orders");
}

struct waiter {
	pthread_t t;
	const char *model;
	int got; /* set once build_lock returned */
};

static void *lock_from_thread(void *arg)
{
	struct waiter *w = arg;

	lk(w->model);
	__atomic_store_n(&w->got, 1, __ATOMIC_SEQ_CST);
	unlk(w->model);
	return NULL;
}

static void test_lock_waits_for_release(void **state)
{
	char names[NCOLLIDING][32];
	struct waiter w = { .model = "silver.orders" };
	struct timespec pause = { 0, 50 * 1000 * 1000 };

	(void)state;
	colliding_names(names);
	lk("silver.orders");
	pthread_create(&w.t, NULL, lock_from_thread, &w);
	nanosleep(&pause, NULL);
	assert_int_equal(__atomic_load_n(&w.got, __ATOMIC_SEQ_CST), 0);
	/* a build waiting for one model holds up no other */
	assert_true(try_lk(names[1]));
	unlk(names[1]);
	unlk("silver.orders");
	pthread_join(w.t, NULL);
	assert_int_equal(w.got, 1);
	/* nobody holds it any more */
	assert_true(try_lk("silver.orders"));
	unlk("silver.orders");
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
		if (try_lk(c->own))
			unlk(c->own);
		else
			c->own_refused++;
		if (i % 2) {
			lk(shared_model);
			hold_shared(c);
			unlk(shared_model);
		} else if (try_lk(shared_model)) {
			hold_shared(c);
			unlk(shared_model);
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
		assert_true(try_lk(names[i]));
		unlk(names[i]);
	}
	assert_true(try_lk(shared_model));
	unlk(shared_model);
}

/* Between processes: connections to one PostgreSQL server. */
struct remote {
	pthread_t t;
	struct wh *w;
	const char *model;
	int got; /* set once build_lock returned */
	bool waited;
};

static void *lock_remote(void *arg)
{
	struct remote *rm = arg;

	if (build_lock(rm->w, rm->model, &rm->waited, NULL) == 0) {
		__atomic_store_n(&rm->got, 1, __ATOMIC_SEQ_CST);
		build_unlock(rm->w, rm->model, NULL);
	}
	return NULL;
}

/* The other process holds the model's lock: a build of it there. */
static void other_process_builds(struct wh *other, const char *model)
{
	char key[128];
	bool got;

	snprintf(key, sizeof(key), "build:%s", model);
	assert_int_equal(wh_lock(other, key, WH_LOCK_WAIT, &got, NULL), 0);
	assert_true(got);
}

static void test_processes_exclude_each_other(void **state)
{
	struct wh *other = fixture_pg_open(), *w = fixture_pg_open();
	struct remote rm = { .w = w, .model = "silver.orders" };
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	bool got;

	(void)state;
	other_process_builds(other, "silver.orders");
	/* this process's runner is told it is held, and goes on */
	assert_int_equal(build_lock_try(w, "silver.orders", &got, NULL), 0);
	assert_false(got);
	/* which left the model free in this process */
	assert_true(try_lk("silver.orders"));
	unlk("silver.orders");
	/* a model the other does not build is free */
	assert_int_equal(build_lock_try(w, "gold.revenue", &got, NULL), 0);
	assert_true(got);
	assert_int_equal(build_unlock(w, "gold.revenue", NULL), 0);
	/* a batch run waits for the other to finish, and knows it waited */
	pthread_create(&rm.t, NULL, lock_remote, &rm);
	nanosleep(&pause, NULL);
	assert_int_equal(__atomic_load_n(&rm.got, __ATOMIC_SEQ_CST), 0);
	assert_int_equal(wh_unlock(other, "build:silver.orders", NULL), 0);
	pthread_join(rm.t, NULL);
	assert_int_equal(rm.got, 1);
	assert_true(rm.waited);
	/* released: the other process gets it at once */
	assert_int_equal(wh_lock(other, "build:silver.orders", WH_LOCK_TRY, &got, NULL), 0);
	assert_true(got);
	wh_close(other);
	wh_close(w);
}

static void test_dead_process_lets_go(void **state)
{
	struct wh *other = fixture_pg_open(), *w = fixture_pg_open();
	bool got;

	(void)state;
	other_process_builds(other, "silver.dies");
	assert_int_equal(build_lock_try(w, "silver.dies", &got, NULL), 0);
	assert_false(got);
	/* killed mid-build: its connection ends, and its locks with it */
	wh_close(other);
	for (int i = 0; i < 100 && !got; i++) {
		struct timespec pause = { 0, 20 * 1000 * 1000 };

		nanosleep(&pause, NULL);
		assert_int_equal(build_lock_try(w, "silver.dies", &got, NULL), 0);
	}
	assert_true(got);
	assert_int_equal(build_unlock(w, "silver.dies", NULL), 0);
	wh_close(w);
}

static int open_local(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	return wh_open_duckdb(NULL, false, &local, &err);
}

static int close_local(void **state)
{
	(void)state;
	wh_close(local);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_try_fails_while_held),
		cmocka_unit_test(test_other_models_free),
		cmocka_unit_test(test_colliding_names_apart),
		cmocka_unit_test(test_lock_waits_for_release),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_processes_exclude_each_other),
		cmocka_unit_test(test_dead_process_lets_go),
	};

	return cmocka_run_group_tests(tests, open_local, close_local);
}
