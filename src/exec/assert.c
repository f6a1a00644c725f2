/*
 * Assertion queries and their evaluation. Reads only: must never change
 * the relation it checks.
 */
#include "exec/assert.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void add_list(struct buf *b, const char *const *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_adds(b, ", ");
		buf_adds(b, items[i]);
	}
}

/* Replaces each {this} in a check's own SQL with the relation. The check's
 * text is not parsed as a model, so here a plain scan is the whole story. */
static void add_with_this(struct buf *b, const char *sql, const char *relation)
{
	const char *p;

	while ((p = strstr(sql, "{this}"))) {
		buf_add(b, sql, (size_t)(p - sql));
		buf_adds(b, relation);
		sql = p + 6;
	}
	buf_adds(b, sql);
}

void assert_failing_sql(const struct model_assert *c, const char *relation, struct buf *out)
{
	switch (c->kind) {
	case ASSERT_NOT_NULL:
		buf_addf(out, "SELECT * FROM %s WHERE %s IS NULL", relation, c->cols[0]);
		break;
	case ASSERT_UNIQUE:
		buf_adds(out, "SELECT ");
		add_list(out, c->cols, c->ncols);
		buf_addf(out, ", count(*) AS duplicates FROM %s GROUP BY ", relation);
		add_list(out, c->cols, c->ncols);
		buf_adds(out, " HAVING count(*) > 1");
		break;
	case ASSERT_ACCEPTED_VALUES:
		buf_addf(out, "SELECT * FROM %s WHERE %s NOT IN (", relation, c->cols[0]);
		add_list(out, c->values, c->nvalues);
		buf_adds(out, ")");
		break;
	case ASSERT_RELATIONSHIPS:
		buf_addf(out,
			 "SELECT * FROM %s AS _sluice_child WHERE _sluice_child.%s IS NOT NULL "
			 "AND NOT EXISTS (SELECT 1 FROM ",
			 relation, c->cols[0]);
		wh_sql_qualified(out, c->ref_schema, c->ref_name);
		buf_addf(out, " AS _sluice_parent WHERE _sluice_parent.%s = _sluice_child.%s)",
			 c->ref_col, c->cols[0]);
		break;
	case ASSERT_EXPRESSION:
		buf_addf(out, "SELECT * FROM %s WHERE NOT (", relation);
		add_with_this(out, c->sql, relation);
		buf_adds(out, ")");
		break;
	case ASSERT_ROWS:
		add_with_this(out, c->sql, relation);
		break;
	}
}

/* The columns of a relation, asked once. */
struct columns {
	bool asked;
	struct wh_column *cols;
	size_t n;
};

static int ask_columns(struct wh *w, struct arena *a, const char *with, const char *relation,
		       struct columns *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	if (c->asked)
		return 0;
	if (with)
		buf_addf(&sql, "SELECT * FROM (WITH %s\nSELECT * FROM %s) AS _sluice_cols", with,
			 relation);
	else
		buf_addf(&sql, "SELECT * FROM %s", relation);
	rc = wh_query_columns(w, a, sql.buf, &c->cols, &c->n, err);
	c->asked = !rc;
	buf_release(&sql);
	return rc;
}

/* A check's column (a quoted name) as the relation spells it: names
 * compare case-insensitively, as DuckDB compares even quoted ones, so that
 * a check reads the same on every warehouse. The name stays as it is when
 * the relation spells it so, or has no such column, or several. */
static const char *spelt_as(struct arena *a, const struct columns *c, const char *quoted)
{
	struct buf b = BUF_INIT;
	const char *found = NULL;
	char *name = arena_strdup(a, quoted), *o = name;

	if (*quoted == '"') {
		for (const char *p = quoted + 1; *p; p++) {
			if (*p == '"' && p[1] != '"')
				break;
			*o++ = *p;
			p += *p == '"';
		}
		*o = '\0';
	}
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->cols[i].name, name) == 0)
			return quoted;
		if (strcasecmp(c->cols[i].name, name) == 0) {
			if (found)
				return quoted;
			found = c->cols[i].name;
		}
	}
	if (!found)
		return quoted;
	wh_sql_ident(&b, found);
	name = arena_strdup(a, b.buf);
	buf_release(&b);
	return name;
}

