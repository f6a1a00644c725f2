/*
 * This file implements change-event apply for incremental merge and
 * delete+insert models with cdc_op and cdc_seq. Each row the model's query
 * returns for a build is an event: an upsert or a delete of its unique_key,
 * ordered among the events of that key by cdc_seq. Per build:
 *
 *   1. the events are checked: a NULL key, an unknown op, a NULL,
 *      unreadable or mixed sequence fails the build before anything is
 *      written;
 *   2. a truncate becomes a delete of every key known, at its sequence;
 *   3. per key the newest event wins (by cdc_seq, then _sluice_pos when the
 *      events have it; a delete wins a tie), and it is joined with what
 *      the table and the tombstones hold for the key;
 *   4. a winner applies when nothing is stored for its key, when it is
 *      newer than what is stored, or when it is a delete at the sequence of
 *      a live row (an insert and a delete in one source transaction share
 *      their commit LSN); anything else is a replay or a duplicate;
 *   5. the rows of the keys that apply are deleted and the new ones
 *      inserted; the tombstones follow.
 *
 * The events go to a temporary table for steps 1 and 2, except in the
 * usual case: an increment with integer or time sequences and hard
 * deletes, whose events a quick look at the model's query finds to be
 * plain upserts and deletes, picks its winners straight from the query.
 *
 * Step 3 joins the batch with the whole table. When every event of a batch
 * is newer than anything stored (a stream applied in order, the usual
 * case) every winner applies, so hard-delete models skip that join and the
 * table is scanned only by the delete.
 *
 * Hard deletes remove the row and keep (key, cdc_seq) in the tombstones
 * table, so that an older insert arriving later stays out. Soft deletes keep
 * the row with _sluice_deleted = true: its key, cdc_op, cdc_seq and
 * _sluice_* columns come from the delete, every other column from the
 * newest insert or update of the key (the delete's own values when there
 * was none). The tombstones table of a soft model records, per deleted key,
 * the cdc_seq of those values (_sluice_values_seq), so that an older update
 * arriving after the delete still refreshes them exactly as it would have
 * before the delete. With these rules the result never depends on how the
 * events were split into builds. A first (full) build applies every event
 * to a new, empty table.
 *
 * Step 1, the events' check, and what an event is in SQL are in
 * cdc_events.c. Everything is set-based SQL over the batch; nothing here
 * loops over rows. Must never begin, commit or roll back a transaction.
 */
#include "exec/cdc.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "exec/cdc_events.h"
#include "exec/changes.h"
#include "state/tombstones.h"
#include "warehouse/wh.h"

#include <string.h>

#define UPSERTS "_sluice_cdc_upserts"
#define APPLY "_sluice_cdc_apply"
#define ROWS "_sluice_cdc_rows"
#define TRUNCATES "_sluice_cdc_truncates"
#define CHANGED "_sluice_cdc_changed"

bool cdc_model(const struct model *m)
{
	return m->cdc_op && m->cdc_seq;
}

/* The name of m's tombstones table (src/state/tombstones.c). */
static void add_tombstones(const struct cdc_run *c, struct buf *sql)
{
	state_sql_tombstones(sql, c->m->schema, c->m->name);
}

/* Runs the statements in sql and frees it. */
static int run(struct cdc_run *c, struct buf *sql, struct sl_err *err)
{
	int rc = wh_exec(c->w, sql->buf, err);

	buf_release(sql);
	return rc;
}

/* Makes the temporary table `name` hold the rows of query, and frees it. */
static int run_temp(struct cdc_run *c, const char *name, struct buf *query, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	size_t i = 0;

	while (i < c->ntemps && strcmp(c->temps[i], name) != 0)
		i++;
	if (i == c->ntemps && i < sizeof(c->temps) / sizeof(c->temps[0]))
		c->temps[c->ntemps++] = name;

	wh_sql_replace_as(c->w, &sql, WH_TEMP_TABLE, NULL, name, query->buf);
	buf_release(query);
	return run(c, &sql, err);
}

