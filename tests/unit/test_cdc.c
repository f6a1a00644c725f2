/*
 * Unit tests for change-event apply (src/exec/cdc.c) through the
 * materializations that call it, on an in-memory DuckDB: the per-key
 * reduction and its tie rules, hard and soft deletes with their tombstones,
 * op spellings, sequence kinds, composite keys, the errors that change
 * nothing, and a randomized check that the result never depends on how the
 * events were split into builds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_wh.h"

#include "exec/cdc.h"
#include "exec/materialize.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/err.h"
#include "project/model.h"
#include "project/refs.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_TS "2024-05-01 12:00:00.000"

/* A query's rows as "a|b;c|d" (NULL for NULL), in the arena. */
static const char *rows(struct fixture_db *f, const char *sql)
{
	struct wh_result *r;
	struct buf b = BUF_INIT;
	const char *s;

	if (wh_query(f->w, sql, &r, &f->err))
		fail_msg("%s", f->err.msg);
	for (size_t i = 0; i < wh_result_nrows(r); i++) {
		for (size_t c = 0; c < wh_result_ncols(r); c++) {
			const char *v = wh_result_value(r, i, c);

			buf_addf(&b, "%s%s", c ? "|" : i ? ";" : "", v ? v : "NULL");
		}
	}
	wh_result_free(r);
	s = arena_strdup(f->a, b.buf);
	buf_release(&b);
	return s;
}

/* A change-event model silver.NAME over `body` (whose {watermark} is the
 * batch a build takes), keyed on `key` (a column or "a,b"). */
static struct model *cdc_model_new(struct fixture_db *f, const char *name, const char *body,
				   const char *key, bool soft)
{
	struct model *m = arena_alloc(f->a, sizeof(*m));
	struct diag_list d;
	char *keys = arena_strdup(f->a, key);
	const char **list = arena_alloc(f->a, 4 * sizeof(char *));

	diag_list_init(&d, f->a);
	m->schema = "silver";
	m->name = name;
	m->fqn = arena_sprintf(f->a, "silver.%s", name);
	m->path = arena_sprintf(f->a, "models/silver/%s.sql", name);
	m->mat = MAT_INCREMENTAL;
	m->strategy = STRAT_MERGE;
	m->body = body;
	m->body_line = 3;
	for (char *k = strtok(keys, ","); k && m->nunique_key < 3; k = strtok(NULL, ","))
		list[m->nunique_key++] = k;
	m->unique_key = list;
	m->cdc_op = "op";
	m->cdc_seq = "seq";
	m->cdc_soft = soft;
	assert_int_equal(refs_scan_placeholders(f->a, m, &d), 0);
	return m;
}

/* Builds m over batch b in one transaction, as a run does (from scratch
 * with `full`); a failure rolls everything back. *changed (may be NULL)
 * gets the rows the build wrote. */
static int build_as(struct fixture_db *f, const struct model *m, int64_t b, bool full,
		    int64_t *changed)
{
	struct mat_plan plan = { .full = full, .run_ts = RUN_TS };
	struct mat_outcome out;
	int rc;

	plan.ctx.env = "";
	plan.ctx.watermark = b;
	sl_err_clear(&f->err);
	rc = wh_begin(f->w, &f->err);
	if (!rc)
		rc = materialize_write(f->w, m, &plan, &out, &f->err);
	if (!rc)
		rc = materialize_publish(f->w, m, &out, &f->err);
	if (!rc)
		rc = wh_commit(f->w, &f->err);
	if (rc)
		wh_rollback(f->w);
	else if (changed)
		*changed = out.rows;
	return rc;
}

static int build(struct fixture_db *f, const struct model *m, int64_t b, int64_t *changed)
{
	return build_as(f, m, b, false, changed);
}

static void build_ok(struct fixture_db *f, const struct model *m, int64_t b)
{
	if (build(f, m, b, NULL))
		fail_msg("build of batch %lld: %s", (long long)b, f->err.msg);
}

/* landing.ev with a seq column of the given type. */
static void make_events(struct fixture_db *f, const char *seq_type)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "CREATE SCHEMA landing; CREATE TABLE landing.ev (b INTEGER, id INTEGER, op VARCHAR, "
		 "seq %s, v VARCHAR)",
		 seq_type);
	exec(f->w, sql);
}

#define EV_BODY "SELECT id, op, seq, v FROM landing.ev WHERE b = {watermark}"

/* landing.ev with a seq column of seq_type holding batch 0, `values`, and
 * silver.t (EV_BODY, keyed on id) built over it: where most tests start. */
static struct model *build_first_batch(struct fixture_db *f, const char *seq_type,
				       const char *values, bool soft)
{
	struct model *m;

	make_events(f, seq_type);
	exec(f->w, arena_sprintf(f->a, "INSERT INTO landing.ev VALUES %s", values));
	m = cdc_model_new(f, "t", EV_BODY, "id", soft);
	build_ok(f, m, 0);
	return m;
}

