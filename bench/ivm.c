/*
 * Benchmark: refreshes of maintained aggregates (counted) against a full
 * rebuild of the same aggregate. silver.orders is a live CDC merge model
 * of ROWS orders keyed by order_id, with three region columns (r10, r1k,
 * r100k: 10, 1,000 and 100,000 distinct values) and an amount; gold.g10,
 * gold.g1k and gold.g100k are live models written as their plain query,
 * `SELECT rX, count(*), sum(amount) FROM silver.orders GROUP BY rX`,
 * which sluice maintains as counted. Batches of change events (70%
 * updates moving an order to another region in every column, 15% deletes,
 * 15% inserts; each order touched at most once in a run) are landed and
 * applied to silver.orders, whose change log then holds them; that part
 * is not timed. What is timed, per aggregate and batch, on two copies of
 * the same warehouse taking the same batches in turn:
 *   - the model's statements alone (materialize_write + publish in one
 *     transaction, the counted refresh's SQL; the model's state is left
 *     as it was, so this copy's change log is never pruned), beside the
 *     rebuild: the plain GROUP BY over silver.orders written to a table
 *     in one transaction, timed on the same copy every few batches;
 *   - the refresh as the live runner makes it (build_run of the model
 *     alone with the runner's watermark books, one transaction).
 * Then one batch of CROSS percent of ROWS, the crossover, on both copies,
 * each aggregate's refresh against rebuilds right after it.
 *
 *   ivm init DIR ROWS
 *       builds DIR's warehouse (DuckDB file or PostgreSQL database): the
 *       orders landed with range()/generate_series and built, the
 *       aggregates and their groups built from them, one live cycle
 *   ivm run DIR_SQL DIR_RUNNER ROWS BATCHES BATCH REBUILDS CROSS
 *       a warm-up batch, then BATCHES batches of BATCH events; prints one
 *       line per figure, with its target and MISSED when missed. The
 *       sides must end with every aggregate equal to its rebuild.
 * With SLUICE_TRACE_SQL set, each timed refresh is announced on stderr
 * before its statements, so that the trace says whose they are.
 */
#include "exec/materialize.h"
#include "exec/run.h"
#include "state/state.h"
#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "live/advance.h"
#include "live/batch.h"
#include "live/ledger.h"
#include "live/runner.h"
#include "live/watermark.h"
#include "project/project.h"
#include "warehouse/open.h"
#include "warehouse/sqlparse.h"
#include "warehouse/wh.h"

#include "bench_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAGG 3

/* A landing of this many events or more is analyzed on PostgreSQL. */
#define ANALYZE_EVENTS 10000

static const char *const agg_model[NAGG] = { "gold.g10", "gold.g1k", "gold.g100k" };
static const char *const agg_key[NAGG] = { "r10", "r1k", "r100k" };
static const int64_t agg_groups[NAGG] = { 10, 1000, 100000 };

/* Targets: the model's statements p50 (ms) on DuckDB and PostgreSQL, the
 * rebuild's time over them at <= 1,000 groups and at 100,000 on DuckDB, on
 * PostgreSQL at any; the runner's p50 and p95. */
#define TARGET_P50_DUCK 15.0
#define TARGET_P50_PG 20.0
#define TARGET_X_DUCK_SMALL 4.0
#define TARGET_X_DUCK_LARGE 10.0
#define TARGET_X_PG 50.0
#define TARGET_RUNNER_P50 50.0
#define TARGET_RUNNER_P95 150.0

/* One copy of the warehouse and what refreshing its models needs. */
struct side {
	const char *name;
	struct arena *a;
	struct sqlparse *parser;
	struct project *p;
	struct wh *w;
	struct live_ledger *l;
	struct live_books books;
	struct state_cache cache;
	const char **rel, **kinds;
	size_t nrel;
	int64_t *us[NAGG]; /* per counted batch */
	int64_t cross_us[NAGG];
};

