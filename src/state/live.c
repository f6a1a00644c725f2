/*
 * This file implements the statements on the tables of live models: the
 * sequence of advances, sources, advances, what each model consumed,
 * covered and published. It decides nothing about live models (src/live/
 * does); it must never begin, commit or roll back a transaction.
 */
#include "state/live.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "warehouse/wh.h"

#include <string.h>

int state_live_present(struct wh *w, struct arena *parent, bool *present, struct sl_err *err)
{
	struct arena *a = arena_new(parent);
	const char *kind = NULL;
	int rc = wh_relation_kind(w, a, "_sluice", "live_state", &kind, err);

	*present = !rc && kind;
	arena_free(a);
	return rc;
}

int state_live_seq_next(struct wh *w, int64_t *seq, struct sl_err *err)
{
	return wh_query_int_args(w, "SELECT nextval('_sluice.seq')", NULL, 0, seq, err);
}

/* The landing writer records an advance on every flush, so the statements
 * are kept prepared, one set per source (its name is in their text). */
int state_live_advance_record(struct wh *w, const char *source, int64_t seq, int64_t rows,
			      int64_t now_ms, struct sl_err *err)
{
	const struct wh_arg args[] = { WH_INT(seq), WH_INT(rows), WH_TS_MS(now_ms) };
	struct buf sql = BUF_INIT, update = BUF_INIT;
	int64_t updated = 0;
	int rc;

	buf_adds(&sql, "INSERT INTO _sluice.live_advances VALUES (");
	buf_add_sql_str(&sql, source);
	buf_adds(&sql, ", $1::BIGINT, $2::BIGINT, $3::TIMESTAMP)");
	rc = wh_exec_args(w, sql.buf, args, 3, NULL, err);
	buf_adds(&update, "UPDATE _sluice.live_sources SET watermark = $1::BIGINT, rows = rows + "
			  "$2::BIGINT, advanced_at = $3::TIMESTAMP WHERE source = ");
	buf_add_sql_str(&update, source);
	if (!rc)
		rc = wh_exec_args(w, update.buf, args, 3, &updated, err);
	/* planned anew: the kept plan may date from before the row existed */
	if (!rc && !updated) {
		wh_forget_statement(w, update.buf);
		rc = wh_exec_args(w, update.buf, args, 3, &updated, err);
	}
	/* the first advance of a source makes its row */
	if (!rc && !updated) {
		wh_forget_statement(w, update.buf);
		buf_reset(&sql);
		buf_adds(&sql, "INSERT INTO _sluice.live_sources (source, watermark, rows, "
			       "advanced_at) VALUES (");
		buf_add_sql_str(&sql, source);
		buf_adds(&sql, ", $1::BIGINT, $2::BIGINT, $3::TIMESTAMP)");
		rc = wh_exec_args(w, sql.buf, args, 3, NULL, err);
		wh_forget_statement(w, sql.buf);
	}
	buf_release(&sql);
	buf_release(&update);
	return rc;
}

int state_live_cursor_set(struct wh *w, const char *source, const char *cursor,
			  struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int64_t updated = 0;
	int rc;

	buf_adds(&sql, "UPDATE _sluice.live_sources SET cursor = ");
	buf_add_sql_str(&sql, cursor);
	buf_adds(&sql, " WHERE source = ");
	buf_add_sql_str(&sql, source);
	rc = wh_exec_count(w, sql.buf, &updated, err);
	buf_release(&sql);
	if (!rc && !updated)
		rc = sl_err_set(err, SL_E_NOTFOUND,
				"no advance recorded for '%s': its cursor has no row to go in",
				source);
	return rc;
}

int state_live_cursor_get(struct wh *w, struct arena *a, const char *source, const char **out,
			  struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	*out = NULL;
	buf_adds(&sql, "SELECT cursor FROM _sluice.live_sources WHERE source = ");
	buf_add_sql_str(&sql, source);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	if (wh_result_nrows(r) && wh_result_value(r, 0, 0))
		*out = arena_strdup(a, wh_result_value(r, 0, 0));
	wh_result_free(r);
	return 0;
}