static void test_newest_event_per_key(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	int64_t n;

	m = build_first_batch(f, "BIGINT",
			      "(0, 1, 'u', 5, 'a'), (0, 1, 'u', 7, 'b'), (0, 1, 'u', 6, 'c'), "
			      "(0, 2, 'i', 1, 'x'), (0, 3, 'i', 4, 'y'), (0, 3, 'd', 4, NULL)",
			      false);
	/* the newest event of each key; a delete wins a tie */
	assert_string_equal(rows(f, "SELECT id, op, seq, v FROM silver.t ORDER BY id"),
			    "1|u|7|b;2|i|1|x");
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t"), "3|4");

	/* older than the table: dropped; same sequence as the row: a duplicate */
	exec(f->w, "INSERT INTO landing.ev VALUES (1, 1, 'u', 6, 'old'), (1, 2, 'u', 1, 'dup')");
	assert_int_equal(build(f, m, 1, &n), 0);
	assert_int_equal(n, 0);
	assert_string_equal(rows(f, "SELECT id, op, seq, v FROM silver.t ORDER BY id"),
			    "1|u|7|b;2|i|1|x");

	/* a delete at the sequence of the stored row applies (one source
	 * transaction, one commit LSN), a newer update applies */
	exec(f->w, "INSERT INTO landing.ev VALUES (2, 2, 'd', 1, NULL), (2, 1, 'u', 8, 'new')");
	assert_int_equal(build(f, m, 2, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rows(f, "SELECT id, op, seq, v FROM silver.t ORDER BY id"), "1|u|8|new");
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t ORDER BY id"),
			    "2|1;3|4");
}

static void test_tombstones(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	int64_t n;

	m = build_first_batch(f, "BIGINT",
			      "(0, 1, 'i', 5, 'a'), (0, 1, 'd', 6, NULL), (0, 2, 'i', 1, 'b')",
			      false);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"), "2|b");

	/* a replay of the insert cannot bring the row back, nor can a delete
	 * at the tombstone's sequence be anything but a duplicate */
	exec(f->w, "INSERT INTO landing.ev VALUES (1, 1, 'i', 5, 'a'), (1, 1, 'd', 6, NULL), "
		   "(1, 1, 'u', 6, 'tie')");
	assert_int_equal(build(f, m, 1, &n), 0);
	assert_int_equal(n, 0);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"), "2|b");
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t"), "1|6");

	/* a newer insert does, and takes the tombstone away */
	exec(f->w, "INSERT INTO landing.ev VALUES (2, 1, 'i', 7, 'back')");
	assert_int_equal(build(f, m, 2, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"), "1|back;2|b");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.cdc_tombstones__silver__t"),
			 0);

	/* a delete of a key never seen keeps its tombstone too */
	exec(f->w, "INSERT INTO landing.ev VALUES (3, 9, 'd', 3, NULL)");
	build_ok(f, m, 3);
	exec(f->w, "INSERT INTO landing.ev VALUES (4, 9, 'i', 2, 'late')");
	build_ok(f, m, 4);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"), "1|back;2|b");
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t"), "9|3");

	/* a full rebuild starts the tombstones over */
	assert_int_equal(build_as(f, m, 0, true, NULL), 0);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"), "2|b");
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t"), "1|6");
}

static void test_soft_deletes(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	m = build_first_batch(f, "BIGINT", "(0, 1, 'i', 1, 'a'), (0, 2, 'i', 2, 'b')", true);
	assert_string_equal(rows(f, "SELECT id, op, seq, v, _sluice_deleted FROM silver.t ORDER BY id"),
			    "1|i|1|a|false;2|i|2|b|false");

	/* the row stays, flagged, with the delete's op and seq and the last
	 * values of the key; what reads the model filters it out */
	exec(f->w, "INSERT INTO landing.ev VALUES (1, 1, 'd', 3, NULL)");
	build_ok(f, m, 1);
	assert_string_equal(rows(f, "SELECT id, op, seq, v, _sluice_deleted FROM silver.t ORDER BY id"),
			    "1|d|3|a|true;2|i|2|b|false");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.t WHERE NOT _sluice_deleted"),
			 1);
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t"), "1|3|1");

	/* an older update arriving late stays deleted but refreshes the values
	 * it would have refreshed before the delete */
	exec(f->w, "INSERT INTO landing.ev VALUES (2, 1, 'u', 2, 'late'), (2, 1, 'u', 3, 'tie')");
	build_ok(f, m, 2);
	assert_string_equal(rows(f, "SELECT id, op, seq, v, _sluice_deleted FROM silver.t WHERE id = 1"),
			    "1|d|3|tie|true");
	exec(f->w, "INSERT INTO landing.ev VALUES (3, 1, 'u', 2, 'older')");
	build_ok(f, m, 3);
	assert_string_equal(rows(f, "SELECT v FROM silver.t WHERE id = 1"), "tie");

	/* a newer insert makes it live again */
	exec(f->w, "INSERT INTO landing.ev VALUES (4, 1, 'i', 9, 'again')");
	build_ok(f, m, 4);
	assert_string_equal(rows(f, "SELECT id, op, seq, v, _sluice_deleted FROM silver.t ORDER BY id"),
			    "1|i|9|again|false;2|i|2|b|false");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.cdc_tombstones__silver__t"),
			 0);

	/* an update and a delete in one batch: the delete keeps the update's values */
	exec(f->w, "INSERT INTO landing.ev VALUES (5, 2, 'u', 5, 'c'), (5, 2, 'd', 6, NULL), "
		   "(5, 7, 'd', 1, NULL)");
	build_ok(f, m, 5);
	assert_string_equal(rows(f, "SELECT id, op, seq, v, _sluice_deleted FROM silver.t ORDER BY id"),
			    "1|i|9|again|false;2|d|6|c|true;7|d|1|NULL|true");
}

