/*
 * What the warehouse interface offers processes that share a warehouse,
 * on the PostgreSQL server tests/run.sh starts (SLUICE_TEST_PG), two
 * connections standing for two processes: a snapshot transaction sees
 * none of the other's commits, a plain one does; a transaction that the
 * other's commit undid fails with SL_E_BUSY and changes nothing; a
 * transaction's lock makes the other wait until it ends; only PostgreSQL
 * is shared.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_pg.h"

#include "core/err.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct fx {
	struct wh *a, *b;
	struct sl_err err;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->a = fixture_pg_open();
	f->b = fixture_pg_open();
	if (wh_exec(f->a, "DROP TABLE IF EXISTS shared_t; CREATE TABLE shared_t (k INT PRIMARY "
			  "KEY, v INT); INSERT INTO shared_t VALUES (1, 10)",
		    &f->err))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	wh_exec(f->a, "DROP TABLE IF EXISTS shared_t", NULL);
	wh_close(f->a);
	wh_close(f->b);
	free(f);
	return 0;
}

static int64_t value(struct wh *w)
{
	int64_t v = -1;

	assert_int_equal(wh_query_int(w, "SELECT v FROM shared_t WHERE k = 1", &v, NULL), 0);
	return v;
}

static void test_snapshot_sees_one_moment(void **state)
{
	struct fx *f = *state;

	assert_int_equal(wh_begin_snapshot(f->a, &f->err), 0);
	assert_int_equal(value(f->a), 10);
	assert_int_equal(wh_exec(f->b, "UPDATE shared_t SET v = 11", &f->err), 0);
	/* what a build reads and the watermarks it records agree */
	assert_int_equal(value(f->a), 10);
	assert_int_equal(wh_commit(f->a, &f->err), 0);
	/* a plain transaction sees each commit as it comes */
	assert_int_equal(wh_begin(f->a, &f->err), 0);
	assert_int_equal(value(f->a), 11);
	assert_int_equal(wh_exec(f->b, "UPDATE shared_t SET v = 12", &f->err), 0);
	assert_int_equal(value(f->a), 12);
	assert_int_equal(wh_commit(f->a, &f->err), 0);
}

static void test_undone_by_another_commit_is_busy(void **state)
{
	struct fx *f = *state;

	assert_int_equal(wh_begin_snapshot(f->a, &f->err), 0);
	assert_int_equal(value(f->a), 10);
	assert_int_equal(wh_exec(f->b, "UPDATE shared_t SET v = 20", &f->err), 0);
	assert_int_equal(wh_exec(f->a, "UPDATE shared_t SET v = v + 1", &f->err), SL_E_BUSY);
	wh_rollback(f->a);
	/* nothing of it stayed, and the connection goes on */
	assert_int_equal(value(f->a), 20);
	assert_false(wh_suspect(f->a, NULL));
}

struct waiter {
	struct wh *w;
	int done;
};

static void *lock_then_write(void *arg)
{
	struct waiter *wt = arg;

	if (wh_begin(wt->w, NULL) == 0 && wh_lock(wt->w, "k", WH_LOCK_TXN, NULL, NULL) == 0) {
		__atomic_store_n(&wt->done, 1, __ATOMIC_SEQ_CST);
		wh_commit(wt->w, NULL);
	}
	return NULL;
}

static void test_transaction_lock_until_it_ends(void **state)
{
	struct fx *f = *state;
	struct waiter wt = { .w = f->b };
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	pthread_t t;
	bool got;

	assert_int_equal(wh_begin(f->a, &f->err), 0);
	assert_int_equal(wh_lock(f->a, "k", WH_LOCK_TXN, &got, &f->err), 0);
	assert_true(got);
	pthread_create(&t, NULL, lock_then_write, &wt);
	nanosleep(&pause, NULL);
	assert_int_equal(__atomic_load_n(&wt.done, __ATOMIC_SEQ_CST), 0);
	assert_int_equal(wh_commit(f->a, &f->err), 0);
	pthread_join(t, NULL);
	assert_int_equal(wt.done, 1);
}

static void test_only_postgres_is_shared(void **state)
{
	struct fx *f = *state;
	struct sl_err err = SL_ERR_INIT;
	struct wh *duck;
	bool got = false;

	assert_true(wh_shared(f->a));
	assert_int_equal(wh_open_duckdb(NULL, false, &duck, &err), 0);
	assert_false(wh_shared(duck));
	/* one process holds a DuckDB file: its locks are always free */
	assert_int_equal(wh_lock(duck, "k", WH_LOCK_TRY, &got, &err), 0);
	assert_true(got);
	assert_int_equal(wh_unlock(duck, "k", &err), 0);
	wh_close(duck);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_snapshot_sees_one_moment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undone_by_another_commit_is_busy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_transaction_lock_until_it_ends, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_only_postgres_is_shared, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