static void open_side(struct side *s, const char *name, const char *dir)
{
	struct sl_err err = SL_ERR_INIT;

	s->name = name;
	s->a = arena_new(NULL);
	if (sqlparse_open(&s->parser, &err) || project_load(s->a, dir, s->parser, &s->p, &err))
		die(&err);
	project_validate(s->p, NULL, 0);
	{
		struct wh_place at = { .type = s->p->cfg.warehouse.type,
				       .path = s->p->cfg.warehouse.path,
				       .dsn_env = s->p->cfg.warehouse.dsn_env,
				       .root = dir };

		if (wh_open(&at, s->a, WH_OPEN_CREATE, &s->w, &err))
			die(&err);
	}
}

static void close_side(struct side *s)
{
	wh_close(s->w);
	sqlparse_close(s->parser);
	arena_free(s->a);
}

static bool is_pg(const struct side *s)
{
	return wh_kind(s->w) == WH_POSTGRES;
}

/* The rows [from, from + n) of a series e of BIGINT in the warehouse's
 * dialect. */
static void series(const struct side *s, int64_t from, int64_t n, char *out, size_t len)
{
	if (is_pg(s))
		snprintf(out, len, "generate_series(CAST(%lld AS BIGINT), %lld) AS t(e)", (long long)from,
			 (long long)(from + n - 1));
	else
		snprintf(out, len, "range(%lld, %lld) AS t(e)", (long long)from, (long long)(from + n));
}

static void run_all(struct side *s, bool full)
{
	struct sl_err err = SL_ERR_INIT;
	struct run_opts opts = { .env = "", .full_refresh = full };
	struct run_report rep;
	const char **rel;
	size_t nrel;

	if (wh_relation_list(s->w, s->a, &rel, &nrel, &err) ||
	    live_batch_run(s->a, s->p, s->w, rel, nrel, &opts, &rep, &err))
		die(&err);
	if (rep.failed) {
		fprintf(stderr, "ivm: the build failed: %s\n", rep.items[0].message);
		exit(1);
	}
	run_report_free(&rep);
}

/* Order i of the starting ROWS: its regions are i modulo the groups. */
static void init(const char *dir, int64_t rows)
{
	struct side s = { 0 };
	struct sl_err err = SL_ERR_INIT;
	struct live_runner *r;
	struct live_cycle c;
	char sql[1024], range[128];

	open_side(&s, "init", dir);
	run_all(&s, false);
	series(&s, 0, rows, range, sizeof(range));
	snprintf(sql, sizeof(sql),
		 "INSERT INTO landing.orders (order_id, r10, r1k, r100k, amount, op, lsn) SELECT e, "
		 "e %% 10, e %% 1000, e %% 100000, e %% 997, 'c', e + 1 FROM %s",
		 range);
	exec(s.w, sql);
	if (live_advance_source(s.w, "landing.orders", NULL, &err))
		die(&err);
	run_all(&s, true);
	/* the full build logged every row for the aggregates: a live cycle
	 * over it lets them consume it, so the log is empty when batches come */
	r = live_runner_new(s.a, s.p, NULL);
	if (live_runner_cycle(r, s.w, &c, &err) || live_runner_release(r, s.w, &err))
		die(&err);
	live_runner_free(r);
	exec(s.w, "CREATE SCHEMA IF NOT EXISTS bench");
	/* the landed orders are read no more; on PostgreSQL, where each of
	 * them is there twice (the advance's UPDATE), they would double what
	 * each copy of the database takes on the disk */
	if (is_pg(&s))
		exec(s.w, "TRUNCATE landing.orders");
	else
		exec(s.w, "CHECKPOINT");
	printf("silver.orders: %lld rows; groups %lld, %lld, %lld; change log %lld rows\n",
	       (long long)qint(s.w, "SELECT count(*) FROM silver.orders"),
	       (long long)qint(s.w, "SELECT count(*) FROM gold.g10"),
	       (long long)qint(s.w, "SELECT count(*) FROM gold.g1k"),
	       (long long)qint(s.w, "SELECT count(*) FROM gold.g100k"),
	       (long long)qint(s.w, "SELECT count(*) FROM _sluice.changes__silver__orders"));
	close_side(&s);
}

