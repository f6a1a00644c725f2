/*
 * Speaking to the source database over libpq, for every file of the
 * postgres_cdc consumer: a connection (normal or replication=database),
 * a statement run and its failure put into words, the session's output
 * settings, a table's quoted name and an LSN's text. Holds no state and
 * never decides anything about the slot.
 */
#include "pgcdc/pgcdc_pg.h"

#include "core/buf.h"
#include "core/err.h"

#include <stdio.h>
#include <string.h>

int pgcdc_pg_failed(PGconn *conn, const char *what, struct sl_err *err)
{
	const char *msg = PQerrorMessage(conn);
	size_t n = strlen(msg);

	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		n--;
	return sl_err_set(err, SL_E_IO, "source database: %s: %.*s", what, (int)n, msg);
}

int pgcdc_pg_connect(const char *dsn, bool replication, PGconn **out, struct sl_err *err)
{
	const char *keys[] = { "dbname", "replication", "client_encoding", NULL };
	const char *values[] = { dsn, replication ? "database" : NULL, "UTF8", NULL };
	PGconn *conn;

	if (!replication) {
		keys[1] = "client_encoding";
		values[1] = "UTF8";
		keys[2] = NULL;
	}
	conn = PQconnectdbParams(keys, values, 1);
	if (PQstatus(conn) != CONNECTION_OK) {
		int rc = pgcdc_pg_failed(conn, "cannot connect", err);

		PQfinish(conn);
		return rc;
	}
	*out = conn;
	return 0;
}

int pgcdc_pg_run(PGconn *conn, const char *sql, const char *param, ExecStatusType want,
		 PGresult **res, struct sl_err *err)
{
	PGresult *r = param ? PQexecParams(conn, sql, 1, NULL, &param, NULL, NULL, 0)
			    : PQexec(conn, sql);
	int rc = 0;

	if (res)
		*res = NULL;
	if (PQresultStatus(r) != want)
		rc = pgcdc_pg_failed(conn, sql, err);
	if (rc || !res)
		PQclear(r);
	else
		*res = r;
	return rc;
}

int pgcdc_pg_settings(PGconn *conn, struct sl_err *err)
{
	static const char *const settings[] = {
		"SET DateStyle = ISO",	       "SET IntervalStyle = postgres",
		"SET bytea_output = hex",      "SET extra_float_digits = 3",
		"SET TimeZone = 'UTC'",
	};
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(settings) / sizeof(*settings); i++)
		rc = pgcdc_pg_run(conn, settings[i], NULL, PGRES_COMMAND_OK, NULL, err);
	return rc;
}

int pgcdc_pg_lsn(const char *s, uint64_t *out)
{
	unsigned hi, lo;

	if (!s || sscanf(s, "%X/%X", &hi, &lo) != 2)
		return SL_E_PARSE;
	*out = ((uint64_t)hi << 32) | lo;
	return 0;
}

void pgcdc_pg_add_table(struct buf *b, const char *table)
{
	const char *dot = strchr(table, '.');
	char schema[128];

	snprintf(schema, sizeof(schema), "%.*s", (int)(dot - table), table);
	buf_add_sql_ident(b, schema);
	buf_addch(b, '.');
	buf_add_sql_ident(b, dot + 1);
}