static void add_target(const struct cdc_run *c, struct buf *sql)
{
	wh_sql_qualified(sql, c->m->schema, c->table);
}

/* A full build starts from an empty table and no tombstones, both with the
 * events' column types. */
static int create_tables(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT, stones = BUF_INIT;

	buf_adds(&stones, "SELECT ");
	cdc_sql_keys(c, &stones, NULL);
	buf_adds(&stones, ", ");
	cdc_sql_col(&stones, NULL, c->seq);
	if (c->m->cdc_soft) {
		buf_adds(&stones, ", ");
		cdc_sql_col(&stones, NULL, c->seq);
		buf_adds(&stones, " AS _sluice_values_seq");
	}
	buf_adds(&stones, " FROM " EVENTS " LIMIT 0");
	buf_adds(&sql, "CREATE TABLE ");
	add_target(c, &sql);
	buf_addf(&sql, " AS SELECT *%s FROM " EVENTS " LIMIT 0;\n",
		 c->m->cdc_soft ? ", false AS _sluice_deleted" : "");
	state_sql_tombstones_create(c->w, &sql, c->m->schema, c->m->name, stones.buf);
	buf_release(&stones);
	return run(c, &sql, err);
}

/* The events of rel (with the alias r) whose key has one event among
 * them (cmp "=") or several (">"), as _sluice_cdc_k counted them. */
static void add_by_count(const struct cdc_run *c, struct buf *sql, const char *rel,
			 const char *cmp)
{
	buf_addf(sql, "SELECT r.* FROM %s JOIN _sluice_cdc_k AS k ON ", rel);
	cdc_sql_key_match(c, sql, "r", "k");
	buf_addf(sql, " WHERE k._sluice_cdc_n %s 1", cmp);
}

/*
 * The newest event of each key among the events rel (a relation with the
 * alias r): the highest sequence, then the latest change of its source
 * transaction (_sluice_pos), then (deletes_first) a delete before an
 * upsert, then the one that landed first, as it would have when applied
 * alone. Most keys of a batch have one event, which is their newest as it
 * is: only the events of keys with several are sorted, a fraction of
 * sorting the batch. The events per key are counted once, in a common
 * table expression that both sides read. The sorted part is a subquery of
 * its own, so that no warehouse's way of taking the first row reaches the
 * other side of the UNION.
 */
static void add_newest(const struct cdc_run *c, struct buf *sql, const char *rel,
		       bool deletes_first)
{
	struct buf keys = BUF_INIT, order = BUF_INIT, several = BUF_INIT;

	cdc_sql_keys(c, &keys, NULL);
	cdc_sql_seq_value(c, &order, NULL, c->seq);
	buf_adds(&order, " DESC");
	if (c->pos) {
		buf_adds(&order, ", ");
		cdc_sql_col(&order, NULL, c->pos);
		buf_adds(&order, " DESC NULLS LAST");
	}
	if (deletes_first) {
		buf_adds(&order, ", ");
		cdc_sql_is_delete(c, &order, NULL);
		buf_adds(&order, " DESC");
	}
	if (c->landing_seq)
		buf_adds(&order, ", _sluice_seq");
	buf_addf(sql,
		 "WITH _sluice_cdc_k AS (SELECT %s, count(*) AS _sluice_cdc_n FROM %s GROUP BY %s)\n",
		 keys.buf, rel, keys.buf);
	add_by_count(c, sql, rel, "=");
	buf_adds(&several, "(");
	add_by_count(c, &several, rel, ">");
	buf_adds(&several, ") AS several");
	buf_adds(sql, "\nUNION ALL\nSELECT * FROM (");
	wh_sql_first_per_key(c->w, sql, several.buf, keys.buf, order.buf);
	buf_adds(sql, ") AS newest");
	buf_release(&several);
	buf_release(&order);
	buf_release(&keys);
}

