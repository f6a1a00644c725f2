/*
 * Unit tests for the live runner (src/live/runner.c) and its thread
 * (src/live/thread.c) on a bronze -> silver -> gold chain of live models
 * in a temporary project folder and an in-memory DuckDB: one cycle moves
 * the chain, paused and backing-off models are held along with their
 * readers, alerts go out once per failure and recovery, refreshes are
 * logged in aggregate, covered advances are pruned, the thread wakes on
 * a notify instead of the poll; on a file whose disk is full, a failed
 * write stops the runner instead of backing off; and a temporal model
 * gated on a stream builds its windows in the cycle after the stream
 * passes them, and is not run while the stream stands still.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_wh.h"

#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/units.h"
#include "exec/lock.h"
#include "live/advance.h"
#include "live/runner.h"
#include "live/status.h"
#include "live/thread.h"
#include "project/model.h"
#include "project/project.h"
#include "project/validate.h"
#include "warehouse/sqlparse.h"
#include "warehouse/wh.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct fx {
	struct arena *a;
	char root[PATH_MAX];
	struct project *p;
	struct wh *w;
	struct live_runner *r;
	struct live_thread *t; /* stopped by teardown when a test fails early */
	FILE *out; /* the runner's lines */
	char *outbuf;
	size_t outlen, mark;
	struct sl_err err;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	fixture_mkdtemp(f->root, "live-runner");
	f->a = arena_new(NULL);
	f->out = open_memstream(&f->outbuf, &f->outlen);
	assert_non_null(f->out);
	if (fixture_open_tiny(&f->w))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (f->t)
		live_thread_stop(f->t);
	live_runner_free(f->r);
	wh_close(f->w);
	fclose(f->out);
	free(f->outbuf);
	fixture_rmtree(f->root);
	arena_free(f->a);
	free(f);
	return 0;
}

/* The text of root/rel, "" when it does not exist. */
static const char *slurp(struct fx *f, const char *rel)
{
	char path[PATH_MAX + 256], *text;
	FILE *fp;
	long n;

	snprintf(path, sizeof(path), "%s/%s", f->root, rel);
	fp = fopen(path, "r");
	if (!fp)
		return "";
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	text = arena_alloc(f->a, (size_t)n + 1);
	text[fread(text, 1, (size_t)n, fp)] = '\0';
	fclose(fp);
	return text;
}

