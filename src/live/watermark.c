/*
 * Watermark bookkeeping. Reads and writes only `_sluice.live_*` rows, and
 * only inside the caller's transaction, so a build's rows and its
 * watermarks commit together or not at all: nothing is applied twice,
 * nothing skipped.
 */
#include "live/watermark.h"

#include "build/render.h"
#include "build/state.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

static int64_t num(const struct wh_result *r, size_t row, size_t col)
{
	const char *v = wh_result_value(r, row, col);

	return v ? strtoll(v, NULL, 10) : 0;
}

/* One row per input, in input order: consumed, watermark, covered. Scalar
 * subqueries on the small state tables plan faster than joins. */
static void inputs_query(const struct model *m, const struct live_inputs *in, struct buf *sql)
{
	for (size_t i = 0; i < in->n; i++) {
		const char *name = in->items[i].name;
		bool source = in->items[i].kind == LIVE_INPUT_SOURCE;

		buf_adds(sql, i ? " UNION ALL SELECT " : "SELECT ");
		buf_addf(sql, "%zu, coalesce((SELECT watermark FROM _sluice.live_consumed WHERE model = ",
			 i);
		buf_add_sql_str(sql, m->fqn);
		buf_adds(sql, " AND input = ");
		buf_add_sql_str(sql, name);
		if (source) {
			/* a source covers itself up to its watermark */
			for (int k = 0; k < 2; k++) {
				buf_adds(sql, k ? ", 0), coalesce((" : "), 0), coalesce((");
				buf_adds(sql, "SELECT watermark FROM _sluice.live_sources WHERE source = ");
				buf_add_sql_str(sql, name);
				buf_adds(sql, ")");
			}
			buf_adds(sql, ", 0)");
		} else {
			buf_adds(sql, "), 0), coalesce((SELECT published FROM _sluice.live_state WHERE "
				      "model = ");
			buf_add_sql_str(sql, name);
			buf_adds(sql, "), 0), coalesce((SELECT covered FROM _sluice.live_state WHERE "
				      "model = ");
			buf_add_sql_str(sql, name);
			buf_adds(sql, "), 0)");
		}
	}
	buf_adds(sql, " ORDER BY 1");
}

static int64_t col(const struct wh_result *r, size_t row, size_t c)
{
	const char *v = wh_result_value(r, row, c);

	return v ? strtoll(v, NULL, 10) : 0;
}

int live_book_open(struct wh *w, struct arena *a, const struct model *m, bool full,
		   struct live_book *book, struct render_ctx *ctx, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r = NULL;
	size_t n;
	int rc = 0;

	memset(book, 0, sizeof(*book));
	live_inputs_find(a, m, &book->inputs);
	n = book->inputs.n;
	book->names = arena_alloc(a, (n + 1) * sizeof(char *));
	book->consumed = arena_alloc(a, (n + 1) * sizeof(int64_t));
	book->target = arena_alloc(a, (n + 1) * sizeof(int64_t));
	book->covered = arena_alloc(a, (n + 1) * sizeof(int64_t));
	book->upstream = arena_alloc(a, (n + 1) * sizeof(*book->upstream));
	for (size_t i = 0; i < n; i++) {
		book->names[i] = book->inputs.items[i].name;
		if (book->inputs.items[i].model)
			live_inputs_find(a, book->inputs.items[i].model, &book->upstream[i]);
	}
	if (n) {
		inputs_query(m, &book->inputs, &sql);
		rc = wh_query(w, sql.buf, &r, err);
		for (size_t i = 0; !rc && i < n && i < wh_result_nrows(r); i++) {
			book->consumed[i] = full ? 0 : col(r, i, 1);
			book->target[i] = col(r, i, 2);
			book->covered[i] = col(r, i, 3);
		}
		wh_result_free(r);
		r = NULL;
	}
	if (!rc) {
		buf_reset(&sql);
		buf_adds(&sql, "SELECT published, refresh_count, events FROM _sluice.live_state "
			       "WHERE model = ");
		buf_add_sql_str(&sql, m->fqn);
		rc = wh_query(w, sql.buf, &r, err);
	}
	if (!rc && wh_result_nrows(r)) {
		book->had_state = true;
		book->published = num(r, 0, 0);
		book->refresh_count = num(r, 0, 1);
		book->events = num(r, 0, 2);
	}
	wh_result_free(r);
	buf_release(&sql);
	ctx->wm_names = book->names;
	ctx->wm_values = book->consumed;
	ctx->nwm = n;
	ctx->watermark = n ? book->consumed[0] : 0;
	return rc;
}

/* Asked of the catalog once per model, and again after a full build. */
/* Asked of the catalog once per model, and again after a full build. */
static int has_seq_column(struct wh *w, struct model *m, bool full, bool *has, struct sl_err *err)
{
	int rc;

	if (m->seq_column && !full) {
		*has = m->seq_column > 0;
		return 0;
	}
	rc = wh_has_column(w, m->schema, m->name, "_sluice_seq", has, err);
	if (!rc)
		m->seq_column = *has ? 1 : -1;
	return rc;
}

/* How far each landing table behind the model has reached it: for a source
 * it reads, what it now consumed; through a live input, what that input
 * covered; the least over all paths. */
