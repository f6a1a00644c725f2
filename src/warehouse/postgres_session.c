/*
 * This file implements a session of the PostgreSQL backend: opened as
 * sluice uses one (version checked, settings and functions made), errors
 * read as sl_err, a lost session told from a failed statement and opened
 * anew when an attempt is due, and statements run through the simple
 * query protocol or PQexecParams. Every PGresult is cleared on every path;
 * nothing of a lost transaction is ever carried over to a new session.
 */
#include "warehouse/postgres_session.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "warehouse/postgres_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int pg_result_error(struct wh_pg *p, PGresult *res, const char *sql, struct sl_err *err)
{
	const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(p->conn);
	size_t len = strcspn(msg, "\n");
	bool commit = strncasecmp(sql, "COMMIT", 6) == 0 || strncasecmp(sql, "END", 3) == 0;
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	if (!len) {
		msg = "no connection to the server";
		len = strlen(msg);
	}
	if (PQstatus(p->conn) == CONNECTION_BAD || wh_reconnect_lost_state(state)) {
		atomic_store(&p->lost, true);
		p->lost_in_txn = p->in_txn;
		if (commit)
			return sl_err_set(err, SL_E_CONN,
					  "the connection to PostgreSQL was lost during a commit, "
					  "which may or may not have committed: %.*s",
					  (int)len, msg);
		return sl_err_set(err, SL_E_CONN, "the connection to PostgreSQL was lost: %.*s",
				  (int)len, msg);
	}
	/* another transaction changed what this one read (serialization
	 * failure) or they waited for each other (deadlock): this one was
	 * rolled back, and may be tried again */
	if (state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0))
		return sl_err_set(err, SL_E_BUSY, "%.*s", (int)len, msg);
	return sl_err_set(err, SL_E_SQL, "%.*s", (int)len, msg);
}

int pg_session_reopen(struct wh_pg *p, struct sl_err *err)
{
	struct sl_err why = SL_ERR_INIT;
	int64_t now = units_mono_ms();
	PGconn *conn;
	int rc;

	if (!wh_reconnect_due(&p->again, now))
		return sl_err_set(err, SL_E_CONN,
				  "the connection to PostgreSQL was lost: %s; trying again in %lld ms",
				  p->why, (long long)(p->again.next_ms - now));
	rc = pg_session_open(p->dsn, &conn, p->version, sizeof(p->version), &why);
	if (rc) {
		wh_reconnect_failed(&p->again, now);
		snprintf(p->why, sizeof(p->why), "%.*s", (int)strcspn(why.msg, "\n"), why.msg);
		return sl_err_set(err, SL_E_CONN, "%s (attempt %d; again in %lld ms)", p->why,
				  p->again.failures,
				  (long long)wh_reconnect_wait_ms(p->again.failures));
	}
	PQfinish(p->conn);
	p->conn = conn;
	wh_reconnect_done(&p->again);
	atomic_fetch_add(&p->sessions, 1);
	atomic_store(&p->lost, false);
	return 0;
}

int pg_refused(struct wh_pg *p, struct sl_err *err)
{
	PGTransactionStatusType ts;

	if (p->suspect)
		return sl_err_set(err, SL_E_SUSPECT, "the warehouse failed a write and is in doubt");
	if (atomic_load(&p->lost) && p->lost_in_txn)
		return sl_err_set(err, SL_E_CONN,
				  "the connection to PostgreSQL was lost in a transaction, which "
				  "is to be rolled back first");
	if (atomic_load(&p->lost) && pg_session_reopen(p, err))
		return SL_E_CONN;
	ts = PQtransactionStatus(p->conn);
	p->in_txn = ts == PQTRANS_INTRANS || ts == PQTRANS_INERROR;
	return 0;
}

bool pg_ok(const PGresult *res)
{
	ExecStatusType st = PQresultStatus(res);

	return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY;
}

void pg_rows_add(struct wh_result *r, const PGresult *res, int from, int nrows)
{
	int ncols = PQnfields(res);
	size_t first = wh_result_add_rows(r, (size_t)nrows);

	for (int i = 0; i < nrows; i++) {
		for (int c = 0; c < ncols; c++) {
			int len = PQgetlength(res, from + i, c);

			if (PQgetisnull(res, from + i, c))
				continue;
			memcpy(wh_result_set_value(r, first + (size_t)i, (size_t)c, (size_t)len),
			       PQgetvalue(res, from + i, c), (size_t)len);
		}
	}
}

struct wh_result *pg_result_new(const PGresult *res)
{
	int ncols = PQnfields(res);
	struct wh_result *r = wh_result_new((size_t)ncols);

	for (int c = 0; c < ncols; c++)
		wh_result_set_colname(r, (size_t)c, PQfname(res, c));
	return r;
}

struct wh_result *pg_result_rows(const PGresult *res)
{
	struct wh_result *r = pg_result_new(res);

	pg_rows_add(r, res, 0, PQntuples(res));
	return r;
}

