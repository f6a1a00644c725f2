/*
 * The warehouse interface. Everything above src/warehouse/ talks to a
 * warehouse through these calls and never to a client library directly;
 * dialect differences (how a table is swapped in, how a merge is written)
 * are answered here too, so build code stays dialect-free.
 *
 * A struct wh is one connection; it is not thread-safe. Results are
 * materialized as strings (NULL for SQL NULL), each the warehouse's own
 * text for the value: the engine moves data with SQL inside the warehouse
 * and reads back only bookkeeping and samples.
 */
#ifndef SL_WAREHOUSE_WH_H
#define SL_WAREHOUSE_WH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct sl_err;

struct wh;
struct wh_result;

enum wh_kind { WH_DUCKDB, WH_POSTGRES };

struct wh_column {
	const char *name, *type;
};

/* What wh_sql_replace_as makes. */
enum wh_replace { WH_TABLE, WH_TEMP_TABLE, WH_VIEW };

/* Types sluice's own statements name; wh_sql_type spells them. */
enum wh_type {
	WH_TYPE_BIGINT,
	WH_TYPE_INT128, /* an integer of up to 38 digits */
	WH_TYPE_DOUBLE,
	WH_TYPE_TEXT,
	WH_TYPE_TIMESTAMP,
	WH_TYPE_TIMESTAMPTZ,
	WH_TYPE_BOOLEAN,
};

/* How the values of a column type order changes (wh_sql_seq_kind). */
enum wh_seq_kind {
	WH_SEQ_NONE,   /* they cannot */
	WH_SEQ_NATIVE, /* as they are: integers, dates, timestamps */
	WH_SEQ_TEXT,   /* they are text, to be read as integers or timestamps */
};

/* What a column of a type can be as the cursor a table is followed by
 * (wh_sql_cursor_kind): an integer of at most 64 bits, a timestamp, a
 * timestamp with a time zone, or none of them. */
enum wh_cursor_kind {
	WH_CURSOR_NONE,
	WH_CURSOR_INT,
	WH_CURSOR_TIMESTAMP,
	WH_CURSOR_TIMESTAMPTZ,
};

/* Opens (creating when missing, unless read_only) the DuckDB database file
 * at path; NULL or ":memory:" opens an in-memory one. A file locked by
 * another process fails with SL_E_LOCKED, a file that is not a DuckDB
 * database with SL_E_IO. Close with wh_close(). */
int wh_open_duckdb(const char *path, bool read_only, struct wh **out, struct sl_err *err);
/* Connects to the PostgreSQL server the libpq connection string dsn names,
 * which must be version 15 or later (SL_E_VERSION otherwise); an
 * unreachable server or refused credentials fail with SL_E_IO, naming
 * libpq's reason. Close with wh_close(). */
int wh_open_postgres(const char *dsn, struct wh **out, struct sl_err *err);
/* Closes the connection; the database closes with its last connection,
 * unless it is suspect (wh_suspect): it then stays open until the process
 * exits, as closing would checkpoint what it holds in memory over what is
 * on disk, and a connection still in a transaction is left as it is. */
void wh_close(struct wh *w);
/* Another connection to the same database, for another thread of this
 * process (DuckDB lets one process hold a database file). A server that
 * cannot be reached now fails it with SL_E_CONN, to be tried again. Close
 * it with wh_close(). */
int wh_connect(struct wh *w, struct wh **out, struct sl_err *err);
enum wh_kind wh_kind(const struct wh *w);
/* The backend's version string ("v1.4.4"); owned by w. */
const char *wh_version(struct wh *w);

/* A write the warehouse failed in a way that leaves its state in doubt
 * makes the whole database suspect, for every connection to it: a failed
 * COMMIT or checkpoint, an I/O error (a full disk), a fatal or internal
 * error of the engine. The call that met it fails with SL_E_SUSPECT and so
 * does every later call on any connection to that database, without
 * reaching it. What is on disk is sound, every commit that succeeded is
 * there and the failed one may or may not be; what the process holds in
 * memory is not to be trusted: it should exit and open the database again.
 * A value a column refuses, a constraint, a conflict or a bad statement is
 * an ordinary SL_E_SQL and leaves the database sound. A transaction that
 * another process's commit undid (a serialization failure or a deadlock on
 * a shared warehouse) fails with SL_E_BUSY: rolled back, to be tried
 * again.
 * Whether the database is suspect; when it is, err (may be NULL) gets
 * SL_E_SUSPECT and the first such failure's message. Any thread. */
