/*
 * Unit tests for the change log of live models that rewrite rows
 * (src/exec/changes.c, src/state/changes.c, the sequence and pruning of
 * src/live/watermark.c), through batch runs of small projects, on DuckDB
 * and on the PostgreSQL server of the suite (SLUICE_TEST_PG), in a
 * database of this file's own: a merge and a delete+insert record the old
 * rows (-1) and the new (+1), change events record their hard and soft
 * deletes, an append model keeps no log, the log is pruned once its
 * readers consumed it, and a refresh that rolls back records nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_project_wh.h"
#include "fixture_pg.h"
#include "fixture_wh.h"

#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "exec/run.h"
#include "live/advance.h"
#include "live/batch.h"
#include "project/project.h"
#include "warehouse/wh.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_DATABASE "sluice_unit_changes"

static int setup_duckdb(void **state)
{
	return fx_setup_duckdb(state, "changes");
}

static int setup_postgres(void **state)
{
	return fx_setup_postgres(state, "changes", PG_DATABASE);
}

static int teardown(void **state)
{
	return fx_teardown(state);
}

#define YML "name: changes\n"

/* The events' landing table: plain rows, or change events (op, lsn). */
#define LANDING                                                                              \
	"CREATE SCHEMA landing;\n"                                                           \
	"CREATE TABLE landing.events (id BIGINT, region VARCHAR, amount DOUBLE PRECISION, " \
	"op VARCHAR, lsn BIGINT, _sluice_seq BIGINT)"

#define LIVE_HEAD "@config materialized=incremental, live=true, "
#define FILTER "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
#define QUERY "SELECT id, region, amount, _sluice_seq FROM landing.events\n"
#define CDC_QUERY "SELECT id, region, amount, op, lsn, _sluice_seq FROM landing.events\n"

/* A reader of silver.events through its change log, so that the log
 * keeps what it has not consumed. */
#define READER                                                                               \
	"@config materialized=incremental, live=true, incremental_strategy=delete+insert, "  \
	"unique_key=region\n"                                                                \
	"WITH changed AS (SELECT region FROM _sluice.changes__silver__events WHERE "         \
	"_sluice_seq > {watermark} UNION SELECT region FROM silver.events WHERE "            \
	"_sluice_seq > {watermark})\n"                                                       \
	"SELECT c.region, count(e.id) AS n FROM changed AS c LEFT JOIN silver.events AS e " \
	"ON e.region = c.region GROUP BY c.region\n"

/* silver.events as given, and the reader when asked; the first run builds
 * them over an empty landing table. */
static void project(struct fx *f, const char *silver, bool reader)
{
	fixture_put(f->root, "sluice.yml", YML);
	fixture_put(f->root, "models/silver/events.sql", silver);
	if (reader)
		fixture_put(f->root, "models/gold/by_region.sql", READER);
	exec(f->w, LANDING);
	f->p = fixture_load_valid(f->a, f->root);
}

/* One batch run over the whole project; *failed gets how many failed. */
static void run(struct fx *f, size_t *failed)
{
	struct run_opts opts = { .env = "" };
	struct run_report rep;
	const char **rel;
	size_t n;

	if (wh_relation_list(f->w, f->a, &rel, &n, &f->err))
		fail_msg("%s", f->err.msg);
	if (live_batch_run(f->a, f->p, f->w, rel, n, &opts, &rep, &f->err))
		fail_msg("live_batch_run: %s", f->err.msg);
	*failed = rep.failed;
	run_report_free(&rep);
}

static void run_ok(struct fx *f)
{
	size_t failed;

	run(f, &failed);
	assert_int_equal(failed, 0);
}

/* Lands rows (id, region, amount[, op, lsn]) and announces them; returns
 * their sequence. */
static int64_t land(struct fx *f, const char *cols, const char *values)
{
	struct live_advance adv = { -1, -1 };

	exec(f->w, arena_sprintf(f->a, "INSERT INTO landing.events (%s) VALUES %s", cols, values));
	if (live_advance_source(f->w, "landing.events", &adv, &f->err))
		fail_msg("advance: %s", f->err.msg);
	return adv.seq;
}