static void books_open(struct side *s)
{
	struct sl_err err = SL_ERR_INIT;

	s->l = live_ledger_new(s->a, s->p);
	if (wh_relation_kinds(s->w, s->a, &s->rel, &s->kinds, &s->nrel, &err) ||
	    live_ledger_load(s->l, s->w, &err))
		die(&err);
	live_books_over(&s->books, s->p, s->l);
}

static void books_close(struct side *s)
{
	state_cache_free(&s->cache);
	live_books_close(&s->books);
	live_ledger_free(s->l);
}

/* Events [from, from + n): the e-th is, by e modulo 20, an update (0-13)
 * of order e * 7919 mod ROWS (a permutation: no order twice while e <
 * ROWS) to a region other than its starting one in every column, a delete
 * (14-16) of such an order, or an insert (17-19) of order ROWS + e; its
 * lsn is above every starting order's. */
static void land(struct side *s, int64_t rows, int64_t from, int64_t n)
{
	struct sl_err err = SL_ERR_INIT;
	struct live_advance adv;
	char sql[2048], range[128];

	series(s, from, n, range, sizeof(range));
	snprintf(sql, sizeof(sql),
		 "INSERT INTO landing.orders (order_id, r10, r1k, r100k, amount, op, lsn) SELECT id, "
		 "CASE WHEN k < 14 THEN (id + 1 + e %% 9) %% 10 ELSE id %% 10 END, "
		 "CASE WHEN k < 14 THEN (id + 1 + e %% 999) %% 1000 ELSE id %% 1000 END, "
		 "CASE WHEN k < 14 THEN (id + 1 + e %% 99999) %% 100000 ELSE id %% 100000 END, "
		 "e %% 991, CASE WHEN k < 14 THEN 'u' WHEN k < 17 THEN 'd' ELSE 'c' END, "
		 "%lld + 1 + e FROM (SELECT e, k, CASE WHEN k < 17 THEN e * 7919 %% %lld ELSE "
		 "%lld + e END AS id FROM (SELECT e, e %% 20 AS k FROM %s) AS s) AS s",
		 (long long)rows, (long long)rows, (long long)rows, range);
	exec(s->w, sql);
	if (live_advance_source(s->w, "landing.orders", &adv, &err))
		die(&err);
	live_ledger_note(s->l, "landing.orders", &adv, units_now_ms());
}

/* One model refreshed as the live runner does it: its run alone, with
 * the runner's watermark books, in one transaction; the time it took. */
static int64_t refresh(struct side *s, const char *model)
{
	struct sl_err err = SL_ERR_INIT;
	struct run_opts opts = { .env = "",
				 .live = true,
				 .state_ready = true,
				 .selector = model,
				 .cache = &s->cache,
				 .kinds = s->kinds,
				 .book = live_books_hooks(&s->books) };
	struct run_report rep;
	int64_t t0 = units_mono_us(), us;

	if (build_run(s->a, s->p, s->w, s->rel, s->nrel, &opts, &rep, &err))
		die(&err);
	us = units_mono_us() - t0;
	if (rep.n != 1 || rep.failed || rep.items[0].rows == 0) {
		fprintf(stderr, "ivm: %s: the refresh of %s did not apply the batch%s%s\n", s->name,
			model, rep.n && rep.items[0].message ? ": " : "",
			rep.n && rep.items[0].message ? rep.items[0].message : "");
		exit(1);
	}
	run_report_free(&rep);
	return us;
}

/* The batch into silver.orders, untimed; on DuckDB a checkpoint after it,
 * so that no timed commit pays for checkpointing what it wrote. On
 * PostgreSQL a large batch's landing is analyzed first: the planner, which
 * last saw the landing table without those rows, would join the batch's
 * events with each other by nested loop (minutes at 60,000 events). */
