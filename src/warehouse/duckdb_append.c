/*
 * This file implements the DuckDB backend's appender: a connection keeps a
 * feed (duckdb_feed.c) per table it appends to, and a table a feed does
 * not take goes through DuckDB's appender. Rows commit with the caller's
 * transaction; rows never flushed are dropped, never committed.
 */
#include "warehouse/duckdb_append.h"

#include "core/err.h"
#include "core/xalloc.h"
#include "warehouse/duckdb_conn.h"
#include "warehouse/duckdb_doubt.h"
#include "warehouse/duckdb_feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	rc = duck_classify(duck_conn(a->base.w)->shared, duckdb_error_data_error_type(e), msg, err);
	duckdb_destroy_error_data(&e);
	return rc;
}

static int feed_error(struct duck_appender *a, const char *what, const struct duck_feed_error *e,
		      struct sl_err *err)
{
	sl_err_set(err, SL_E_SQL, "%s %s: %s", what, a->table, e->msg);
	return duck_classify(duck_conn(a->base.w)->shared, e->type, e->msg, err);
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
int duck_appender_open(struct wh *w, const char *schema, const char *table,
		       struct wh_appender **out, struct sl_err *err)
{
	struct wh_duckdb *d = duck_conn(w);
	struct duck_appender *a = xcalloc(1, sizeof(*a));
	struct duck_kept_feed *k;
	int rc;

	if (duck_refused(d, err)) {
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

int duck_appender_row(struct wh_appender *ap, const char *const *values, size_t n,
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

int duck_appender_flush(struct wh_appender *ap, struct sl_err *err)
{
	struct duck_appender *a = (struct duck_appender *)ap;
	struct wh_duckdb *d = duck_conn(a->base.w);
	/* outside a transaction, the flush commits */
	bool locked = duck_lock_commit(d, "", false);
	struct duck_feed_error e;
	int rc = 0;

	if (duck_refused(d, err)) {
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
	duck_unlock_commit(d, locked);
	return rc;
}

void duck_appender_close(struct wh_appender *ap)
{
	struct duck_appender *a = (struct duck_appender *)ap;
	struct wh_duckdb *d = duck_conn(a->base.w);
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

