/*
 * This file implements the PostgreSQL backend's query for a reader the
 * server does not trust (wh_query_readonly): a NO SCROLL cursor in a READ
 * ONLY transaction, fetched in batches under a watchdog, each row measured
 * before it is kept. It must never keep more than the limits.
 */
#include "warehouse/postgres_readonly.h"

#include "core/buf.h"
#include "core/err.h"
#include "warehouse/postgres_conn.h"
#include "warehouse/postgres_session.h"
#include "warehouse/watchdog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the first word of the text at sql is, past blanks and comments. */
static size_t first_word(const char *sql)
{
	const char *p = sql, *end;

	for (;;) {
		p += strspn(p, " \t\r\n\f");
		if (strncmp(p, "--", 2) == 0)
			p += strcspn(p, "\n");
		else if (strncmp(p, "/*", 2) == 0 && (end = strstr(p + 2, "*/")) != NULL)
			p = end + 2;
		else
			return (size_t)(p - sql);
	}
}

/* Whether a cursor declared for the reader's text (which starts at byte
 * at of sql) does not parse because the text is no query: a syntax error
 * at its first word (INSERT, COPY...), or several statements, which the
 * extended protocol does not take (no position). The server's message
 * stays: it names the word, or says "multiple commands". */
static bool refused_statement(const PGresult *res, const char *sql, size_t at)
{
	const char *pos = PQresultErrorField(res, PG_DIAG_STATEMENT_POSITION);

	/* the position counts characters from 1; the text before at is ASCII */
	return !pos || strtoll(pos, NULL, 10) == (long long)(at + first_word(sql + at)) + 1;
}

/* The error of a reader's statement, res failed or NULL. at: where a
 * reader's text starts in sql (0: sql is sluice's own). */
static int read_error(struct wh_pg *p, PGresult *res, const char *sql, size_t at,
		      struct sl_err *err)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	int rc = pg_result_error(p, res, sql, err);

	/* query_canceled: statement_timeout or the watchdog;
	 * read_only_sql_transaction: a write the READ ONLY transaction
	 * stopped (nextval, say) */
	if (state && strcmp(state, "57014") == 0)
		rc = SL_E_BUSY;
	else if (state && strcmp(state, "25006") == 0)
		rc = SL_E_USAGE;
	else if (state && strcmp(state, "42601") == 0 && at && refused_statement(res, sql, at))
		rc = sl_err_set(err, SL_E_USAGE, "only a query may be read through the server (%s)",
				PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY));
	if (err)
		err->code = rc;
	return rc;
}

/* One statement through the extended protocol, which takes no second one.
 * at: where a reader's text starts in sql (0: sql is sluice's own). */
static int run_one(struct wh_pg *p, const char *sql, size_t at, int n, const char *const *values,
		   PGresult **res, struct sl_err *err)
{
	int rc;

	*res = PQexecParams(p->conn, sql, n, NULL, values, NULL, NULL, 0);
	if (*res && pg_ok(*res))
		return 0;
	rc = read_error(p, *res, sql, at, err);
	PQclear(*res);
	*res = NULL;
	return rc;
}

/* Rows fetched from the cursor per round trip. */
#define READ_BATCH 1000

/* What a reader's read has come to so far. */
struct read_state {
	const struct wh_read_limits *lim;
	PGcancel *cancel;
	struct wh_result *out;
	size_t bytes;
	bool truncated;
};

static void cancel_reader(void *ctx)
{
	char why[256];

	PQcancel(ctx, why, sizeof(why));
}

/* Takes res's rows while they fit in the limits; the first that does not
 * is left out and marks the read truncated. A row is measured before any
 * of it is copied. */
static void take_rows(struct read_state *st, const PGresult *res)
{
	int ncols = PQnfields(res);

	if (!st->out)
		st->out = pg_result_new(res);
	for (int i = 0; i < PQntuples(res) && !st->truncated; i++) {
		size_t row = 0;

		for (int c = 0; c < ncols; c++)
			row += (size_t)PQgetlength(res, i, c) + 1;
		st->truncated = wh_result_nrows(st->out) == st->lim->max_rows ||
				row > st->lim->max_bytes - st->bytes;
		if (st->truncated)
			return;
		st->bytes += row;
		pg_rows_add(st->out, res, i, 1);
	}
}

/* One FETCH of n rows, read a row at a time (single-row mode), so that
 * libpq never holds more than one: the rest of a FETCH that passed the
 * byte limit is cancelled and dropped. *got: the rows it returned. */
static int fetch_batch(struct wh_pg *p, struct read_state *st, int n, int *got,
		       struct sl_err *err)
{
	char fetch[64];
	bool full = st->truncated;
	PGresult *res;
	int rc = 0;

