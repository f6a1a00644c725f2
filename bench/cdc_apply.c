/*
 * Benchmark: change events applied to a large merge model. A live CDC model
 * (merge on id, hard deletes) starts with ROWS rows; EVENTS change events
 * (70% updates, 20% inserts, 10% deletes, in lsn order) are then applied in
 * batches of BATCH, each batch landed, announced and refreshed by the live
 * runner, as `sluice live` does. Beside it, on copies of the same
 * warehouse, the same batches go through the model's statements alone
 * (materialize_write, without the run's bookkeeping) and through
 * hand-written applies over the DuckDB C API, the comparisons: a DELETE +
 * INSERT (the fastest plain SQL for this on DuckDB) and, when MERGE_DB is
 * given, a MERGE INTO.
 *
 *   cdc_apply init PROJECT_DIR ROWS EVENTS
 *       builds PROJECT_DIR/warehouse.duckdb: the model built from ROWS insert
 *       events, and the change events waiting in bench.changes, numbered
 *   cdc_apply run PROJECT_DIR BATCH MAT_DB RAW_DB [MERGE_DB]
 *       applies the events in batches of BATCH on the copies in turn;
 *       prints the rates
 *   cdc_apply digest DBFILE
 *       prints a fingerprint of the model's rows, to compare the sides
 */
#include "exec/materialize.h"
#include "exec/run.h"
#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "live/advance.h"
#include "live/batch.h"
#include "live/profile.h"
#include "live/runner.h"
#include "project/project.h"
#include "warehouse/sqlparse.h"
#include "warehouse/wh.h"

#include "bench_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLUMNS "id, account, amount, status, op, lsn"

static void run_all(struct arena *a, struct project *p, struct wh *w, bool full)
{
	struct sl_err err = SL_ERR_INIT;
	struct run_opts opts = { .env = "", .full_refresh = full };
	struct run_report rep;
	const char **rel;
	size_t nrel;

	if (wh_relation_list(w, a, &rel, &nrel, &err) ||
	    live_batch_run(a, p, w, rel, nrel, &opts, &rep, &err))
		die(&err);
	if (rep.failed) {
		fprintf(stderr, "cdc_apply: the build failed: %s\n", rep.items[0].message);
		exit(1);
	}
	run_report_free(&rep);
}

/* The model from ROWS inserts, then the change events, numbered n in lsn
 * order so that any batch size takes them in ranges of n: updates and
 * deletes of random existing ids, inserts of new ones. */
static void init(const char *dir, int64_t rows, int64_t events)
{
	struct arena *a = arena_new(NULL);
	struct sqlparse *parser;
	struct wh *w;
	struct project *p = load(a, dir, &parser, &w);
	struct sl_err err = SL_ERR_INIT;
	char sql[2048];

	run_all(a, p, w, false);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO landing.changes (" COLUMNS ") SELECT i, i %% 100000, i %% 1000, 'new', "
		 "'c', i + 1 FROM range(%lld) t(i)",
		 (long long)rows);
	exec(w, sql);
	if (live_advance_source(w, "landing.changes", NULL, &err))
		die(&err);
	run_all(a, p, w, true);
	snprintf(sql, sizeof(sql),
		 "CREATE SCHEMA bench;\n"
		 "CREATE TABLE bench.changes AS SELECT i AS n, CASE WHEN k < 7 THEN "
		 "CAST(hash(i * 31 + 7) %% %lld AS BIGINT) WHEN k < 9 THEN %lld + i ELSE "
		 "CAST(hash(i * 17 + 3) %% %lld AS BIGINT) END AS id, i %% 100000 AS account, "
		 "i %% 997 AS amount, CASE WHEN k < 7 THEN 'paid' ELSE 'new' END AS status, "
		 "CASE WHEN k < 7 THEN 'u' WHEN k < 9 THEN 'c' ELSE 'd' END AS op, %lld + 1 + i AS "
		 "lsn FROM (SELECT i, hash(i) %% 10 AS k FROM range(%lld) t(i)) ORDER BY i;\n"
		 "CHECKPOINT",
		 (long long)rows, (long long)rows, (long long)rows, (long long)rows,
		 (long long)events);
	exec(w, sql);
	printf("silver.accounts: %lld rows; bench.changes: %lld events\n",
	       (long long)qint(w, "SELECT count(*) FROM silver.accounts"),
	       (long long)qint(w, "SELECT count(*) FROM bench.changes"));
	wh_close(w);
	sqlparse_close(parser);
	arena_free(a);
}