static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *s = strstr(text, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

#define CHAIN_YML                                                                           \
	"name: shop\n"                                                                      \
	"sources:\n"                                                                        \
	"  orders: {kind: webhook, columns: {order_id: BIGINT, amount: DOUBLE, region: "    \
	"VARCHAR}}\n"                                                                       \
	"alerts: {command: 'cat >> alerts.log'}\n"

/* The chain, with lines added to sluice.yml, after bronze's @config and at
 * the end of gold's @config. */
struct chain {
	const char *yml, *bronze, *gold;
};

static struct project *load_chain(struct fx *f, struct chain ch)
{
	fixture_put(f->root, "sluice.yml",
		    arena_sprintf(f->a, "%s%s", CHAIN_YML, ch.yml ? ch.yml : ""));
	fixture_put(f->root, "models/bronze/orders.sql",
		    arena_sprintf(f->a,
				  "@config materialized=incremental, live=true,\n"
				  "        incremental_strategy=merge, unique_key=order_id,\n"
				  "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
				  "%s"
				  "SELECT order_id, amount, region, _sluice_seq "
				  "FROM landing.orders\n",
				  ch.bronze ? ch.bronze : ""));
	fixture_put(f->root, "models/silver/orders.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=merge,\n"
		    "        unique_key=order_id, "
		    "incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT order_id, amount, upper(region) AS region, _sluice_seq "
		    "FROM bronze.orders\n");
	fixture_put(f->root, "models/gold/revenue.sql",
		    arena_sprintf(f->a,
				  "@config materialized=incremental, live=true, "
				  "incremental_strategy=delete+insert, unique_key=region%s\n"
				  "SELECT region, count(*) AS orders, sum(amount) AS revenue "
				  "FROM silver.orders\n"
				  "WHERE region IN (SELECT region FROM silver.orders "
				  "WHERE _sluice_seq > {watermark})\n"
				  "GROUP BY region\n",
				  ch.gold ? ch.gold : ""));
	f->p = fixture_load_valid(f->a, f->root);
	f->r = live_runner_new(f->a, f->p, f->out);
	return f->p;
}

/* One cycle; the runner's lines of it in *lines when not NULL. */
static struct live_cycle cycle_lines(struct fx *f, const char **lines)
{
	struct live_cycle c;

	f->mark = f->outlen;
	if (live_runner_cycle(f->r, f->w, &c, &f->err))
		fail_msg("cycle: %s", f->err.msg);
	fflush(f->out);
	if (lines)
		*lines = arena_strdup(f->a, f->outbuf + f->mark);
	return c;
}

static struct live_cycle cycle(struct fx *f)
{
	return cycle_lines(f, NULL);
}

/* Rows landed and announced where the runner does not hear of it: only
 * its poll finds them. */
static struct live_advance land_unseen(struct fx *f, const char *values)
{
	struct live_advance adv;

	exec(f->w, arena_sprintf(f->a,
				 "INSERT INTO landing.orders (order_id, amount, region) VALUES %s",
				 values));
	if (live_advance_source(f->w, "orders", &adv, &f->err))
		fail_msg("advance: %s", f->err.msg);
	return adv;
}

/* Rows landed by this process, which tells the runner. */
static void land(struct fx *f, const char *values)
{
	struct live_advance adv = land_unseen(f, values);

	live_runner_advanced(f->r, "landing.orders", &adv);
}

static const char *revenue(struct fx *f)
{
	return query_str(f->w, f->a,
			 "SELECT coalesce(string_agg(region || ':' || orders || ':' || revenue, "
			 "' ' ORDER BY region), '') FROM gold.revenue");
}

/* Another process changes a model's state while the runner has let go of
 * the warehouse, as the foreground runner does between cycles. */
static void set_state(struct fx *f, const char *model, const char *assignments)
{
	if (live_runner_release(f->r, f->w, &f->err))
		fail_msg("release: %s", f->err.msg);
	exec(f->w, arena_sprintf(f->a, "UPDATE _sluice.live_state SET %s WHERE model = '%s'",
				 assignments, model));
}

static const char *state_of(struct fx *f, const char *model, const char *column)
{
	return query_str(f->w, f->a,
			 arena_sprintf(f->a,
				       "SELECT CAST(%s AS VARCHAR) FROM _sluice.live_state WHERE "
				       "model = '%s'",
				       column, model));
}

/* The first cycle creates every live model. */
static void start_chain_with(struct fx *f, struct chain ch)
{
	struct live_cycle c;

	load_chain(f, ch);
	c = cycle(f);
	assert_int_equal(c.refreshed, 3);
	assert_int_equal(c.failed, 0);
	assert_int_equal(c.behind, 0);
}

static void start_chain(struct fx *f, const char *yml_extra)
{
	start_chain_with(f, (struct chain){ .yml = yml_extra });
}

/* ---- cycles ---- */

static void test_runner_moves_the_chain_in_one_cycle(void **state)
{
	struct fx *f = *state;
	struct live_cycle c;
	const char *lines, *b, *s, *g;
	bool moved = false;

	start_chain(f, "");
	/* the poll's question: did any source move since the runner looked */
	assert_int_equal(live_runner_sources_moved(f->r, f->w, &moved, &f->err), 0);
	assert_false(moved);
	land_unseen(f, "(1, 10, 'eu'), (2, 5, 'us')");
	assert_int_equal(live_runner_sources_moved(f->r, f->w, &moved, &f->err), 0);
	assert_true(moved);
	assert_int_equal(live_runner_sources_moved(f->r, f->w, &moved, &f->err), 0);
	assert_false(moved);
	c = cycle_lines(f, &lines);
	assert_int_equal(c.refreshed, 3);
	assert_int_equal(c.failed, 0);
	assert_int_equal(c.held, 0);
	assert_int_equal(c.behind, 0);
	assert_int_equal(c.events, 2 + 2 + 2);
	assert_string_equal(revenue(f), "EU:1:10.0 US:1:5.0");
	/* an advance the runner was told of is no news to its poll */
	land(f, "(4, 1, 'eu')");
	assert_int_equal(live_runner_sources_moved(f->r, f->w, &moved, &f->err), 0);
	assert_false(moved);
	assert_int_equal(cycle(f).refreshed, 3);
	assert_string_equal(revenue(f), "EU:2:11.0 US:1:5.0");
	/* refreshes move no source */
	assert_int_equal(live_runner_sources_moved(f->r, f->w, &moved, &f->err), 0);
	assert_false(moved);

	/* in dependency order */
	b = strstr(lines, "refreshed bronze.orders: 2 rows");
	s = strstr(lines, "refreshed silver.orders: 2 rows");
	g = strstr(lines, "refreshed gold.revenue: 2 rows");
	if (!b || !s || !g || !(b < s && s < g))
		fail_msg("refreshes out of order:\n%s", lines);

	/* an update and a new key: only the touched group is recomputed */
	land(f, "(1, 12, 'eu'), (3, 7, 'eu')");
	c = cycle(f);
	assert_int_equal(c.refreshed, 3);
	assert_int_equal(c.events, 2 + 2 + 1);
	assert_string_equal(revenue(f), "EU:3:20.0 US:1:5.0");

	/* caught up: a cycle does nothing */
	c = cycle_lines(f, &lines);
	assert_int_equal(c.refreshed, 0);
	assert_int_equal(c.held, 0);
	assert_int_equal(c.behind, 0);
	assert_int_equal(c.events, 0);
	assert_string_equal(lines, "");
}

/* ---- windows of a stream ---- */

static void land_at(struct fx *f, const char *values)
{
	struct live_advance adv;

	exec(f->w, arena_sprintf(f->a, "INSERT INTO landing.ev (id, ts) VALUES %s", values));
	if (live_advance_source(f->w, "ev", &adv, &f->err))
		fail_msg("advance: %s", f->err.msg);
	live_runner_advanced(f->r, "landing.ev", &adv);
}

static void test_runner_builds_windows_as_the_stream_passes(void **state)
{
	struct fx *f = *state;
	struct live_cycle c;
	const char *lines;
	bool waited;

	fixture_put(f->root, "sluice.yml",
		    "name: shop\n"
		    "sources:\n"
		    "  ev: {kind: webhook, columns: {id: BIGINT, ts: TIMESTAMP}, event_time: ts,\n"
		    "       lateness: 10m}\n");
	fixture_put(f->root, "models/silver/hourly.sql",
		    "@config materialized=incremental, temporality=temporal, time_column=hour,\n"
		    "        grain=1h, start='2026-11-03', end='2026-11-04'\n"
		    "@upstream ev contract=through\n"
		    "SELECT CAST({since} AS TIMESTAMP) AS hour, count(*) AS n FROM landing.ev\n"
		    "WHERE ts >= {since} AND ts < {until}\n");
	/* one that keeps watermarks too: the runner's bookkeeping serves it */
	fixture_put(f->root, "models/silver/tracked.sql",
		    "@config materialized=incremental, temporality=temporal, time_column=ts,\n"
		    "        grain=1d, start='2026-11-03', end='2026-11-04'\n"
		    "@upstream ev contract=encapsulate\n"
		    "SELECT id, ts FROM landing.ev\n"
		    "WHERE ts >= {since} AND ts < {until} AND _sluice_seq > {watermark}\n");
	f->p = fixture_load_valid(f->a, f->root);
	f->r = live_runner_new(f->a, f->p, f->out);
	/* the first cycle looks once: nothing landed, every hour waits */
	cycle_lines(f, &lines);
	assert_string_equal(lines, "");
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT CAST(count(*) AS VARCHAR) FROM _sluice.windows WHERE "
				      "model = 'silver.hourly' AND status = 'blocked'"),
			    "24");
	land_at(f, "(1, '2026-11-03 00:30'), (2, '2026-11-03 02:15')");
	cycle_lines(f, &lines);
	assert_string_equal(lines, "built 2 windows of silver.hourly: 2 rows; 22 windows wait "
				   "for landing.ev (through)\n");
	/* nothing landed: no run at all */
	cycle_lines(f, &lines);
	assert_string_equal(lines, "");
	/* a late event passes no new hour: a run, and nothing to say */
	land_at(f, "(3, '2026-11-03 01:00')");
	cycle_lines(f, &lines);
	assert_string_equal(lines, "");
	/* another build holds one model: the pass does not wait for it, and
	 * counts it behind so that a cycle comes back */
	if (build_lock(f->w, "silver.hourly", &waited, &f->err))
		fail_msg("lock: %s", f->err.msg);
	land_at(f, "(4, '2026-11-03 23:50'), (5, '2026-11-04 00:30')");
	c = cycle_lines(f, &lines);
	assert_string_equal(lines, "built 1 window of silver.tracked: 4 rows\n");
	assert_int_equal(c.behind, 1);
	if (build_unlock(f->w, "silver.hourly", &f->err))
		fail_msg("unlock: %s", f->err.msg);
	c = cycle_lines(f, &lines);
	assert_string_equal(lines, "built 22 windows of silver.hourly: 22 rows\n");
	assert_int_equal(c.behind, 0);
	/* the late event's hour was built before it came; the last event is
	 * past the model's end */
	assert_string_equal(query_str(f->w, f->a,
				      "SELECT CAST(sum(n) AS VARCHAR) FROM silver.hourly"),
			    "3");
}