/* Whether sql is the rollback of a whole transaction (not of a savepoint
 * or a prepared one), which a lost session has already done. */
static bool whole_rollback(const char *sql)
{
	size_t n = strspn(sql, " \t\n");

	if (strncasecmp(sql + n, "ROLLBACK", 8) != 0)
		return false;
	n += 8;
	n += strspn(sql + n, " \t\n;");
	return sql[n] == '\0';
}

int pg_run(struct wh_pg *p, const char *sql, PGresult **res, struct sl_err *err)
{
	int rc;

	*res = NULL;
	/* what was lost rolled back with the session */
	if (atomic_load(&p->lost) && whole_rollback(sql)) {
		p->lost_in_txn = false;
		return 0;
	}
	rc = pg_refused(p, err);
	if (rc)
		return rc;
	*res = PQexec(p->conn, sql);
	if (*res && pg_ok(*res))
		return 0;
	rc = pg_result_error(p, *res, sql, err);
	PQclear(*res);
	*res = NULL;
	return rc;
}

int pg_exec(struct wh *w, const char *sql, int64_t *changed, struct sl_err *err)
{
	PGresult *res;
	int rc = pg_run(pg_conn(w), sql, &res, err);

	if (!rc && changed)
		*changed = strtoll(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	return rc;
}

int pg_query(struct wh *w, const char *sql, struct wh_result **out, struct sl_err *err)
{
	PGresult *res;
	int rc = pg_run(pg_conn(w), sql, &res, err);

	*out = rc ? NULL : pg_result_rows(res);
	PQclear(res);
	return rc;
}

int pg_exec_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
		 struct wh_result **out, int64_t *changed, struct sl_err *err)
{
	struct wh_pg *p = pg_conn(w);
	/* a root: every statement with arguments passes here, from callers
	 * that hold no arena */
	struct arena *a = arena_new(NULL);
	const char **values = arena_alloc(a, (n + 1) * sizeof(char *));
	PGresult *res;
	int rc = pg_refused(p, err);

	for (size_t i = 0; i < n; i++) {
		if (args[i].kind == WH_ARG_TEXT) {
			values[i] = args[i].s;
		} else if (args[i].kind == WH_ARG_INT) {
			values[i] = arena_sprintf(a, "%lld", (long long)args[i].i);
		} else {
			char ts[40];

			units_format_ts(args[i].i, ts, sizeof(ts));
			values[i] = arena_strdup(a, ts);
		}
	}
	res = rc ? NULL : PQexecParams(p->conn, sql, (int)n, NULL, values, NULL, NULL, 0);
	if (!rc && !(res && pg_ok(res)))
		rc = pg_result_error(p, res, sql, err);
	if (!rc && out)
		*out = pg_result_rows(res);
	if (!rc && changed)
		*changed = strtoll(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	arena_free(a);
	return rc;
}

int pg_suspect_error(struct sl_err *err)
{
	return sl_err_set(err, SL_E_SUSPECT, "the warehouse failed a write and is in doubt");
}

/* PostgreSQL has no cast that gives NULL for what it cannot read: this one,
 * made per connection in its own temporary schema, catches the error. */
#define TRY_CAST_FUNCTION                                                                   \
	"CREATE FUNCTION pg_temp.sluice_try_cast(v text, t anyelement) RETURNS anyelement " \
	"LANGUAGE plpgsql IMMUTABLE AS $f$ BEGIN EXECUTE format('SELECT CAST(%L AS %s)', v, "   \
	"pg_typeof(t)) INTO t; RETURN t; EXCEPTION WHEN others THEN RETURN NULL; END $f$"

int pg_session_open(const char *dsn, PGconn **out, char *version, size_t n,
		    struct sl_err *err)
{
	PGconn *conn = PQconnectdb(dsn);
	const char *msg;
	PGresult *res;
	int v, rc = 0;

	if (PQstatus(conn) != CONNECTION_OK) {
		msg = PQerrorMessage(conn);
		rc = sl_err_set(err, SL_E_IO, "cannot connect to PostgreSQL: %.*s",
				(int)strcspn(msg, "\n"), msg);
	} else if ((v = PQserverVersion(conn)) < PG_MIN_VERSION) {
		rc = sl_err_set(err, SL_E_VERSION,
				"PostgreSQL %d.%d is older than 15, the oldest sluice works with",
				v / 10000, v % 10000);
	} else {
		snprintf(version, n, "PostgreSQL %s", PQparameterStatus(conn, "server_version"));
		res = PQexec(conn, "SET client_min_messages = warning; " TRY_CAST_FUNCTION);
		if (!res || !pg_ok(res)) {
			msg = res ? PQresultErrorMessage(res) : PQerrorMessage(conn);
			rc = sl_err_set(err, SL_E_IO, "cannot set up a PostgreSQL session: %.*s",
					(int)strcspn(msg, "\n"), msg);
		}
		PQclear(res);
	}
	if (rc)
		PQfinish(conn);
	else
		*out = conn;
	return rc;
}

