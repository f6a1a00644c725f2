/*
 * The baseline of the chain benchmark on PostgreSQL: the same SQL that
 * sluice runs, sent straight through libpq, with no framework around it.
 * The PostgreSQL twin of raw_chain.c.
 *
 *   raw_chain_pg init DSN ROWS
 *       create raw.events of ROWS generated rows (the same values as
 *       raw_chain init makes) in the database DSN names, then VACUUM FREEZE
 *       ANALYZE it, so that no run pays for its hint bits or statistics
 *   raw_chain_pg run DSN SCHEMA.NAME FILE [SCHEMA.NAME FILE ...]
 *       for each pair, in one transaction each (as sluice commits one
 *       transaction per model): CREATE SCHEMA IF NOT EXISTS, then
 *       CREATE TABLE SCHEMA.NAME AS <the query in FILE>
 *   raw_chain_pg query DSN SQL
 *       print the rows of SQL, columns separated by |, to check that both
 *       sides built the same tables
 *
 * Built by bench/run.sh with cc and -lpq. `run` prints nothing on success
 * unless RAW_CHAIN_VERBOSE is set, then the time of each model on stderr.
 */
#define _POSIX_C_SOURCE 200809L

#define RAW_NAME "raw_chain_pg"
#include "raw_pg.h"

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

static void init(const char *dsn, long rows)
{
	PGconn *conn = connect_pg(dsn);
	char sql[1024];

	exec(conn, "CREATE SCHEMA IF NOT EXISTS raw; DROP TABLE IF EXISTS raw.events");
	/* 5 kinds (one of them 'test', filtered out by silver.a), 100k users,
	 * amounts as text (cast by silver.a), timestamps over 60 days */
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE raw.events AS\n"
		 "SELECT i AS event_id,\n"
		 "       (i * 7919) %% 100000 AS user_id,\n"
		 "       CASE i %% 5 WHEN 0 THEN 'view' WHEN 1 THEN 'click' WHEN 2 THEN 'cart'\n"
		 "                   WHEN 3 THEN 'buy' ELSE 'test' END AS kind,\n"
		 "       CAST(round((i * 31) %% 100000 / 100.0, 2) AS VARCHAR) AS amount,\n"
		 "       TIMESTAMP '2024-01-01' + (i %% 5184000) * INTERVAL '1 second' AS ts,\n"
		 "       'payload-' || (i %% 1000) AS note\n"
		 "FROM generate_series(0::BIGINT, %ld) AS t(i)",
		 rows - 1);
	exec(conn, sql);
	exec(conn, "VACUUM (FREEZE, ANALYZE) raw.events");
	PQfinish(conn);
}

static void query(const char *dsn, const char *sql)
{
	PGconn *conn = connect_pg(dsn);
	PGresult *res = PQexec(conn, sql);

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		die("query failed", PQerrorMessage(conn));
	for (int r = 0; r < PQntuples(res); r++) {
		for (int c = 0; c < PQnfields(res); c++)
			printf("%s%s", c ? "|" : "",
			       PQgetisnull(res, r, c) ? "NULL" : PQgetvalue(res, r, c));
		printf("\n");
	}
	PQclear(res);
	PQfinish(conn);
}

static void run(const char *dsn, int npairs, char **pairs)
{
	bool verbose = getenv("RAW_CHAIN_VERBOSE") != NULL;
	double t0 = now_s(), t;
	PGconn *conn = connect_pg(dsn);

	for (int i = 0; i < npairs; i++) {
		const char *fqn = pairs[2 * i];
		const char *dot = strchr(fqn, '.');
		char *query = read_all(pairs[2 * i + 1]);
		size_t len = strlen(fqn) + strlen(query) + 256;
		char *sql = malloc(len);

		t = now_s();
		if (!dot || !sql)
			die("expected SCHEMA.NAME, got", fqn);
		exec(conn, "BEGIN");
		snprintf(sql, len, "CREATE SCHEMA IF NOT EXISTS %.*s", (int)(dot - fqn), fqn);
		exec(conn, sql);
		snprintf(sql, len, "CREATE TABLE %s AS\n%s", fqn, query);
		exec(conn, sql);
		exec(conn, "COMMIT");
		if (verbose)
			fprintf(stderr, "raw_chain_pg: %s %.3f s\n", fqn, now_s() - t);
		free(sql);
		free(query);
	}
	PQfinish(conn);
	if (verbose)
		fprintf(stderr, "raw_chain_pg: connect to close %.3f s\n", now_s() - t0);
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
	if (argc >= 5 && argc % 2 == 1 && strcmp(argv[1], "run") == 0) {
		run(argv[2], (argc - 3) / 2, argv + 3);
		return 0;
	}
	fprintf(stderr, "usage: raw_chain_pg init DSN ROWS\n"
			"       raw_chain_pg run DSN SCHEMA.NAME FILE [SCHEMA.NAME FILE ...]\n"
			"       raw_chain_pg query DSN SQL\n");
	return 2;
}