/* The change log, one "id region weight" per row, in sequence order. */
static const char *logged(struct fx *f)
{
	return query_str(f->w, f->a,
			 "SELECT coalesce(string_agg(CAST(id AS VARCHAR) || ' ' || region || ' ' || "
			 "CAST(_sluice_weight AS VARCHAR), ', ' ORDER BY _sluice_seq, id, "
			 "_sluice_weight), '') FROM _sluice.changes__silver__events");
}

/* The sequences the change log holds, fewest first, as "lo-hi". */
static const char *logged_seqs(struct fx *f)
{
	return query_str(f->w, f->a,
			 "SELECT CAST(min(_sluice_seq) AS VARCHAR) || '-' || "
			 "CAST(max(_sluice_seq) AS VARCHAR) FROM _sluice.changes__silver__events");
}

static int64_t published(struct fx *f, const char *model)
{
	return query_int(f->w, arena_sprintf(f->a,
					     "SELECT published FROM _sluice.live_state WHERE "
					     "model = '%s'",
					     model));
}

static void test_merge_records_old_and_new_rows(void **state)
{
	struct fx *f = *state;
	int64_t s2;

	project(f,
		LIVE_HEAD "incremental_strategy=merge, unique_key=id,\n" FILTER QUERY, true);
	run_ok(f);
	assert_string_equal(logged(f), "");
	land(f, "id, region, amount", "(1, 'A', 10), (2, 'A', 5)");
	run_ok(f);
	assert_string_equal(logged(f), "1 A 1, 2 A 1");

	/* order 1 moves from A to B: its old row goes out, its new one in,
	 * both stamped with what the model publishes */
	s2 = land(f, "id, region, amount", "(1, 'B', 10)");
	run_ok(f);
	assert_string_equal(logged(f), "1 A -1, 1 B 1");
	assert_int_equal(published(f, "silver.events"), s2);
	assert_string_equal(logged_seqs(f), arena_sprintf(f->a, "%lld-%lld", (long long)s2,
							  (long long)s2));
	assert_int_equal(query_int(f->w, "SELECT n FROM gold.by_region WHERE region = 'A'"), 1);
	assert_int_equal(query_int(f->w, "SELECT n FROM gold.by_region WHERE region = 'B'"), 1);
}

static void test_delete_insert_records_old_and_new_rows(void **state)
{
	struct fx *f = *state;

	project(f,
		LIVE_HEAD "incremental_strategy=delete+insert, unique_key=id,\n" FILTER QUERY,
		true);
	run_ok(f);
	land(f, "id, region, amount", "(1, 'A', 10), (2, 'A', 5)");
	run_ok(f);
	land(f, "id, region, amount", "(2, 'C', 5), (3, 'C', 1)");
	run_ok(f);
	assert_string_equal(logged(f), "2 A -1, 2 C 1, 3 C 1");
	assert_int_equal(query_int(f->w, "SELECT n FROM gold.by_region WHERE region = 'A'"), 1);
}

#define CDC_HEAD(deletes)                                                                    \
	LIVE_HEAD "incremental_strategy=merge, unique_key=id, cdc_op=op, cdc_seq=lsn" deletes \
		  ",\n" FILTER CDC_QUERY

/* A hard-delete model over change events, two orders of region A in it. */
static void two_orders_in_a(struct fx *f)
{
	project(f, CDC_HEAD(""), true);
	run_ok(f);
	land(f, "id, region, amount, op, lsn", "(1, 'A', 10, 'c', 100), (2, 'A', 5, 'c', 101)");
	run_ok(f);
}

static void test_cdc_hard_delete_records_the_removed_row(void **state)
{
	struct fx *f = *state;

	two_orders_in_a(f);
	land(f, "id, region, amount, op, lsn", "(1, 'A', 10, 'd', 102), (2, 'B', 5, 'u', 103)");
	run_ok(f);
	assert_string_equal(logged(f), "1 A -1, 2 A -1, 2 B 1");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.events"), 1);

	/* a replay of the delete applies nothing, and logs nothing */
	land(f, "id, region, amount, op, lsn", "(1, 'A', 10, 'd', 102)");
	run_ok(f);
	assert_string_equal(logged(f), "");
}

/* A delete alone, newer than anything stored: the log and the published
 * watermark both move, though the table's rows do not. */
