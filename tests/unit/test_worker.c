/*
 * Unit tests for the background thread and the job queue
 * (src/core/worker.c): a queue runs its jobs in the order pushed, one at a
 * time, on one thread that is not the pusher's; pushing never waits for a
 * job; stopping runs what is still queued first. A worker made with
 * worker_init runs, stops and runs again; a wait with a deadline ends
 * on its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "core/units.h"
#include "core/worker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define JOBS 1000

struct log {
	int order[JOBS];
	atomic_int n, running, overlapped;
	pthread_t pusher, runner;
	atomic_bool on_pusher;
	/* the first job waits for the pusher to have pushed every job */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool pushed;
};

struct job {
	struct log *log;
	int i;
};

static void job_run(void *arg)
{
	struct job *j = arg;
	struct log *l = j->log;

	if (atomic_fetch_add(&l->running, 1))
		atomic_store(&l->overlapped, 1);
	if (pthread_equal(pthread_self(), l->pusher))
		atomic_store(&l->on_pusher, true);
	if (j->i == 0) {
		pthread_mutex_lock(&l->mu);
		while (!l->pushed)
			pthread_cond_wait(&l->cv, &l->mu);
		pthread_mutex_unlock(&l->mu);
	}
	l->order[atomic_fetch_add(&l->n, 1)] = j->i;
	atomic_fetch_sub(&l->running, 1);
}

static void test_queue_runs_in_order_then_stops(void **state)
{
	static struct job jobs[JOBS];
	static struct log l;
	struct sl_err err = SL_ERR_INIT;
	struct worker_queue *q;

	(void)state;
	pthread_mutex_init(&l.mu, NULL);
	pthread_cond_init(&l.cv, NULL);
	l.pusher = pthread_self();
	assert_int_equal(worker_queue_start(&q, "test queue", &err), 0);
	/* the first job holds the thread: every push returns meanwhile */
	for (int i = 0; i < JOBS; i++) {
		jobs[i] = (struct job){ .log = &l, .i = i };
		worker_queue_push(q, job_run, &jobs[i]);
	}
	pthread_mutex_lock(&l.mu);
	l.pushed = true;
	pthread_cond_signal(&l.cv);
	pthread_mutex_unlock(&l.mu);
	worker_queue_stop(q);
	assert_int_equal(atomic_load(&l.n), JOBS);
	for (int i = 0; i < JOBS; i++)
		assert_int_equal(l.order[i], i);
	assert_false(atomic_load(&l.overlapped));
	assert_false(atomic_load(&l.on_pusher));
	pthread_cond_destroy(&l.cv);
	pthread_mutex_destroy(&l.mu);
}

struct loop {
	struct worker wk;
	int rounds; /* how many times the thread ran; under wk.mu */
};

static void *loop_run(void *arg)
{
	struct loop *lp = arg;

	pthread_mutex_lock(&lp->wk.mu);
	lp->rounds++;
	while (!lp->wk.stop)
		worker_wait(&lp->wk);
	pthread_mutex_unlock(&lp->wk.mu);
	return NULL;
}

static void test_init_run_stop_run_again(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	struct loop lp = { 0 };

	(void)state;
	worker_init(&lp.wk);
	for (int run = 1; run <= 2; run++) {
		assert_int_equal(worker_run(&lp.wk, loop_run, &lp, "test loop", &err), 0);
		worker_wake(&lp.wk);
		worker_stop(&lp.wk);
		assert_true(lp.wk.stop);
		assert_int_equal(lp.rounds, run);
	}
	worker_destroy(&lp.wk);
}

static void test_wait_until_ends_on_its_own(void **state)
{
	struct worker w;
	int64_t t0;

	(void)state;
	worker_init(&w);
	pthread_mutex_lock(&w.mu);
	t0 = units_mono_ms();
	while (units_mono_ms() < t0 + 20)
		worker_wait_until(&w, t0 + 20);
	pthread_mutex_unlock(&w.mu);
	assert_true(units_mono_ms() - t0 >= 20);
	worker_destroy(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_runs_in_order_then_stops),
		cmocka_unit_test(test_init_run_stop_run_again),
		cmocka_unit_test(test_wait_until_ends_on_its_own),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
