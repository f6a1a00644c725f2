/*
 * This file implements the pieces of SQL every refresh of a maintained
 * model writes (maintain_sql.h): the changed rows of its input in place
 * of its reference, its keys and their matching, the batch's facts. It
 * must never decide what a refresh does.
 */
#include "exec/maintain_sql.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "exec/changes.h"
#include "state/changes.h"
#include "state/groups.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <string.h>
#include <strings.h>

int maint_run(struct refresh *r, int64_t *rows, struct sl_err *err)
{
	int rc = 0;

	if (r->dry)
		buf_addf(r->dry, "%s;\n\n", r->sql.buf);
	else
		rc = wh_exec_count(r->w, r->sql.buf, rows, err);
	if (r->dry && rows)
		*rows = 1;
	buf_reset(&r->sql);
	return rc;
}

int maint_query_ints(struct refresh *r, int64_t *out, size_t n, struct sl_err *err)
{
	int rc = 0;

	if (r->dry) {
		for (size_t i = 0; i < n; i++)
			out[i] = 1;
	} else {
		rc = wh_query_ints(r->w, r->sql.buf, out, n, err);
	}
	buf_reset(&r->sql);
	return rc;
}

void maint_add_model(struct buf *b, const struct model *m)
{
	wh_sql_qualified(b, m->schema, m->name);
}

void maint_add_groups(struct buf *b, const struct model *m)
{
	state_sql_groups(b, m->schema, m->name);
}

/* The output keys, each qualified by alias when there is one. */
void maint_add_keys(struct buf *b, const struct maint *mt, const char *alias)
{
	for (size_t k = 0; k < mt->nkeys; k++) {
		if (k)
			buf_adds(b, ", ");
		if (alias)
			buf_addf(b, "%s.", alias);
		wh_sql_ident(b, mt->keys[k]);
	}
}

/* Rows l and r have the same keys; TRUE for a model of one group. */
void maint_add_match(struct buf *b, const struct refresh *r, const char *l, const char *rr)
{
	for (size_t k = 0; k < r->mt->nkeys; k++) {
		buf_addf(b, "%s%s.", k ? " AND " : "", l);
		wh_sql_ident(b, r->mt->keys[k]);
		buf_addf(b, r->nullsafe ? " IS NOT DISTINCT FROM %s." : " = %s.", rr);
		wh_sql_ident(b, r->mt->keys[k]);
	}
	if (!r->mt->nkeys)
		buf_adds(b, "TRUE");
}

void maint_add_group_by(struct buf *b, const struct maint *mt)
{
	if (!mt->nkeys)
		return;
	buf_adds(b, " GROUP BY ");
	maint_add_keys(b, mt, NULL);
}

bool maint_counts(const struct maint *mt)
{
	return mt->cls == IVM_COUNTED;
}

/* GROUP BY and aggregates: the select list is edited to show keys alone. */
bool maint_grouped(const struct maint *mt)
{
	return (mt->cls == IVM_COUNTED || mt->cls == IVM_REGROUP) && mt->q.distinct_at < 0;
}

/* The input's relation, as the model reads it: the query read in its
 * place (a replay's rows from a start time), which takes an alias. */
void maint_add_input(struct buf *b, const struct refresh *r)
{
	const struct model_ref *ref = r->mt->ref;
	const char *instead = render_read_of(r->ctx, ref->schema, ref->name);

	if (instead)
		buf_addf(b, "(%s)", instead);
	else if (ref->target)
		maint_add_model(b, ref->target);
	else
		wh_sql_qualified(b, ref->schema, ref->name);
}

/* The text that takes the place of the input's reference: the query q
 * under the name the reference gave the input. */
const char *maint_in_place_of_input(const struct refresh *r, const char *q)
{
	struct buf b = BUF_INIT;
	const char *s;

	buf_addf(&b, "(%s)", q);
	if (!*r->mt->ref->alias) {
		buf_adds(&b, " AS ");
		wh_sql_ident(&b, r->mt->ref->name);
	}
	s = arena_strdup(r->a, b.buf);
	buf_release(&b);
	return s;
}

const char *maint_changed_rows(const struct refresh *r, int weight)
{
	struct buf q = BUF_INIT;
	const char *s;

	if (r->mt->in == MAINT_APPENDS) {
		buf_adds(&q, "SELECT * FROM ");
		maint_add_input(&q, r);
		buf_addf(&q, " AS _sluice_in WHERE _sluice_seq > %lld", (long long)r->since);
	} else {
		/* "*", shown before the log is there, holds the weight */
		buf_addf(&q, "SELECT %s%s FROM ", r->cols,
			 weight || strcmp(r->cols, "*") == 0 ? "" : ", _sluice_weight");
		state_sql_changes(&q, r->mt->input->schema, r->mt->input->name);
		buf_addf(&q, " WHERE _sluice_seq > %lld AND _sluice_weight ", (long long)r->since);
		buf_addf(&q, weight ? "= %d" : "<> %d", weight);
	}
	s = maint_in_place_of_input(r, q.buf);
	buf_release(&q);
	return s;
}

