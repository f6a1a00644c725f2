/*
 * The DuckDB backend: the only file that calls DuckDB's C API for warehouse
 * work, but for the values of results, which duckdb_text.c writes from the
 * data chunks read here. Translates duckdb_state and result errors into
 * sl_err at the boundary and destroys every duckdb_result on every path.
 * Tells the failures that leave a database in doubt from the others, and
 * never lets a database in doubt be written or closed again.
 */
#include "warehouse/wh_impl.h"

#include "core/buf.h"
#include "core/civil.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "warehouse/csv.h"
#include "warehouse/duckdb_feed.h"
#include "warehouse/duckdb_read.h"
#include "warehouse/duckdb_sql.h"
#include "warehouse/duckdb_text.h"
#include "warehouse/watchdog.h"

#include <ctype.h>
#include <duckdb.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The database is shared by every connection opened on it and closed
 * with the last one. */
struct duck_db {
	duckdb_database db;
	int refs;
	pthread_mutex_t lock;
	/* Held by whatever may commit (a COMMIT, a statement outside a
	 * transaction), so that no commit completes while another one is
	 * under way. Once the WAL has outgrown checkpoint_threshold, DuckDB
	 * 1.4 commits a large transaction by checkpointing it instead of
	 * writing it to the WAL, and the other connections see it before it
	 * is on disk; should the checkpoint fail, a commit made meanwhile on
	 * what it read would be on disk without what it was made of (a
	 * watermark past rows that are not there). Behind the lock, that
	 * commit finds the database suspect instead. */
	pthread_mutex_t commit_lock;
	char *path; /* NULL in memory */
	/* set once, by the first failure that left the database in doubt,
	 * after why is written; why never changes after */
	atomic_bool suspect;
	char why[1024];
	struct duck_db *next_left; /* on the list of databases left open */
};

/* Statements kept prepared on a connection, by their SQL text. The hot
 * paths have a handful; past the cap a statement is prepared per call. */
#define PREPARED_MAX 64

struct duck_prepared {
	char *sql;
	duckdb_prepared_statement ps;
};

/* Queries found to return values that are cast to text in SQL
 * (prepare_as_text), with the text that casts them: a query run again is
 * then prepared once, not twice. As many as the kept statements. */
struct duck_wrapped {
	char *sql, *text;
	size_t reals; /* the columns cast that are FLOAT or DOUBLE */
	bool reals_only; /* and no other column is cast */
	/* Run sql as it is, its reals written through DuckDB one by one: it
	 * cast only reals and returned fewer than FEW_REALS last time, and
	 * preparing the wrapped text costs more than that (some 100 us, the
	 * price of writing about as many reals). */
	bool direct;
};

#define FEW_REALS 128

/* The feeds of a connection, one per table appended to (past the cap, or
 * for a table with a column of a type no feed takes, DuckDB's appender). */
#define FEEDS_MAX 32

struct duck_kept_feed {
	char *table; /* schema.table, NULL for a free entry */
	struct duck_feed *feed;
	bool open; /* an appender holds it; a second one of the table goes
		    * through DuckDB's */
};

struct wh_duckdb {
	struct wh base;
	struct duck_db *shared;
	duckdb_connection conn;
	char version[32];
	struct duck_prepared prepared[PREPARED_MAX];
	size_t nprepared;
	struct duck_wrapped wrapped[PREPARED_MAX];
	size_t nwrapped;
	struct duck_kept_feed feeds[FEEDS_MAX];
	size_t nfeeds;
	bool in_txn; /* a BEGIN ran, and no COMMIT or ROLLBACK since */
	struct wh_duckdb *next_left; /* on the list of connections left open */
};

/* Databases in doubt, left open until the process exits (closing one
 * checkpoints it), and those of their connections still in a transaction,
 * left as they are (disconnecting rolls the transaction back, which DuckDB
 * 1.4 can fail at after a failed write, and then aborts). The lists keep
 * them reachable. */
static pthread_mutex_t left_lock = PTHREAD_MUTEX_INITIALIZER;
static struct duck_db *left_databases;
static struct wh_duckdb *left_connections;

static struct wh_duckdb *dd(struct wh *w)
{
	return (struct wh_duckdb *)w;
}