static void covered_sql(const struct model *m, const struct live_book *book, struct buf *sql)
{
	bool first = true;

	buf_adds(sql, "INSERT INTO _sluice.live_covered SELECT ");
	buf_add_sql_str(sql, m->fqn);
	buf_adds(sql, ", p.source, min(p.seq) FROM (");
	for (size_t i = 0; i < book->inputs.n; i++) {
		const struct live_input *in = &book->inputs.items[i];

		if (in->kind != LIVE_INPUT_SOURCE)
			continue;
		buf_adds(sql, first ? "SELECT * FROM (VALUES (" : ", (");
		buf_add_sql_str(sql, in->name);
		buf_addf(sql, ", %lld)", (long long)book->target[i]);
		first = false;
	}
	if (!first)
		buf_adds(sql, ") AS d(source, seq)");
	for (size_t i = 0; i < book->inputs.n; i++) {
		const struct live_input *in = &book->inputs.items[i];
		bool any = false;

		if (in->kind != LIVE_INPUT_MODEL)
			continue;
		for (size_t k = 0; k < book->upstream[i].nsources; k++) {
			buf_adds(sql, any ? ", (" : first ? "SELECT q.source, coalesce(c.seq, 0) FROM (VALUES ("
						      : " UNION ALL SELECT q.source, coalesce(c.seq, 0) FROM (VALUES (");
			buf_add_sql_str(sql, in->name);
			buf_adds(sql, ", ");
			buf_add_sql_str(sql, book->upstream[i].sources[k]);
			buf_adds(sql, ")");
			any = true;
			first = false;
		}
		if (any)
			buf_adds(sql, ") AS q(input, source) LEFT JOIN _sluice.live_covered AS c ON "
				      "c.model = q.input AND c.source = q.source");
	}
	buf_adds(sql, ") AS p(source, seq) GROUP BY p.source ON CONFLICT (model, source) DO UPDATE "
		      "SET seq = excluded.seq;\n");
}

int live_book_close(struct wh *w, struct model *m, struct live_book *book, int64_t rows,
		    bool full, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int64_t published = book->published, covered = 0;
	char now[32];
	bool seq_column;
	int rc;

	for (size_t i = 0; i < book->inputs.n; i++) {
		buf_adds(&sql, "INSERT INTO _sluice.live_consumed VALUES (");
		buf_add_sql_str(&sql, m->fqn);
		buf_adds(&sql, ", ");
		buf_add_sql_str(&sql, book->names[i]);
		buf_addf(&sql, ", %lld) ON CONFLICT (model, input) DO UPDATE SET watermark = "
			       "excluded.watermark;\n",
			 (long long)book->target[i]);
		if (i == 0 || book->covered[i] < covered)
			covered = book->covered[i];
	}
	if (book->inputs.n)
		covered_sql(m, book, &sql);
	rc = has_seq_column(w, m, full, &seq_column, err);
	if (rc)
		goto out;
	/* without the column, a refresh counter tells readers to look */
	if (!seq_column && (rows > 0 || full))
		published++;
	state_format_ts(units_now_ms(), now, sizeof(now));
	buf_adds(&sql, "INSERT INTO _sluice.live_state VALUES (");
	buf_add_sql_str(&sql, m->fqn);
	if (seq_column) {
		buf_adds(&sql, ", (SELECT coalesce(max(_sluice_seq), 0) FROM ");
		wh_sql_qualified(&sql, m->schema, m->name);
		buf_adds(&sql, ")");
	} else {
		buf_addf(&sql, ", %lld", (long long)published);
	}
	/* events/s: this refresh's rows over the time since the previous one,
	 * smoothed so that one burst does not swing the figure */
	buf_addf(&sql,
		 ", %lld, %lld, %lld, 0, 'live', false, 0, NULL, '%s', NULL) ON CONFLICT "
		 "(model) DO UPDATE SET published = excluded.published, covered = "
		 "excluded.covered, refresh_count = excluded.refresh_count, events = "
		 "excluded.events, events_per_s = 0.5 * live_state.events_per_s + 0.5 * %lld / "
		 "greatest(epoch(excluded.last_refresh_at) - epoch(coalesce("
		 "live_state.last_refresh_at, excluded.last_refresh_at)), 0.001), status = 'live', "
		 "failures = 0, last_error = NULL, last_refresh_at = excluded.last_refresh_at, "
		 "next_retry_at = NULL",
		 (long long)covered, (long long)book->refresh_count + 1,
		 (long long)(book->events + rows), now, (long long)rows);
	rc = wh_exec(w, sql.buf, err);
out:
	buf_release(&sql);
	return rc;
}

int live_count_behind(struct wh *w, struct arena *a, const struct model *const *models,
		      size_t n, size_t *behind, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int64_t count = 0;
	size_t pairs = 0;
	int rc;

	*behind = 0;
	for (size_t i = 0; i < n; i++) {
		struct live_inputs in;

		live_inputs_find(a, models[i], &in);
		for (size_t k = 0; k < in.n; k++) {
			buf_adds(&sql, pairs++ ? ", (" : "SELECT count(DISTINCT p.model) FROM (VALUES (");
			buf_add_sql_str(&sql, models[i]->fqn);
			buf_adds(&sql, ", ");
			buf_add_sql_str(&sql, in.items[k].name);
			buf_adds(&sql, ")");
		}
	}
	if (!pairs)
		return 0;
	buf_adds(&sql, ") AS p(model, input) LEFT JOIN _sluice.live_consumed AS c ON c.model = "
		       "p.model AND c.input = p.input LEFT JOIN _sluice.live_sources AS s ON "
		       "s.source = p.input LEFT JOIN _sluice.live_state AS st ON st.model = p.input "
		       "WHERE coalesce(s.watermark, st.published, 0) > coalesce(c.watermark, 0)");
	rc = wh_query_int(w, sql.buf, &count, err);
	buf_release(&sql);
	*behind = (size_t)count;
	return rc;
}

int live_book_behind(struct wh *w, struct arena *a, const struct model *m, bool *behind,
		     struct sl_err *err)
{
	size_t count;
	int rc = live_count_behind(w, a, &m, 1, &count, err);

	*behind = count > 0;
	return rc;
}