static void apply_input(struct side *s, int64_t rows, int64_t from, int64_t n)
{
	land(s, rows, from, n);
	if (is_pg(s) && n >= ANALYZE_EVENTS)
		exec(s->w, "ANALYZE landing.orders");
	refresh(s, "silver.orders");
	if (!is_pg(s))
		exec(s->w, "CHECKPOINT");
}

/* What silver.orders has published: the sequence its change log is at. */
static int64_t published(struct side *s)
{
	return qint(s->w, "SELECT published FROM _sluice.live_state WHERE model = 'silver.orders'");
}

static void announce(const struct side *s, const char *what, const char *model)
{
	if (getenv("SLUICE_TRACE_SQL"))
		fprintf(stderr, "ivm: %s: %s %s\n", s->name, what, model);
}

/* The model's statements alone over the change log above since, in one
 * transaction: the counted refresh without the run's bookkeeping (the
 * model's own state and watermarks are left as they were). Past the
 * crossover (may_recompute) the refresh computes the whole query; before
 * it, anything but a counted refresh is a fault of the benchmark. */
static int64_t statements(struct side *s, const char *model, int64_t since, bool may_recompute)
{
	struct sl_err err = SL_ERR_INIT;
	static const char *const names[] = { "silver.orders" };
	struct model *m = project_find_model(s->p, model);
	struct mat_plan plan = { .run_ts = "2026-01-01 00:00:00.000",
				 .old_kind_known = true,
				 .old_kind = "table" };
	struct mat_outcome out;
	int64_t t0;

	plan.ctx.env = "";
	plan.ctx.wm_names = names;
	plan.ctx.wm_values = &since;
	plan.ctx.nwm = 1;
	plan.ctx.watermark = since;
	plan.ctx.changes_unread = true;
	announce(s, "statements of", model);
	t0 = units_mono_us();
	if (wh_begin(s->w, &err) || materialize_write(s->w, m, &plan, &out, &err) ||
	    materialize_publish(s->w, m, &out, &err) || wh_commit(s->w, &err))
		die(&err);
	t0 = units_mono_us() - t0;
	if (strcmp(out.action, "counted") != 0 &&
	    !(may_recompute && strcmp(out.action, "recomputed") == 0)) {
		fprintf(stderr, "ivm: %s was %s, not counted\n", model, out.action);
		exit(1);
	}
	return t0;
}

/* The plain GROUP BY over silver.orders written to a table, in one
 * transaction. */
static int64_t rebuild(struct side *s, int k)
{
	char sql[512];
	int64_t t0;

	snprintf(sql, sizeof(sql),
		 "BEGIN; DROP TABLE IF EXISTS bench.rebuild_%s; CREATE TABLE bench.rebuild_%s AS "
		 "SELECT %s, count(*) AS orders, sum(amount) AS revenue FROM silver.orders GROUP "
		 "BY %s; COMMIT",
		 agg_key[k], agg_key[k], agg_key[k], agg_key[k]);
	announce(s, "rebuild of", agg_model[k]);
	t0 = units_mono_us();
	exec(s->w, sql);
	return units_mono_us() - t0;
}