bool wh_suspect(struct wh *w, struct sl_err *err);

/* A connection to a warehouse server (PostgreSQL) is lost when the server
 * ends its session (a restart, a failover, an administrator) or the
 * network drops it: the call that meets it fails with SL_E_CONN, what its
 * transaction did is rolled back (a COMMIT that met it may or may not have
 * committed: the message says so, and the caller looks at what is
 * stored), and every call fails so until the caller rolled back
 * (wh_rollback) what was open. The next call after that opens a new
 * session to the same server and goes on there, or fails with SL_E_CONN
 * again, trying the server again no sooner than a backoff allows (100 ms
 * doubling to 5 s). Nothing of the lost session carries over: its locks
 * (wh_lock) are gone. An embedded DuckDB connection is never lost. */
/* Whether the connection is lost and not opened anew yet. Any thread. */
bool wh_lost(const struct wh *w);
/* Opens a lost connection anew now, when the backoff allows it: 0 once it
 * is up (at once when it was not lost), SL_E_CONN while it cannot be. For
 * a holder that waits for the warehouse without a statement to run, and
 * so without a transaction: one the loss cut counts as rolled back. */
int wh_reconnect(struct wh *w, struct sl_err *err);
/* How many times the connection was opened anew: a holder that keeps what
 * it read of the warehouse in memory reads it again when this changed,
 * since a commit that met a loss may have committed. Any thread. */
uint64_t wh_sessions(const struct wh *w);

/* The warehouse's worker threads, in this process, leave `cores` of the
 * cores it may use (the engine's own count, within the process's CPU
 * affinity) to the caller's own busy threads; one thread is always kept.
 * For a process that keeps a core busy besides the warehouse, as a
 * replication consumer's stream reader does: workers beyond the cores
 * left wait for each other's tasks, spinning, and take the core that
 * thread needs. Whole database, every connection; a later call counts
 * from the engine's own count again. Nothing to do on PostgreSQL, whose
 * work runs in its server. */
int wh_leave_cores(struct wh *w, int cores, struct sl_err *err);

/* Runs one or more statements, discarding results. */
int wh_exec(struct wh *w, const char *sql, struct sl_err *err);
/* Like wh_exec, and stores the number of rows the (last) statement changed
 * (for CREATE TABLE ... AS, the rows it created). */
int wh_exec_count(struct wh *w, const char *sql, int64_t *changed, struct sl_err *err);
/* Runs one query and keeps its rows; free with wh_result_free(). */
int wh_query(struct wh *w, const char *sql, struct wh_result **out, struct sl_err *err);
/* A query from a reader the warehouse does not trust with writes (the
 * server's read endpoint), on a connection of its own that no one else
 * uses meanwhile. It must be one query (SL_E_USAGE otherwise, naming the
 * statement): DuckDB prepares each statement of the text and refuses any
 * whose type is not SELECT, any table function but the few that read
 * nothing outside the database, and any name that a replacement scan
 * would take for a file; PostgreSQL takes one statement only (the
 * extended protocol). Either runs it in a READ ONLY transaction that is
 * rolled back, so nothing it calls can write. It stops after
 * lim->timeout_ms (SL_E_BUSY: DuckDB interrupts it, PostgreSQL's
 * statement_timeout cancels it); past lim->max_rows rows or lim->max_bytes
 * bytes of text it stops reading and sets *truncated; the first
 * lim->offset rows are skipped before any is kept, and count for neither
 * limit (a page of a long answer). Free *out with wh_result_free(). */
struct wh_read_limits {
	size_t max_rows, max_bytes;
	int64_t timeout_ms;
	uint64_t offset; /* rows skipped first */
};
int wh_query_readonly(struct wh *w, const char *sql, const struct wh_read_limits *lim,
		      struct wh_result **out, bool *truncated, struct sl_err *err);
/* The first column of the first row as an integer (0 when there is no row
 * or it is NULL). */