/* Soft deletes take their values from the newest upsert of the key. */
static int write_upserts(struct cdc_run *c, struct sl_err *err)
{
	struct buf query = BUF_INIT, rel = BUF_INIT;

	buf_adds(&rel, "(SELECT * FROM " EVENTS " WHERE NOT ");
	cdc_sql_is_delete(c, &rel, NULL);
	buf_adds(&rel, ") AS r");
	buf_adds(&query, "SELECT *, ");
	cdc_sql_seq_value(c, &query, NULL, c->seq);
	buf_adds(&query, " AS _sluice_cdc_seq FROM (\n");
	add_newest(c, &query, rel.buf, false);
	buf_adds(&query, ") AS e");
	buf_release(&rel);
	return run_temp(c, UPSERTS, &query, err);
}

/* A CASE branch giving a stored sequence as text when this batch's kind
 * cannot read it. */
static void add_unreadable(const struct cdc_run *c, struct buf *sql, const char *alias,
			   const char *col)
{
	buf_adds(sql, " WHEN ");
	cdc_sql_col(sql, alias, col);
	buf_adds(sql, " IS NOT NULL AND (");
	cdc_sql_seq_value(c, sql, alias, col);
	buf_adds(sql, ") IS NULL THEN CAST(");
	cdc_sql_col(sql, alias, col);
	buf_adds(sql, " AS VARCHAR)");
}

/* What a winner carries beside the event's columns: whether it is a
 * delete and, for a text sequence, the sequence as it compares. */
static void add_winner_columns(const struct cdc_run *c, struct buf *sql)
{
	buf_adds(sql, ", ");
	cdc_sql_is_delete(c, sql, NULL);
	buf_adds(sql, " AS _sluice_cdc_del");
	if (c->text_seq) {
		buf_adds(sql, ", ");
		cdc_sql_seq_value(c, sql, NULL, c->seq);
		buf_adds(sql, " AS _sluice_cdc_seq");
	}
}

/* A winner's sequence as it compares with what is stored. */
static void add_winner_seq(const struct cdc_run *c, struct buf *sql)
{
	if (c->text_seq)
		buf_adds(sql, "_sluice_cdc_seq");
	else
		cdc_sql_col(sql, NULL, c->seq);
}

/* The newest event of each key, as the table WINNERS: from the events'
 * table or, given the model's query, straight from it, read once as a
 * common table expression (which the warehouse materializes, as it is read
 * several times). */
static int write_winners(struct cdc_run *c, const char *query, struct sl_err *err)
{
	struct buf sql = BUF_INIT;

	if (query)
		buf_addf(&sql, "WITH _sluice_cdc_q AS (\n%s\n)\n", query);
	buf_adds(&sql, "SELECT *");
	add_winner_columns(c, &sql);
	buf_adds(&sql, " FROM (\n");
	add_newest(c, &sql, query ? "_sluice_cdc_q AS r" : EVENTS " AS r", true);
	buf_adds(&sql, ") AS e");
	return run_temp(c, WINNERS, &sql, err);
}