/* Every aggregate must hold what the rebuild of its input gives. */
static void same_as_rebuild(struct side *s, int k)
{
	char sql[1024];
	const char *c = agg_key[k];
	int64_t diff;

	rebuild(s, k);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM (SELECT * FROM (SELECT %s, orders, revenue FROM %s EXCEPT "
		 "SELECT %s, orders, revenue FROM bench.rebuild_%s) AS a UNION ALL SELECT * FROM "
		 "(SELECT %s, orders, revenue FROM bench.rebuild_%s EXCEPT SELECT %s, orders, "
		 "revenue FROM %s) AS b) AS d",
		 c, agg_model[k], c, c, c, c, c, agg_model[k]);
	diff = qint(s->w, sql);
	if (diff) {
		fprintf(stderr, "ivm: %s: %s differs from its rebuild in %lld rows\n", s->name,
			agg_model[k], (long long)diff);
		exit(1);
	}
}

static double ms(int64_t us)
{
	return (double)us / 1000.0;
}

/* p-th percentile of n sorted values */
static int64_t pct(const int64_t *v, int64_t n, int p)
{
	int64_t i = (n * p + 99) / 100 - 1;

	return v[i < 0 ? 0 : i];
}

static const char *missed(bool ok)
{
	return ok ? "" : "  MISSED";
}

static void report(struct side *sql_side, struct side *run_side, int64_t **rebuild_us,
		   int64_t nrebuild, int64_t batches, int64_t batch, bool pg)
{
	for (int k = 0; k < NAGG; k++) {
		int64_t *a = sql_side->us[k], *b = run_side->us[k], *r = rebuild_us[k];
		double rb, a50, a95, b50, b95, x, want_x;
		double want_p50 = pg ? TARGET_P50_PG : TARGET_P50_DUCK;

		qsort(a, (size_t)batches, sizeof(*a), cmp64);
		qsort(b, (size_t)batches, sizeof(*b), cmp64);
		qsort(r, (size_t)nrebuild, sizeof(*r), cmp64);
		rb = ms(r[nrebuild / 2]);
		a50 = ms(pct(a, batches, 50));
		a95 = ms(pct(a, batches, 95));
		b50 = ms(pct(b, batches, 50));
		b95 = ms(pct(b, batches, 95));
		x = rb / a50;
		want_x = pg ? TARGET_X_PG
			    : agg_groups[k] <= 1000 ? TARGET_X_DUCK_SMALL : TARGET_X_DUCK_LARGE;
		printf("counted refresh, %lld groups, batches of %lld: the model's statements p50 "
		       "%.1f ms, p95 %.1f ms over %lld batches (target p50 <= %.0f ms)%s; rebuild "
		       "%.1f ms (median of %lld) = %.1fx the refresh (target >= %.0fx)%s\n",
		       (long long)agg_groups[k], (long long)batch, a50, a95, (long long)batches,
		       want_p50, missed(a50 <= want_p50), rb, (long long)nrebuild, x, want_x,
		       missed(x >= want_x));
		printf("counted refresh, %lld groups, batches of %lld, through the live runner: p50 "
		       "%.1f ms, p95 %.1f ms (target p50 <= %.0f ms, p95 <= %.0f ms)%s; %.1f ms over "
		       "the statements' p50\n",
		       (long long)agg_groups[k], (long long)batch, b50, b95, TARGET_RUNNER_P50,
		       TARGET_RUNNER_P95, missed(b50 <= TARGET_RUNNER_P50 && b95 <= TARGET_RUNNER_P95),
		       b50 - a50);
	}
}

#define CROSS_REBUILDS 3

/* The crossover: one batch of CROSS percent of the orders, each
 * aggregate's refresh on both copies against the median of rebuilds
 * right after it. */
static void crossover(struct side *sides[2], int64_t rows, int64_t from, int64_t n)
{
	int64_t since, rb[NAGG];

	since = published(sides[0]);
	for (int i = 0; i < 2; i++)
		apply_input(sides[i], rows, from, n);
	for (int k = 0; k < NAGG; k++) {
		int64_t r[CROSS_REBUILDS];

		sides[0]->cross_us[k] = statements(sides[0], agg_model[k], since, true);
		for (int i = 0; i < CROSS_REBUILDS; i++)
			r[i] = rebuild(sides[0], k);
		qsort(r, CROSS_REBUILDS, sizeof(*r), cmp64);
		rb[k] = r[CROSS_REBUILDS / 2];
		announce(sides[1], "refresh of", agg_model[k]);
		sides[1]->cross_us[k] = refresh(sides[1], agg_model[k]);
	}
	for (int k = 0; k < NAGG; k++) {
		int64_t worst = sides[0]->cross_us[k] > sides[1]->cross_us[k] ? sides[0]->cross_us[k]
									      : sides[1]->cross_us[k];

		printf("crossover, %lld groups, one batch of %lld events (%.0f%% of the orders): the "
		       "model's statements %.1f ms, through the live runner %.1f ms; rebuild %.1f ms "
		       "(median of %d) = %.2fx the rebuild (target <= 1.00x)%s\n",
		       (long long)agg_groups[k], (long long)n, 100.0 * (double)n / (double)rows,
		       ms(sides[0]->cross_us[k]), ms(sides[1]->cross_us[k]), ms(rb[k]), CROSS_REBUILDS,
		       (double)worst / (double)rb[k], missed(worst <= rb[k]));
	}
}

static void run(const char *dir_sql, const char *dir_runner, int64_t rows, int64_t batches,
		int64_t batch, int64_t nrebuild, int64_t cross)
{
	struct side s_sql = { 0 }, s_run = { 0 }, *sides[2] = { &s_sql, &s_run };
	int64_t *rebuild_us[NAGG], done = 0, every = batches / nrebuild, from;

	open_side(&s_sql, "statements", dir_sql);
	open_side(&s_run, "runner", dir_runner);
	for (int i = 0; i < 2; i++) {
		books_open(sides[i]);
		for (int k = 0; k < NAGG; k++)
			sides[i]->us[k] = calloc((size_t)batches + 1, sizeof(int64_t));
	}
	for (int k = 0; k < NAGG; k++)
		rebuild_us[k] = calloc((size_t)nrebuild + 1, sizeof(int64_t));
	/* batch 0 is the warm-up: the first refreshes read the catalog and
	 * the models' state, the first rebuild the whole input */
	for (int64_t b = 0; b <= batches; b++) {
		from = b * batch;
		for (int j = 0; j < 2; j++) {
			struct side *s = sides[(b + j) % 2];
			int64_t since = published(s);

			apply_input(s, rows, from, batch);
			for (int k = 0; k < NAGG; k++) {
				int64_t us;

				if (s == &s_sql) {
					us = statements(s, agg_model[k], since, false);
				} else {
					announce(s, "refresh of", agg_model[k]);
					us = refresh(s, agg_model[k]);
				}
				if (b)
					s->us[k][b - 1] = us;
			}
			if (s == &s_sql && b && (b - 1) % every == 0 && done < nrebuild) {
				for (int k = 0; k < NAGG; k++)
					rebuild_us[k][done] = rebuild(s, k);
				done++;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < NAGG; k++)
			same_as_rebuild(sides[i], k);
	report(&s_sql, &s_run, rebuild_us, done, batches, batch, is_pg(&s_sql));
	fflush(stdout);
	if (cross > 0) {
		crossover(sides, rows, (batches + 1) * batch, rows * cross / 100);
		for (int i = 0; i < 2; i++)
			for (int k = 0; k < NAGG; k++)
				same_as_rebuild(sides[i], k);
	}
	for (int i = 0; i < 2; i++) {
		books_close(sides[i]);
		for (int k = 0; k < NAGG; k++)
			free(sides[i]->us[k]);
		close_side(sides[i]);
	}
	for (int k = 0; k < NAGG; k++)
		free(rebuild_us[k]);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "init") == 0 && atoll(argv[3]) > 0) {
		init(argv[2], atoll(argv[3]));
	} else if (argc == 9 && strcmp(argv[1], "run") == 0 && atoll(argv[4]) > 0 &&
		   atoll(argv[5]) > 0 && atoll(argv[6]) > 0 && atoll(argv[7]) > 0 &&
		   atoll(argv[7]) <= atoll(argv[5]) && atoll(argv[8]) >= 0) {
		run(argv[2], argv[3], atoll(argv[4]), atoll(argv[5]), atoll(argv[6]), atoll(argv[7]),
		    atoll(argv[8]));
	} else {
		fprintf(stderr, "usage: ivm init DIR ROWS | run DIR_SQL DIR_RUNNER ROWS BATCHES BATCH "
				"REBUILDS CROSS_PERCENT\n");
		return 2;
	}
	return 0;
}