int wh_query_int(struct wh *w, const char *sql, int64_t *out, struct sl_err *err);
/* The first row's first n columns as integers, each 0 where NULL. */
int wh_query_ints(struct wh *w, const char *sql, int64_t *out, size_t n, struct sl_err *err);

/* A statement a hot path runs again and again, with $1..$n bound to args:
 * prepared once per connection and SQL text, so that parsing and planning
 * are paid once, and kept until the connection closes. One statement.
 * DuckDB plans it again on every run (the saving lost) when a parameter
 * filters a table scan, or when a parameter's type is not plain from where
 * it stands (write $1::BIGINT in arithmetic); filter by values written into
 * the text instead. A kept plan may have been cut down by the table's
 * statistics when it was prepared: an UPDATE prepared while no row matched
 * can go on changing nothing. Such a caller forgets the statement and runs
 * it once more before it believes that nothing matched. */
enum wh_arg_kind { WH_ARG_NULL, WH_ARG_INT, WH_ARG_TEXT, WH_ARG_TS };
struct wh_arg {
	enum wh_arg_kind kind;
	int64_t i; /* WH_ARG_TS: milliseconds since the epoch, UTC */
	const char *s;
};
#define WH_INT(v) ((struct wh_arg){ .kind = WH_ARG_INT, .i = (v) })
#define WH_TEXT(v) ((struct wh_arg){ .kind = WH_ARG_TEXT, .s = (v) })
#define WH_TS_MS(v) ((struct wh_arg){ .kind = WH_ARG_TS, .i = (v) })
int wh_exec_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
		 int64_t *changed, struct sl_err *err);
/* The same for a query whose first column of the first row is an integer
 * (0 when there is no row or it is NULL). */
int wh_query_int_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
		      int64_t *out, struct sl_err *err);
/* And for its first row's first nout columns. */
int wh_query_ints_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
		       int64_t *out, size_t nout, struct sl_err *err);
/* Drops the kept statement for sql, if there is one. */
void wh_forget_statement(struct wh *w, const char *sql);

size_t wh_result_nrows(const struct wh_result *r);
size_t wh_result_ncols(const struct wh_result *r);
const char *wh_result_colname(const struct wh_result *r, size_t col);
/* The value as text, or NULL for SQL NULL; owned by r. Always followed by
 * a NUL, but a VARCHAR may hold NUL bytes of its own: a C string stops at
 * the first, and wh_result_value_len tells where the value really ends. */
const char *wh_result_value(const struct wh_result *r, size_t row, size_t col);
/* The value's length in bytes, its NUL bytes included and the terminating
 * one not; 0 for SQL NULL. */
size_t wh_result_value_len(const struct wh_result *r, size_t row, size_t col);
void wh_result_free(struct wh_result *r);

int wh_begin(struct wh *w, struct sl_err *err);
int wh_commit(struct wh *w, struct sl_err *err);
/* Runs the statements in a transaction of their own: all or nothing. */
int wh_exec_atomic(struct wh *w, const char *sql, struct sl_err *err);
/* Never fails in a way the caller can act on; errors are swallowed. */
void wh_rollback(struct wh *w);
/* A transaction whose statements all see the data as of its first one:
 * what a build reads and the watermarks it records must agree. Those of
 * wh_begin may each see what other connections committed meanwhile (on
 * PostgreSQL; a DuckDB transaction is always one snapshot). */
int wh_begin_snapshot(struct wh *w, struct sl_err *err);

/* Whether other processes may write this warehouse while this one does:
 * a server many sluice processes share, not a DuckDB file (one process
 * holds it). What those processes keep in memory of it may be stale. */
bool wh_shared(const struct wh *w);

/* Locks between the processes that share a warehouse, one per key, held
 * by this connection until wh_unlock or until it closes (a process that
 * dies lets go of its locks). WH_LOCK_WAIT waits for another holder;
 * WH_LOCK_TRY does not, *got saying whether it was free; WH_LOCK_TXN waits
 * and holds the lock until the open transaction ends. Keys are hashed to
 * 64 bits: two keys that collide only make one wait for the other. On a
 * warehouse that is not shared there is no other process: always got. */
