/*
 * This file implements the statements on `_sluice.profiles` and
 * `_sluice.profile_anomalies`: a profile's rows written for the caller's
 * transaction, the profiles of a model read back with their anomalies,
 * and when the live runner profiled a model last. It must never begin,
 * commit or roll back, nor read a model's own table.
 */
#include "state/profiles.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

const char *state_profile_kind_name(enum state_profile_kind k)
{
	return k == PROFILE_LIVE ? "live" : "batch";
}

int state_profile_id_next(struct wh *w, int64_t *id, struct sl_err *err)
{
	return wh_query_int(w, "SELECT nextval('_sluice.profile_ids')", id, err);
}

static void add_str_or_null(struct buf *b, const char *s)
{
	if (s)
		buf_add_sql_str(b, s);
	else
		buf_adds(b, "NULL");
}

static void add_int_or_null(struct buf *b, int64_t v, bool known)
{
	if (known)
		buf_addf(b, "%lld", (long long)v);
	else
		buf_adds(b, "NULL");
}

/* A double as SQL reads it back to the same value. */
static void add_double(struct buf *b, double v)
{
	buf_addf(b, "CAST('%.17g' AS DOUBLE PRECISION)", v);
}

static void sql_anomalies(struct buf *sql, const struct state_profile *p)
{
	if (!p->nanomalies)
		return;
	buf_adds(sql, "INSERT INTO _sluice.profile_anomalies (profile_id, model, env, column_name, "
		      "metric, observed, band_median, band_low, band_high, history, level) VALUES ");
	for (size_t i = 0; i < p->nanomalies; i++) {
		const struct state_anomaly *an = &p->anomalies[i];

		buf_addf(sql, "%s(%lld, ", i ? ", " : "", (long long)p->id);
		buf_add_sql_str(sql, p->model);
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, p->env);
		buf_adds(sql, ", ");
		add_str_or_null(sql, an->column);
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, an->metric);
		buf_adds(sql, ", ");
		add_double(sql, an->observed);
		buf_adds(sql, ", ");
		add_double(sql, an->median);
		buf_adds(sql, ", ");
		add_double(sql, an->low);
		buf_adds(sql, ", ");
		add_double(sql, an->high);
		buf_addf(sql, ", %d, '%s')", an->history, an->error ? "error" : "warn");
	}
	buf_adds(sql, ";\n");
}

void state_sql_profile(struct buf *sql, const struct state_profile *p)
{
	char at[32];

	if (!p->ncols)
		return;
	units_format_ts(p->taken_ms, at, sizeof(at));
	buf_adds(sql, "INSERT INTO _sluice.profiles (profile_id, model, env, taken_at, kind, run_id, "
		      "refresh_count, kept, row_count, column_name, column_position, column_type, "
		      "nulls, min_value, max_value, distinct_count) VALUES ");
	for (size_t i = 0; i < p->ncols; i++) {
		const struct state_profile_column *c = &p->cols[i];

		buf_addf(sql, "%s(%lld, ", i ? ", " : "", (long long)p->id);
		buf_add_sql_str(sql, p->model);
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, p->env);
		buf_addf(sql, ", TIMESTAMP '%s', '%s', ", at, state_profile_kind_name(p->kind));
		add_int_or_null(sql, p->run_id, p->run_id > 0);
		buf_adds(sql, ", ");
		add_int_or_null(sql, p->refresh_count, p->refresh_count >= 0);
		buf_addf(sql, ", %s, %lld, ", p->kept ? "true" : "false", (long long)p->rows);
		buf_add_sql_str(sql, c->name);
		buf_addf(sql, ", %zu, ", i);
		add_str_or_null(sql, c->type);
		buf_addf(sql, ", %lld, ", (long long)c->nulls);
		add_str_or_null(sql, c->min);
		buf_adds(sql, ", ");
		add_str_or_null(sql, c->max);
		buf_adds(sql, ", ");
		add_int_or_null(sql, c->distinct, c->distinct >= 0);
		buf_adds(sql, ")");
	}
	buf_adds(sql, ";\n");
	sql_anomalies(sql, p);
}

static int64_t num(const struct wh_result *r, size_t row, size_t col, int64_t null)
{
	const char *v = wh_result_value(r, row, col);

	return v ? strtoll(v, NULL, 10) : null;
}

/* The WHERE clause of the model's profiles ask selects. */
static void add_where(struct buf *sql, const struct state_profile_ask *ask)
{
	char at[32];

	buf_adds(sql, " WHERE model = ");
	buf_add_sql_str(sql, ask->model);
	buf_adds(sql, " AND env = ");
	buf_add_sql_str(sql, ask->env);
	if (ask->judged)
		buf_adds(sql, " AND kind = 'batch' AND kept");
	if (ask->since_ms) {
		units_format_ts(ask->since_ms, at, sizeof(at));
		buf_addf(sql, " AND taken_at >= TIMESTAMP '%s'", at);
	}
	if (ask->until_ms) {
		units_format_ts(ask->until_ms, at, sizeof(at));
		buf_addf(sql, " AND taken_at < TIMESTAMP '%s'", at);
	}
}

/* The rows of the profiles ask selects, newest first, a profile's columns
 * in their table's order. */