static void where_model(struct buf *sql, const char *model)
{
	buf_adds(sql, " WHERE model = ");
	buf_add_sql_str(sql, model);
}

/* " WHERE model = model" when model, for a query of one model's rows. */
static void of_model(struct buf *sql, const char *model)
{
	if (model)
		where_model(sql, model);
}

void state_live_sql_load(struct wh *w, struct buf *sql, const char *model)
{
	if (!model) {
		buf_adds(sql, "SELECT 's', source, NULL, watermark, rows, coalesce(boundary, 0), "
			      "coalesce(late_rows, 0), coalesce(");
		wh_sql_epoch_ms(w, sql, "advanced_at");
		buf_adds(sql, ", 0), 0, 0, 0, 0 FROM _sluice.live_sources UNION ALL SELECT 'a', "
			      "source, NULL, seq, ");
		wh_sql_epoch_ms(w, sql, "arrived_at");
		buf_adds(sql, ", 0, 0, 0, 0, 0, 0, 0 FROM _sluice.live_advances UNION ALL ");
	}
	buf_adds(sql, "SELECT 'c', model, input, watermark, 0, 0, 0, 0, 0, 0, 0, 0 FROM "
		      "_sluice.live_consumed");
	of_model(sql, model);
	buf_adds(sql, " UNION ALL SELECT 'v', model, source, seq, 0, 0, 0, 0, 0, 0, 0, 0 FROM "
		      "_sluice.live_covered");
	of_model(sql, model);
	buf_adds(sql, " UNION ALL SELECT 'z', model, CAST(events_per_s AS VARCHAR), published, "
		      "covered, refresh_count, events, failures, coalesce(");
	wh_sql_epoch_ms(w, sql, "last_refresh_at");
	buf_adds(sql, ", 0), coalesce(");
	wh_sql_epoch_ms(w, sql, "next_retry_at");
	buf_adds(sql, ", 0), CAST(paused AS INTEGER), CAST(status = 'failing' AS INTEGER) FROM "
		      "_sluice.live_state");
	of_model(sql, model);
	buf_adds(sql, " ORDER BY 1, 4");
}

static void advances_select(struct wh *w, struct buf *sql)
{
	buf_adds(sql, "SELECT source, seq, ");
	wh_sql_epoch_ms(w, sql, "arrived_at");
}

void state_live_sql_advances_after(struct wh *w, struct buf *sql, int64_t seq)
{
	advances_select(w, sql);
	buf_addf(sql, " FROM _sluice.live_advances WHERE seq > %lld ORDER BY seq", (long long)seq);
}

void state_live_sql_advances_per_source(struct wh *w, struct buf *sql,
					const char *const *sources, const int64_t *watermarks,
					size_t n)
{
	advances_select(w, sql);
	buf_adds(sql, " FROM _sluice.live_advances WHERE source NOT IN (''");
	for (size_t i = 0; i < n; i++) {
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, sources[i]);
	}
	buf_adds(sql, ")");
	for (size_t i = 0; i < n; i++) {
		buf_adds(sql, " OR (source = ");
		buf_add_sql_str(sql, sources[i]);
		buf_addf(sql, " AND seq > %lld)", (long long)watermarks[i]);
	}
	buf_adds(sql, " ORDER BY seq");
}

void state_live_sql_prune(struct buf *sql, const char *source, int64_t seq)
{
	buf_adds(sql, "DELETE FROM _sluice.live_advances WHERE source = ");
	buf_add_sql_str(sql, source);
	buf_addf(sql, " AND seq <= %lld;\n", (long long)seq);
}

/* UPDATE when the row exists, INSERT when it does not: an upsert costs
 * DuckDB several times more. */
static void pair_row(struct buf *sql, const char *table, const char *key, const char *model,
		     const char *name, const char *col, int64_t v, bool exists)
{
	if (exists) {
		buf_addf(sql, "UPDATE _sluice.%s SET %s = %lld", table, col, (long long)v);
		where_model(sql, model);
		buf_addf(sql, " AND %s = ", key);
		buf_add_sql_str(sql, name);
	} else {
		buf_addf(sql, "INSERT INTO _sluice.%s VALUES (", table);
		buf_add_sql_str(sql, model);
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, name);
		buf_addf(sql, ", %lld)", (long long)v);
	}
	buf_adds(sql, ";\n");
}

