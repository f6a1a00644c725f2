/*
 * Watermark bookkeeping of one build. The targets of landing inputs are
 * read inside the build's transaction, so they describe exactly the rows
 * its snapshot shows: nothing is applied twice, nothing skipped. The
 * targets of live model inputs come from the ledger, which only this
 * connection's own commits move; on a shared warehouse, where other
 * processes build too, they are read in the transaction as well, and so
 * is what the model consumed: when that is not what this process wrote,
 * another process built the model since, and its entry is read anew
 * before the build starts from it. The model's build lock keeps the
 * others out until this build ends.
 */
#include "live/watermark.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "exec/materialize.h"
#include "exec/render.h"
#include "live/adopted.h"
#include "project/inputs.h"
#include "project/project.h"
#include "state/changes.h"
#include "state/live.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

/* The key under which model fqn's rows stand in l's environment. */
static const char *ledger_key_of(const struct live_ledger *l, struct arena *a, const char *fqn)
{
	char buf[LIVE_KEY_MAX];

	return arena_strdup(a, live_ledger_key(l, fqn, buf, sizeof(buf)));
}

/* Whether a marks row's name (a model's key: "name" or "name@env") is
 * input name's. */
static bool names_input(const char *row, const char *name)
{
	size_t n = strlen(name);

	return strncmp(row, name, n) == 0 && (row[n] == '\0' || row[n] == '@');
}

/* What the model's inputs hold in the open transaction: the landing
 * tables' watermarks, each adopted table's highest cursor and its rows
 * beyond the boundary its books hold (into book->counted_from), and on a
 * shared warehouse also what its live inputs published and what it
 * consumed itself (rows another process may have moved), in one query.
 * Rows: kind ('s', 'd', 'p' or 'c'), name, value, and for 'd' the rows. */
static int read_marks(struct wh *w, struct arena *a, struct live_ledger *l,
		      const struct model *m, const struct ledger_model *lm, bool shared,
		      struct live_book *book, struct wh_result **out, struct sl_err *err)
{
	const char **sources = xcalloc(lm->in.n + 1, sizeof(*sources));
	const char **models = xcalloc(lm->in.n + 1, sizeof(*models));
	size_t nsources = 0, nmodels = 0;
	struct buf sql = BUF_INIT;
	int rc = 0;

	*out = NULL;
	for (size_t i = 0; i < lm->in.n; i++) {
		const struct model_input *in = &lm->in.items[i];

		if (in->kind != INPUT_MODEL && !in->adopted)
			sources[nsources++] = in->name;
		else if (in->kind == INPUT_MODEL && shared)
			models[nmodels++] = ledger_key_of(l, a, in->name);
	}
	state_live_sql_marks(&sql, sources, nsources, models, nmodels,
			     shared ? ledger_key_of(l, a, m->fqn) : NULL);
	for (size_t i = 0; !rc && i < lm->in.n; i++) {
		const struct model_input *in = &lm->in.items[i];
		enum wh_cursor_kind kind;

		if (!in->adopted)
			continue;
		rc = live_adopted_kind(l, w, a, in->adopted, &kind, err);
		if (rc)
			break;
		book->counted_from[i] = live_ledger_adopted(l, in->name, NULL, NULL).boundary;
		buf_adds(&sql, sql.len ? " UNION ALL " : "");
		live_adopted_sql_mark(w, &sql, in->adopted, kind, book->counted_from[i]);
	}
	if (!rc && sql.len)
		rc = wh_query(w, sql.buf, out, err);
	buf_release(&sql);
	free(sources);
	free(models);
	return rc;
}

/* Whether the consumed rows in r are the ones the ledger wrote: when not,
 * another process built the model since. */
static bool consumed_as_written(const struct ledger_model *lm, const struct wh_result *r)
{
	size_t rows = 0, saved = 0;

	for (size_t k = 0; k < wh_result_nrows(r); k++) {
		bool found = false;

		if (wh_result_value(r, k, 0)[0] != 'c')
			continue;
		rows++;
		for (size_t i = 0; i < lm->in.n && !found; i++)
			if (strcmp(lm->in.items[i].name, wh_result_value(r, k, 1)) == 0)
				found = lm->consumed_saved[i] &&
					lm->consumed[i] == strtoll(wh_result_value(r, k, 2), NULL, 10);
		if (!found)
			return false;
	}
	for (size_t i = 0; i < lm->in.n; i++)
		saved += lm->consumed_saved[i];
	return rows == saved;
}

/* The targets r holds; a landing table without a row holds nothing yet.
 * An adopted table's is its highest cursor, never below what the model
 * consumed: a cursor that went back (rows deleted) must not make it read
 * rows again. */