struct side {
	const char *name;
	struct wh *w;
	int64_t nb;      /* batches applied */
	int64_t events;  /* events applied */
	int64_t *us;     /* per batch: the apply */
	int64_t other;   /* landing and advances, not counted */
	int64_t applied; /* the sequence the side has applied up to */
};

static void side_report(struct side *s)
{
	int64_t total = 0, nb = s->nb;

	for (int64_t b = 0; b < nb; b++)
		total += s->us[b];
	qsort(s->us, (size_t)nb, sizeof(*s->us), cmp64);
	printf("%s: %lld events in %lld batch%s: apply %.2f s (per batch p50 %.1f ms, p99 %.1f ms) "
	       "= %.0f events/s; landing and advances %.2f s\n",
	       s->name, (long long)s->events, (long long)nb, nb == 1 ? "" : "es", total / 1e6,
	       s->us[nb / 2] / 1e3, s->us[nb * 99 / 100] / 1e3, s->events / (total / 1e6),
	       s->other / 1e6);
}

/* The landing sequence of batch b on the hand-written sides. */
#define RAW_SEQ(b) ((long long)(b) + 2)

/* Lands the events numbered [from, to) in the side's warehouse, the same
 * landing table on every side: announced through sluice (and to the runner
 * r, which keeps the watermarks in memory), or for the hand-written sides
 * with the batch's sequence. Then a checkpoint, so that no apply's commit
 * pays for checkpointing what the landing wrote, which sluice's announce
 * (its own UPDATE of the sequence) makes larger than the others'. */
static void land(struct side *s, int64_t from, int64_t to, bool announce, struct live_runner *r)
{
	struct sl_err err = SL_ERR_INIT;
	struct live_advance adv;
	int64_t t0 = units_mono_us();
	char sql[512];

	if (announce) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO landing.changes (" COLUMNS ") SELECT " COLUMNS
			 " FROM bench.changes WHERE n >= %lld AND n < %lld ORDER BY lsn",
			 (long long)from, (long long)to);
		exec(s->w, sql);
		if (live_advance_source(s->w, "landing.changes", &adv, &err))
			die(&err);
		if (r)
			live_runner_advanced(r, "landing.changes", &adv);
	} else {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO landing.changes (" COLUMNS ", _sluice_seq) SELECT " COLUMNS
			 ", %lld FROM bench.changes WHERE n >= %lld AND n < %lld ORDER BY lsn",
			 RAW_SEQ(s->nb), (long long)from, (long long)to);
		exec(s->w, sql);
	}
	exec(s->w, "CHECKPOINT");
	s->nb++;
	s->events += to - from;
	s->other += units_mono_us() - t0;
}

/* The live runner's refresh: the real path of a live CDC model. */
static void apply_runner(struct side *s, struct live_runner *r, int64_t b)
{
	struct sl_err err = SL_ERR_INIT;
	struct live_cycle c;
	int64_t t0 = units_mono_us();

	if (live_runner_cycle(r, s->w, &c, &err))
		die(&err);
	s->us[b] = units_mono_us() - t0;
	if (c.refreshed != 1 || c.failed) {
		fprintf(stderr, "cdc_apply: batch %lld: %zu refreshed, %zu failed\n", (long long)b,
			c.refreshed, c.failed);
		exit(1);
	}
}

/* The model's statements alone, without the run's bookkeeping: what
 * src/exec/cdc.c costs. */
