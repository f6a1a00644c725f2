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
 * aggregate's. Weighted, each is over rows old and new, and an old row
 * (_sluice_weight -1) takes its part away: one pass over the changes. */
static size_t state_cols(struct arena *a, const struct maint *mt, bool weighted,
			 struct state_col **out)
{
	const struct ivm_result *q = &mt->q;
	struct state_col *c = arena_alloc(a, (2 * q->naggs + 1) * sizeof(*c));
	const char *count = weighted ? "sum(CASE WHEN (%s) IS NOT NULL THEN _sluice_weight ELSE 0 END)"
				     : "count(%s)";
	size_t n = 0;

	c[n++] = (struct state_col){ "_sluice_n", weighted ? "sum(_sluice_weight)" : "count(*)",
				     "sum", true };
	for (size_t j = 0; j < q->naggs; j++) {
		const struct ivm_agg *g = &q->aggs[j];
		const char *name = arena_sprintf(a, "_sluice_a%zu", j);
		/* the old rows' sum taken from the new rows', not each value
		 * negated: that overflows at the type's least value */
		const char *sum = weighted ? arena_sprintf(a,
							   "coalesce(sum(CASE WHEN _sluice_weight > 0 "
							   "THEN %s END), 0) - coalesce(sum(CASE WHEN "
							   "_sluice_weight < 0 THEN %s END), 0)",
							   g->arg, g->arg)
					   : arena_sprintf(a, "sum(%s)", g->arg);

		switch (g->kind) {
		case IVM_COUNT_STAR:
			break;
		case IVM_COUNT:
			c[n++] = (struct state_col){ name, arena_sprintf(a, count, g->arg), "sum", true };
			break;
		case IVM_SUM:
		case IVM_AVG:
			c[n++] = (struct state_col){ name, sum, "sum", true };
			c[n++] = (struct state_col){ arena_sprintf(a, "%s_n", name),
						     arena_sprintf(a, count, g->arg), "sum", true };
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
static void add_finishing(struct refresh *r, struct buf *b)
{
	const struct ivm_result *q = &r->mt->q;
	const char *s = r->m->body;
	const struct wh_column *cols = r->gcols;
	size_t ncols = r->ngcols;

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
}

/* The groups of the batch: the new rows' sums less the old rows', in one
 * pass where the query groups; a SELECT DISTINCT's groups are counted over
 * each side apart. */
static int counted_delta(struct refresh *r, struct sl_err *err)
{
	struct buf q = BUF_INIT, sub = BUF_INIT;
	struct state_col *c;
	bool weighted = maint_has_old(r) && r->mt->q.distinct_at < 0;
	size_t nc = state_cols(r->a, r->mt, weighted, &c);
	int rc;

	if (weighted) {
		rc = state_query(r, maint_changed_rows(r, 0), c, nc, &q, err);
		if (!rc)
			rc = maint_temp_table(r, DELTA, q.buf, err);
		buf_release(&q);
		return rc;
	}
	rc = state_query(r, maint_changed_rows(r, 1), c, nc, &sub, err);
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
	if (!rc)
		rc = maint_temp_table(r, DELTA, q.buf, err);
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
	rc = maint_temp_table(r, NEXT, q.buf, err);
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

/* The model's rows of the groups of from (its groups table, or the
 * touched groups' next hidden columns), finished. */
static int insert_finished(struct refresh *r, const char *from, int64_t *rows, struct sl_err *err)
{
	buf_adds(&r->sql, "INSERT INTO ");
	maint_add_model(&r->sql, r->m);
	buf_adds(&r->sql, " SELECT");
	add_finishing(r, &r->sql);
	buf_addf(&r->sql, " FROM %s AS _sluice_g", from);
	add_alive(&r->sql, r->mt);
	return maint_run(r, rows, err);
}

int maint_finish_whole(struct refresh *r, int64_t *rows, struct sl_err *err)
{
	struct buf from = BUF_INIT;
	int64_t gone = 0, made = 0;
	int rc;

	buf_adds(&r->sql, "DELETE FROM ");
	maint_add_model(&r->sql, r->m);
	rc = maint_run(r, &gone, err);
	maint_add_groups(&from, r->m);
	if (!rc)
		rc = insert_finished(r, from.buf, &made, err);
	buf_release(&from);
	*rows = gone + made;
	return rc;
}

bool maint_from_groups(struct refresh *r, const struct wh_column *cols, size_t ncols,
		       struct buf *out)
{
	struct buf from = BUF_INIT;

	if (!maint_counts(r->mt) || !r->ngcols || !ncols)
		return false;
	buf_adds(out, "SELECT ");
	for (size_t i = 0; i < ncols; i++) {
		buf_addf(out, "%sCAST(_sluice_f._sluice_c%zu AS %s) AS ", i ? ", " : "", i,
			 cols[i].type);
		wh_sql_ident(out, cols[i].name);
	}
	maint_add_groups(&from, r->m);
	buf_adds(out, " FROM (SELECT");
	add_finishing(r, out);
	buf_addf(out, " FROM %s AS _sluice_g", from.buf);
	add_alive(out, r->mt);
	buf_adds(out, ") AS _sluice_f (");
	for (size_t i = 0; i < ncols; i++)
		buf_addf(out, "%s_sluice_c%zu", i ? ", " : "", i);
	buf_adds(out, ")");
	buf_release(&from);
	return true;
}

int maint_groups_columns(struct refresh *r, struct sl_err *err)
{
	char table[512];

	r->gcols = NULL;
	r->ngcols = 0;
	if (r->dry)
		return 0;
	state_model_table(table, sizeof(table), "groups", r->m->schema, r->m->name);
	return wh_table_columns(r->w, r->a, STATE_SCHEMA, table, &r->gcols, &r->ngcols, err);
}

int maint_refresh_counted(struct refresh *r, const struct changes *log, int64_t *rows,
			   struct sl_err *err)
{
	struct state_col *c;
	size_t nc = state_cols(r->a, r->mt, false, &c);
	int rc = counted_delta(r, err);

	if (!rc)
		rc = maint_batch_facts(r, rows, err);
	if (rc || !*rows)
		return rc ? rc : maint_drop_temp(r, DELTA, NULL, err);
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
	if (!rc)
		rc = insert_finished(r, NEXT, NULL, err);
	if (!rc)
		rc = maint_record(r, log, 1, err);
	return rc ? rc : maint_drop_temp(r, NEXT, DELTA, err);
}

/* Whether a sum or average is of floating-point values. */
static bool floating_sums(const struct refresh *r, const struct wh_column *cols, size_t n)
{
	for (size_t j = 0; j < r->mt->q.naggs; j++) {
		const struct ivm_agg *g = &r->mt->q.aggs[j];
		const char *name = arena_sprintf(r->a, "_sluice_a%zu", j);

		if (g->kind != IVM_SUM && g->kind != IVM_AVG)
			continue;
		for (size_t i = 0; i < n; i++)
			if (strcasecmp(cols[i].name, name) == 0 && wh_sql_type_is_float(r->w, cols[i].type))
				return true;
	}
	return false;
}

/* The groups table anew, empty, its columns typed as query gives them and
 * stored as the warehouse reads them fastest: every refresh reads the
 * hidden sums of the groups it touches. */
static int create_groups(struct refresh *r, const char *query, bool *made, struct sl_err *err)
{
	struct wh_column *cols = NULL;
	size_t n = 0;
	int rc = r->dry ? 0 : wh_query_columns(r->w, r->a, query, &cols, &n, err);

	*made = false;
	if (rc)
		return rc;
	buf_adds(&r->sql, "DROP TABLE IF EXISTS ");
	maint_add_groups(&r->sql, r->m);
	if (floating_sums(r, cols, n))
		return maint_run(r, NULL, err);
	*made = true;
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
	size_t nc = state_cols(r->a, r->mt, false, &c);
	int rc = state_query(r, r->mt->in == MAINT_APPENDS ? maint_changed_rows(r, 1) : NULL, c, nc, &q,
			     err);
	bool made = true;

	if (!rc && fresh)
		rc = create_groups(r, q.buf, &made, err);
	if (!rc && !fresh) {
		buf_adds(&r->sql, "DELETE FROM ");
		maint_add_groups(&r->sql, r->m);
		rc = maint_run(r, NULL, err);
	}
	if (!rc && made) {
		buf_adds(&r->sql, "INSERT INTO ");
		maint_add_groups(&r->sql, r->m);
		buf_addf(&r->sql, " %s", q.buf);
		rc = maint_run(r, NULL, err);
	}
	buf_release(&q);
	if (!rc && fresh && made && r->mt->nkeys) {
		char table[512];

		state_model_table(table, sizeof(table), "groups", r->m->schema, r->m->name);
		rc = wh_ensure_index(r->w, STATE_SCHEMA, table, r->mt->keys, r->mt->nkeys, true, err);
	}
	return rc;
}
