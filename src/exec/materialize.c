/*
 * Materializations. Only builds statements and runs them through the wh
 * interface, in SQL every warehouse reads; dialect details (replacing or
 * swapping a relation, the first row per key, reading CSV) are asked of the
 * warehouse layer. Must never begin, commit or roll back a transaction.
 */
#include "exec/materialize.h"

#include "exec/cdc.h"
#include "exec/changes.h"
#include "exec/maintain.h"
#include "exec/render.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "project/shape.h"
#include "state/changes.h"
#include "state/tombstones.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define STAGING_SUFFIX "__sluice_new"
#define LATEST_SUFFIX "__sluice_latest"
#define BATCH_TABLE "_sluice_batch"

/* The name of a table beside the model's own, in its schema. */
static void side_name(const struct model *m, const char *suffix, char *out, size_t len)
{
	snprintf(out, len, "%s%s", m->name, suffix);
}

static void qualified(const struct model *m, struct buf *b)
{
	wh_sql_qualified(b, m->schema, m->name);
}

static int run_counted(struct wh *w, struct buf *sql, int64_t *rows, struct sl_err *err)
{
	int rc = wh_exec_count(w, sql->buf, rows, err);

	buf_reset(sql);
	return rc;
}

static int run(struct wh *w, struct buf *sql, struct sl_err *err)
{
	return run_counted(w, sql, NULL, err);
}

static void set_relation(struct mat_outcome *out, const char *schema, const char *name)
{
	struct buf b = BUF_INIT;

	wh_sql_qualified(&b, schema, name);
	snprintf(out->relation, sizeof(out->relation), "%s", b.buf);
	buf_release(&b);
}

int materialize_seq_columns(struct wh *w, const char *schema, const char *name, int *out,
			    struct sl_err *err)
{
	static const char *const cols[] = { "_sluice_seq", "_sluice_pos" };
	bool has[2];
	int rc = wh_has_columns(w, schema, name, cols, 2, has, err);

	if (!rc)
		*out = !has[0] ? -1 : has[1] ? 2 : 1;
	return rc;
}

/* The latest landing of each key among the rows of from, as merging batch
 * after batch keeps it: by sequence, then (seq_column 2) by place, for
 * the changes of several source transactions that landed together. */
static void add_latest_per_key(struct wh *w, const struct model *m, const char *from,
			       int seq_column, struct buf *sql)
{
	struct buf keys = BUF_INIT;

	for (size_t i = 0; i < m->nunique_key; i++) {
		if (i)
			buf_adds(&keys, ", ");
		wh_sql_ident(&keys, m->unique_key[i]);
	}
	wh_sql_first_per_key(w, sql, from, keys.buf,
			     seq_column == 2 ? "_sluice_seq DESC, _sluice_pos DESC NULLS LAST"
					     : "_sluice_seq DESC");
	buf_release(&keys);
}

/* A merge model built from scratch holds what merging every landing batch
 * in turn would: one row per key, its latest. Those rows go to a table of
 * their own, swapped in for the staging table: a statement that replaces
 * the table it reads is not one every warehouse can write. */
static int keep_latest_per_key(struct wh *w, const struct model *m, const char *staging,
			       struct sl_err *err)
{
	struct buf sql = BUF_INIT, from = BUF_INIT;
	char latest[300];
	int seq;
	int rc = materialize_seq_columns(w, m->schema, staging, &seq, err);

	if (rc || seq < 0)
		return rc;
	side_name(m, LATEST_SUFFIX, latest, sizeof(latest));
	wh_sql_qualified(&from, m->schema, staging);
	buf_adds(&sql, "CREATE TABLE ");
	wh_sql_qualified(&sql, m->schema, latest);
	buf_adds(&sql, " AS ");
	add_latest_per_key(w, m, from.buf, seq, &sql);
	buf_adds(&sql, ";\n");
	wh_sql_swap_in(w, &sql, m->schema, latest, staging, "table");
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	buf_release(&from);
	return rc;
}

