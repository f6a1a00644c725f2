/*
 * This file implements counted refreshes: a maintained model's hidden
 * groups table (its row count per group and the sums its aggregates follow
 * from) gains the batch's new rows and loses its old ones in one set-based
 * pass, a group whose count reaches zero goes, and the model's rows of the
 * touched groups are written anew from it. It must never decide the class.
 */
#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "exec/changes.h"
#include "exec/maintain_sql.h"
#include "state/changes.h"
#include "state/groups.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <string.h>
#include <strings.h>

/* A hidden column of a counted model's groups: its name, the aggregate
 * that gives it over input rows, and how two of them combine. */
struct state_col {
	const char *name, *expr, *combine;
	bool negates; /* an old row takes it away (a sum, not a minimum) */
};

/* The hidden columns of a counted model: _sluice_n, then each
 * aggregate's. */
static size_t state_cols(struct arena *a, const struct maint *mt, struct state_col **out)
{
	const struct ivm_result *q = &mt->q;
	struct state_col *c = arena_alloc(a, (2 * q->naggs + 1) * sizeof(*c));
	size_t n = 0;

	c[n++] = (struct state_col){ "_sluice_n", "count(*)", "sum", true };
	for (size_t j = 0; j < q->naggs; j++) {
		const struct ivm_agg *g = &q->aggs[j];
		const char *name = arena_sprintf(a, "_sluice_a%zu", j);

		switch (g->kind) {
		case IVM_COUNT_STAR:
			break;
		case IVM_COUNT:
			c[n++] = (struct state_col){ name, arena_sprintf(a, "count(%s)", g->arg), "sum",
						     true };
			break;
		case IVM_SUM:
		case IVM_AVG:
			c[n++] = (struct state_col){ name, arena_sprintf(a, "sum(%s)", g->arg), "sum",
						     true };
			c[n++] = (struct state_col){ arena_sprintf(a, "%s_n", name),
						     arena_sprintf(a, "count(%s)", g->arg), "sum", true };
			break;
		case IVM_MIN:
		case IVM_MAX: {
			const char *fn = g->kind == IVM_MIN ? "min" : "max";

			c[n++] = (struct state_col){ name, arena_sprintf(a, "%s(%s)", fn, g->arg), fn,
						     false };
			break;
		}
		}
	}
	*out = c;
	return n;
}

/* "k1, k2, col1, col2": the groups table's columns. */
static void add_group_cols(struct buf *b, const struct maint *mt, const struct state_col *c,
			   size_t nc, const char *alias)
{
	maint_add_keys(b, mt, alias);
	for (size_t i = 0; i < nc; i++) {
		if (i || mt->nkeys)
			buf_adds(b, ", ");
		if (alias)
			buf_addf(b, "%s.", alias);
		buf_adds(b, c[i].name);
	}
}

/* The groups the query makes of rows (in place of the input; NULL: the
 * input itself), each with its keys and hidden columns. */
static int state_query(struct refresh *r, const char *rows, const struct state_col *c, size_t nc,
		       struct buf *out, struct sl_err *err)
{
	const struct ivm_result *q = &r->mt->q;
	struct render_edit e[2];
	struct buf inner = BUF_INIT, extra = BUF_INIT;
	size_t n = 0;
	int rc;

	if (rows)
		e[n++] = maint_input_edit(r, rows);
	if (q->distinct_at >= 0) {
		e[n++] = (struct render_edit){ (size_t)q->distinct_at, 8, "" };
	} else {
		for (size_t i = 0; i < nc; i++)
			buf_addf(&extra, "%s%s AS %s", i ? ", " : "", c[i].expr, c[i].name);
		e[n++] = maint_list_edit(r, maint_keys_list(r, extra.buf));
	}
	rc = render_model_edited(r->m, r->ctx, e, n, &inner, err);
	buf_adds(out, "SELECT ");
	if (q->distinct_at >= 0) {
		maint_add_keys(out, r->mt, NULL);
		buf_addf(out, ", count(*) AS _sluice_n FROM (\n%s\n) AS _sluice_s", inner.buf);
		maint_add_group_by(out, r->mt);
	} else {
		add_group_cols(out, r->mt, c, nc, NULL);
		buf_addf(out, " FROM (\n%s\n) AS _sluice_s", inner.buf);
	}
	buf_release(&inner);
	buf_release(&extra);
	return rc;
}

/* What each aggregate is, from the hidden columns of a group g. */
/* The type of the groups table's column name, as the warehouse names
 * it, or NULL. */
static const char *group_col_type(const struct wh_column *cols, size_t ncols, const char *name)
{
	for (size_t i = 0; i < ncols; i++)
		if (strcasecmp(cols[i].name, name) == 0)
			return cols[i].type;
	return NULL;
}

/* What aggregate j is, from the hidden columns (of the types cols gives)
 * of a group _sluice_g. */