static void apply_materialize(struct side *s, const struct model *m, int64_t b)
{
	struct sl_err err = SL_ERR_INIT;
	struct mat_plan plan = { .run_ts = "2026-01-01 00:00:00.000", .old_kind_known = true,
				 .old_kind = "table" };
	struct mat_outcome out;
	int64_t t0 = units_mono_us(), seq;

	seq = qint(s->w, "SELECT max(_sluice_seq) FROM landing.changes");
	plan.ctx.env = "";
	plan.ctx.watermark = s->applied;
	if (wh_begin(s->w, &err) || materialize_write(s->w, m, &plan, &out, &err) ||
	    materialize_publish(s->w, m, &out, &err) || wh_commit(s->w, &err))
		die(&err);
	s->applied = seq;
	s->us[b] = units_mono_us() - t0;
}

/* The same batch by hand, in one transaction: the latest event per key,
 * read from the landing table, then either its row deleted and, unless it
 * is a delete, inserted again; or one MERGE. */
static void apply_raw(struct side *s, int64_t b, bool merge)
{
	int64_t t0 = units_mono_us();
	char latest[256];

	snprintf(latest, sizeof(latest),
		 "BEGIN;\nCREATE OR REPLACE TEMP TABLE latest AS SELECT " COLUMNS
		 ", _sluice_seq FROM landing.changes "
		 "WHERE _sluice_seq = %lld QUALIFY row_number() OVER (PARTITION BY id ORDER BY lsn "
		 "DESC) = 1;\n",
		 RAW_SEQ(b));
	exec(s->w, latest);
	if (merge)
		exec(s->w, "MERGE INTO silver.accounts AS t USING latest AS s ON t.id = s.id\n"
			   "WHEN MATCHED AND s.op = 'd' THEN DELETE\n"
			   "WHEN MATCHED THEN UPDATE SET account = s.account, amount = s.amount, "
			   "status = s.status, op = s.op, lsn = s.lsn\n"
			   "WHEN NOT MATCHED AND s.op <> 'd' THEN INSERT (" COLUMNS
			   ") VALUES (s.id, s.account, s.amount, s.status, s.op, s.lsn);\n"
			   "COMMIT");
	else
		exec(s->w, "DELETE FROM silver.accounts USING latest WHERE silver.accounts.id = "
			   "latest.id;\n"
			   "INSERT INTO silver.accounts BY NAME SELECT * FROM latest WHERE op <> 'd';\n"
			   "COMMIT");
	s->us[b] = units_mono_us() - t0;
}

/* The model's rows, as "N rows, digest D". */
static void fingerprint(struct wh *w, char *out, size_t len)
{
	struct sl_err err = SL_ERR_INIT;
	struct wh_result *r;

	if (wh_query(w, "SELECT count(*), sum(hash(" COLUMNS ")) FROM silver.accounts", &r, &err))
		die(&err);
	snprintf(out, len, "%s rows, digest %s", wh_result_value(r, 0, 0), wh_result_value(r, 0, 1));
	wh_result_free(r);
}

#define MERGE_SIDE 3

static void same_rows(struct side *a, struct side *b)
{
	char x[128], y[128];

	fingerprint(a->w, x, sizeof(x));
	fingerprint(b->w, y, sizeof(y));
	if (strcmp(x, y) != 0) {
		fprintf(stderr, "cdc_apply: after %lld batches %s holds %s, %s holds %s\n",
			(long long)b->nb, a->name, x, b->name, y);
		exit(1);
	}
}
/* DuckDB's MERGE takes seconds a batch here: it runs the first batches
 * only, and must then hold what the DELETE + INSERT side holds. */
#define MERGE_BATCHES 5

/* Copies of the same warehouse take the same batches of `batch` events in
 * turn, so a busy machine slows them alike: the live runner on DIR's
 * warehouse, the model's statements alone on MAT_DB, plain SQL on RAW_DB
 * and, when given, MERGE_DB. */
