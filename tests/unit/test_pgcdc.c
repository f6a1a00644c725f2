/*
 * The postgres_cdc consumer's landing (pgcdc_land.c) on an in-memory
 * DuckDB warehouse: one warehouse transaction, of one source transaction
 * or several in commit order, has one sequence across the slot's tables,
 * the slot's LSNs go with it,
 * a failure leaves nothing behind, and a confirmed LSN never goes back;
 * a snapshot replaces what its tables held in one transaction with the
 * slot's row, or changes nothing; an unchanged TOAST value comes from the
 * latest earlier row of its key, exactly, or is an error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_wh.h"

#include "pgcdc/pgcdc.h"
#include "live/gate.h"
#include "state/cdc_slots.h"
#include "state/state.h"
#include "core/arena.h"
#include "core/buf.h"
#include "pgcdc/pgcdc_pg.h"
#include "pgcdc/pgoutput.h"
#include "warehouse/wh.h"

#include <poll.h>
#include <string.h>

static const struct pgcdc_table tables[] = {
	{ "public.order_items", "landing.items" },
	{ "public.orders", "landing.orders" },
};
static const struct pgcdc_cfg cfg = {
	.slot = "s1", .publication = "p1", .setting = "sources.orders",
	.tables = tables, .ntables = 2,
};
/* the slot's tables and one whose landing table does not exist */
static const struct pgcdc_table three[] = {
	{ "public.order_items", "landing.items" },
	{ "public.orders", "landing.orders" },
	{ "public.gone", "landing.gone" },
};

static int setup(void **state)
{
	struct fixture_db *f;

	fixture_db_setup(state);
	f = *state;
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w, "CREATE SCHEMA landing;"
		   "CREATE TABLE landing.orders (op VARCHAR, lsn BIGINT, xid BIGINT, received_at "
		   "TIMESTAMP, payload JSON, _sluice_seq BIGINT, _sluice_pos BIGINT);"
		   "CREATE TABLE landing.items AS SELECT * FROM landing.orders");
	return 0;
}

/* A query's one value as text, in the arena. */
static const char *query_text(struct fixture_db *f, const char *sql)
{
	struct wh_result *r;
	const char *v;

	if (wh_query(f->w, sql, &r, &f->err))
		fail_msg("%s", f->err.msg);
	v = arena_strdup(f->a, wh_result_value(r, 0, 0) ? wh_result_value(r, 0, 0) : "NULL");
	wh_result_free(r);
	return v;
}

static void test_one_transaction_one_sequence(void **state)
{
	struct fixture_db *f = *state;
	struct pgcdc_row rows[] = {
		{ 1, 'c', "{\"id\":4}" },
		{ 0, 'c', "{\"order_id\":4,\"line\":1}" },
		{ 1, 'u', "{\"id\":1}" },
	};
	struct pgcdc_txn t = { .commit_lsn = 1000, .end_lsn = 1040, .xid = 7, .rows = rows,
			       .nrows = 3 };
	struct state_cdc_slot st;
	int64_t seq;

	assert_int_equal(pgcdc_land(f->w, f->a, &cfg, &t, 0, &seq, &f->err), 0);
	assert_true(seq > 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders WHERE op = 'c' OR "
					 "op = 'u'"),
			 2);
	assert_int_equal(query_int(f->w, "SELECT count(DISTINCT _sluice_seq) FROM (SELECT "
					 "_sluice_seq FROM landing.orders UNION ALL SELECT "
					 "_sluice_seq FROM landing.items)"),
			 1);
	assert_int_equal(query_int(f->w, "SELECT min(lsn) + max(xid) FROM landing.items"), 1007);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_sources WHERE "
					 "watermark = (SELECT max(_sluice_seq) FROM landing.orders)"),
			 2);
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_int_equal(st.landed, 1000);
	assert_int_equal(st.confirmed, 1040);

	/* an idle slot's WAL end raises confirmed, never lowers it */
	assert_int_equal(pgcdc_confirm_store(f->w, "s1", 2000, &f->err), 0);
	assert_int_equal(pgcdc_confirm_store(f->w, "s1", 1500, &f->err), 0);
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_int_equal(st.landed, 1000);
	assert_int_equal(st.confirmed, 2000);
	/* another slot has a row of its own */
	assert_int_equal(state_cdc_slot_read(f->w, "s2", &st, &f->err), 0);
	assert_int_equal(st.landed + st.confirmed, 0);
}