static void test_runner_holds_a_paused_model(void **state)
{
	struct fx *f = *state;
	struct live_cycle c;

	start_chain(f, "");
	set_state(f, "silver.orders", "paused = true");
	land(f, "(1, 10, 'eu')");
	c = cycle(f);
	assert_int_equal(c.refreshed, 1);
	assert_int_equal(c.held, 1);
	assert_int_equal(c.failed, 0);
	assert_int_equal(c.behind, 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM bronze.orders"), 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 0);
	assert_string_equal(revenue(f), "");
	/* still held on the next cycle, and still behind */
	land(f, "(2, 5, 'us')");
	c = cycle(f);
	assert_int_equal(c.refreshed, 1);
	assert_int_equal(c.held, 1);
	assert_int_equal(c.behind, 1);

	/* resumed, it catches up on everything that waited */
	set_state(f, "silver.orders", "paused = false");
	c = cycle(f);
	assert_int_equal(c.refreshed, 2);
	assert_int_equal(c.held, 0);
	assert_int_equal(c.behind, 0);
	assert_string_equal(revenue(f), "EU:1:10.0 US:1:5.0");
}

static void test_runner_live_interval(void **state)
{
	struct fx *f = *state;
	struct live_cycle c;

	/* gold refreshes at most once an hour; it was created just now */
	start_chain_with(f, (struct chain){ .gold = ", live_interval=1h" });
	land(f, "(1, 10, 'eu')");
	c = cycle(f);
	assert_int_equal(c.refreshed, 2);
	assert_int_equal(c.held, 1);
	assert_int_equal(c.behind, 1);
	assert_string_equal(revenue(f), "");
	/* silver and bronze are not held back by it */
	land(f, "(2, 5, 'us')");
	c = cycle(f);
	assert_int_equal(c.refreshed, 2);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.orders"), 2);
}

/* ---- failures ---- */

static int64_t next_retry_ms(struct fx *f, const char *model)
{
	return query_int(f->w,
			 arena_sprintf(f->a,
				       "SELECT epoch_ms(next_retry_at) FROM _sluice.live_state "
				       "WHERE model = '%s'",
				       model));
}

static void test_runner_failure_backoff_and_recovery(void **state)
{
	struct fx *f = *state;
	struct live_cycle c;
	const char *alerts, *lines;
	int64_t now, first_retry;

	start_chain_with(f, (struct chain){ .yml = "live: {backoff_base: 1m, backoff_max: 10m}\n",
					    .bronze = "@assert amount >= 0\n" });
	land(f, "(1, 10, 'eu')");
	assert_int_equal(cycle(f).refreshed, 3);

	/* a failing check: bronze rolls back, what reads it is held */
	land(f, "(2, -1, 'us')");
	c = cycle(f);
	assert_int_equal(c.refreshed, 0);
	assert_int_equal(c.failed, 1);
	assert_int_equal(c.held, 2);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM bronze.orders"), 1);
	assert_string_equal(revenue(f), "EU:1:10.0");
	assert_string_equal(state_of(f, "bronze.orders", "status"), "failing");
	assert_string_equal(state_of(f, "bronze.orders", "failures"), "1");
	assert_non_null(strstr(state_of(f, "bronze.orders", "last_error"), "amount >= 0"));
	now = units_now_ms();
	first_retry = next_retry_ms(f, "bronze.orders");
	assert_in_range(first_retry, now + 50 * 1000, now + 60 * 1000);
	alerts = slurp(f, "alerts.log");
	assert_int_equal(count_of(alerts, "\n"), 1);
	assert_non_null(strstr(alerts, "\"alert\":\"live_model_failed\""));
	assert_non_null(strstr(alerts, "\"model\":\"bronze.orders\""));
	assert_non_null(strstr(alerts, "amount >= 0"));

	/* before the retry time: bronze backs off and silver waits for it
	 * (gold reads silver, which is not failing: it is just up to date) */
	c = cycle(f);
	assert_int_equal(c.refreshed, 0);
	assert_int_equal(c.failed, 0);
	assert_int_equal(c.held, 2);
	assert_int_equal(c.behind, 1);
	assert_string_equal(state_of(f, "bronze.orders", "failures"), "1");
	assert_int_equal(next_retry_ms(f, "bronze.orders"), first_retry);
	/* sources keep landing meanwhile */
	land(f, "(3, 4, 'eu')");
	c = cycle(f);
	assert_int_equal(c.refreshed, 0);
	assert_int_equal(c.failed, 0);
	assert_int_equal(c.held, 2);

	/* retried while still broken: the backoff doubles, no second alert */
	set_state(f, "bronze.orders", "next_retry_at = now()::TIMESTAMP - INTERVAL 1 SECOND");
	c = cycle_lines(f, &lines);
	assert_int_equal(c.failed, 1);
	assert_non_null(strstr(lines, "failed again"));
	assert_string_equal(state_of(f, "bronze.orders", "failures"), "2");
	now = units_now_ms();
	assert_in_range(next_retry_ms(f, "bronze.orders"), now + 110 * 1000, now + 120 * 1000);
	assert_int_equal(count_of(slurp(f, "alerts.log"), "\n"), 1);

	/* fixed, and retried now: bronze applies all that waited, its readers
	 * follow in the same cycle, one recovery alert */
	exec(f->w, "UPDATE landing.orders SET amount = 1 WHERE amount < 0");
	set_state(f, "bronze.orders", "next_retry_at = NULL");
	c = cycle(f);
	assert_int_equal(c.refreshed, 3);
	assert_int_equal(c.failed, 0);
	assert_int_equal(c.held, 0);
	assert_int_equal(c.behind, 0);
	assert_string_equal(revenue(f), "EU:2:14.0 US:1:1.0");
	assert_string_equal(state_of(f, "bronze.orders", "status"), "live");
	assert_string_equal(state_of(f, "bronze.orders", "failures"), "0");
	assert_string_equal(state_of(f, "bronze.orders", "last_error"), "NULL");
	alerts = slurp(f, "alerts.log");
	assert_int_equal(count_of(alerts, "\n"), 2);
	assert_int_equal(count_of(alerts, "live_model_failed"), 1);
	assert_int_equal(count_of(alerts, "live_model_recovered"), 1);
	assert_true(strstr(alerts, "live_model_failed") < strstr(alerts, "live_model_recovered"));
	/* failures and the recovery are logged as they happen */
	assert_int_equal(query_int(f->w,
				   "SELECT count(*) FROM _sluice.run_log WHERE model = "
				   "'bronze.orders' AND run_type = 'live' AND status = 'failed'"),
			 2);
	assert_int_equal(
		query_int(f->w, "SELECT count(*) FROM _sluice.run_log WHERE model = "
				"'bronze.orders' AND run_type = 'live' AND status = 'recovered'"),
		1);

	/* nothing more to say */
	c = cycle(f);
	assert_int_equal(c.refreshed, 0);
	assert_int_equal(count_of(slurp(f, "alerts.log"), "\n"), 2);
}

/* A refresh whose commit fails for want of space may or may not be on
 * disk: the cycle stops with SL_E_SUSPECT, recording nothing (no failure,
 * no backoff, no alert), for the process to open the warehouse again.
 * The WAL is /dev/full, which DuckDB opens anew after a checkpoint. */
static void test_runner_stops_at_a_failed_write(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX + 32], wal[PATH_MAX + 40];
	struct live_cycle c;
	bool moved = false;

	wh_close(f->w);
	snprintf(path, sizeof(path), "%s/warehouse.duckdb", f->root);
	snprintf(wal, sizeof(wal), "%s.wal", path);
	assert_int_equal(wh_open_duckdb(path, false, &f->w, &f->err), 0);
	load_chain(f, (struct chain){ 0 });
	cycle(f);
	land_unseen(f, "(1, 10, 'eu')");
	exec(f->w, "CHECKPOINT");
	unlink(wal);
	assert_int_equal(symlink("/dev/full", wal), 0);
	assert_int_equal(live_runner_sources_moved(f->r, f->w, &moved, &f->err), 0);
	assert_true(moved);
	f->mark = f->outlen;
	assert_int_equal(live_runner_cycle(f->r, f->w, &c, &f->err), SL_E_SUSPECT);
	assert_non_null(strstr(f->err.msg, "No space left on device"));
	assert_non_null(strstr(f->err.msg, "in model bronze.orders"));
	fflush(f->out);
	assert_null(strstr(f->outbuf + f->mark, "failed"));
	assert_string_equal(slurp(f, "alerts.log"), "");
	assert_true(wh_suspect(f->w, NULL));
}

