/*
 * The PostgreSQL backend, over libpq: opening, connecting and closing,
 * advisory locks, seeds loaded through COPY, and the table of operations
 * wh.c dispatches to. Its other jobs have files of their own: a session,
 * its errors and its loss (postgres_session.c), a reader's query
 * (postgres_readonly.c), the dialect (postgres_sql.c), the appender as
 * COPY in text format (postgres_append.c). Every PGresult is cleared on
 * every path.
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
#include "warehouse/file_copy.h"
#include "warehouse/postgres_append.h"
#include "warehouse/postgres_bind.h"
#include "warehouse/postgres_conn.h"
#include "warehouse/postgres_readonly.h"
#include "warehouse/postgres_session.h"
#include "warehouse/postgres_sql.h"
#include "warehouse/wh_impl.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"

#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pg_forget_statement(struct wh *w, const char *sql)
{
	(void)w;
	(void)sql;
}

static const char *pg_version(struct wh *w)
{
	return pg_conn(w)->version;
}

static bool pg_suspect(struct wh *w, struct sl_err *err)
{
	if (pg_conn(w)->suspect)
		pg_suspect_error(err);
	return pg_conn(w)->suspect;
}

static bool pg_lost(const struct wh *w)
{
	return atomic_load(&((const struct wh_pg *)w)->lost);
}

static int pg_reconnect(struct wh *w, struct sl_err *err)
{
	struct wh_pg *p = pg_conn(w);

	if (!atomic_load(&p->lost))
		return 0;
	/* its caller holds no transaction: what the lost one did is gone */
	p->lost_in_txn = false;
	return pg_session_reopen(p, err);
}

static uint64_t pg_sessions(const struct wh *w)
{
	return atomic_load(&((const struct wh_pg *)w)->sessions);
}

static void pg_close(struct wh *w)
{
	struct wh_pg *p = pg_conn(w);

	PQfinish(p->conn);
	wh_memo_release(p->base.memo);
	free(p->dsn);
	free(p);
}

static const struct wh_ops pg_ops;

static int pg_open_conn(const char *dsn, struct wh_memo *memo, struct wh **out,
			struct sl_err *err)
{
	struct wh_pg *p = xcalloc(1, sizeof(*p));
	int rc;

	p->base.ops = &pg_ops;
	rc = pg_session_open(dsn, &p->conn, p->version, sizeof(p->version), err);
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
	struct wh_pg *p = pg_conn(w);
	int rc;

	if (p->suspect)
		return pg_suspect_error(err);
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

/* PostgreSQL reads no file in SQL: DuckDB's reader reads it (csv.c), its
 * types become PostgreSQL's, and its rows, as DuckDB's text, go in with
 * COPY. A plain column name is folded to lower case, as PostgreSQL folds
 * the unquoted names of the models that read it. */
static int pg_load_csv(struct wh *w, const char *schema, const char *name, const char *path,
		       struct sl_err *err)
{
	/* a root: the warehouse's load_csv takes no arena */
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
	rc = pg_run(pg_conn(w), sql, &res, err);
	if (!rc && got)
		*got = (how != WH_LOCK_TRY && how != WH_LOCK_TXN_TRY) ||
		       strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	return rc;
}

/* pg_class.reltuples: -1 for a table never analyzed or vacuumed; 0 may
 * be a table analyzed while empty and filled since, which is counted. */
static int pg_row_estimate(struct wh *w, const char *schema, const char *table, int64_t *n,
			   bool *known, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int64_t v = -1;
	int rc;

	buf_adds(&sql, "SELECT coalesce(max(c.reltuples), -1)::bigint FROM pg_class c "
		       "JOIN pg_namespace s ON s.oid = c.relnamespace WHERE c.relkind = 'r' "
		       "AND s.nspname = ");
	buf_add_sql_str(&sql, schema);
	buf_adds(&sql, " AND c.relname = ");
	buf_add_sql_str(&sql, table);
	rc = wh_query_ints(w, sql.buf, &v, 1, err);
	buf_release(&sql);
	*known = !rc && v > 0;
	*n = v;
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
	.land_file = file_copy_land,
	.sql_replace_as = pg_replace_as,
	.sql_first_per_key = pg_first_per_key,
	.sql_epoch = pg_epoch,
	.sql_try_cast = pg_try_cast,
	.sql_avg_of = pg_avg_of,
	.sql_matches = pg_matches,
	.sql_type = pg_type,
	.sql_declared_type = pg_declared_type,
	.query_columns = pg_query_columns,
	.bind = pg_bind,
	.row_estimate = pg_row_estimate,
	.sql_delete_matching = pg_delete_matching,
	.sql_extreme_text = pg_extreme_text,
	.sql_distinct_estimate = pg_distinct_estimate,
	.sql_seq_kind = pg_seq_kind,
	.sql_insert_by_name = pg_insert_by_name,
	.sql_merge_by_name = pg_merge_by_name,
	.appender_open = pg_appender_open,
	.appender_row = pg_appender_row,
	.appender_flush = pg_appender_flush,
	.appender_close = pg_appender_close,
};