/* A landing table that fails after another took its rows rolls the whole
 * transaction back: no rows, no advance, no LSN. */
static void test_failure_lands_nothing(void **state)
{
	struct fixture_db *f = *state;
	struct pgcdc_cfg c = cfg;
	struct pgcdc_row rows[] = {
		{ 1, 'c', "{\"id\":4}" },
		{ 2, 'c', "{\"id\":5}" },
	};
	struct pgcdc_txn t = { .commit_lsn = 1000, .end_lsn = 1040, .xid = 7, .rows = rows,
			       .nrows = 2 };
	struct state_cdc_slot st;
	int64_t seq;

	c.tables = three;
	c.ntables = 3;
	assert_int_equal(pgcdc_land(f->w, f->a, &c, &t, 0, &seq, &f->err), SL_E_NOTFOUND);
	assert_int_equal(seq, 0);
	assert_non_null(strstr(f->err.msg, "landing.gone"));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders"), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_sources"), 0);
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_int_equal(st.landed, 0);
}

/* A transaction appended in parts lands as one: one sequence, its rows
 * numbered in their order across the slot's tables and the parts, and
 * visible to the transaction's own reads once flushed. */
static void test_batch_in_parts(void **state)
{
	struct fixture_db *f = *state;
	struct pgcdc_row first[] = {
		{ 1, 'c', "{\"id\":1,\"doc\":\"a\"}" },
		{ 0, 'c', "{\"order_id\":1,\"line\":1}" },
	};
	struct pgcdc_row second[] = {
		{ 1, 'u', "{\"id\":1,\"doc\":\"b\"}" },
		{ 1, 't', "{}" },
	};
	struct pgcdc_batch b;
	struct state_cdc_slot st;
	bool done = false;

	assert_int_equal(pgcdc_batch_begin(f->w, f->a, &cfg, 3000, 9, 0, false, &b, &f->err), 0);
	assert_int_equal(pgcdc_batch_add(f->w, &cfg, &b, first, 2, &f->err), 0);
	assert_int_equal(pgcdc_batch_add(f->w, &cfg, &b, second, 2, &f->err), 0);
	assert_int_equal(pgcdc_batch_flush(f->w, &b, &f->err), 0);
	assert_string_equal(query_text(f, "SELECT string_agg(op || _sluice_pos, ',' ORDER BY "
					  "_sluice_pos) FROM landing.orders"),
			    "c1,u3,t4");
	assert_string_equal(query_text(f, "SELECT string_agg(op || _sluice_pos, ',') FROM "
					  "landing.items"),
			    "c2");
	assert_int_equal(pgcdc_batch_commit(f->w, &cfg, &b, 3040, true, &done, &f->err), 0);
	assert_true(done);
	assert_int_equal(query_int(f->w, "SELECT count(DISTINCT _sluice_seq) FROM (SELECT "
					 "_sluice_seq FROM landing.orders UNION ALL SELECT "
					 "_sluice_seq FROM landing.items)"),
			 1);
	assert_int_equal(query_int(f->w, "SELECT sum(rows) FROM _sluice.live_advances"), 4);
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_int_equal(st.landed, 3000);
	assert_int_equal(st.confirmed, 3040);
}

/* Source transactions that follow one another add up in one commit: one
 * sequence, each row with its own transaction's LSN and xid, places
 * counting on across them in commit order, one advance per table with
 * the rows it took, and the slot's row saying the last. */