static void apply_all(const char *dir, int64_t batch, const char *mat_db, const char *raw_db,
		      const char *merge_db)
{
	struct arena *a = arena_new(NULL);
	struct sqlparse *parser;
	struct sl_err err = SL_ERR_INIT;
	struct side sides[] = { { "sluice (live runner refresh)" },
				{ "sluice (the model's statements alone)" },
				{ "hand-written DELETE + INSERT" },
				{ "hand-written MERGE (its first batches)" } };
	int nsides = merge_db ? 4 : 3;
	struct project *p = load(a, dir, &parser, &sides[0].w);
	struct model *m = project_find_model(p, "silver.accounts");
	struct live_runner *r = live_runner_new(a, p, NULL);
	struct live_cycle c;
	int64_t events = qint(sides[0].w, "SELECT count(*) FROM bench.changes");
	int64_t nb = (events + batch - 1) / batch;

	if (wh_open_duckdb(mat_db, false, &sides[1].w, &err) ||
	    wh_open_duckdb(raw_db, false, &sides[2].w, &err) ||
	    (merge_db && wh_open_duckdb(merge_db, false, &sides[3].w, &err)))
		die(&err);
	/* a first cycle settles the runner's view of the project; the
	 * model's profile, which the runner takes at most every
	 * profile_interval (0.4 s of a full scan, every 5 min), is taken now,
	 * so that it lands in no batch */
	if (live_runner_cycle(r, sides[0].w, &c, &err) || live_profile(a, sides[0].w, m, -1, &err))
		die(&err);
	sides[1].applied = qint(sides[1].w, "SELECT max(_sluice_seq) FROM landing.changes");
	for (int i = 0; i < nsides; i++)
		sides[i].us = calloc((size_t)nb + 1, sizeof(int64_t));
	for (int64_t b = 0; b < nb; b++) {
		int64_t from = b * batch, to = from + batch < events ? from + batch : events;

		for (int k = 0; k < nsides; k++) {
			int i = (int)((b + k) % nsides);

			if (i == MERGE_SIDE && b >= MERGE_BATCHES)
				continue;
			land(&sides[i], from, to, i < 2, i == 0 ? r : NULL);
			if (i == 0)
				apply_runner(&sides[i], r, b);
			else if (i == 1)
				apply_materialize(&sides[i], m, b);
			else
				apply_raw(&sides[i], b, i == MERGE_SIDE);
		}
		if (merge_db && (b + 1 == MERGE_BATCHES || (b + 1 == nb && nb < MERGE_BATCHES)))
			same_rows(&sides[2], &sides[MERGE_SIDE]);
	}
	if (live_runner_release(r, sides[0].w, &err))
		die(&err);
	for (int i = 0; i < nsides; i++) {
		side_report(&sides[i]);
		free(sides[i].us);
		wh_close(sides[i].w);
	}
	live_runner_free(r);
	sqlparse_close(parser);
	arena_free(a);
}

static void digest(const char *path)
{
	struct sl_err err = SL_ERR_INIT;
	struct wh *w;
	char text[128];

	if (wh_open_duckdb(path, true, &w, &err))
		die(&err);
	fingerprint(w, text, sizeof(text));
	printf("%s\n", text);
	wh_close(w);
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "init") == 0)
		init(argv[2], atoll(argv[3]), atoll(argv[4]));
	else if ((argc == 6 || argc == 7) && strcmp(argv[1], "run") == 0 && atoll(argv[3]) > 0)
		apply_all(argv[2], atoll(argv[3]), argv[4], argv[5], argc == 7 ? argv[6] : NULL);
	else if (argc == 3 && strcmp(argv[1], "digest") == 0)
		digest(argv[2]);
	else {
		fprintf(stderr, "usage: cdc_apply init DIR ROWS EVENTS | run DIR BATCH MAT_DB RAW_DB "
				"[MERGE_DB] | digest DBFILE\n");
		return 2;
	}
	return 0;
}