/* The select list with every item that is no key replaced by NULL (under
 * its alias, so that what names it still binds), then extra. */
const char *maint_keys_list(const struct refresh *r, const char *extra)
{
	const struct ivm_result *q = &r->mt->q;
	const char *s = r->m->body;
	struct buf b = BUF_INIT;
	const char *out;

	for (size_t i = 0; i < q->nitems; i++) {
		const struct ivm_item *it = &q->items[i];

		if (i)
			buf_adds(&b, ",");
		if (it->key)
			buf_add(&b, s + it->start, it->end - it->start);
		else if (it->expr_end && it->expr_end < it->end)
			buf_addf(&b, " NULL %.*s", (int)(it->end - it->expr_end), s + it->expr_end);
		else
			buf_addf(&b, " NULL AS _sluice_pad%zu ", i);
	}
	if (extra)
		buf_addf(&b, ", %s ", extra);
	out = arena_strdup(r->a, b.buf);
	buf_release(&b);
	return out;
}

/* The edit that replaces the whole select list. */
struct render_edit maint_list_edit(const struct refresh *r, const char *with)
{
	const struct ivm_result *q = &r->mt->q;

	return (struct render_edit){ q->items[0].start, q->items[q->nitems - 1].end - q->items[0].start,
				     with };
}

struct render_edit maint_input_edit(const struct refresh *r, const char *rows)
{
	return (struct render_edit){ r->mt->ref->span.offset, r->mt->ref->span.len, rows };
}

/* Whether the refresh reads old rows too: the input rewrites rows. */
bool maint_has_old(const struct refresh *r)
{
	return r->mt->in == MAINT_REWRITES;
}

/* Counts the batch's rows (*n) and whether any has a NULL key. */
int maint_batch_facts(struct refresh *r, int64_t *n, struct sl_err *err)
{
	int64_t v[2] = { 0, 0 };
	int rc;

	buf_adds(&r->sql, "SELECT count(*), count(CASE WHEN FALSE");
	for (size_t k = 0; k < r->mt->nkeys; k++) {
		buf_adds(&r->sql, " OR ");
		wh_sql_ident(&r->sql, r->mt->keys[k]);
		buf_adds(&r->sql, " IS NULL");
	}
	buf_adds(&r->sql, " THEN 1 END) FROM " DELTA);
	rc = maint_query_ints(r, v, 2, err);
	*n = v[0];
	r->nullsafe = v[1] > 0;
	return rc;
}

/* Deletes the rows of table (the model's, or its groups) whose keys are
 * the batch's. */
int maint_delete_batch_keys(struct refresh *r, bool groups, struct sl_err *err)
{
	struct buf table = BUF_INIT, match = BUF_INIT;

	if (groups)
		maint_add_groups(&table, r->m);
	else
		maint_add_model(&table, r->m);
	if (r->mt->nkeys) {
		maint_add_match(&match, r, "_sluice_t", "_sluice_d");
		wh_sql_delete_matching(r->w, &r->sql, table.buf, "_sluice_t", DELTA, "_sluice_d",
				       match.buf);
	} else {
		buf_addf(&r->sql, "DELETE FROM %s", table.buf);
	}
	buf_release(&table);
	buf_release(&match);
	return maint_run(r, NULL, err);
}

int maint_record(struct refresh *r, const struct changes *log, int weight, struct sl_err *err)
{
	struct changes c;

	if (!log)
		return 0;
	c = *log;
	c.nullsafe = r->nullsafe;
	return changes_record(&c, DELTA, weight, err);
}

int maint_temp_table(struct refresh *r, const char *name, const char *query, struct sl_err *err)
{
	wh_sql_replace_as(r->w, &r->sql, WH_TEMP_TABLE, NULL, name, query);
	return maint_run(r, NULL, err);
}

int maint_drop_temp(struct refresh *r, const char *name, const char *also, struct sl_err *err)
{
	buf_addf(&r->sql, "DROP TABLE IF EXISTS %s", name);
	if (also)
		buf_addf(&r->sql, ";\nDROP TABLE IF EXISTS %s", also);
	return maint_run(r, NULL, err);
}

void maint_refresh_init(struct refresh *r, struct wh *w, struct arena *a, const struct model *m,
			 const struct render_ctx *ctx)
{
	*r = (struct refresh){ .w = w, .a = a, .m = m, .mt = m->maint, .ctx = ctx };
	buf_init(&r->sql, 0);
}
