/*
 * The DuckDB backend: opening, connecting and closing (a database in doubt
 * is never closed), statements and queries, kept prepared statements, and
 * the table of operations wh.c dispatches to. Its other jobs have files of
 * their own: errors and the database in doubt (duckdb_doubt.c), results as
 * text (duckdb_result.c, duckdb_text.c), a reader's query
 * (duckdb_readonly.c), the appender (duckdb_append.c, duckdb_feed.c), the
 * dialect (duckdb_sql.c). Only these files call DuckDB's C API for
 * warehouse work; every duckdb_result is destroyed on every path.
 */
#include "warehouse/wh_impl.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "warehouse/csv.h"
#include "warehouse/duckdb_append.h"
#include "warehouse/duckdb_conn.h"
#include "warehouse/duckdb_doubt.h"
#include "warehouse/duckdb_feed.h"
#include "warehouse/duckdb_readonly.h"
#include "warehouse/duckdb_result.h"
#include "warehouse/duckdb_sql.h"
#include "warehouse/file_read.h"

#include <duckdb.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Databases in doubt, left open until the process exits (closing one
 * checkpoints it), and those of their connections still in a transaction,
 * left as they are (disconnecting rolls the transaction back, which DuckDB
 * 1.4 can fail at after a failed write, and then aborts). The lists keep
 * them reachable. */
static pthread_mutex_t left_lock = PTHREAD_MUTEX_INITIALIZER;
static struct duck_db *left_databases;
static struct wh_duckdb *left_connections;

static void duck_close(struct wh *w)
{
	struct wh_duckdb *d = duck_conn(w);
	struct duck_db *db = d->shared;
	int left;

	if (d->in_txn && atomic_load(&db->suspect)) {
		pthread_mutex_lock(&left_lock);
		d->next_left = left_connections;
		left_connections = d;
		pthread_mutex_unlock(&left_lock);
		return;
	}
	for (size_t i = 0; i < d->nprepared; i++) {
		duckdb_destroy_prepare(&d->prepared[i].ps);
		free(d->prepared[i].sql);
	}
	for (size_t i = 0; i < d->nwrapped; i++) {
		free(d->wrapped[i].sql);
		free(d->wrapped[i].text);
	}
	for (size_t i = 0; i < d->nfeeds; i++) {
		duck_feed_free(d->feeds[i].feed);
		free(d->feeds[i].table);
	}
	duckdb_disconnect(&d->conn);
	wh_memo_release(d->base.memo);
	pthread_mutex_lock(&db->lock);
	left = --db->refs;
	pthread_mutex_unlock(&db->lock);
	if (!left && atomic_load(&db->suspect)) {
		pthread_mutex_lock(&left_lock);
		db->next_left = left_databases;
		left_databases = db;
		pthread_mutex_unlock(&left_lock);
	} else if (!left) {
		duckdb_close(&db->db);
		pthread_mutex_destroy(&db->lock);
		pthread_mutex_destroy(&db->commit_lock);
		free(db->path);
		free(db);
	}
	free(d);
}

static int duck_connect(struct wh *w, struct wh **out, struct sl_err *err)
{
	struct wh_duckdb *d = xcalloc(1, sizeof(*d)), *from = duck_conn(w);

	if (duck_refused(from, err)) {
		free(d);
		return SL_E_SUSPECT;
	}
	*d = *from;
	d->nprepared = 0;
	d->nwrapped = 0;
	d->nfeeds = 0;
	d->in_txn = false;
	if (duckdb_connect(from->shared->db, &d->conn) != DuckDBSuccess) {
		free(d);
		return sl_err_set(err, SL_E_IO, "cannot open another connection to the warehouse");
	}
	pthread_mutex_lock(&from->shared->lock);
	from->shared->refs++;
	pthread_mutex_unlock(&from->shared->lock);
	wh_memo_retain(d->base.memo);
	*out = &d->base;
	return 0;
}

static const char *duck_version(struct wh *w)
{
	return duck_conn(w)->version;
}