enum wh_lock_how { WH_LOCK_TRY, WH_LOCK_WAIT, WH_LOCK_TXN, WH_LOCK_TXN_TRY, WH_LOCK_SHARED };
int wh_lock(struct wh *w, const char *key, enum wh_lock_how how, bool *got, struct sl_err *err);
int wh_unlock(struct wh *w, const char *key, struct sl_err *err);
/* WH_LOCK_TXN_TRY takes it for the open transaction if it is free (*got).
 * WH_LOCK_SHARED waits while another holds the key alone, and is held by
 * many at once; wh_unlock_shared lets go of it. */
int wh_unlock_shared(struct wh *w, const char *key, struct sl_err *err);

/* Makes sure table has an index on cols, the columns refreshes look its
 * rows up by (a sequence column, a unique key), once per process and
 * table, or again when fresh (the table was just made anew). A warehouse
 * that skips data by each block's min and max, as DuckDB does, needs none
 * and is asked nothing. */
int wh_ensure_index(struct wh *w, const char *schema, const char *table, const char *const *cols,
		    size_t n, bool fresh, struct sl_err *err);

/* Bulk appends to one table, on the connection's open transaction (they
 * commit or roll back with it). A row is one text value per column of the
 * table, in table order, NULL for SQL NULL; the warehouse casts each to its
 * column's type, and a value that does not convert fails the row, or, on
 * a warehouse that converts the rows only when they are sent, the flush
 * with SL_E_INVALID. Flush before committing; close before the connection.
 * After an error, close the appender and roll the transaction back. */
struct wh_appender;
int wh_appender_open(struct wh *w, const char *schema, const char *table,
		     struct wh_appender **out, struct sl_err *err);
int wh_appender_row(struct wh_appender *ap, const char *const *values, size_t n,
		    struct sl_err *err);
int wh_appender_flush(struct wh_appender *ap, struct sl_err *err);
void wh_appender_close(struct wh_appender *ap);

/* Relation lookups. kind: "table", "view" or NULL when absent; owned by a. */
int wh_relation_kind(struct wh *w, struct arena *a, const char *schema, const char *name,
		     const char **kind, struct sl_err *err);
/* Every relation as "schema.name" (lowercase), for reference checks. */
int wh_relation_list(struct wh *w, struct arena *a, const char ***names, size_t *n,
		     struct sl_err *err);
/* The same list with each relation's kind ("table" or "view", static). */
int wh_relation_kinds(struct wh *w, struct arena *a, const char ***names, const char ***kinds,
		      size_t *n, struct sl_err *err);
int wh_table_columns(struct wh *w, struct arena *a, const char *schema, const char *name,
		     struct wh_column **cols, size_t *n, struct sl_err *err);
/* About how many rows the table holds, for a choice that an exact count
 * would cost more than it is worth (a refresh's crossover): PostgreSQL,
 * where counting scans the table, answers from its statistics while they
 * say the table holds rows; otherwise the rows are counted. */
int wh_row_estimate(struct wh *w, const char *schema, const char *table, int64_t *n,
		    struct sl_err *err);
/* The columns a query returns, with the warehouse's type names, without
 * reading its rows. */
/* Whether the warehouse binds a query by itself (wh_bind). */
bool wh_binds(const struct wh *w);
/* Binds query against the warehouse's catalog without running it: a
 * table, column, function or type it names that is not there is
 * SL_E_INVALID, with where in query (*offset, a byte, or -1) and the
 * warehouse's hint (in a, or NULL). */
int wh_bind(struct wh *w, struct arena *a, const char *query, long *offset, const char **hint,
	    struct sl_err *err);
int wh_query_columns(struct wh *w, struct arena *a, const char *query, struct wh_column **cols,
		     size_t *n, struct sl_err *err);

/* "schema.name" split: the schema into schema (n bytes), *name pointing
 * at what follows the dot; false without a dot or with a schema too long. */
bool wh_split_qualified(const char *qualified, char *schema, size_t n, const char **name);

/* Whether schema.table has the column (names compare case-insensitively). */
int wh_has_column(struct wh *w, const char *schema, const char *table, const char *column,
		  bool *has, struct sl_err *err);
/* The same for several columns at once: has[i] for columns[i]. */
int wh_has_columns(struct wh *w, const char *schema, const char *table,
		   const char *const *columns, size_t ncolumns, bool *has, struct sl_err *err);