/* Whether a failed statement leaves the database in doubt. Under ENOSPC
 * and EIO DuckDB 1.4 reports: an IO error naming the database file or its
 * WAL ("Could not write file \"x.duckdb\": No space left on device") where
 * a statement writes or reads blocks itself; a TransactionContext error
 * "Failed to commit: Could not write file ...", "Failed to commit: fsync
 * failed!" or "Failed to commit: Failed to create checkpoint because of
 * error: ..." from a COMMIT, or from a statement that commits on its own;
 * a FATAL error from a failed CHECKPOINT, a failed rollback and from every
 * statement after them ("database has been invalidated"). A checkpoint
 * that fails inside a commit leaves the database open but no longer
 * matching its file, and a checkpoint after that loses commits that were
 * acknowledged. A commit refused by a constraint is refused before
 * anything is written; an IO error on another file (a CSV that is not
 * there) is the query's own. */
static bool in_doubt(const struct duck_db *db, duckdb_error_type type, const char *msg)
{
	switch (type) {
	case DUCKDB_ERROR_FATAL:
	case DUCKDB_ERROR_INTERNAL:
		return true;
	case DUCKDB_ERROR_IO:
		return db->path && strstr(msg, db->path);
	case DUCKDB_ERROR_TRANSACTION:
		return strstr(msg, "Failed to commit") && !strstr(msg, "constraint violation");
	default:
		return false;
	}
}

/* Makes the database suspect when the failure leaves it in doubt: the
 * code for a failure with message msg (already in err). */
static int classify(struct duck_db *db, duckdb_error_type type, const char *msg,
		    struct sl_err *err)
{
	if (!in_doubt(db, type, msg))
		return SL_E_SQL;
	pthread_mutex_lock(&db->lock);
	if (!atomic_load(&db->suspect)) {
		snprintf(db->why, sizeof(db->why), "%s", msg);
		atomic_store(&db->suspect, true);
	}
	pthread_mutex_unlock(&db->lock);
	if (err)
		err->code = SL_E_SUSPECT;
	return SL_E_SUSPECT;
}

static bool duck_suspect(struct wh *w, struct sl_err *err)
{
	struct duck_db *db = dd(w)->shared;

	if (!atomic_load(&db->suspect))
		return false;
	sl_err_set(err, SL_E_SUSPECT, "%s", db->why);
	return true;
}

/* A database in doubt is not asked anything more. */
static bool refused(struct wh_duckdb *d, struct sl_err *err)
{
	return duck_suspect(&d->base, err);
}

