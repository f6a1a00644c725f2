/*
 * The baseline of the CDC stream benchmark: the same change events, at the
 * same rate, landed and applied by the DuckDB C API alone. A lander thread
 * commits whatever is due (at least a chunk) through one DuckDB appender
 * kept open, each commit stamped with the next sequence; an applier on a
 * second connection loops: whatever landed since its last pass, the latest
 * event per id, a DELETE ... USING of those ids and an INSERT of the
 * non-deletes, in one transaction, so its batches grow with the backlog
 * as the live runner's do. No checks, no bookkeeping, no schedule. The
 * lag is measured as in cdc_stream.c (cdc_stream.h).
 *
 *   raw_cdc_stream DB ROWS RATE SECONDS
 *       on DB, a copy of cdc_apply init's model of ROWS rows (the events
 *       land in a table of their own, main.landed); prints one line
 *
 * Built by bench/run.sh against .deps/duckdb.
 */
#define _DEFAULT_SOURCE

#define RAW_NAME "raw_cdc_stream"
#include "raw_duck.h"

#include "cdc_stream.h"

#include <duckdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct run {
	struct stream s;
	duckdb_database db;
	duckdb_connection land_conn;
	duckdb_appender app;
	int64_t seq; /* the lander's last */
	_Atomic bool stop;
};

static int64_t wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* One commit of the events [from, to), with the next sequence. */
static void land(void *ctx, int64_t from, int64_t to)
{
	struct run *r = ctx;
	duckdb_timestamp ts = { wall_us() };
	int64_t seq = r->seq + 1;

	exec(r->land_conn, "BEGIN TRANSACTION");
	for (int64_t i = from; i < to; i++) {
		struct stream_event e;

		stream_event(&r->s, i, &e);
		if (duckdb_append_int64(r->app, e.id) || duckdb_append_int64(r->app, e.account) ||
		    duckdb_append_int64(r->app, e.amount) ||
		    duckdb_append_varchar(r->app, e.status) ||
		    duckdb_append_varchar(r->app, e.op) || duckdb_append_int64(r->app, e.lsn) ||
		    duckdb_append_timestamp(r->app, ts) || duckdb_append_int64(r->app, seq) ||
		    duckdb_appender_end_row(r->app))
			die("append failed", duckdb_appender_error(r->app));
	}
	if (duckdb_appender_flush(r->app) != DuckDBSuccess)
		die("appender flush failed", duckdb_appender_error(r->app));
	exec(r->land_conn, "COMMIT");
	r->seq = seq;
	stream_landed(&r->s, seq, to - from, stream_due_us(&r->s, from));
}

/* Until stopped: whatever landed since the last pass, applied at once. */
static void *applier(void *arg)
{
	struct run *r = arg;
	duckdb_connection conn;
	int64_t lo = 0;
	char sql[1024];

	if (duckdb_connect(r->db, &conn) != DuckDBSuccess)
		die("cannot connect the applier", NULL);
	while (!atomic_load(&r->stop)) {
		int64_t hi = atomic_load(&r->s.landed_seq);

		if (hi == lo) {
			stream_sleep_until(stream_now_us() + 500);
			continue;
		}
		snprintf(sql, sizeof(sql),
			 "BEGIN TRANSACTION;\n"
			 "CREATE OR REPLACE TEMP TABLE latest AS SELECT id, account, amount, "
			 "status, op, lsn FROM main.landed WHERE seq > %lld AND seq <= %lld "
			 "QUALIFY row_number() OVER (PARTITION BY id ORDER BY lsn DESC) = 1;\n"
			 "DELETE FROM silver.accounts USING latest WHERE silver.accounts.id = "
			 "latest.id;\n"
			 "INSERT INTO silver.accounts BY NAME SELECT * FROM latest "
			 "WHERE op <> 'd';\n"
			 "COMMIT",
			 (long long)lo, (long long)hi);
		exec(conn, sql);
		stream_applied(&r->s, hi);
		lo = hi;
	}
	duckdb_disconnect(&conn);
	return NULL;
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	pthread_t t;
	duckdb_connection conn;

	if (argc != 5 || atoll(argv[2]) < 1 || atoll(argv[3]) < 1 || atoll(argv[4]) < 1) {
		fprintf(stderr, "usage: raw_cdc_stream DB ROWS RATE SECONDS\n");
		return 2;
	}
	stream_init(&r.s, atoll(argv[2]), atoll(argv[3]), atoll(argv[4]));
	open_db(argv[1], &r.db, &conn);
	exec(conn, "CREATE TABLE main.landed (id BIGINT, account BIGINT, amount BIGINT, status "
		   "VARCHAR, op VARCHAR, lsn BIGINT, landed_at TIMESTAMP, seq BIGINT)");
	if (duckdb_connect(r.db, &r.land_conn) != DuckDBSuccess ||
	    duckdb_appender_create(r.land_conn, "main", "landed", &r.app) != DuckDBSuccess)
		die("cannot connect the lander", NULL);
	if (pthread_create(&t, NULL, applier, &r))
		die("cannot start the applier", NULL);
	/* the warm-up, as on the sluice side */
	land(&r, 0, r.s.first);
	if (!stream_drain(&r.s, r.s.first, STREAM_WARMUP_US))
		die("the warm-up was not applied in time", NULL);
	stream_run(&r.s, land, &r);
	stream_drain(&r.s, r.s.total, stream_drain_us(&r.s));
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	stream_report(&r.s, "the engine alone (hand-written DELETE + INSERT of what landed)");
	stream_free(&r.s);
	duckdb_appender_destroy(&r.app);
	duckdb_disconnect(&r.land_conn);
	duckdb_disconnect(&conn);
	duckdb_close(&r.db);
	return 0;
}