/* What WINNERS holds. */
static int read_winners(struct cdc_run *c, struct cdc_winners *wn, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_adds(&sql, "SELECT ");
	cdc_sql_winners_read(c, &sql);
	rc = wh_query(c->w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	cdc_winners_take(c, r, 0, wn);
	wh_result_free(r);
	return 0;
}

/*
 * The winners straight from the model's query, without the events' own
 * table, when the batch allows (*plain): an increment with an integer or
 * time sequence and hard deletes whose events, at a quick look, are all
 * upserts and deletes of a key with a sequence. Anything else (a bad
 * event, whose error the search over the table names, or a truncate, which
 * expand_truncates needs the table for) takes the table.
 */
static int winners_from_query(struct cdc_run *c, const char *query, const char *from,
			      bool *plain, struct cdc_winners *wn, struct sl_err *err)
{
	bool bad;
	int rc;

	*plain = false;
	if (c->full || c->m->cdc_soft || c->text_seq)
		return 0;
	rc = write_winners(c, query, err);
	if (!rc)
		rc = cdc_events_maybe_bad(c, from, &bad, wn, err);
	*plain = !rc && !bad && !c->truncates;
	return rc;
}

/* The column of a soft model's stored row, beside the event's own. */
static const char *old_column(const struct cdc_run *c, const char *col)
{
	return arena_sprintf(c->a, "_sluice_cdc_old_%s", col);
}

/*
 * The newest event of each key beside what is stored for it (one join with
 * the table, the only scan of it besides the delete), and whether it
 * applies. Soft models also take the stored row's values, and decide
 * whether a deleted row takes those of an upsert older than the delete but
 * newer than the values it shows.
 */
static int write_apply(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	bool soft = c->m->cdc_soft;

	buf_adds(&sql, "SELECT *");
	if (soft)
		buf_adds(&sql, ", NOT _sluice_cdc_apply AND _sluice_cdc_was_deleted AND "
			       "_sluice_cdc_useq IS NOT NULL AND (_sluice_cdc_vseq IS NULL OR "
			       "_sluice_cdc_useq > _sluice_cdc_vseq) AS _sluice_cdc_values");
	buf_adds(&sql, " FROM (SELECT *, _sluice_cdc_stored IS NULL OR ");
	add_winner_seq(c, &sql);
	buf_adds(&sql, " > _sluice_cdc_stored OR (_sluice_cdc_del AND ");
	add_winner_seq(c, &sql);
	buf_adds(&sql, " = _sluice_cdc_stored AND _sluice_cdc_live) AS _sluice_cdc_apply FROM (\n"
		       "SELECT w.*, ");
	cdc_sql_col(&sql, "t", c->keys[0]);
	buf_adds(&sql, " IS NOT NULL AS _sluice_cdc_row, ");
	if (soft) {
		for (size_t i = 0; i < c->ncols; i++) {
			cdc_sql_col(&sql, "t", c->cols[i].name);
			buf_adds(&sql, " AS ");
			wh_sql_ident(&sql, old_column(c, c->cols[i].name));
			buf_adds(&sql, ", ");
		}
		cdc_sql_seq_value(c, &sql, "t", c->seq);
		buf_adds(&sql, " AS _sluice_cdc_stored, coalesce(NOT t._sluice_deleted, false) AS "
			       "_sluice_cdc_live, coalesce(t._sluice_deleted, false) AS "
			       "_sluice_cdc_was_deleted, CASE WHEN t._sluice_deleted THEN ");
		cdc_sql_seq_value(c, &sql, "tb", "_sluice_values_seq");
		buf_adds(&sql, " ELSE ");
		cdc_sql_seq_value(c, &sql, "t", c->seq);
		buf_adds(&sql, " END AS _sluice_cdc_vseq, tb._sluice_values_seq AS "
			       "_sluice_cdc_vseq_raw, u._sluice_cdc_seq AS _sluice_cdc_useq");
	} else {
		buf_adds(&sql, "coalesce(");
		cdc_sql_seq_value(c, &sql, "t", c->seq);
		buf_adds(&sql, ", ");
		cdc_sql_seq_value(c, &sql, "tb", c->seq);
		buf_adds(&sql, ") AS _sluice_cdc_stored, ");
		cdc_sql_col(&sql, "t", c->keys[0]);
		buf_adds(&sql, " IS NOT NULL AS _sluice_cdc_live");
	}
	if (c->text_seq) {
		/* a stored sequence of the other kind cannot be compared */
		buf_adds(&sql, ", CASE");
		add_unreadable(c, &sql, "t", c->seq);
		add_unreadable(c, &sql, "tb", c->seq);
		if (soft)
			add_unreadable(c, &sql, "tb", "_sluice_values_seq");
		buf_adds(&sql, " END AS _sluice_cdc_bad");
	}
	buf_adds(&sql, "\nFROM " WINNERS " AS w LEFT JOIN ");
	add_target(c, &sql);
	buf_adds(&sql, " AS t ON ");
	cdc_sql_key_match(c, &sql, "w", "t");
	buf_adds(&sql, " LEFT JOIN ");
	add_tombstones(c, &sql);
	buf_adds(&sql, " AS tb ON ");
	cdc_sql_key_match(c, &sql, "w", "tb");
	if (soft) {
		buf_adds(&sql, " LEFT JOIN " UPSERTS " AS u ON ");
		cdc_sql_key_match(c, &sql, "w", "u");
	}
	buf_adds(&sql, ") AS s) AS d");
	return run_temp(c, APPLY, &sql, err);
}

/*
 * Whether every winner is newer than anything the table and the tombstones
 * hold, as when a stream is applied in order: then every winner applies
 * and what is stored need not be looked up, which saves a join with the
 * whole table. Hard deletes with a sequence that compares as it is only;
 * anything else, or a replay, takes the general path. The oldest winner's
 * sequence goes into the question as a constant, so that DuckDB answers it
 * from each row group's min/max without reading the rows.
 */
static int all_newer(struct cdc_run *c, const char *oldest, bool *newer, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	const char *type = NULL;
	int64_t stored = 1;
	int rc;

	*newer = false;
	if (c->full || c->text_seq || c->m->cdc_soft || !oldest)
		return 0;
	cdc_event_column(c, c->seq, &type);
	buf_adds(&sql, "SELECT CAST(EXISTS (SELECT 1 FROM ");
	add_target(c, &sql);
	buf_adds(&sql, " WHERE ");
	cdc_sql_col(&sql, NULL, c->seq);
	buf_adds(&sql, " >= CAST(");
	buf_add_sql_str(&sql, oldest);
	buf_addf(&sql, " AS %s)) OR EXISTS (SELECT 1 FROM ", type);
	add_tombstones(c, &sql);
	buf_adds(&sql, " WHERE ");
	cdc_sql_col(&sql, NULL, c->seq);
	buf_adds(&sql, " >= CAST(");
	buf_add_sql_str(&sql, oldest);
	buf_addf(&sql, " AS %s)) AS INTEGER)", type);
	rc = wh_query_int(c->w, sql.buf, &stored, err);
	*newer = !rc && stored == 0;
	buf_release(&sql);
	return rc;
}

static int check_stored(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_adds(&sql, "SELECT ");
	cdc_sql_key_text(c, &sql, NULL);
	buf_adds(&sql, " AS key, CAST(");
	cdc_sql_col(&sql, NULL, c->seq);
	buf_adds(&sql, " AS VARCHAR), _sluice_cdc_bad FROM " APPLY
		       " WHERE _sluice_cdc_bad IS NOT NULL ORDER BY key LIMIT 1");
	rc = wh_query(c->w, sql.buf, &r, err);
	if (!rc && wh_result_nrows(r))
		rc = sl_err_set(err, SL_E_INVALID,
				"model %s: mixed cdc_seq values for key %s: %s in this batch, %s "
				"stored" SEQ_HINT,
				c->m->fqn, wh_result_value(r, 0, 0),
				cdc_quoted(c->a, wh_result_value(r, 0, 1)),
				cdc_quoted(c->a, wh_result_value(r, 0, 2)));
	wh_result_free(r);
	buf_release(&sql);
	return rc;
}

/* Whether a soft-deleted row takes the column from the delete itself. */
static bool own_column(const struct cdc_run *c, const char *col)
{
	if (strcmp(col, c->op) == 0 || strcmp(col, c->seq) == 0 ||
	    strncasecmp(col, "_sluice_", 8) == 0)
		return true;
	for (size_t i = 0; i < c->m->nunique_key; i++)
		if (strcmp(col, c->keys[i]) == 0)
			return true;
	return false;
}

/*
 * The rows a soft model writes for the keys that change: upserts as they
 * are; deletes with the values of the newest upsert, stored or in the batch
 * (the stored one wins a tie: it came first); deleted rows that take the
 * values of a late upsert keep everything else.
 */
static int write_soft_rows(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;

	buf_adds(&sql, "SELECT ");
	for (size_t i = 0; i < c->ncols; i++) {
		const char *col = c->cols[i].name, *old = old_column(c, col);

		if (own_column(c, col)) {
			buf_adds(&sql, "CASE WHEN a._sluice_cdc_values THEN ");
			cdc_sql_col(&sql, "a", old);
			buf_adds(&sql, " ELSE ");
		} else {
			buf_adds(&sql, "CASE a._sluice_cdc_src WHEN 'upsert' THEN ");
			cdc_sql_col(&sql, "u", col);
			buf_adds(&sql, " WHEN 'stored' THEN ");
			cdc_sql_col(&sql, "a", old);
			buf_adds(&sql, " ELSE ");
		}
		cdc_sql_col(&sql, "a", col);
		buf_adds(&sql, " END AS ");
		wh_sql_ident(&sql, col);
		buf_adds(&sql, ", ");
	}
	buf_adds(&sql, "a._sluice_cdc_del OR a._sluice_cdc_values AS _sluice_deleted, "
		       "CASE a._sluice_cdc_src WHEN 'upsert' THEN ");
	cdc_sql_col(&sql, "u", c->seq);
	buf_adds(&sql, " WHEN 'stored' THEN CASE WHEN a._sluice_cdc_was_deleted THEN "
		       "a._sluice_cdc_vseq_raw ELSE ");
	cdc_sql_col(&sql, "a", old_column(c, c->seq));
	buf_adds(&sql, " END END AS _sluice_values_seq\n"
		       "FROM (SELECT *, CASE WHEN _sluice_cdc_values THEN 'upsert' WHEN NOT "
		       "_sluice_cdc_del THEN NULL WHEN _sluice_cdc_vseq IS NOT NULL AND "
		       "(_sluice_cdc_useq IS NULL OR _sluice_cdc_vseq >= _sluice_cdc_useq) THEN "
		       "'stored' WHEN _sluice_cdc_useq IS NOT NULL THEN 'upsert' END AS "
		       "_sluice_cdc_src FROM " APPLY
		       " WHERE _sluice_cdc_apply OR _sluice_cdc_values) AS a LEFT JOIN " UPSERTS
		       " AS u ON ");
	cdc_sql_key_match(c, &sql, "a", "u");
	return run_temp(c, ROWS, &sql, err);
}

/* Whether the key's newest event applies. */
static void add_applies(const struct cdc_run *c, struct buf *sql)
{
	buf_adds(sql, c->decided ? "_sluice_cdc_apply" : "true");
}

/* Whether the key's row changes: its newest event applies, or (soft) the
 * deleted row takes newer values. */
static void add_changes(const struct cdc_run *c, struct buf *sql)
{
	buf_adds(sql, "(");
	add_applies(c, sql);
	if (c->m->cdc_soft)
		buf_adds(sql, " OR _sluice_cdc_values");
	buf_adds(sql, ")");
}

/* The keys that change, as the table CHANGED, and their rows as they are
 * now into the change log, to be taken back. */
static int log_old_rows(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "SELECT ");
	cdc_sql_keys(c, &sql, NULL);
	buf_addf(&sql, " FROM %s WHERE ", c->apply);
	add_changes(c, &sql);
	rc = run_temp(c, CHANGED, &sql, err);
	return rc ? rc : changes_record(c->log, CHANGED, -1, err);
}

