/*
 * Assertion queries and their evaluation. Reads only: must never change
 * the relation it checks.
 */
#include "exec/assert.h"

#include "core/buf.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

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

int assert_run_all(struct wh *w, const struct model *m, const char *with, const char *relation,
		   struct assert_result **out, size_t *n, struct sl_err *err)
{
	struct assert_result *res = calloc(m->nasserts + 1, sizeof(*res));
	struct buf q = BUF_INIT, sql = BUF_INIT;
	int rc = 0;

	if (!res)
		abort();
	for (size_t i = 0; i < m->nasserts && !rc; i++) {
		res[i].check = &m->asserts[i];
		buf_reset(&q);
		assert_failing_sql(&m->asserts[i], relation, &q);
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