/* Facts this process has made sure of in the database ("the landing table
 * has its sequence column"), shared by all its connections, so a hot path
 * checks them once. Whoever finds a fact wrong (a statement relying on it
 * failed) forgets them all and checks again. */
bool wh_memo_has(struct wh *w, const char *fact);
void wh_memo_add(struct wh *w, const char *fact);
void wh_memo_forget(struct wh *w);

/* Dialect: statements appended to sql. */
/* Replaces schema.name (a table or view, or nothing) by the table
 * schema.staging, keeping the name. */
void wh_sql_swap_in(struct wh *w, struct buf *sql, const char *schema, const char *staging,
		    const char *name, const char *old_kind);
/* Makes the table schema.name hold a CSV file's rows as DuckDB's CSV
 * reader reads them on every warehouse: a header row, the delimiter,
 * quoting and each column's type detected (BOOLEAN, BIGINT, DOUBLE, DATE,
 * TIME, TIMESTAMP, else VARCHAR), plain column names folded to lower case
 * where the warehouse folds unquoted names. A file the reader refuses is
 * an error naming the file and line. Runs in the caller's transaction. */
int wh_load_csv(struct wh *w, const char *schema, const char *name, const char *path,
		struct sl_err *err);
/* Data files read by DuckDB's own readers (read_csv, read_json,
 * read_parquet), on every warehouse, into the rows of a table. */
enum wh_file_format { WH_FILE_CSV, WH_FILE_JSON, WH_FILE_NDJSON, WH_FILE_PARQUET };

/* A column that gets the same text in every row of a file. */
struct wh_file_value {
	const char *column, *value;
};

struct wh_file_read {
	const char *path;  /* what DuckDB opens: no glob character ('*', '?', '[', '{') */
	const char *shown; /* the file as errors name it */
	enum wh_file_format format;
	const char *delim;      /* csv: NULL: detected */
	const char *encoding;   /* csv: NULL (utf-8), "utf-16" or "latin-1" */
	int64_t skip;           /* csv: lines above the header row */
	const char *dateformat; /* csv, json: the strftime format of dates; NULL: detected */
	/* typed columns (DuckDB's type names): each reads the file's column
	 * of its name, in any case, cast to its type (typed by the CSV reader
	 * itself, so a value it refuses is said with its line); NULL where the
	 * file has none */
	const struct wh_column *columns;
	size_t ncolumns;
	const char *payload; /* the column that gets each row whole, as a JSON object */
	const struct wh_file_value *values;
	size_t nvalues;
};

/* Appends the rows of the file rd describes to schema.table (whose columns
 * are rd's typed ones, payload and values; any other it has stays NULL),
 * in the caller's transaction; *rows gets how many. A DuckDB warehouse
 * reads the file in SQL; another has it read by a DuckDB of its own in
 * memory and sends the rows through its appender. A file the reader
 * refuses is SL_E_SQL, its message "SHOWN:LINE: reason" (or "SHOWN:
 * reason" when DuckDB gives no line). */
int wh_file_land(struct wh *w, const char *schema, const char *table,
		 const struct wh_file_read *rd, int64_t *rows, struct sl_err *err);
/* The statement that makes schema.name (a temporary table: schema NULL)
 * hold the query's rows, replacing what had the name. */
void wh_sql_replace_as(struct wh *w, struct buf *sql, enum wh_replace what, const char *schema,
		       const char *name, const char *query);
/* The statement that deletes the rows of target (a table's name as
 * written) that match a row of source: match is a condition over both,
 * under the aliases t (target's) and s (source's). On PostgreSQL a
 * semi-join, which probes target's index row by row where a join of the
 * two would hash the whole table. */
void wh_sql_delete_matching(struct wh *w, struct buf *sql, const char *target, const char *t,
			    const char *source, const char *s, const char *match);
/* A SELECT of the first row of each key among the rows of from (a table,
 * or a query in parentheses with an alias), in order; keys and order are
 * lists of expressions over from's columns ("id", "seq DESC, n"). It
 * returns from's columns only. */
void wh_sql_first_per_key(struct wh *w, struct buf *sql, const char *from, const char *keys,
			  const char *order);
