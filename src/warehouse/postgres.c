/*
 * The PostgreSQL backend, over libpq: statements through the simple query
 * protocol (several in one string run as one implicit transaction unless
 * they say otherwise), statements with arguments through PQexecParams,
 * results read as PostgreSQL's own text, appenders as COPY in text format,
 * and PostgreSQL's dialect. Every PGresult is cleared on every path.
 *
 * A connection the server ended (a restart, a failover, an administrator's
 * pg_terminate_backend) or that broke is lost: the call that met it fails
 * with SL_E_CONN, and so does every call until the caller rolled back the
 * transaction that was open then. The next call after that opens a new
 * session to the same server, with backoff between attempts that fail
 * (reconnect.h), and goes on there: nothing of a transaction is ever
 * carried over to the new session. A COMMIT that met the loss may or may
 * not have committed: its caller is told so, and looks.
 */
#include "warehouse/csv.h"
#include "warehouse/csv_file.h"
#include "warehouse/pg_array.h"
#include "warehouse/reconnect.h"
#include "warehouse/watchdog.h"
#include "warehouse/wh_impl.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"

#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The lowest server version sluice writes SQL for: MERGE arrived in 15. */
#define PG_MIN_VERSION 150000

struct wh_pg {
	struct wh base;
	PGconn *conn;
	char *dsn;
	bool suspect;
	char version[64];
	/* the session is gone (read by other threads: wh_lost) */
	atomic_bool lost;
	/* it was lost in a transaction the caller has not rolled back yet */
	bool lost_in_txn;
	/* the call under way began inside a transaction */
	bool in_txn;
	struct wh_reconnect again;
	char why[256]; /* what the last attempt to open it again met */
	atomic_uint_fast64_t sessions; /* opened anew since the first */
};

static struct wh_pg *pg(struct wh *w)
{
	return (struct wh_pg *)w;
}

/* A failed result as an error; a lost session fails with SL_E_CONN, and
 * a COMMIT that met the loss says that its outcome is unknown. */
static int result_error(struct wh_pg *p, PGresult *res, const char *sql, struct sl_err *err)
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

static int session_open(const char *dsn, PGconn **out, char *version, size_t n,
			struct sl_err *err);