static void test_batch_groups(void **state)
{
	struct fixture_db *f = *state;
	struct pgcdc_row one[] = { { 1, 'c', "{\"id\":1}" }, { 0, 'c', "{\"order_id\":1}" } };
	struct pgcdc_row two[] = { { 1, 'u', "{\"id\":1}" } };
	struct pgcdc_batch b;
	struct state_cdc_slot st;
	bool done = false;

	assert_int_equal(pgcdc_batch_begin(f->w, f->a, &cfg, 3000, 9, 0, false, &b, &f->err), 0);
	assert_int_equal(pgcdc_batch_add(f->w, &cfg, &b, one, 2, &f->err), 0);
	pgcdc_batch_next(&b, 4000, 10, 0);
	assert_int_equal(pgcdc_batch_add(f->w, &cfg, &b, two, 1, &f->err), 0);
	assert_int_equal(pgcdc_batch_commit(f->w, &cfg, &b, 4040, false, &done, &f->err), 0);
	assert_true(done);
	assert_string_equal(query_text(f, "SELECT string_agg(op || lsn || '/' || xid || '/' || "
					  "_sluice_pos, ',' ORDER BY _sluice_pos) FROM "
					  "landing.orders"),
			    "c3000/9/1,u4000/10/3");
	assert_string_equal(query_text(f, "SELECT string_agg(op || lsn || '/' || _sluice_pos, ',') "
					  "FROM landing.items"),
			    "c3000/2");
	assert_int_equal(query_int(f->w, "SELECT count(DISTINCT _sluice_seq) FROM (SELECT "
					 "_sluice_seq FROM landing.orders UNION ALL SELECT "
					 "_sluice_seq FROM landing.items)"),
			 1);
	assert_string_equal(query_text(f, "SELECT string_agg(source || ':' || rows, ',' ORDER BY "
					  "seq, source) FROM _sluice.live_advances"),
			    "landing.items:1,landing.orders:2");
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_int_equal(st.landed, 4000);
	assert_int_equal(st.confirmed, 4040);
}

/* While a cycle holds the gate a landing through it writes nothing and
 * stays open, takes the next source transaction, and commits both once
 * the gate is let go. */
static void test_gate_try_commit(void **state)
{
	struct fixture_db *f = *state;
	struct pgcdc_cfg gated = cfg;
	struct pgcdc_row row[] = { { 1, 'c', "{\"id\":1}" } };
	struct pgcdc_row more[] = { { 1, 'u', "{\"id\":1}" } };
	struct pgcdc_batch b;
	struct state_cdc_slot st;
	bool done = true;

	gated.gate = true;
	assert_int_equal(pgcdc_batch_begin(f->w, f->a, &gated, 500, 3, 0, false, &b, &f->err), 0);
	assert_int_equal(pgcdc_batch_add(f->w, &gated, &b, row, 1, &f->err), 0);
	assert_int_equal(live_gate_enter(f->w, &f->err), 0);
	assert_int_equal(pgcdc_batch_commit(f->w, &gated, &b, 540, false, &done, &f->err), 0);
	assert_false(done);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.cdc_slots"), 0);
	assert_int_equal(live_gate_leave(f->w, &f->err), 0);
	pgcdc_batch_next(&b, 600, 4, 0);
	assert_int_equal(pgcdc_batch_add(f->w, &gated, &b, more, 1, &f->err), 0);
	assert_int_equal(pgcdc_batch_commit(f->w, &gated, &b, 640, false, &done, &f->err), 0);
	assert_true(done);
	assert_string_equal(query_text(f, "SELECT string_agg(op || lsn || '/' || _sluice_pos, ',' "
					  "ORDER BY _sluice_pos) FROM landing.orders"),
			    "c500/1,u600/2");
	assert_int_equal(query_int(f->w, "SELECT sum(rows) FROM _sluice.live_advances"), 2);
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_int_equal(st.landed, 600);
	assert_int_equal(st.confirmed, 640);
}

/* A commit on the committer's thread: its end is signalled on the
 * committer's descriptor once, its result is the commit's, one the gate
 * refused leaves the batch open for the next try, and a failure comes
 * back with its message and lands nothing. */