static void add_finished(struct refresh *r, const struct ivm_agg *g, size_t j,
			 const struct wh_column *cols, size_t ncols, struct buf *b)
{
	const char *s = arena_sprintf(r->a, "_sluice_g._sluice_a%zu", j);
	const char *n = arena_sprintf(r->a, "_sluice_g._sluice_a%zu_n", j);

	switch (g->kind) {
	case IVM_COUNT_STAR:
		buf_adds(b, "_sluice_g._sluice_n");
		break;
	case IVM_COUNT:
	case IVM_MIN:
	case IVM_MAX:
		buf_adds(b, s);
		break;
	case IVM_SUM:
		buf_addf(b, "(CASE WHEN %s = 0 THEN NULL ELSE %s END)", n, s);
		break;
	case IVM_AVG:
		buf_addf(b, "(CASE WHEN %s = 0 THEN NULL ELSE ", n);
		wh_sql_avg_of(r->w, b, s, n,
			      group_col_type(cols, ncols, arena_sprintf(r->a, "_sluice_a%zu", j)));
		buf_adds(b, " END)");
		break;
	}
}

/* The model's select list over its groups (_sluice_g): a key as kept,
 * another item as written with each aggregate in it finished. The groups
 * table's column types say how avg() divides; shown, not run, before the
 * table is there, it divides as for numbers that are not decimals. */
static int add_finishing(struct refresh *r, struct buf *b, struct sl_err *err)
{
	const struct ivm_result *q = &r->mt->q;
	const char *s = r->m->body;
	struct wh_column *cols = NULL;
	size_t ncols = 0;
	char table[512];
	int rc;

	state_model_table(table, sizeof(table), "groups", r->m->schema, r->m->name);
	rc = wh_table_columns(r->w, r->a, STATE_SCHEMA, table, &cols, &ncols, err);
	if (rc && !r->dry)
		return rc;
	if (rc)
		sl_err_clear(err);

	for (size_t i = 0; i < q->nitems; i++) {
		const struct ivm_item *it = &q->items[i];
		size_t pos = it->start;

		if (i)
			buf_adds(b, ",");
		if (it->key) {
			for (size_t k = 0; k < q->nkeys; k++)
				if (q->keys[k].item == i) {
					buf_adds(b, " _sluice_g.");
					wh_sql_ident(b, q->keys[k].name);
				}
			buf_adds(b, " ");
			continue;
		}
		for (size_t j = 0; j < q->naggs; j++) {
			if (q->aggs[j].item != i)
				continue;
			buf_add(b, s + pos, q->aggs[j].start - pos);
			add_finished(r, &q->aggs[j], j, cols, ncols, b);
			pos = q->aggs[j].end;
		}
		buf_add(b, s + pos, it->end - pos);
	}
	return 0;
}

/* The groups of the batch: the new rows' sums less the old rows'. */
static int counted_delta(struct refresh *r, const struct state_col *c, size_t nc,
			 struct sl_err *err)
{
	struct buf q = BUF_INIT, sub = BUF_INIT;
	int rc = state_query(r, maint_changed_rows(r, 1), c, nc, &sub, err);

	buf_adds(&q, "SELECT ");
	maint_add_keys(&q, r->mt, NULL);
	for (size_t i = 0; i < nc; i++)
		buf_addf(&q, "%s%s(%s) AS %s", i || r->mt->nkeys ? ", " : "", c[i].combine, c[i].name,
			 c[i].name);
	buf_addf(&q, " FROM (\n%s\n", sub.buf);
	if (!rc && maint_has_old(r)) {
		buf_reset(&sub);
		rc = state_query(r, maint_changed_rows(r, -1), c, nc, &sub, err);
		buf_adds(&q, "UNION ALL SELECT ");
		maint_add_keys(&q, r->mt, NULL);
		for (size_t i = 0; i < nc; i++)
			buf_addf(&q, "%s%s%s", i || r->mt->nkeys ? ", " : "", c[i].negates ? "-" : "",
				 c[i].name);
		buf_addf(&q, " FROM (\n%s\n) AS _sluice_old\n", sub.buf);
	}
	buf_adds(&q, ") AS _sluice_u");
	maint_add_group_by(&q, r->mt);
	if (!rc) {
		wh_sql_replace_as(r->w, &r->sql, WH_TEMP_TABLE, NULL, DELTA, q.buf);
		rc = maint_run(r, NULL, err);
	}
	buf_release(&q);
	buf_release(&sub);
	return rc;
}

/* The touched groups' new hidden columns: what they held plus the batch. */
static int counted_next(struct refresh *r, const struct state_col *c, size_t nc,
			struct sl_err *err)
{
	struct buf q = BUF_INIT;
	int rc;

	buf_adds(&q, "SELECT ");
	maint_add_keys(&q, r->mt, NULL);
	for (size_t i = 0; i < nc; i++)
		buf_addf(&q, "%s%s(%s) AS %s", i || r->mt->nkeys ? ", " : "", c[i].combine, c[i].name,
			 c[i].name);
	buf_adds(&q, " FROM (SELECT ");
	add_group_cols(&q, r->mt, c, nc, "_sluice_g");
	buf_adds(&q, " FROM ");
	maint_add_groups(&q, r->m);
	buf_adds(&q, " AS _sluice_g WHERE EXISTS (SELECT 1 FROM " DELTA " AS _sluice_d WHERE ");
	maint_add_match(&q, r, "_sluice_g", "_sluice_d");
	buf_adds(&q, ") UNION ALL SELECT ");
	add_group_cols(&q, r->mt, c, nc, NULL);
	buf_adds(&q, " FROM " DELTA ") AS _sluice_u");
	maint_add_group_by(&q, r->mt);
	wh_sql_replace_as(r->w, &r->sql, WH_TEMP_TABLE, NULL, NEXT, q.buf);
	rc = maint_run(r, NULL, err);
	buf_release(&q);
	return rc;
}

