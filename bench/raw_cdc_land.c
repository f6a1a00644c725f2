/*
 * The floor of the postgres_cdc landing benchmark on DuckDB: the rows that
 * `sluice cdc --once` landed, landed again straight through the DuckDB C
 * API, commit by commit (sequence by sequence) as sluice landed them,
 * with no replication stream, no decoding and no bookkeeping around them.
 * It never writes the warehouse it reads.
 *
 *   raw_cdc_land FROM_DB TO_DB
 *       Reads landing.orders and landing.items of FROM_DB (untimed), makes
 *       TO_DB afresh with the same two tables (op VARCHAR, lsn BIGINT, xid
 *       BIGINT, received_at TIMESTAMP, payload JSON, _sluice_seq BIGINT),
 *       and lands the rows sequence by sequence on one connection: BEGIN,
 *       each table's rows of that sequence through its appender (kept
 *       open), their flush, COMMIT. Prints the transactions, the changes,
 *       the time and changes/s.
 *
 * Built by bench/run.sh against .deps/duckdb.
 */
#define _DEFAULT_SOURCE

#define RAW_NAME "raw_cdc_land"
#include "raw_duck.h"

#include <duckdb.h>
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

struct row {
	int table; /* 0 orders, 1 items */
	char *op, *received_at, *payload;
	int64_t lsn, xid, seq;
	int xid_null;
};

static const char *const tables[] = { "orders", "items" };

static char *dup_value(duckdb_result *res, idx_t col, idx_t r)
{
	char *v = duckdb_value_varchar(res, col, r), *d;

	if (!v)
		return NULL;
	d = strdup(v);
	duckdb_free(v);
	if (!d)
		die("out of memory", NULL);
	return d;
}

/* Every landed row of FROM_DB, in sequence order; *n set. */
static struct row *read_rows(const char *path, size_t *n)
{
	duckdb_database db;
	duckdb_connection conn;
	duckdb_result res;
	struct row *rows;
	idx_t count;

	open_db(path, &db, &conn);
	if (duckdb_query(conn,
			 "SELECT 0, op, lsn, xid, CAST(received_at AS VARCHAR), CAST(payload AS "
			 "VARCHAR), _sluice_seq FROM landing.orders UNION ALL SELECT 1, op, lsn, xid, "
			 "CAST(received_at AS VARCHAR), CAST(payload AS VARCHAR), _sluice_seq FROM "
			 "landing.items ORDER BY 7, 1",
			 &res) != DuckDBSuccess)
		die("cannot read the landing tables", duckdb_result_error(&res));
	count = duckdb_row_count(&res);
	rows = calloc(count ? count : 1, sizeof(*rows));
	if (!rows)
		die("out of memory", NULL);
	for (idx_t r = 0; r < count; r++) {
		struct row *w = &rows[r];

		w->table = (int)duckdb_value_int32(&res, 0, r);
		w->op = dup_value(&res, 1, r);
		w->lsn = duckdb_value_int64(&res, 2, r);
		w->xid_null = duckdb_value_is_null(&res, 3, r);
		w->xid = duckdb_value_int64(&res, 3, r);
		w->received_at = dup_value(&res, 4, r);
		w->payload = dup_value(&res, 5, r);
		w->seq = duckdb_value_int64(&res, 6, r);
	}
	duckdb_destroy_result(&res);
	duckdb_disconnect(&conn);
	duckdb_close(&db);
	*n = count;
	return rows;
}

static void append(duckdb_appender ap, const struct row *w)
{
	if (duckdb_append_varchar(ap, w->op) || duckdb_append_int64(ap, w->lsn) ||
	    (w->xid_null ? duckdb_append_null(ap) : duckdb_append_int64(ap, w->xid)) ||
	    duckdb_append_varchar(ap, w->received_at) || duckdb_append_varchar(ap, w->payload) ||
	    duckdb_append_int64(ap, w->seq) || duckdb_appender_end_row(ap))
		die("cannot append a row", duckdb_appender_error(ap));
}

int main(int argc, char **argv)
{
	duckdb_database db;
	duckdb_connection conn;
	duckdb_appender ap[2];
	struct row *rows;
	size_t n, i = 0;
	long txns = 0;
	int64_t t0, t;
	char path[4096];

	if (argc != 3) {
		fprintf(stderr, "usage: raw_cdc_land FROM_DB TO_DB\n");
		return 2;
	}
	rows = read_rows(argv[1], &n);
	unlink(argv[2]);
	snprintf(path, sizeof(path), "%s.wal", argv[2]);
	unlink(path);
	open_db(argv[2], &db, &conn);
	exec(conn, "CREATE SCHEMA landing");
	for (int k = 0; k < 2; k++) {
		char sql[256];

		snprintf(sql, sizeof(sql),
			 "CREATE TABLE landing.%s (op VARCHAR, lsn BIGINT, xid BIGINT, received_at "
			 "TIMESTAMP, payload JSON, _sluice_seq BIGINT)",
			 tables[k]);
		exec(conn, sql);
		if (duckdb_appender_create(conn, "landing", tables[k], &ap[k]) != DuckDBSuccess)
			die("cannot open an appender", tables[k]);
	}
	t0 = now_us();
	while (i < n) {
		int64_t seq = rows[i].seq;
		int touched[2] = { 0, 0 };

		exec(conn, "BEGIN");
		for (; i < n && rows[i].seq == seq; i++) {
			append(ap[rows[i].table], &rows[i]);
			touched[rows[i].table] = 1;
		}
		for (int k = 0; k < 2; k++)
			if (touched[k] && duckdb_appender_flush(ap[k]) != DuckDBSuccess)
				die("cannot flush an appender", duckdb_appender_error(ap[k]));
		exec(conn, "COMMIT");
		txns++;
	}
	t = now_us() - t0;
	for (int k = 0; k < 2; k++)
		duckdb_appender_destroy(&ap[k]);
	duckdb_disconnect(&conn);
	duckdb_close(&db);
	printf("raw_cdc_land: %ld transactions, %zu changes in %.2f s: %.0f changes/s, %.2f ms a "
	       "transaction\n",
	       txns, n, t / 1e6, n / (t / 1e6), t / 1000.0 / (txns ? txns : 1));
	return 0;
}