static bool keyed_increment(const struct model *m)
{
	return m->mat == MAT_INCREMENTAL &&
	       (m->strategy == STRAT_MERGE || m->strategy == STRAT_DELETE_INSERT);
}

/* Whether the model's rows are change events (cdc.c applies them). */
static bool applies_changes(const struct model *m)
{
	return keyed_increment(m) && cdc_model(m);
}

/* Change events rebuilt from scratch: every event applied to a new table.
 * sql holds the statements that clear the way for the staging table. */
static int write_cdc_staging(struct wh *w, const struct model *m, const struct mat_plan *plan,
			     const char *staging, bool filtered, struct buf *sql,
			     struct sl_err *err)
{
	int64_t changed;
	int rc = run(w, sql, err);

	if (!rc)
		rc = render_model(m, &plan->ctx, filtered, sql, err);
	if (!rc)
		rc = cdc_apply(w, plan->a, m, sql->buf, staging, true, NULL, &changed, err);
	buf_reset(sql);
	return rc;
}

/* The query's rows (a seed's file, a snapshot's first version) into the
 * staging table; sql holds the statements that clear the way for it. */
/* *rows: what the staging table holds, as the statement that made it
 * counted them; -1 when that count does not tell (a seed, a merge's rows
 * before each key's latest is kept). */
static int write_query_staging(struct wh *w, const struct model *m, const struct mat_plan *plan,
			       const char *staging, bool filtered, struct buf *sql,
			       int64_t *rows, struct sl_err *err)
{
	int rc = 0;

	*rows = -1;
	if (m->mat == MAT_SEED) {
		rc = run(w, sql, err);
		return rc ? rc : wh_load_csv(w, m->schema, staging, m->abspath, err);
	}
	buf_adds(sql, ";\nCREATE TABLE ");
	wh_sql_qualified(sql, m->schema, staging);
	buf_adds(sql, " AS ");
	if (m->mat == MAT_SNAPSHOT) {
		buf_adds(sql, "SELECT *, TIMESTAMP ");
		buf_add_sql_str(sql, plan->run_ts);
		buf_adds(sql, " AS valid_from, CAST(NULL AS TIMESTAMP) AS valid_to FROM (\n");
		rc = render_model(m, &plan->ctx, false, sql, err);
		buf_adds(sql, "\n) AS _sluice_snap");
	} else if (m->maint) {
		rc = maintain_render_full(w, m, &plan->ctx, sql, err);
	} else {
		rc = render_model(m, &plan->ctx, filtered, sql, err);
	}
	if (!rc)
		rc = run_counted(w, sql, rows, err);
	buf_reset(sql);
	if (!rc && m->mat == MAT_INCREMENTAL && m->strategy == STRAT_MERGE) {
		*rows = -1;
		rc = keep_latest_per_key(w, m, staging, err);
	}
	/* a model that no longer applies change events drops its tombstones */
	if (!rc && keyed_increment(m))
		rc = state_tombstones_drop(w, m->schema, m->name, err);
	return rc;
}

/* The model's schema, made when it is not there. Two processes making
 * it at once would both pass CREATE SCHEMA IF NOT EXISTS, and the second
 * fail on a duplicate key when the first commits: on a shared warehouse a
 * missing schema is made under a lock held to the end of the build's
 * transaction, so that the other waits for it and then finds the schema. */
