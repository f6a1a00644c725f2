/*
 * This file implements the refreshes of maintained models. The rows of the
 * input that changed (a landing table's new rows; a model's change log,
 * old values -1 and new +1) stand in for the input's reference in the
 * model's own query, and the query's select list is edited where the class
 * needs it: counted keeps a hidden row per group (its row count and the
 * sums its aggregates follow from) and adds the batch's weighted sums to
 * it; regroup computes again the groups the batch touched, found by the
 * keys of both its old and its new rows; mapped appends what new rows map
 * to, or recomputes the input keys the batch touched; full runs the whole
 * query. Keys match NULL to NULL when the batch holds a NULL key, by plain
 * equality otherwise, which every warehouse can look up by index or hash.
 * Only standard SQL and the wh interface: dialects stay in src/warehouse.
 * It must never begin, commit or roll back a transaction.
 */
#include "exec/maintain.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "exec/changes.h"
#include "exec/maintain_sql.h"
#include "project/maintain.h"
#include "state/changes.h"
#include "state/groups.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <string.h>

/* A regroup refresh that touches more than this share of the model's rows
 * (and more than REGROUP_FLOOR of them) computes the whole query instead:
 * both read the whole input, and rewriting that many rows one key at a
 * time costs more than writing the table anew. */
#define REGROUP_SHARE 0.05

#define REGROUP_FLOOR 1000

/* A counted refresh reads the batch's changes twice (new rows, old rows);
 * a whole one the input twice (the query, the groups). Measured on DuckDB
 * over 10M rows (bench/NOTES.md), a batch whose changes are 30% of the
 * input costs 1.0-1.6 times a rebuild: past this share (and over
 * COUNTED_FLOOR changes) the whole query is computed instead. */
#define COUNTED_SHARE 0.15
#define COUNTED_FLOOR 100000

/* The distinct keys the query gives rows (in place of the input), HAVING
 * let through: a group that fails it must still be computed again. */
static int keys_query(struct refresh *r, const char *rows, struct buf *out, struct sl_err *err)
{
	const struct ivm_result *q = &r->mt->q;
	struct render_edit e[3];
	struct buf inner = BUF_INIT;
	size_t n = 0;
	int rc;

	e[n++] = maint_input_edit(r, rows);
	if (maint_grouped(r->mt))
		e[n++] = maint_list_edit(r, maint_keys_list(r, NULL));
	if (q->having_end >= 0)
		e[n++] = (struct render_edit){ (size_t)q->having_end, 0, " TRUE OR " };
	rc = render_model_edited(r->m, r->ctx, e, n, &inner, err);
	buf_adds(out, "SELECT DISTINCT ");
	maint_add_keys(out, r->mt, NULL);
	buf_addf(out, " FROM (\n%s\n) AS _sluice_s", inner.buf);
	buf_release(&inner);
	return rc;
}

/* The model's query over only the input rows of the batch's keys, when
 * FROM names the input and every key's expression over an input row is
 * known; else over the whole input (the batch's keys picked after). */
static const char *rows_of_batch_keys(struct refresh *r)
{
	const struct maint *mt = r->mt;
	const char *alias = *mt->ref->alias ? mt->ref->alias : mt->ref->name;
	struct buf q = BUF_INIT;
	const char *s;

	for (size_t k = 0; k < mt->nkeys; k++)
		if (!mt->key_exprs[k])
			return NULL;
	buf_adds(&q, "SELECT * FROM ");
	maint_add_input(&q, r);
	buf_adds(&q, " AS ");
	wh_sql_ident(&q, alias);
	/* the batch's keys under names no input column has, so that a column
	 * the expressions name unqualified is the input row's */
	buf_adds(&q, " WHERE EXISTS (SELECT 1 FROM (SELECT ");
	for (size_t k = 0; k < mt->nkeys; k++) {
		buf_adds(&q, k ? ", " : "");
		wh_sql_ident(&q, mt->keys[k]);
		buf_addf(&q, " AS _sluice_k%zu", k);
	}
	buf_adds(&q, " FROM " DELTA ") AS _sluice_d WHERE ");
	for (size_t k = 0; k < mt->nkeys; k++)
		buf_addf(&q, r->nullsafe ? "%s_sluice_d._sluice_k%zu IS NOT DISTINCT FROM (%s)"
					 : "%s_sluice_d._sluice_k%zu = (%s)",
			 k ? " AND " : "", k, mt->key_exprs[k]);
	buf_adds(&q, ")");
	s = maint_in_place_of_input(r, q.buf);
	buf_release(&q);
	return s;
}