/* ---- logging and pruning ---- */

static int64_t live_log_rows(struct fx *f, const char *model)
{
	return query_int(f->w, arena_sprintf(f->a,
					     "SELECT count(*) FROM _sluice.run_log "
					     "WHERE run_type = 'live' AND status = 'ok' "
					     "AND model = '%s'",
					     model));
}

static int64_t live_log_total(struct fx *f)
{
	return query_int(f->w, "SELECT count(*) FROM _sluice.run_log WHERE run_type = 'live'");
}

static void test_runner_logs_in_aggregate(void **state)
{
	struct fx *f = *state;

	start_chain(f, "");
	land(f, "(1, 10, 'eu'), (2, 5, 'us')");
	assert_int_equal(cycle(f).refreshed, 3);
	land(f, "(3, 1, 'eu')");
	assert_int_equal(cycle(f).refreshed, 3);
	/* no row per refresh: log_interval (60s) has not passed */
	assert_int_equal(live_log_total(f), 0);

	assert_int_equal(live_runner_flush_log(f->r, f->w, true, &f->err), 0);
	assert_int_equal(live_log_rows(f, "bronze.orders"), 1);
	assert_int_equal(live_log_rows(f, "silver.orders"), 1);
	assert_int_equal(live_log_rows(f, "gold.revenue"), 1);
	assert_int_equal(live_log_total(f), 3);
	/* the window's events and refreshes (the creating one included) */
	assert_int_equal(
		query_int(f->w, "SELECT rows FROM _sluice.run_log WHERE model = 'silver.orders'"),
		3);
	assert_non_null(strstr(query_str(f->w, f->a,
					 "SELECT message FROM _sluice.run_log WHERE model = "
					 "'silver.orders'"),
			       "3 refreshes"));

	/* flushed windows start over: nothing to write */
	assert_int_equal(live_runner_flush_log(f->r, f->w, true, &f->err), 0);
	assert_int_equal(live_log_total(f), 3);

	/* only the models that refreshed get a row */
	set_state(f, "gold.revenue", "paused = true");
	land(f, "(4, 1, 'us')");
	assert_int_equal(cycle(f).refreshed, 2);
	assert_int_equal(live_runner_flush_log(f->r, f->w, false, &f->err), 0);
	assert_int_equal(live_log_total(f), 3);
	assert_int_equal(live_runner_flush_log(f->r, f->w, true, &f->err), 0);
	assert_int_equal(live_log_rows(f, "bronze.orders"), 2);
	assert_int_equal(live_log_rows(f, "silver.orders"), 2);
	assert_int_equal(live_log_rows(f, "gold.revenue"), 1);
}