static void take_targets(const struct ledger_model *lm, const struct wh_result *r,
			 struct live_book *book)
{
	for (size_t i = 0; i < lm->in.n; i++)
		if (lm->in.items[i].kind == INPUT_SOURCE)
			book->target[i] = 0;
	for (size_t k = 0; r && k < wh_result_nrows(r); k++) {
		char kind = wh_result_value(r, k, 0)[0];
		int64_t v;

		if (kind == 'c')
			continue;
		v = strtoll(wh_result_value(r, k, 2), NULL, 10);
		for (size_t i = 0; i < lm->in.n; i++) {
			const struct model_input *in = &lm->in.items[i];

			if ((in->kind == INPUT_MODEL) != (kind == 'p') || !in->adopted != (kind != 'd') ||
			    !names_input(wh_result_value(r, k, 1), in->name))
				continue;
			book->target[i] = v;
			if (in->adopted) {
				book->target[i] = v > book->from[i] ? v : book->from[i];
				book->above[i] = strtoll(wh_result_value(r, k, 3), NULL, 10);
			}
		}
	}
}

/* What {watermark} of each adopted input renders: a literal of its
 * cursor's type, and the source's name as another name for it. */
static void adopted_literals(struct live_ledger *l, struct arena *a, const struct ledger_model *lm,
			     struct live_book *book)
{
	for (size_t i = 0; i < lm->in.n; i++) {
		const struct model_input *in = &lm->in.items[i];
		struct ledger_adopted books;
		struct buf lit = BUF_INIT;

		if (!in->adopted)
			continue;
		books = live_ledger_adopted(l, in->name, NULL, NULL);
		book->before_adopted[i] = books;
		live_adopted_literal((enum wh_cursor_kind)books.kind, book->from[i], &lit);
		book->literals[i] = arena_strdup(a, lit.buf);
		book->aliases[i] = in->adopted->name;
		buf_release(&lit);
	}
}

int live_book_open(struct wh *w, struct arena *a, struct live_ledger *l, const struct model *m,
		   bool full, struct live_book *book, struct render_ctx *ctx, struct sl_err *err)
{
	struct ledger_model *lm = live_ledger_model(l, m);
	size_t n = lm->in.n;
	bool shared = wh_shared(w);
	struct wh_result *r;
	int rc;

	memset(book, 0, sizeof(*book));
	book->lm = lm;
	book->ledger = l;
	book->names = arena_alloc(a, (n + 1) * sizeof(char *));
	book->from = arena_alloc(a, (n + 1) * sizeof(int64_t));
	book->target = arena_alloc(a, (n + 1) * sizeof(int64_t));
	book->literals = arena_alloc(a, (n + 1) * sizeof(char *));
	book->aliases = arena_alloc(a, (n + 1) * sizeof(char *));
	book->above = arena_alloc(a, (n + 1) * sizeof(int64_t));
	book->counted_from = arena_alloc(a, (n + 1) * sizeof(int64_t));
	book->before_adopted = arena_alloc(a, (n + 1) * sizeof(*book->before_adopted));
	rc = read_marks(w, a, l, m, lm, shared, book, &r, err);
	/* another process built it since this one looked: what is on record
	 * in this transaction is what it has consumed */
	if (!rc && shared && !consumed_as_written(lm, r))
		rc = live_ledger_reload_model(l, w, m, err);
	if (rc) {
		wh_result_free(r);
		book->lm = NULL;
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		book->names[i] = lm->in.items[i].name;
		book->from[i] = full ? 0 : lm->consumed[i];
		if (lm->in.items[i].kind == INPUT_MODEL)
			book->target[i] = live_ledger_input_mark(l, &lm->in.items[i]);
	}
	take_targets(lm, r, book);
	wh_result_free(r);
	adopted_literals(l, a, lm, book);
	book->before = *lm;
	book->before_consumed = arena_alloc(a, (n + 1) * sizeof(int64_t));
	book->before_covered_by = arena_alloc(a, (lm->in.nsources + 1) * sizeof(int64_t));
	memcpy(book->before_consumed, lm->consumed, n * sizeof(int64_t));
	memcpy(book->before_covered_by, lm->covered_by, lm->in.nsources * sizeof(int64_t));
	ctx->wm_names = book->names;
	ctx->wm_values = book->from;
	ctx->wm_literals = book->literals;
	ctx->wm_aliases = book->aliases;
	ctx->nwm = n;
	ctx->watermark = n ? book->from[0] : 0;
	ctx->refresh_seq = lm->published + 1;
	ctx->changes_unread = live_ledger_readers_consumed(l, m) < 0;
	return 0;
}

/* Asked of the catalog once per model, and again after a full build. */
static int has_seq_column(struct wh *w, struct model *m, bool full, bool *has, struct sl_err *err)
{
	int rc;

	if (m->seq_column && !full) {
		*has = m->seq_column > 0;
		return 0;
	}
	rc = materialize_seq_columns(w, m->schema, m->name, &m->seq_column, err);
	*has = m->seq_column > 0;
	return rc;
}