/* The keys of the batch: those its new rows and its old rows give. */
static int regroup_keys(struct refresh *r, struct sl_err *err)
{
	struct buf q = BUF_INIT;
	int rc = keys_query(r, maint_changed_rows(r, 0), &q, err);

	if (!rc)
		rc = maint_temp_table(r, DELTA, q.buf, err);
	buf_release(&q);
	return rc;
}

/* About how many rows schema.name holds: a crossover is a share of it,
 * which needs no exact count. */
static int rows_about(struct refresh *r, const char *schema, const char *name, int64_t *n,
		      struct sl_err *err)
{
	if (r->dry) {
		*n = 1;
		return 0;
	}
	return wh_row_estimate(r->w, schema, name, n, err);
}

/* Past the crossover the batch is too big to regroup. */
static int past_crossover(struct refresh *r, int64_t touched, bool *past, struct sl_err *err)
{
	int64_t total = 0;
	int rc;

	*past = false;
	if (touched <= REGROUP_FLOOR)
		return 0;
	rc = rows_about(r, r->m->schema, r->m->name, &total, err);
	*past = !rc && (double)touched > REGROUP_SHARE * (double)total;
	return rc;
}

/* Whether the batch's changes are too many to count. */
static int counted_past_crossover(struct refresh *r, int64_t changes, bool *past,
				  struct sl_err *err)
{
	const struct model_ref *in = r->mt->ref;
	int64_t total = 0;
	int rc;

	*past = false;
	if (changes <= COUNTED_FLOOR)
		return 0;
	rc = in->target ? rows_about(r, in->target->schema, in->target->name, &total, err)
			: rows_about(r, in->schema, in->name, &total, err);
	*past = !rc && (double)changes > COUNTED_SHARE * (double)total;
	return rc;
}

static int refresh_regroup(struct refresh *r, const struct changes *log, int64_t *rows,
			   bool *past, struct sl_err *err)
{
	struct buf query = BUF_INIT;
	const char *only;
	int rc = regroup_keys(r, err);

	if (!rc)
		rc = maint_batch_facts(r, rows, err);
	if (!rc && *rows)
		rc = past_crossover(r, *rows, past, err);
	if (rc || !*rows || *past)
		return rc ? rc : maint_drop_temp(r, DELTA, NULL, err);
	rc = maint_record(r, log, -1, err);
	if (!rc)
		rc = maint_delete_batch_keys(r, false, err);
	only = rows_of_batch_keys(r);
	if (!rc && only) {
		struct render_edit e = maint_input_edit(r, only);

		rc = render_model_edited(r->m, r->ctx, &e, 1, &query, err);
	} else if (!rc) {
		rc = render_model(r->m, r->ctx, false, &query, err);
	}
	if (!rc) {
		buf_adds(&r->sql, "INSERT INTO ");
		maint_add_model(&r->sql, r->m);
		buf_addf(&r->sql, " SELECT _sluice_q.* FROM (\n%s\n) AS _sluice_q WHERE EXISTS "
				  "(SELECT 1 FROM " DELTA " AS _sluice_d WHERE ",
			 query.buf);
		maint_add_match(&r->sql, r, "_sluice_q", "_sluice_d");
		buf_adds(&r->sql, ")");
		rc = maint_run(r, NULL, err);
	}
	if (!rc)
		rc = maint_record(r, log, 1, err);
	buf_release(&query);
	return rc ? rc : maint_drop_temp(r, DELTA, NULL, err);
}

/* New input rows map to rows appended to the model. */
static int refresh_appended(struct refresh *r, const struct changes *log, int64_t *rows,
			    struct sl_err *err)
{
	struct buf query = BUF_INIT;
	struct render_edit e = maint_input_edit(r, maint_changed_rows(r, 1));
	int rc = render_model_edited(r->m, r->ctx, &e, 1, &query, err);

	if (!rc)
		rc = maint_temp_table(r, BATCH, query.buf, err);
	if (!rc) {
		buf_adds(&r->sql, "INSERT INTO ");
		maint_add_model(&r->sql, r->m);
		buf_adds(&r->sql, " SELECT * FROM " BATCH);
		rc = maint_run(r, rows, err);
	}
	if (!rc && log)
		rc = changes_record_written(log, BATCH, err);
	buf_release(&query);
	return rc ? rc : maint_drop_temp(r, BATCH, NULL, err);
}