static void test_op_spellings(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	m = build_first_batch(f, "BIGINT",
			      "(0, 1, 'I', 1, 'a'), (0, 2, 'insert', 1, 'b'), (0, 3, 'c', 1, 'c'), "
			      "(0, 4, 'r', 1, 'd'), (0, 5, 'INSERT', 1, 'e'), "
			      "(0, 6, 'Create', 1, 'f'), (0, 7, 'read', 1, 'g'), "
			      "(0, 8, 'i', 1, 'h')",
			      false);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.t"), 8);
	exec(f->w, "INSERT INTO landing.ev VALUES (1, 1, 'U', 2, 'x'), (1, 2, 'update', 2, 'x'), "
		   "(1, 3, 'u', 2, 'x'), (1, 4, 'D', 2, NULL), (1, 5, 'delete', 2, NULL), "
		   "(1, 6, 'd', 2, NULL), (1, 7, 'DELETE', 2, NULL), (1, 8, 'destroy', 2, NULL)");
	build_ok(f, m, 1);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"), "1|x;2|x;3|x");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.cdc_tombstones__silver__t"),
			 5);
}

/* A build that must fail with a message holding `msg` and change nothing. */
static void expect_failure(struct fixture_db *f, const struct model *m, int64_t b, const char *msg)
{
	const char *before = rows(f, "SELECT * FROM silver.t ORDER BY ALL");
	const char *tombs = rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t ORDER BY ALL");

	assert_int_equal(build(f, m, b, NULL), SL_E_INVALID);
	if (!strstr(f->err.msg, msg))
		fail_msg("expected '%s' in: %s", msg, f->err.msg);
	assert_string_equal(rows(f, "SELECT * FROM silver.t ORDER BY ALL"), before);
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t ORDER BY ALL"),
			    tombs);
}

static void test_unknown_op(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	m = build_first_batch(f, "BIGINT", "(0, 1, 'i', 1, 'a'), (0, 2, 'd', 1, NULL)", false);
	exec(f->w, "INSERT INTO landing.ev VALUES (1, 1, 'u', 2, 'b'), (1, 42, 'x', 3, 'c'), "
		   "(1, 2, 'i', 5, 'back')");
	expect_failure(f, m, 1, "model silver.t: unknown cdc_op value 'x' for key id=42");
	assert_non_null(strstr(f->err.msg, "\n  hint: an op is I/U/D"));
	exec(f->w, "INSERT INTO landing.ev VALUES (2, 1, 'u', 2, 'b'), (2, 7, NULL, 3, 'c')");
	expect_failure(f, m, 2, "unknown cdc_op value NULL for key id=7");
	exec(f->w, "INSERT INTO landing.ev VALUES (3, 1, 'z', 2, NULL)");
	expect_failure(f, m, 3, "unknown cdc_op value 'z' for key id=1");
	exec(f->w, "INSERT INTO landing.ev VALUES (4, NULL, 'u', 2, 'b')");
	expect_failure(f, m, 4, "a change event has a NULL unique_key (id=NULL, cdc_op 'u', "
				"cdc_seq '2')");
	/* the first build fails the same way, before it creates anything */
	m = cdc_model_new(f, "u", "SELECT id, op, seq, v FROM landing.ev WHERE b <> 4", "id", false);
	assert_int_equal(build(f, m, 0, NULL), SL_E_INVALID);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM duckdb_tables() WHERE table_name IN "
					 "('u', 'u__sluice_new', 'cdc_tombstones__silver__u')"),
			 0);
}

/* A bad event fails the batch also when a newer event of its key would win
 * over it, as it does when alone; on hard and soft models alike. */
static void test_bad_event_behind_winner(void **state)
{
	struct fixture_db *f = *state;

	make_events(f, "BIGINT");
	for (int soft = 0; soft <= 1; soft++) {
		const char *name = soft ? "s" : "h";
		struct model *m = cdc_model_new(f, name, EV_BODY, "id", soft);

		exec(f->w, "DELETE FROM landing.ev");
		exec(f->w, "INSERT INTO landing.ev VALUES (0, 1, 'i', 1, 'a'), (0, 2, 'i', 1, 'a')");
		build_ok(f, m, 0);
		exec(f->w, "INSERT INTO landing.ev VALUES (1, 1, 'x', 2, 'b'), (1, 1, 'u', 9, 'c'), "
			   "(1, 2, 'u', 3, 'b')");
		assert_int_equal(build(f, m, 1, NULL), SL_E_INVALID);
		assert_non_null(strstr(f->err.msg, "unknown cdc_op value 'x' for key id=1"));
		exec(f->w, "INSERT INTO landing.ev VALUES (2, 2, 'u', NULL, 'b'), (2, 2, 'u', 9, 'c')");
		assert_int_equal(build(f, m, 2, NULL), SL_E_INVALID);
		assert_non_null(strstr(f->err.msg, "cdc_seq is NULL for key id=2"));
		exec(f->w, "INSERT INTO landing.ev VALUES (3, NULL, 'u', 4, 'b'), (3, 1, 'u', 9, 'c')");
		assert_int_equal(build(f, m, 3, NULL), SL_E_INVALID);
		assert_non_null(strstr(f->err.msg, "a change event has a NULL unique_key"));
		assert_string_equal(
			rows(f, arena_sprintf(f->a, "SELECT id, v FROM silver.%s ORDER BY id", name)),
			"1|a;2|a");
		exec(f->w, "INSERT INTO landing.ev VALUES (4, 1, 'u', 9, 'c'), (4, 1, 'd', 5, NULL)");
		build_ok(f, m, 4);
		assert_string_equal(
			rows(f, arena_sprintf(f->a, "SELECT id, v FROM silver.%s ORDER BY id", name)),
			"1|c;2|a");
	}
}

