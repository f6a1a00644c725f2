/*
 * The landing writer (src/ingest/writer.c) on an in-memory DuckDB: group
 * commit, one sequence per landing table per flush, isolation of a bad
 * batch, delivery ids, back-pressure, the flush on stop and a batch's
 * cursor; and, on a file whose disk is full, a failed commit that no one
 * is answered for.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_wh.h"

#include "core/err.h"
#include "ingest/writer.h"
#include "warehouse/wh.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fx {
	struct wh *probe; /* a connection of the test's own */
	struct ingest_writer *wr;
	struct sl_err err;
	pthread_mutex_t mu;
	int advances;
	int64_t advanced_rows;
	int suspects;  /* calls of the suspect callback */
	char why[SL_ERR_MSG_MAX]; /* what it was told */
};

/* What one submission got back. */
struct answer {
	pthread_mutex_t *mu;
	bool done;
	struct ingest_result res;
};

static const char *const NAMES[] = { "order_id", "amount", "payload" };

static void on_advance(void *ctx, const char *source, const struct live_advance *adv)
{
	struct fx *f = ctx;

	assert_string_equal(source, "landing.orders");
	pthread_mutex_lock(&f->mu);
	f->advances++;
	f->advanced_rows += adv->rows;
	pthread_mutex_unlock(&f->mu);
}

static void on_done(void *ctx, const struct ingest_result *res)
{
	struct answer *an = ctx;

	pthread_mutex_lock(an->mu);
	an->res = *res;
	an->done = true;
	pthread_mutex_unlock(an->mu);
}

static void on_suspect(void *ctx, const struct sl_err *err)
{
	struct fx *f = ctx;

	pthread_mutex_lock(&f->mu);
	f->suspects++;
	snprintf(f->why, sizeof(f->why), "%s", err->msg);
	pthread_mutex_unlock(&f->mu);
}

/* The writer on the database at path (NULL: in memory). */
static void start_at(struct fx *f, const char *path, int64_t flush_interval_ms,
		     int64_t max_rows)
{
	struct wh *w;
	struct ingest_opts opts = { .flush_interval_ms = flush_interval_ms,
				    .flush_rows = 1000,
				    .max_rows = max_rows,
				    .advanced = on_advance,
				    .suspect = on_suspect,
				    .ctx = f };

	assert_int_equal(wh_open_duckdb(path, false, &w, &f->err), 0);
	assert_int_equal(wh_connect(w, &f->probe, &f->err), 0);
	assert_int_equal(wh_exec(f->probe,
				 "CREATE SCHEMA landing; CREATE TABLE landing.orders (order_id "
				 "BIGINT, amount DOUBLE, payload JSON, _sluice_landed_at TIMESTAMP, "
				 "_sluice_seq BIGINT)",
				 &f->err),
			 0);
	assert_int_equal(ingest_writer_start(w, &opts, &f->wr, &f->err), 0);
}