static int build_query(struct refresh *r, struct buf *out, struct sl_err *err)
{
	struct render_edit e;

	if (r->mt->in != MAINT_APPENDS || !r->mt->ref)
		return render_model(r->m, r->ctx, false, out, err);
	e = maint_input_edit(r, maint_changed_rows(r, 1));
	return render_model_edited(r->m, r->ctx, &e, 1, out, err);
}

/* The whole query again, every row of the model replaced. */
static int refresh_whole(struct refresh *r, const struct changes *log, int64_t *rows,
			 struct sl_err *err)
{
	struct buf query = BUF_INIT;
	int64_t gone = 0, made = 0;
	int rc = log ? changes_record_all(log, -1, err) : 0;

	r->since = 0;
	/* a counted model's groups anew, and its rows from them: the input
	 * aggregated once */
	if (!rc && r->ngcols) {
		rc = maint_build_groups(r, false, err);
		if (!rc)
			rc = maint_finish_whole(r, rows, err);
		if (!rc && log)
			rc = changes_record_all(log, 1, err);
		return rc;
	}
	if (!rc) {
		buf_adds(&r->sql, "DELETE FROM ");
		maint_add_model(&r->sql, r->m);
		rc = maint_run(r, &gone, err);
	}
	if (!rc)
		rc = build_query(r, &query, err);
	if (!rc) {
		buf_adds(&r->sql, "INSERT INTO ");
		maint_add_model(&r->sql, r->m);
		buf_addf(&r->sql, "\n%s\n", query.buf);
		rc = maint_run(r, &made, err);
	}
	if (!rc && log)
		rc = changes_record_all(log, 1, err);
	*rows = gone + made;
	buf_release(&query);
	return rc;
}

/* The log's columns but its weight: the input's, and the sequence. */
static int log_columns(struct refresh *r, struct sl_err *err)
{
	int rc = changes_log_columns(r->w, r->a, r->mt->input, &r->cols, err);

	/* shown before the input's first build, which makes its log */
	if (rc && r->dry) {
		sl_err_clear(err);
		r->cols = "*";
		return 0;
	}
	return rc;
}

/* The input's watermark: what the model has applied of it. */
static int64_t input_watermark(const struct refresh *r)
{
	const struct render_ctx *ctx = r->ctx;
	const struct maint *mt = r->mt;
	const char *name = mt->input ? mt->input->fqn
				     : arena_sprintf(r->a, "%s.%s", mt->ref->schema, mt->ref->name);

	for (size_t i = 0; i < ctx->nwm; i++)
		if (strcmp(ctx->wm_names[i], name) == 0)
			return ctx->wm_values[i];
	return ctx->watermark;
}

/* Whether an append model read passes its rows' sequence through, which
 * is how its new rows are found; a landing table always does. */
static int input_has_seq(struct refresh *r, bool *has, struct sl_err *err)
{
	static const char *const col[] = { "_sluice_seq" };
	const struct model *t = r->mt->input;

	*has = true;
	if (r->mt->in != MAINT_APPENDS || !t)
		return 0;
	return wh_has_columns(r->w, t->schema, t->name, col, 1, has, err);
}

/* The whole query; a counted model whose groups table was just made from
 * the whole input finishes its rows from there instead, under the
 * query's own column names and types: one pass over the input, not two. */
int maintain_render_full(struct wh *w, const struct model *m, const struct render_ctx *ctx,
			 struct buf *out, struct sl_err *err)
{
	struct arena *a = arena_new(NULL);
	struct buf query = BUF_INIT;
	struct wh_column *cols = NULL;
	struct refresh r;
	bool has = false;
	size_t ncols = 0;
	int rc;

	maint_refresh_init(&r, w, a, m, ctx);
	rc = input_has_seq(&r, &has, err);
	if (!rc && has)
		rc = build_query(&r, &query, err);
	else if (!rc)
		rc = render_model(m, ctx, false, &query, err);
	if (!rc && maint_counts(r.mt))
		rc = maint_groups_columns(&r, err);
	if (!rc && r.ngcols)
		rc = wh_query_columns(w, a, query.buf, &cols, &ncols, err);
	if (!rc && !maint_from_groups(&r, cols, ncols, out))
		buf_add(out, query.buf, query.len);
	buf_release(&query);
	buf_release(&r.sql);
	arena_free(a);
	return rc;
}

int maintain_build_state(struct wh *w, struct arena *a, const struct model *m,
			 const struct render_ctx *ctx, struct sl_err *err)
{
	struct refresh r;
	int rc;

	if (!maint_counts(m->maint))
		return state_groups_drop(w, m->schema, m->name, err);
	maint_refresh_init(&r, w, a, m, ctx);
	rc = maint_build_groups(&r, true, err);
	buf_release(&r.sql);
	return rc;
}