/* The check with its columns spelt as the relations it reads spell them,
 * in *out (allocated in a). */
static int spelt_check(struct wh *w, struct arena *a, const char *with, const char *relation,
		       const struct model_assert *check, struct columns *own,
		       const struct model_assert **out, struct sl_err *err)
{
	struct model_assert *c = arena_alloc(a, sizeof(*c));
	const char **cols = arena_alloc(a, (check->ncols + 1) * sizeof(char *));
	struct columns ref = { 0 };
	struct buf target = BUF_INIT;
	int rc = 0;

	*out = check;
	if (check->kind == ASSERT_EXPRESSION || check->kind == ASSERT_ROWS)
		return 0;
	rc = ask_columns(w, a, with, relation, own, err);
	if (!rc && check->kind == ASSERT_RELATIONSHIPS) {
		wh_sql_qualified(&target, check->ref_schema, check->ref_name);
		rc = ask_columns(w, a, NULL, target.buf, &ref, err);
		buf_release(&target);
	}
	if (rc)
		return rc;
	*c = *check;
	for (size_t i = 0; i < check->ncols; i++)
		cols[i] = spelt_as(a, own, check->cols[i]);
	c->cols = cols;
	if (check->kind == ASSERT_RELATIONSHIPS)
		c->ref_col = spelt_as(a, &ref, check->ref_col);
	*out = c;
	return 0;
}

int assert_run_all(struct wh *w, struct arena *parent, const struct model *m, const char *with,
		   const char *relation, struct assert_result **out, size_t *n,
		   struct sl_err *err)
{
	struct assert_result *res = xcalloc(m->nasserts + 1, sizeof(*res));
	struct buf q = BUF_INIT, sql = BUF_INIT;
	struct arena *a = arena_new(parent);
	struct columns own = { 0 };
	int rc = 0;

	for (size_t i = 0; i < m->nasserts && !rc; i++) {
		const struct model_assert *check;

		res[i].check = &m->asserts[i];
		rc = spelt_check(w, a, with, relation, &m->asserts[i], &own, &check, err);
		if (rc) {
			sl_err_context(err, "in @assert %s (%s:%d)", m->asserts[i].text, m->path,
				       m->asserts[i].line);
			break;
		}
		buf_reset(&q);
		assert_failing_sql(check, relation, &q);
		buf_reset(&sql);
		if (with)
			buf_addf(&sql, "WITH %s\n", with);
		buf_addf(&sql, "SELECT count(*) FROM (%s) AS _sluice_check", q.buf);
		rc = wh_query_int(w, sql.buf, &res[i].failures, err);
		if (!rc && res[i].failures) {
			buf_reset(&sql);
			if (with)
				buf_addf(&sql, "WITH %s\n", with);
			buf_addf(&sql, "SELECT * FROM (%s) AS _sluice_check LIMIT %d", q.buf,
				 ASSERT_SAMPLE);
			rc = wh_query(w, sql.buf, &res[i].sample, err);
		}
		if (rc)
			sl_err_context(err, "in @assert %s (%s:%d)", m->asserts[i].text, m->path,
				       m->asserts[i].line);
	}
	buf_release(&q);
	buf_release(&sql);
	arena_free(a);
	if (rc) {
		assert_results_free(res, m->nasserts);
		return rc;
	}
	*out = res;
	*n = m->nasserts;
	return 0;
}

void assert_results_free(struct assert_result *r, size_t n)
{
	if (!r)
		return;
	for (size_t i = 0; i < n; i++)
		wh_result_free(r[i].sample);
	free(r);
}

size_t assert_errors(const struct assert_result *r, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += r[i].failures && !r[i].check->warn;
	return k;
}