static void test_seq_errors(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	m = build_first_batch(f, "VARCHAR",
			      "(0, 1, 'i', '10', 'a'), (0, 2, 'i', ' 11 ', 'b')",
			      false);
	assert_string_equal(rows(f, "SELECT id, seq FROM silver.t ORDER BY id"), "1|10;2| 11 ");

	exec(f->w, "INSERT INTO landing.ev VALUES (1, 1, 'u', '12', 'x'), "
		   "(1, 3, 'u', '2024-01-01 10:00:00', 'y')");
	expect_failure(f, m, 1, "mixed cdc_seq values: '2024-01-01 10:00:00' for key id=3 is a "
				"timestamp, other events have integers");
	assert_non_null(strstr(f->err.msg, "\n  hint: cdc_seq orders the changes of a key"));
	exec(f->w,
	     "INSERT INTO landing.ev VALUES (2, 1, 'u', '12', 'x'), (2, 3, 'u', 'soon', 'y')");
	expect_failure(f, m, 2, "cdc_seq value 'soon' for key id=3 is neither an integer nor an "
				"ISO-8601 timestamp");
	exec(f->w, "INSERT INTO landing.ev VALUES (3, 1, 'u', '1.5', 'x')");
	expect_failure(f, m, 3, "cdc_seq value '1.5' for key id=1 is neither");
	exec(f->w, "INSERT INTO landing.ev VALUES (4, 5, 'u', NULL, 'x')");
	expect_failure(f, m, 4, "cdc_seq is NULL for key id=5");
	/* a batch of timestamps cannot be compared with the stored integers */
	exec(f->w, "INSERT INTO landing.ev VALUES (5, 2, 'u', '2024-01-01T10:00:00Z', 'x')");
	expect_failure(f, m, 5, "mixed cdc_seq values for key id=2: '2024-01-01T10:00:00Z' in this "
				"batch, ' 11 ' stored");
	/* a key the table does not hold yet is fine */
	exec(f->w, "INSERT INTO landing.ev VALUES (6, 9, 'u', '2024-01-01T10:00:00Z', 'x')");
	build_ok(f, m, 6);

	m = cdc_model_new(f, "d", "SELECT id, op, CAST(seq AS DOUBLE) AS seq FROM landing.ev WHERE b = 0",
			  "id", false);
	assert_int_equal(build(f, m, 0, NULL), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "model silver.d: cdc_seq column 'seq' is of type DOUBLE"));
}

static void test_missing_columns(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	make_events(f, "BIGINT");
	exec(f->w, "INSERT INTO landing.ev VALUES (0, 1, 'i', 1, 'a')");
	m = cdc_model_new(f, "t", "SELECT id, op AS kind, seq FROM landing.ev", "id", false);
	assert_int_equal(build(f, m, 0, NULL), SL_E_INVALID);
	assert_string_equal(f->err.msg, "model silver.t: cdc_op column 'op' is not in the query's "
					"output\n  hint: the query returns id, kind, seq");
	m = cdc_model_new(f, "t", "SELECT id, op, seq, true AS _sluice_deleted FROM landing.ev",
			  "id", true);
	assert_int_equal(build(f, m, 0, NULL), SL_E_INVALID);
	assert_non_null(strstr(f->err.msg, "returns a column '_sluice_deleted'"));
}

static void test_composite_key(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	exec(f->w,
	     "CREATE SCHEMA landing; CREATE TABLE landing.ev (b INTEGER, id INTEGER, region "
	     "VARCHAR, op VARCHAR, seq BIGINT, v VARCHAR);\n"
	     "INSERT INTO landing.ev VALUES (0, 1, 'eu', 'i', 1, 'a'), (0, 1, 'us', 'i', 1, 'b'), "
	     "(0, 2, 'eu', 'i', 1, 'c')");
	m = cdc_model_new(f, "t", "SELECT id, region, op, seq, v FROM landing.ev WHERE b = {watermark}",
			  "id,region", false);
	build_ok(f, m, 0);
	exec(f->w, "INSERT INTO landing.ev VALUES (1, 1, 'eu', 'u', 2, 'a2'), (1, 1, 'us', 'd', 2, "
		   "NULL), "
		   "(1, 2, 'eu', 'u', 0, 'old'), (1, 2, 'us', 'i', 1, 'd')");
	build_ok(f, m, 1);
	assert_string_equal(rows(f, "SELECT id, region, v FROM silver.t ORDER BY ALL"),
			    "1|eu|a2;2|eu|c;2|us|d");
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t"), "1|us|2");
	exec(f->w, "INSERT INTO landing.ev VALUES (2, 1, 'us', 'i', 1, 'replayed'), "
		   "(2, NULL, 'us', 'i', 1, 'x')");
	expect_failure(f, m, 2, "NULL unique_key (id=NULL, region=us, cdc_op 'i', cdc_seq '1')");
}