/* Replaces the rows and tombstones of every key that changes. */
static int write_changes(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT, cols = BUF_INIT, stones = BUF_INIT;
	int rc = c->log && !c->full ? log_old_rows(c, err) : 0;

	if (rc)
		return rc;

	if (!c->full) {
		buf_adds(&sql, "DELETE FROM ");
		add_target(c, &sql);
		buf_adds(&sql, " AS t USING (SELECT ");
		cdc_sql_keys(c, &sql, NULL);
		buf_addf(&sql, " FROM %s WHERE ", c->apply);
		add_changes(c, &sql);
		if (c->decided)
			buf_adds(&sql, " AND _sluice_cdc_row");
		buf_adds(&sql, ") AS k WHERE ");
		cdc_sql_key_match(c, &sql, "t", "k");
		buf_adds(&sql, ";\nDELETE FROM ");
		add_tombstones(c, &sql);
		buf_adds(&sql, " AS tb USING (SELECT ");
		cdc_sql_keys(c, &sql, NULL);
		buf_addf(&sql, " FROM %s WHERE ", c->apply);
		add_changes(c, &sql);
		buf_adds(&sql, ") AS k WHERE ");
		cdc_sql_key_match(c, &sql, "tb", "k");
		buf_adds(&sql, ";\n");
	}
	cdc_sql_columns(c, &cols);
	cdc_sql_keys(c, &stones, NULL);
	buf_adds(&stones, ", ");
	cdc_sql_col(&stones, NULL, c->seq);
	if (c->m->cdc_soft) {
		buf_adds(&cols, ", _sluice_deleted");
		buf_adds(&stones, ", _sluice_values_seq");
	}
	buf_adds(&sql, "INSERT INTO ");
	add_target(c, &sql);
	buf_addf(&sql, " (%s) SELECT %s FROM ", cols.buf, cols.buf);
	if (c->m->cdc_soft) {
		buf_adds(&sql, ROWS);
	} else {
		buf_addf(&sql, "%s WHERE ", c->apply);
		add_applies(c, &sql);
		buf_adds(&sql, " AND NOT _sluice_cdc_del");
	}
	buf_adds(&sql, ";\nINSERT INTO ");
	add_tombstones(c, &sql);
	buf_addf(&sql, " (%s) SELECT %s FROM ", stones.buf, stones.buf);
	if (c->m->cdc_soft) {
		buf_adds(&sql, ROWS " WHERE _sluice_deleted");
	} else {
		buf_addf(&sql, "%s WHERE ", c->apply);
		add_applies(c, &sql);
		buf_adds(&sql, " AND _sluice_cdc_del");
	}
	buf_release(&stones);
	buf_release(&cols);
	rc = run(c, &sql, err);
	if (!rc && c->log && !c->full)
		rc = changes_record(c->log, CHANGED, 1, err);
	return rc;
}

