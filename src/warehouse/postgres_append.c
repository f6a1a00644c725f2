/*
 * This file implements the PostgreSQL backend's appender: rows held as
 * COPY text, sent with one COPY per flush. Every PGresult is cleared on
 * every path.
 */
#include "warehouse/postgres_append.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "warehouse/pg_array.h"
#include "warehouse/postgres_conn.h"
#include "warehouse/postgres_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appenders: one COPY per flush, in text format. A value for an array
 * column that is a JSON array ("[1, 2]", as DuckDB reads a list) is sent
 * as PostgreSQL's array text ("{1,2}"); any other value as it is. */

struct pg_appender {
	struct wh_appender base;
	char *copy;   /* the COPY statement */
	char *table;  /* schema.name, for messages */
	char *arrays; /* per column of the table, in order: 'a' for an array */
	struct buf rows, value;
};

/* Which columns of the table hold arrays, as one character per column. */
static int array_columns(struct wh_pg *p, const char *qualified, char **out,
			 struct sl_err *err)
{
	static const char sql[] =
		"SELECT coalesce(string_agg(CASE WHEN t.typcategory = 'A' THEN 'a' ELSE '-' END, "
		"'' ORDER BY a.attnum), '') FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t "
		"ON t.oid = a.atttypid WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT "
		"a.attisdropped";
	const char *args[] = { qualified };
	PGresult *res = PQexecParams(p->conn, sql, 1, NULL, args, NULL, NULL, 0);
	int rc = 0;

	if (!res || !pg_ok(res))
		rc = pg_result_error(p, res, sql, err);
	else
		*out = xstrdup(PQntuples(res) ? PQgetvalue(res, 0, 0) : "");
	PQclear(res);
	return rc;
}

int pg_appender_open(struct wh *w, const char *schema, const char *table,
		     struct wh_appender **out, struct sl_err *err)
{
	struct pg_appender *ap = xcalloc(1, sizeof(*ap));
	struct buf sql = BUF_INIT;
	int rc = pg_refused(pg_conn(w), err);

	if (rc) {
		free(ap);
		return rc;
	}
	wh_sql_qualified(&sql, schema, table);
	rc = array_columns(pg_conn(w), sql.buf, &ap->arrays, err);
	if (rc) {
		buf_release(&sql);
		free(ap);
		return rc;
	}
	buf_reset(&sql);
	buf_adds(&sql, "COPY ");
	wh_sql_qualified(&sql, schema, table);
	buf_adds(&sql, " FROM STDIN");
	ap->base.w = w;
	ap->copy = buf_detach(&sql, NULL);
	ap->table = xasprintf("%s.%s", schema, table);
	ap->rows = (struct buf)BUF_INIT;
	ap->value = (struct buf)BUF_INIT;
	*out = &ap->base;
	return 0;
}

/* A value in COPY's text format: \N for NULL, backslash escapes for the
 * characters the format gives a meaning. */
static void add_copy_value(struct buf *b, const char *v)
{
	if (!v) {
		buf_adds(b, "\\N");
		return;
	}
	for (; *v; v++) {
		switch (*v) {
		case '\\':
			buf_adds(b, "\\\\");
			break;
		case '\t':
			buf_adds(b, "\\t");
			break;
		case '\n':
			buf_adds(b, "\\n");
			break;
		case '\r':
			buf_adds(b, "\\r");
			break;
		default:
			buf_addch(b, *v);
		}
	}
}

int pg_appender_row(struct wh_appender *base, const char *const *values, size_t n,
		    struct sl_err *err)
{
	struct pg_appender *ap = (struct pg_appender *)base;

	size_t narrays = strlen(ap->arrays);

	(void)err;
	for (size_t i = 0; i < n; i++) {
		const char *v = values[i];

		if (i)
			buf_addch(&ap->rows, '\t');
		buf_reset(&ap->value);
		if (v && i < narrays && ap->arrays[i] == 'a' && pg_array_from_json(v, &ap->value))
			v = ap->value.buf;
		add_copy_value(&ap->rows, v);
	}
	buf_addch(&ap->rows, '\n');
	return 0;
}

/* A value the table refuses (a data exception or a violated constraint:
 * SQLSTATE classes 22 and 23) is the rows' fault, as a refused row is on
 * DuckDB, and is named by its row since the last flush (COPY's line);
 * anything else is the warehouse's. */
static int copy_error(struct wh_pg *p, PGresult *res, const struct pg_appender *ap,
		      struct sl_err *err)
{
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	const char *context = PQresultErrorField(res, PG_DIAG_CONTEXT);
	const char *line = context ? strstr(context, ", line ") : NULL;
	int rc;

	if (!state || !msg || (strncmp(state, "22", 2) != 0 && strncmp(state, "23", 2) != 0))
		return pg_result_error(p, res, ap->copy, err);
	rc = sl_err_set(err, SL_E_INVALID, "cannot append to %s: %.*s", ap->table,
			(int)strcspn(msg, "\n"), msg);
	if (line)
		sl_err_context(err, "row %ld", strtol(line + strlen(", line "), NULL, 10));
	return rc;
}

int pg_appender_flush(struct wh_appender *base, struct sl_err *err)
{
	struct pg_appender *ap = (struct pg_appender *)base;
	struct wh_pg *p = pg_conn(base->w);
	PGresult *res;
	int rc;

	if (!ap->rows.len)
		return 0;
	rc = pg_refused(p, err);
	res = rc ? NULL : PQexec(p->conn, ap->copy);
	if (!rc && PQresultStatus(res) != PGRES_COPY_IN)
		rc = pg_result_error(p, res, ap->copy, err);
	PQclear(res);
	if (!rc && (PQputCopyData(p->conn, ap->rows.buf, (int)ap->rows.len) != 1 ||
		    PQputCopyEnd(p->conn, NULL) != 1))
		rc = pg_result_error(p, NULL, ap->copy, err);
	while (!rc && (res = PQgetResult(p->conn)) != NULL) {
		if (!pg_ok(res))
			rc = copy_error(p, res, ap, err);
		PQclear(res);
	}
	buf_reset(&ap->rows);
	return rc;
}

void pg_appender_close(struct wh_appender *base)
{
	struct pg_appender *ap = (struct pg_appender *)base;

	buf_release(&ap->rows);
	buf_release(&ap->value);
	free(ap->copy);
	free(ap->table);
	free(ap->arrays);
	free(ap);
}