static void test_timestamp_seq(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	/* 10:00+02:00 is 08:00 UTC, older than 09:00Z; text without an offset
	 * is UTC; a date is its midnight */
	m = build_first_batch(f, "VARCHAR",
			      "(0, 1, 'u', '2024-01-01T10:00:00+02:00', 'a'), "
			      "(0, 1, 'u', '2024-01-01T09:00:00Z', 'b'), "
			      "(0, 2, 'u', '2024-01-01 09:30:00', 'c'), "
			      "(0, 2, 'u', '2024-01-01T09:29:59.999-00:00', 'd'), "
			      "(0, 3, 'i', '2024-01-02', 'e')",
			      false);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"), "1|b;2|c;3|e");
	/* 11:00+02:00 is the stored 09:00Z: a delete wins the tie */
	exec(f->w, "INSERT INTO landing.ev VALUES (1, 1, 'd', '2024-01-01T11:00:00+02:00', NULL), "
		   "(1, 2, 'd', '2024-01-01T09:30:00.000001Z', NULL), (1, 3, 'u', "
		   "'2024-01-01T23:59:59', 'x')");
	build_ok(f, m, 1);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"), "3|e");

	/* TIMESTAMP columns compare as they are */
	m = cdc_model_new(f, "ts",
			  "SELECT id, op, CAST(replace(seq, 'T', ' ')[1:19] AS TIMESTAMP) AS seq, v "
			  "FROM landing.ev WHERE b = 0",
			  "id", false);
	build_ok(f, m, 0);
	assert_string_equal(rows(f, "SELECT id, v, CAST(seq AS VARCHAR) FROM silver.ts ORDER BY id"),
			    "1|a|2024-01-01 10:00:00;2|c|2024-01-01 09:30:00;3|e|2024-01-02 00:00:00");
}

static void test_delete_insert_strategy(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	make_events(f, "INTEGER");
	exec(f->w, "INSERT INTO landing.ev VALUES (0, 1, 'i', 1, 'a'), (1, 1, 'u', 2, 'b'), "
		   "(1, 1, 'u', 3, 'c'), (2, 1, 'u', 2, 'b')");
	m = cdc_model_new(f, "t", EV_BODY, "id", false);
	m->strategy = STRAT_DELETE_INSERT;
	build_ok(f, m, 0);
	build_ok(f, m, 1);
	build_ok(f, m, 2);
	assert_string_equal(rows(f, "SELECT id, seq, v FROM silver.t"), "1|3|c");
}

static void test_forget_tombstones(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	m = build_first_batch(f, "BIGINT", "(0, 1, 'd', 1, NULL)", false);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.cdc_tombstones__silver__t"),
			 1);
	/* the same model without cdc_op and cdc_seq, rebuilt */
	m = cdc_model_new(f, "t", "SELECT id, v FROM landing.ev", "id", false);
	m->cdc_op = m->cdc_seq = NULL;
	assert_int_equal(build_as(f, m, 0, true, NULL), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM duckdb_tables() WHERE schema_name = "
					 "'_sluice'"),
			 0);
}

/* A truncate deletes every key older than itself, whether the table, the
 * tombstones or the batch holds it; what comes after it stays. */
static void test_truncate(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	int64_t n;

	m = build_first_batch(f, "BIGINT",
			      "(0, 1, 'i', 1, 'a'), (0, 2, 'i', 2, 'b'), (0, 3, 'd', 3, NULL)",
			      false);
	exec(f->w, "INSERT INTO landing.ev VALUES (1, 4, 'i', 4, 'c'), (1, NULL, 't', 5, NULL), "
		   "(1, 5, 'i', 6, 'after'), (1, 2, 'u', 9, 'newer')");
	assert_int_equal(build(f, m, 1, &n), 0);
	assert_string_equal(rows(f, "SELECT id, op, seq, v FROM silver.t ORDER BY id"),
			    "2|u|9|newer;5|i|6|after");
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t ORDER BY id"),
			    "1|5;3|5;4|5");

	/* older than the truncate: stays out; a replay of the truncate changes
	 * nothing newer than it; a second one takes the rest */
	exec(f->w, "INSERT INTO landing.ev VALUES (2, 1, 'u', 4, 'late'), (2, NULL, 'TRUNCATE', 5, "
		   "NULL)");
	assert_int_equal(build(f, m, 2, &n), 0);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"), "2|newer;5|after");
	exec(f->w, "INSERT INTO landing.ev VALUES (3, NULL, 't', 10, NULL)");
	build_ok(f, m, 3);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.t"), 0);
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__t ORDER BY id"),
			    "1|10;2|10;3|10;4|10;5|10");

	/* a first build over all of it ends the same */
	assert_int_equal(build_as(f, m, 0, true, NULL), 0);
	m = cdc_model_new(f, "all", "SELECT id, op, seq, v FROM landing.ev", "id", false);
	build_ok(f, m, 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.\"all\""), 0);
	assert_string_equal(rows(f, "SELECT * FROM _sluice.cdc_tombstones__silver__all ORDER BY id"),
			    "1|10;2|10;3|10;4|10;5|10");
}