static int ensure_schema(struct wh *w, const char *schema, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int64_t have = 0;
	int rc = 0;

	if (wh_shared(w)) {
		buf_adds(&sql, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = ");
		buf_add_sql_str(&sql, schema);
		rc = wh_query_int(w, sql.buf, &have, err);
		buf_reset(&sql);
		buf_addf(&sql, "schema:%s", schema);
		if (!rc && !have)
			rc = wh_lock(w, sql.buf, WH_LOCK_TXN, NULL, err);
		buf_reset(&sql);
	}
	if (!rc && !have) {
		buf_adds(&sql, "CREATE SCHEMA IF NOT EXISTS ");
		wh_sql_ident(&sql, schema);
		rc = run(w, &sql, err);
	}
	buf_release(&sql);
	return rc;
}

int materialize_table_of(struct wh *w, const char *schema, const char *name, const char *query,
			 struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc = ensure_schema(w, schema, err);

	wh_sql_replace_as(w, &sql, WH_TABLE, schema, name, query);
	if (!rc)
		rc = run(w, &sql, err);
	buf_release(&sql);
	return rc;
}

/* A model built from scratch starts its change log anew; built again
 * (rebuilt: its table was there), with the one row that says so, and its
 * readers read it whole again. One that keeps none any more drops it. */
static int restart_changes(struct wh *w, struct arena *a, const struct model *m,
			   const struct mat_plan *plan, const char *staging, bool rebuilt,
			   struct sl_err *err)
{
	struct changes log;
	int rc;

	if (!keyed_increment(m))
		return 0;
	if (!model_keeps_changes(m) || !plan->ctx.refresh_seq)
		return state_changes_drop(w, m->schema, m->name, err);
	rc = changes_open(w, a, m, staging, true, plan->ctx.refresh_seq, &log, err);
	return rc || !rebuilt ? rc : changes_record_rebuilt(&log, err);
}

/* The new relation's rows go to a staging table beside the old one. */
static int write_staging(struct wh *w, struct arena *a, const struct model *m,
			 const struct mat_plan *plan, struct mat_outcome *out, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	char staging[300];
	bool filtered = m->filter && !render_filter_reads_this(m);
	int rc;

	side_name(m, STAGING_SUFFIX, staging, sizeof(staging));
	rc = ensure_schema(w, m->schema, err);
	if (rc)
		goto out;
	buf_adds(&sql, "DROP TABLE IF EXISTS ");
	wh_sql_qualified(&sql, m->schema, staging);
	out->rows = -1;
	/* a maintained model's state first: a counted one's rows are
	 * finished from its groups */
	if (m->maint)
		rc = maintain_build_state(w, a, m, &plan->ctx, err);
	if (!rc && applies_changes(m))
		rc = write_cdc_staging(w, m, plan, staging, filtered, &sql, err);
	else if (!rc)
		rc = write_query_staging(w, m, plan, staging, filtered, &sql, &out->rows, err);
	if (!rc)
		rc = restart_changes(w, a, m, plan, staging, out->old_kind != NULL, err);
	if (rc)
		goto out;
	/* counting scans the table: asked only when its making did not say */
	if (out->rows < 0) {
		buf_adds(&sql, "SELECT count(*) FROM ");
		wh_sql_qualified(&sql, m->schema, staging);
		rc = wh_query_int(w, sql.buf, &out->rows, err);
	}
	set_relation(out, m->schema, staging);
	out->staged = true;
	out->action = out->old_kind ? "replaced" : "created";
out:
	buf_release(&sql);
	return rc;
}

static int write_view(struct wh *w, const struct model *m, const struct mat_plan *plan,
		      struct mat_outcome *out, struct sl_err *err)
{
	struct buf sql = BUF_INIT, query = BUF_INIT;
	int rc = ensure_schema(w, m->schema, err);

	if (rc)
		return rc;
	if (out->old_kind && strcmp(out->old_kind, "table") == 0) {
		buf_adds(&sql, "DROP TABLE ");
		qualified(m, &sql);
		buf_adds(&sql, ";\n");
	}
	rc = render_model(m, &plan->ctx, false, &query, err);
	if (!rc) {
		wh_sql_replace_as(w, &sql, WH_VIEW, m->schema, m->name, query.buf);
		rc = run(w, &sql, err);
	}
	buf_release(&sql);
	buf_release(&query);
	set_relation(out, m->schema, m->name);
	out->rows = 0;
	out->action = out->old_kind ? "replaced" : "created";
	return rc;
}

static void key_match(const struct model *m, const char *left, const char *right,
		      struct buf *sql)
{
	for (size_t i = 0; i < m->nunique_key; i++) {
		if (i)
			buf_adds(sql, " AND ");
		buf_addf(sql, "%s.", left);
		wh_sql_ident(sql, m->unique_key[i]);
		buf_addf(sql, " = %s.", right);
		wh_sql_ident(sql, m->unique_key[i]);
	}
}

static int write_delete_insert(struct wh *w, struct arena *a, const struct model *m,
			       const struct mat_plan *plan, const struct changes *log,
			       struct mat_outcome *out, struct sl_err *err)
{
	struct buf sql = BUF_INIT, query = BUF_INIT;
	int rc;

	/* the batch is read twice (keys to delete, rows to insert), so it is
	 * computed once into a temporary table */
	rc = render_model(m, &plan->ctx, true, &query, err);
	if (!rc) {
		wh_sql_replace_as(w, &sql, WH_TEMP_TABLE, NULL, BATCH_TABLE, query.buf);
		rc = run(w, &sql, err);
	}
	if (!rc && log)
		rc = changes_record(log, BATCH_TABLE, -1, err);
	if (!rc) {
		buf_adds(&sql, "DELETE FROM ");
		qualified(m, &sql);
		buf_adds(&sql, " AS _sluice_t USING " BATCH_TABLE " AS _sluice_new WHERE ");
		key_match(m, "_sluice_t", "_sluice_new", &sql);
		rc = run(w, &sql, err);
	}
	if (!rc)
		rc = wh_sql_insert_by_name(w, a, &sql, m->schema, m->name,
					   "SELECT * FROM " BATCH_TABLE, err);
	if (!rc)
		rc = run_counted(w, &sql, &out->rows, err);
	if (!rc && log)
		rc = changes_record_written(log, BATCH_TABLE, err);
	if (!rc) {
		buf_adds(&sql, "DROP TABLE " BATCH_TABLE);
		rc = run(w, &sql, err);
	}
	buf_release(&sql);
	buf_release(&query);
	return rc;
}

/* A merge that keeps a change log reads its batch three times (the old
 * rows, the merge, the new rows), so the batch is computed once into a
 * temporary table. */
static int write_merge(struct wh *w, struct arena *a, const struct model *m,
		       const struct mat_plan *plan, const struct changes *log,
		       struct mat_outcome *out, struct sl_err *err)
{
	struct buf sql = BUF_INIT, query = BUF_INIT, from = BUF_INIT, rows = BUF_INIT;
	int seq = m->seq_column;
	int rc = seq ? 0 : materialize_seq_columns(w, m->schema, m->name, &seq, err);

	if (!rc)
		rc = render_model(m, &plan->ctx, true, &query, err);
	if (rc)
		goto out;
	/* a key that arrived several times in this batch: its latest landing
	 * wins, as if the batches had been applied one by one */
	if (seq > 0) {
		buf_addf(&from, "(\n%s\n) AS " BATCH_TABLE, query.buf);
		add_latest_per_key(w, m, from.buf, seq, &rows);
	} else {
		buf_add(&rows, query.buf, query.len);
	}
	if (log) {
		wh_sql_replace_as(w, &sql, WH_TEMP_TABLE, NULL, BATCH_TABLE, rows.buf);
		rc = run(w, &sql, err);
		if (!rc)
			rc = changes_record(log, BATCH_TABLE, -1, err);
		if (rc)
			goto out;
		buf_reset(&rows);
		buf_adds(&rows, "SELECT * FROM " BATCH_TABLE);
	}
	buf_adds(&sql, "MERGE INTO ");
	qualified(m, &sql);
	buf_addf(&sql, " AS _sluice_t USING (\n%s\n) AS _sluice_new ON (", rows.buf);
	key_match(m, "_sluice_t", "_sluice_new", &sql);
	buf_adds(&sql, ") ");
	rc = wh_sql_merge_by_name(w, a, &sql, m->schema, m->name, rows.buf, "_sluice_new", err);
	if (!rc)
		rc = run_counted(w, &sql, &out->rows, err);
	if (!rc && log)
		rc = changes_record_written(log, BATCH_TABLE, err);
	if (!rc && log) {
		buf_adds(&sql, "DROP TABLE " BATCH_TABLE);
		rc = run(w, &sql, err);
	}
out:
	buf_release(&sql);
	buf_release(&query);
	buf_release(&from);
	buf_release(&rows);
	return rc;
}

static int write_increment(struct wh *w, struct arena *a, const struct model *m,
			   const struct mat_plan *plan, struct mat_outcome *out, struct sl_err *err)
{
	struct buf sql = BUF_INIT, query = BUF_INIT;
	struct changes changes, *log = NULL;
	int rc = 0;

	set_relation(out, m->schema, m->name);
	if (model_keeps_changes(m) && plan->ctx.refresh_seq) {
		rc = changes_open(w, a, m, m->name, false, plan->ctx.refresh_seq, &changes, err);
		if (rc)
			return rc;
		log = plan->ctx.changes_unread ? NULL : &changes;
	}
	if (m->maint) {
		rc = maintain_refresh(w, a, m, &plan->ctx, log, &out->rows, &out->action, err);
	} else if (applies_changes(m)) {
		rc = render_model(m, &plan->ctx, true, &sql, err);
		if (!rc)
			rc = cdc_apply(w, plan->a, m, sql.buf, m->name, false, log, &out->rows, err);
		out->action = "applied";
	} else if (m->strategy == STRAT_DELETE_INSERT) {
		rc = write_delete_insert(w, a, m, plan, log, out, err);
		out->action = "replaced keys";
	} else if (m->strategy == STRAT_MERGE) {
		rc = write_merge(w, a, m, plan, log, out, err);
		out->action = "merged";
	} else {
		rc = render_model(m, &plan->ctx, true, &query, err);
		if (!rc)
			rc = wh_sql_insert_by_name(w, a, &sql, m->schema, m->name, query.buf, err);
		if (!rc)
			rc = run_counted(w, &sql, &out->rows, err);
		out->action = "appended";
	}
	buf_release(&sql);
	buf_release(&query);
	return rc;
}

/* One window of a temporal model, its table there already: the rows of
 * [since, until) on time_column are replaced by the query's, whatever the
 * strategy, so a window built again (lookback, bulldozer, torch, a run
 * after a crash) never doubles its rows; merge and delete+insert then
 * write the window's rows their way, which may also change rows of other
 * windows with the same key. */
static int write_window(struct wh *w, struct arena *a, const struct model *m,
			const struct mat_plan *plan, struct mat_outcome *out, struct sl_err *err)
{
	struct buf sql = BUF_INIT, query = BUF_INIT;
	int rc;

	buf_adds(&sql, "DELETE FROM ");
	qualified(m, &sql);
	buf_adds(&sql, " WHERE ");
	wh_sql_ident(&sql, m->time_column);
	buf_addf(&sql, " >= TIMESTAMP '%s' AND ", plan->ctx.since);
	wh_sql_ident(&sql, m->time_column);
	buf_addf(&sql, " < TIMESTAMP '%s'", plan->ctx.until);
	rc = run(w, &sql, err);
	if (!rc && (m->strategy == STRAT_MERGE || m->strategy == STRAT_DELETE_INSERT)) {
		rc = write_increment(w, a, m, plan, out, err);
		goto out;
	}
	if (!rc)
		rc = render_model(m, &plan->ctx, false, &query, err);
	if (!rc)
		rc = wh_sql_insert_by_name(w, a, &sql, m->schema, m->name, query.buf, err);
	if (!rc)
		rc = run_counted(w, &sql, &out->rows, err);
	out->action = "window";
	set_relation(out, m->schema, m->name);
out:
	buf_release(&sql);
	buf_release(&query);
	return rc;
}

/* A condition of a snapshot's closing UPDATE: col holds what it held. */
static void add_unchanged(struct buf *sql, const char *col)
{
	buf_adds(sql, " AND _sluice_t.");
	wh_sql_ident(sql, col);
	buf_adds(sql, " IS NOT DISTINCT FROM _sluice_new.");
	wh_sql_ident(sql, col);
}

/* SCD type 2: close the current version of every key whose checked columns
 * changed or that disappeared, then add a new version for every key without
 * a current one. */
static int write_snapshot(struct wh *w, struct arena *a, const struct model *m,
			  const struct mat_plan *plan, struct mat_outcome *out, struct sl_err *err)
{
	struct buf sql = BUF_INIT, query = BUF_INIT;
	struct wh_result *cols = NULL;
	int64_t closed = 0, added = 0;
	int rc;

	rc = render_model(m, &plan->ctx, false, &query, err);
	if (!rc) {
		wh_sql_replace_as(w, &sql, WH_TEMP_TABLE, NULL, BATCH_TABLE, query.buf);
		rc = run(w, &sql, err);
	}
	if (!rc)
		rc = wh_query(w, "SELECT * FROM " BATCH_TABLE " LIMIT 0", &cols, err);
	if (rc)
		goto out;
	buf_adds(&sql, "UPDATE ");
	qualified(m, &sql);
	buf_adds(&sql, " AS _sluice_t SET valid_to = TIMESTAMP ");
	buf_add_sql_str(&sql, plan->run_ts);
	buf_adds(&sql, " WHERE valid_to IS NULL AND NOT EXISTS (SELECT 1 FROM " BATCH_TABLE
		       " AS _sluice_new WHERE ");
	key_match(m, "_sluice_t", "_sluice_new", &sql);
	if (m->ncheck_cols) {
		for (size_t i = 0; i < m->ncheck_cols; i++)
			add_unchanged(&sql, m->check_cols[i]);
	} else {
		for (size_t c = 0; c < wh_result_ncols(cols); c++) {
			const char *name = wh_result_colname(cols, c);
			bool is_key = false;

			for (size_t k = 0; k < m->nunique_key; k++)
				is_key |= strcasecmp(name, m->unique_key[k]) == 0;
			if (!is_key)
				add_unchanged(&sql, name);
		}
	}
	buf_adds(&sql, ")");
	rc = run_counted(w, &sql, &closed, err);
	if (rc)
		goto out;
	buf_reset(&query);
	buf_adds(&query, "SELECT _sluice_new.*, TIMESTAMP ");
	buf_add_sql_str(&query, plan->run_ts);
	buf_adds(&query, " AS valid_from, CAST(NULL AS TIMESTAMP) AS valid_to FROM " BATCH_TABLE
			 " AS _sluice_new WHERE NOT EXISTS (SELECT 1 FROM ");
	qualified(m, &query);
	buf_adds(&query, " AS _sluice_t WHERE _sluice_t.valid_to IS NULL AND ");
	key_match(m, "_sluice_t", "_sluice_new", &query);
	buf_adds(&query, ")");
	rc = wh_sql_insert_by_name(w, a, &sql, m->schema, m->name, query.buf, err);
	if (!rc)
		rc = run_counted(w, &sql, &added, err);
	if (!rc) {
		buf_adds(&sql, "DROP TABLE " BATCH_TABLE);
		rc = run(w, &sql, err);
	}
	out->rows = closed + added;
	out->action = "snapshot";
	set_relation(out, m->schema, m->name);
out:
	wh_result_free(cols);
	buf_release(&sql);
	buf_release(&query);
	return rc;
}

static bool has_column(const struct wh_column *cols, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(cols[i].name, name) == 0)
			return true;
	return false;
}

