/*
 * This file implements the reads of `_sluice.run_log` (runlog.h): one
 * query each, bounded by a LIMIT. It only ever reads.
 */
#include "state/runlog.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <stdlib.h>

static const char *copy(struct arena *a, const char *s)
{
	return s ? arena_strdup(a, s) : NULL;
}

static int64_t num(const struct wh_result *r, size_t row, size_t col)
{
	const char *v = wh_result_value(r, row, col);

	return v ? strtoll(v, NULL, 10) : 0;
}

/* The rows `where` and `order` select, at most limit (and never more
 * than STATE_RUN_ROWS_MAX). */
static int read_rows(struct wh *w, struct arena *a, const char *where, const char *order,
		     size_t limit, struct state_run_row **rows, size_t *n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_adds(&sql, "SELECT coalesce(run_id, 0), model, env, run_type, status, ");
	wh_sql_epoch_ms(w, &sql, "started_at");
	buf_adds(&sql, ", ");
	wh_sql_epoch_ms(w, &sql, "finished_at");
	buf_addf(&sql, ", rows, message FROM _sluice.run_log WHERE %s ORDER BY %s LIMIT %zu", where,
		 order, limit < STATE_RUN_ROWS_MAX ? limit : STATE_RUN_ROWS_MAX);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	*n = wh_result_nrows(r);
	*rows = arena_alloc(a, (*n + 1) * sizeof(**rows));
	for (size_t i = 0; i < *n; i++)
		(*rows)[i] = (struct state_run_row){
			.run_id = num(r, i, 0),
			.model = copy(a, wh_result_value(r, i, 1)),
			.env = copy(a, wh_result_value(r, i, 2)),
			.run_type = copy(a, wh_result_value(r, i, 3)),
			.status = copy(a, wh_result_value(r, i, 4)),
			.started_ms = num(r, i, 5),
			.finished_ms = num(r, i, 6),
			.rows = num(r, i, 7),
			.message = copy(a, wh_result_value(r, i, 8)),
		};
	wh_result_free(r);
	return 0;
}

int state_run_log_model(struct wh *w, struct arena *a, const char *model, size_t limit,
			struct state_run_row **rows, size_t *n, struct sl_err *err)
{
	struct buf where = BUF_INIT;
	int rc;

	buf_adds(&where, "model = ");
	buf_add_sql_str(&where, model);
	rc = read_rows(w, a, where.buf, "finished_at DESC, started_at DESC", limit, rows, n, err);
	buf_release(&where);
	return rc;
}

int state_run_log_runs(struct wh *w, struct arena *a, size_t nruns, int64_t before,
		       struct state_run_row **rows, size_t *n, struct sl_err *err)
{
	struct buf where = BUF_INIT, below = BUF_INIT;
	int rc;

	buf_adds(&below, "run_id IS NOT NULL");
	if (before > 0)
		buf_addf(&below, " AND run_id < %lld", (long long)before);
	buf_addf(&where,
		 "%s AND run_id IN (SELECT run_id FROM (SELECT DISTINCT run_id FROM _sluice.run_log "
		 "WHERE %s) AS d ORDER BY run_id DESC LIMIT %zu)",
		 below.buf, below.buf, nruns);
	rc = read_rows(w, a, where.buf, "run_id DESC, started_at, model", STATE_RUN_ROWS_MAX, rows,
		       n, err);
	buf_release(&where);
	buf_release(&below);
	return rc;
}

int state_run_log_live(struct wh *w, struct arena *a, size_t limit, struct state_run_row **rows,
		       size_t *n, struct sl_err *err)
{
	return read_rows(w, a, "run_id IS NULL", "finished_at DESC, model", limit, rows, n, err);
}
