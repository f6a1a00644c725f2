/*
 * This file implements binding a query on PostgreSQL (postgres_bind.h):
 * PREPARE parses and analyses it against the server's catalog (every
 * table, column, function and type named) without running it, and the
 * statement is let go at once. An error the query's text causes (SQLSTATE
 * class 42, and 22 for a literal of a type) comes back as SL_E_INVALID
 * with its place in the query; any other as the session's error.
 */
#include "warehouse/postgres_bind.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/postgres_conn.h"
#include "warehouse/postgres_session.h"

#include <stdlib.h>
#include <string.h>

#define PREFIX "PREPARE _sluice_bind AS "

/* The byte offset in query of the server's position, which counts
 * characters from 1 in the whole statement; -1 when there is none. */
static long byte_offset(const char *query, const char *pos)
{
	long chars = pos ? strtol(pos, NULL, 10) - 1 - (long)strlen(PREFIX) : -1;
	long i = 0;

	if (chars < 0)
		return -1;
	/* a UTF-8 character is its lead byte and continuation bytes */
	while (chars > 0 && query[i]) {
		i++;
		while (((unsigned char)query[i] & 0xc0) == 0x80)
			i++;
		chars--;
	}
	return chars ? -1 : i;
}

int pg_bind(struct wh *w, struct arena *a, const char *query, long *offset, const char **hint,
	    struct sl_err *err)
{
	struct wh_pg *p = pg_conn(w);
	struct buf sql = BUF_INIT;
	PGresult *res;
	const char *state;
	int rc = 0;

	*offset = -1;
	*hint = NULL;
	buf_addf(&sql, PREFIX "%s", query);
	res = PQexec(p->conn, sql.buf);
	state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	if (res && PQresultStatus(res) == PGRES_COMMAND_OK) {
		PQclear(res);
		res = PQexec(p->conn, "DEALLOCATE _sluice_bind");
		if (!res || PQresultStatus(res) != PGRES_COMMAND_OK)
			rc = pg_result_error(p, res, "DEALLOCATE _sluice_bind", err);
	} else if (state && (strncmp(state, "42", 2) == 0 || strncmp(state, "22", 2) == 0)) {
		const char *h = PQresultErrorField(res, PG_DIAG_MESSAGE_HINT);

		*offset = byte_offset(query, PQresultErrorField(res, PG_DIAG_STATEMENT_POSITION));
		*hint = h ? arena_strdup(a, h) : NULL;
		rc = sl_err_set(err, SL_E_INVALID, "%s",
				PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY));
	} else {
		rc = pg_result_error(p, res, sql.buf, err);
	}
	PQclear(res);
	buf_release(&sql);
	return rc;
}