static int read_rows(struct wh *w, const struct state_profile_ask *ask, struct wh_result **r,
		     struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "SELECT profile_id, ");
	wh_sql_epoch_ms(w, &sql, "taken_at");
	buf_adds(&sql, ", kind, run_id, refresh_count, CASE WHEN kept THEN 1 ELSE 0 END, "
		       "row_count, column_name, column_type, nulls, min_value, max_value, "
		       "distinct_count FROM _sluice.profiles");
	add_where(&sql, ask);
	if (ask->limit) {
		buf_adds(&sql, " AND profile_id IN (SELECT profile_id FROM _sluice.profiles");
		add_where(&sql, ask);
		buf_addf(&sql, " GROUP BY profile_id ORDER BY max(taken_at) DESC, profile_id DESC "
			       "LIMIT %zu)", ask->limit);
	}
	buf_adds(&sql, " ORDER BY taken_at DESC, profile_id DESC, coalesce(column_position, 0), "
		       "column_name");
	rc = wh_query(w, sql.buf, r, err);
	buf_release(&sql);
	return rc;
}

/* The profiles of the rows, each profile's rows a run of them. */
static void take_rows(struct arena *a, const struct wh_result *r,
		      const struct state_profile_ask *ask, struct state_profile **out, size_t *n)
{
	size_t rows = wh_result_nrows(r), np = 0;
	struct state_profile *ps = arena_alloc(a, (rows + 1) * sizeof(*ps));

	for (size_t i = 0, end; i < rows; i = end) {
		int64_t id = num(r, i, 0, 0);
		struct state_profile *p = &ps[np++];

		for (end = i + 1; end < rows && num(r, end, 0, 0) == id;)
			end++;
		*p = (struct state_profile){
			.id = id,
			.model = arena_strdup(a, ask->model),
			.env = arena_strdup(a, ask->env),
			.taken_ms = num(r, i, 1, 0),
			.kind = strcmp(wh_result_value(r, i, 2), "live") == 0 ? PROFILE_LIVE
									       : PROFILE_BATCH,
			.run_id = num(r, i, 3, 0),
			.refresh_count = num(r, i, 4, -1),
			.kept = num(r, i, 5, 0) == 1,
			.rows = num(r, i, 6, 0),
			.cols = arena_alloc(a, (end - i + 1) * sizeof(*p->cols)),
		};
		for (size_t k = i; k < end; k++)
			p->cols[p->ncols++] = (struct state_profile_column){
				.name = arena_strdup(a, wh_result_value(r, k, 7)),
				.type = arena_strdup(a, wh_result_value(r, k, 8)),
				.nulls = num(r, k, 9, 0),
				.min = arena_strdup(a, wh_result_value(r, k, 10)),
				.max = arena_strdup(a, wh_result_value(r, k, 11)),
				.distinct = num(r, k, 12, -1),
			};
	}
	*out = ps;
	*n = np;
}

static struct state_profile *profile_find(struct state_profile *ps, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ps[i].id == id)
			return &ps[i];
	return NULL;
}

/* The anomalies of the profiles read, into each one's list. */
static int read_anomalies(struct wh *w, struct arena *a, const struct state_profile_ask *ask,
			  struct state_profile *ps, size_t n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t rows;
	int rc;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		lo = ps[i].id < lo ? ps[i].id : lo;
		hi = ps[i].id > hi ? ps[i].id : hi;
	}
	buf_adds(&sql, "SELECT profile_id, column_name, metric, observed, band_median, band_low, "
		       "band_high, history, level FROM _sluice.profile_anomalies WHERE model = ");
	buf_add_sql_str(&sql, ask->model);
	buf_adds(&sql, " AND env = ");
	buf_add_sql_str(&sql, ask->env);
	buf_addf(&sql, " AND profile_id BETWEEN %lld AND %lld ORDER BY profile_id, column_name "
		       "NULLS FIRST, metric",
		 (long long)lo, (long long)hi);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	rows = wh_result_nrows(r);
	for (size_t i = 0, end; i < rows; i = end) {
		int64_t id = num(r, i, 0, 0);
		struct state_profile *p = profile_find(ps, n, id);

		for (end = i + 1; end < rows && num(r, end, 0, 0) == id;)
			end++;
		if (!p)
			continue;
		p->anomalies = arena_alloc(a, (end - i + 1) * sizeof(*p->anomalies));
		for (size_t k = i; k < end; k++)
			p->anomalies[p->nanomalies++] = (struct state_anomaly){
				.column = arena_strdup(a, wh_result_value(r, k, 1)),
				.metric = arena_strdup(a, wh_result_value(r, k, 2)),
				.observed = strtod(wh_result_value(r, k, 3), NULL),
				.median = strtod(wh_result_value(r, k, 4), NULL),
				.low = strtod(wh_result_value(r, k, 5), NULL),
				.high = strtod(wh_result_value(r, k, 6), NULL),
				.history = (int)num(r, k, 7, 0),
				.error = strcmp(wh_result_value(r, k, 8), "error") == 0,
			};
	}
	wh_result_free(r);
	return 0;
}

int state_profiles_read(struct wh *w, struct arena *a, const struct state_profile_ask *ask,
			struct state_profile **out, size_t *n, struct sl_err *err)
{
	struct wh_result *r;
	int rc = read_rows(w, ask, &r, err);

	*out = NULL;
	*n = 0;
	if (rc)
		return rc;
	take_rows(a, r, ask, out, n);
	wh_result_free(r);
	return ask->judged ? 0 : read_anomalies(w, a, ask, *out, *n, err);
}

int state_profile_last_ms(struct wh *w, const char *model, int64_t *ms, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "SELECT coalesce(");
	wh_sql_epoch_ms(w, &sql, "max(taken_at)");
	buf_adds(&sql, ", 0) FROM _sluice.profiles WHERE kind = 'live' AND env = '' AND model = ");
	buf_add_sql_str(&sql, model);
	rc = wh_query_int(w, sql.buf, ms, err);
	buf_release(&sql);
	return rc;
}