static void test_committer(void **state)
{
	struct fixture_db *f = *state;
	struct pgcdc_cfg gated = cfg;
	struct pgcdc_row row[] = { { 1, 'c', "{\"id\":1}" } };
	struct pgcdc_row bad[] = { { 1, 'c', "{\"id\":" } };
	struct pgcdc_committer k;
	struct pgcdc_batch b;
	struct state_cdc_slot st;
	struct pollfd pfd;
	bool done = true;
	int rc = -1;

	gated.gate = true;
	assert_int_equal(pgcdc_committer_start(&k, &f->err), 0);
	pfd = (struct pollfd){ .fd = k.fd, .events = POLLIN };
	assert_int_equal(pgcdc_batch_begin(f->w, f->a, &gated, 500, 3, 0, false, &b, &f->err), 0);
	assert_int_equal(pgcdc_batch_add(f->w, &gated, &b, row, 1, &f->err), 0);
	assert_int_equal(live_gate_enter(f->w, &f->err), 0);
	pgcdc_committer_submit(&k, f->w, &gated, &b, 540, false);
	assert_int_equal(poll(&pfd, 1, 10000), 1);
	assert_true(pgcdc_committer_ended(&k, false, &rc, &done, &f->err));
	assert_int_equal(rc, 0);
	assert_false(done);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_false(pgcdc_committer_ended(&k, false, &rc, &done, &f->err));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.cdc_slots"), 0);
	assert_int_equal(live_gate_leave(f->w, &f->err), 0);

	pgcdc_committer_submit(&k, f->w, &gated, &b, 540, false);
	assert_true(pgcdc_committer_ended(&k, true, &rc, &done, &f->err));
	assert_int_equal(rc, 0);
	assert_true(done);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders"), 1);
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_int_equal(st.landed, 500);
	assert_int_equal(st.confirmed, 540);

	assert_int_equal(pgcdc_batch_begin(f->w, f->a, &cfg, 600, 4, 0, false, &b, &f->err), 0);
	assert_int_equal(pgcdc_batch_add(f->w, &cfg, &b, bad, 1, &f->err), 0);
	pgcdc_committer_submit(&k, f->w, &cfg, &b, 640, true);
	assert_true(pgcdc_committer_ended(&k, true, &rc, &done, &f->err));
	assert_int_not_equal(rc, 0);
	assert_false(done);
	assert_non_null(strstr(f->err.msg, "landing.orders"));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders"), 1);
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_int_equal(st.landed, 500);
	pgcdc_committer_stop(&k);
}

/* A table's shapes: the text a Relation message makes, and the latest of
 * each table read back by (commit LSN, place). */