/* The rows a statement wrote: a CREATE TABLE ... AS says so in its one
 * value ("Count"), as PostgreSQL's does in its command tag. */
static int64_t rows_changed(duckdb_result *res)
{
	if (duckdb_result_statement_type(*res) == DUCKDB_STATEMENT_TYPE_CREATE &&
	    duckdb_column_count(res) == 1 && duckdb_row_count(res) == 1 &&
	    duckdb_column_type(res, 0) == DUCKDB_TYPE_BIGINT)
		return duckdb_value_int64(res, 0, 0);
	return (int64_t)duckdb_rows_changed(res);
}

static int exec_kept(struct wh_duckdb *d, const char *sql, const struct wh_arg *args, size_t n,
		     struct wh_result **out, int64_t *changed, struct sl_err *err);

static int duck_exec(struct wh *w, const char *sql, int64_t *changed, struct sl_err *err)
{
	struct wh_duckdb *d = duck_conn(w);
	bool locked;
	duckdb_result res;
	int rc = 0;

	/* the landing writer's every commit: kept prepared, they skip a parse
	 * each (some 50 us) */
	if (strcmp(sql, "BEGIN TRANSACTION") == 0 || strcmp(sql, "COMMIT") == 0)
		return exec_kept(d, sql, NULL, 0, NULL, NULL, err);
	locked = duck_lock_commit(d, sql, false);
	if (duck_refused(d, err))
		rc = SL_E_SUSPECT;
	else if (duckdb_query(d->conn, sql, &res) != DuckDBSuccess)
		rc = duck_error(d, &res, err);
	else if (changed)
		*changed = rows_changed(&res);
	if (!rc)
		duckdb_destroy_result(&res);
	duck_unlock_commit(d, locked);
	duck_follow_transaction(d, sql);
	return rc;
}

static int duck_query(struct wh *w, const char *sql, struct wh_result **out, struct sl_err *err)
{
	struct wh_duckdb *d = duck_conn(w);
	struct duck_wrapped *memo = NULL;
	duckdb_prepared_statement ps = duck_prepare_as_text(d, sql, &memo);
	bool locked = duck_lock_commit(d, sql, duck_only_reads(ps));
	duckdb_result res;
	duckdb_state st;
	int rc = 0;

	if (duck_refused(d, err)) {
		duckdb_destroy_prepare(&ps);
		duck_unlock_commit(d, locked);
		return SL_E_SUSPECT;
	}
	/* what does not prepare (several statements, say) runs as it is */
	if (ps) {
		st = duckdb_execute_prepared(ps, &res);
		duckdb_destroy_prepare(&ps);
	} else {
		st = duckdb_query(d->conn, sql, &res);
	}
	if (st != DuckDBSuccess)
		rc = duck_error(d, &res, err);
	duck_unlock_commit(d, locked);
	if (!rc)
		rc = duck_result_read(d, &res, NULL, out, NULL, err);
	if (!rc && memo)
		duck_choose_direct(memo, *out);
	return rc;
}

/* DuckDB's information_schema.columns lists every column of the database
 * to answer for one table (2-4 ms a call in a small project); its table
 * description and DESCRIBE look up the one table (0.3 ms), and give the
 * same type names. A view has no table description. */
static int duck_table_columns(struct wh *w, struct arena *a, const char *schema, const char *name,
			      struct wh_column **cols, size_t *n, bool *known, struct sl_err *err)
{
	duckdb_table_description td = NULL;
	struct buf q = BUF_INIT;
	int rc;

	*known = duckdb_table_description_create_ext(duck_conn(w)->conn, NULL, schema, name, &td) ==
		 DuckDBSuccess;
	duckdb_table_description_destroy(&td);
	if (!*known)
		return 0;
	buf_adds(&q, "SELECT * FROM ");
	wh_sql_qualified(&q, schema, name);
	rc = duck_query_columns(w, a, q.buf, cols, n, err);
	buf_release(&q);
	return rc;
}

/* The statement for sql from the connection's cache, prepared on a miss;
 * *kept says whether the cache owns it. */
