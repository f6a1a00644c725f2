/*
 * Adopted sources (src/live/adopted.c): the places of cursor values and
 * the literals a build renders for them, the late-row books, and, on
 * DuckDB and on the suite's PostgreSQL server alike, live models that
 * follow a table by its cursor without writing to it, late rows counted
 * by the poll and written by the checkpoint, an advance that only reads,
 * and a replay that reads a table's repeated offsets once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_project_wh.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/civil.h"
#include "core/err.h"
#include "live/adopted.h"
#include "live/advance.h"
#include "live/runner.h"
#include "project/bounds.h"
#include "project/project.h"
#include "replay/closure.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PG_DATABASE "sluice_unit_adopted"

/* The place of a timestamp, from its parts. */
static int64_t ts_place(int64_t y, int m, int d, int h, int mi, int s, int us)
{
	return ADOPTED_ORIGIN + civil_days(y, m, d) * INT64_C(86400000000) +
	       ((int64_t)h * 3600 + mi * 60 + s) * 1000000 + us;
}

static const char *literal(struct arena *a, enum wh_cursor_kind kind, int64_t place)
{
	struct buf b = BUF_INIT;
	const char *s;

	live_adopted_literal(kind, place, &b);
	s = arena_strdup(a, b.buf);
	buf_release(&b);
	return s;
}

static void test_literals(void **state)
{
	struct arena *a = arena_new(NULL);
	char text[64];

	(void)state;
	/* nothing read yet: below every value, so a first build reads all */
	assert_string_equal(literal(a, WH_CURSOR_INT, 0), "(-9223372036854775807 - 1)");
	assert_string_equal(literal(a, WH_CURSOR_TIMESTAMP, 0), "TIMESTAMP '-infinity'");
	assert_string_equal(literal(a, WH_CURSOR_TIMESTAMPTZ, 0), "TIMESTAMPTZ '-infinity'");
	/* integers as they are, 0 and below too */
	assert_string_equal(literal(a, WH_CURSOR_INT, ADOPTED_ORIGIN + 42), "42");
	assert_string_equal(literal(a, WH_CURSOR_INT, ADOPTED_ORIGIN), "0");
	assert_string_equal(literal(a, WH_CURSOR_INT, ADOPTED_ORIGIN - 5), "-5");
	/* timestamps to the microsecond, without trailing zeros */
	assert_string_equal(literal(a, WH_CURSOR_TIMESTAMP, ts_place(2026, 3, 1, 10, 0, 0, 250000)),
			    "TIMESTAMP '2026-03-01 10:00:00.25'");
	assert_string_equal(literal(a, WH_CURSOR_TIMESTAMP, ts_place(2026, 3, 1, 23, 59, 7, 1)),
			    "TIMESTAMP '2026-03-01 23:59:07.000001'");
	assert_string_equal(literal(a, WH_CURSOR_TIMESTAMPTZ, ts_place(2026, 3, 1, 10, 0, 0, 0)),
			    "TIMESTAMPTZ '2026-03-01 10:00:00+00'");
	/* before 1970 the day rounds down, not toward 0 */
	assert_string_equal(literal(a, WH_CURSOR_TIMESTAMP, ADOPTED_ORIGIN - 1),
			    "TIMESTAMP '1969-12-31 23:59:59.999999'");
	live_adopted_text(WH_CURSOR_INT, 0, text, sizeof(text));
	assert_string_equal(text, "");
	live_adopted_text(WH_CURSOR_TIMESTAMP, ts_place(1900, 2, 28, 1, 2, 3, 0), text,
			  sizeof(text));
	assert_string_equal(text, "1900-02-28 01:02:03");
	arena_free(a);
}