/*
 * A truncate deletes every key older than itself. It becomes a delete of
 * each key the batch, the table or the tombstones know, at the truncate's
 * sequence and position, and the rules above do the rest: a key changed
 * after it keeps its newer event, one stored newer than it stays, and a
 * replay older than it stays out. Keys that only the tombstones know get
 * theirs raised, so that the result does not depend on whether the key's
 * delete came in this batch or an earlier one.
 */
static int expand_truncates(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT, keys = BUF_INIT;
	int rc;

	if (!c->truncates)
		return 0;
	buf_adds(&sql, "SELECT * FROM " EVENTS " WHERE ");
	cdc_sql_is_truncate(c, &sql, NULL);
	rc = run_temp(c, TRUNCATES, &sql, err);
	if (rc)
		return rc;
	cdc_sql_keys(c, &keys, NULL);
	buf_adds(&sql, "DELETE FROM " EVENTS " WHERE ");
	cdc_sql_is_truncate(c, &sql, NULL);
	buf_adds(&sql, ";\nINSERT INTO " EVENTS " (");
	cdc_sql_columns(c, &sql);
	buf_adds(&sql, ") SELECT ");
	for (size_t i = 0; i < c->ncols; i++) {
		const char *col = c->cols[i].name;
		bool key = false;

		for (size_t k = 0; k < c->m->nunique_key && !key; k++)
			key = strcmp(col, c->keys[k]) == 0;
		buf_adds(&sql, i ? ", " : "");
		cdc_sql_col(&sql, key ? "k" : "t", col);
	}
	buf_addf(&sql, " FROM " TRUNCATES " AS t CROSS JOIN (SELECT %s FROM " EVENTS
		       " UNION SELECT %s FROM ",
		 keys.buf, keys.buf);
	add_target(c, &sql);
	buf_addf(&sql, " UNION SELECT %s FROM ", keys.buf);
	add_tombstones(c, &sql);
	buf_adds(&sql, ") AS k");
	buf_release(&keys);
	return run(c, &sql, err);
}

