/*
 * DuckDB's way of writing the statements that differ between warehouses
 * (the dialect operations of struct wh_ops). Private to src/warehouse/.
 */
#ifndef SL_WAREHOUSE_DUCKDB_SQL_H
#define SL_WAREHOUSE_DUCKDB_SQL_H

#include "warehouse/wh.h"

void duck_sql_replace_as(struct wh *w, struct buf *sql, enum wh_replace what, const char *schema,
			 const char *name, const char *query);
void duck_sql_first_per_key(struct wh *w, struct buf *sql, const char *from, const char *keys,
			    const char *order);
void duck_sql_epoch(struct wh *w, struct buf *sql, const char *expr, int digits);
void duck_sql_try_cast(struct wh *w, struct buf *sql, const char *expr, const char *type);
void duck_sql_column_storage(struct wh *w, struct buf *sql, const char *type);
void duck_sql_avg_of(struct wh *w, struct buf *sql, const char *sum, const char *count,
		     const char *sum_type);
void duck_sql_matches(struct wh *w, struct buf *sql, const char *expr, const char *re);
const char *duck_sql_type(struct wh *w, enum wh_type t);
int duck_query_columns(struct wh *w, struct arena *a, const char *query, struct wh_column **cols,
		       size_t *n, struct sl_err *err);
void duck_sql_extreme_text(struct wh *w, struct buf *sql, const char *expr, const char *type,
			   bool greatest);
void duck_sql_distinct_estimate(struct wh *w, struct buf *sql, const char *expr,
				const char *type);
enum wh_seq_kind duck_sql_seq_kind(struct wh *w, const char *type);
int duck_sql_insert_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
			    const char *name, const char *query, struct sl_err *err);
int duck_sql_merge_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
			   const char *name, const char *source, const char *alias,
			   struct sl_err *err);

#endif