/* Milliseconds (microseconds) since the epoch of a timestamp, a BIGINT. */
void wh_sql_epoch_ms(struct wh *w, struct buf *sql, const char *expr);
void wh_sql_epoch_us(struct wh *w, struct buf *sql, const char *expr);
/* The average avg() gives of values whose sum is the expression sum (of
 * the type sum_type, as wh_table_columns names it) and whose count (not
 * 0) is count, of the type and to the last digit avg() gives it. */
void wh_sql_avg_of(struct wh *w, struct buf *sql, const char *sum, const char *count,
		   const char *sum_type);
/* What follows a column of the type (as wh_query_columns names it) in a
 * CREATE TABLE so that reading it is quickest, for a small table read
 * whole on every refresh: DuckDB keeps 128-bit integers uncompressed,
 * whose bit-packed form is read 50 times slower. Nothing elsewhere. */
void wh_sql_column_storage(struct wh *w, struct buf *sql, const char *type);
/* Whether a type (as wh_query_columns names it) holds floating-point
 * numbers. */
bool wh_sql_type_is_float(struct wh *w, const char *type);
/* expr cast to type, or NULL where it cannot be. */
void wh_sql_try_cast(struct wh *w, struct buf *sql, const char *expr, const char *type);
/* Whether the text expr matches re as a whole; re uses only what RE2 and
 * POSIX extended expressions share (no lookaround, no back-references). */
void wh_sql_matches(struct wh *w, struct buf *sql, const char *expr, const char *re);
/* The warehouse's name for a type. */
const char *wh_sql_type(struct wh *w, enum wh_type t);
/* A column type declared in `sources:` (DuckDB's names, which
 * src/warehouse/types.h reads) as this warehouse spells it: DOUBLE is
 * DOUBLE PRECISION on PostgreSQL, UBIGINT a NUMERIC(20, 0). In arena a
 * when it differs. */
const char *wh_sql_declared_type(struct wh *w, struct arena *a, const char *decl);
/* The least (greatest) value of the column expr as text, an aggregate.
 * type is the column's as wh_table_columns names it: not every warehouse
 * has a min and max for every type. */
void wh_sql_min_text(struct wh *w, struct buf *sql, const char *expr, const char *type);
void wh_sql_max_text(struct wh *w, struct buf *sql, const char *expr, const char *type);
/* How many distinct values the column expr holds, an aggregate giving a
 * BIGINT: an estimate where the warehouse has a sketch for it (DuckDB's
 * HyperLogLog, at some sizes off by a quarter), else the exact count
 * (PostgreSQL). type as for wh_sql_min_text. */
void wh_sql_distinct_estimate(struct wh *w, struct buf *sql, const char *expr, const char *type);
/* What a column of the type (as wh_table_columns names it) can be as a
 * cursor. */
enum wh_cursor_kind wh_sql_cursor_kind(struct wh *w, const char *type);
/* How values of the type (a name wh_query_columns gives) order changes. */
enum wh_seq_kind wh_sql_seq_kind(struct wh *w, const char *type);
/* The INSERT into schema.name of the rows of query, which ends the
 * statement on lines of its own (it may end in a line comment). Each of
 * query's columns goes into the table's column of the same name, whatever
 * the case and the order; the table's other columns get their default, and
 * a column the table lacks fails the statement. A warehouse without such a
 * form asks what query returns and what the table holds (the names kept in
 * a), which may fail. */
int wh_sql_insert_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
			  const char *name, const char *query, struct sl_err *err);
/* The WHEN clauses of a MERGE into schema.name of the rows of source (a
 * query, named alias in the MERGE's USING): a matched row takes source's
 * columns, the others are inserted, the columns paired by name as
 * wh_sql_insert_by_name pairs them (a matched row's other columns keep
 * their values). */
int wh_sql_merge_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
			 const char *name, const char *source, const char *alias,
			 struct sl_err *err);

/* Appends schema.name, each part quoted. */
void wh_sql_qualified(struct buf *sql, const char *schema, const char *name);
/* Appends one name (a schema's, a column's), quoted: a keyword or a name in
 * mixed case stands for itself. */
void wh_sql_ident(struct buf *sql, const char *name);
/* Appends the statement that sets a table's (or a view's) comment. */
void wh_sql_comment(struct buf *sql, bool view, const char *schema, const char *name,
		    const char *text);

#endif
