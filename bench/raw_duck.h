/*
 * What the raw-engine baselines share: they talk to DuckDB's C API with
 * nothing of sluice around it, and give up with the statement and DuckDB's
 * error when a statement fails. Each program is one file that includes
 * this after defining RAW_NAME, its name for messages.
 */
#ifndef SL_BENCH_RAW_DUCK_H
#define SL_BENCH_RAW_DUCK_H

#include <duckdb.h>
#include <stdio.h>
#include <stdlib.h>

static void die(const char *what, const char *detail)
{
	fprintf(stderr, RAW_NAME ": %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

static void exec(duckdb_connection conn, const char *sql)
{
	duckdb_result res;

	if (duckdb_query(conn, sql, &res) != DuckDBSuccess) {
		fprintf(stderr, RAW_NAME ": while running:\n%s\n", sql);
		die("query failed", duckdb_result_error(&res));
	}
	duckdb_destroy_result(&res);
}

static void open_db(const char *path, duckdb_database *db, duckdb_connection *conn)
{
	char *err = NULL;

	if (duckdb_open_ext(path, db, NULL, &err) != DuckDBSuccess)
		die("cannot open database", err);
	if (duckdb_connect(*db, conn) != DuckDBSuccess)
		die("cannot connect", path);
}

#endif
