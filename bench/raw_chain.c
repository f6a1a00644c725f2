/*
 * The baseline of the chain benchmark: the same SQL that sluice runs, sent
 * straight through the DuckDB C API, with no framework around it.
 *
 *   raw_chain init DB ROWS
 *       create DB with one table raw.events of ROWS generated rows
 *   raw_chain run DB SCHEMA.NAME FILE [SCHEMA.NAME FILE ...]
 *       for each pair, in one transaction each (as sluice commits one
 *       transaction per model): CREATE SCHEMA IF NOT EXISTS, then
 *       CREATE TABLE SCHEMA.NAME AS <the query in FILE>
 *   raw_chain replace DB SCHEMA.NAME FILE [SCHEMA.NAME FILE ...]
 *       all pairs in one transaction (as a replay rebuilds its models):
 *       CREATE OR REPLACE TABLE SCHEMA.NAME AS <the query in FILE>
 *   raw_chain query DB SQL
 *       print the rows of SQL, columns separated by |, to check that both
 *       sides built the same tables
 *
 * Built by bench/run.sh against .deps/duckdb. `run` prints nothing on success
 * unless RAW_CHAIN_VERBOSE is set, then the time of each model on stderr.
 */
#define _POSIX_C_SOURCE 200809L

#define RAW_NAME "raw_chain"
#include "raw_duck.h"

#include <duckdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, len = 0, n;
	char *s = malloc(cap);

	if (!f || !s)
		die("cannot read", path);
	while ((n = fread(s + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			cap *= 2;
			s = realloc(s, cap);
			if (!s)
				die("out of memory", NULL);
		}
	}
	fclose(f);
	s[len] = '\0';
	return s;
}

static void init(const char *path, long rows)
{
	duckdb_database db;
	duckdb_connection conn;
	char sql[1024];

	open_db(path, &db, &conn);
	exec(conn, "CREATE SCHEMA IF NOT EXISTS raw");
	/* 5 kinds (one of them 'test', filtered out by silver.a), 100k users,
	 * amounts as text (cast by silver.a), timestamps over 60 days */
	snprintf(sql, sizeof(sql),
		 "CREATE OR REPLACE TABLE raw.events AS\n"
		 "SELECT i AS event_id,\n"
		 "       (i * 7919) %% 100000 AS user_id,\n"
		 "       CASE i %% 5 WHEN 0 THEN 'view' WHEN 1 THEN 'click' WHEN 2 THEN 'cart'\n"
		 "                   WHEN 3 THEN 'buy' ELSE 'test' END AS kind,\n"
		 "       CAST((i * 31) %% 100000 / 100.0 AS VARCHAR) AS amount,\n"
		 "       TIMESTAMP '2024-01-01' + to_seconds(i %% 5184000) AS ts,\n"
		 "       'payload-' || (i %% 1000) AS note\n"
		 "FROM range(%ld) AS t(i)",
		 rows);
	exec(conn, sql);
	exec(conn, "CHECKPOINT");
	duckdb_disconnect(&conn);
	duckdb_close(&db);
}

static void query(const char *path, const char *sql)
{
	duckdb_database db;
	duckdb_connection conn;
	duckdb_result res;

	open_db(path, &db, &conn);
	if (duckdb_query(conn, sql, &res) != DuckDBSuccess)
		die("query failed", duckdb_result_error(&res));
	for (idx_t r = 0; r < duckdb_row_count(&res); r++) {
		for (idx_t c = 0; c < duckdb_column_count(&res); c++) {
			char *v = duckdb_value_varchar(&res, c, r);

			printf("%s%s", c ? "|" : "", v ? v : "NULL");
			duckdb_free(v);
		}
		printf("\n");
	}
	duckdb_destroy_result(&res);
	duckdb_disconnect(&conn);
	duckdb_close(&db);
}

static void run(const char *path, int npairs, char **pairs, bool one_txn)
{
	duckdb_database db;
	duckdb_connection conn;
	bool verbose = getenv("RAW_CHAIN_VERBOSE") != NULL;
	double t0 = now_s(), t;

	open_db(path, &db, &conn);
	if (one_txn)
		exec(conn, "BEGIN TRANSACTION");
	for (int i = 0; i < npairs; i++) {
		const char *fqn = pairs[2 * i];
		const char *dot = strchr(fqn, '.');
		char *query = read_all(pairs[2 * i + 1]);
		size_t len = strlen(fqn) + strlen(query) + 256;
		char *sql = malloc(len);

		t = now_s();
		if (!dot || !sql)
			die("expected SCHEMA.NAME, got", fqn);
		if (!one_txn)
			exec(conn, "BEGIN TRANSACTION");
		snprintf(sql, len, "CREATE SCHEMA IF NOT EXISTS %.*s", (int)(dot - fqn), fqn);
		exec(conn, sql);
		snprintf(sql, len, "CREATE %sTABLE %s AS\n%s", one_txn ? "OR REPLACE " : "", fqn,
			 query);
		exec(conn, sql);
		if (!one_txn)
			exec(conn, "COMMIT");
		if (verbose)
			fprintf(stderr, "raw_chain: %s %.3f s\n", fqn, now_s() - t);
		free(sql);
		free(query);
	}
	if (one_txn)
		exec(conn, "COMMIT");
	duckdb_disconnect(&conn);
	duckdb_close(&db);
	if (verbose)
		fprintf(stderr, "raw_chain: open to close %.3f s\n", now_s() - t0);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "init") == 0) {
		init(argv[2], strtol(argv[3], NULL, 10));
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "query") == 0) {
		query(argv[2], argv[3]);
		return 0;
	}
	if (argc >= 5 && argc % 2 == 1 &&
	    (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "replace") == 0)) {
		run(argv[2], (argc - 3) / 2, argv + 3, strcmp(argv[1], "replace") == 0);
		return 0;
	}
	fprintf(stderr, "usage: raw_chain init DB ROWS\n"
			"       raw_chain run|replace DB SCHEMA.NAME FILE [SCHEMA.NAME FILE ...]\n"
			"       raw_chain query DB SQL\n");
	return 2;
}