static void test_shapes(void **state)
{
	struct fixture_db *f = *state;
	struct pgoutput_column cols[] = {
		{ .key = true, .name = "id", .type_oid = 23, .typmod = -1 },
		{ .name = "say \"hi\"", .type_oid = 1043, .typmod = 14 },
	};
	struct pgoutput_relation rel = { .nspname = "public", .relname = "orders", .ncols = 2,
					 .cols = cols };
	struct buf text = BUF_INIT;
	struct state_cdc_shape *shapes;
	size_t n;

	pgcdc_shape_text(&text, &rel);
	assert_string_equal(text.buf, "[{\"name\":\"id\",\"type\":23,\"typmod\":-1,\"key\":true},"
				      "{\"name\":\"say \\\"hi\\\"\",\"type\":1043,\"typmod\":14,"
				      "\"key\":false}]");
	assert_int_equal(state_cdc_shape_store(f->w, "s1", "public.orders", 100, 1, "[1]", &f->err), 0);
	assert_int_equal(state_cdc_shape_store(f->w, "s1", "public.orders", 200, 3, "[3]", &f->err), 0);
	assert_int_equal(state_cdc_shape_store(f->w, "s1", "public.orders", 200, 2, "[2]", &f->err), 0);
	assert_int_equal(state_cdc_shape_store(f->w, "s1", "public.items", 150, 1, "[i]", &f->err), 0);
	assert_int_equal(state_cdc_shape_store(f->w, "s2", "public.orders", 900, 1, "[x]", &f->err), 0);
	assert_int_equal(state_cdc_shapes_read(f->w, f->a, "s1", &shapes, &n, &f->err), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(shapes[i].columns,
				    strcmp(shapes[i].relation, "public.orders") == 0 ? "[3]" : "[i]");
	buf_release(&text);
}

/* A snapshot: pending first, then its rows replace what the tables held,
 * op r, no xid, one sequence, and the slot's row says it is done at the
 * consistent point. */
static void test_snapshot_replaces(void **state)
{
	struct fixture_db *f = *state;
	struct pgcdc_row old[] = { { 1, 'c', "{\"id\":9}" } };
	struct pgcdc_txn t = { .commit_lsn = 500, .end_lsn = 540, .xid = 3, .rows = old,
			       .nrows = 1 };
	struct pgcdc_row rows[] = {
		{ 1, 'r', "{\"id\":1}" },
		{ 0, 'r', "{\"order_id\":1,\"line\":1}" },
		{ 1, 'r', "{\"id\":2}" },
	};
	struct pgcdc_batch snap;
	struct state_cdc_slot st;
	bool done = false;
	int64_t seq;

	assert_int_equal(pgcdc_land(f->w, f->a, &cfg, &t, 0, &seq, &f->err), 0);
	assert_int_equal(pgcdc_snapshot_pending(f->w, "s1", &f->err), 0);
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_true(st.stored);
	assert_int_equal(st.snapshot, 'p');
	assert_int_equal(st.landed + st.confirmed, 0);

	assert_int_equal(pgcdc_batch_begin(f->w, f->a, &cfg, 2000, 0, 0, true, &snap, &f->err), 0);
	/* two batches */
	assert_int_equal(pgcdc_batch_add(f->w, &cfg, &snap, rows, 2, &f->err), 0);
	assert_int_equal(pgcdc_batch_add(f->w, &cfg, &snap, rows + 2, 1, &f->err), 0);
	assert_int_equal(pgcdc_batch_commit(f->w, &cfg, &snap, 0, true, &done, &f->err), 0);
	assert_true(done);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders WHERE op = 'r' AND "
					 "lsn = 2000 AND xid IS NULL"),
			 2);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders"), 2);
	assert_int_equal(query_int(f->w, "SELECT count(DISTINCT _sluice_seq) FROM (SELECT "
					 "_sluice_seq FROM landing.orders UNION ALL SELECT "
					 "_sluice_seq FROM landing.items)"),
			 1);
	assert_int_equal(query_int(f->w, "SELECT sum(rows) FROM _sluice.live_advances WHERE seq = "
					 "(SELECT max(_sluice_seq) FROM landing.orders)"),
			 3);
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_int_equal(st.snapshot, 'd');
	assert_int_equal(st.landed, 2000);
	assert_int_equal(st.confirmed, 2000);
}

/* A snapshot that fails part way changes nothing: the rows from before
 * stay, and the slot's row still says pending. */
static void test_snapshot_failure_changes_nothing(void **state)
{
	struct fixture_db *f = *state;
	struct pgcdc_cfg c = cfg;
	struct pgcdc_row old[] = { { 1, 'c', "{\"id\":9}" } };
	struct pgcdc_txn t = { .commit_lsn = 500, .end_lsn = 540, .xid = 3, .rows = old,
			       .nrows = 1 };
	struct pgcdc_row rows[] = { { 1, 'r', "{\"id\":1}" }, { 0, 'r', "{\"id\":2}" } };
	struct pgcdc_batch snap;
	struct state_cdc_slot st;
	int64_t seq;

	assert_int_equal(pgcdc_land(f->w, f->a, &cfg, &t, 0, &seq, &f->err), 0);
	assert_int_equal(pgcdc_snapshot_pending(f->w, "s1", &f->err), 0);
	/* the missing landing table fails the delete at the start */
	c.tables = three;
	c.ntables = 3;
	assert_int_not_equal(pgcdc_batch_begin(f->w, f->a, &c, 2000, 0, 0, true, &snap, &f->err), 0);
	/* and a failing batch after a good one, which rolls it all back: the
	 * second table is gone (in the transaction) */
	assert_int_equal(pgcdc_batch_begin(f->w, f->a, &cfg, 2000, 0, 0, true, &snap, &f->err), 0);
	assert_int_equal(pgcdc_batch_add(f->w, &cfg, &snap, rows, 1, &f->err), 0);
	exec(f->w, "DROP TABLE landing.items");
	assert_int_equal(pgcdc_batch_add(f->w, &cfg, &snap, rows + 1, 1, &f->err),
			 SL_E_NOTFOUND);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.items"), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders WHERE op = 'c'"), 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders"), 1);
	assert_int_equal(state_cdc_slot_read(f->w, "s1", &st, &f->err), 0);
	assert_int_equal(st.snapshot, 'p');
}