static void test_late_rows_books(void **state)
{
	struct ledger_adopted b = { .kind = WH_CURSOR_INT };

	(void)state;
	/* a first build counts every row up to what it took */
	live_adopted_take(&b, 0, 100, 7);
	assert_int_equal(b.boundary, 100);
	assert_int_equal(b.rows, 7);
	assert_true(b.dirty);
	/* the next adds the rows past the old boundary */
	live_adopted_take(&b, 100, 150, 3);
	assert_int_equal(b.boundary, 150);
	assert_int_equal(b.rows, 10);
	/* a count from a boundary taken since says nothing of this one */
	live_adopted_take(&b, 100, 200, 4);
	assert_int_equal(b.boundary, 150);
	assert_int_equal(b.rows, 10);
	/* nor does a build that read nothing past it */
	live_adopted_take(&b, 150, 150, 0);
	assert_int_equal(b.rows, 10);
	/* a recount finding what the books have: nothing late */
	b.dirty = false;
	assert_int_equal(live_adopted_recount(&b, 10), 0);
	assert_false(b.dirty);
	/* two rows turned up below the boundary, counted once */
	assert_int_equal(live_adopted_recount(&b, 12), 2);
	assert_int_equal(b.late, 2);
	assert_int_equal(b.rows, 12);
	assert_true(b.dirty);
	assert_int_equal(live_adopted_recount(&b, 12), 0);
	assert_int_equal(b.late, 2);
	/* rows that went away are no late rows, and one added after is */
	assert_int_equal(live_adopted_recount(&b, 9), 0);
	assert_int_equal(b.late, 2);
	assert_int_equal(live_adopted_recount(&b, 10), 1);
	assert_int_equal(b.late, 3);
	/* a build past the boundary counts from the recounted rows */
	live_adopted_take(&b, 150, 160, 2);
	assert_int_equal(b.rows, 12);
}

static void test_bounds_of_adopted(void **state)
{
	struct source_cfg s = { .name = "clicks", .kind = "adopted", .table = "raw.clicks",
				.cursor = "id" };
	struct source_bounds b;

	(void)state;
	assert_null(source_bounds_of(&s, &b));
	assert_string_equal(b.mode, "cursor");
	assert_string_equal(b.value, "id");
	assert_null(b.part);
	/* nothing stamps the table: no sequence to record */
	assert_null(b.seq);
	s.boundary = "offsets";
	assert_non_null(strstr(source_bounds_of(&s, &b), "partition_column and offset_column"));
	s.partition_column = "part";
	s.offset_column = "pos";
	s.event_time = "at";
	assert_null(source_bounds_of(&s, &b));
	assert_string_equal(b.part, "part");
	assert_string_equal(b.value, "pos");
	assert_string_equal(b.time, "at");
	assert_null(b.seq);
	s = (struct source_cfg){ .name = "orders", .kind = "webhook" };
	assert_null(source_bounds_of(&s, &b));
	assert_string_equal(b.seq, "_sluice_seq");
}

/* ---- on each warehouse ---- */

#define ADOPTED_YML                                                                         \
	"name: shop\n"                                                                      \
	"sources:\n"                                                                        \
	"  events: {kind: adopted, table: raw.events, cursor: id}\n"                        \
	"  readings: {kind: adopted, table: raw.readings, cursor: taken_at}\n"              \
	"  clicks: {kind: adopted, table: raw.clicks, cursor: id, boundary: offsets,\n"     \
	"           partition_column: part, offset_column: pos}\n"                          \
	"live: {poll_interval: 100ms}\n"

static int setup_on(void **state, bool postgres)
{
	struct fx *f;

	if (postgres ? fx_setup_postgres(state, "adopted", PG_DATABASE)
		     : fx_setup_duckdb(state, "adopted"))
		return -1;
	f = *state;
	fixture_put(f->root, "sluice.yml", ADOPTED_YML);
	fixture_put(f->root, "models/silver/events.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE id > {watermark}\n"
		    "SELECT id, v FROM raw.events\n");
	fixture_put(f->root, "models/silver/readings.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE taken_at > {watermark:readings}\n"
		    "SELECT taken_at, v FROM raw.readings\n");
	f->p = fixture_load_valid(f->a, f->root);
	exec(f->w, "CREATE SCHEMA raw; CREATE TABLE raw.events (id BIGINT, v INTEGER);"
		   "CREATE TABLE raw.readings (taken_at TIMESTAMP, v INTEGER);"
		   "CREATE TABLE raw.clicks (part INTEGER, pos BIGINT, id BIGINT)");
	return 0;
}

static int setup_duckdb(void **state)
{
	return setup_on(state, false);
}

static int setup_postgres(void **state)
{
	return setup_on(state, true);
}

/* Longer than the project's poll_interval: rows are counted at most once
 * per poll_interval. */
static void nap_past_poll_interval(void)
{
	nanosleep(&(struct timespec){ 0, 150 * 1000000L }, NULL);
}

