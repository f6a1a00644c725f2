/*
 * This file implements the statements on `_sluice.model_columns`: a
 * model's columns replaced in its build's transaction, and all of an
 * environment's read back in one query. It must never begin, commit or
 * roll back, and never name a type itself: types are the warehouse's.
 */
#include "state/columns.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <string.h>

void state_sql_columns(struct buf *sql, const char *env, const char *model,
		       const struct wh_column *cols, size_t n)
{
	buf_adds(sql, "DELETE FROM _sluice.model_columns WHERE model = ");
	buf_add_sql_str(sql, model);
	buf_adds(sql, " AND env = ");
	buf_add_sql_str(sql, env);
	buf_adds(sql, ";\n");
	if (!n)
		return;
	buf_adds(sql, "INSERT INTO _sluice.model_columns (model, env, position, column_name, "
		      "column_type) VALUES ");
	for (size_t i = 0; i < n; i++) {
		buf_adds(sql, i ? ", (" : "(");
		buf_add_sql_str(sql, model);
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, env);
		buf_addf(sql, ", %zu, ", i + 1);
		buf_add_sql_str(sql, cols[i].name);
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, cols[i].type);
		buf_adds(sql, ")");
	}
	buf_adds(sql, ";\n");
}

int state_sql_relation_columns(struct wh *w, struct arena *a, struct buf *sql, const char *env,
			       const char *model, const char *schema, const char *name,
			       struct sl_err *err)
{
	struct arena *scratch = arena_new(a);
	struct buf query = BUF_INIT;
	struct wh_column *cols;
	size_t n;
	int rc;

	buf_adds(&query, "SELECT * FROM ");
	wh_sql_qualified(&query, schema, name);
	rc = wh_query_columns(w, scratch, query.buf, &cols, &n, err);
	buf_release(&query);
	if (!rc)
		state_sql_columns(sql, env, model, cols, n);
	arena_free(scratch);
	return rc;
}

/* The columns of env's models, or of only (NULL: every model). */
static int read_columns(struct wh *w, struct arena *a, const char *env, const char *only,
			struct state_model_columns **models, size_t *n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	struct wh_column *cols;
	struct state_model_columns *m = NULL;
	size_t nrows;
	int rc;

	buf_adds(&sql, "SELECT model, column_name, column_type FROM _sluice.model_columns WHERE "
		       "env = ");
	buf_add_sql_str(&sql, env);
	if (only) {
		buf_adds(&sql, " AND model = ");
		buf_add_sql_str(&sql, only);
	}
	buf_adds(&sql, " ORDER BY model, position");
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	nrows = wh_result_nrows(r);
	/* a model's rows come as one run: its columns are a slice of cols */
	cols = arena_alloc(a, (nrows + 1) * sizeof(*cols));
	*models = arena_alloc(a, (nrows + 1) * sizeof(**models));
	*n = 0;
	for (size_t i = 0; i < nrows; i++) {
		const char *model = wh_result_value(r, i, 0);

		if (!m || strcmp(m->model, model) != 0) {
			m = &(*models)[(*n)++];
			*m = (struct state_model_columns){ .model = arena_strdup(a, model),
							   .cols = &cols[i] };
		}
		cols[i].name = arena_strdup(a, wh_result_value(r, i, 1));
		cols[i].type = arena_strdup(a, wh_result_value(r, i, 2));
		m->n++;
	}
	wh_result_free(r);
	return 0;
}

int state_columns_read(struct wh *w, struct arena *a, const char *env,
		       struct state_model_columns **models, size_t *n, struct sl_err *err)
{
	return read_columns(w, a, env, NULL, models, n, err);
}

int state_columns_read_model(struct wh *w, struct arena *a, const char *env, const char *model,
			     struct state_model_columns *out, struct sl_err *err)
{
	struct state_model_columns *models;
	size_t n;
	int rc = read_columns(w, a, env, model, &models, &n, err);

	*out = !rc && n ? models[0] : (struct state_model_columns){ .model = model };
	return rc;
}

const struct state_model_columns *state_columns_find(const struct state_model_columns *models,
						     size_t n, const char *model)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(models[i].model, model) == 0)
			return &models[i];
	return NULL;
}