/* The model's table after its query changed (plan->evolve): each column
 * the query has and the table lacks is added, its rows' values NULL; with
 * drop_removed, each the query no longer has is dropped. In the build's
 * transaction: a failed build leaves the table as it was. */
static int evolve_columns(struct wh *w, struct arena *a, const struct model *m,
			  const struct mat_plan *plan, struct sl_err *err)
{
	const struct shape_diff *d = plan->evolve;
	struct buf sql = BUF_INIT, query = BUF_INIT;
	struct wh_column *qcols = NULL, *tcols = NULL;
	size_t nq = 0, nt = 0;
	int rc = render_model(m, &plan->ctx, false, &query, err);

	if (!rc)
		rc = wh_query_columns(w, a, query.buf, &qcols, &nq, err);
	if (!rc)
		rc = wh_table_columns(w, a, m->schema, m->name, &tcols, &nt, err);
	for (size_t i = 0; !rc && i < nq; i++) {
		if (has_column(tcols, nt, qcols[i].name))
			continue;
		buf_adds(&sql, "ALTER TABLE ");
		qualified(m, &sql);
		buf_adds(&sql, " ADD COLUMN ");
		wh_sql_ident(&sql, qcols[i].name);
		buf_addf(&sql, " %s", qcols[i].type);
		rc = run(w, &sql, err);
	}
	for (size_t i = 0; !rc && plan->drop_removed && i < d->nremoved; i++) {
		if (!has_column(tcols, nt, d->removed[i]) || has_column(qcols, nq, d->removed[i]))
			continue;
		buf_adds(&sql, "ALTER TABLE ");
		qualified(m, &sql);
		buf_adds(&sql, " DROP COLUMN ");
		wh_sql_ident(&sql, d->removed[i]);
		rc = run(w, &sql, err);
	}
	buf_release(&sql);
	buf_release(&query);
	return rc;
}

