/*
 * A session of the PostgreSQL backend (README.md, "A lost connection"):
 * opening one as sluice uses it, errors as sl_err, a lost session told
 * from a failed statement and opened anew, and statements run. Private to
 * the PostgreSQL backend.
 */
#ifndef SL_WAREHOUSE_POSTGRES_SESSION_H
#define SL_WAREHOUSE_POSTGRES_SESSION_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sl_err;
struct wh;
struct wh_arg;
struct wh_pg;
struct wh_result;

/* A failed result as an error; a lost session fails with SL_E_CONN, and
 * a COMMIT that met the loss says that its outcome is unknown. */
int pg_result_error(struct wh_pg *p, PGresult *res, const char *sql, struct sl_err *err);

/* A session as sluice uses one: the server's version checked, the
 * session's settings and functions made; what a lost session had is made
 * again so. version gets the server's. */
int pg_session_open(const char *dsn, PGconn **out, char *version, size_t n,
		    struct sl_err *err);

/* A lost session opened anew, when an attempt is due. */
int pg_session_reopen(struct wh_pg *p, struct sl_err *err);

/* Before a call reaches the server: a suspect warehouse refuses it, a
 * lost session is opened anew (unless the caller still holds the
 * transaction it lost), and whether the call begins inside a transaction
 * is noted for a loss to come. */
int pg_refused(struct wh_pg *p, struct sl_err *err);

bool pg_ok(const PGresult *res);

/* Appends rows from .. from + nrows - 1 of res to r. */
void pg_rows_add(struct wh_result *r, const PGresult *res, int from, int nrows);

struct wh_result *pg_result_new(const PGresult *res);

/* The rows of a result as a wh_result. */
struct wh_result *pg_result_rows(const PGresult *res);

/* Runs sql; the last statement's result goes to *res, which the caller
 * clears. */
int pg_run(struct wh_pg *p, const char *sql, PGresult **res, struct sl_err *err);

int pg_exec(struct wh *w, const char *sql, int64_t *changed, struct sl_err *err);

int pg_query(struct wh *w, const char *sql, struct wh_result **out, struct sl_err *err);

int pg_exec_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
		 struct wh_result **out, int64_t *changed, struct sl_err *err);

int pg_suspect_error(struct sl_err *err);

#endif
