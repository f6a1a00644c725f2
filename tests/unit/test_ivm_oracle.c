/*
 * An oracle for live models over change events, on DuckDB (a file) and on
 * the suite's PostgreSQL server (SLUICE_TEST_PG), in databases of this
 * file's own. A project lands seeded random change streams in
 * landing.events (updates that move keys between groups, deletes,
 * inserts, NULL keys and values, duplicates, replays and late events that
 * change events must ignore); silver.orders applies them (cdc_op and
 * cdc_seq, hard or soft deletes) and gold models read it: models sluice
 * maintains from their plain queries, of every class, and docs/live.md's
 * "recompute the groups that changed" pattern written by hand. After
 * every refresh each gold model must hold exactly the rows of its query
 * run from scratch (EXCEPT ALL, both ways), and its hidden groups no
 * negative count and no group of no rows (but the one of a model without
 * keys); the same events landed in other batch sizes must end in the
 * same tables. The pattern without its change log is wrong, and the
 * oracle must say so. SLUICE_SLOW=1 runs many more batches and prints a
 * summary line per test; SLUICE_ORACLE_ONLY='*_duckdb' (a pattern of the
 * tests' names) runs some, so that each warehouse's long run can take a
 * core of its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_rng.h"
#include "fixture_project_wh.h"
#include "fixture_pg.h"
#include "fixture_sql.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "exec/run.h"
#include "live/advance.h"
#include "live/batch.h"
#include "project/model.h"
#include "project/project.h"
#include "warehouse/wh.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_DATABASE "sluice_unit_ivm_oracle"

enum backend { ON_DUCKDB, ON_POSTGRES };

/* A test's warehouse, and the fixture of its run under way: teardown
 * frees it when a failure ends the test early, since an open connection
 * keeps the next run from dropping its database. */
struct slot {
	enum backend b;
	struct fx *f;
};

static int setup_on(void **state, enum backend b)
{
	struct slot *s = xcalloc(1, sizeof(*s));

	s->b = b;
	*state = s;
	return 0;
}

static int setup_duckdb(void **state)
{
	return setup_on(state, ON_DUCKDB);
}

static int setup_postgres(void **state)
{
	return setup_on(state, ON_POSTGRES);
}

static void slot_close(struct slot *s)
{
	if (s->f)
		fx_free(s->f);
	s->f = NULL;
}

static int teardown(void **state)
{
	slot_close(*state);
	free(*state);
	return 0;
}

static const char *backend_name(enum backend b)
{
	return b == ON_DUCKDB ? "duckdb" : "postgres";
}

static bool slow(void)
{
	const char *s = getenv("SLUICE_SLOW");

	return s && *s && strcmp(s, "0") != 0;
}

/* A new folder and an empty warehouse for a run, in place of the last
 * run's: a DuckDB file in the folder, or a PostgreSQL database named
 * after tag, made anew so that nothing an earlier run left is in the
 * way. */
static struct fx *slot_fresh(struct slot *s, const char *tag)
{
	struct fx *f;

	slot_close(s);
	f = s->f = fx_new("ivm-oracle");
	if (s->b == ON_DUCKDB) {
		if (wh_open_duckdb(arena_sprintf(f->a, "%s/warehouse.duckdb", f->root), false,
				   &f->w, &f->err))
			fail_msg("%s", f->err.msg);
		/* tables of a few rows: worker threads would only add wake-ups */
		exec(f->w, "SET threads = 1");
	} else {
		struct wh *admin = fixture_pg_open();
		const char *db = arena_sprintf(f->a, PG_DATABASE "_%s", tag);

		exec(admin, arena_sprintf(f->a, "DROP DATABASE IF EXISTS %s", db));
		exec(admin, arena_sprintf(f->a, "CREATE DATABASE %s", db));
		wh_close(admin);
		if (wh_open_postgres(arena_sprintf(f->a, "%s dbname=%s", fixture_pg_dsn(), db),
				     &f->w, &f->err))
			fail_msg("%s", f->err.msg);
	}
	return f;
}

/* ---- the change streams ---- */

static const char *const regions[] = { "north", "south", "east", "west" };
#define NREGIONS (sizeof(regions) / sizeof(regions[0]))

struct event {
	int64_t id, lsn;
	int region;    /* into regions; -1 for NULL */
	int64_t cents; /* the amount in cents; -1 for NULL */
	int qty;       /* -1 for NULL */
	char op;       /* 'c', 'u' or 'd' */
};

struct stream {
	struct event *ev;
	size_t n;
};

/* What the generator knows of a key: the newest lsn of its events, and
 * whether its newest event left it present. */
struct key {
	int64_t lsn;
	bool live;
};

struct gen {
	struct rng r;
	struct stream s;
	struct key *keys; /* by id, from 1 */
	int64_t nkeys, lsn;
};

static void values_random(struct gen *g, struct event *e)
{
	e->region = rng_below(&g->r, 6) == 0 ? -1 : (int)rng_below(&g->r, NREGIONS);
	e->cents = rng_below(&g->r, 10) == 0 ? -1 : (int64_t)rng_below(&g->r, 10000);
	e->qty = rng_below(&g->r, 7) == 0 ? -1 : (int)rng_below(&g->r, 6);
}

