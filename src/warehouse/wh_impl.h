/*
 * What a warehouse backend provides: a table of operations the generic
 * layer (wh.c) dispatches to. Private to src/warehouse/.
 */
#ifndef SL_WAREHOUSE_WH_IMPL_H
#define SL_WAREHOUSE_WH_IMPL_H

#include "warehouse/wh.h"

struct wh_ops {
	enum wh_kind kind;
	/* other processes may write the warehouse at once (wh_shared) */
	bool shared;
	/* what begins a transaction of one snapshot; NULL: "BEGIN TRANSACTION" */
	const char *begin_snapshot;
	void (*close)(struct wh *w);
	int (*connect)(struct wh *w, struct wh **out, struct sl_err *err);
	const char *(*version)(struct wh *w);
	bool (*suspect)(struct wh *w, struct sl_err *err);
	/* NULL: a connection that is never lost (an embedded database) */
	bool (*lost)(const struct wh *w);
	int (*reconnect)(struct wh *w, struct sl_err *err);
	uint64_t (*sessions)(const struct wh *w);
	int (*exec)(struct wh *w, const char *sql, int64_t *changed, struct sl_err *err);
	int (*query)(struct wh *w, const char *sql, struct wh_result **out, struct sl_err *err);
	int (*query_readonly)(struct wh *w, const char *sql, const struct wh_read_limits *lim,
			      struct wh_result **out, bool *truncated, struct sl_err *err);
	/* out may be NULL: the rows are not wanted */
	int (*exec_args)(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
			 struct wh_result **out, int64_t *changed, struct sl_err *err);
	void (*forget_statement)(struct wh *w, const char *sql);
	void (*sql_swap_in)(struct wh *w, struct buf *sql, const char *schema, const char *staging,
			    const char *name, const char *old_kind);
	int (*load_csv)(struct wh *w, const char *schema, const char *name, const char *path,
			struct sl_err *err);
	int (*land_file)(struct wh *w, const char *schema, const char *table,
			 const struct wh_file_read *rd, int64_t *rows, struct sl_err *err);
	void (*sql_replace_as)(struct wh *w, struct buf *sql, enum wh_replace what,
			       const char *schema, const char *name, const char *query);
	void (*sql_first_per_key)(struct wh *w, struct buf *sql, const char *from, const char *keys,
				  const char *order);
	/* digits: 3 for milliseconds, 6 for microseconds */
	void (*sql_epoch)(struct wh *w, struct buf *sql, const char *expr, int digits);
	void (*sql_try_cast)(struct wh *w, struct buf *sql, const char *expr, const char *type);
	/* NULL: no column needs a storage of its own */
	void (*sql_column_storage)(struct wh *w, struct buf *sql, const char *type);
	void (*sql_avg_of)(struct wh *w, struct buf *sql, const char *sum, const char *count,
			   const char *sum_type);
	void (*sql_matches)(struct wh *w, struct buf *sql, const char *expr, const char *re);
	const char *(*sql_type)(struct wh *w, enum wh_type t);
	/* NULL: declared types are the warehouse's own */
	const char *(*sql_declared_type)(struct wh *w, struct arena *a, const char *decl);
	int (*query_columns)(struct wh *w, struct arena *a, const char *query,
			     struct wh_column **cols, size_t *n, struct sl_err *err);
	/* A table's columns as information_schema.columns gives them, looked
	 * up faster; *known false (a view, say): ask information_schema. NULL:
	 * information_schema is the fast way. */
	int (*table_columns)(struct wh *w, struct arena *a, const char *schema, const char *name,
			     struct wh_column **cols, size_t *n, bool *known, struct sl_err *err);
	/* the table's rows as the warehouse's statistics put them; *known
	 * false: count them. NULL: counting is the fast way */
	int (*row_estimate)(struct wh *w, const char *schema, const char *table, int64_t *n,
			    bool *known, struct sl_err *err);
	/* NULL: DELETE ... USING */
	void (*sql_delete_matching)(struct wh *w, struct buf *sql, const char *target,
				    const char *t, const char *source, const char *s,
				    const char *match);
	/* binds query against the warehouse's catalog without running it;
	 * NULL: the warehouse has no such pass (DuckDB's is sqlbind.h's) */
	int (*bind)(struct wh *w, struct arena *a, const char *query, long *offset,
		    const char **hint, struct sl_err *err);
	/* greatest: the max, not the min */
	void (*sql_extreme_text)(struct wh *w, struct buf *sql, const char *expr, const char *type,
				 bool greatest);
	void (*sql_distinct_estimate)(struct wh *w, struct buf *sql, const char *expr,
				      const char *type);
	enum wh_seq_kind (*sql_seq_kind)(struct wh *w, const char *type);
	int (*sql_insert_by_name)(struct wh *w, struct arena *a, struct buf *sql,
				  const char *schema, const char *name, const char *query,
				  struct sl_err *err);
	int (*sql_merge_by_name)(struct wh *w, struct arena *a, struct buf *sql,
				 const char *schema, const char *name, const char *source,
				 const char *alias, struct sl_err *err);
	int (*appender_open)(struct wh *w, const char *schema, const char *table,
			     struct wh_appender **out, struct sl_err *err);
	int (*appender_row)(struct wh_appender *ap, const char *const *values, size_t n,
			    struct sl_err *err);
	int (*appender_flush)(struct wh_appender *ap, struct sl_err *err);
	void (*appender_close)(struct wh_appender *ap);
	/* CREATE INDEX IF NOT EXISTS of table (cols); NULL: indexes not wanted */
	void (*sql_index)(struct wh *w, struct buf *sql, const char *schema, const char *table,
			  const char *const *cols, size_t n);
	/* NULL: the warehouse's work runs in its server, no thread of this
	 * process's */
	int (*leave_cores)(struct wh *w, int cores, struct sl_err *err);
	/* locks between processes (shared warehouses only); unlock when !lock */
	int (*lock)(struct wh *w, int64_t key, enum wh_lock_how how, bool lock, bool *got,
		    struct sl_err *err);
};

/* Every backend's appender starts with this. */
struct wh_appender {
	struct wh *w;
};

/* Every backend's connection struct starts with this. The memo is the
 * database's, shared by all its connections: a backend makes it when it
 * opens a database, retains it for each further connection and releases
 * it when one closes. */
struct wh {
	const struct wh_ops *ops;
	struct wh_memo *memo;
};

struct wh_memo *wh_memo_new(void);
void wh_memo_retain(struct wh_memo *m);
void wh_memo_release(struct wh_memo *m);

/* Results are built by backends with these. The result owns its strings. */
struct wh_result *wh_result_new(size_t ncols);
void wh_result_set_colname(struct wh_result *r, size_t col, const char *name);
/* Appends n rows, every value NULL; returns the index of the first. */
size_t wh_result_add_rows(struct wh_result *r, size_t n);
/* Room for the value at (row, col), len bytes, for the backend to write;
 * the result adds a NUL after them. Owned by r. */
char *wh_result_set_value(struct wh_result *r, size_t row, size_t col, size_t len);

#endif