static void test_truncate_soft(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	m = build_first_batch(f, "BIGINT", "(0, 1, 'i', 1, 'a'), (0, 2, 'i', 2, 'b')", true);
	exec(f->w, "INSERT INTO landing.ev VALUES (1, NULL, 't', 3, NULL), (1, 2, 'i', 4, 'again')");
	build_ok(f, m, 1);
	/* the truncated row stays, flagged, with its last values */
	assert_string_equal(rows(f, "SELECT id, op, seq, v, _sluice_deleted FROM silver.t ORDER BY id"),
			    "1|t|3|a|true;2|i|4|again|false");
}

/* The changes of one source transaction share their commit LSN: with
 * _sluice_pos the later of them wins, whatever its op. */
static void test_positions(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;

	exec(f->w, "CREATE SCHEMA landing; CREATE TABLE landing.ev (b INTEGER, id INTEGER, op "
		   "VARCHAR, seq BIGINT, v VARCHAR, _sluice_pos BIGINT)");
	exec(f->w, "INSERT INTO landing.ev VALUES (0, 1, 'i', 7, 'a', 1), (0, 1, 'u', 7, 'b', 3), "
		   "(0, 1, 'u', 7, 'c', 2), (0, 2, 'd', 7, NULL, 4), (0, 2, 'i', 7, 'back', 5), "
		   "(0, 3, 'i', 7, 'x', 6), (0, 3, 'd', 7, NULL, 7), (0, 4, 'i', 7, 'y', 8), "
		   "(0, NULL, 't', 7, NULL, 9), (0, 5, 'i', 7, 'z', 10)");
	m = cdc_model_new(f, "t", "SELECT id, op, seq, v, _sluice_pos FROM landing.ev WHERE b = "
				 "{watermark}",
			  "id", false);
	build_ok(f, m, 0);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"), "5|z");
	assert_int_equal(build_as(f, m, 0, true, NULL), 0);
	exec(f->w, "DELETE FROM landing.ev WHERE op = 't'");
	assert_int_equal(build_as(f, m, 0, true, NULL), 0);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.t ORDER BY id"),
			    "1|b;2|back;4|y;5|z");
}

/* Updates that moved rows to other keys, as postgres_cdc lands them: a
 * delete of the old key, then the update of the new one, in one source
 * transaction. A key moved away and back, moved on twice, and one moved
 * onto a key deleted before: hard and soft deletes. */
static void test_moved_keys(void **state)
{
	struct fixture_db *f = *state;
	struct model *hard, *soft;
	const char *body = "SELECT id, op, seq, v, _sluice_pos FROM landing.ev WHERE b = {watermark}";

	exec(f->w, "CREATE SCHEMA landing; CREATE TABLE landing.ev (b INTEGER, id INTEGER, op "
		   "VARCHAR, seq BIGINT, v VARCHAR, _sluice_pos BIGINT)");
	exec(f->w, "INSERT INTO landing.ev VALUES (0, 1, 'r', 5, 'one', 1), (0, 2, 'r', 5, 'two', 2), "
		   "(0, 3, 'r', 5, 'three', 3), (0, 4, 'r', 5, 'four', 4)");
	/* 3 -> 10; 1 -> 40 -> 1; 2 -> 20 -> 21; 4 deleted, 10 -> 4 */
	exec(f->w, "INSERT INTO landing.ev VALUES (1, 3, 'd', 7, NULL, 1), (1, 10, 'u', 7, 'three', 2), "
		   "(1, 1, 'd', 8, NULL, 1), (1, 40, 'u', 8, 'one', 2), (1, 40, 'd', 8, NULL, 3), "
		   "(1, 1, 'u', 8, 'one back', 4), (1, 2, 'd', 8, NULL, 5), (1, 20, 'u', 8, 'two', 6), "
		   "(1, 20, 'd', 8, NULL, 7), (1, 21, 'u', 8, 'two on', 8), (1, 4, 'd', 9, NULL, 1), "
		   "(1, 10, 'd', 9, NULL, 2), (1, 4, 'u', 9, 'three at four', 3)");
	hard = cdc_model_new(f, "hard", body, "id", false);
	soft = cdc_model_new(f, "soft", body, "id", true);
	build_ok(f, hard, 0);
	build_ok(f, soft, 0);
	build_ok(f, hard, 1);
	build_ok(f, soft, 1);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.hard ORDER BY id"),
			    "1|one back;4|three at four;21|two on");
	assert_string_equal(rows(f, "SELECT id, seq FROM _sluice.cdc_tombstones__silver__hard "
				    "ORDER BY id"),
			    "2|8;3|7;10|9;20|8;40|8");
	assert_string_equal(rows(f, "SELECT id, v, _sluice_deleted FROM silver.soft ORDER BY id"),
			    "1|one back|false;2|two|true;3|three|true;4|three at four|false;"
			    "10|three|true;20|two|true;21|two on|false;40|one|true");
	/* the same events in one build from scratch */
	exec(f->w, "UPDATE landing.ev SET b = 0");
	assert_int_equal(build_as(f, hard, 0, true, NULL), 0);
	assert_string_equal(rows(f, "SELECT id, v FROM silver.hard ORDER BY id"),
			    "1|one back;4|three at four;21|two on");
}