/* A delete carries its key alone, as a source database's does. */
static void values_null(struct event *e)
{
	e->region = -1;
	e->cents = -1;
	e->qty = -1;
}

/* Whether the stream already holds an event of id at lsn: two events of
 * one key at one lsn that differ would leave the winner to chance. */
static bool key_has_lsn(const struct gen *g, int64_t id, int64_t lsn)
{
	for (size_t i = 0; i < g->s.n; i++)
		if (g->s.ev[i].id == id && g->s.ev[i].lsn == lsn)
			return true;
	return false;
}

/* An event older than the newest of its key, which the model must
 * ignore; false when the key has no room below its newest lsn. */
static bool event_late(struct gen *g, struct event *e)
{
	int64_t id = 1 + (int64_t)rng_below(&g->r, (size_t)g->nkeys);
	int64_t newest = g->keys[id].lsn;
	int64_t below = newest - 1 < 20 ? newest - 1 : 20;

	if (below < 1)
		return false;
	e->id = id;
	e->lsn = newest - 1 - (int64_t)rng_below(&g->r, (size_t)below);
	if (key_has_lsn(g, id, e->lsn))
		return false;
	e->op = "cud"[rng_below(&g->r, 3)];
	if (e->op == 'd')
		values_null(e);
	else
		values_random(g, e);
	return true;
}

/* A key for an update or a delete: mostly a present one, sometimes any
 * (an update of a deleted key brings it back); 0 when there is none. */
static int64_t key_pick(struct gen *g)
{
	bool any = rng_below(&g->r, 10) == 0;

	for (int tries = 0; g->nkeys && tries < 8; tries++) {
		int64_t id = 1 + (int64_t)rng_below(&g->r, (size_t)g->nkeys);

		if (any || g->keys[id].live)
			return id;
	}
	return 0;
}

/* A change of op the source made: an insert of a new key, else a change
 * of a key key_pick gives (an insert when there is none). It shares the
 * lsn of the one before (one source transaction) now and then, when that
 * one was of another key. */
static void event_of(struct gen *g, struct event *e, char op)
{
	e->op = op;
	e->id = op == 'c' ? 0 : key_pick(g);
	if (!e->id) {
		e->op = 'c';
		e->id = ++g->nkeys;
	}
	if (e->op == 'd')
		values_null(e);
	else
		values_random(g, e);
	if (!g->lsn || rng_below(&g->r, 4) != 0 || g->keys[e->id].lsn == g->lsn)
		g->lsn++;
	e->lsn = g->lsn;
	g->keys[e->id].lsn = e->lsn;
	g->keys[e->id].live = e->op != 'd';
}

/* A change: 70% updates, 15% deletes, 15% inserts. */
static void event_new(struct gen *g, struct event *e)
{
	size_t pick = rng_below(&g->r, 100);

	event_of(g, e, pick < 70 ? 'u' : pick < 85 ? 'd' : 'c');
}

/* n events of the stream of seed: the first bulk of them inserts, then
 * new changes, and 5% each of exact copies of an earlier event (a
 * duplicate, or a replay once it has landed) and of late events. Free
 * with free(s.ev). */
static struct stream stream_make(uint64_t seed, size_t n, size_t bulk)
{
	struct gen g = { .r = { seed } };

	g.s.ev = xmalloc(n * sizeof(*g.s.ev));
	g.keys = xcalloc(n + 1, sizeof(*g.keys));
	while (g.s.n < n) {
		struct event *e = &g.s.ev[g.s.n];
		size_t pick = rng_below(&g.r, 100);

		if (g.s.n < bulk)
			event_of(&g, e, 'c');
		else if (pick < 5 && g.s.n)
			*e = g.s.ev[rng_below(&g.r, g.s.n)];
		else if (pick >= 10 || !g.nkeys || !event_late(&g, e))
			event_new(&g, e);
		g.s.n++;
	}
	free(g.keys);
	return g.s;
}

/* ---- the project ---- */

#define LANDING                                                                           \
	"CREATE SCHEMA landing;\n"                                                        \
	"CREATE TABLE landing.events (id BIGINT, region VARCHAR, amount DECIMAL(18,2), " \
	"qty INTEGER, op VARCHAR, lsn BIGINT, _sluice_seq BIGINT)"

#define SILVER(deletes)                                                                      \
	"@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id, " \
	"cdc_op=op, cdc_seq=lsn" deletes ",\n"                                               \
	"        incremental_filter=WHERE _sluice_seq > {watermark}\n"                       \
	"SELECT id, region, amount, qty, op, lsn, _sluice_seq FROM landing.events\n"

/* A gold model and what the oracle compares: check, what it reads of the
 * model, must equal query, run from scratch. */
struct gold {
	const char *name; /* gold.NAME */
	const char *model;
	const char *check;
	const char *query;
	bool soft; /* only over soft deletes: it reads _sluice_deleted */
	/* only on DuckDB, whose tests run on one thread: PostgreSQL sums
	 * floats in the order its parallel workers meet them, so that one
	 * query run twice may differ in the last digits */
	bool duckdb_only;
};

/* Recomputes the regions that changed, as docs/live.md writes it; its
 * key spells a NULL region out, since delete+insert matches keys with =.
 * A region that lost its last order stays, with 0 orders. */
