/*
 * This file implements what goes into the change log of a live model that
 * rewrites rows: a refresh records, for the keys it touches, what the
 * model's table held before it writes them (-1) and after (+1), so a reader
 * downstream knows the old values a merge replaced in place or a delete
 * removed. A key the refresh rewrote to the same values logs a -1 and a +1
 * that cancel. All set-based SQL in the caller's transaction, which it
 * must never begin, commit or roll back.
 */
#include "exec/changes.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "state/changes.h"
#include "warehouse/wh.h"

#include <string.h>
#include <strings.h>

/* The columns of the relation rel (SQL) but except, quoted and
 * comma-separated, in a. */
static int columns_but(struct wh *w, struct arena *a, const char *rel, const char *except,
		       const char **out, struct sl_err *err)
{
	struct buf sql = BUF_INIT, cols = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_addf(&sql, "SELECT * FROM %s LIMIT 0", rel);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	for (size_t i = 0; i < wh_result_ncols(r); i++) {
		const char *name = wh_result_colname(r, i);

		if (strcasecmp(name, except) == 0)
			continue;
		if (cols.len)
			buf_adds(&cols, ", ");
		wh_sql_ident(&cols, name);
	}
	wh_result_free(r);
	*out = arena_strdup(a, cols.buf);
	buf_release(&cols);
	return 0;
}

/* The table's columns but its own _sluice_seq, which the log's replaces. */
static int logged_columns(struct wh *w, struct arena *a, const struct model *m, const char *table,
			  const char **out, struct sl_err *err)
{
	struct buf rel = BUF_INIT;
	int rc;

	wh_sql_qualified(&rel, m->schema, table);
	rc = columns_but(w, a, rel.buf, "_sluice_seq", out, err);
	buf_release(&rel);
	return rc;
}

int changes_log_columns(struct wh *w, struct arena *a, const struct model *m, const char **out,
			struct sl_err *err)
{
	struct buf rel = BUF_INIT;
	int rc;

	state_sql_changes(&rel, m->schema, m->name);
	rc = columns_but(w, a, rel.buf, "_sluice_weight", out, err);
	buf_release(&rel);
	return rc;
}

int changes_open(struct wh *w, struct arena *a, const struct model *m, const char *table,
		 bool anew, int64_t seq, struct changes *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT, query = BUF_INIT;
	int rc;

	*c = (struct changes){ .w = w, .m = m, .seq = seq };
	rc = logged_columns(w, a, m, table, &c->cols, err);
	if (rc)
		return rc;
	buf_addf(&query, "SELECT %s, CAST(0 AS INTEGER) AS _sluice_weight, "
			 "CAST(0 AS BIGINT) AS _sluice_seq FROM ",
		 c->cols);
	wh_sql_qualified(&query, m->schema, table);
	buf_adds(&query, " LIMIT 0");
	state_sql_changes_create(&sql, m->schema, m->name, query.buf, anew);
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	buf_release(&query);
	return rc;
}

/* Whether the relation rel has every column the log takes. */
static int has_logged_columns(const struct changes *c, struct arena *a, const char *rel,
			      bool *has, struct sl_err *err)
{
	const char *cols;
	int rc = columns_but(c->w, a, rel, "_sluice_seq", &cols, err);

	/* the log's columns are the table's, in its order: the batch's in the
	 * same order, when it has them all and nothing more */
	if (!rc)
		*has = strcmp(cols, c->cols) == 0;
	return rc;
}

int changes_record_written(const struct changes *c, const char *batch, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct arena *a = arena_new(NULL);
	bool whole;
	int rc = has_logged_columns(c, a, batch, &whole, err);

	arena_free(a);
	if (rc || !whole)
		return rc ? rc : changes_record(c, batch, 1, err);
	buf_adds(&sql, "INSERT INTO ");
	state_sql_changes(&sql, c->m->schema, c->m->name);
	buf_addf(&sql, " (%s, _sluice_weight, _sluice_seq) SELECT %s, CAST(1 AS INTEGER), "
		       "CAST(%lld AS BIGINT) FROM %s",
		 c->cols, c->cols, (long long)c->seq, batch);
	rc = wh_exec(c->w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

/* The INSERT of m's rows into the log, with weight, up to FROM and the
 * table's alias _sluice_t. */
static void insert_rows(const struct changes *c, int weight, struct buf *sql)
{
	buf_adds(sql, "INSERT INTO ");
	state_sql_changes(sql, c->m->schema, c->m->name);
	buf_addf(sql, " (%s, _sluice_weight, _sluice_seq) SELECT %s, CAST(%d AS INTEGER), "
		      "CAST(%lld AS BIGINT) FROM ",
		 c->cols, c->cols, weight, (long long)c->seq);
	wh_sql_qualified(sql, c->m->schema, c->m->name);
	buf_adds(sql, " AS _sluice_t");
}

int changes_record(const struct changes *c, const char *keys, int weight, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	insert_rows(c, weight, &sql);
	buf_addf(&sql, " WHERE EXISTS (SELECT 1 FROM %s AS _sluice_k WHERE ", keys);
	for (size_t i = 0; i < c->m->nunique_key; i++) {
		if (i)
			buf_adds(&sql, " AND ");
		buf_adds(&sql, "_sluice_t.");
		wh_sql_ident(&sql, c->m->unique_key[i]);
		buf_adds(&sql, c->nullsafe ? " IS NOT DISTINCT FROM _sluice_k." : " = _sluice_k.");
		wh_sql_ident(&sql, c->m->unique_key[i]);
	}
	buf_adds(&sql, c->m->nunique_key ? ")" : "TRUE)");
	rc = wh_exec(c->w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

int changes_record_rebuilt(const struct changes *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	state_sql_changes_rebuilt(&sql, c->m->schema, c->m->name);
	rc = wh_exec(c->w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

int changes_record_all(const struct changes *c, int weight, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	insert_rows(c, weight, &sql);
	rc = wh_exec(c->w, sql.buf, err);
	buf_release(&sql);
	return rc;
}