static struct pgoutput_column toast_cols[] = {
	{ .key = true, .name = "id", .type_oid = 23 },
	{ .name = "body", .type_oid = 25 },
};
static const struct pgoutput_relation toast_rel = {
	.nspname = "public", .relname = "orders", .replident = 'd', .ncols = 2,
	.cols = toast_cols,
};

/* The payload of an update of key id whose body the server left out,
 * into out; returns the code. */
static int toast_update(struct fixture_db *f, const char *id, const struct pgcdc_txn *txn,
			struct buf *out)
{
	struct pgoutput_value v[] = {
		{ .kind = PGOUTPUT_TEXT, .len = (uint32_t)strlen(id), .text = id },
		{ .kind = PGOUTPUT_UNCHANGED },
	};
	struct pgoutput_tuple t = { .kind = 'N', .ncols = 2, .values = v };

	buf_reset(out);
	return pgcdc_toast_json(f->w, &cfg, 1, txn, &toast_rel, &t, &t, out, &f->err);
}

static void test_toast_from_landed_row(void **state)
{
	struct fixture_db *f = *state;
	struct buf out = BUF_INIT;

	exec(f->w, "INSERT INTO landing.orders (op, payload, _sluice_seq) VALUES "
		   "('c', '{\"id\":1,\"body\":\"older\"}', 3), "
		   "('u', '{\"id\":1,\"body\":\"old \\\"one\\\"\"}', 5), "
		   "('c', '{\"id\":10,\"body\":\"ten\"}', 6), "
		   "('c', '{\"id\":2,\"j\":{\"id\":1,\"x\":0},\"body\":\"nested\"}', 7)");
	assert_int_equal(toast_update(f, "1", NULL, &out), 0);
	assert_string_equal(out.buf, "{\"id\":1,\"body\":\"old \\\"one\\\"\"}");
	assert_int_equal(toast_update(f, "10", NULL, &out), 0);
	assert_string_equal(out.buf, "{\"id\":10,\"body\":\"ten\"}");

	/* a change of the same transaction, not landed yet, comes first */
	{
		struct pgcdc_row rows[] = {
			{ 1, 'u', "{\"id\":1,\"body\":\"first\"}" },
			{ 0, 'c', "{\"id\":1,\"body\":\"other table\"}" },
			{ 1, 'u', "{\"id\":1,\"body\":\"in memory\"}" },
			{ 1, 'u', "{\"id\":2,\"body\":\"another key\"}" },
		};
		struct pgcdc_txn t = { .rows = rows, .nrows = 4 };

		assert_int_equal(toast_update(f, "1", &t, &out), 0);
		assert_string_equal(out.buf, "{\"id\":1,\"body\":\"in memory\"}");
	}
	buf_release(&out);
}

/* An earlier source transaction of the commit still open, once flushed,
 * is where an unchanged value comes from. */