static int cached_statement(struct wh_duckdb *d, const char *sql, duckdb_prepared_statement *ps,
			    bool *kept, struct sl_err *err)
{
	for (size_t i = 0; i < d->nprepared; i++) {
		if (strcmp(d->prepared[i].sql, sql) == 0) {
			*ps = d->prepared[i].ps;
			*kept = true;
			return 0;
		}
	}
	if (duckdb_prepare(d->conn, sql, ps) != DuckDBSuccess) {
		int rc = sl_err_set(err, SL_E_SQL, "%s", duckdb_prepare_error(*ps));

		duckdb_destroy_prepare(ps);
		return rc;
	}
	*kept = d->nprepared < PREPARED_MAX;
	if (*kept) {
		d->prepared[d->nprepared].sql = xstrdup(sql);
		d->prepared[d->nprepared++].ps = *ps;
	}
	return 0;
}

static void drop_prepared(struct wh_duckdb *d, size_t i)
{
	duckdb_destroy_prepare(&d->prepared[i].ps);
	free(d->prepared[i].sql);
	d->prepared[i] = d->prepared[--d->nprepared];
}

/* A statement that failed leaves the cache: whatever made it fail (a table
 * dropped, say) is not met again through a stale plan. */
static void forget_prepared(struct wh_duckdb *d, duckdb_prepared_statement ps)
{
	for (size_t i = 0; i < d->nprepared; i++) {
		if (d->prepared[i].ps == ps) {
			drop_prepared(d, i);
			return;
		}
	}
}

static void duck_forget_statement(struct wh *w, const char *sql)
{
	struct wh_duckdb *d = duck_conn(w);

	for (size_t i = 0; i < d->nprepared; i++) {
		if (strcmp(d->prepared[i].sql, sql) == 0) {
			drop_prepared(d, i);
			return;
		}
	}
}

static duckdb_state bind_arg(duckdb_prepared_statement ps, idx_t k, const struct wh_arg *a)
{
	switch (a->kind) {
	case WH_ARG_INT:
		return duckdb_bind_int64(ps, k, a->i);
	case WH_ARG_TEXT:
		return duckdb_bind_varchar(ps, k, a->s);
	case WH_ARG_TS:
		return duckdb_bind_timestamp(ps, k, (duckdb_timestamp){ .micros = a->i * 1000 });
	default:
		return duckdb_bind_null(ps, k);
	}
}

/* A statement kept prepared, with $1..$n bound to args, its rows read into
 * *out when out is given: the commit lock taken as for any statement, the
 * transaction followed (a BEGIN or COMMIT may come this way too), and the
 * plan forgotten when it fails. */
static int exec_kept(struct wh_duckdb *d, const char *sql, const struct wh_arg *args, size_t n,
		     struct wh_result **out, int64_t *changed, struct sl_err *err)
{
	duckdb_prepared_statement ps;
	duckdb_result res;
	bool kept = false, locked;
	int rc = cached_statement(d, sql, &ps, &kept, err);

	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < n; i++)
		if (bind_arg(ps, (idx_t)i + 1, &args[i]) != DuckDBSuccess)
			rc = sl_err_set(err, SL_E_INTERNAL, "cannot bind argument %zu of: %s", i + 1,
					sql);
	locked = duck_lock_commit(d, sql, duck_only_reads(ps));
	if (!rc && duck_refused(d, err))
		rc = SL_E_SUSPECT;
	if (!rc && duckdb_execute_prepared(ps, &res) != DuckDBSuccess)
		rc = duck_error(d, &res, err);
	duck_unlock_commit(d, locked);
	duck_follow_transaction(d, sql);
	if (!rc && changed)
		*changed = (int64_t)duckdb_rows_changed(&res);
	if (!rc && out)
		rc = duck_result_read(d, &res, NULL, out, NULL, err);
	else if (!rc)
		duckdb_destroy_result(&res);
	if (rc && kept)
		forget_prepared(d, ps);
	else if (!kept)
		duckdb_destroy_prepare(&ps);
	return rc;
}

static int duck_exec_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
			  struct wh_result **out, int64_t *changed, struct sl_err *err)
{
	return exec_kept(duck_conn(w), sql, args, n, out, changed, err);
}