/* A group with no row left is no group, but the one group of a query
 * without GROUP BY is there over no rows too. */
static void add_alive(struct buf *b, const struct maint *mt)
{
	if (mt->nkeys)
		buf_adds(b, " WHERE _sluice_g._sluice_n > 0");
}

int maint_refresh_counted(struct refresh *r, const struct changes *log, int64_t *rows,
			   struct sl_err *err)
{
	struct state_col *c;
	size_t nc = state_cols(r->a, r->mt, &c);
	int rc = counted_delta(r, c, nc, err);

	if (!rc)
		rc = maint_batch_facts(r, rows, err);
	if (rc || !*rows)
		return rc ? rc : maint_drop_temp(r, DELTA, err);
	rc = counted_next(r, c, nc, err);
	if (!rc)
		rc = maint_record(r, log, -1, err);
	if (!rc)
		rc = maint_delete_batch_keys(r, true, err);
	if (!rc) {
		buf_adds(&r->sql, "INSERT INTO ");
		maint_add_groups(&r->sql, r->m);
		buf_adds(&r->sql, " (");
		add_group_cols(&r->sql, r->mt, c, nc, NULL);
		buf_adds(&r->sql, ") SELECT ");
		add_group_cols(&r->sql, r->mt, c, nc, NULL);
		buf_adds(&r->sql, " FROM " NEXT " AS _sluice_g");
		add_alive(&r->sql, r->mt);
		rc = maint_run(r, NULL, err);
	}
	if (!rc)
		rc = maint_delete_batch_keys(r, false, err);
	if (!rc) {
		buf_adds(&r->sql, "INSERT INTO ");
		maint_add_model(&r->sql, r->m);
		buf_adds(&r->sql, " SELECT");
		rc = add_finishing(r, &r->sql, err);
		buf_adds(&r->sql, " FROM " NEXT " AS _sluice_g");
		add_alive(&r->sql, r->mt);
		if (!rc)
			rc = maint_run(r, NULL, err);
	}
	if (!rc)
		rc = maint_record(r, log, 1, err);
	if (!rc)
		rc = maint_drop_temp(r, NEXT, err);
	return rc ? rc : maint_drop_temp(r, DELTA, err);
}

/* The groups table of a counted model, anew from its whole input. */
/* The groups table anew, empty, its columns typed as query gives them and
 * stored as the warehouse reads them fastest: every refresh reads the
 * hidden sums of the groups it touches. */
static int create_groups(struct refresh *r, const char *query, struct sl_err *err)
{
	struct wh_column *cols = NULL;
	size_t n = 0;
	int rc = r->dry ? 0 : wh_query_columns(r->w, r->a, query, &cols, &n, err);

	if (rc)
		return rc;
	buf_adds(&r->sql, "DROP TABLE IF EXISTS ");
	maint_add_groups(&r->sql, r->m);
	buf_adds(&r->sql, ";\nCREATE TABLE ");
	maint_add_groups(&r->sql, r->m);
	buf_adds(&r->sql, " (");
	for (size_t i = 0; i < n; i++) {
		buf_adds(&r->sql, i ? ", " : "");
		wh_sql_ident(&r->sql, cols[i].name);
		buf_addf(&r->sql, " %s", cols[i].type);
		wh_sql_column_storage(r->w, &r->sql, cols[i].type);
	}
	buf_adds(&r->sql, ")");
	return maint_run(r, NULL, err);
}

int maint_build_groups(struct refresh *r, bool fresh, struct sl_err *err)
{
	struct buf q = BUF_INIT;
	struct state_col *c;
	size_t nc = state_cols(r->a, r->mt, &c);
	int rc = state_query(r, r->mt->in == MAINT_APPENDS ? maint_changed_rows(r, 1) : NULL, c, nc, &q,
			     err);

	if (!rc && fresh)
		rc = create_groups(r, q.buf, err);
	if (!rc && !fresh) {
		buf_adds(&r->sql, "DELETE FROM ");
		maint_add_groups(&r->sql, r->m);
		rc = maint_run(r, NULL, err);
	}
	if (!rc) {
		buf_adds(&r->sql, "INSERT INTO ");
		maint_add_groups(&r->sql, r->m);
		buf_addf(&r->sql, " %s", q.buf);
		rc = maint_run(r, NULL, err);
	}
	buf_release(&q);
	if (!rc && fresh && r->mt->nkeys) {
		char table[512];

		state_model_table(table, sizeof(table), "groups", r->m->schema, r->m->name);
		rc = wh_ensure_index(r->w, STATE_SCHEMA, table, r->mt->keys, r->mt->nkeys, true, err);
	}
	return rc;
}