static struct live_cycle cycle(struct fx *f, struct live_runner *r)
{
	struct live_cycle c;

	if (live_runner_cycle(r, f->w, &c, &f->err))
		fail_msg("%s", f->err.msg);
	return c;
}

static bool poll(struct fx *f, struct live_runner *r)
{
	bool moved = false;

	if (live_runner_sources_moved(r, f->w, &moved, &f->err))
		fail_msg("%s", f->err.msg);
	return moved;
}

/* The columns of the adopted table, as a line. */
static const char *columns(struct fx *f)
{
	struct wh_column *cols;
	struct buf b = BUF_INIT;
	const char *s;
	size_t n;

	assert_int_equal(wh_table_columns(f->w, f->a, "raw", "events", &cols, &n, &f->err), 0);
	for (size_t i = 0; i < n; i++)
		buf_addf(&b, "%s%s", i ? " " : "", cols[i].name);
	s = arena_strdup(f->a, b.buf);
	buf_release(&b);
	return s;
}

static void test_follows_the_cursor(void **state)
{
	struct fx *f = *state;
	struct live_runner *r = live_runner_new(f->a, f->p, NULL);

	exec(f->w, "INSERT INTO raw.events VALUES (-3, 1), (0, 2), (5, 3)");
	/* a first build reads every row, a cursor of 0 or below too */
	assert_int_equal(cycle(f, r).refreshed, 2);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.events"), 3);
	assert_int_equal(query_int(f->w, "SELECT watermark - 4611686018427387904 FROM "
					 "_sluice.live_consumed WHERE input = 'raw.events'"),
			 5);
	/* the writer's new rows are found by the poll, with no advance */
	assert_false(poll(f, r));
	exec(f->w, "INSERT INTO raw.events VALUES (6, 4), (7, 5)");
	assert_true(poll(f, r));
	assert_int_equal(cycle(f, r).refreshed, 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.events"), 5);
	assert_false(poll(f, r));
	/* sluice never gave the table a column */
	assert_string_equal(columns(f), "id v");
	assert_int_equal(live_runner_release(r, f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT rows FROM _sluice.live_sources WHERE source = "
					 "'raw.events'"),
			 5);
	assert_int_equal(query_int(f->w, "SELECT late_rows FROM _sluice.live_sources WHERE "
					 "source = 'raw.events'"),
			 0);
	live_runner_free(r);
}

static void test_late_rows_are_counted(void **state)
{
	struct fx *f = *state;
	struct live_runner *r = live_runner_new(f->a, f->p, NULL);

	exec(f->w, "INSERT INTO raw.events VALUES (1, 1), (2, 2), (3, 3)");
	cycle(f, r);
	/* below the boundary 3, and beyond it; counted by the first poll a
	 * poll_interval after the last count */
	exec(f->w, "INSERT INTO raw.events VALUES (2, 9), (4, 4)");
	nap_past_poll_interval();
	assert_true(poll(f, r));
	assert_int_equal(cycle(f, r).refreshed, 1);
	/* the live model skipped the late row */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.events WHERE v = 9"), 0);
	assert_int_equal(live_runner_release(r, f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT late_rows FROM _sluice.live_sources WHERE "
					 "source = 'raw.events'"),
			 1);
	/* counted once: a runner reading the books anew finds nothing more */
	poll(f, r);
	cycle(f, r);
	assert_int_equal(live_runner_release(r, f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT late_rows FROM _sluice.live_sources WHERE "
					 "source = 'raw.events'"),
			 1);
	assert_int_equal(query_int(f->w, "SELECT rows FROM _sluice.live_sources WHERE source = "
					 "'raw.events'"),
			 5);
	live_runner_free(r);
}

static void test_timestamp_cursor(void **state)
{
	struct fx *f = *state;
	struct live_runner *r = live_runner_new(f->a, f->p, NULL);

	exec(f->w, "INSERT INTO raw.readings VALUES (TIMESTAMP '2026-03-01 10:00:00.25', 1)");
	cycle(f, r);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.readings"), 1);
	/* a microsecond later is past the watermark's literal */
	exec(f->w, "INSERT INTO raw.readings VALUES (TIMESTAMP '2026-03-01 10:00:00.250001', 2)");
	assert_true(poll(f, r));
	cycle(f, r);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.readings"), 2);
	assert_int_equal(live_runner_release(r, f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT watermark FROM _sluice.live_consumed WHERE "
					 "input = 'raw.readings'"),
			 ts_place(2026, 3, 1, 10, 0, 0, 250001));
	live_runner_free(r);
}

static void test_advance_only_reads(void **state)
{
	struct fx *f = *state;
	struct live_advance adv;
	char fqn[256];

	exec(f->w, "INSERT INTO raw.events VALUES (1, 1), (41, 2)");
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(live_advance_target(f->a, f->p, "events", fqn, sizeof(fqn), &f->err), 0);
	assert_string_equal(fqn, "raw.events");
	assert_int_equal(live_advance_any(f->w, f->a, f->p, fqn, &adv, &f->err), 0);
	assert_int_equal(adv.seq, ADOPTED_ORIGIN + 41);
	assert_int_equal(adv.rows, 0);
	assert_string_equal(adv.cursor, "41");
	/* stamping it is refused, and leaves it as it was */
	assert_int_equal(live_advance_source(f->w, "raw.events", &adv, &f->err), SL_E_USAGE);
	assert_non_null(strstr(f->err.msg, "adds one only to a table of the landing schema"));
	assert_string_equal(columns(f), "id v");
	/* a cursor of another type is refused, naming it */
	exec(f->w, "DROP TABLE raw.events; CREATE TABLE raw.events (id VARCHAR, v INTEGER)");
	sl_err_clear(&f->err);
	assert_int_equal(live_advance_any(f->w, f->a, f->p, fqn, &adv, &f->err), SL_E_CONFIG);
	assert_non_null(strstr(f->err.msg, "its cursor 'id' is of type"));
}

/* A replay's reads of the clicks table, in a snapshot: how many rows the
 * read gives, and its query (NULL: the table as it is). */
static const char *replay_read(struct fx *f, int64_t *rows)
{
	const struct source_cfg *s = &f->p->cfg.sources[2];
	struct replay_anchor an = { .relation = "raw.clicks", .source = s };
	struct replay_closure c = { .anchors = &an, .nanchors = 1 };
	const struct render_read *reads;
	size_t n;
	const char *query = NULL;

	assert_int_equal(wh_begin_snapshot(f->w, &f->err), 0);
	assert_int_equal(replay_closure_reads(f->a, f->w, &c, &reads, &n, &f->err), 0);
	assert_true(n <= 1);
	if (n) {
		assert_string_equal(reads[0].relation, "raw.clicks");
		query = reads[0].query;
		*rows = query_int(f->w, arena_sprintf(f->a, "SELECT count(*) FROM (%s) AS q", query));
	} else {
		*rows = query_int(f->w, "SELECT count(*) FROM raw.clicks");
	}
	assert_int_equal(wh_commit(f->w, &f->err), 0);
	return query;
}

static void test_replay_reads_each_offset_once(void **state)
{
	struct fx *f = *state;
	bool postgres = wh_kind(f->w) == WH_POSTGRES;
	const char *query;
	int64_t rows;

	/* without repeats the replay reads the table as it is */
	exec(f->w, "INSERT INTO raw.clicks VALUES (0, 1, 1), (0, 2, 2), (1, 1, 3)");
	assert_null(replay_read(f, &rows));
	assert_int_equal(rows, 3);
	/* with one: one row per partition and offset, in the warehouse's
	 * dialect */
	exec(f->w, "INSERT INTO raw.clicks VALUES (0, 2, 4), (1, 1, 5), (1, 1, 6)");
	query = replay_read(f, &rows);
	assert_non_null(query);
	assert_int_equal(rows, 3);
	assert_non_null(strstr(query, postgres ? "DISTINCT ON" : "QUALIFY row_number()"));
}

int main(void)
{
#define ON(name, wh) { #name "_" #wh, test_##name, setup_##wh, fx_teardown, NULL }
#define T(name) ON(name, duckdb), ON(name, postgres)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_late_rows_books),
		cmocka_unit_test(test_bounds_of_adopted),
		T(follows_the_cursor),
		T(late_rows_are_counted),
		T(timestamp_cursor),
		T(advance_only_reads),
		T(replay_reads_each_offset_once),
	};
#undef T
#undef ON

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