/* ---- the result never depends on how the events were batched ---- */

#define STREAMS 1000
#define MAX_EVENTS 30

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int rnd_below(int n)
{
	return (int)(rnd() % (uint64_t)n);
}

struct event {
	int key;
	bool del;
	int seq;
	int arrival; /* global landing order, the model's _sluice_seq */
	int value;   /* upserts only */
	const char *op;
};

static const char *const upsert_ops[] = { "I", "U", "c", "r", "u", "i", "insert", "update",
					  "create", "read", "INSERT", "Update" };
static const char *const delete_ops[] = { "D", "d", "delete", "DELETE", "Delete", "drop" };

static void random_event(struct event *e, int keys, int seq)
{
	e->key = 1 + rnd_below(keys);
	e->del = rnd_below(4) == 0;
	e->seq = seq;
	e->value = rnd_below(1000);
	e->op = e->del ? delete_ops[rnd_below(6)] : upsert_ops[rnd_below(12)];
}

/* A stream: a few keys, inserts, updates, deletes and updates that move a
 * row to another key, with sequences that collide and go back, exact
 * duplicates, and replays of the history; or,
 * in_order, each event newer than any earlier event of any stream at the
 * same position, so that one build per position only meets newer events. */
static size_t make_stream(struct event *ev, int *arrival, bool in_order)
{
	size_t n = 0, want = 5 + (size_t)rnd_below(MAX_EVENTS - 4);
	int keys = 1 + rnd_below(4);

	while (n < want) {
		int r = in_order ? -1 : rnd_below(10);

		if (n > 2 && r == 0) {
			/* replay everything so far, as a restarted consumer would */
			for (size_t i = 0, end = n; i < end && n < MAX_EVENTS; i++) {
				ev[n] = ev[i];
				ev[n++].arrival = (*arrival)++;
			}
			continue;
		}
		if (n > 0 && r == 1) {
			ev[n] = ev[rnd_below((int)n)];
		} else if (r == 2 && n + 1 < want && keys > 1) {
			/* an update that moved its row to another key, as
			 * postgres_cdc lands it: a delete of the old key, then
			 * the upsert of the new one, with one sequence */
			random_event(&ev[n], keys,
				     in_order ? (int)n * 100000 + *arrival : 1 + rnd_below(12));
			ev[n].del = true;
			ev[n].op = "d";
			ev[n + 1] = ev[n];
			ev[n + 1].key = 1 + (ev[n].key + rnd_below(keys - 1)) % keys;
			ev[n + 1].del = false;
			ev[n + 1].op = "u";
			ev[n++].arrival = (*arrival)++;
		} else
			random_event(&ev[n], keys,
				     in_order ? (int)n * 100000 + *arrival : 1 + rnd_below(12));
		ev[n++].arrival = (*arrival)++;
	}
	return n;
}

/* Whether a beats b as the event a key ends with: newer, a delete on a
 * tie, the first to land among equals. */
static bool beats(const struct event *a, const struct event *b, bool by_kind)
{
	if (a->seq != b->seq)
		return a->seq > b->seq;
	if (by_kind && a->del != b->del)
		return a->del;
	return a->arrival < b->arrival;
}

/* What the table and the tombstones must hold for each key of a stream,
 * whichever way it was batched, as CSV lines (an empty field is NULL). */
static void expect_stream(struct buf *rows, struct buf *tombs, int s, const struct event *ev,
			  size_t n, bool soft)
{
	for (int key = 1; key <= 4; key++) {
		const struct event *last = NULL, *up = NULL;

		for (size_t i = 0; i < n; i++) {
			if (ev[i].key != key)
				continue;
			if (!last || beats(&ev[i], last, true))
				last = &ev[i];
			if (!ev[i].del && (!up || beats(&ev[i], up, false)))
				up = &ev[i];
		}
		if (!last)
			continue;
		if (!last->del || soft) {
			const struct event *values = last->del ? up : last;

			buf_addf(rows, "%d,%d,%s,%d,%d,", s, key, last->op, last->seq, last->arrival);
			if (values)
				buf_addf(rows, "%d", values->value);
			buf_addf(rows, ",%s\n", last->del ? "true" : "false");
		}
		if (last->del) {
			buf_addf(tombs, "%d,%d,%d,", s, key, last->seq);
			if (up)
				buf_addf(tombs, "%d", up->seq);
			buf_addch(tombs, '\n');
		}
	}
}

static void add_event(struct buf *csv, int s, const struct event *e, int one, int split)
{
	buf_addf(csv, "%d,%d,%s,%d,%d,", s, e->key, e->op, e->seq, e->arrival);
	if (!e->del)
		buf_addf(csv, "%d", e->value);
	buf_addf(csv, ",%d,%d\n", one, split);
}

/* Loads CSV lines into a table through a temporary file: one statement,
 * however many rows. */
static void load_csv(struct fixture_db *f, const char *table, const struct buf *csv)
{
	char path[] = "/tmp/sluice-test-cdc-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "w");
	char sql[512];

	assert_non_null(fp);
	assert_int_equal(fwrite(csv->buf, 1, csv->len, fp), csv->len);
	assert_int_equal(fclose(fp), 0);
	snprintf(sql, sizeof(sql), "COPY %s FROM '%s' (HEADER false)", table, path);
	if (csv->len)
		exec(f->w, sql);
	unlink(path);
}