/* What the model publishes: the highest sequence its table holds when it
 * passes the column through (only rows above the last published value can
 * be new, so DuckDB skips the rest by their min/max), or its change log,
 * whose refresh that only deleted rows moves it too; else a counter of
 * refreshes that changed it, which is the sequence its change log stamps
 * (live_book_open: one above what it published). */
static int publish(struct wh *w, struct model *m, struct ledger_model *lm, int64_t rows, bool full,
		   struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int64_t from = full ? 0 : lm->published, top = 0;
	bool seq_column;
	int rc;

	if (!rows && !full)
		return 0;
	rc = has_seq_column(w, m, full, &seq_column, err);
	if (rc || !seq_column) {
		lm->published += !rc;
		return rc;
	}
	/* readers downstream look rows up by sequence, and so does this */
	rc = wh_ensure_index(w, m->schema, m->name, (const char *const[]){ "_sluice_seq" }, 1, full,
			     err);
	if (rc)
		return rc;
	buf_adds(&sql, "SELECT coalesce(max(s), 0) FROM (SELECT max(_sluice_seq) AS s FROM ");
	wh_sql_qualified(&sql, m->schema, m->name);
	buf_addf(&sql, " WHERE _sluice_seq > %lld", (long long)from);
	if (model_keeps_changes(m)) {
		buf_adds(&sql, " UNION ALL SELECT max(_sluice_seq) FROM ");
		state_sql_changes(&sql, m->schema, m->name);
		buf_addf(&sql, " WHERE _sluice_seq > %lld", (long long)from);
	}
	buf_adds(&sql, ") AS _sluice_marks");
	rc = wh_query_int(w, sql.buf, &top, err);
	buf_release(&sql);
	if (!rc)
		lm->published = top > from ? top : from;
	return rc;
}

/* How far each landing table behind the model has reached it: read
 * directly, what it now consumed; through a live input, what has reached
 * that input (it consumed all of it now); the least over all paths. */
static void cover(struct live_ledger *l, struct ledger_model *lm, const int64_t *target)
{
	for (size_t k = 0; k < lm->in.nsources; k++) {
		int64_t least = -1;

		for (size_t i = 0; i < lm->in.n; i++) {
			const struct model_input *in = &lm->in.items[i];
			int64_t v = in->kind == INPUT_SOURCE
					    ? (strcmp(in->name, lm->in.sources[k]) == 0 ? target[i] : -1)
					    : live_ledger_input_covers(l, in, lm->in.sources[k]);

			if (v >= 0 && (least < 0 || v < least))
				least = v;
		}
		lm->covered_by[k] = least < 0 ? 0 : least;
	}
	/* a landing sequence: an adopted table's places are its cursor's */
	lm->covered = -1;
	for (size_t i = 0; i < lm->in.n; i++) {
		const struct model_input *in = &lm->in.items[i];
		int64_t v = in->kind == INPUT_SOURCE ? target[i]
						     : live_ledger_input_covers(l, in, NULL);

		if (in->adopted)
			continue;
		if (v < 0)
			v = 0;
		if (lm->covered < 0 || v < lm->covered)
			lm->covered = v;
	}
	if (lm->covered < 0)
		lm->covered = 0;
}

/* The change log keeps what some reader has not consumed; with no reader
 * (whose refreshes record nothing), nothing. */
static void prune_changes(struct live_ledger *l, const struct model *m, struct buf *sql)
{
	int64_t upto = live_ledger_readers_consumed(l, m);

	if (!model_keeps_changes(m))
		return;
	state_sql_changes_prune(sql, m->schema, m->name,
				upto < 0 ? live_ledger_model(l, m)->published : upto);
}

/* The boundary of each adopted table the build read, for its late-row
 * books; a build that read beyond the highest cursor the runner has seen
 * moves that too. */
static void take_adopted(struct live_ledger *l, const struct ledger_model *lm,
			 const struct live_book *book, int64_t now_ms)
{
	for (size_t i = 0; i < lm->in.n; i++) {
		const char *name = lm->in.items[i].name;
		struct ledger_adopted books;
		int64_t top;

		if (!lm->in.items[i].adopted)
			continue;
		books = live_ledger_adopted(l, name, &top, NULL);
		live_adopted_take(&books, book->counted_from[i], book->target[i], book->above[i]);
		live_ledger_adopted_set(l, name, &books);
		if (book->target[i] > top)
			live_ledger_note(l, name, &(struct live_advance){ .seq = book->target[i] },
					 now_ms);
	}
}