static void start(struct fx *f, int64_t flush_interval_ms, int64_t max_rows)
{
	start_at(f, NULL, flush_interval_ms, max_rows);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	pthread_mutex_init(&f->mu, NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (f->wr)
		ingest_writer_stop(f->wr);
	wh_close(f->probe);
	pthread_mutex_destroy(&f->mu);
	free(f);
	return 0;
}

/* A batch of rows "id,amount" (one value string per row). */
struct rows {
	const char *cells[3 * 8];
	struct ingest_batch b;
};

static const struct ingest_batch *batch(struct rows *r, const char *delivery, size_t n,
					const char *const *ids, const char *const *amounts)
{
	for (size_t i = 0; i < n; i++) {
		r->cells[i * 3] = ids[i];
		r->cells[i * 3 + 1] = amounts[i];
		r->cells[i * 3 + 2] = "{\"k\": 1}";
	}
	r->b = (struct ingest_batch){ .source = "landing.orders",
				      .names = NAMES,
				      .ncols = 3,
				      .nrows = n,
				      .cells = r->cells,
				      .delivery = delivery };
	return &r->b;
}

static void submit(struct fx *f, const struct ingest_batch *b, struct answer *an)
{
	an->mu = &f->mu;
	assert_int_equal(ingest_submit(f->wr, b, on_done, an, &f->err), 0);
}

static void wait_all(struct fx *f, struct answer *ans, size_t n)
{
	for (int tries = 0; tries < 1000; tries++) {
		size_t done = 0;

		pthread_mutex_lock(&f->mu);
		for (size_t i = 0; i < n; i++)
			done += ans[i].done;
		pthread_mutex_unlock(&f->mu);
		if (done == n)
			return;
		struct timespec ts = { 0, 5000000L };
		nanosleep(&ts, NULL);
	}
	fail_msg("answers did not come");
}

static void test_group_commit(void **state)
{
	struct fx *f = *state;
	struct rows r[3];
	struct answer ans[3] = { 0 };
	const char *ids[] = { "1", "2" }, *amounts[] = { "1.5", "2" };

	start(f, 200, 100000);
	for (int i = 0; i < 3; i++)
		submit(f, batch(&r[i], NULL, 2, ids, amounts), &ans[i]);
	/* nothing is answered before its transaction commits */
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.orders"), 0);
	assert_false(ans[0].done);
	wait_all(f, ans, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ans[i].res.code, 0);
		assert_int_equal(ans[i].res.rows, 2);
		assert_int_equal(ans[i].res.seq, ans[0].res.seq);
		assert_false(ans[i].res.duplicate);
	}
	assert_true(ans[0].res.seq > 0);
	/* one transaction: one sequence, one advance */
	assert_int_equal(
		query_int(f->probe,
			  "SELECT count(*) FROM landing.orders WHERE _sluice_seq = "
			  "(SELECT watermark FROM _sluice.live_sources) AND (payload->>'k') = "
			  "'1' AND _sluice_landed_at IS NOT NULL"),
		6);
	assert_int_equal(
		query_int(f->probe, "SELECT count(*) FROM _sluice.live_advances WHERE rows = 6"),
		1);
	assert_int_equal(query_int(f->probe, "SELECT sum(amount) * 10 FROM landing.orders"), 105);
	assert_int_equal(f->advances, 1);
	assert_int_equal(f->advanced_rows, 6);
}

/* A batch the table refuses fails alone; the others land. */
static void test_bad_batch_fails_alone(void **state)
{
	struct fx *f = *state;
	struct rows r[3];
	struct answer ans[3] = { 0 };
	const char *ids[] = { "1", "2" }, *good[] = { "1", "2" }, *bad[] = { "3", "abc" };

	start(f, 100, 100000);
	submit(f, batch(&r[0], NULL, 2, ids, good), &ans[0]);
	submit(f, batch(&r[1], NULL, 2, ids, bad), &ans[1]);
	submit(f, batch(&r[2], NULL, 2, ids, good), &ans[2]);
	wait_all(f, ans, 3);
	assert_int_equal(ans[0].res.code, 0);
	assert_int_equal(ans[2].res.code, 0);
	assert_int_not_equal(ans[1].res.code, 0);
	assert_true(ans[1].res.bad_input);
	assert_non_null(strstr(ans[1].res.error, "row 2"));
	assert_int_equal(ans[1].res.rows, 0);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.orders"), 4);
	assert_int_equal(
		query_int(f->probe, "SELECT count(DISTINCT _sluice_seq) FROM landing.orders"), 2);
	assert_int_equal(query_int(f->probe, "SELECT sum(rows) FROM _sluice.live_advances"), 4);
}

static void test_delivery_ids(void **state)
{
	struct fx *f = *state;
	struct rows r[4];
	struct answer ans[4] = { 0 };
	const char *ids[] = { "1" }, *amounts[] = { "1" };

	start(f, 20, 100000);
	submit(f, batch(&r[0], "d-1", 1, ids, amounts), &ans[0]);
	wait_all(f, ans, 1);
	/* again later, and twice within one flush */
	submit(f, batch(&r[1], "d-1", 1, ids, amounts), &ans[1]);
	submit(f, batch(&r[2], "d-2", 1, ids, amounts), &ans[2]);
	submit(f, batch(&r[3], "d-2", 1, ids, amounts), &ans[3]);
	wait_all(f, ans, 4);
	assert_false(ans[0].res.duplicate);
	assert_true(ans[1].res.duplicate);
	assert_int_equal(ans[1].res.seq, ans[0].res.seq);
	assert_int_equal(ans[1].res.rows, 1);
	assert_false(ans[2].res.duplicate);
	assert_true(ans[3].res.duplicate);
	assert_int_equal(ans[3].res.seq, ans[2].res.seq);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.orders"), 2);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM _sluice.deliveries"), 2);
}

/* A batch without rows lands nothing: no sequence taken, no advance, no
 * delivery id kept, so a later batch with rows and the same id lands. */