void state_live_sql_consumed(struct buf *sql, const char *model, const char *input,
			     int64_t watermark, bool exists)
{
	pair_row(sql, "live_consumed", "input", model, input, "watermark", watermark, exists);
}

void state_live_sql_covered(struct buf *sql, const char *model, const char *source, int64_t seq,
			    bool exists)
{
	pair_row(sql, "live_covered", "source", model, source, "seq", seq, exists);
}

void state_live_sql_state(struct buf *sql, const char *model, const struct state_live_row *row,
			  bool exists)
{
	char at[32] = "NULL";

	if (row->last_refresh_ms) {
		at[0] = '\'';
		units_format_ts(row->last_refresh_ms, at + 1, sizeof(at) - 2);
		strcat(at, "'");
	}
	if (exists) {
		buf_addf(sql,
			 "UPDATE _sluice.live_state SET published = %lld, covered = %lld, "
			 "refresh_count = %lld, events = %lld, events_per_s = %.3f, "
			 "last_refresh_at = %s",
			 (long long)row->published, (long long)row->covered,
			 (long long)row->refresh_count, (long long)row->events, row->events_per_s,
			 at);
		if (!row->failing)
			buf_adds(sql, ", status = 'live', failures = 0, last_error = NULL, "
				      "next_retry_at = NULL");
		where_model(sql, model);
	} else {
		buf_adds(sql, "INSERT INTO _sluice.live_state VALUES (");
		buf_add_sql_str(sql, model);
		buf_addf(sql, ", %lld, %lld, %lld, %lld, %.3f, 'live', false, 0, NULL, %s, NULL)",
			 (long long)row->published, (long long)row->covered,
			 (long long)row->refresh_count, (long long)row->events, row->events_per_s,
			 at);
	}
	buf_adds(sql, ";\n");
}

void state_live_sql_failing(struct buf *sql, const char *model, int failures,
			    const char *message, int64_t retry_ms)
{
	char retry[32];

	units_format_ts(retry_ms, retry, sizeof(retry));
	buf_adds(sql, "INSERT INTO _sluice.live_state VALUES (");
	buf_add_sql_str(sql, model);
	buf_addf(sql, ", 0, 0, 0, 0, 0, 'failing', false, %d, ", failures);
	buf_add_sql_str(sql, message);
	buf_addf(sql,
		 ", NULL, '%s') ON CONFLICT (model) DO UPDATE SET status = 'failing', failures = "
		 "excluded.failures, last_error = excluded.last_error, next_retry_at = "
		 "excluded.next_retry_at",
		 retry);
}

void state_live_sql_pause(struct buf *sql, const char *model, bool pause, int64_t now_ms)
{
	char now[32];

	units_format_ts(now_ms, now, sizeof(now));
	buf_adds(sql, "INSERT INTO _sluice.live_state VALUES (");
	buf_add_sql_str(sql, model);
	buf_addf(sql,
		 ", 0, 0, 0, 0, 0, 'live', %s, 0, NULL, NULL, NULL) ON CONFLICT (model) DO UPDATE "
		 "SET paused = excluded.paused%s;\n",
		 pause ? "true" : "false", pause ? "" : ", next_retry_at = NULL");
	buf_adds(sql, "INSERT INTO _sluice.run_log VALUES (NULL, ");
	buf_add_sql_str(sql, model);
	buf_addf(sql, ", '', 'live', '%s', '%s', '%s', 0, 0, NULL)", pause ? "paused" : "resumed",
		 now, now);
}

/* "SELECT ... WHERE col IN (names)", after a UNION ALL when sql holds a
 * query already; nothing when there are no names. */