/* The batch's size in changes (counted only: the others need none), and
 * whether the input was built from scratch since the model applied it:
 * then its log started anew, and says so in a row of weight 0. */
static int batch_size(struct refresh *r, int64_t *changes, bool *rebuilt, struct sl_err *err)
{
	int64_t v[2] = { 0, 0 };
	int rc;

	*changes = 0;
	*rebuilt = false;
	if (r->dry || (r->mt->in != MAINT_REWRITES && r->mt->cls != IVM_COUNTED))
		return 0;
	buf_adds(&r->sql, "SELECT count(*)");
	if (r->mt->in == MAINT_REWRITES) {
		buf_adds(&r->sql, ", count(CASE WHEN _sluice_weight = 0 THEN 1 END) FROM ");
		state_sql_changes(&r->sql, r->mt->input->schema, r->mt->input->name);
	} else {
		buf_adds(&r->sql, " FROM ");
		maint_add_input(&r->sql, r);
		buf_adds(&r->sql, " AS _sluice_in");
	}
	/* the same text every batch: prepared once */
	buf_adds(&r->sql, " WHERE _sluice_seq > $1");
	rc = wh_query_ints_args(r->w, r->sql.buf, &WH_INT(r->since), 1, v, 2, err);
	buf_reset(&r->sql);
	*changes = v[0];
	*rebuilt = v[1] > 0;
	return rc;
}

static int refresh(struct refresh *r, const struct changes *log, int64_t *rows, const char **how,
		   struct sl_err *err)
{
	bool seq = true, rebuilt = false, past = false;
	int64_t changes = 0;
	int rc;

	*rows = 0;
	r->since = r->mt->ref ? input_watermark(r) : 0;
	rc = input_has_seq(r, &seq, err);
	if (!rc && r->mt->in == MAINT_REWRITES && r->mt->cls != IVM_FULL)
		rc = log_columns(r, err);
	if (!rc && r->mt->cls != IVM_FULL && seq)
		rc = batch_size(r, &changes, &rebuilt, err);
	if (!rc && r->mt->cls == IVM_COUNTED)
		rc = maint_groups_columns(r, err);
	*how = "recomputed";
	if (rc)
		return rc;
	if (r->mt->cls == IVM_FULL || !seq || rebuilt)
		return refresh_whole(r, log, rows, err);
	/* a counted model without its groups table (its sums are floats)
	 * computes the groups a batch touched again, exactly */
	if (r->mt->cls == IVM_COUNTED && (r->ngcols || r->dry)) {
		rc = counted_past_crossover(r, changes, &past, err);
		if (rc || past)
			return rc ? rc : refresh_whole(r, log, rows, err);
		*how = "counted";
		return maint_refresh_counted(r, log, rows, err);
	}
	if (r->mt->cls == IVM_MAPPED && r->mt->in == MAINT_APPENDS) {
		*how = "appended";
		return refresh_appended(r, log, rows, err);
	}
	/* a regroup of the one group a query without GROUP BY makes (a
	 * regrouped model's, or a counted one's without its groups table) is
	 * the whole query */
	if (!r->mt->nkeys)
		return refresh_whole(r, log, rows, err);
	*how = "regrouped";
	rc = refresh_regroup(r, log, rows, &past, err);
	if (!rc && past) {
		*how = "recomputed";
		rc = refresh_whole(r, log, rows, err);
	}
	return rc;
}

int maintain_refresh(struct wh *w, struct arena *a, const struct model *m,
		     const struct render_ctx *ctx, const struct changes *log, int64_t *rows,
		     const char **how, struct sl_err *err)
{
	struct refresh r;
	int rc;

	maint_refresh_init(&r, w, a, m, ctx);
	rc = refresh(&r, log, rows, how, err);
	buf_release(&r.sql);
	return rc;
}

int maintain_compile(struct wh *w, struct arena *a, const struct model *m,
		     const struct render_ctx *ctx, struct buf *out, struct sl_err *err)
{
	struct refresh r;
	const char *how;
	int64_t rows;
	int rc;

	maint_refresh_init(&r, w, a, m, ctx);
	r.dry = out;
	buf_addf(out, "-- %s is maintained: %s\n-- a refresh runs, in one transaction:\n\n", m->fqn,
		 maintain_describe(a, m));
	rc = refresh(&r, NULL, &rows, &how, err);
	buf_release(&r.sql);
	return rc;
}