static void test_cdc_delete_alone_moves_the_watermark(void **state)
{
	struct fx *f = *state;
	int64_t before;

	two_orders_in_a(f);
	before = published(f, "silver.events");
	land(f, "id, region, amount, op, lsn", "(1, 'A', 10, 'd', 102)");
	run_ok(f);
	assert_string_equal(logged(f), "1 A -1");
	assert_true(published(f, "silver.events") > before);
	assert_int_equal(query_int(f->w, "SELECT n FROM gold.by_region WHERE region = 'A'"), 1);
}

static void test_cdc_soft_delete_records_the_flagged_row(void **state)
{
	struct fx *f = *state;

	project(f, CDC_HEAD(", cdc_deletes=soft"), true);
	run_ok(f);
	land(f, "id, region, amount, op, lsn", "(1, 'A', 10, 'c', 100)");
	run_ok(f);
	land(f, "id, region, amount, op, lsn", "(1, 'A', 10, 'd', 101)");
	run_ok(f);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT string_agg(CAST(_sluice_weight AS VARCHAR) || ' ' || "
				      "CAST(_sluice_deleted AS VARCHAR), ', ' ORDER BY "
				      "_sluice_weight) FROM _sluice.changes__silver__events"),
			    "-1 false, 1 true");
}

static void test_append_keeps_no_log(void **state)
{
	struct fx *f = *state;

	project(f, LIVE_HEAD FILTER QUERY, false);
	run_ok(f);
	land(f, "id, region, amount", "(1, 'A', 10)");
	run_ok(f);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.events"), 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM information_schema.tables WHERE "
					 "table_name LIKE 'changes%'"),
			 0);
}

static void test_pruned_once_consumed(void **state)
{
	struct fx *f = *state;
	int64_t s1, s2;

	/* without a reader, nothing stays past the refresh */
	project(f, LIVE_HEAD "incremental_strategy=merge, unique_key=id,\n" FILTER QUERY, false);
	run_ok(f);
	land(f, "id, region, amount", "(1, 'A', 10)");
	run_ok(f);
	assert_string_equal(logged(f), "");

	/* with one, a refresh keeps its own changes, and the next forgets
	 * them once the reader has consumed them */
	fixture_put(f->root, "models/gold/by_region.sql", READER);
	f->p = fixture_load_valid(f->a, f->root);
	run_ok(f);
	s1 = land(f, "id, region, amount", "(1, 'B', 10)");
	run_ok(f);
	assert_string_equal(logged(f), "1 A -1, 1 B 1");
	s2 = land(f, "id, region, amount", "(2, 'B', 1)");
	run_ok(f);
	assert_string_equal(logged(f), "2 B 1");
	assert_string_equal(logged_seqs(f), arena_sprintf(f->a, "%lld-%lld", (long long)s2,
							  (long long)s2));
	assert_true(s2 > s1);
	assert_int_equal(query_int(f->w, "SELECT n FROM gold.by_region WHERE region = 'B'"), 2);
}

/* A maintained reader: sluice keeps it from the log. */
#define MAINTAINED LIVE_HEAD "\nSELECT region, count(*) AS n FROM silver.events GROUP BY region\n"

/* A model built again from scratch starts its log with one row of weight
 * 0 above what its readers consumed, and a maintained reader that finds
 * it reads the model whole: rebuilt with other values, the reader still
 * equals its query. A first build writes no such row. */
static void test_rebuild_marks_the_log(void **state)
{
	struct fx *f = *state;
	struct run_opts opts = { .env = "", .full_refresh = true, .selector = "silver.events" };
	struct run_report rep;
	const char **rel;
	size_t n;
	int64_t s1, consumed;

	project(f, LIVE_HEAD "incremental_strategy=merge, unique_key=id,\n" FILTER QUERY, false);
	fixture_put(f->root, "models/gold/by_region.sql", MAINTAINED);
	f->p = fixture_load_valid(f->a, f->root);
	run_ok(f);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.changes__silver__events "
					 "WHERE _sluice_weight = 0"),
			 0);
	s1 = land(f, "id, region, amount", "(1, 'A', 10), (2, 'A', 5)");
	run_ok(f);
	consumed = query_int(f->w, "SELECT max(watermark) FROM _sluice.live_consumed WHERE "
				   "model = 'gold.by_region'");
	assert_int_equal(consumed, s1);

	/* the same rows, another region: a rebuild the log cannot describe */
	fixture_put(f->root, "models/silver/events.sql",
		    LIVE_HEAD "incremental_strategy=merge, unique_key=id,\n" FILTER
			      "SELECT id, 'Z' AS region, amount, _sluice_seq FROM landing.events\n");
	f->p = fixture_load_valid(f->a, f->root);
	if (wh_relation_list(f->w, f->a, &rel, &n, &f->err) ||
	    live_batch_run(f->a, f->p, f->w, rel, n, &opts, &rep, &f->err))
		fail_msg("%s", f->err.msg);
	assert_int_equal(rep.failed, 0);
	run_report_free(&rep);
	assert_true(query_int(f->w, "SELECT min(_sluice_seq) FROM _sluice.changes__silver__events "
				    "WHERE _sluice_weight = 0") > consumed);
	run_ok(f);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT string_agg(region || ' ' || CAST(n AS VARCHAR), ', ' "
				      "ORDER BY region) FROM gold.by_region"),
			    "Z 2");
}