static void test_toast_from_open_batch(void **state)
{
	struct fixture_db *f = *state;
	struct pgcdc_row old[] = { { 1, 'c', "{\"id\":1,\"body\":\"landed\"}" } };
	struct pgcdc_txn t = { .commit_lsn = 500, .end_lsn = 540, .xid = 3, .rows = old,
			       .nrows = 1 };
	struct pgcdc_row rows[] = { { 1, 'u', "{\"id\":1,\"body\":\"in the commit\"}" } };
	struct pgcdc_batch b;
	struct buf out = BUF_INIT;
	int64_t seq;

	assert_int_equal(pgcdc_land(f->w, f->a, &cfg, &t, 0, &seq, &f->err), 0);
	assert_int_equal(pgcdc_batch_begin(f->w, f->a, &cfg, 3000, 9, 0, false, &b, &f->err), 0);
	assert_int_equal(pgcdc_batch_add(f->w, &cfg, &b, rows, 1, &f->err), 0);
	assert_int_equal(pgcdc_batch_flush(f->w, &b, &f->err), 0);
	assert_int_equal(toast_update(f, "1", NULL, &out), 0);
	assert_string_equal(out.buf, "{\"id\":1,\"body\":\"in the commit\"}");
	pgcdc_batch_abandon(f->w, &b);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM landing.orders"), 1);
	buf_release(&out);
}

/* An update that moved the row to another key finds its unchanged values
 * under the old key, the one the rows before it have. */
static void test_toast_of_moved_key(void **state)
{
	struct fixture_db *f = *state;
	struct pgoutput_value nv[] = { { .kind = PGOUTPUT_TEXT, .len = 1, .text = "5" },
				       { .kind = PGOUTPUT_UNCHANGED } };
	struct pgoutput_value ov[] = { { .kind = PGOUTPUT_TEXT, .len = 1, .text = "1" },
				       { .kind = PGOUTPUT_NULL } };
	struct pgoutput_tuple t = { .kind = 'N', .ncols = 2, .values = nv };
	struct pgoutput_tuple old = { .kind = 'K', .ncols = 2, .values = ov };
	struct buf out = BUF_INIT;

	exec(f->w, "INSERT INTO landing.orders (op, payload, _sluice_seq) VALUES "
		   "('c', '{\"id\":1,\"body\":\"of one\"}', 3), "
		   "('c', '{\"id\":5,\"body\":\"of five, deleted\"}', 4), "
		   "('d', '{\"id\":5}', 5)");
	assert_int_equal(pgcdc_toast_json(f->w, &cfg, 1, NULL, &toast_rel, &old, &t, &out, &f->err),
			 0);
	assert_string_equal(out.buf, "{\"id\":5,\"body\":\"of one\"}");
	buf_release(&out);
}

static void test_toast_refused(void **state)
{
	struct fixture_db *f = *state;
	struct buf out = BUF_INIT;

	/* no row of the key: never NULL */
	assert_int_equal(toast_update(f, "1", NULL, &out), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "public.orders key {\"id\":1}: column 'body'"));
	assert_int_equal(out.len, 0);
	/* the last row of the key is its delete */
	exec(f->w, "INSERT INTO landing.orders (op, payload, _sluice_seq) VALUES "
		   "('c', '{\"id\":1,\"body\":\"x\"}', 3), ('d', '{\"id\":1}', 4)");
	assert_int_equal(toast_update(f, "1", NULL, &out), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "has none"));
	/* changes of one transaction: the later by position */
	exec(f->w, "INSERT INTO landing.orders (op, payload, _sluice_seq, _sluice_pos) VALUES "
		   "('u', '{\"id\":1,\"body\":\"b\"}', 8, 2), ('u', '{\"id\":1,\"body\":\"a\"}', 8, 1)");
	assert_int_equal(toast_update(f, "1", NULL, &out), 0);
	assert_string_equal(out.buf, "{\"id\":1,\"body\":\"b\"}");
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_transaction_one_sequence, setup,
						fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_failure_lands_nothing, setup,
						fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_batch_in_parts, setup, fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_shapes, setup, fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_batch_groups, setup, fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_gate_try_commit, setup, fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_committer, setup, fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_replaces, setup, fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_failure_changes_nothing, setup,
						fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_toast_from_landed_row, setup,
						fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_toast_from_open_batch, setup,
						fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_toast_refused, setup, fixture_db_teardown),
		cmocka_unit_test_setup_teardown(test_toast_of_moved_key, setup, fixture_db_teardown),
	};

	return cmocka_run_group_tests(tests, fixture_db_group_setup, fixture_db_group_teardown);
}
