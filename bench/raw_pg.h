/*
 * What the PostgreSQL baselines share: they talk to the server through
 * libpq with nothing of sluice around it, and give up with the statement
 * and the server's error when a statement fails. Each program is one file
 * that includes this after defining RAW_NAME, its name for messages.
 */
#ifndef SL_BENCH_RAW_PG_H
#define SL_BENCH_RAW_PG_H

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>

static inline void die(const char *what, const char *detail)
{
	fprintf(stderr, RAW_NAME ": %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

/* Runs sql (one or more statements); the result of the last is discarded. */
static inline void exec(PGconn *conn, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	ExecStatusType st = PQresultStatus(res);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		fprintf(stderr, RAW_NAME ": while running:\n%s\n", sql);
		die("statement failed", PQerrorMessage(conn));
	}
	PQclear(res);
}

/* The first column of the first row as an integer (0 for none or NULL). */
static inline long long qint(PGconn *conn, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	long long v = 0;

	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		fprintf(stderr, RAW_NAME ": while running:\n%s\n", sql);
		die("query failed", PQerrorMessage(conn));
	}
	if (PQntuples(res) > 0 && !PQgetisnull(res, 0, 0))
		v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return v;
}

/* A connection to the server the libpq connection string dsn names; close
 * it with PQfinish. Notices (CREATE SCHEMA IF NOT EXISTS) are not shown. */
static inline PGconn *connect_pg(const char *dsn)
{
	PGconn *conn = PQconnectdb(dsn);

	if (PQstatus(conn) != CONNECTION_OK)
		die("cannot connect", PQerrorMessage(conn));
	exec(conn, "SET client_min_messages = warning");
	return conn;
}

#endif