int materialize_write(struct wh *w, const struct model *m, const struct mat_plan *plan,
		      struct mat_outcome *out, struct sl_err *err)
{
	struct arena *a = arena_new(plan->a);
	const char *kind = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (plan->old_kind_known)
		kind = plan->old_kind;
	else
		rc = wh_relation_kind(w, a, m->schema, m->name, &kind, err);
	if (!rc) {
		out->old_kind = kind ? (strcmp(kind, "view") == 0 ? "view" : "table") : NULL;
		switch (m->mat) {
		case MAT_VIEW:
			rc = write_view(w, m, plan, out, err);
			break;
		case MAT_EPHEMERAL:
			out->action = "inlined";
			break;
		case MAT_INCREMENTAL:
		case MAT_SNAPSHOT:
			if (plan->full || !out->old_kind || strcmp(out->old_kind, "table") != 0)
				rc = write_staging(w, a, m, plan, out, err);
			else if (plan->evolve && (rc = evolve_columns(w, a, m, plan, err)) != 0)
				break;
			else if (m->temporal && !applies_changes(m))
				rc = write_window(w, a, m, plan, out, err);
			else if (m->mat == MAT_SNAPSHOT)
				rc = write_snapshot(w, a, m, plan, out, err);
			else
				rc = write_increment(w, a, m, plan, out, err);
			break;
		case MAT_TABLE:
		case MAT_SEED:
			rc = write_staging(w, a, m, plan, out, err);
			break;
		}
	}
	arena_free(a);
	return rc;
}

int materialize_publish(struct wh *w, const struct model *m, const struct mat_outcome *out,
			struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	char staging[300];
	int rc;

	if (out->staged) {
		side_name(m, STAGING_SUFFIX, staging, sizeof(staging));
		wh_sql_swap_in(w, &sql, m->schema, staging, m->name, out->old_kind);
		rc = wh_exec(w, sql.buf, err);
		buf_release(&sql);
		if (rc)
			return rc;
	}
	/* merges and delete+insert look the table's rows up by key */
	return keyed_increment(m) && m->nunique_key
		       ? wh_ensure_index(w, m->schema, m->name, m->unique_key, m->nunique_key,
					 out->staged, err)
		       : 0;
}