	*got = 0;
	snprintf(fetch, sizeof(fetch), "FETCH FORWARD %d FROM sluice_read", n);
	if (!PQsendQueryParams(p->conn, fetch, 0, NULL, NULL, NULL, NULL, 0))
		return read_error(p, NULL, fetch, 0, err);
	PQsetSingleRowMode(p->conn);
	while ((res = PQgetResult(p->conn)) != NULL) {
		ExecStatusType status = PQresultStatus(res);

		if (status == PGRES_SINGLE_TUPLE || status == PGRES_TUPLES_OK) {
			*got += PQntuples(res);
			take_rows(st, res);
			/* rows of it still to come are not waited for */
			if (st->truncated && !full && *got < n)
				cancel_reader(st->cancel);
			full = st->truncated;
		} else if (!rc && !st->truncated) {
			rc = read_error(p, res, fetch, 0, err);
		}
		PQclear(res);
	}
	return rc;
}

/* Fetches until the cursor ends or the limits are reached; a FETCH asks
 * for one row more than max_rows leaves room for, which tells whether
 * there were more. Between FETCHes the watchdog's cancel finds nothing to
 * cancel: a deadline passed there ends the read. */
static int fetch_bounded(struct wh_pg *p, struct read_state *st, struct wh_watchdog *wd,
			 struct sl_err *err)
{
	int n, got = 0, rc = 0;

	do {
		size_t room = st->lim->max_rows - (st->out ? wh_result_nrows(st->out) : 0);

		n = room < READ_BATCH ? (int)room + 1 : READ_BATCH;
		rc = wh_watchdog_fired(wd) ? SL_E_BUSY : fetch_batch(p, st, n, &got, err);
	} while (!rc && !st->truncated && got == n);
	if (rc) {
		wh_result_free(st->out);
		st->out = NULL;
	}
	return rc;
}

/* The first n rows of the cursor passed over in the server, never sent:
 * a page of a long answer. */
static int skip_rows(struct wh_pg *p, uint64_t n, struct sl_err *err)
{
	char move[64];
	PGresult *res;
	int rc;

	snprintf(move, sizeof(move), "MOVE FORWARD %llu IN sluice_read", (unsigned long long)n);
	rc = run_one(p, move, 0, 0, NULL, &res, err);
	PQclear(res);
	return rc;
}

/* A cursor takes a SELECT or VALUES only, and no data-modifying WITH; the
 * transaction is READ ONLY and made so before the query, and its first
 * statement takes the snapshot, after which nothing makes it read-write.
 * statement_timeout applies per statement and the query may change it: a
 * watchdog cancels whatever runs when timeout_ms have passed in all. */
int pg_query_readonly(struct wh *w, const char *sql, const struct wh_read_limits *lim,
		      struct wh_result **out, bool *truncated, struct sl_err *err)
{
	struct wh_pg *p = pg_conn(w);
	struct buf declare = BUF_INIT;
	struct read_state st = { .lim = lim };
	struct wh_watchdog *wd;
	char timeout[32];
	const char *values[] = { timeout };
	PGresult *res;
	size_t at;
	int rc = pg_refused(p, err);

	if (rc)
		return rc;
	st.cancel = PQgetCancel(p->conn);
	if (!st.cancel)
		return pg_result_error(p, NULL, "", err);
	snprintf(timeout, sizeof(timeout), "%lld", (long long)lim->timeout_ms);
	buf_adds(&declare, "DECLARE sluice_read NO SCROLL CURSOR FOR ");
	at = declare.len;
	buf_adds(&declare, sql);
	rc = pg_run(p, "BEGIN TRANSACTION READ ONLY", &res, err);
	PQclear(res);
	if (!rc)
		rc = run_one(p, "SELECT set_config('statement_timeout', $1, true)", 0, 1, values,
			     &res, err);
	if (!rc) {
		PQclear(res);
		rc = wh_watchdog_start(lim->timeout_ms, cancel_reader, st.cancel, &wd, err);
	}
	if (!rc) {
		rc = run_one(p, declare.buf, at, 0, NULL, &res, err);
		PQclear(res);
		if (!rc && lim->offset)
			rc = skip_rows(p, lim->offset, err);
		if (!rc)
			rc = fetch_bounded(p, &st, wd, err);
		wh_watchdog_stop(wd);
	}
	buf_release(&declare);
	PQfreeCancel(st.cancel);
	if (rc == SL_E_BUSY)
		sl_err_set(err, rc, "the query ran past its %lld ms and was stopped",
			   (long long)lim->timeout_ms);
	res = PQexec(p->conn, "ROLLBACK");
	PQclear(res);
	/* a session-level advisory lock the query took outlives its
	 * transaction, and would hold the runners and commands of every
	 * process that shares the warehouse */
	res = PQexec(p->conn, "SELECT pg_advisory_unlock_all()");
	PQclear(res);
	*out = st.out;
	*truncated = st.truncated;
	return rc;
}