static void test_empty_batch(void **state)
{
	struct fx *f = *state;
	struct rows r[3];
	struct answer ans[3] = { 0 };
	const char *ids[] = { "1" }, *amounts[] = { "1" };

	start(f, 0, 100000);
	submit(f, batch(&r[0], "d-1", 0, ids, amounts), &ans[0]);
	wait_all(f, ans, 1);
	assert_int_equal(ans[0].res.code, 0);
	assert_int_equal(ans[0].res.rows, 0);
	assert_int_equal(ans[0].res.seq, 0);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM _sluice.live_advances"), 0);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM _sluice.deliveries"), 0);
	submit(f, batch(&r[1], "d-1", 1, ids, amounts), &ans[1]);
	wait_all(f, ans, 2);
	assert_false(ans[1].res.duplicate);
	/* the first sequence of the warehouse: the empty batch took none */
	assert_int_equal(ans[1].res.seq, 1);
	submit(f, batch(&r[2], NULL, 0, ids, amounts), &ans[2]);
	wait_all(f, ans, 3);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.orders"), 1);
	assert_int_equal(query_int(f->probe, "SELECT nextval('_sluice.seq')"), 2);
	assert_int_equal(f->advances, 1);
}

/* Retries of landed deliveries amid new ones in one flush: the primary key
 * finds them, the flush is done again with the lookup, the new ones land
 * once, the retries get their first answers, and a flush of retries alone
 * writes nothing. */
static void test_retries_amid_new_deliveries(void **state)
{
	struct fx *f = *state;
	struct rows r[8];
	struct answer ans[8] = { 0 };
	const char *ids[] = { "1" }, *amounts[] = { "1" };
	int64_t advances;

	start(f, 200, 100000);
	submit(f, batch(&r[0], "d-1", 1, ids, amounts), &ans[0]);
	submit(f, batch(&r[1], "d-2", 1, ids, amounts), &ans[1]);
	wait_all(f, ans, 2);
	submit(f, batch(&r[2], "d-3", 1, ids, amounts), &ans[2]);
	submit(f, batch(&r[3], "d-1", 1, ids, amounts), &ans[3]);
	submit(f, batch(&r[4], "d-4", 1, ids, amounts), &ans[4]);
	submit(f, batch(&r[5], "d-2", 1, ids, amounts), &ans[5]);
	submit(f, batch(&r[6], "d-4", 1, ids, amounts), &ans[6]);
	wait_all(f, ans, 7);
	for (int i = 0; i < 7; i++)
		assert_int_equal(ans[i].res.code, 0);
	assert_false(ans[2].res.duplicate);
	assert_false(ans[4].res.duplicate);
	assert_int_equal(ans[4].res.seq, ans[2].res.seq);
	assert_true(ans[3].res.duplicate);
	assert_int_equal(ans[3].res.seq, ans[0].res.seq);
	assert_true(ans[5].res.duplicate);
	assert_int_equal(ans[5].res.seq, ans[1].res.seq);
	assert_true(ans[6].res.duplicate);
	assert_int_equal(ans[6].res.seq, ans[4].res.seq);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.orders"), 4);
	assert_int_equal(query_int(f->probe, "SELECT count(DISTINCT _sluice_seq) FROM landing.orders"), 2);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM _sluice.deliveries"), 4);
	advances = query_int(f->probe, "SELECT count(*) FROM _sluice.live_advances");
	submit(f, batch(&r[7], "d-3", 1, ids, amounts), &ans[7]);
	wait_all(f, &ans[7], 1);
	assert_true(ans[7].res.duplicate);
	assert_int_equal(ans[7].res.seq, ans[2].res.seq);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM _sluice.live_advances"), advances);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.orders"), 4);
}

/* Too many rows waiting: refused at once, nothing queued. */
static void test_busy(void **state)
{
	struct fx *f = *state;
	struct rows r[2];
	struct answer ans[2] = { 0 };
	const char *ids[] = { "1", "2", "3" }, *amounts[] = { "1", "2", "3" };

	start(f, 500, 4);
	submit(f, batch(&r[0], NULL, 3, ids, amounts), &ans[0]);
	assert_int_equal(ingest_submit(f->wr, batch(&r[1], NULL, 3, ids, amounts), on_done, &ans[1],
				       &f->err),
			 SL_E_BUSY);
	wait_all(f, ans, 1);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.orders"), 3);
}