static void duck_close(struct wh *w)
{
	struct wh_duckdb *d = dd(w);
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
	struct wh_duckdb *d = xcalloc(1, sizeof(*d)), *from = dd(w);

	if (refused(from, err)) {
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
	return dd(w)->version;
}

/* DuckDB's message already quotes the failing line with a caret; some
 * errors carry that quote twice, and once is enough. */
static int duck_error(struct wh_duckdb *d, duckdb_result *res, struct sl_err *err)
{
	const char *msg = duckdb_result_error(res);
	char *quote;
	size_t len;
	int rc;

	if (!msg || !*msg)
		msg = "unknown DuckDB error";
	sl_err_set(err, SL_E_SQL, "%s", msg);
	rc = classify(d->shared, duckdb_result_error_type(res), msg, err);
	duckdb_destroy_result(res);
	if (err && (quote = strstr(err->msg, "\n\nLINE ")) != NULL) {
		len = strlen(quote);
		if (len % 2 == 0 && memcmp(quote, quote + len / 2, len / 2) == 0)
			quote[len / 2] = '\0';
	}
	return rc;
}

/* Whether sql is the one statement word (BEGIN, COMMIT, ...), in any case,
 * with what may follow it (BEGIN TRANSACTION) but no second statement. */
static bool is_statement(const char *sql, const char *word)
{
	size_t n = strlen(word);

	while (isspace((unsigned char)*sql))
		sql++;
	return strncasecmp(sql, word, n) == 0 && !isalnum((unsigned char)sql[n]) &&
	       !strchr(sql + n, ';');
}

/* Takes the commit lock for what may commit, and tells whether it did:
 * a COMMIT, or what runs outside a transaction (but a BEGIN, and, with
 * reads, a query that only reads). */
static bool lock_commit(struct wh_duckdb *d, const char *sql, bool reads)
{
	bool may = is_statement(sql, "COMMIT") ||
		   (!d->in_txn && !reads && !is_statement(sql, "BEGIN"));

	if (may)
		pthread_mutex_lock(&d->shared->commit_lock);
	return may;
}

static bool only_reads(duckdb_prepared_statement ps)
{
	return ps && duckdb_prepared_statement_type(ps) == DUCKDB_STATEMENT_TYPE_SELECT;
}

static void unlock_commit(struct wh_duckdb *d, bool locked)
{
	if (locked)
		pthread_mutex_unlock(&d->shared->commit_lock);
}

/* A statement that ran (or failed) on d: where it leaves the transaction.
 * A script of several statements (BEGIN; ...; COMMIT) is taken to end
 * where it began. */
static void follow_transaction(struct wh_duckdb *d, const char *sql)
{
	if (is_statement(sql, "BEGIN"))
		d->in_txn = true;
	else if (is_statement(sql, "COMMIT") || is_statement(sql, "ROLLBACK"))
		d->in_txn = false;
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
	struct wh_duckdb *d = dd(w);
	bool locked;
	duckdb_result res;
	int rc = 0;

	/* the landing writer's every commit: kept prepared, they skip a parse
	 * each (some 50 us) */
	if (strcmp(sql, "BEGIN TRANSACTION") == 0 || strcmp(sql, "COMMIT") == 0)
		return exec_kept(d, sql, NULL, 0, NULL, NULL, err);
	locked = lock_commit(d, sql, false);
	if (refused(d, err))
		rc = SL_E_SUSPECT;
	else if (duckdb_query(d->conn, sql, &res) != DuckDBSuccess)
		rc = duck_error(d, &res, err);
	else if (changed)
		*changed = rows_changed(&res);
	if (!rc)
		duckdb_destroy_result(&res);
	unlock_commit(d, locked);
	follow_transaction(d, sql);
	return rc;
}

static bool is_real(duckdb_type t)
{
	return t == DUCKDB_TYPE_FLOAT || t == DUCKDB_TYPE_DOUBLE;
}

/* Whether every column of ps is written without a cast in SQL; with
 * reals, whether every one but its reals is. */
static bool all_native(duckdb_prepared_statement ps, bool reals)
{
	idx_t n = duckdb_prepared_statement_column_count(ps);

	for (idx_t c = 0; c < n; c++) {
		duckdb_type t = duckdb_prepared_statement_column_type(ps, c);

		if (!duck_text_native(t) && !(reals && is_real(t)))
			return false;
	}
	return true;
}

/* The query sql with its columns of types duckdb_text.c does not write on
 * its own cast to VARCHAR, into wrapped; false when there are none. What
 * was cast is counted in m. */
static bool wrap_query(struct buf *wrapped, duckdb_prepared_statement ps, const char *sql,
		       struct duck_wrapped *m)
{
	idx_t n = duckdb_prepared_statement_column_count(ps);
	size_t len, cast = 0;

	buf_adds(wrapped, "SELECT * REPLACE (");
	for (idx_t c = 0; c < n; c++) {
		duckdb_type t = duckdb_prepared_statement_column_type(ps, c);
		char *name;

		if (duck_text_native(t))
			continue;
		m->reals += is_real(t);
		name = (char *)duckdb_prepared_statement_column_name(ps, c);
		buf_adds(wrapped, cast++ ? ", CAST(" : "CAST(");
		buf_add_sql_ident(wrapped, name);
		buf_adds(wrapped, " AS VARCHAR) AS ");
		buf_add_sql_ident(wrapped, name);
		duckdb_free(name);
	}
	m->reals_only = m->reals == cast;
	/* the query on lines of its own, without its final ';', so a trailing
	 * comment or semicolon does not swallow the wrapper */
	len = strlen(sql);
	while (len && (isspace((unsigned char)sql[len - 1]) || sql[len - 1] == ';'))
		len--;
	buf_addf(wrapped, ") FROM (\n%.*s\n) AS _sluice_q", (int)len, sql);
	return cast > 0;
}

/* Keeps m, its text taken from wrapped; the kept copy, or NULL when there
 * is no room left. */
static struct duck_wrapped *remember_wrapped(struct wh_duckdb *d, const char *sql,
					     struct buf *wrapped, struct duck_wrapped m)
{
	if (d->nwrapped == PREPARED_MAX)
		return NULL;
	m.sql = xstrdup(sql);
	m.text = buf_detach(wrapped, NULL);
	d->wrapped[d->nwrapped] = m;
	return &d->wrapped[d->nwrapped++];
}

/* sql prepared as remembered (wrapped, or as it is), if it is remembered
 * and that still gives every column a writer (the tables may have changed
 * since); otherwise NULL, and it is forgotten. */
static duckdb_prepared_statement prepare_remembered(struct wh_duckdb *d, const char *sql,
						    struct duck_wrapped **memo)
{
	duckdb_prepared_statement ps = NULL;
	struct duck_wrapped *m = d->wrapped;

	while (m < d->wrapped + d->nwrapped && strcmp(m->sql, sql) != 0)
		m++;
	if (m == d->wrapped + d->nwrapped)
		return NULL;
	if (duckdb_prepare(d->conn, m->direct ? m->sql : m->text, &ps) == DuckDBSuccess &&
	    all_native(ps, m->direct)) {
		*memo = m;
		return ps;
	}
	duckdb_destroy_prepare(&ps);
	free(m->sql);
	free(m->text);
	*m = d->wrapped[--d->nwrapped];
	return NULL;
}

/* Values of the types duckdb_text.c does not write on its own (reals,
 * lists, structs, maps, UUID, ENUM, the time zone types...) are cast to
 * text in SQL: a query that returns them is prepared again with those
 * columns cast, so the statement still runs only once. What cannot be
 * wrapped so (a statement other than a query, several statements, a
 * statement with arguments) has its reals written through DuckDB value by
 * value, and the other such values read as NULL (duckdb_text.h). *memo is
 * what is remembered of the query, if anything. */
static duckdb_prepared_statement prepare_as_text(struct wh_duckdb *d, const char *sql,
						 struct duck_wrapped **memo)
{
	duckdb_prepared_statement ps = prepare_remembered(d, sql, memo), text = NULL;
	struct duck_wrapped m = { 0 };
	struct buf wrapped = BUF_INIT;

	if (ps)
		return ps;
	if (duckdb_prepare(d->conn, sql, &ps) != DuckDBSuccess) {
		duckdb_destroy_prepare(&ps);
		return NULL;
	}
	if (duckdb_prepared_statement_type(ps) != DUCKDB_STATEMENT_TYPE_SELECT)
		return ps;
	if (wrap_query(&wrapped, ps, sql, &m) &&
	    duckdb_prepare(d->conn, wrapped.buf, &text) == DuckDBSuccess) {
		duckdb_destroy_prepare(&ps);
		ps = text;
		*memo = remember_wrapped(d, sql, &wrapped, m);
	} else {
		duckdb_destroy_prepare(&text);
	}
	buf_release(&wrapped);
	return ps;
}

/* How the query is to run next time, by how many reals it returned. */
static void choose_direct(struct duck_wrapped *m, const struct wh_result *r)
{
	m->direct = m->reals_only && wh_result_nrows(r) * m->reals < FEW_REALS;
}

static struct wh_result *new_result(duckdb_result *res, struct duck_text_col **cols)
{
	idx_t ncols = duckdb_column_count(res);
	struct wh_result *r = wh_result_new(ncols);

	*cols = xcalloc(ncols ? ncols : 1, sizeof(**cols));
	for (idx_t c = 0; c < ncols; c++) {
		duckdb_logical_type t = duckdb_column_logical_type(res, c);

		wh_result_set_colname(r, c, duckdb_column_name(res, c));
		(*cols)[c] = duck_text_column(t);
		duckdb_destroy_logical_type(&t);
	}
	return r;
}

/* Materializes the rows as text, chunk by chunk, and destroys res. */
static int read_result(struct wh_duckdb *d, duckdb_result *res, struct wh_result **out,
		       struct sl_err *err)
{
	struct duck_text_col *cols;
	struct wh_result *r = new_result(res, &cols);
	idx_t ncols = duckdb_column_count(res);
	duckdb_data_chunk chunk;
	const char *failed;

	while ((chunk = duckdb_fetch_chunk(*res)) != NULL) {
		idx_t n = duckdb_data_chunk_get_size(chunk);
		size_t first = wh_result_add_rows(r, n);

		for (idx_t c = 0; c < ncols; c++)
			duck_text_write(r, first, c, duckdb_data_chunk_get_vector(chunk, c), n,
					&cols[c]);
		duckdb_destroy_data_chunk(&chunk);
	}
	free(cols);
	/* the end of the rows, or a failure to fetch the next ones */
	failed = duckdb_result_error(res);
	if (failed && *failed) {
		wh_result_free(r);
		return duck_error(d, res, err);
	}
	duckdb_destroy_result(res);
	*out = r;
	return 0;
}

static int duck_query(struct wh *w, const char *sql, struct wh_result **out, struct sl_err *err)
{
	struct wh_duckdb *d = dd(w);
	struct duck_wrapped *memo = NULL;
	duckdb_prepared_statement ps = prepare_as_text(d, sql, &memo);
	bool locked = lock_commit(d, sql, only_reads(ps));
	duckdb_result res;
	duckdb_state st;
	int rc = 0;

	if (refused(d, err)) {
		duckdb_destroy_prepare(&ps);
		unlock_commit(d, locked);
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
	unlock_commit(d, locked);
	if (!rc)
		rc = read_result(d, &res, out, err);
	if (!rc && memo)
		choose_direct(memo, *out);
	return rc;
}

/* ---- a reader's query (wh_query_readonly) ---- */

/* Whether catalog.schema.table is a table or view DuckDB would bind the
 * name to rather than hand to a replacement scan: schema.table is a schema
 * of the database (or of the system and temp catalogs), or a database and
 * its main schema. */
static int relation_exists(void *ctx, const char *catalog, const char *schema, const char *table,
			   bool *found, struct sl_err *err)
{
	static const char sql[] =
		"SELECT count(*) FROM (SELECT database_name AS d, schema_name AS s, table_name AS n "
		"FROM duckdb_tables() UNION ALL SELECT database_name, schema_name, view_name "
		"FROM duckdb_views()) WHERE lower(n) = lower($3) AND "
		"($1 <> '' AND lower(d) = lower($1) AND lower(s) = lower($2) OR "
		"$1 = '' AND lower(s) = lower($2) AND d IN (current_database(), 'system', 'temp') OR "
		"$1 = '' AND lower(d) = lower($2) AND s = 'main')";
	struct wh_duckdb *d = ctx;
	const char *parts[] = { catalog, schema, table };
	duckdb_prepared_statement ps = NULL;
	duckdb_result res;

	if (duckdb_prepare(d->conn, sql, &ps) != DuckDBSuccess) {
		sl_err_set(err, SL_E_INTERNAL, "%s", duckdb_prepare_error(ps));
		duckdb_destroy_prepare(&ps);
		return SL_E_INTERNAL;
	}
	for (idx_t i = 0; i < 3; i++)
		duckdb_bind_varchar(ps, i + 1, parts[i]);
	if (duckdb_execute_prepared(ps, &res) != DuckDBSuccess) {
		duckdb_destroy_prepare(&ps);
		return duck_error(d, &res, err);
	}
	duckdb_destroy_prepare(&ps);
	*found = duckdb_value_int64(&res, 0, 0) > 0;
	duckdb_destroy_result(&res);
	return 0;
}

/* Parses sql only (nothing is bound, so no extension loads and no file is
 * looked at): one statement, a query whose tree names nothing outside
 * the database. */
static int readonly_parse_check(struct wh_duckdb *d, const char *sql, struct sl_err *err)
{
	duckdb_extracted_statements ex = NULL;
	idx_t n = duckdb_extract_statements(d->conn, sql, &ex);
	const char *msg = n ? NULL : duckdb_extract_statements_error(ex);
	duckdb_prepared_statement ps = NULL;
	struct duck_read_names names = { relation_exists, d };
	duckdb_result res;
	char *tree;
	int rc = 0;

	if (!n)
		rc = msg && *msg ? sl_err_set(err, SL_E_SQL, "%s", msg)
				 : sl_err_set(err, SL_E_USAGE, "no query to run");
	duckdb_destroy_extracted(&ex);
	if (rc)
		return rc;
	if (duckdb_prepare(d->conn, "SELECT json_serialize_sql(?::VARCHAR)", &ps) != DuckDBSuccess ||
	    duckdb_bind_varchar(ps, 1, sql) != DuckDBSuccess ||
	    duckdb_execute_prepared(ps, &res) != DuckDBSuccess) {
		duckdb_destroy_prepare(&ps);
		return duck_error(d, &res, err);
	}
	duckdb_destroy_prepare(&ps);
	tree = duckdb_value_varchar(&res, 0, 0);

	rc = tree ? duck_read_check_tree(tree, &names, err)
		  : sl_err_set(err, SL_E_INTERNAL, "cannot read DuckDB's parse tree");
	duckdb_free(tree);
	duckdb_destroy_result(&res);
	if (!rc && n > 1)
		rc = sl_err_set(err, SL_E_USAGE,
				"%llu statements: a read through the server runs one query at a time",
				(unsigned long long)n);
	return rc;
}

static void interrupt_reader(void *ctx)
{
	duckdb_interrupt(((struct wh_duckdb *)ctx)->conn);
}

/* How many of the chunk's first rows fit in the bytes left, each row's
 * values measured before any is copied: *bytes grows by theirs. */
static idx_t rows_within(duckdb_data_chunk chunk, idx_t n, idx_t ncols,
			 const struct duck_text_col *cols, size_t max_bytes, size_t *bytes)
{
	for (idx_t i = 0; i < n; i++) {
		size_t row = 0;

		for (idx_t c = 0; c < ncols; c++)
			row += duck_text_len(duckdb_data_chunk_get_vector(chunk, c), i, &cols[c]) + 1;
		if (row > max_bytes - *bytes)
			return i;
		*bytes += row;
	}
	return n;
}

/* Streams the rows in until the limits, and destroys res. The row that
 * would pass max_bytes is not read: a value of any size costs no more
 * than the limit. */
static int read_bounded(struct wh_duckdb *d, duckdb_result *res, const struct wh_read_limits *lim,
			struct wh_result **out, bool *truncated, struct sl_err *err)
{
	struct duck_text_col *cols;
	struct wh_result *r = new_result(res, &cols);
	idx_t ncols = duckdb_column_count(res);
	duckdb_data_chunk chunk;
	size_t bytes = 0;
	const char *failed;

	while (!*truncated && (chunk = duckdb_fetch_chunk(*res)) != NULL) {
		idx_t n = duckdb_data_chunk_get_size(chunk);
		size_t room = lim->max_rows - wh_result_nrows(r);
		idx_t take = rows_within(chunk, n < room ? n : room, ncols, cols, lim->max_bytes,
					 &bytes);
		size_t first = wh_result_add_rows(r, take);

		for (idx_t c = 0; c < ncols; c++)
			duck_text_write(r, first, c, duckdb_data_chunk_get_vector(chunk, c), take,
					&cols[c]);
		duckdb_destroy_data_chunk(&chunk);
		*truncated = take < n;
	}
	free(cols);
	failed = *truncated ? NULL : duckdb_result_error(res);
	if (failed && *failed) {
		wh_result_free(r);
		return duck_error(d, res, err);
	}
	duckdb_destroy_result(res);
	*out = r;
	return 0;
}

/* Runs ps in a READ ONLY transaction, rolled back whatever happens: a
 * statement that got past the checks and would write (nextval, say)
 * fails there. */
static int run_readonly(struct wh_duckdb *d, duckdb_prepared_statement ps,
			const struct wh_read_limits *lim, struct wh_result **out, bool *truncated,
			struct sl_err *err)
{
	struct wh_watchdog *wd;
	duckdb_result res;
	int rc;

	if (duckdb_query(d->conn, "BEGIN TRANSACTION READ ONLY", &res) != DuckDBSuccess)
		return duck_error(d, &res, err);
	duckdb_destroy_result(&res);
	rc = wh_watchdog_start(lim->timeout_ms, interrupt_reader, d, &wd, err);
	if (!rc) {
		if (duckdb_execute_prepared_streaming(ps, &res) != DuckDBSuccess)
			rc = duck_error(d, &res, err);
		else
			rc = read_bounded(d, &res, lim, out, truncated, err);
		if (wh_watchdog_stop(wd) && rc == SL_E_SQL)
			rc = sl_err_set(err, SL_E_BUSY,
					"the query ran past its %lld ms and was stopped",
					(long long)lim->timeout_ms);
	}
	/* failed or not, the result is destroyed the same way */
	duckdb_query(d->conn, "ROLLBACK", &res);
	duckdb_destroy_result(&res);
	return rc;
}

static int duck_query_readonly(struct wh *w, const char *sql, const struct wh_read_limits *lim,
			       struct wh_result **out, bool *truncated, struct sl_err *err)
{
	struct wh_duckdb *d = dd(w);
	duckdb_prepared_statement ps = NULL;
	int rc;

	if (refused(d, err))
		return SL_E_SUSPECT;
	rc = readonly_parse_check(d, sql, err);
	if (rc)
		return rc;
	if (duckdb_prepare(d->conn, sql, &ps) != DuckDBSuccess)
		rc = sl_err_set(err, SL_E_SQL, "%s", duckdb_prepare_error(ps));
	else if (duckdb_prepared_statement_type(ps) != DUCKDB_STATEMENT_TYPE_SELECT)
		rc = sl_err_set(err, SL_E_USAGE, "only a query may be read through the server");
	else
		rc = run_readonly(d, ps, lim, out, truncated, err);
	duckdb_destroy_prepare(&ps);
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
	struct wh_duckdb *d = dd(w);

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
	locked = lock_commit(d, sql, only_reads(ps));
	if (!rc && refused(d, err))
		rc = SL_E_SUSPECT;
	if (!rc && duckdb_execute_prepared(ps, &res) != DuckDBSuccess)
		rc = duck_error(d, &res, err);
	unlock_commit(d, locked);
	follow_transaction(d, sql);
	if (!rc && changed)
		*changed = (int64_t)duckdb_rows_changed(&res);
	if (!rc && out)
		rc = read_result(d, &res, out, err);
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
	return exec_kept(dd(w), sql, args, n, out, changed, err);
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

struct duck_appender {
	struct wh_appender base;
	duckdb_appender ap;	     /* or, with a feed, NULL */
	struct duck_kept_feed *kept; /* the feed that holds the rows, or NULL */
	size_t ncols;
	duckdb_type *types; /* of the table's columns */
	char table[256];
};

static int appender_error(struct duck_appender *a, const char *what, struct sl_err *err)
{
	duckdb_error_data e = duckdb_appender_error_data(a->ap);
	const char *msg = duckdb_error_data_message(e);
	int rc;

	if (!msg || !*msg)
		msg = "unknown DuckDB error";
	sl_err_set(err, SL_E_SQL, "%s %s: %s", what, a->table, msg);
	rc = classify(dd(a->base.w)->shared, duckdb_error_data_error_type(e), msg, err);
	duckdb_destroy_error_data(&e);
	return rc;
}

static int feed_error(struct duck_appender *a, const char *what, const struct duck_feed_error *e,
		      struct sl_err *err)
{
	sl_err_set(err, SL_E_SQL, "%s %s: %s", what, a->table, e->msg);
	return classify(dd(a->base.w)->shared, e->type, e->msg, err);
}

static struct duck_kept_feed *kept_feed(struct wh_duckdb *d, const char *table)
{
	for (size_t i = 0; i < d->nfeeds; i++)
		if (d->feeds[i].table && strcmp(d->feeds[i].table, table) == 0)
			return &d->feeds[i];
	return NULL;
}

static void drop_feed(struct duck_kept_feed *k)
{
	duck_feed_free(k->feed);
	free(k->table);
	*k = (struct duck_kept_feed){ 0 };
}

/* A feed for a's table, kept from now on, when every column type (as the
 * appender a read them) is one a feed takes; NULL otherwise. */
static struct duck_kept_feed *new_feed(struct wh_duckdb *d, struct duck_appender *a,
				       const char *schema, const char *table)
{
	struct duck_kept_feed *k = NULL;
	struct duck_feed *feed;

	for (size_t i = 0; i < a->ncols; i++)
		if (!duck_feed_takes(a->types[i]))
			return NULL;
	for (size_t i = 0; i < d->nfeeds && !k; i++)
		if (!d->feeds[i].table)
			k = &d->feeds[i];
	if (!k && d->nfeeds == FEEDS_MAX)
		return NULL;
	feed = duck_feed_new(d->conn, schema, table, a->types, a->ncols);
	if (!feed)
		return NULL;
	if (!k)
		k = &d->feeds[d->nfeeds++];
	k->table = xstrdup(a->table);
	k->feed = feed;
	return k;
}

/* DuckDB's appender for the table, and the types of its columns. */
static int open_appender(struct wh_duckdb *d, struct duck_appender *a, const char *schema,
			 const char *table, struct sl_err *err)
{
	if (duckdb_appender_create(d->conn, schema, table, &a->ap) != DuckDBSuccess) {
		int rc = appender_error(a, "cannot append to", err);

		duckdb_appender_destroy(&a->ap);
		return rc;
	}
	a->ncols = (size_t)duckdb_appender_column_count(a->ap);
	a->types = xcalloc(a->ncols + 1, sizeof(*a->types));
	for (size_t i = 0; i < a->ncols; i++) {
		duckdb_logical_type t = duckdb_appender_column_type(a->ap, (idx_t)i);

		a->types[i] = duckdb_get_type_id(t);
		duckdb_destroy_logical_type(&t);
	}
	return 0;
}

/* The table's columns are read every time (a few microseconds): a feed
 * kept for columns the table no longer has is made anew. */
static int duck_appender_open(struct wh *w, const char *schema, const char *table,
			      struct wh_appender **out, struct sl_err *err)
{
	struct wh_duckdb *d = dd(w);
	struct duck_appender *a = xcalloc(1, sizeof(*a));
	struct duck_kept_feed *k;
	int rc;

	if (refused(d, err)) {
		free(a);
		return SL_E_SUSPECT;
	}
	a->base.w = w;
	snprintf(a->table, sizeof(a->table), "%s.%s", schema, table);
	rc = open_appender(d, a, schema, table, err);
	if (rc) {
		free(a);
		return rc;
	}
	k = kept_feed(d, a->table);
	if (k && !k->open && !duck_feed_fits(k->feed, a->types, a->ncols)) {
		drop_feed(k);
		k = NULL;
	}
	if (!k)
		k = new_feed(d, a, schema, table);
	if (k && !k->open) {
		/* it holds no rows: destroying it writes nothing */
		duckdb_appender_destroy(&a->ap);
		k->open = true;
		a->kept = k;
	}
	*out = &a->base;
	return 0;
}

/* One value, typed where the text is plainly of the column's type: the
 * appender then skips a cast per row, which a landing batch of thousands
 * of rows feels. */
static duckdb_state append_value(struct duck_appender *a, size_t col, const char *v)
{
	int64_t i;
	duckdb_timestamp ts;

	if (!v)
		return duckdb_append_null(a->ap);
	if (a->types[col] == DUCKDB_TYPE_BIGINT && duck_plain_int64(v, &i))
		return duckdb_append_int64(a->ap, i);
	if (a->types[col] == DUCKDB_TYPE_TIMESTAMP && duck_plain_timestamp(v, &ts.micros))
		return duckdb_append_timestamp(a->ap, ts);
	return duckdb_append_varchar(a->ap, v);
}

static int duck_appender_row(struct wh_appender *ap, const char *const *values, size_t n,
			     struct sl_err *err)
{
	struct duck_appender *a = (struct duck_appender *)ap;
	struct duck_feed_error e;

	if (n != a->ncols)
		return sl_err_set(err, SL_E_INTERNAL, "%zu values for the %zu columns of %s", n,
				  a->ncols, a->table);
	if (a->kept)
		return duck_feed_row(a->kept->feed, values, &e)
			       ? 0
			       : feed_error(a, "cannot append to", &e, err);
	for (size_t i = 0; i < n; i++) {
		duckdb_state st = append_value(a, i, values[i]);

		if (st != DuckDBSuccess)
			return appender_error(a, "cannot append to", err);
	}
	return duckdb_appender_end_row(a->ap) == DuckDBSuccess
		       ? 0
		       : appender_error(a, "cannot append to", err);
}

static int duck_appender_flush(struct wh_appender *ap, struct sl_err *err)
{
	struct duck_appender *a = (struct duck_appender *)ap;
	struct wh_duckdb *d = dd(a->base.w);
	/* outside a transaction, the flush commits */
	bool locked = lock_commit(d, "", false);
	struct duck_feed_error e;
	int rc = 0;

	if (refused(d, err)) {
		rc = SL_E_SUSPECT;
	} else if (a->kept && !duck_feed_insert(a->kept->feed, &e)) {
		rc = feed_error(a, "cannot write the rows appended to", &e, err);
		/* the table is not what the INSERT was prepared for: the next
		 * appender reads it again */
		if (e.type == DUCKDB_ERROR_BINDER || e.type == DUCKDB_ERROR_CATALOG) {
			drop_feed(a->kept);
			a->kept = NULL;
		}
	} else if (!a->kept && a->ap && duckdb_appender_flush(a->ap) != DuckDBSuccess) {
		rc = appender_error(a, "cannot write the rows appended to", err);
	}
	unlock_commit(d, locked);
	return rc;
}

static void duck_appender_close(struct wh_appender *ap)
{
	struct duck_appender *a = (struct duck_appender *)ap;
	struct wh_duckdb *d = dd(a->base.w);
	bool contain;

	if (a->kept) {
		duck_feed_clear(a->kept->feed);
		a->kept->open = false;
		free(a->types);
		free(a);
		return;
	}
	/* rows not flushed are dropped with the appender, as the caller rolls
	 * back; DuckDB's destroy flushes them, which outside a transaction
	 * (the caller's already rolled back) would commit them, also to a
	 * database in doubt */
	contain = a->ap && !d->in_txn && duckdb_query(d->conn, "BEGIN", NULL) == DuckDBSuccess;
	if (a->ap)
		duckdb_appender_destroy(&a->ap);
	if (contain)
		duckdb_query(d->conn, "ROLLBACK", NULL);
	free(a->types);
	free(a);
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
	.sql_replace_as = duck_sql_replace_as,
	.sql_first_per_key = duck_sql_first_per_key,
	.sql_epoch = duck_sql_epoch,
	.sql_try_cast = duck_sql_try_cast,
	.sql_matches = duck_sql_matches,
	.sql_type = duck_sql_type,
	.query_columns = duck_query_columns,
	.sql_extreme_text = duck_sql_extreme_text,
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
	if (read_only && path) {
		duckdb_create_config(&config);
		duckdb_set_config(config, "access_mode", "READ_ONLY");
	}
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
