/*
 * The baseline of the ingest benchmark on PostgreSQL: the rows that
 * `sluice serve` lands, sent straight through libpq with COPY, with no
 * HTTP, no delivery ids and no bookkeeping around them. The PostgreSQL
 * twin of raw_ingest.c.
 *
 *   raw_ingest_pg commits DSN COMMITS ROWS [FIRST_ID]
 *       COMMITS transactions of ROWS rows each, back to back, on one
 *       connection: BEGIN, the rows in one COPY ... FROM STDIN (text
 *       format, as sluice's appender sends them), COMMIT. The rows are
 *       those of a landing table: the event's columns (id, account = id %
 *       1000, amount = id % 997 + 1, as the load generator sends them), its
 *       JSON text, the landing time and one sequence per commit, in
 *       landing.events. Prints commits/s, rows/s and the p50/p99 time of
 *       one commit.
 *   raw_ingest_pg lag DSN SECONDS RATE BATCH
 *       a writer thread commits RATE events/s in commits of BATCH (accounts
 *       id % 500) while a second connection runs the live chain's
 *       statements back to back, each model in its own transaction: bronze
 *       appends the new rows, silver merges them on id (DELETE of their ids
 *       + INSERT), gold recomputes the accounts they touched (DELETE +
 *       INSERT). The lag of a commit is the time from its COMMIT's return
 *       to the return of the gold COMMIT that includes it. Prints
 *       p50/p99/max lag and the chain's cycles. The tables are made afresh
 *       in the database DSN names.
 *
 * Built by bench/run.sh with cc and -lpq.
 */
#define _DEFAULT_SOURCE

#define RAW_NAME "raw_ingest_pg"
#include "raw_pg.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The shape of a landing table of the source (id, account, amount), as
 * sluice makes it on PostgreSQL. */
static void create_landing(PGconn *conn)
{
	exec(conn, "CREATE SCHEMA IF NOT EXISTS landing");
	exec(conn, "CREATE TABLE IF NOT EXISTS landing.events (id BIGINT, account BIGINT, "
		   "amount BIGINT, payload JSON, _sluice_landed_at TIMESTAMP, _sluice_seq BIGINT)");
}

/* One commit of rows first_id .. first_id + rows - 1 with sequence seq,
 * the rows built in buf (at least 160 bytes a row). */
static void land(PGconn *conn, char *buf, int64_t first_id, int rows, int64_t seq,
		 int64_t accounts)
{
	struct timespec ts;
	struct tm tm;
	char stamp[40];
	size_t len = 0, n;
	PGresult *res;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(stamp + n, sizeof(stamp) - n, ".%06ld", ts.tv_nsec / 1000);
	for (int i = 0; i < rows; i++) {
		long long id = first_id + i, account = id % accounts, amount = id % 997 + 1;

		len += (size_t)sprintf(buf + len,
				       "%lld\t%lld\t%lld\t{\"id\":%lld,\"account\":%lld,\"amount\":%lld}"
				       "\t%s\t%lld\n",
				       id, account, amount, id, account, amount, stamp, (long long)seq);
	}
	exec(conn, "BEGIN");
	res = PQexec(conn, "COPY landing.events FROM STDIN");
	if (PQresultStatus(res) != PGRES_COPY_IN)
		die("COPY failed", PQerrorMessage(conn));
	PQclear(res);
	if (PQputCopyData(conn, buf, (int)len) != 1 || PQputCopyEnd(conn, NULL) != 1)
		die("COPY failed", PQerrorMessage(conn));
	while ((res = PQgetResult(conn)) != NULL) {
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
			die("COPY failed", PQerrorMessage(conn));
		PQclear(res);
	}
	exec(conn, "COMMIT");
}

static char *row_buffer(int rows)
{
	char *buf = malloc((size_t)rows * 160 + 64);

	if (!buf)
		die("out of memory", NULL);
	return buf;
}

