/*
 * This file implements the statements on `_sluice.replay_boundaries` and
 * `_sluice.replay_pruned`. Values are kept as text (an offset, an LSN, a
 * time): one column serves every mode, and they are only ever compared
 * within one source's part or shown.
 */
#include "state/replay.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

/* The source's part, as text ('' for one sequence of positions;
 * "topic:partition" for a part of a topic; a row landed before it had
 * a topic ":partition"). */
static void add_part(struct buf *sql, const struct source_bounds *b)
{
	if (!b->part) {
		buf_adds(sql, "''");
		return;
	}
	if (b->part_of) {
		buf_adds(sql, "coalesce(CAST(");
		wh_sql_ident(sql, b->part_of);
		buf_adds(sql, " AS VARCHAR), '') || ':' || ");
	}
	buf_adds(sql, "CAST(");
	wh_sql_ident(sql, b->part);
	buf_adds(sql, " AS VARCHAR)");
}

static void add_group_by_part(struct buf *sql, const struct source_bounds *b)
{
	if (!b->part)
		return;
	buf_adds(sql, " GROUP BY ");
	if (b->part_of) {
		wh_sql_ident(sql, b->part_of);
		buf_adds(sql, ", ");
	}
	wh_sql_ident(sql, b->part);
}

static void add_text_of(struct buf *sql, const char *agg, const char *column)
{
	buf_addf(sql, "CAST(%s(", agg);
	wh_sql_ident(sql, column);
	buf_adds(sql, ") AS VARCHAR)");
}

void state_sql_boundaries(struct buf *sql, int64_t run_id, const char *env,
			  const char *const *models, size_t nmodels, const char *source,
			  const char *schema, const char *table, const struct source_bounds *b,
			  const char *start, const char *now)
{
	if (!nmodels)
		return;
	buf_adds(sql, "DELETE FROM _sluice.replay_boundaries WHERE env = ");
	buf_add_sql_str(sql, env);
	buf_adds(sql, " AND source = ");
	buf_add_sql_str(sql, source);
	buf_adds(sql, " AND model IN (");
	for (size_t i = 0; i < nmodels; i++) {
		buf_adds(sql, i ? ", " : "");
		buf_add_sql_str(sql, models[i]);
	}
	buf_addf(sql, ");\nINSERT INTO _sluice.replay_boundaries (run_id, model, env, source, "
		      "mode, part, low, high, low_seq, high_seq, rows, through_seq, start_time, "
		      "built_at) SELECT %lld, m.model, ",
		 (long long)run_id);
	buf_add_sql_str(sql, env);
	buf_adds(sql, ", ");
	buf_add_sql_str(sql, source);
	buf_adds(sql, ", ");
	buf_add_sql_str(sql, b->mode);
	buf_adds(sql, ", r.part, r.low, r.high, r.low_seq, r.high_seq, r.n, ");
	if (b->seq) {
		buf_addf(sql, "(SELECT coalesce(max(%s), 0) FROM ", b->seq);
		wh_sql_qualified(sql, schema, table);
		buf_adds(sql, "), ");
	} else {
		buf_adds(sql, "0, ");
	}
	if (start)
		buf_addf(sql, "TIMESTAMP '%s'", start);
	else
		buf_adds(sql, "CAST(NULL AS TIMESTAMP)");
	buf_addf(sql, ", TIMESTAMP '%s' FROM (SELECT ", now);
	add_part(sql, b);
	buf_adds(sql, " AS part, ");
	add_text_of(sql, "min", b->value);
	buf_adds(sql, " AS low, ");
	add_text_of(sql, "max", b->value);
	buf_adds(sql, " AS high, ");
	if (b->seq)
		buf_addf(sql, "min(%s) AS low_seq, max(%s) AS high_seq", b->seq, b->seq);
	else
		buf_adds(sql, "CAST(NULL AS BIGINT) AS low_seq, CAST(NULL AS BIGINT) AS high_seq");
	buf_adds(sql, ", count(*) AS n FROM ");
	wh_sql_qualified(sql, schema, table);
	/* a stamped table's rows count once their sequence is given; a table
	 * sluice does not stamp holds what the snapshot shows */
	if (b->seq)
		buf_addf(sql, " WHERE %s IS NOT NULL", b->seq);
	if (start && b->time) {
		buf_adds(sql, b->seq ? " AND " : " WHERE ");
		wh_sql_ident(sql, b->time);
		buf_addf(sql, " >= TIMESTAMP '%s'", start);
	}
	add_group_by_part(sql, b);
	buf_adds(sql, ") AS r CROSS JOIN (VALUES ");
	for (size_t i = 0; i < nmodels; i++) {
		buf_adds(sql, i ? ", (" : "(");
		buf_add_sql_str(sql, models[i]);
		buf_adds(sql, ")");
	}
	buf_adds(sql, ") AS m (model);\n");
}