static int apply_events(struct cdc_run *c, const struct cdc_winners *wn, int64_t *changed,
			struct sl_err *err)
{
	bool newer = false;
	int rc = c->m->cdc_soft ? write_upserts(c, err) : all_newer(c, wn->oldest, &newer, err);

	c->decided = !newer;
	c->apply = newer ? WINNERS : APPLY;
	if (!rc && c->decided)
		rc = write_apply(c, err);
	if (!rc && c->text_seq && !c->full)
		rc = check_stored(c, err);
	if (!rc && c->m->cdc_soft)
		rc = write_soft_rows(c, err);
	if (!rc)
		rc = write_changes(c, err);
	*changed = wn->n;
	if (!rc && c->decided)
		rc = wh_query_int(c->w,
				  c->m->cdc_soft ? "SELECT count(*) FROM " ROWS
						 : "SELECT count(*) FROM " APPLY " WHERE _sluice_cdc_apply",
				  changed, err);
	return rc;
}

/* The events of query in a table of their own, checked and their truncates
 * expanded, then their winners. */
static int stage_events(struct cdc_run *c, const char *query, struct cdc_winners *wn,
			struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int64_t n = 0;
	int rc;

	buf_adds(&sql, query);
	rc = run_temp(c, EVENTS, &sql, err);
	if (!rc)
		rc = wh_query_int(c->w, "SELECT count(*) FROM " EVENTS, &n, err);
	if (!rc && n)
		rc = cdc_events_check(c, err);
	if (!rc && c->full)
		rc = create_tables(c, err);
	if (!rc && n)
		rc = expand_truncates(c, err);
	if (!rc && n)
		rc = write_winners(c, NULL, err);
	if (!rc && n)
		rc = read_winners(c, wn, err);
	return rc;
}

