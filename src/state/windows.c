/*
 * This file implements the rows of `_sluice.windows`: loading them for a
 * run or a report, and the statements that record a window's outcome in
 * the caller's transaction. Times travel as UTC seconds and are written as
 * TIMESTAMP literals; it must never begin, commit or roll back.
 */
#include "state/windows.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/suggest.h"
#include "warehouse/wh.h"
#include "windows/grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = { "pending", "applied", "blocked", "failed", NULL };

const char *state_win_status_name(enum state_win_status s)
{
	return status_names[s];
}

int state_win_status_parse(const char *s)
{
	return suggest_index(s, status_names);
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool state_window_same(const struct state_window *a, const struct state_window *b)
{
	return a->status == b->status && a->timeless == b->timeless &&
	       a->applied_at == b->applied_at && a->oldest_at == b->oldest_at &&
	       a->attempts == b->attempts && same_text(a->reason, b->reason) &&
	       same_text(a->error, b->error) && same_text(a->grain, b->grain);
}

bool state_window_joins(const struct state_window *a, const struct state_window *b)
{
	return a->grain && !a->timeless && a->until == b->since && state_window_same(a, b);
}

static int64_t secs_of_ms(const char *v)
{
	return v ? strtoll(v, NULL, 10) / 1000 : 0;
}

static const char *dup_or_null(struct arena *a, const char *v)
{
	return v ? arena_strdup(a, v) : NULL;
}

/* The columns both reads select, in the order read_row takes them. */
static void add_columns(struct wh *w, struct buf *sql, bool grouped)
{
	static const char *const times[] = { "since", "until", "applied_at", "oldest_at" };
	static const char *const runs[] = { "min(since)", "max(until)", "applied_at",
					    "oldest_at" };

	buf_adds(sql, "SELECT model, status, blocked_reason, error, attempts, grain");
	for (size_t i = 0; i < sizeof(times) / sizeof(*times); i++) {
		buf_adds(sql, ", ");
		wh_sql_epoch_ms(w, sql, grouped ? runs[i] : times[i]);
	}
	buf_adds(sql, grouped ? ", count(*)" : "");
}

static void add_where(struct buf *sql, const char *env, const char *const *models,
		      size_t nmodels)
{
	buf_adds(sql, " FROM _sluice.windows WHERE env = ");
	buf_add_sql_str(sql, env);
	for (size_t i = 0; models && i < nmodels; i++) {
		buf_adds(sql, i ? ", " : " AND model IN (");
		buf_add_sql_str(sql, models[i]);
	}
	if (models && nmodels)
		buf_adds(sql, ")");
	else if (models)
		buf_adds(sql, " AND false");
}

/* Row i of r as it stands: its strings are r's. */
static void read_row(struct wh_result *r, size_t i, struct state_window *s)
{
	int st = state_win_status_parse(wh_result_value(r, i, 1));
	const char *att = wh_result_value(r, i, 4);

	memset(s, 0, sizeof(*s));
	s->model = wh_result_value(r, i, 0);
	s->status = st < 0 ? WINDOW_PENDING : (enum state_win_status)st;
	s->reason = wh_result_value(r, i, 2);
	s->error = wh_result_value(r, i, 3);
	s->attempts = att ? (int32_t)strtol(att, NULL, 10) : 0;
	s->grain = wh_result_value(r, i, 5);
	s->timeless = !wh_result_value(r, i, 6);
	s->since = secs_of_ms(wh_result_value(r, i, 6));
	s->until = secs_of_ms(wh_result_value(r, i, 7));
	s->applied_at = secs_of_ms(wh_result_value(r, i, 8));
	s->oldest_at = secs_of_ms(wh_result_value(r, i, 9));
}

/* Rows as they are read, in the caller's arena. */
struct loaded {
	struct arena *a;
	struct state_window *rows;
	size_t n, cap;
};

/* Appends s, its strings copied, or extends the last row when s continues
 * it; rows of one model or grid share the text of its name. */
static void take(struct loaded *l, const struct state_window *s)
{
	struct state_window *last = l->n ? &l->rows[l->n - 1] : NULL, row = *s;
	bool same_model = last && strcmp(last->model, s->model) == 0;

	if (same_model && state_window_joins(last, s)) {
		last->until = s->until;
		return;
	}
	if (l->n == l->cap) {
		struct state_window *grown;

		l->cap = l->cap ? 2 * l->cap : 16;
		grown = arena_alloc(l->a, (l->cap + 1) * sizeof(*grown));
		if (l->n)
			memcpy(grown, l->rows, l->n * sizeof(*grown));
		l->rows = grown;
		last = l->n ? &l->rows[l->n - 1] : NULL;
	}
	row.model = same_model ? last->model : arena_strdup(l->a, s->model);
	row.reason = dup_or_null(l->a, s->reason);
	row.error = dup_or_null(l->a, s->error);
	row.grain = !s->grain ? NULL
		    : last && last->grain && strcmp(last->grain, s->grain) == 0
		    ? last->grain
		    : arena_strdup(l->a, s->grain);
	l->rows[l->n++] = row;
}

/* Whether a group of count rows in one state, from since to until, is one
 * run: a single row, or grid windows with none missing between. */
static bool one_run(const struct state_window *s, int64_t count)
{
	enum win_grain g;

	if (count == 1)
		return true;
	return s->grain && !s->timeless && win_grain_parse(s->grain, &g) == 0 &&
	       win_floor(g, s->since) == s->since && win_count(g, s->since, s->until) == count;
}

static int by_model_since(const void *x, const void *y)
{
	const struct state_window *a = x, *b = y;
	int c = strcmp(a->model, b->model);

	if (c)
		return c;
	/* an existence row has no since: after the windows, as NULLs sort */
	if (a->timeless != b->timeless)
		return a->timeless - b->timeless;
	return (a->since > b->since) - (a->since < b->since);
}

static void add_time(struct buf *sql, int64_t t, bool set)
{
	char text[WIN_TIME_MAX];

	if (!set) {
		buf_adds(sql, "NULL");
		return;
	}
	win_time_format(t, text);
	buf_addf(sql, "TIMESTAMP '%s'", text);
}

static void add_str_or_null(struct buf *sql, const char *s)
{
	if (s)
		buf_add_sql_str(sql, s);
	else
		buf_adds(sql, "NULL");
}

/* Appends to cond the rows of the group in row i of the grouped read: its
 * model and state, as the read returned them (the times as epoch
 * milliseconds, compared as they were read). */
static void add_group(struct wh *w, struct buf *cond, struct wh_result *r, size_t i)
{
	static const char *const text_cols[] = { "model", "status", "blocked_reason", "error" };
	const char *att = wh_result_value(r, i, 4);

	buf_adds(cond, cond->len ? " OR (" : "(");
	for (size_t c = 0; c < sizeof(text_cols) / sizeof(*text_cols); c++) {
		buf_addf(cond, "%s%s IS NOT DISTINCT FROM ", c ? " AND " : "", text_cols[c]);
		add_str_or_null(cond, wh_result_value(r, i, c));
	}
	buf_addf(cond, " AND attempts IS NOT DISTINCT FROM %s AND grain IS NOT DISTINCT FROM ",
		 att ? att : "NULL");
	add_str_or_null(cond, wh_result_value(r, i, 5));
	for (size_t c = 8; c <= 9; c++) {
		const char *ms = wh_result_value(r, i, c);

		buf_adds(cond, " AND ");
		wh_sql_epoch_ms(w, cond, c == 8 ? "applied_at" : "oldest_at");
		buf_addf(cond, " IS NOT DISTINCT FROM %s", ms ? ms : "NULL");
	}
	buf_adds(cond, ")");
}

/*
 * Two reads. The first groups the rows by model and state, which the
 * warehouse does in one scan, its memory growing with the states and not
 * the windows: a group whose windows follow one another with none missing
 * is one run, and most are (a backfill applies its windows at one time). The
 * groups that are not (states interleaved, rows left apart, as when a window
 * inside a run was built again) are read again row by row, those groups'
 * rows alone, consecutive rows in one state joined here: a window built
 * again in a century of applied hours costs the rows of its own state.
 */
int state_windows_load(struct wh *w, struct arena *a, const char *env, const char *const *models,
		       size_t nmodels, struct state_window **rows, size_t *n, struct sl_err *err)
{
	struct buf sql = BUF_INIT, apart = BUF_INIT;
	struct wh_result *r = NULL;
	struct loaded runs = { .a = a }, each = { .a = a };
	size_t nr;
	int rc;

	add_columns(w, &sql, true);
	add_where(&sql, env, models, nmodels);
	buf_adds(&sql, " GROUP BY model, status, blocked_reason, error, attempts, grain, "
		       "applied_at, oldest_at ORDER BY model, min(since)");
	rc = wh_query(w, sql.buf, &r, err);
	nr = rc ? 0 : wh_result_nrows(r);
	for (size_t i = 0; i < nr; i++) {
		struct state_window s;
		const char *count = wh_result_value(r, i, 10);

		read_row(r, i, &s);
		if (one_run(&s, count ? strtoll(count, NULL, 10) : 0))
			take(&runs, &s);
		else
			add_group(w, &apart, r, i);
	}
	wh_result_free(r);
	r = NULL;
	if (!rc && apart.len) {
		buf_reset(&sql);
		add_columns(w, &sql, false);
		add_where(&sql, env, models, nmodels);
		buf_addf(&sql, " AND (%s) ORDER BY model, since", apart.buf);
		rc = wh_query(w, sql.buf, &r, err);
		nr = rc ? 0 : wh_result_nrows(r);
		for (size_t i = 0; i < nr; i++) {
			struct state_window s;

			read_row(r, i, &s);
			take(&each, &s);
		}
		wh_result_free(r);
	}
	buf_release(&sql);
	buf_release(&apart);
	if (rc)
		return rc;
	/* a group read again is in a state of its own: none of its rows
	 * continues a run of the first read */
	*rows = arena_alloc(a, (runs.n + each.n + 1) * sizeof(**rows));
	if (runs.n)
		memcpy(*rows, runs.rows, runs.n * sizeof(**rows));
	if (each.n)
		memcpy(*rows + runs.n, each.rows, each.n * sizeof(**rows));
	*n = runs.n + each.n;
	qsort(*rows, *n, sizeof(**rows), by_model_since);
	return 0;
}

/* The WHERE of the rows of model in env. */
static void where_model(struct buf *sql, const char *env, const char *model)
{
	buf_adds(sql, " WHERE model = ");
	buf_add_sql_str(sql, model);
	buf_adds(sql, " AND env = ");
	buf_add_sql_str(sql, env);
}

/* The WHERE of the row of model in env at row's since. */
static void where_row(struct buf *sql, const char *env, const struct state_window *row)
{
	where_model(sql, env, row->model);
	if (!row->timeless) {
		buf_adds(sql, " AND since = ");
		add_time(sql, row->since, true);
	}
}

static const char insert_row[] = "INSERT INTO _sluice.windows (model, env, since, until, status, "
				 "applied_at, oldest_at, blocked_reason, attempts, error, grain) ";

/* One row's values but its bounds, which are SQL text: the columns of
 * insert_row, in order. */
static void add_values(struct buf *sql, const char *env, const struct state_window *row,
		       const char *since, const char *until)
{
	buf_add_sql_str(sql, row->model);
	buf_adds(sql, ", ");
	buf_add_sql_str(sql, env);
	buf_addf(sql, ", %s, %s, '%s', ", since, until, state_win_status_name(row->status));
	add_time(sql, row->applied_at, row->applied_at != 0);
	buf_adds(sql, ", ");
	add_time(sql, row->oldest_at, row->oldest_at != 0);
	buf_adds(sql, ", ");
	add_str_or_null(sql, row->reason);
	buf_addf(sql, ", %lld, ", (long long)row->attempts);
	add_str_or_null(sql, row->error);
	buf_adds(sql, ", ");
	add_str_or_null(sql, row->grain);
}

/* One window's values, in insert_row's order. */
static void row_values(struct buf *sql, const char *env, const struct state_window *row)
{
	char since[WIN_TIME_MAX + 12] = "NULL", until[WIN_TIME_MAX + 12] = "NULL", text[WIN_TIME_MAX];

	if (!row->timeless) {
		win_time_format(row->since, text);
		snprintf(since, sizeof(since), "TIMESTAMP '%s'", text);
		win_time_format(row->until, text);
		snprintf(until, sizeof(until), "TIMESTAMP '%s'", text);
	}
	add_values(sql, env, row, since, until);
}

/* A grain's length as an interval both warehouses read. */
static const char *const grain_intervals[] = {
	[WIN_HOUR] = "INTERVAL '1 hour'",
	[WIN_DAY] = "INTERVAL '1 day'",
	[WIN_WEEK] = "INTERVAL '7 days'",
	[WIN_MONTH] = "INTERVAL '1 month'",
};

/* The rows of the count windows of grain g from since: one statement of
 * constant size however many, the window numbers made by crossing tables
 * of the ten digits, so that writing a run of a million blocked windows
 * costs the warehouse a scan, not a million values to parse. */
static void add_run(struct buf *sql, const char *env, const struct state_window *row,
		    enum win_grain g, int64_t count, bool only_missing)
{
	char text[WIN_TIME_MAX];
	struct buf since = BUF_INIT, until = BUF_INIT;
	int digits = 1;

	for (int64_t top = 10; top < count; top *= 10)
		digits++;
	win_time_format(row->since, text);
	buf_addf(&since, "TIMESTAMP '%s' + n * %s", text, grain_intervals[g]);
	buf_addf(&until, "TIMESTAMP '%s' + (n + 1) * %s", text, grain_intervals[g]);
	buf_adds(sql, "SELECT ");
	add_values(sql, env, row, since.buf, until.buf);
	buf_adds(sql, " FROM (SELECT d0.i");
	for (int d = 1, scale = 10; d < digits; d++, scale *= 10)
		buf_addf(sql, " + %d * d%d.i", scale, d);
	buf_adds(sql, " AS n FROM ");
	for (int d = 0; d < digits; d++)
		buf_addf(sql, "%s(VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS d%d(i)",
			 d ? " CROSS JOIN " : "", d);
	buf_addf(sql, ") AS numbers WHERE n < %lld", (long long)count);
	if (only_missing) {
		buf_adds(sql, " AND NOT EXISTS (SELECT 1 FROM _sluice.windows");
		where_model(sql, env, row->model);
		buf_addf(sql, " AND since = %s)", since.buf);
	}
	buf_release(&since);
	buf_release(&until);
}

/* The WHERE of row's place: a grid run's windows, a window, or the model's
 * existence row; *count how many windows that is. */
static void where_span(struct buf *sql, const char *env, const struct state_window *row,
		       enum win_grain *g, int64_t *count)
{
	/* a grid row stands for the windows its grain cuts it into */
	bool grid = !row->timeless && row->grain && win_grain_parse(row->grain, g) == 0;

	*count = grid ? win_count(*g, row->since, row->until) : 1;
	if (*count > 1) {
		where_model(sql, env, row->model);
		buf_adds(sql, " AND since >= ");
		add_time(sql, row->since, true);
		buf_adds(sql, " AND since < ");
		add_time(sql, row->until, true);
	} else {
		where_row(sql, env, row);
	}
}

/* The INSERT of row's windows; only_missing: of those that have no row. */
static void add_rows(struct buf *sql, const char *env, const struct state_window *row,
		     enum win_grain g, int64_t count, bool only_missing)
{
	buf_adds(sql, insert_row);
	if (count > 1) {
		add_run(sql, env, row, g, count, only_missing);
	} else if (only_missing) {
		buf_adds(sql, "SELECT ");
		row_values(sql, env, row);
		buf_adds(sql, " WHERE NOT EXISTS (SELECT 1 FROM _sluice.windows");
		where_row(sql, env, row);
		buf_adds(sql, ")");
	} else {
		buf_adds(sql, "VALUES (");
		row_values(sql, env, row);
		buf_adds(sql, ")");
	}
	buf_adds(sql, ";\n");
}

void state_sql_window(struct buf *sql, const char *env, const struct state_window *row)
{
	enum win_grain g = WIN_HOUR;
	int64_t count;

	buf_adds(sql, "DELETE FROM _sluice.windows");
	where_span(sql, env, row, &g, &count);
	buf_adds(sql, ";\n");
	add_rows(sql, env, row, g, count, false);
}

void state_sql_window_unbuilt(struct buf *sql, const char *env, const struct state_window *row,
			      const struct state_window *old)
{
	enum win_grain g = WIN_HOUR;
	int64_t count;

	buf_adds(sql, "DELETE FROM _sluice.windows");
	where_span(sql, env, row, &g, &count);
	buf_adds(sql, " AND (status <> 'applied'");
	if (old && old->status == WINDOW_APPLIED) {
		buf_adds(sql, " OR applied_at = ");
		add_time(sql, old->applied_at, old->applied_at != 0);
	}
	buf_adds(sql, ");\n");
	add_rows(sql, env, row, g, count, true);
}

void state_sql_windows_drop(struct buf *sql, const char *env, const char *model, int64_t since,
			    int64_t until, enum state_drop reach)
{
	buf_adds(sql, "DELETE FROM _sluice.windows");
	where_model(sql, env, model);
	if (since < until && reach == STATE_DROP_INSIDE) {
		buf_adds(sql, " AND since >= ");
		add_time(sql, since, true);
		buf_adds(sql, " AND until <= ");
		add_time(sql, until, true);
	} else if (since < until) {
		buf_adds(sql, " AND ((since < ");
		add_time(sql, until, true);
		buf_adds(sql, " AND until > ");
		add_time(sql, since, true);
		buf_adds(sql, ")");
		if (reach == STATE_DROP_TOUCHING) {
			buf_adds(sql, " OR (status = 'applied' AND since <= ");
			add_time(sql, until, true);
			buf_adds(sql, " AND until >= ");
			add_time(sql, since, true);
			buf_adds(sql, ")");
		}
		buf_adds(sql, ")");
	}
	buf_adds(sql, ";\n");
}