#define RECOMPUTE(changed)                                                                     \
	"@config materialized=incremental, live=true, incremental_strategy=delete+insert, "    \
	"unique_key=grp\n"                                                                     \
	"WITH changed AS (" changed ")\n"                                                      \
	"SELECT coalesce(c.region, '-') AS grp, c.region, count(o.id) AS orders, "            \
	"count(o.qty) AS qtys, sum(o.amount) AS revenue, avg(o.qty) AS mean_qty\n"             \
	"FROM changed AS c LEFT JOIN silver.orders AS o ON o.region IS NOT DISTINCT FROM "    \
	"c.region\n"                                                                           \
	"GROUP BY c.region\n"
#define CHANGED_LOGGED                                                                   \
	"SELECT region FROM _sluice.changes__silver__orders WHERE _sluice_seq > {watermark} " \
	"UNION "
#define CHANGED_NEW "SELECT DISTINCT region FROM silver.orders WHERE _sluice_seq > {watermark}"
#define BY_REGION_CHECK                                                                    \
	"SELECT region, orders, qtys, revenue, mean_qty FROM gold.by_region WHERE orders > 0"
#define BY_REGION_QUERY                                                                    \
	"SELECT region, count(*) AS orders, count(qty) AS qtys, sum(amount) AS revenue, "    \
	"avg(qty) AS mean_qty FROM silver.orders GROUP BY region"

/* The landing table only appends: its new rows name the regions that
 * changed. */
#define LANDED                                                                                \
	"@config materialized=incremental, live=true, incremental_strategy=delete+insert, "   \
	"unique_key=grp\n"                                                                    \
	"WITH changed AS (SELECT DISTINCT region FROM landing.events WHERE _sluice_seq > "    \
	"{watermark})\n"                                                                      \
	"SELECT coalesce(c.region, '-') AS grp, c.region, count(*) AS events, "              \
	"sum(e.amount) AS amount, min(e.amount) AS least, max(e.amount) AS most, "           \
	"max(e.lsn) AS last_lsn\n"                                                            \
	"FROM changed AS c JOIN landing.events AS e ON e.region IS NOT DISTINCT FROM c.region " \
	"AND e._sluice_seq IS NOT NULL\n"                                                     \
	"GROUP BY c.region\n"

static const struct gold pattern[] = {
	{ "by_region", RECOMPUTE(CHANGED_LOGGED CHANGED_NEW), BY_REGION_CHECK, BY_REGION_QUERY },
	{ "landed", LANDED,
	  "SELECT region, events, amount, least, most, last_lsn FROM gold.landed",
	  "SELECT region, count(*) AS events, sum(amount) AS amount, min(amount) AS least, "
	  "max(amount) AS most, max(lsn) AS last_lsn FROM landing.events GROUP BY region" },
};

/* The pattern without its change log: the region an order moved out of,
 * or was deleted from, is never recomputed. */
static const struct gold without_log[] = {
	{ "by_region", RECOMPUTE(CHANGED_NEW), BY_REGION_CHECK, BY_REGION_QUERY },
};

/* Models sluice maintains from their plain queries, as the oracle reads
 * them: whole. */
#define MAINTAINED(name, sql, soft, duckdb_only)                                 \
	{ name, "@config materialized=incremental, live=true\n" sql "\n",           \
	  "SELECT * FROM gold." name, sql, soft, duckdb_only }
#define PLAIN(name, sql) MAINTAINED(name, sql, false, false)
#define PLAIN_SOFT(name, sql) MAINTAINED(name, sql, true, false)
#define PLAIN_DUCKDB(name, sql) MAINTAINED(name, sql, false, true)

/* One or more of each class: counted, regroup, mapped and full;
 * by_region first, which test_oracle_catches_a_bad_hidden_count takes
 * alone. */