static void commits(const char *dsn, long n, int rows, int64_t first_id)
{
	PGconn *conn;
	int64_t *t = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t)), seq, t0, total;
	char *buf;

	if (!t || n < 1 || rows < 1)
		die("bad arguments", NULL);
	buf = row_buffer(rows);
	conn = connect_pg(dsn);
	create_landing(conn);
	seq = qint(conn, "SELECT coalesce(max(_sluice_seq), 0) FROM landing.events");
	t0 = now_us();
	for (long i = 0; i < n; i++) {
		int64_t s = now_us();

		land(conn, buf, first_id + (int64_t)i * rows, rows, ++seq, 1000);
		t[i] = now_us() - s;
	}
	total = now_us() - t0;
	PQfinish(conn);
	qsort(t, (size_t)n, sizeof(*t), cmp64);
	printf("raw_ingest_pg: %ld commits of %d rows in %.2f s: %.0f commits/s, %.0f rows/s; per "
	       "commit p50 %.2f ms, p99 %.2f ms\n",
	       n, rows, total / 1e6, n / (total / 1e6), (double)n * rows / (total / 1e6),
	       t[n / 2] / 1000.0, t[n * 99 / 100] / 1000.0);
	free(buf);
	free(t);
}

/* ------------------------------------------------------------- lag */

struct lag_run {
	const char *dsn;
	long nbatches;
	int batch, rate;
	int64_t *committed_us; /* per sequence (1-based): when its COMMIT returned */
	int64_t *lag_us;
	_Atomic int64_t landed; /* the newest committed sequence */
	long cycles;
	int64_t cycle_us_sum;
};

static void *writer(void *arg)
{
	struct lag_run *r = arg;
	PGconn *conn = connect_pg(r->dsn);
	char *buf = row_buffer(r->batch);
	int64_t start = now_us(), interval = 1000000LL * r->batch / r->rate;

	for (long b = 0; b < r->nbatches; b++) {
		int64_t due = start + (b + 1) * interval, now;

		land(conn, buf, (int64_t)b * r->batch, r->batch, b + 1, 500);
		r->committed_us[b + 1] = now_us();
		atomic_store(&r->landed, b + 1);
		now = now_us();
		if (due > now)
			usleep((useconds_t)(due - now));
	}
	free(buf);
	PQfinish(conn);
	return NULL;
}

static void *chain(void *arg)
{
	struct lag_run *r = arg;
	PGconn *conn = connect_pg(r->dsn);
	int64_t lo = 0;
	char sql[1024];

	while (lo < r->nbatches) {
		int64_t hi = atomic_load(&r->landed), t0, t1;

		if (hi == lo) {
			usleep(500);
			continue;
		}
		t0 = now_us();
		snprintf(sql, sizeof(sql),
			 "BEGIN; INSERT INTO bronze.events SELECT id, account, amount, _sluice_seq "
			 "FROM landing.events WHERE _sluice_seq > %lld AND _sluice_seq <= %lld AND id "
			 ">= 0; COMMIT",
			 (long long)lo, (long long)hi);
		exec(conn, sql);
		snprintf(sql, sizeof(sql),
			 "BEGIN; DELETE FROM silver.events WHERE id IN (SELECT id FROM bronze.events "
			 "WHERE _sluice_seq > %lld); INSERT INTO silver.events SELECT id, account, "
			 "amount * 2, _sluice_seq FROM bronze.events WHERE _sluice_seq > %lld; COMMIT",
			 (long long)lo, (long long)lo);
		exec(conn, sql);
		snprintf(sql, sizeof(sql),
			 "BEGIN; DROP TABLE IF EXISTS changed; CREATE TEMP TABLE changed AS SELECT "
			 "account, count(*) AS events, sum(amount) AS amount, max(_sluice_seq) AS "
			 "_sluice_seq FROM silver.events WHERE account IN (SELECT account FROM "
			 "silver.events WHERE _sluice_seq > %lld) GROUP BY account; DELETE FROM "
			 "gold.accounts WHERE account IN (SELECT account FROM changed); INSERT INTO "
			 "gold.accounts SELECT * FROM changed; COMMIT",
			 (long long)lo);
		exec(conn, sql);
		t1 = now_us();
		for (int64_t s = lo + 1; s <= hi; s++)
			r->lag_us[s - 1] = t1 - r->committed_us[s];
		r->cycles++;
		r->cycle_us_sum += t1 - t0;
		lo = hi;
	}
	PQfinish(conn);
	return NULL;
}