static void duck_swap_in(struct wh *w, struct buf *sql, const char *schema, const char *staging,
			 const char *name, const char *old_kind)
{
	(void)w;
	if (old_kind) {
		buf_addf(sql, "DROP %s ", strcmp(old_kind, "view") == 0 ? "VIEW" : "TABLE");
		wh_sql_qualified(sql, schema, name);
		buf_adds(sql, ";\n");
	}
	buf_adds(sql, "ALTER TABLE ");
	wh_sql_qualified(sql, schema, staging);
	buf_adds(sql, " RENAME TO ");
	buf_add_sql_ident(sql, name);
	buf_adds(sql, ";\n");
}

static int duck_load_csv(struct wh *w, const char *schema, const char *name, const char *path,
			 struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc = csv_check_readable(path, err);

	if (rc)
		return rc;
	buf_adds(&sql, "CREATE TABLE ");
	wh_sql_qualified(&sql, schema, name);
	buf_adds(&sql, " AS SELECT * FROM ");
	csv_sql_read(&sql, path);
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	/* what the reader refused, said as on every warehouse; a database in
	 * doubt keeps DuckDB's words */
	return rc == SL_E_SQL ? csv_error(path, rc, err) : rc;
}

/* The file read in SQL, its rows inserted by name. */
static int duck_land_file(struct wh *w, const char *schema, const char *table,
			  const struct wh_file_read *rd, int64_t *rows, struct sl_err *err)
{
	struct arena *a = arena_new(NULL);
	struct buf sql = BUF_INIT;
	const char **found;
	int rc = file_columns_find(w, a, rd, &found, err);

	if (!rc) {
		buf_adds(&sql, "INSERT INTO ");
		wh_sql_qualified(&sql, schema, table);
		buf_adds(&sql, " (");
		file_sql_columns(&sql, rd);
		buf_adds(&sql, ") ");
		file_sql_select(&sql, rd, found);
		rc = wh_exec_count(w, sql.buf, rows, err);
		/* what the reader refused, said as on every warehouse; a
		 * database in doubt keeps DuckDB's words */
		if (rc == SL_E_SQL)
			file_error(rd->path, rd->shown, rc, err);
	}
	buf_release(&sql);
	arena_free(a);
	return rc;
}

/* DuckDB's threads count the calling one: threads = 1 is the caller
 * alone. The cores are the fewer of DuckDB's own default (which heeds a
 * cgroup's CPU quota) and those the process may run on (taskset,
 * cpusets), which that default does not heed. */
static int duck_leave_cores(struct wh *w, int cores, struct sl_err *err)
{
	int64_t n = 0;
	cpu_set_t set;
	char sql[64];
	int rc = wh_exec(w, "RESET threads", err);

	if (!rc)
		rc = wh_query_int(w, "SELECT CAST(current_setting('threads') AS BIGINT)", &n, err);
	if (rc)
		return rc;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) < n)
		n = CPU_COUNT(&set);
	snprintf(sql, sizeof(sql), "SET threads = %lld", n - cores > 1 ? (long long)(n - cores) : 1);
	return wh_exec(w, sql, err);
}

static const struct wh_ops duckdb_ops = {
	.kind = WH_DUCKDB,
	.close = duck_close,
	.connect = duck_connect,
	.version = duck_version,
	.suspect = duck_suspect,
	.exec = duck_exec,
	.query = duck_query,
	.query_readonly = duck_query_readonly,
	.exec_args = duck_exec_args,
	.forget_statement = duck_forget_statement,
	.sql_swap_in = duck_swap_in,
	.load_csv = duck_load_csv,
	.land_file = duck_land_file,
	.sql_replace_as = duck_sql_replace_as,
	.sql_first_per_key = duck_sql_first_per_key,
	.sql_epoch = duck_sql_epoch,
	.sql_try_cast = duck_sql_try_cast,
	.sql_avg_of = duck_sql_avg_of,
	.sql_column_storage = duck_sql_column_storage,
	.sql_matches = duck_sql_matches,
	.sql_type = duck_sql_type,
	.query_columns = duck_query_columns,
	.table_columns = duck_table_columns,
	.sql_extreme_text = duck_sql_extreme_text,
	.sql_distinct_estimate = duck_sql_distinct_estimate,
	.sql_seq_kind = duck_sql_seq_kind,
	.sql_insert_by_name = duck_sql_insert_by_name,
	.sql_merge_by_name = duck_sql_merge_by_name,
	.appender_open = duck_appender_open,
	.appender_row = duck_appender_row,
	.appender_flush = duck_appender_flush,
	.appender_close = duck_appender_close,
	.leave_cores = duck_leave_cores,
};