static void test_runner_prunes_covered_advances(void **state)
{
	struct fx *f = *state;
	struct live_cycle c;

	/* the runner prunes every poll_interval: here, after every cycle */
	start_chain(f, "live: {poll_interval: 1ms}\n");
	land(f, "(1, 10, 'eu')");
	land(f, "(2, 5, 'us')");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 2);
	/* gold has not covered them: they still count for its lag */
	set_state(f, "gold.revenue", "paused = true");
	c = cycle(f);
	assert_int_equal(c.refreshed, 2);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 2);

	set_state(f, "gold.revenue", "paused = false");
	c = cycle(f);
	assert_int_equal(c.refreshed, 1);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 0);
	/* the source keeps its watermark */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_sources"), 1);

	/* an advance covered by some consumers only stays */
	land(f, "(3, 1, 'eu')");
	set_state(f, "silver.orders", "paused = true");
	cycle(f);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 1);
	set_state(f, "silver.orders", "paused = false");
	cycle(f);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.live_advances"), 0);
}

/* A refresh that applies nothing writes nothing; its watermarks wait for
 * the runner's checkpoint. A crash before it costs one empty re-read. */
static void test_runner_defers_refreshes_that_change_nothing(void **state)
{
	struct fx *f = *state;
	const char *consumed = "SELECT watermark FROM _sluice.live_consumed WHERE model = "
			       "'bronze.orders'";
	const char *landed = "SELECT watermark FROM _sluice.live_sources";
	struct live_cycle c;
	int64_t first;

	fixture_put(f->root, "sluice.yml", CHAIN_YML "live: {poll_interval: 1h}\n");
	fixture_put(f->root, "models/bronze/orders.sql",
		    "@config materialized=incremental, live=true,\n"
		    "        incremental_filter=WHERE _sluice_seq > {watermark} AND amount >= 0\n"
		    "SELECT order_id, amount, region, _sluice_seq FROM landing.orders\n");
	f->p = fixture_load(f->a, f->root);
	project_validate(f->p, NULL, 0);
	f->r = live_runner_new(f->a, f->p, f->out);
	assert_int_equal(cycle(f).refreshed, 1);
	land(f, "(1, 10, 'eu')");
	assert_int_equal(cycle(f).events, 1);
	first = query_int(f->w, landed);
	assert_int_equal(query_int(f->w, consumed), first);
	assert_string_equal(state_of(f, "bronze.orders", "refresh_count"), "2");

	/* filtered out: refreshed, caught up, nothing written */
	land(f, "(2, -1, 'us')");
	c = cycle(f);
	assert_int_equal(c.refreshed, 1);
	assert_int_equal(c.events, 0);
	assert_int_equal(c.behind, 0);
	assert_int_equal(query_int(f->w, consumed), first);
	assert_string_equal(state_of(f, "bronze.orders", "refresh_count"), "2");

	/* the runner dies: the next one reads the row again and applies nothing */
	live_runner_free(f->r);
	f->r = live_runner_new(f->a, f->p, f->out);
	c = cycle(f);
	assert_int_equal(c.refreshed, 1);
	assert_int_equal(c.events, 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM bronze.orders"), 1);
	assert_int_equal(cycle(f).refreshed, 0);

	/* letting go of the warehouse writes what was held */
	assert_int_equal(live_runner_release(f->r, f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, consumed), query_int(f->w, landed));
	assert_string_equal(state_of(f, "bronze.orders", "refresh_count"), "3");

	/* and a refresh that applies rows writes everything at once */
	land(f, "(3, 5, 'eu')");
	assert_int_equal(cycle(f).events, 1);
	assert_int_equal(query_int(f->w, consumed), query_int(f->w, landed));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM bronze.orders"), 2);
	assert_string_equal(state_of(f, "bronze.orders", "refresh_count"), "4");
}

/* What live status says of fqn: "STATE LAG_MS". */
static const char *status_of(struct fx *f, const char *fqn)
{
	json_t *doc, *o;
	size_t i;
	const char *out = NULL;

	if (live_status_doc(f->a, f->p, f->w, &doc, &f->err))
		fail_msg("status: %s", f->err.msg);
	json_array_foreach(json_object_get(doc, "models"), i, o)
		if (strcmp(json_string_value(json_object_get(o, "model")), fqn) == 0)
			out = arena_sprintf(f->a, "%s %lld",
					    json_string_value(json_object_get(o, "state")),
					    (long long)json_integer_value(json_object_get(o, "lag_ms")));
	json_decref(doc);
	if (!out)
		fail_msg("'%s' is not in the status", fqn);
	return out;
}

/* A model that recovers with a refresh that applies nothing (the bad row
 * was deleted from landing) is written at once, though such refreshes
 * otherwise wait for the checkpoint: the warehouse, and so live status,
 * says at once that it and its readers are live again. */
static void test_runner_writes_a_recovery_that_applies_nothing(void **state)
{
	struct fx *f = *state;
	struct live_cycle c;

	start_chain_with(f, (struct chain){ .yml = "live: {poll_interval: 1h, backoff_base: 1m}\n",
					    .bronze = "@assert amount >= 0\n" });
	land(f, "(1, 10, 'eu')");
	assert_int_equal(cycle(f).refreshed, 3);
	land(f, "(2, -1, 'us')");
	assert_int_equal(cycle(f).failed, 1);
	assert_non_null(strstr(status_of(f, "bronze.orders"), "failing "));
	assert_non_null(strstr(status_of(f, "silver.orders"), "waiting "));

	exec(f->w, "DELETE FROM landing.orders WHERE amount < 0");
	set_state(f, "bronze.orders", "next_retry_at = NULL");
	c = cycle(f);
	assert_int_equal(c.refreshed, 1);
	assert_int_equal(c.events, 0);
	assert_int_equal(c.failed, 0);
	assert_int_equal(c.behind, 0);
	assert_string_equal(state_of(f, "bronze.orders", "status"), "live");
	assert_string_equal(status_of(f, "bronze.orders"), "live 0");
	assert_string_equal(status_of(f, "silver.orders"), "live 0");
	assert_string_equal(status_of(f, "gold.revenue"), "live 0");
	assert_int_equal(cycle(f).refreshed, 0);
	assert_string_equal(revenue(f), "EU:1:10.0");
}

/* ---- the thread ---- */

static int64_t count_silver(struct fx *f)
{
	return query_int(f->w, "SELECT count(*) FROM silver.orders");
}

struct job_arg {
	struct fx *f;
	const char *model;
	bool pause;
};

static int pause_job(struct live_runner *r, struct wh *w, void *arg, struct sl_err *err)
{
	struct job_arg *j = arg;

	return live_runner_pause(r, w, project_find_model(j->f->p, j->model), j->pause, err);
}

static bool wait_for(struct fx *f, const char *sql, int64_t want)
{
	int64_t started = units_mono_ms();

	while (units_mono_ms() - started < 4000) {
		if (query_int(f->w, sql) == want)
			return true;
		sleep_ms(10);
	}
	return false;
}

/* Other threads steer the runner through jobs on its own thread. */
static void test_thread_runs_jobs(void **state)
{
	struct fx *f = *state;
	struct job_arg j = { .f = f, .model = "silver.orders", .pause = true };
	struct live_advance adv;
	struct wh *w2 = NULL;

	start_chain(f, "live: {poll_interval: 1h, debounce: 10ms, min_interval: 0, "
		       "max_latency: 1s}\n");
	assert_int_equal(wh_connect(f->w, &w2, &f->err), 0);
	assert_int_equal(live_thread_start(f->a, f->p, w2, NULL, &f->t, &f->err), 0);
	assert_int_equal(live_thread_call(f->t, pause_job, &j, &f->err), 0);
	assert_string_equal(state_of(f, "silver.orders", "paused"), "true");
	adv = land_unseen(f, "(1, 10, 'eu')");
	live_thread_advanced(f->t, "landing.orders", &adv);
	assert_true(wait_for(f, "SELECT count(*) FROM bronze.orders", 1));
	sleep_ms(100);
	assert_int_equal(count_silver(f), 0);

	/* resumed, it catches up */
	j.pause = false;
	assert_int_equal(live_thread_call(f->t, pause_job, &j, &f->err), 0);
	live_thread_notify(f->t);
	assert_true(wait_for(f, "SELECT count(*) FROM silver.orders", 1));
	assert_string_equal(state_of(f, "silver.orders", "paused"), "false");
	live_thread_stop(f->t);
	f->t = NULL;
}

static void test_thread_wakes_on_notify(void **state)
{
	struct fx *f = *state;
	struct wh *w2 = NULL;
	int64_t started;
	size_t before;

	/* the poll would take an hour: only a notify can wake the runner */
	start_chain(f, "live: {poll_interval: 1h, debounce: 10ms, min_interval: 0, "
		       "max_latency: 1s}\n");
	assert_int_equal(wh_connect(f->w, &w2, &f->err), 0);
	assert_int_equal(live_thread_start(f->a, f->p, w2, NULL, &f->t, &f->err), 0);
	/* the thread polls once as it starts when its clock says a poll is
	 * due; let that cycle pass */
	started = units_mono_ms();
	while (units_mono_ms() - started < 3000 && live_thread_cycles(f->t) == 0 &&
	       units_mono_ms() >= f->p->cfg.live.poll_interval_ms)
		sleep_ms(10);
	sleep_ms(50);

	/* an advance nobody announces to the thread waits for the poll */
	before = live_thread_cycles(f->t);
	land(f, "(1, 10, 'eu'), (2, 5, 'us')");
	sleep_ms(200);
	assert_int_equal(count_silver(f), 0);
	assert_int_equal(live_thread_cycles(f->t), before);

	/* announced, it is refreshed at once, chain and all */
	live_thread_notify(f->t);
	started = units_mono_ms();
	while (units_mono_ms() - started < 4000 && live_thread_cycles(f->t) == before)
		sleep_ms(10);
	assert_true(live_thread_cycles(f->t) > before);
	assert_int_equal(count_silver(f), 2);
	assert_string_equal(revenue(f), "EU:1:10.0 US:1:5.0");

	/* stopping writes the pending run-log rows (and closes w2) */
	live_thread_stop(f->t);
	f->t = NULL;
	assert_int_equal(live_log_rows(f, "silver.orders"), 1);
	assert_int_equal(live_log_rows(f, "gold.revenue"), 1);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_runner_moves_the_chain_in_one_cycle),
		T(test_runner_builds_windows_as_the_stream_passes),
		T(test_runner_holds_a_paused_model),
		T(test_runner_live_interval),
		T(test_runner_failure_backoff_and_recovery),
		T(test_runner_stops_at_a_failed_write),
		T(test_runner_logs_in_aggregate),
		T(test_runner_prunes_covered_advances),
		T(test_runner_defers_refreshes_that_change_nothing),
		T(test_runner_writes_a_recovery_that_applies_nothing),
		T(test_thread_wakes_on_notify),
		T(test_thread_runs_jobs),
	};
#undef T

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
