/*
 * The landing writer on a PostgreSQL warehouse whose connection is lost
 * (src/ingest/writer.c with src/warehouse/postgres.c), on the server
 * tests/run.sh starts (SLUICE_TEST_PG): a COMMIT that the loss cut is
 * answered only after the warehouse was asked whether it went through,
 * and then as it did, never as landed when it did not; the writer takes
 * batches again on a new session, and says it is down meanwhile. The
 * loss is made by the session itself: a deferred trigger that ends its
 * own backend while the transaction commits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_pg.h"
#include "fixture_sql.h"

#include "core/err.h"
#include "core/units.h"
#include "ingest/writer.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DB "sluice_unit_writer_pg"

struct fx {
	struct wh *admin, *probe;
	struct ingest_writer *wr;
	struct sl_err err;
	pthread_mutex_t mu;
};

struct answer {
	pthread_mutex_t *mu;
	bool done;
	struct ingest_result res;
};

static const char *const NAMES[] = { "id" };

static void on_done(void *ctx, const struct ingest_result *res)
{
	struct answer *an = ctx;

	pthread_mutex_lock(an->mu);
	an->res = *res;
	an->done = true;
	pthread_mutex_unlock(an->mu);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct ingest_opts opts = { .flush_rows = 1000, .max_rows = 100000 };
	char dsn[512];
	struct wh *w;

	pthread_mutex_init(&f->mu, NULL);
	f->admin = fixture_pg_open();
	assert_int_equal(wh_exec(f->admin, "DROP DATABASE IF EXISTS " DB, &f->err), 0);
	assert_int_equal(wh_exec(f->admin, "CREATE DATABASE " DB, &f->err), 0);
	snprintf(dsn, sizeof(dsn), "%s dbname=" DB, fixture_pg_dsn());
	assert_int_equal(wh_open_postgres(dsn, &f->probe, &f->err), 0);
	/* a row of id 666 ends its session as its transaction commits */
	assert_int_equal(
		wh_exec(f->probe,
			"CREATE SCHEMA landing; CREATE TABLE landing.t (id BIGINT, "
			"_sluice_landed_at TIMESTAMP, _sluice_seq BIGINT); "
			"CREATE FUNCTION landing.die() RETURNS trigger LANGUAGE plpgsql AS $f$ "
			"BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); "
			"PERFORM pg_sleep(1); RETURN NULL; END $f$; "
			"CREATE CONSTRAINT TRIGGER die AFTER INSERT ON landing.t DEFERRABLE "
			"INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.id = 666) EXECUTE FUNCTION "
			"landing.die()",
			&f->err),
		0);
	assert_int_equal(wh_connect(f->probe, &w, &f->err), 0);
	assert_int_equal(ingest_writer_start(w, &opts, &f->wr, &f->err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ingest_writer_stop(f->wr);
	wh_close(f->probe);
	wh_exec(f->admin, "DROP DATABASE IF EXISTS " DB " WITH (FORCE)", NULL);
	wh_close(f->admin);
	pthread_mutex_destroy(&f->mu);
	free(f);
	return 0;
}

/* Submits one row and waits for its answer, at most 20 s (a writer that
 * never answers fails the test rather than hanging it). */
static void land(struct fx *f, const char *id, struct answer *an)
{
	const char *cells[1] = { id };
	struct ingest_batch b = {
		.source = "landing.t", .names = NAMES, .ncols = 1, .nrows = 1, .cells = cells
	};
	bool done = false;

	an->mu = &f->mu;
	assert_int_equal(ingest_submit(f->wr, &b, on_done, an, &f->err), 0);
	for (int i = 0; i < 2000 && !done; i++) {
		pthread_mutex_lock(&f->mu);
		done = an->done;
		pthread_mutex_unlock(&f->mu);
		if (!done)
			usleep(10000);
	}
	if (!done)
		fail_msg("the writer did not answer a batch whose commit the loss cut");
}

static void test_commit_cut_by_the_loss_is_not_answered_as_landed(void **state)
{
	struct fx *f = *state;
	struct answer lost = { 0 }, after = { 0 };

	land(f, "666", &lost);
	assert_int_equal(lost.res.code, SL_E_CONN);
	assert_false(lost.res.bad_input);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.t"), 0);
	/* a new session: the next batch lands */
	land(f, "1", &after);
	assert_int_equal(after.res.code, 0);
	assert_true(after.res.seq > 0);
	assert_false(ingest_writer_down(f->wr, NULL, 0));
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.t WHERE id = 1"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_commit_cut_by_the_loss_is_not_answered_as_landed,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