/* A lost session opened anew, when an attempt is due. */
static int reconnect(struct wh_pg *p, struct sl_err *err)
{
	struct sl_err why = SL_ERR_INIT;
	int64_t now = units_mono_ms();
	PGconn *conn;
	int rc;

	if (!wh_reconnect_due(&p->again, now))
		return sl_err_set(err, SL_E_CONN,
				  "the connection to PostgreSQL was lost: %s; trying again in %lld ms",
				  p->why, (long long)(p->again.next_ms - now));
	rc = session_open(p->dsn, &conn, p->version, sizeof(p->version), &why);
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

/* Before a call reaches the server: a suspect warehouse refuses it, a
 * lost session is opened anew (unless the caller still holds the
 * transaction it lost), and whether the call begins inside a transaction
 * is noted for a loss to come. */
static int refused(struct wh_pg *p, struct sl_err *err)
{
	PGTransactionStatusType ts;

	if (p->suspect)
		return sl_err_set(err, SL_E_SUSPECT, "the warehouse failed a write and is in doubt");
	if (atomic_load(&p->lost) && p->lost_in_txn)
		return sl_err_set(err, SL_E_CONN,
				  "the connection to PostgreSQL was lost in a transaction, which "
				  "is to be rolled back first");
	if (atomic_load(&p->lost) && reconnect(p, err))
		return SL_E_CONN;
	ts = PQtransactionStatus(p->conn);
	p->in_txn = ts == PQTRANS_INTRANS || ts == PQTRANS_INERROR;
	return 0;
}

static bool ok(const PGresult *res)
{
	ExecStatusType st = PQresultStatus(res);

	return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY;
}

/* Appends rows from .. from + nrows - 1 of res to r. */
static void add_rows(struct wh_result *r, const PGresult *res, int from, int nrows)
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

static struct wh_result *columns_of(const PGresult *res)
{
	int ncols = PQnfields(res);
	struct wh_result *r = wh_result_new((size_t)ncols);

	for (int c = 0; c < ncols; c++)
		wh_result_set_colname(r, (size_t)c, PQfname(res, c));
	return r;
}

/* The rows of a result as a wh_result. */
static struct wh_result *rows_of(const PGresult *res)
{
	struct wh_result *r = columns_of(res);

	add_rows(r, res, 0, PQntuples(res));
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

/* Runs sql; the last statement's result goes to *res, which the caller
 * clears. */
static int run(struct wh_pg *p, const char *sql, PGresult **res, struct sl_err *err)
{
	int rc;

	*res = NULL;
	/* what was lost rolled back with the session */
	if (atomic_load(&p->lost) && whole_rollback(sql)) {
		p->lost_in_txn = false;
		return 0;
	}
	rc = refused(p, err);
	if (rc)
		return rc;
	*res = PQexec(p->conn, sql);
	if (*res && ok(*res))
		return 0;
	rc = result_error(p, *res, sql, err);
	PQclear(*res);
	*res = NULL;
	return rc;
}

static int pg_exec(struct wh *w, const char *sql, int64_t *changed, struct sl_err *err)
{
	PGresult *res;
	int rc = run(pg(w), sql, &res, err);

	if (!rc && changed)
		*changed = strtoll(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	return rc;
}

static int pg_query(struct wh *w, const char *sql, struct wh_result **out, struct sl_err *err)
{
	PGresult *res;
	int rc = run(pg(w), sql, &res, err);

	*out = rc ? NULL : rows_of(res);
	PQclear(res);
	return rc;
}

static int pg_exec_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
			struct wh_result **out, int64_t *changed, struct sl_err *err)
{
	struct wh_pg *p = pg(w);
	struct arena *a = arena_new(NULL);
	const char **values = arena_alloc(a, (n + 1) * sizeof(char *));
	PGresult *res;
	int rc = refused(p, err);

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
	if (!rc && !(res && ok(res)))
		rc = result_error(p, res, sql, err);
	if (!rc && out)
		*out = rows_of(res);
	if (!rc && changed)
		*changed = strtoll(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	arena_free(a);
	return rc;
}

/* ---- a reader's query (wh_query_readonly) ---- */

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
	int rc = result_error(p, res, sql, err);

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
	if (*res && ok(*res))
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
		st->out = columns_of(res);
	for (int i = 0; i < PQntuples(res) && !st->truncated; i++) {
		size_t row = 0;

		for (int c = 0; c < ncols; c++)
			row += (size_t)PQgetlength(res, i, c) + 1;
		st->truncated = wh_result_nrows(st->out) == st->lim->max_rows ||
				row > st->lim->max_bytes - st->bytes;
		if (st->truncated)
			return;
		st->bytes += row;
		add_rows(st->out, res, i, 1);
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

/* A cursor takes a SELECT or VALUES only, and no data-modifying WITH; the
 * transaction is READ ONLY and made so before the query, and its first
 * statement takes the snapshot, after which nothing makes it read-write.
 * statement_timeout applies per statement and the query may change it: a
 * watchdog cancels whatever runs when timeout_ms have passed in all. */
static int pg_query_readonly(struct wh *w, const char *sql, const struct wh_read_limits *lim,
			     struct wh_result **out, bool *truncated, struct sl_err *err)
{
	struct wh_pg *p = pg(w);
	struct buf declare = BUF_INIT;
	struct read_state st = { .lim = lim };
	struct wh_watchdog *wd;
	char timeout[32];
	const char *values[] = { timeout };
	PGresult *res;
	size_t at;
	int rc = refused(p, err);

	if (rc)
		return rc;
	st.cancel = PQgetCancel(p->conn);
	if (!st.cancel)
		return result_error(p, NULL, "", err);
	snprintf(timeout, sizeof(timeout), "%lld", (long long)lim->timeout_ms);
	buf_adds(&declare, "DECLARE sluice_read NO SCROLL CURSOR FOR ");
	at = declare.len;
	buf_adds(&declare, sql);
	rc = run(p, "BEGIN TRANSACTION READ ONLY", &res, err);
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
	*out = st.out;
	*truncated = st.truncated;
	return rc;
}

static void pg_forget_statement(struct wh *w, const char *sql)
{
	(void)w;
	(void)sql;
}

static const char *pg_version(struct wh *w)
{
	return pg(w)->version;
}

static int suspect_error(struct sl_err *err)
{
	return sl_err_set(err, SL_E_SUSPECT, "the warehouse failed a write and is in doubt");
}

static bool pg_suspect(struct wh *w, struct sl_err *err)
{
	if (pg(w)->suspect)
		suspect_error(err);
	return pg(w)->suspect;
}

static bool pg_lost(const struct wh *w)
{
	return atomic_load(&((const struct wh_pg *)w)->lost);
}

static int pg_reconnect(struct wh *w, struct sl_err *err)
{
	struct wh_pg *p = pg(w);

	if (!atomic_load(&p->lost))
		return 0;
	/* its caller holds no transaction: what the lost one did is gone */
	p->lost_in_txn = false;
	return reconnect(p, err);
}

static uint64_t pg_sessions(const struct wh *w)
{
	return atomic_load(&((const struct wh_pg *)w)->sessions);
}

static void pg_close(struct wh *w)
{
	struct wh_pg *p = pg(w);

	PQfinish(p->conn);
	wh_memo_release(p->base.memo);
	free(p->dsn);
	free(p);
}

/* PostgreSQL has no cast that gives NULL for what it cannot read: this one,
 * made per connection in its own temporary schema, catches the error. */
#define TRY_CAST_FUNCTION                                                                   \
	"CREATE FUNCTION pg_temp.sluice_try_cast(v text, t anyelement) RETURNS anyelement " \
	"LANGUAGE plpgsql IMMUTABLE AS $f$ BEGIN EXECUTE format('SELECT CAST(%L AS %s)', v, "   \
	"pg_typeof(t)) INTO t; RETURN t; EXCEPTION WHEN others THEN RETURN NULL; END $f$"

static const struct wh_ops pg_ops;

/* A session as sluice uses one: the server's version checked, the
 * session's settings and functions made; what a lost session had is made
 * again so. version gets the server's. */
static int session_open(const char *dsn, PGconn **out, char *version, size_t n,
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
		if (!res || !ok(res)) {
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

static int pg_open_conn(const char *dsn, struct wh_memo *memo, struct wh **out,
			struct sl_err *err)
{
	struct wh_pg *p = xcalloc(1, sizeof(*p));
	int rc;

	p->base.ops = &pg_ops;
	rc = session_open(dsn, &p->conn, p->version, sizeof(p->version), err);
	if (rc) {
		free(p);
		return rc;
	}
	p->dsn = xstrdup(dsn);
	p->base.memo = memo;
	*out = &p->base;
	return 0;
}

int wh_open_postgres(const char *dsn, struct wh **out, struct sl_err *err)
{
	struct wh_memo *memo = wh_memo_new();
	int rc = pg_open_conn(dsn, memo, out, err);

	if (rc)
		wh_memo_release(memo);
	return rc;
}

static int pg_connect(struct wh *w, struct wh **out, struct sl_err *err)
{
	struct wh_pg *p = pg(w);
	int rc;

	if (p->suspect)
		return suspect_error(err);
	wh_memo_retain(p->base.memo);
	rc = pg_open_conn(p->dsn, p->base.memo, out, err);
	if (rc)
		wh_memo_release(p->base.memo);
	/* the server this process works on, unreachable for now: to be
	 * tried again, as a lost connection is */
	if (rc == SL_E_IO && err)
		err->code = SL_E_CONN;
	return rc == SL_E_IO ? SL_E_CONN : rc;
}

/* Dialect */

/* The columns of schema.name as one text, in a DO block's condition. */
static void add_column_list(struct buf *sql, const char *schema, const char *name)
{
	buf_adds(sql, "(SELECT string_agg(column_name || ' ' || data_type, ',' ORDER BY "
		      "ordinal_position) FROM information_schema.columns WHERE table_schema = ");
	buf_add_sql_str(sql, schema);
	buf_adds(sql, " AND table_name = ");
	buf_add_sql_str(sql, name);
	buf_adds(sql, ")");
}

/* PostgreSQL keeps the views that read a table bound to it, and will not
 * drop a table they read: a table whose columns stay the same takes the
 * new rows in place (readers see the old rows or the new ones, never an
 * error); one whose columns change is dropped and the new one renamed,
 * which fails, naming the views, while views read it. */
static void pg_swap_in(struct wh *w, struct buf *sql, const char *schema, const char *staging,
		       const char *name, const char *old_kind)
{
	struct buf target = BUF_INIT, stage = BUF_INIT, rename = BUF_INIT;

	(void)w;
	wh_sql_qualified(&target, schema, name);
	wh_sql_qualified(&stage, schema, staging);
	buf_addf(&rename, "ALTER TABLE %s RENAME TO ", stage.buf);
	wh_sql_ident(&rename, name);
	if (old_kind && strcmp(old_kind, "view") != 0) {
		buf_adds(sql, "DO $sluice$ BEGIN IF ");
		add_column_list(sql, schema, name);
		buf_adds(sql, " IS NOT DISTINCT FROM ");
		add_column_list(sql, schema, staging);
		buf_addf(sql,
			 " THEN DELETE FROM %s; INSERT INTO %s SELECT * FROM %s; DROP TABLE %s; "
			 "ELSE DROP TABLE %s; %s; END IF; END $sluice$;\n",
			 target.buf, target.buf, stage.buf, stage.buf, target.buf, rename.buf);
	} else {
		if (old_kind)
			buf_addf(sql, "DROP VIEW %s;\n", target.buf);
		buf_addf(sql, "%s;\n", rename.buf);
	}
	buf_release(&target);
	buf_release(&stage);
	buf_release(&rename);
}

/* The quote around a view's query in the block that replaces it; a query
 * that holds it is replaced the plain way. */
#define VIEW_TAG "$sluice_view$"

static void pg_replace_as(struct wh *w, struct buf *sql, enum wh_replace what, const char *schema,
			  const char *name, const char *query)
{
	struct buf target = BUF_INIT;

	(void)w;
	if (schema)
		wh_sql_qualified(&target, schema, name);
	else
		wh_sql_ident(&target, name);
	/* a view keeps the views that read it when its columns stay; one
	 * whose columns change (PostgreSQL refuses to replace it then) is
	 * made anew, unless views read it: dropping it is refused, naming
	 * them */
	if (what == WH_VIEW && !strstr(query, VIEW_TAG))
		buf_addf(sql,
			 "DO " VIEW_TAG " BEGIN CREATE OR REPLACE VIEW %s AS\n%s\n;\nEXCEPTION WHEN "
			 "invalid_table_definition THEN DROP VIEW %s; CREATE VIEW %s AS\n%s\n; "
			 "END " VIEW_TAG,
			 target.buf, query, target.buf, target.buf, query);
	else if (what == WH_VIEW)
		buf_addf(sql, "CREATE OR REPLACE VIEW %s AS\n%s", target.buf, query);
	else
		buf_addf(sql, "DROP TABLE IF EXISTS %s;\nCREATE %sTABLE %s AS\n%s", target.buf,
			 what == WH_TEMP_TABLE ? "TEMP " : "", target.buf, query);
	buf_release(&target);
}

static void pg_first_per_key(struct wh *w, struct buf *sql, const char *from, const char *keys,
			     const char *order)
{
	(void)w;
	buf_addf(sql, "SELECT DISTINCT ON (%s) * FROM %s ORDER BY %s, %s", keys, from, keys, order);
}

static void pg_epoch(struct wh *w, struct buf *sql, const char *expr, int digits)
{
	(void)w;
	buf_addf(sql, "CAST(floor(extract(epoch FROM %s) * %s) AS BIGINT)", expr,
		 digits == 3 ? "1000" : "1000000");
}

static void pg_try_cast(struct wh *w, struct buf *sql, const char *expr, const char *type)
{
	(void)w;
	buf_addf(sql, "pg_temp.sluice_try_cast(CAST(%s AS TEXT), CAST(NULL AS %s))", expr, type);
}

static void pg_matches(struct wh *w, struct buf *sql, const char *expr, const char *re)
{
	char *whole = NULL;

	(void)w;
	if (asprintf(&whole, "^(?:%s)$", re) < 0)
		abort();
	buf_addf(sql, "(%s ~ ", expr);
	buf_add_sql_str(sql, whole);
	buf_adds(sql, ")");
	free(whole);
}

static const char *pg_type(struct wh *w, enum wh_type t)
{
	static const char *const names[] = {
		[WH_TYPE_BIGINT] = "BIGINT",       [WH_TYPE_INT128] = "NUMERIC(38, 0)",
		[WH_TYPE_DOUBLE] = "DOUBLE PRECISION",
		[WH_TYPE_TEXT] = "TEXT",           [WH_TYPE_TIMESTAMP] = "TIMESTAMP",
		[WH_TYPE_TIMESTAMPTZ] = "TIMESTAMPTZ", [WH_TYPE_BOOLEAN] = "BOOLEAN",
	};

	(void)w;
	return names[t];
}

/* DuckDB's names that PostgreSQL lacks, each as the PostgreSQL type that
 * holds all its values. */
static const char *const duckdb_names[][2] = {
	{ "DOUBLE", "DOUBLE PRECISION" }, { "FLOAT8", "DOUBLE PRECISION" },
	{ "FLOAT", "REAL" },		  { "FLOAT4", "REAL" },
	{ "TINYINT", "SMALLINT" },	  { "INT1", "SMALLINT" },
	{ "INT16", "SMALLINT" },	  { "SHORT", "SMALLINT" },
	{ "UTINYINT", "SMALLINT" },	  { "UINT8", "SMALLINT" },
	{ "INT32", "INTEGER" },		  { "SIGNED", "INTEGER" },
	{ "USMALLINT", "INTEGER" },	  { "UINT16", "INTEGER" },
	{ "INT64", "BIGINT" },		  { "LONG", "BIGINT" },
	{ "UINTEGER", "BIGINT" },	  { "UINT32", "BIGINT" },
	{ "UBIGINT", "NUMERIC(20, 0)" },  { "UINT64", "NUMERIC(20, 0)" },
	{ "HUGEINT", "NUMERIC(39, 0)" },  { "INT128", "NUMERIC(39, 0)" },
	{ "UHUGEINT", "NUMERIC(39, 0)" }, { "UINT128", "NUMERIC(39, 0)" },
	{ "BLOB", "BYTEA" },		  { "STRING", "TEXT" },
	{ "LOGICAL", "BOOLEAN" },	  { "DATETIME", "TIMESTAMP" },
};

/* decl's base name (before any [] of a list), in any case, looked up;
 * the list brackets are kept. */
static const char *pg_declared_type(struct wh *w, struct arena *a, const char *decl)
{
	size_t len = strlen(decl), base;

	(void)w;
	while (len && decl[len - 1] == ' ')
		len--;
	base = len;
	while (base >= 2 && decl[base - 2] == '[' && decl[base - 1] == ']')
		base -= 2;
	for (size_t i = 0; i < sizeof(duckdb_names) / sizeof(*duckdb_names); i++)
		if (strlen(duckdb_names[i][0]) == base &&
		    strncasecmp(decl, duckdb_names[i][0], base) == 0)
			return arena_sprintf(a, "%s%.*s", duckdb_names[i][1], (int)(len - base),
					     decl + base);
	return decl;
}

/* The statement is described, not run; the type names come from the
 * catalog in one more query. */
static int pg_query_columns(struct wh *w, struct arena *a, const char *query,
			    struct wh_column **cols, size_t *n, struct sl_err *err)
{
	struct wh_pg *p = pg(w);
	struct buf sql = BUF_INIT;
	struct wh_result *types = NULL;
	PGresult *res;
	int rc = refused(p, err), nf;

	if (rc)
		return rc;
	buf_adds(&sql, query);
	res = PQprepare(p->conn, "", sql.buf, 0, NULL);
	if (!res || !ok(res))
		rc = result_error(p, res, sql.buf, err);
	PQclear(res);
	res = rc ? NULL : PQdescribePrepared(p->conn, "");
	if (!rc && !(res && ok(res)))
		rc = result_error(p, res, sql.buf, err);
	nf = rc ? 0 : PQnfields(res);
	buf_reset(&sql);
	buf_adds(&sql, "SELECT ");
	for (int i = 0; i < nf; i++)
		buf_addf(&sql, "%sformat_type(%u, %d)", i ? ", " : "", PQftype(res, i),
			 PQfmod(res, i));
	if (!rc && nf)
		rc = pg_query(w, sql.buf, &types, err);
	*n = rc ? 0 : (size_t)nf;
	*cols = arena_alloc(a, (*n + 1) * sizeof(**cols));
	for (size_t i = 0; i < *n; i++) {
		(*cols)[i].name = arena_strdup(a, PQfname(res, (int)i));
		(*cols)[i].type = arena_strdup(a, wh_result_value(types, 0, i));
	}
	wh_result_free(types);
	PQclear(res);
	buf_release(&sql);
	return rc;
}

/* The columns of query paired with schema.name's by name, any case: the
 * table's spelling where it has the column, the query's where it does not,
 * so that the statement fails naming it. */
static int paired(struct wh *w, struct arena *a, const char *schema, const char *name,
		  const char *query, struct wh_column **qcols, const char ***tnames, size_t *n,
		  struct sl_err *err)
{
	struct buf table = BUF_INIT, q = BUF_INIT;
	struct wh_column *tcols;
	size_t nt = 0;
	int rc;

	buf_adds(&table, "SELECT * FROM ");
	wh_sql_qualified(&table, schema, name);
	buf_addf(&q, "SELECT * FROM (\n%s\n) AS _sluice_q", query);
	rc = pg_query_columns(w, a, q.buf, qcols, n, err);
	if (!rc)
		rc = pg_query_columns(w, a, table.buf, &tcols, &nt, err);
	*tnames = arena_alloc(a, (*n + 1) * sizeof(char *));
	for (size_t i = 0; !rc && i < *n; i++) {
		(*tnames)[i] = (*qcols)[i].name;
		for (size_t k = 0; k < nt; k++)
			if (strcasecmp(tcols[k].name, (*qcols)[i].name) == 0)
				(*tnames)[i] = tcols[k].name;
	}
	buf_release(&table);
	buf_release(&q);
	return rc;
}

static void add_names(struct buf *sql, const char *alias, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		buf_adds(sql, i ? ", " : "");
		if (alias)
			buf_addf(sql, "%s.", alias);
		wh_sql_ident(sql, names[i]);
	}
}

static int pg_insert_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
			     const char *name, const char *query, struct sl_err *err)
{
	struct wh_column *qcols;
	const char **tnames, **qnames;
	size_t n;
	int rc = paired(w, a, schema, name, query, &qcols, &tnames, &n, err);

	if (rc)
		return rc;
	qnames = arena_alloc(a, (n + 1) * sizeof(char *));
	for (size_t i = 0; i < n; i++)
		qnames[i] = qcols[i].name;
	buf_adds(sql, "INSERT INTO ");
	wh_sql_qualified(sql, schema, name);
	buf_adds(sql, " (");
	add_names(sql, NULL, tnames, n);
	buf_adds(sql, ") SELECT ");
	add_names(sql, NULL, qnames, n);
	buf_addf(sql, " FROM (\n%s\n) AS _sluice_q", query);
	return 0;
}

static int pg_merge_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
			    const char *name, const char *source, const char *alias,
			    struct sl_err *err)
{
	struct wh_column *qcols;
	const char **tnames, **qnames;
	size_t n;
	int rc = paired(w, a, schema, name, source, &qcols, &tnames, &n, err);

	if (rc)
		return rc;
	qnames = arena_alloc(a, (n + 1) * sizeof(char *));
	buf_adds(sql, "WHEN MATCHED THEN UPDATE SET ");
	for (size_t i = 0; i < n; i++) {
		qnames[i] = qcols[i].name;
		buf_adds(sql, i ? ", " : "");
		wh_sql_ident(sql, tnames[i]);
		buf_addf(sql, " = %s.", alias);
		wh_sql_ident(sql, qnames[i]);
	}
	buf_adds(sql, " WHEN NOT MATCHED THEN INSERT (");
	add_names(sql, NULL, tnames, n);
	buf_adds(sql, ") VALUES (");
	add_names(sql, alias, qnames, n);
	buf_adds(sql, ")");
	return 0;
}

/* PostgreSQL has no min or max of a boolean or a json value. */
static void pg_extreme_text(struct wh *w, struct buf *sql, const char *expr, const char *type,
			    bool greatest)
{
	(void)w;
	if (strcasecmp(type, "boolean") == 0)
		buf_addf(sql, "CAST(%s(%s) AS VARCHAR)", greatest ? "bool_or" : "bool_and", expr);
	else if (strcasecmp(type, "json") == 0 || strcasecmp(type, "jsonb") == 0)
		buf_addf(sql, "%s(CAST(%s AS TEXT))", greatest ? "max" : "min", expr);
	else
		buf_addf(sql, "CAST(%s(%s) AS VARCHAR)", greatest ? "max" : "min", expr);
}

/* Type names as format_type spells them; a numeric's parameters aside. */
static enum wh_seq_kind pg_seq_kind(struct wh *w, const char *type)
{
	static const char *const native[] = {
		"smallint", "integer", "bigint", "numeric", "date", "timestamp without time zone",
		"timestamp with time zone", NULL,
	};
	static const char *const text[] = { "text", "character varying", "json", "jsonb", NULL };
	size_t len = strcspn(type, "(");

	(void)w;
	for (size_t i = 0; native[i]; i++)
		if (strlen(native[i]) == len && strncasecmp(native[i], type, len) == 0)
			return WH_SEQ_NATIVE;
	for (size_t i = 0; text[i]; i++)
		if (strlen(text[i]) == len && strncasecmp(text[i], type, len) == 0)
			return WH_SEQ_TEXT;
	return WH_SEQ_NONE;
}

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

	if (!res || !ok(res))
		rc = result_error(p, res, sql, err);
	else
		*out = xstrdup(PQntuples(res) ? PQgetvalue(res, 0, 0) : "");
	PQclear(res);
	return rc;
}

static int pg_appender_open(struct wh *w, const char *schema, const char *table,
			    struct wh_appender **out, struct sl_err *err)
{
	struct pg_appender *ap = xcalloc(1, sizeof(*ap));
	struct buf sql = BUF_INIT;
	int rc = refused(pg(w), err);

	if (rc) {
		free(ap);
		return rc;
	}
	wh_sql_qualified(&sql, schema, table);
	rc = array_columns(pg(w), sql.buf, &ap->arrays, err);
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
	if (asprintf(&ap->table, "%s.%s", schema, table) < 0)
		abort();
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

static int pg_appender_row(struct wh_appender *base, const char *const *values, size_t n,
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
		return result_error(p, res, ap->copy, err);
	rc = sl_err_set(err, SL_E_INVALID, "cannot append to %s: %.*s", ap->table,
			(int)strcspn(msg, "\n"), msg);
	if (line)
		sl_err_context(err, "row %ld", strtol(line + strlen(", line "), NULL, 10));
	return rc;
}

static int pg_appender_flush(struct wh_appender *base, struct sl_err *err)
{
	struct pg_appender *ap = (struct pg_appender *)base;
	struct wh_pg *p = pg(base->w);
	PGresult *res;
	int rc;

	if (!ap->rows.len)
		return 0;
	rc = refused(p, err);
	res = rc ? NULL : PQexec(p->conn, ap->copy);
	if (!rc && PQresultStatus(res) != PGRES_COPY_IN)
		rc = result_error(p, res, ap->copy, err);
	PQclear(res);
	if (!rc && (PQputCopyData(p->conn, ap->rows.buf, (int)ap->rows.len) != 1 ||
		    PQputCopyEnd(p->conn, NULL) != 1))
		rc = result_error(p, NULL, ap->copy, err);
	while (!rc && (res = PQgetResult(p->conn)) != NULL) {
		if (!ok(res))
			rc = copy_error(p, res, ap, err);
		PQclear(res);
	}
	buf_reset(&ap->rows);
	return rc;
}

static void pg_appender_close(struct wh_appender *base)
{
	struct pg_appender *ap = (struct pg_appender *)base;

	buf_release(&ap->rows);
	buf_release(&ap->value);
	free(ap->copy);
	free(ap->table);
	free(ap->arrays);
	free(ap);
}

/* PostgreSQL reads no file in SQL: DuckDB's reader reads it (csv.c), its
 * types become PostgreSQL's, and its rows, as DuckDB's text, go in with
 * COPY. A plain column name is folded to lower case, as PostgreSQL folds
 * the unquoted names of the models that read it. */
static int pg_load_csv(struct wh *w, const char *schema, const char *name, const char *path,
		       struct sl_err *err)
{
	struct arena *a = arena_new(NULL);
	struct buf sql = BUF_INIT;
	struct wh_appender *ap = NULL;
	struct csv_file f;
	const char **row;
	int rc = csv_open(a, path, &f, err);

	if (!rc) {
		buf_adds(&sql, "CREATE TABLE ");
		wh_sql_qualified(&sql, schema, name);
		buf_adds(&sql, " (");
		for (size_t c = 0; c < f.ncols; c++) {
			buf_adds(&sql, c ? ", " : "");
			wh_sql_ident(&sql, csv_name_folded(a, f.names[c]));
			buf_addf(&sql, " %s", pg_declared_type(w, a, f.types[c]));
		}
		buf_adds(&sql, ")");
		rc = pg_exec(w, sql.buf, NULL, err);
	}
	if (!rc)
		rc = pg_appender_open(w, schema, name, &ap, err);
	row = arena_alloc(a, (f.ncols + 1) * sizeof(*row));
	for (size_t r = 0; !rc && r < f.nrows; r++) {
		for (size_t c = 0; c < f.ncols; c++)
			row[c] = wh_result_value(f.rows, r, c);
		rc = pg_appender_row(ap, row, f.ncols, err);
	}
	if (!rc)
		rc = pg_appender_flush(ap, err);
	if (ap)
		pg_appender_close(ap);
	csv_close(&f);
	buf_release(&sql);
	arena_free(a);
	return rc;
}

/* The index's name: the table's, cut to fit PostgreSQL's 63 bytes, and a
 * hash of its columns, so that each set of columns has one. */
static void pg_index(struct wh *w, struct buf *sql, const char *schema, const char *table,
		     const char *const *cols, size_t n)
{
	uint32_t h = 2166136261u;
	size_t keep = strlen(table);
	char name[64];

	(void)w;
	/* cut at a character's start */
	if (keep > 40)
		for (keep = 40; keep && ((unsigned char)table[keep] & 0xC0) == 0x80; keep--)
			;
	for (size_t i = 0; i < n; i++)
		for (const char *c = cols[i]; ; c++) {
			h = (h ^ (unsigned char)*c) * 16777619u;
			if (!*c)
				break;
		}
	snprintf(name, sizeof(name), "%.*s__sluice_%08x", (int)keep, table, h);
	buf_adds(sql, "CREATE INDEX IF NOT EXISTS ");
	wh_sql_ident(sql, name);
	buf_adds(sql, " ON ");
	wh_sql_qualified(sql, schema, table);
	buf_adds(sql, " (");
	for (size_t i = 0; i < n; i++) {
		buf_adds(sql, i ? ", " : "");
		wh_sql_ident(sql, cols[i]);
	}
	buf_adds(sql, ")");
}

/* Advisory locks: the session's (released by wh_unlock or when the
 * connection ends) or the transaction's. */
static int pg_lock(struct wh *w, int64_t key, enum wh_lock_how how, bool lock, bool *got,
		   struct sl_err *err)
{
	bool shared = how == WH_LOCK_SHARED;
	const char *fn = !lock && shared  ? "pg_advisory_unlock_shared"
			 : !lock	      ? "pg_advisory_unlock"
			 : shared	      ? "pg_advisory_lock_shared"
			 : how == WH_LOCK_TRY ? "pg_try_advisory_lock"
			 : how == WH_LOCK_TXN ? "pg_advisory_xact_lock"
			 : how == WH_LOCK_TXN_TRY ? "pg_try_advisory_xact_lock"
					      : "pg_advisory_lock";
	char sql[96];
	PGresult *res;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT %s(%lld)", fn, (long long)key);
	rc = run(pg(w), sql, &res, err);
	if (!rc && got)
		*got = (how != WH_LOCK_TRY && how != WH_LOCK_TXN_TRY) ||
		       strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	return rc;
}

static const struct wh_ops pg_ops = {
	.kind = WH_POSTGRES,
	.shared = true,
	.begin_snapshot = "BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ",
	.lock = pg_lock,
	.sql_index = pg_index,
	.close = pg_close,
	.connect = pg_connect,
	.version = pg_version,
	.suspect = pg_suspect,
	.lost = pg_lost,
	.reconnect = pg_reconnect,
	.sessions = pg_sessions,
	.exec = pg_exec,
	.query = pg_query,
	.query_readonly = pg_query_readonly,
	.exec_args = pg_exec_args,
	.forget_statement = pg_forget_statement,
	.sql_swap_in = pg_swap_in,
	.load_csv = pg_load_csv,
	.sql_replace_as = pg_replace_as,
	.sql_first_per_key = pg_first_per_key,
	.sql_epoch = pg_epoch,
	.sql_try_cast = pg_try_cast,
	.sql_matches = pg_matches,
	.sql_type = pg_type,
	.sql_declared_type = pg_declared_type,
	.query_columns = pg_query_columns,
	.sql_extreme_text = pg_extreme_text,
	.sql_seq_kind = pg_seq_kind,
	.sql_insert_by_name = pg_insert_by_name,
	.sql_merge_by_name = pg_merge_by_name,
	.appender_open = pg_appender_open,
	.appender_row = pg_appender_row,
	.appender_flush = pg_appender_flush,
	.appender_close = pg_appender_close,
};
