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

static int64_t secs_of_ms(const char *v)
{
	return v ? strtoll(v, NULL, 10) / 1000 : 0;
}

static const char *dup_or_null(struct arena *a, const char *v)
{
	return v ? arena_strdup(a, v) : NULL;
}

int state_windows_load(struct wh *w, struct arena *a, const char *env, const char *const *models,
		       size_t nmodels, struct state_window **rows, size_t *n, struct sl_err *err)
{
	static const char *const times[] = { "since", "until", "applied_at", "oldest_at" };
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_adds(&sql, "SELECT model, status, blocked_reason, error, attempts, grain");
	for (size_t i = 0; i < sizeof(times) / sizeof(*times); i++) {
		buf_adds(&sql, ", ");
		wh_sql_epoch_ms(w, &sql, times[i]);
	}
	buf_adds(&sql, " FROM _sluice.windows WHERE env = ");
	buf_add_sql_str(&sql, env);
	for (size_t i = 0; models && i < nmodels; i++) {
		buf_adds(&sql, i ? ", " : " AND model IN (");
		buf_add_sql_str(&sql, models[i]);
	}
	if (models && nmodels)
		buf_adds(&sql, ")");
	else if (models)
		buf_adds(&sql, " AND false");
	buf_adds(&sql, " ORDER BY model, since");
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	*n = wh_result_nrows(r);
	*rows = arena_alloc(a, (*n + 1) * sizeof(**rows));
	for (size_t i = 0; i < *n; i++) {
		struct state_window *s = &(*rows)[i];
		const char *model = wh_result_value(r, i, 0);
		int st = state_win_status_parse(wh_result_value(r, i, 1));
		const char *att = wh_result_value(r, i, 4);

		/* consecutive rows of one model share its name */
		s->model = i && strcmp((*rows)[i - 1].model, model) == 0 ? (*rows)[i - 1].model
									 : arena_strdup(a, model);
		s->status = st < 0 ? WINDOW_PENDING : (enum state_win_status)st;
		s->reason = dup_or_null(a, wh_result_value(r, i, 2));
		s->error = dup_or_null(a, wh_result_value(r, i, 3));
		s->attempts = att ? (int32_t)strtol(att, NULL, 10) : 0;
		s->grain = wh_result_value(r, i, 5);
		/* rows of one grid share their grain's text */
		s->grain = !s->grain ? NULL
			   : i && (*rows)[i - 1].grain && strcmp((*rows)[i - 1].grain, s->grain) == 0
			   ? (*rows)[i - 1].grain
			   : arena_strdup(a, s->grain);
		s->timeless = !wh_result_value(r, i, 6);
		s->since = secs_of_ms(wh_result_value(r, i, 6));
		s->until = secs_of_ms(wh_result_value(r, i, 7));
		s->applied_at = secs_of_ms(wh_result_value(r, i, 8));
		s->oldest_at = secs_of_ms(wh_result_value(r, i, 9));
	}
	wh_result_free(r);
	return 0;
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

/* The row's values, in insert_row's order. */
static void row_values(struct buf *sql, const char *env, const struct state_window *row)
{
	buf_add_sql_str(sql, row->model);
	buf_adds(sql, ", ");
	buf_add_sql_str(sql, env);
	buf_adds(sql, ", ");
	add_time(sql, row->since, !row->timeless);
	buf_adds(sql, ", ");
	add_time(sql, row->until, !row->timeless);
	buf_addf(sql, ", '%s', ", state_win_status_name(row->status));
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

void state_sql_window(struct buf *sql, const char *env, const struct state_window *row)
{
	buf_adds(sql, "DELETE FROM _sluice.windows");
	where_row(sql, env, row);
	buf_adds(sql, ";\n");
	buf_adds(sql, insert_row);
	buf_adds(sql, "VALUES (");
	row_values(sql, env, row);
	buf_adds(sql, ");\n");
}

void state_sql_window_unbuilt(struct buf *sql, const char *env, const struct state_window *row,
			      const struct state_window *old)
{
	buf_adds(sql, "DELETE FROM _sluice.windows");
	where_row(sql, env, row);
	buf_adds(sql, " AND (status <> 'applied'");
	if (old && old->status == WINDOW_APPLIED) {
		buf_adds(sql, " OR applied_at = ");
		add_time(sql, old->applied_at, old->applied_at != 0);
	}
	buf_adds(sql, ");\n");
	buf_adds(sql, insert_row);
	buf_adds(sql, "SELECT ");
	row_values(sql, env, row);
	buf_adds(sql, " WHERE NOT EXISTS (SELECT 1 FROM _sluice.windows");
	where_row(sql, env, row);
	buf_adds(sql, ");\n");
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