static void marks_of(struct buf *sql, const char *select, const char *const *names, size_t n)
{
	if (!n)
		return;
	if (sql->len)
		buf_adds(sql, " UNION ALL ");
	buf_adds(sql, select);
	for (size_t i = 0; i < n; i++) {
		buf_adds(sql, i ? ", " : "");
		buf_add_sql_str(sql, names[i]);
	}
	buf_adds(sql, ")");
}

void state_live_sql_marks(struct buf *sql, const char *const *sources, size_t nsources,
			  const char *const *models, size_t nmodels, const char *consumer)
{
	marks_of(sql, "SELECT 's', source, watermark, 0 FROM _sluice.live_sources WHERE source IN (",
		 sources, nsources);
	marks_of(sql, "SELECT 'p', model, published, 0 FROM _sluice.live_state WHERE model IN (",
		 models, nmodels);
	if (consumer) {
		buf_adds(sql, sql->len ? " UNION ALL " : "");
		buf_adds(sql, "SELECT 'c', input, watermark, 0 FROM _sluice.live_consumed WHERE "
			      "model = ");
		buf_add_sql_str(sql, consumer);
	}
}

void state_live_sql_adopted(struct buf *sql, const char *source,
			    const struct state_adopted_row *row)
{
	char at[32] = "NULL";

	if (row->moved_ms) {
		at[0] = '\'';
		units_format_ts(row->moved_ms, at + 1, sizeof(at) - 2);
		strcat(at, "'");
	}
	buf_adds(sql, "INSERT INTO _sluice.live_sources (source, watermark, rows, advanced_at, "
		      "cursor, boundary, late_rows) VALUES (");
	buf_add_sql_str(sql, source);
	buf_addf(sql, ", %lld, %lld, %s, ", (long long)row->top, (long long)row->rows, at);
	if (row->cursor)
		buf_add_sql_str(sql, row->cursor);
	else
		buf_adds(sql, "NULL");
	/* the highest cursor on record never goes back: a runner whose view
	 * is older than the row leaves it (and when it was taken) as it is */
	buf_addf(sql,
		 ", %lld, %lld) ON CONFLICT (source) DO UPDATE SET watermark = CASE WHEN "
		 "excluded.watermark >= live_sources.watermark THEN excluded.watermark ELSE "
		 "live_sources.watermark END, advanced_at = CASE WHEN excluded.watermark >= "
		 "live_sources.watermark THEN excluded.advanced_at ELSE live_sources.advanced_at END, "
		 "cursor = CASE WHEN excluded.watermark >= live_sources.watermark THEN "
		 "excluded.cursor ELSE live_sources.cursor END, rows = excluded.rows, boundary = "
		 "excluded.boundary, late_rows = excluded.late_rows;\n",
		 (long long)row->boundary, (long long)row->late);
}

int state_live_rows(struct wh *w, struct wh_result **out, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "SELECT status, CAST(paused AS INTEGER), refresh_count, events, "
		       "events_per_s, CAST(date_trunc('second', last_refresh_at) AS VARCHAR), "
		       "last_error, coalesce(");
	wh_sql_epoch_ms(w, &sql, "next_retry_at");
	buf_adds(&sql, ", 0), covered, model FROM _sluice.live_state");
	rc = wh_query(w, sql.buf, out, err);
	buf_release(&sql);
	return rc;
}

int state_live_sources(struct wh *w, struct wh_result **out, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	bool cursors = false, late = false;
	/* a warehouse opened read-only may still have a layout before cursors,
	 * or before late rows */
	int rc = wh_has_column(w, "_sluice", "live_sources", "cursor", &cursors, err);

	if (!rc)
		rc = wh_has_column(w, "_sluice", "live_sources", "late_rows", &late, err);
	if (rc)
		return rc;
	buf_addf(&sql,
		 "SELECT source, watermark, rows, CAST(date_trunc('second', advanced_at) AS "
		 "VARCHAR), %s, %s FROM _sluice.live_sources ORDER BY source",
		 cursors ? "cursor" : "NULL", late ? "coalesce(late_rows, 0)" : "0");
	rc = wh_query(w, sql.buf, out, err);
	buf_release(&sql);
	return rc;
}