/* Stopping commits what was accepted, however long it would have waited. */
static void test_stop_flushes(void **state)
{
	struct fx *f = *state;
	struct rows r;
	struct answer an = { 0 };
	const char *ids[] = { "1" }, *amounts[] = { "1" };

	start(f, 60000, 100000);
	submit(f, batch(&r, NULL, 1, ids, amounts), &an);
	ingest_writer_stop(f->wr);
	f->wr = NULL;
	assert_true(an.done);
	assert_int_equal(an.res.code, 0);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.orders"), 1);
}

static void test_unknown_column_and_table(void **state)
{
	struct fx *f = *state;
	struct ingest_result res;
	const char *names[] = { "nope" }, *cells[] = { "1" };
	struct ingest_batch b = { .source = "landing.orders", .names = names, .ncols = 1,
				  .nrows = 1, .cells = cells };

	start(f, 1, 100000);
	assert_int_equal(ingest_submit_wait(f->wr, &b, &res, &f->err), 0);
	assert_int_equal(res.code, SL_E_CONFIG);
	assert_non_null(strstr(res.error, "landing table landing.orders has no column 'nope'"));
	b.source = "landing.missing";
	assert_int_equal(ingest_submit_wait(f->wr, &b, &res, &f->err), 0);
	assert_int_not_equal(res.code, 0);
	assert_non_null(strstr(res.error, "landing.missing"));
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM _sluice.live_advances"), 0);
}

static const char *cursor_of(struct fx *f)
{
	static char out[64];
	struct wh_result *r;

	if (wh_query(f->probe, "SELECT coalesce(cursor, 'NULL') FROM _sluice.live_sources", &r,
		     &f->err))
		fail_msg("%s", f->err.msg);
	snprintf(out, sizeof(out), "%s", wh_result_nrows(r) ? wh_result_value(r, 0, 0) : "none");
	wh_result_free(r);
	return out;
}

/* A batch's cursor is stored with its rows, in their transaction; a batch
 * that fails or has no rows stores none. */
static void test_cursor(void **state)
{
	struct fx *f = *state;
	struct rows r[2];
	struct ingest_result res;
	const char *ids[] = { "1", "2" }, *good[] = { "1", "2" }, *bad[] = { "3", "abc" };

	start(f, 1, 100000);
	batch(&r[0], NULL, 0, ids, good);
	r[0].b.cursor = "c0";
	assert_int_equal(ingest_submit_wait(f->wr, &r[0].b, &res, &f->err), 0);
	assert_int_equal(res.code, 0);
	assert_string_equal(cursor_of(f), "none");
	batch(&r[0], NULL, 2, ids, good);
	r[0].b.cursor = "c1";
	assert_int_equal(ingest_submit_wait(f->wr, &r[0].b, &res, &f->err), 0);
	assert_int_equal(res.code, 0);
	assert_string_equal(cursor_of(f), "c1");
	batch(&r[1], NULL, 2, ids, bad);
	r[1].b.cursor = "c2";
	assert_int_equal(ingest_submit_wait(f->wr, &r[1].b, &res, &f->err), 0);
	assert_true(res.bad_input);
	assert_string_equal(cursor_of(f), "c1");
	/* a batch without one leaves it alone */
	batch(&r[0], NULL, 2, ids, good);
	r[0].b.cursor = NULL;
	assert_int_equal(ingest_submit_wait(f->wr, &r[0].b, &res, &f->err), 0);
	assert_int_equal(res.code, 0);
	assert_string_equal(cursor_of(f), "c1");
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.orders"), 4);
}

/* A commit that fails for want of space may or may not be on disk: the
 * writer answers none of its batches, tells its owner once, and takes
 * nothing more; stopping drops what it held, still unanswered. The WAL is
 * /dev/full, which DuckDB opens anew after a checkpoint. */
static void test_failed_write_is_answered_to_no_one(void **state)
{
	struct fx *f = *state;
	struct rows r[2];
	struct answer ans[2] = { 0 };
	const char *ids[] = { "1" }, *amounts[] = { "1" };
	char dir[] = "/tmp/sluice-test-writer-XXXXXX", path[PATH_MAX], wal[PATH_MAX + 8];
	int suspects = 0;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/warehouse.duckdb", dir);
	snprintf(wal, sizeof(wal), "%s.wal", path);
	start_at(f, path, 1, 100000);
	exec(f->probe, "CHECKPOINT");
	unlink(wal);
	assert_int_equal(symlink("/dev/full", wal), 0);
	submit(f, batch(&r[0], "d-1", 1, ids, amounts), &ans[0]);
	for (int tries = 0; tries < 1000 && !suspects; tries++) {
		nanosleep(&(struct timespec){ 0, 5000000L }, NULL);
		pthread_mutex_lock(&f->mu);
		suspects = f->suspects;
		pthread_mutex_unlock(&f->mu);
	}
	assert_int_equal(suspects, 1);
	assert_non_null(strstr(f->why, "No space left on device"));
	assert_int_equal(ingest_submit(f->wr, batch(&r[1], NULL, 1, ids, amounts), on_done, &ans[1],
				       &f->err),
			 SL_E_BUSY);
	assert_non_null(strstr(f->err.msg, "the warehouse failed a write"));
	ingest_writer_stop(f->wr);
	f->wr = NULL;
	assert_false(ans[0].done);
	assert_false(ans[1].done);
	assert_int_equal(f->suspects, 1);
	unlink(wal);
	unlink(path);
	rmdir(dir);
}