/* A refresh finds the groups a batch touched by the model's keys: on
 * PostgreSQL an index on them spares a hash of the whole table. */
static void test_maintained_reader_indexed_by_its_keys(void **state)
{
	struct fx *f = *state;

	project(f, LIVE_HEAD "incremental_strategy=merge, unique_key=id,\n" FILTER QUERY, false);
	fixture_put(f->root, "models/gold/by_region.sql", MAINTAINED);
	f->p = fixture_load_valid(f->a, f->root);
	run_ok(f);
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT string_agg(a.attname, ', ') FROM pg_index i "
				      "JOIN pg_attribute a ON a.attrelid = i.indrelid "
				      "AND a.attnum = ANY (i.indkey) "
				      "WHERE i.indrelid = 'gold.by_region'::regclass"),
			    "region");
}

static void test_rolled_back_refresh_records_nothing(void **state)
{
	struct fx *f = *state;
	size_t failed;

	project(f,
		"@assert amount >= 0\n" LIVE_HEAD "incremental_strategy=merge, unique_key=id,\n" FILTER
			QUERY,
		true);
	run_ok(f);
	land(f, "id, region, amount", "(1, 'A', 10)");
	run_ok(f);
	land(f, "id, region, amount", "(1, 'B', -1)");
	run(f, &failed);
	assert_int_equal(failed, 1);
	assert_string_equal(logged(f), "1 A 1");
	assert_string_equal(query_str(f->w, f->a, "SELECT region FROM silver.events"), "A");
}

/* validate: a {watermark} reader of a merge model is warned at its
 * reference, one that reads the change log is not. */
static void test_validate_warns_a_reader_without_the_log(void **state)
{
	struct fx *f = *state;
	const struct diag *d;

	project(f, LIVE_HEAD "incremental_strategy=merge, unique_key=id,\n" FILTER QUERY, true);
	fixture_put(f->root, "models/gold/naive.sql",
		    "@config materialized=incremental, live=true, "
		    "incremental_strategy=delete+insert, unique_key=region\n"
		    "SELECT region, count(*) AS n FROM silver.events WHERE region IN (SELECT "
		    "region FROM silver.events WHERE _sluice_seq > {watermark}) GROUP BY region\n");
	f->p = fixture_load_valid(f->a, f->root);
	d = fixture_diag(f->p, "model 'gold.naive' reads merge model 'silver.events' by "
			       "{watermark}: it rewrites rows in place, so the groups of their "
			       "old values are never recomputed");
	assert_int_equal(d->severity, DIAG_WARNING);
	assert_int_equal(d->line, 2);
	assert_int_equal(d->col, 35);
	assert_int_equal(diag_count(&f->p->diags, DIAG_WARNING), 1);
}

int main(void)
{
#define ON(name, wh) { #name "_" #wh, test_##name, setup_##wh, teardown, NULL }
#define T(name) ON(name, duckdb), ON(name, postgres)
	const struct CMUnitTest tests[] = {
		T(merge_records_old_and_new_rows),
		T(delete_insert_records_old_and_new_rows),
		T(cdc_hard_delete_records_the_removed_row),
		T(cdc_delete_alone_moves_the_watermark),
		T(cdc_soft_delete_records_the_flagged_row),
		T(append_keeps_no_log),
		T(pruned_once_consumed),
		T(rebuild_marks_the_log),
		T(rolled_back_refresh_records_nothing),
		ON(maintained_reader_indexed_by_its_keys, postgres),
		ON(validate_warns_a_reader_without_the_log, duckdb),
	};
#undef T
#undef ON

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
