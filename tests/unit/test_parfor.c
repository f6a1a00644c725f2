/*
 * Unit tests for sharing items out among threads (src/core/parfor.c):
 * every item is called once, on a slot within range; items run at once
 * on as many threads as asked (proved by items that wait for each other);
 * a false return stops the items not yet started; one slot or one item
 * runs in order on the calling thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/parfor.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#define ITEMS 200

struct seen {
	atomic_int calls[ITEMS];
	atomic_int bad_slot;
	size_t nslots;
	pthread_t caller;
	atomic_int on_caller;
	atomic_size_t order_breaks, last;
};

static bool count_call(void *ctx, size_t slot, size_t i)
{
	struct seen *s = ctx;

	atomic_fetch_add(&s->calls[i], 1);
	if (slot >= s->nslots)
		atomic_fetch_add(&s->bad_slot, 1);
	if (pthread_equal(pthread_self(), s->caller))
		atomic_fetch_add(&s->on_caller, 1);
	if (i && atomic_load(&s->last) != i - 1)
		atomic_fetch_add(&s->order_breaks, 1);
	atomic_store(&s->last, i);
	return true;
}

static void test_each_item_once(void **state)
{
	(void)state;
	for (size_t nslots = 1; nslots <= 5; nslots++) {
		struct seen *s = calloc(1, sizeof(*s));

		s->nslots = nslots;
		s->caller = pthread_self();
		parfor(nslots, ITEMS, count_call, s);
		for (size_t i = 0; i < ITEMS; i++)
			assert_int_equal(atomic_load(&s->calls[i]), 1);
		assert_int_equal(atomic_load(&s->bad_slot), 0);
		if (nslots == 1) {
			assert_int_equal(atomic_load(&s->on_caller), ITEMS);
			assert_int_equal(atomic_load(&s->order_breaks), 0);
		}
		free(s);
	}
}

/* Items that each wait until `want` of them run at the same time: only
 * threads that really run at once get past the wait. */
struct meet {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int inside, most, want;
	long wait_ms; /* how long an item waits for the others at most */
	bool slot_busy[8];
	int slot_clash;
};

static bool meet_up(void *ctx, size_t slot, size_t i)
{
	struct meet *m = ctx;
	struct timespec until;

	(void)i;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += m->wait_ms % 1000 * 1000000;
	until.tv_sec += m->wait_ms / 1000 + until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	pthread_mutex_lock(&m->mu);
	/* a slot is one thread: never two items of one slot at once */
	m->slot_clash += m->slot_busy[slot];
	m->slot_busy[slot] = true;
	m->inside++;
	if (m->inside > m->most)
		m->most = m->inside;
	pthread_cond_broadcast(&m->cv);
	while (m->most < m->want &&
	       pthread_cond_timedwait(&m->cv, &m->mu, &until) == 0)
		;
	m->inside--;
	m->slot_busy[slot] = false;
	pthread_mutex_unlock(&m->mu);
	return true;
}

static void test_items_run_at_once(void **state)
{
	struct meet m = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
			  .want = 4, .wait_ms = 5000 };

	(void)state;
	parfor(4, 12, meet_up, &m);
	assert_int_equal(m.most, 4);
	assert_int_equal(m.slot_clash, 0);
	/* never more at once than the slots asked for */
	m.most = 0;
	m.want = 3;
	m.wait_ms = 200;
	parfor(2, 6, meet_up, &m);
	assert_int_equal(m.most, 2);
}

struct stopper {
	atomic_int calls;
	size_t stop_at;
};

static bool stop_at(void *ctx, size_t slot, size_t i)
{
	struct stopper *s = ctx;

	(void)slot;
	atomic_fetch_add(&s->calls, 1);
	/* slow after the stop, so that the other threads cannot run through
	 * the rest while the one that stops comes back */
	if (i > s->stop_at)
		nanosleep(&(struct timespec){ .tv_nsec = 5000000 }, NULL);
	return i != s->stop_at;
}

static void test_false_stops_the_rest(void **state)
{
	struct stopper s = { .stop_at = 3 };

	(void)state;
	parfor(1, 100, stop_at, &s);
	assert_int_equal(atomic_load(&s.calls), 4);
	/* with threads, every item before the stop ran, the ones started
	 * meanwhile finish, and the rest never start */
	atomic_store(&s.calls, 0);
	s.stop_at = 10;
	parfor(3, 1000, stop_at, &s);
	assert_true(atomic_load(&s.calls) >= 11);
	assert_true(atomic_load(&s.calls) < 100);
}

static void test_no_items(void **state)
{
	struct stopper s = { .stop_at = 0 };

	(void)state;
	parfor(4, 0, stop_at, &s);
	assert_int_equal(atomic_load(&s.calls), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_item_once),
		cmocka_unit_test(test_items_run_at_once),
		cmocka_unit_test(test_false_stops_the_rest),
		cmocka_unit_test(test_no_items),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