/* DuckDB reports open failures as free text; these are the ones a user
 * can act on. */
static int classify_open_error(const char *path, const char *msg, struct sl_err *err)
{
	if (strstr(msg, "Corrupt database file"))
		return sl_err_set(err, SL_E_IO,
				  "warehouse '%s' is damaged: a block of it fails its checksum\n"
				  "  hint: restore the file from a backup\n"
				  "  detail: %s",
				  path, msg);
	if (strstr(msg, "Could not set lock") || strstr(msg, "Conflicting lock"))
		return sl_err_set(err, SL_E_LOCKED,
				  "warehouse '%s' is locked by another process\n"
				  "  hint: stop the other sluice (or DuckDB client) using it, then retry\n"
				  "  detail: %s",
				  path, msg);
	if (strstr(msg, "not a valid DuckDB database") || strstr(msg, "Invalid Input Error") ||
	    strstr(msg, "database file"))
		return sl_err_set(err, SL_E_IO,
				  "warehouse '%s' is not a DuckDB database file\n"
				  "  hint: point warehouse.path in sluice.yml at a DuckDB file or a new path\n"
				  "  detail: %s",
				  path, msg);
	return sl_err_set(err, SL_E_IO, "cannot open warehouse '%s': %s", path, msg);
}

int wh_open_duckdb(const char *path, bool read_only, struct wh **out, struct sl_err *err)
{
	struct wh_duckdb *d = xcalloc(1, sizeof(*d));
	struct duck_db *db = xcalloc(1, sizeof(*db));
	duckdb_config config = NULL;
	char *open_err = NULL;
	duckdb_state st;
	int rc;

	d->base.ops = &duckdb_ops;
	d->shared = db;
	db->refs = 1;
	pthread_mutex_init(&db->lock, NULL);
	pthread_mutex_init(&db->commit_lock, NULL);
	if (path && strcmp(path, ":memory:") == 0)
		path = NULL;
	duckdb_create_config(&config);
	if (read_only && path)
		duckdb_set_config(config, "access_mode", "READ_ONLY");
	/* an internal error of a reader's query, in a READ ONLY transaction,
	 * must not take the database down with it: a write that fails so is
	 * in doubt all the same (duckdb_doubt.c), and the process exits */
	duckdb_set_config(config, "disable_database_invalidation", "true");
	st = duckdb_open_ext(path, &db->db, config, &open_err);
	if (config)
		duckdb_destroy_config(&config);
	if (st != DuckDBSuccess) {
		rc = classify_open_error(path ? path : ":memory:", open_err ? open_err : "", err);
		duckdb_free(open_err);
		pthread_mutex_destroy(&db->lock);
		pthread_mutex_destroy(&db->commit_lock);
		free(db);
		free(d);
		return rc;
	}
	if (duckdb_connect(db->db, &d->conn) != DuckDBSuccess) {
		duckdb_close(&db->db);
		pthread_mutex_destroy(&db->lock);
		pthread_mutex_destroy(&db->commit_lock);
		free(db);
		free(d);
		return sl_err_set(err, SL_E_IO, "cannot connect to warehouse '%s'",
				  path ? path : ":memory:");
	}
	if (path)
		db->path = xstrdup(path);
	snprintf(d->version, sizeof(d->version), "%s", duckdb_library_version());
	d->base.memo = wh_memo_new();
	*out = &d->base;
	return 0;
}
