/*
 * PostgreSQL's dialect: the pieces of SQL whose text differs between
 * warehouses, as struct wh_ops names them (wh_impl.h, wh.h's Dialect
 * section). Private to the PostgreSQL backend.
 */
#ifndef SL_WAREHOUSE_POSTGRES_SQL_H
#define SL_WAREHOUSE_POSTGRES_SQL_H

#include "warehouse/wh.h"

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct buf;
struct sl_err;
void pg_swap_in(struct wh *w, struct buf *sql, const char *schema, const char *staging,
		const char *name, const char *old_kind);
void pg_replace_as(struct wh *w, struct buf *sql, enum wh_replace what, const char *schema,
		   const char *name, const char *query);
void pg_first_per_key(struct wh *w, struct buf *sql, const char *from, const char *keys,
		      const char *order);
void pg_epoch(struct wh *w, struct buf *sql, const char *expr, int digits);
void pg_try_cast(struct wh *w, struct buf *sql, const char *expr, const char *type);
void pg_avg_of(struct wh *w, struct buf *sql, const char *sum, const char *count,
	       const char *sum_type);
void pg_matches(struct wh *w, struct buf *sql, const char *expr, const char *re);
const char *pg_type(struct wh *w, enum wh_type t);
const char *pg_declared_type(struct wh *w, struct arena *a, const char *decl);
int pg_query_columns(struct wh *w, struct arena *a, const char *query,
		     struct wh_column **cols, size_t *n, struct sl_err *err);
int pg_insert_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
		      const char *name, const char *query, struct sl_err *err);
int pg_merge_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
		     const char *name, const char *source, const char *alias,
		     struct sl_err *err);
void pg_extreme_text(struct wh *w, struct buf *sql, const char *expr, const char *type,
		     bool greatest);
void pg_distinct_estimate(struct wh *w, struct buf *sql, const char *expr, const char *type);
enum wh_seq_kind pg_seq_kind(struct wh *w, const char *type);
void pg_delete_matching(struct wh *w, struct buf *sql, const char *target, const char *t,
			const char *source, const char *s, const char *match);
void pg_index(struct wh *w, struct buf *sql, const char *schema, const char *table,
	      const char *const *cols, size_t n);

#endif