/* Rows in one query's result but not the other's, both ways. */
static int64_t differences(struct fixture_db *f, const char *a, const char *b)
{
	char sql[1024];

	snprintf(sql, sizeof(sql),
		 "SELECT (SELECT count(*) FROM (%s EXCEPT ALL %s)) + "
		 "(SELECT count(*) FROM (%s EXCEPT ALL %s))",
		 a, b, b, a);
	return query_int(f->w, sql);
}

static void check_batching(struct fixture_db *f, bool soft, bool in_order)
{
	static const char *const splits[] = { "one", "split", "whole" };
	struct event ev[MAX_EVENTS];
	struct buf land = BUF_INIT, want = BUF_INIT, tombs = BUF_INIT;
	struct model *m[3];
	int arrival = 0, batches = 0;

	rng_state = soft ? 0x9e3779b97f4a7c15ULL : 0x2545f4914f6cdd1dULL;
	exec(f->w,
	     "CREATE SCHEMA landing; CREATE TABLE landing.ev (s INTEGER, k INTEGER, op VARCHAR, "
	     "seq BIGINT, a INTEGER, v INTEGER, one INTEGER, split INTEGER);\n"
	     "CREATE TABLE landing.want (s INTEGER, k INTEGER, op VARCHAR, seq BIGINT, "
	     "_sluice_seq INTEGER, v INTEGER, _sluice_deleted BOOLEAN);\n"
	     "CREATE TABLE landing.want_tombs (s INTEGER, k INTEGER, seq BIGINT, vseq BIGINT)");
	for (int s = 0; s < STREAMS; s++) {
		size_t n = make_stream(ev, &arrival, in_order);
		int split = 0;

		/* each stream has keys of its own, so streams batched side by
		 * side are as many independent runs */
		for (size_t i = 0; i < n; i++) {
			if (i && rnd_below(3) == 0)
				split++;
			add_event(&land, s, &ev[i], (int)i, split);
		}
		if ((int)n > batches)
			batches = (int)n;
		expect_stream(&want, &tombs, s, ev, n, soft);
	}
	load_csv(f, "landing.ev", &land);
	load_csv(f, "landing.want", &want);
	load_csv(f, "landing.want_tombs", &tombs);
	for (int i = 0; i < 3; i++)
		m[i] = cdc_model_new(f, splits[i],
				     arena_sprintf(f->a,
						   "SELECT s, k, op, seq, a AS _sluice_seq, v FROM (SELECT "
						   "*, 0 AS whole FROM landing.ev) WHERE %s = {watermark}",
						   splits[i]),
				     "s,k", soft);
	for (int b = 0; b < batches; b++)
		for (int i = 0; i < 3; i++)
			if (b == 0 || i < 2)
				build_ok(f, m[i], b);
	for (int i = 0; i < 3; i++) {
		const char *table = arena_sprintf(
			f->a, "SELECT s, k, op, seq, _sluice_seq, v, %s FROM silver.\"%s\"",
			soft ? "_sluice_deleted" : "false", splits[i]);
		const char *tombstones = arena_sprintf(
			f->a, "SELECT s, k, seq, %s FROM _sluice.\"cdc_tombstones__silver__%s\"",
			soft ? "_sluice_values_seq" : "NULL::BIGINT", splits[i]);
		int64_t n = differences(f, table, "SELECT * FROM landing.want");

		if (n)
			fail_msg("%s deletes, batches '%s': %lld rows differ from the expected state",
				 soft ? "soft" : "hard", splits[i], (long long)n);
		n = differences(f, tombstones,
				soft ? "SELECT * FROM landing.want_tombs"
				     : "SELECT s, k, seq, NULL::BIGINT FROM landing.want_tombs");
		if (n)
			fail_msg("%s deletes, batches '%s': %lld tombstones differ", soft ? "soft" : "hard",
				 splits[i], (long long)n);
	}
	buf_release(&land);
	buf_release(&want);
	buf_release(&tombs);
}

static void test_batching_hard(void **state)
{
	check_batching(*state, false, false);
}

static void test_batching_soft(void **state)
{
	check_batching(*state, true, false);
}

/* Streams applied in order: every build's events are newer than what is
 * stored, the path that skips looking up the stored rows. */
static void test_batching_in_order(void **state)
{
	check_batching(*state, false, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_db_setup, fixture_db_teardown)
		T(test_newest_event_per_key),
		T(test_tombstones),
		T(test_soft_deletes),
		T(test_op_spellings),
		T(test_unknown_op),
		T(test_bad_event_behind_winner),
		T(test_seq_errors),
		T(test_missing_columns),
		T(test_composite_key),
		T(test_timestamp_seq),
		T(test_delete_insert_strategy),
		T(test_forget_tombstones),
		T(test_truncate),
		T(test_truncate_soft),
		T(test_positions),
		T(test_moved_keys),
		T(test_batching_hard),
		T(test_batching_soft),
		T(test_batching_in_order),
#undef T
	};

	return cmocka_run_group_tests(tests, fixture_db_group_setup, fixture_db_group_teardown);
}