int state_read_load(struct wh *w, struct arena *a, const char *env, const char *model,
		    const char *source, struct state_read *out, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r = NULL;
	int rc;

	*out = (struct state_read){ 0 };
	buf_adds(&sql, "SELECT min(low_seq), sum(rows), CAST(max(built_at) AS VARCHAR), "
		       "CAST(max(start_time) AS VARCHAR), count(*), max(through_seq) FROM "
		       "_sluice.replay_boundaries WHERE env = ");
	buf_add_sql_str(&sql, env);
	buf_adds(&sql, " AND model = ");
	buf_add_sql_str(&sql, model);
	buf_adds(&sql, " AND source = ");
	buf_add_sql_str(&sql, source);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	if (wh_result_nrows(r) && strtoll(wh_result_value(r, 0, 4), NULL, 10) > 0) {
		const char *low = wh_result_value(r, 0, 0), *start = wh_result_value(r, 0, 3);

		out->found = true;
		out->any = low != NULL;
		out->low_seq = low ? strtoll(low, NULL, 10) : 0;
		out->through_seq = strtoll(wh_result_value(r, 0, 5), NULL, 10);
		out->built_at = arena_strdup(a, wh_result_value(r, 0, 2));
		out->start = start ? arena_strdup(a, start) : NULL;
	}
	wh_result_free(r);
	return 0;
}

int state_pruned_load(struct wh *w, struct arena *a, const char *source, const char *part_word,
		      struct state_pruned *out, struct sl_err *err)
{
	struct buf sql = BUF_INIT, values = BUF_INIT;
	struct wh_result *r = NULL;
	int rc;

	*out = (struct state_pruned){ 0 };
	buf_adds(&sql, "SELECT part, sum(rows), max(through_seq), CAST(max(through_time) AS "
		       "VARCHAR), CAST(max(pruned_at) AS VARCHAR), max(through) FROM "
		       "_sluice.replay_pruned WHERE source = ");
	buf_add_sql_str(&sql, source);
	buf_adds(&sql, " GROUP BY part ORDER BY part");
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	for (size_t i = 0; i < wh_result_nrows(r); i++) {
		const char *part = wh_result_value(r, i, 0), *t = wh_result_value(r, i, 3);
		const char *at = wh_result_value(r, i, 4), *through = wh_result_value(r, i, 5);
		int64_t seq = strtoll(wh_result_value(r, i, 2), NULL, 10);

		out->rows += strtoll(wh_result_value(r, i, 1), NULL, 10);
		if (seq > out->through_seq)
			out->through_seq = seq;
		if (t && (!out->through_time || strcmp(t, out->through_time) > 0))
			out->through_time = arena_strdup(a, t);
		if (at && (!out->last_at || strcmp(at, out->last_at) > 0))
			out->last_at = arena_strdup(a, at);
		if (!part || !*part)
			continue;
		buf_addf(&values, "%s%s %s through %s", values.len ? ", " : "", part_word, part,
			 through ? through : "?");
	}
	out->values = values.len ? arena_strdup(a, values.buf) : NULL;
	buf_release(&values);
	wh_result_free(r);
	return 0;
}

/* The rows retention takes: older than cutoff, and read by every live
 * reader. */
static void add_pruned_rows(struct buf *sql, const struct source_bounds *b, const char *cutoff,
			    int64_t upto)
{
	buf_adds(sql, " WHERE ");
	wh_sql_ident(sql, b->time);
	buf_addf(sql, " < TIMESTAMP '%s' AND _sluice_seq <= %lld", cutoff, (long long)upto);
}

void state_sql_prune(struct buf *sql, const char *source, const char *schema, const char *table,
		     const struct source_bounds *b, const char *cutoff, int64_t upto,
		     const char *now)
{
	buf_adds(sql, "INSERT INTO _sluice.replay_pruned (source, part, through, through_seq, "
		      "through_time, rows, pruned_at) SELECT ");
	buf_add_sql_str(sql, source);
	buf_adds(sql, ", ");
	add_part(sql, b);
	buf_adds(sql, ", ");
	add_text_of(sql, "max", b->value);
	buf_adds(sql, ", max(_sluice_seq), max(");
	wh_sql_ident(sql, b->time);
	buf_addf(sql, "), count(*), TIMESTAMP '%s' FROM ", now);
	wh_sql_qualified(sql, schema, table);
	add_pruned_rows(sql, b, cutoff, upto);
	add_group_by_part(sql, b);
	buf_adds(sql, " HAVING count(*) > 0;\nDELETE FROM ");
	wh_sql_qualified(sql, schema, table);
	add_pruned_rows(sql, b, cutoff, upto);
	buf_adds(sql, ";\n");
}