/* A sender that sends again once answered, ROUNDS times; once an answer
 * carries a sequence beyond slow_after, think_us after each answer. */
#define ROUNDS 40

struct sender {
	struct fx *f;
	char id[16];
	int64_t slow_after;
	useconds_t think_us;
};

static void *send_rounds(void *arg)
{
	struct sender *s = arg;
	const char *ids[] = { s->id }, *amounts[] = { "1" };

	for (int i = 0; i < ROUNDS; i++) {
		struct rows r;
		struct ingest_result res;

		assert_int_equal(ingest_submit_wait(s->f->wr, batch(&r, NULL, 1, ids, amounts),
						    &res, NULL),
				 0);
		assert_int_equal(res.code, 0);
		if (s->think_us && res.seq > s->slow_after)
			usleep(s->think_us);
	}
	return NULL;
}

/* Two senders on a file (so that a commit costs what it costs on disk),
 * slow after sequence slow_after: whether their sends after it met, one
 * sequence for both senders' sends but for one in eight. */
static bool two_senders_meet(struct fx *f, int64_t slow_after, useconds_t think_us)
{
	char dir[] = "/tmp/sluice-test-writer-XXXXXX", path[PATH_MAX], wal[PATH_MAX + 8];
	char sql[160];
	struct sender s[2] = {
		{ .f = f, .id = "1", .slow_after = slow_after, .think_us = think_us },
		{ .f = f, .id = "2", .slow_after = slow_after, .think_us = think_us },
	};
	pthread_t t[2];
	int64_t sends, seqs;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/warehouse.duckdb", dir);
	snprintf(wal, sizeof(wal), "%s.wal", path);
	start_at(f, path, 0, 100000);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, send_rounds, &s[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(query_int(f->probe, "SELECT count(*) FROM landing.orders"), 2 * ROUNDS);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM landing.orders WHERE _sluice_seq > %lld",
		 (long long)slow_after);
	sends = query_int(f->probe, sql);
	snprintf(sql, sizeof(sql),
		 "SELECT count(DISTINCT _sluice_seq) FROM landing.orders WHERE _sluice_seq > %lld",
		 (long long)slow_after);
	seqs = query_int(f->probe, sql);
	print_message("%lld sends of two senders after sequence %lld, %u us from answer to "
		      "send, took %lld sequences\n",
		      (long long)sends, (long long)slow_after, (unsigned)think_us,
		      (long long)seqs);
	ingest_writer_stop(f->wr);
	f->wr = NULL;
	wh_close(f->probe);
	f->probe = NULL;
	unlink(wal);
	unlink(path);
	rmdir(dir);
	return sends > ROUNDS && seqs <= sends / 2 + sends / 8;
}

/* Two senders that each wait for their answer meet in one commit instead
 * of taking turns, without any flush_interval: a turn-taking writer would
 * take a sequence per send. */
static void test_senders_meet(void **state)
{
	assert_true(two_senders_meet(*state, 0, 0));
}

/* Once met, they stay together when their answers take longer to come
 * back than the writer would wait after a flush (5 ms at most), as
 * requests over an HTTP round trip do: the wait for the second counts
 * from the first one's arrival, not from the end of the flush, by when it
 * is spent. */
static void test_senders_meet_after_a_slow_round_trip(void **state)
{
	assert_true(two_senders_meet(*state, 10, 10000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_group_commit),
		T(test_bad_batch_fails_alone),
		T(test_delivery_ids),
		T(test_empty_batch),
		T(test_retries_amid_new_deliveries),
		T(test_busy),
		T(test_stop_flushes),
		T(test_unknown_column_and_table),
		T(test_cursor),
		T(test_failed_write_is_answered_to_no_one),
		T(test_senders_meet),
		T(test_senders_meet_after_a_slow_round_trip),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