int live_book_close(struct wh *w, struct live_ledger *l, struct model *m, struct live_book *book,
		    int64_t rows, bool full, struct buf *sql, struct sl_err *err)
{
	struct ledger_model *lm = book->lm;
	int64_t now = units_now_ms();
	int rc = publish(w, m, lm, rows, full, err);

	if (rc)
		return rc;
	memcpy(lm->consumed, book->target, lm->in.n * sizeof(int64_t));
	cover(l, lm, book->target);
	take_adopted(l, lm, book, now);
	/* events/s: this refresh's rows over the time since the previous one,
	 * smoothed so that one burst does not swing the figure */
	if (lm->last_refresh_ms && now > lm->last_refresh_ms)
		lm->events_per_s = 0.5 * lm->events_per_s +
				   0.5 * (double)rows * 1000.0 / (double)(now - lm->last_refresh_ms);
	lm->last_refresh_ms = now;
	lm->refresh_count++;
	lm->events += rows;
	lm->failing = false;
	lm->failures = 0;
	lm->next_retry_ms = 0;
	if (sql) {
		live_ledger_sql_model(l, m, sql);
		prune_changes(l, m, sql);
	} else {
		lm->dirty = true;
	}
	return 0;
}

void live_book_abort(struct live_book *book)
{
	struct ledger_model *lm = book->lm;

	if (!lm)
		return;
	for (size_t i = 0; i < lm->in.n; i++)
		if (lm->in.items[i].adopted)
			live_ledger_adopted_set(book->ledger, lm->in.items[i].name,
						&book->before_adopted[i]);
	*lm = book->before;
	memcpy(lm->consumed, book->before_consumed, lm->in.n * sizeof(int64_t));
	memcpy(lm->covered_by, book->before_covered_by, lm->in.nsources * sizeof(int64_t));
}

/* The hooks a run calls, over a live_books. */
static bool book_behind(void *ctx, const struct model *m)
{
	struct live_books *b = ctx;

	return live_ledger_behind(b->ledger, m);
}

/* Unwritten until the checkpoint every poll_interval, which a runner
 * takes: a record younger than that may wait. A recovery may not: the
 * record says failing, and live status and check read the record. */
static bool book_may_defer(void *ctx, const struct model *m)
{
	struct live_books *b = ctx;
	const struct ledger_model *lm = live_ledger_model(b->ledger, m);

	return lm->known && !lm->failing &&
	       units_mono_ms() - lm->saved_mono_ms < b->poll_interval_ms;
}

static int book_open(void *ctx, struct wh *w, struct arena *a, const struct model *m, bool full,
		     struct render_ctx *rctx, void **entry, struct sl_err *err)
{
	struct live_books *b = ctx;
	struct live_book *book = arena_alloc(a, sizeof(*book));

	*entry = book;
	return live_book_open(w, a, b->ledger, m, full, book, rctx, err);
}

static int book_close(void *ctx, struct wh *w, struct model *m, void *entry, int64_t rows,
		      bool full, struct buf *sql, struct sl_err *err)
{
	struct live_books *b = ctx;

	return live_book_close(w, b->ledger, m, entry, rows, full, sql, err);
}

static void book_saved(void *ctx, const struct model *m)
{
	struct live_books *b = ctx;

	live_ledger_saved(b->ledger, m);
}

static void book_abort(void *ctx, void *entry)
{
	(void)ctx;
	live_book_abort(entry);
}

void live_books_over(struct live_books *b, const struct project *p, struct live_ledger *l)
{
	bool any = false;

	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < p->nmodels && !any; i++)
		any = inputs_tracks(p->models[i]);
	if (!any)
		return;
	b->hooks = (struct run_book){ .ctx = b, .behind = book_behind, .may_defer = book_may_defer,
				      .open = book_open, .close = book_close, .saved = book_saved,
				      .abort = book_abort };
	b->poll_interval_ms = p->cfg.live.poll_interval_ms;
	b->ledger = l;
	b->open = true;
}

int live_books_open(struct live_books *b, struct arena *a, const struct project *p,
		    const char *env, struct wh *w, struct sl_err *err)
{
	struct live_ledger *l = live_ledger_new(a, p);

	bool moved = false;
	int rc;

	live_books_over(b, p, l);
	if (!b->open) {
		live_ledger_free(l);
		return 0;
	}
	b->own = true;
	live_ledger_in_env(l, env);
	rc = live_ledger_load(l, w, err);
	/* nobody announces an adopted table's rows: what it holds is asked */
	return rc ? rc : live_adopted_poll(l, w, a, p, false, NULL, &moved, err);
}

const struct run_book *live_books_hooks(const struct live_books *b)
{
	return b->open ? &b->hooks : NULL;
}

void live_books_close(struct live_books *b)
{
	if (b->own)
		live_ledger_free(b->ledger);
	memset(b, 0, sizeof(*b));
}