/* Drops the temporary tables the apply made. */
static int drop_temps(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;

	for (size_t i = 0; i < c->ntemps; i++)
		buf_addf(&sql, "%sDROP TABLE IF EXISTS %s", i ? "; " : "", c->temps[i]);
	return c->ntemps ? run(c, &sql, err) : 0;
}

int cdc_apply(struct wh *w, struct arena *parent, const struct model *m, const char *events,
	      const char *table, bool full, const struct changes *log, int64_t *changed,
	      struct sl_err *err)
{
	struct cdc_run c = { .w = w, .m = m, .a = arena_new(parent), .table = table, .full = full,
			     .log = log };
	struct cdc_winners wn = { 0 };
	bool plain = false;
	const char *from;
	int rc;

	*changed = 0;
	/* the model's query as a subquery, for the statements that read it
	 * once */
	from = arena_sprintf(c.a, "(\n%s\n) AS _sluice_cdc_q", events);
	rc = cdc_events_columns(&c, from, err);
	if (!rc)
		rc = winners_from_query(&c, events, from, &plain, &wn, err);
	if (!rc && !plain)
		rc = stage_events(&c, events, &wn, err);
	if (!rc && wn.n)
		rc = apply_events(&c, &wn, changed, err);
	if (!rc)
		rc = drop_temps(&c, err);
	arena_free(c.a);
	return rc;
}