static void lag(const char *dsn, int seconds, int rate, int batch)
{
	struct lag_run r = { .dsn = dsn, .batch = batch, .rate = rate };
	PGconn *conn;
	pthread_t tw, tc;
	int64_t t0, total, want;

	if (seconds < 1 || rate < 1 || batch < 1)
		die("bad arguments", NULL);
	r.nbatches = (long)seconds * rate / batch;
	r.committed_us = calloc((size_t)r.nbatches + 1, sizeof(int64_t));
	r.lag_us = calloc((size_t)r.nbatches, sizeof(int64_t));
	if (!r.committed_us || !r.lag_us)
		die("out of memory", NULL);
	conn = connect_pg(dsn);
	exec(conn, "DROP SCHEMA IF EXISTS landing CASCADE; DROP SCHEMA IF EXISTS bronze CASCADE; "
		   "DROP SCHEMA IF EXISTS silver CASCADE; DROP SCHEMA IF EXISTS gold CASCADE");
	create_landing(conn);
	exec(conn, "CREATE SCHEMA bronze; CREATE SCHEMA silver; CREATE SCHEMA gold");
	exec(conn, "CREATE TABLE bronze.events (id BIGINT, account BIGINT, amount BIGINT, "
		   "_sluice_seq BIGINT)");
	exec(conn, "CREATE TABLE silver.events (id BIGINT, account BIGINT, amount BIGINT, "
		   "_sluice_seq BIGINT)");
	exec(conn, "CREATE TABLE gold.accounts (account BIGINT, events BIGINT, amount NUMERIC, "
		   "_sluice_seq BIGINT)");
	t0 = now_us();
	if (pthread_create(&tw, NULL, writer, &r) || pthread_create(&tc, NULL, chain, &r))
		die("cannot start the threads", NULL);
	pthread_join(tw, NULL);
	pthread_join(tc, NULL);
	total = now_us() - t0;
	want = (int64_t)r.nbatches * batch;
	if (qint(conn, "SELECT sum(events) FROM gold.accounts") != want)
		die("gold does not count every landed event", NULL);
	PQfinish(conn);
	qsort(r.lag_us, (size_t)r.nbatches, sizeof(int64_t), cmp64);
	printf("raw_ingest_pg: lag from commit to gold: p50 %.1f ms, p99 %.1f ms, max %.1f ms over "
	       "%ld commits of %d (%.0f events/s landed); %ld chain cycles of %.1f ms on average\n",
	       r.lag_us[r.nbatches / 2] / 1000.0, r.lag_us[r.nbatches * 99 / 100] / 1000.0,
	       r.lag_us[r.nbatches - 1] / 1000.0, r.nbatches, batch, want / (total / 1e6),
	       r.cycles, r.cycles ? r.cycle_us_sum / 1000.0 / r.cycles : 0.0);
	free(r.committed_us);
	free(r.lag_us);
}

int main(int argc, char **argv)
{
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "commits") == 0) {
		commits(argv[2], strtol(argv[3], NULL, 10), atoi(argv[4]),
			argc == 6 ? strtoll(argv[5], NULL, 10) : 1);
		return 0;
	}
	if (argc == 6 && strcmp(argv[1], "lag") == 0) {
		lag(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
		return 0;
	}
	fprintf(stderr, "usage: raw_ingest_pg commits DSN COMMITS ROWS [FIRST_ID]\n"
			"       raw_ingest_pg lag DSN SECONDS RATE BATCH\n");
	return 2;
}