static const struct gold plain[] = {
	/* counted */
	PLAIN("by_region", "SELECT region, count(*) AS orders, count(qty) AS qtys, sum(amount) AS "
			   "revenue, avg(qty) AS mean_qty, sum(amount) / count(*) AS per_order, "
			   "sum(amount * qty) AS value FROM silver.orders GROUP BY region"),
	PLAIN("by_region_qty", "SELECT region, qty, count(*) AS orders, sum(amount) AS revenue, "
			       "avg(amount) AS mean FROM silver.orders GROUP BY region, qty"),
	PLAIN("totals", "SELECT count(*) AS orders, count(amount) AS amounts, sum(amount) AS "
			"revenue, avg(amount) AS mean FROM silver.orders"),
	PLAIN("regions", "SELECT DISTINCT region FROM silver.orders"),
	PLAIN("parity", "SELECT qty % 2 AS parity, count(*) AS orders, sum(qty) AS qtys FROM "
			"silver.orders WHERE amount > 10 GROUP BY qty % 2"),
	/* sums of floats keep no hidden sums: their groups are computed again */
	PLAIN_DUCKDB("float_sums", "SELECT region, sum(CAST(amount AS DOUBLE) / 7) AS revenue, "
			    "avg(CAST(qty AS DOUBLE) / 3) AS mean FROM silver.orders GROUP BY region"),
	/* and without GROUP BY: its one group is the whole query */
	PLAIN_DUCKDB("float_totals", "SELECT count(*) AS orders, sum(CAST(amount AS DOUBLE) / 7) "
				     "AS revenue FROM silver.orders"),
	/* over the landing table, which only appends: MIN and MAX are counted */
	PLAIN("landed", "SELECT region, count(*) AS events, sum(amount) AS amount, min(amount) AS "
			"least, max(amount) AS most, max(lsn) AS last_lsn FROM landing.events "
			"GROUP BY region"),
	/* over a maintained model */
	PLAIN("chain", "SELECT count(*) AS regions, sum(orders) AS orders FROM gold.by_region"),
	/* regroup */
	PLAIN("qty_kinds", "SELECT region, count(DISTINCT qty) AS kinds FROM silver.orders GROUP "
			   "BY region"),
	PLAIN("busy", "SELECT region, count(*) AS orders FROM silver.orders GROUP BY region HAVING "
		      "count(*) > 1"),
	PLAIN("extremes", "SELECT region, max(amount) AS most, min(qty) AS least FROM "
			  "silver.orders GROUP BY region"),
	PLAIN("big_qty", "SELECT region, count(*) FILTER (WHERE qty > 2) AS big FROM silver.orders "
			 "GROUP BY region"),
	PLAIN("per_order", "SELECT id, max(amount) AS most, count(DISTINCT qty) AS kinds FROM "
			   "silver.orders GROUP BY id"),
	PLAIN("top", "SELECT max(amount) AS most, count(DISTINCT region) AS regions FROM "
		     "silver.orders"),
	/* mapped */
	PLAIN("large", "SELECT id, region, amount FROM silver.orders WHERE amount > 50"),
	PLAIN("deletes", "SELECT id, lsn FROM landing.events WHERE op = 'd'"),
	/* full */
	PLAIN("ranked", "SELECT id, region, amount, rank() OVER (PARTITION BY region ORDER BY "
			"amount DESC NULLS LAST, id) AS pos FROM silver.orders"),
	PLAIN("top3", "SELECT id, amount FROM silver.orders ORDER BY amount DESC NULLS LAST, id "
		      "LIMIT 3"),
	PLAIN_SOFT("live_by_region", "SELECT region, count(*) AS orders, sum(amount) AS revenue "
				     "FROM silver.orders WHERE NOT _sluice_deleted GROUP BY region"),
	PLAIN_SOFT("by_deleted", "SELECT _sluice_deleted, count(*) AS orders, max(amount) AS most "
				 "FROM silver.orders GROUP BY _sluice_deleted"),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the oracle ---- */

/* Rows shown of each side of a mismatch. */
#define SHOWN 5

struct oracle {
	struct fx *f;
	struct arena *batch; /* a batch's scratch, reset after it */
	struct gold *gold;   /* those of the variant */
	/* by gold model: its hidden groups with bad counts, NULL without
	 * hidden groups (bad_sql) */
	const char **bad;
	size_t ngold;
	const char *deletes; /* "hard" or "soft" */
	uint64_t seed;
	size_t batches, refreshes, mismatches;
	/* the first problem of each gold model (the last slot: of any other
	 * model); all are counted */
	struct buf report;
	bool *reported;
};

/* A problem of gold model i of the run (o->ngold: of another model):
 * counted, and reported when it is the model's first; returns whether it
 * was. */
static bool problem(struct oracle *o, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool problem(struct oracle *o, size_t i, const char *fmt, ...)
{
	va_list ap;

	o->mismatches++;
	if (o->reported[i])
		return false;
	o->reported[i] = true;
	buf_addf(&o->report, "seed %" PRIu64 " (%s deletes) batch %zu: ", o->seed, o->deletes,
		 o->batches);
	va_start(ap, fmt);
	buf_vaddf(&o->report, fmt, ap);
	va_end(ap);
	buf_adds(&o->report, "\n");
	return true;
}

/* The index of the gold model m in o, o->ngold when it is none. */
static size_t gold_index(const struct oracle *o, const struct model *m)
{
	size_t i = 0;

	while (i < o->ngold && !(strcmp(m->schema, "gold") == 0 &&
				 strcmp(m->name, o->gold[i].name) == 0))
		i++;
	return i;
}

/* One batch run of the whole project, as sluice run makes it: a model
 * that does not end ok or up to date is a problem of the run (its table
 * stays as it was, which the checks then find too). */
static void refresh(struct oracle *o)
{
	struct run_opts opts = { .env = "" };
	struct fx *f = o->f;
	struct run_report rep;
	const char **rel;
	size_t n;

	if (wh_relation_list(f->w, o->batch, &rel, &n, &f->err))
		fail_msg("%s", f->err.msg);
	if (live_batch_run(o->batch, f->p, f->w, rel, n, &opts, &rep, &f->err))
		fail_msg("seed %" PRIu64 " batch %zu: live_batch_run: %s", o->seed, o->batches,
			 f->err.msg);
	for (size_t i = 0; i < rep.n; i++)
		if (rep.items[i].status != RUN_OK && rep.items[i].status != RUN_UP_TO_DATE)
			problem(o, gold_index(o, rep.items[i].m), "%s: %s (%s)",
				rep.items[i].m->fqn,
				run_status_name(rep.items[i].status),
				rep.items[i].message ? rep.items[i].message : "");
	run_report_free(&rep);
	o->refreshes++;
}

/* The rows of x that y lacks, counting duplicates. */
static const char *except_all(struct arena *a, const char *x, const char *y)
{
	return arena_sprintf(a, "SELECT * FROM (%s) AS x EXCEPT ALL SELECT * FROM (%s) AS y", x,
			     y);
}

/* Up to SHOWN rows of sql, each "  label (v, v, ...)" on a line of out. */
static void rows_show(struct oracle *o, const char *sql, const char *label, struct buf *out)
{
	struct wh_result *r;

	if (wh_query(o->f->w, arena_sprintf(o->batch, "%s LIMIT %d", sql, SHOWN), &r, &o->f->err))
		fail_msg("%s\n%s", o->f->err.msg, sql);
	for (size_t i = 0; i < wh_result_nrows(r); i++) {
		buf_addf(out, "  %s (", label);
		for (size_t c = 0; c < wh_result_ncols(r); c++) {
			const char *v = wh_result_value(r, i, c);

			buf_addf(out, "%s%s", c ? ", " : "", v ? v : "NULL");
		}
		buf_adds(out, ")\n");
	}
	wh_result_free(r);
}

/* The groups of g's hidden state with a bad count, as a query: a
 * negative one in a column of _sluice.groups__gold__NAME whose name ends
 * in _n, or a group of no rows at all (_sluice_n 0), which should have
 * been dropped, unless the model has no keys (its one group is there
 * with no rows too, as the query's one row is); NULL when the model
 * keeps no such table. Asked once, after the first build made it. */
static const char *bad_sql(struct oracle *o, const struct gold *g)
{
	const char *table = arena_sprintf(o->f->a, "groups__gold__%s", g->name);
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	const char *s = NULL;
	bool keyed = false;

	if (wh_query(o->f->w,
		     arena_sprintf(o->batch,
				   "SELECT column_name FROM information_schema.columns WHERE "
				   "table_schema = '_sluice' AND table_name = '%s'",
				   table),
		     &r, &o->f->err))
		fail_msg("%s", o->f->err.msg);
	for (size_t i = 0; i < wh_result_nrows(r); i++)
		keyed = keyed || strncmp(wh_result_value(r, i, 0), "_sluice_", 8) != 0;
	for (size_t i = 0; i < wh_result_nrows(r); i++) {
		const char *col = wh_result_value(r, i, 0);
		size_t len = strlen(col);

		if (len < 2 || strcmp(col + len - 2, "_n") != 0)
			continue;
		buf_addf(&sql, "%s\"%s\" %s 0", sql.len ? " OR " : "", col,
			 keyed && strcmp(col, "_sluice_n") == 0 ? "<=" : "<");
	}
	if (sql.len)
		s = arena_sprintf(o->f->a, "SELECT * FROM _sluice.%s WHERE %s", table, sql.buf);
	wh_result_free(r);
	buf_release(&sql);
	return s;
}

/* A mismatch of g, with n the rows it has that its query does not, the
 * rows it lacks and its groups with bad counts: counted, and the first few go
 * to the report with the rows that differ. */
static void mismatch_report(struct oracle *o, size_t i, const int64_t n[3])
{
	const struct gold *g = &o->gold[i];

	if (!problem(o, i,
		     "gold.%s has %" PRId64 " rows its query does not, lacks %" PRId64
		     " of its rows, %" PRId64 " groups with a bad count",
		     g->name, n[0], n[1], n[2]))
		return;
	rows_show(o, except_all(o->batch, g->check, g->query), "model only:", &o->report);
	rows_show(o, except_all(o->batch, g->query, g->check), "query only:", &o->report);
	if (n[2])
		rows_show(o, o->bad[i], "bad group:", &o->report);
}

/* Checks every gold model against its query, in one statement: for each
 * the rows it has that its query does not, those it lacks (EXCEPT ALL
 * both ways) and its groups with bad counts, which must all be 0. */
static void oracle_check(struct oracle *o)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;

	buf_adds(&sql, "SELECT ");
	for (size_t i = 0; i < o->ngold; i++) {
		const struct gold *g = &o->gold[i];

		buf_addf(&sql, "%s(SELECT count(*) FROM (%s) AS d), ", i ? ", " : "",
			 except_all(o->batch, g->check, g->query));
		buf_addf(&sql, "(SELECT count(*) FROM (%s) AS d), ",
			 except_all(o->batch, g->query, g->check));
		if (o->bad[i])
			buf_addf(&sql, "(SELECT count(*) FROM (%s) AS b)", o->bad[i]);
		else
			buf_adds(&sql, "0");
	}
	if (wh_query(o->f->w, sql.buf, &r, &o->f->err))
		fail_msg("%s\n%s", o->f->err.msg, sql.buf);
	for (size_t i = 0; i < o->ngold; i++) {
		int64_t n[3];

		for (size_t j = 0; j < 3; j++)
			n[j] = strtoll(wh_result_value(r, 0, 3 * i + j), NULL, 10);
		if (n[0] || n[1] || n[2])
			mismatch_report(o, i, n);
	}
	wh_result_free(r);
	buf_release(&sql);
}

/* Lands events [from, to) in one batch and announces them. */
static void land(struct oracle *o, const struct stream *s, size_t from, size_t to)
{
	struct buf sql = BUF_INIT;

	buf_adds(&sql, "INSERT INTO landing.events (id, region, amount, qty, op, lsn) VALUES ");
	for (size_t i = from; i < to; i++) {
		const struct event *e = &s->ev[i];

		buf_addf(&sql, "%s(%" PRId64 ", ", i > from ? ", " : "", e->id);
		if (e->region < 0)
			buf_adds(&sql, "NULL, ");
		else
			buf_addf(&sql, "'%s', ", regions[e->region]);
		if (e->cents < 0)
			buf_adds(&sql, "NULL, ");
		else
			buf_addf(&sql, "%" PRId64 ".%02" PRId64 ", ", e->cents / 100, e->cents % 100);
		if (e->qty < 0)
			buf_adds(&sql, "NULL, ");
		else
			buf_addf(&sql, "%d, ", e->qty);
		buf_addf(&sql, "'%c', %" PRId64 ")", e->op, e->lsn);
	}
	exec(o->f->w, sql.buf);
	buf_release(&sql);
	if (live_advance_source(o->f->w, "landing.events", NULL, &o->f->err))
		fail_msg("advance: %s", o->f->err.msg);
}

/* A project of silver.orders (hard or soft deletes) and the gold models,
 * built once over an empty landing table. */
static void oracle_open(struct oracle *o, struct fx *f, bool soft, const struct gold *gold,
			size_t ngold, uint64_t seed)
{
	o->f = f;
	o->batch = arena_new(f->a);
	o->deletes = soft ? "soft" : "hard";
	o->seed = seed;
	/* random batches move every profile: the oracle judges the rows */
	fixture_put(f->root, "sluice.yml", "name: oracle\nanomaly: {level: off}\n");
	fixture_put(f->root, "models/silver/orders.sql",
		    soft ? SILVER(", cdc_deletes=soft") : SILVER(""));
	o->gold = arena_alloc(f->a, ngold * sizeof(*gold));
	for (size_t i = 0; i < ngold; i++) {
		if ((gold[i].soft && !soft) || (gold[i].duckdb_only && wh_shared(f->w)))
			continue;
		o->gold[o->ngold++] = gold[i];
		fixture_put(f->root, arena_sprintf(f->a, "models/gold/%s.sql", gold[i].name),
			    gold[i].model);
	}
	o->reported = arena_alloc(f->a, (o->ngold + 1) * sizeof(*o->reported));
	exec(f->w, LANDING);
	f->p = fixture_load_valid(f->a, f->root);
	refresh(o);
	o->bad = arena_alloc(f->a, o->ngold * sizeof(*o->bad));
	for (size_t i = 0; i < o->ngold; i++)
		o->bad[i] = bad_sql(o, &o->gold[i]);
	arena_reset(o->batch);
}

/* Lands s in batches, the first of first events when that is not 0,
 * the others of 1 to most (their sizes drawn from split), refreshes after
 * each and checks every gold model. */
static void oracle_feed(struct oracle *o, const struct stream *s, size_t first, size_t most,
			struct rng *split)
{
	for (size_t at = 0; at < s->n;) {
		size_t to = at + (at == 0 && first ? first : 1 + rng_below(split, most));

		if (to > s->n)
			to = s->n;
		o->batches++;
		land(o, s, at, to);
		refresh(o);
		oracle_check(o);
		arena_reset(o->batch);
		at = to;
	}
}

/* ---- runs ---- */

static const uint64_t seeds[] = { 1, 2, 3, 20261207, 0x5eed, 77, 4242, 9001 };

/* Events of one stream, the seeds run, batches of up to how many events;
 * the same for the runs that compare splits, whose batches of one event
 * each make them the slow part. */
#define EVENTS (slow() ? 560 : 48)
#define SEEDS (slow() ? N(seeds) : 1)
#define MOST 8
#define SPLIT_EVENTS (slow() ? 100 : 12)
#define SPLIT_SEEDS (slow() ? 4 : 1)
#define SPLIT_MOST 12
/* Orders of one batch that passes the crossover of regroup refreshes
 * (more than 1000 rows touched, and 5% of the model), which the whole
 * query applies instead. */
#define BULK 1200

struct tally {
	size_t batches, refreshes, mismatches;
	struct buf report;
};

/* Adds what a run's oracle found to t, and releases its report. */
static void tally_add(struct tally *t, struct oracle *o)
{
	t->batches += o->batches;
	t->refreshes += o->refreshes;
	t->mismatches += o->mismatches;
	buf_adds(&t->report, o->report.buf);
	buf_release(&o->report);
}

/* Feeds the stream of seed, bulk inserts in one batch first when bulk is
 * not 0, then EVENTS events in batches of up to MOST, to a new project of
 * gold on a fresh warehouse, and adds what the oracle found to t. */
static void oracle_once(struct slot *slot, const struct gold *gold, size_t ngold, bool soft,
			uint64_t seed, size_t bulk, struct tally *t)
{
	struct fx *f = slot_fresh(slot, "run");
	struct stream s = stream_make(seed, bulk + EVENTS, bulk);
	struct rng split = { seed ^ 0xba7c4e5ULL };
	struct oracle o = { .report = BUF_INIT };

	oracle_open(&o, f, soft, gold, ngold, seed);
	oracle_feed(&o, &s, bulk, MOST, &split);
	tally_add(t, &o);
	free(s.ev);
	slot_close(slot);
}

/* Prints the summary line (SLUICE_SLOW=1), and fails the test with the
 * report when the oracle found a mismatch: on stderr, since cmocka cuts
 * long messages short. Releases the report. */
static void tally_end(enum backend b, const char *what, struct tally *t)
{
	if (slow())
		printf("ivm oracle (%s, %s): %zu batches, %zu refreshes, %zu mismatches\n",
		       backend_name(b), what, t->batches, t->refreshes, t->mismatches);
	if (t->mismatches) {
		fputs(t->report.buf, stderr);
		buf_release(&t->report);
		fail_msg("%zu mismatches in %zu batches (%s, %s), the first of each run above",
			 t->mismatches, t->batches, backend_name(b), what);
	}
	buf_release(&t->report);
}

/* Every model sluice maintains from its plain query, over hard and soft
 * deletes, equals its query after every refresh. */
static void test_maintained_models_match_their_queries(void **state)
{
	struct slot *slot = *state;
	struct tally t = { .report = BUF_INIT };

	for (size_t i = 0; i < SEEDS; i++)
		for (int soft = 0; soft < 2; soft++)
			oracle_once(slot, plain, N(plain), soft, seeds[i], 0, &t);
	tally_end(slot->b, "maintained", &t);
}

/* The same after a first batch past the crossover, applied whole, and
 * the small ones after it, regrouped again (over hard deletes; soft ones
 * too with SLUICE_SLOW=1). */
static void test_maintained_models_past_the_crossover(void **state)
{
	struct slot *slot = *state;
	struct tally t = { .report = BUF_INIT };

	for (int soft = 0; soft < (slow() ? 2 : 1); soft++)
		oracle_once(slot, plain, N(plain), soft, seeds[1], BULK, &t);
	tally_end(slot->b, "crossover", &t);
}

/* The pattern of docs/live.md, over hard and soft deletes, equals its
 * query after every refresh. */
static void test_pattern_matches_its_query(void **state)
{
	struct slot *slot = *state;
	struct tally t = { .report = BUF_INIT };

	for (size_t i = 0; i < SEEDS; i++)
		for (int soft = 0; soft < 2; soft++)
			oracle_once(slot, pattern, N(pattern), soft, seeds[i], 0, &t);
	tally_end(slot->b, "pattern", &t);
}

/* The oracle itself can fail: the pattern without the change log misses
 * the regions orders move out of. */
static void test_oracle_catches_a_model_without_the_log(void **state)
{
	struct slot *slot = *state;
	struct tally t = { .report = BUF_INIT };

	for (int soft = 0; soft < 2; soft++) {
		size_t before = t.mismatches;

		oracle_once(slot, without_log, N(without_log), soft, seeds[0], 0, &t);
		if (t.mismatches == before)
			fail_msg("the oracle found nothing wrong with a model that ignores the "
				 "change log (%s deletes, %zu batches)",
				 soft ? "soft" : "hard", t.batches);
	}
	assert_non_null(strstr(t.report.buf, "gold.by_region has"));
	buf_release(&t.report);
}

/* And it reads the hidden groups: a group of no rows left in them is
 * reported, with the group. */
static void test_oracle_catches_a_bad_hidden_count(void **state)
{
	struct slot *slot = *state;
	struct fx *f = slot_fresh(slot, "run");
	struct stream s = stream_make(seeds[0], 16, 0);
	struct rng split = { seeds[0] };
	struct oracle o = { .report = BUF_INIT };

	/* gold.by_region alone: a counted model, with hidden groups */
	oracle_open(&o, f, false, plain, 1, seeds[0]);
	oracle_feed(&o, &s, 0, MOST, &split);
	assert_int_equal(o.mismatches, 0);
	exec(f->w, "UPDATE _sluice.groups__gold__by_region SET _sluice_n = 0");
	oracle_check(&o);
	assert_true(o.mismatches > 0);
	assert_non_null(strstr(o.report.buf, "bad group:"));
	buf_release(&o.report);
	free(s.ev);
	slot_close(slot);
}

/* ---- batch splits ---- */

static int line_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* A value as the splits compare it: a number with a fraction to 12
 * significant digits. The split decides the order an input's rows are
 * stored in, and a sum of floats taken in another order may differ in
 * its last digits (a query from scratch over each table would too). */
static const char *comparable(struct arena *a, const char *v)
{
	char *end;
	double d;

	if (!v || !strpbrk(v, ".eE"))
		return v ? v : "NULL";
	d = strtod(v, &end);
	return *end ? v : arena_sprintf(a, "%.12g", d);
}

/* The rows of sql as text, a line each, sorted, into a; columns named
 * _sluice_seq are left out, since they hold the landing's sequence, which
 * the split decides. */
static const char *rows_dump(struct wh *w, struct arena *a, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;
	struct buf out = BUF_INIT, line = BUF_INIT;
	struct wh_result *r;
	char **lines;
	size_t n;
	const char *s;

	if (wh_query(w, sql, &r, &err))
		fail_msg("%s\n%s", err.msg, sql);
	n = wh_result_nrows(r);
	lines = xcalloc(n ? n : 1, sizeof(*lines));
	for (size_t i = 0; i < n; i++) {
		buf_reset(&line);
		for (size_t c = 0; c < wh_result_ncols(r); c++) {
			const char *v = wh_result_value(r, i, c);

			if (strcmp(wh_result_colname(r, c), "_sluice_seq") == 0)
				continue;
			buf_addf(&line, "%s|", comparable(a, v));
		}
		lines[i] = xstrdup(line.buf);
	}
	wh_result_free(r);
	qsort(lines, n, sizeof(*lines), line_cmp);
	for (size_t i = 0; i < n; i++) {
		buf_addf(&out, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	s = arena_strdup(a, out.buf);
	buf_release(&out);
	buf_release(&line);
	return s;
}

/* The tables a run ends in, by name, as rows_dump gives them. */
struct dump {
	const char **names, **rows;
	size_t n;
};

/* silver.orders, then each gold model as the oracle reads it. */
static struct dump tables_dump(struct oracle *o, struct arena *a)
{
	struct dump d = { .n = o->ngold + 1 };

	d.names = arena_alloc(a, d.n * sizeof(*d.names));
	d.rows = arena_alloc(a, d.n * sizeof(*d.rows));
	d.names[0] = "silver.orders";
	d.rows[0] = rows_dump(o->f->w, a, "SELECT * FROM silver.orders");
	for (size_t i = 1; i < d.n; i++) {
		d.names[i] = arena_sprintf(a, "gold.%s", o->gold[i - 1].name);
		d.rows[i] = rows_dump(o->f->w, a, o->gold[i - 1].check);
	}
	return d;
}

/* The first line where x and y differ, "(end)" past the last. */
static void first_difference(struct arena *a, const char *x, const char *y, const char **dx,
			     const char **dy)
{
	for (;;) {
		size_t nx = strcspn(x, "\n"), ny = strcspn(y, "\n");

		if (!*x || !*y || nx != ny || strncmp(x, y, nx) != 0)
			break;
		x += nx + 1;
		y += ny + 1;
	}
	*dx = *x ? arena_strndup(a, x, strcspn(x, "\n")) : "(end)";
	*dy = *y ? arena_strndup(a, y, strcspn(y, "\n")) : "(end)";
}

/* The stream of seed landed one event a batch, and in batches of up to
 * most events: the runs must end in the same tables. */
static void splits_compare(struct slot *slot, const struct gold *gold, size_t ngold, bool soft,
			   uint64_t seed, size_t most, struct tally *t)
{
	struct arena *a = arena_new(NULL);
	struct stream s = stream_make(seed, SPLIT_EVENTS, 0);
	struct dump dumps[2];
	size_t sizes[2] = { 1, most };

	for (int run = 0; run < 2; run++) {
		struct fx *f = slot_fresh(slot, run ? "split_b" : "split_a");
		struct rng split = { seed + (uint64_t)run };
		struct oracle o = { .report = BUF_INIT };

		oracle_open(&o, f, soft, gold, ngold, seed);
		oracle_feed(&o, &s, 0, sizes[run], &split);
		dumps[run] = tables_dump(&o, a);
		tally_add(t, &o);
		slot_close(slot);
	}
	for (size_t i = 0; i < dumps[0].n; i++) {
		const char *x, *y;

		if (strcmp(dumps[0].rows[i], dumps[1].rows[i]) == 0)
			continue;
		first_difference(a, dumps[0].rows[i], dumps[1].rows[i], &x, &y);
		fail_msg("seed %" PRIu64 " (%s deletes): %s differs between one event a batch "
			 "and batches of up to %zu: first %s against %s",
			 seed, soft ? "soft" : "hard", dumps[0].names[i], most, x, y);
	}
	free(s.ev);
	arena_free(a);
}

static void test_batch_splits_agree(void **state)
{
	struct slot *slot = *state;
	struct tally t = { .report = BUF_INIT };

	for (size_t i = 0; i < SPLIT_SEEDS; i++)
		for (int soft = 0; soft < 2; soft++)
			splits_compare(slot, plain, N(plain), soft, seeds[i], SPLIT_MOST, &t);
	tally_end(slot->b, "splits", &t);
}

int main(void)
{
#define ON(name, wh) { #name "_" #wh, test_##name, setup_##wh, teardown, NULL }
#define T(name) ON(name, duckdb), ON(name, postgres)
	const struct CMUnitTest tests[] = {
		T(maintained_models_match_their_queries),
		T(maintained_models_past_the_crossover),
		T(pattern_matches_its_query),
		T(oracle_catches_a_model_without_the_log),
		T(oracle_catches_a_bad_hidden_count),
		T(batch_splits_agree),
	};
#undef T
#undef ON
	const char *only = getenv("SLUICE_ORACLE_ONLY");

	if (only && *only)
		cmocka_set_test_filter(only);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
