/*
 * This file implements a run's window state: the rows read once, kept per
 * model in since order as windows are built (or, in a dry run, would be),
 * the schedule of a temporal model's windows on its applied coverage, and
 * the gate check of one window against every gated upstream. It must
 * never write the warehouse: run.c records each window in its own
 * transaction.
 */
#include "exec/windows.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "warehouse/wh.h"
#include "windows/contract.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static struct model_rows *rows_of(const struct run_windows *rw, const struct model *m)
{
	return &rw->by_model[m->order];
}

/* The index of the first row of mr whose since is not before since. */
static size_t lower_bound(const struct model_rows *mr, int64_t since)
{
	size_t lo = 0, hi = mr->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (mr->rows[mid].since < since)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void push_row(struct run_windows *rw, struct model_rows *mr, size_t at,
		     const struct state_window *row)
{
	if (mr->n == mr->cap) {
		size_t cap = mr->cap ? 2 * mr->cap : 16;
		struct state_window *rows = arena_alloc(rw->a, cap * sizeof(*rows));

		if (mr->n)
			memcpy(rows, mr->rows, mr->n * sizeof(*rows));
		mr->rows = rows;
		mr->cap = cap;
	}
	memmove(mr->rows + at + 1, mr->rows + at, (mr->n - at) * sizeof(*mr->rows));
	mr->rows[at] = *row;
	mr->n++;
}

/* The names of the models wanted, or NULL when that is all of them. */
static const char *const *wanted_names(struct arena *a, const struct project *p,
				       const bool *wanted, size_t *n)
{
	const char **names = arena_alloc(a, (p->nmodels + 1) * sizeof(*names));

	*n = 0;
	for (size_t i = 0; wanted && i < p->nmodels; i++)
		if (wanted[i])
			names[(*n)++] = p->models[i]->fqn;
	return wanted && *n < p->nmodels ? names : NULL;
}

int run_windows_load(struct run_windows *rw, struct arena *a, struct project *p, struct wh *w,
		     const char *env, const bool *wanted, struct sl_err *err)
{
	struct state_window *rows = NULL;
	size_t n = 0, nnames;
	const char *const *names = wanted_names(a, p, wanted, &nnames);
	int rc = w ? state_windows_load(w, a, env, names, nnames, &rows, &n, err) : 0;

	rw->p = p;
	rw->a = a;
	rw->env = env;
	rw->by_model = arena_alloc(a, (p->nmodels + 1) * sizeof(*rw->by_model));
	memset(rw->by_model, 0, (p->nmodels + 1) * sizeof(*rw->by_model));
	if (rc)
		return rc;
	/* the rows come ordered by model and since: each model's are a run */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		struct model *m = project_find_model(p, rows[i].model);

		while (j < n && strcmp(rows[j].model, rows[i].model) == 0)
			j++;
		if (m) {
			struct model_rows *mr = rows_of(rw, m);

			mr->rows = rows + i;
			mr->n = mr->cap = j - i;
		}
		i = j;
	}
	return 0;
}

/* The expression of a source's event time in its table: its column of
 * that name, else the field of its payload. */
static void event_time_expr(struct wh *w, struct buf *sql, const struct source_cfg *s,
			    const struct wh_column *cols, size_t ncols, bool *payload)
{
	struct buf field = BUF_INIT;

	*payload = true;
	for (size_t i = 0; i < ncols; i++) {
		if (strcasecmp(cols[i].name, s->event_time) == 0) {
			*payload = false;
			wh_sql_ident(sql, cols[i].name);
			return;
		}
	}
	buf_adds(&field, "payload->>");
	buf_add_sql_str(&field, s->event_time);
	wh_sql_try_cast(w, sql, field.buf, "TIMESTAMP");
	buf_release(&field);
}

/* The column that says when a row landed: sluice's own landing time, the
 * time a change was received, or none (an adopted table). */
static const char *landed_column(const struct wh_column *cols, size_t ncols)
{
	for (size_t i = 0; i < ncols; i++)
		if (strcmp(cols[i].name, "_sluice_landed_at") == 0 ||
		    strcmp(cols[i].name, "received_at") == 0)
			return cols[i].name;
	return NULL;
}

/* cover->known is false when the source has no table or no event yet. */
int run_windows_source_cover(struct wh *w, struct arena *a, const struct source_cfg *s,
			     const char *relation, struct source_cover *cover, struct sl_err *err)
{
	const char *dot = strchr(relation, '.');
	char *schema;
	struct wh_column *cols = NULL;
	struct wh_result *res = NULL;
	struct buf sql = BUF_INIT, ev = BUF_INIT;
	const char *landed;
	size_t ncols = 0;
	bool payload;
	int rc;

	*cover = (struct source_cover){ 0 };
	if (!dot)
		return sl_err_set(err, SL_E_INTERNAL, "source table '%s' has no schema", relation);
	schema = arena_strndup(a, relation, (size_t)(dot - relation));
	rc = wh_table_columns(w, a, schema, dot + 1, &cols, &ncols, err);
	if (rc || !ncols)
		return rc;
	event_time_expr(w, &ev, s, cols, ncols, &payload);
	landed = landed_column(cols, ncols);
	buf_adds(&sql, "SELECT ");
	wh_sql_epoch_ms(w, &sql, arena_sprintf(a, "max(%s)", ev.buf));
	buf_adds(&sql, ", ");
	if (landed) {
		struct buf col = BUF_INIT;

		wh_sql_ident(&col, landed);
		wh_sql_epoch_ms(w, &sql, arena_sprintf(a, "max(%s)", col.buf));
		buf_release(&col);
	} else {
		buf_adds(&sql, "NULL");
	}
	buf_adds(&sql, " FROM ");
	wh_sql_qualified(&sql, schema, dot + 1);
	rc = wh_query(w, sql.buf, &res, err);
	if (!rc && wh_result_nrows(res) && wh_result_value(res, 0, 0)) {
		const char *at = wh_result_value(res, 0, 1);
		int64_t newest = strtoll(wh_result_value(res, 0, 0), NULL, 10);
		/* a table that does not say when its rows landed is as fresh as
		 * its newest event */
		int64_t landed = at ? strtoll(at, NULL, 10) : newest;

		cover->known = true;
		cover->landed_at = landed / 1000;
		/* a stream has not passed what had not happened when it last
		 * landed: one event stamped far ahead opens no gate */
		cover->until = ((newest < landed ? newest : landed) - s->lateness_ms) / 1000;
	}
	if (rc)
		sl_err_context(err, "reading the coverage of source '%s' (event_time %s%s)", s->name,
			       s->event_time, payload ? ", a field of its payload" : "");
	wh_result_free(res);
	buf_release(&sql);
	buf_release(&ev);
	return rc;
}

/* The index of a declared source in the project's config. */
static size_t source_index(const struct run_windows *rw, const struct source_cfg *s)
{
	return (size_t)(s - rw->p->cfg.sources);
}

int run_windows_load_sources(struct run_windows *rw, struct wh *w, const bool *selected,
			     struct sl_err *err)
{
	const struct project *p = rw->p;
	bool *done = arena_alloc(rw->a, (p->cfg.nsources + 1) * sizeof(bool));
	int rc = 0;

	rw->sources = arena_alloc(rw->a, (p->cfg.nsources + 1) * sizeof(*rw->sources));
	memset(rw->sources, 0, (p->cfg.nsources + 1) * sizeof(*rw->sources));
	memset(done, 0, (p->cfg.nsources + 1) * sizeof(bool));
	for (size_t i = 0; !rc && w && i < p->nmodels; i++) {
		for (size_t k = 0; !rc && selected[i] && k < p->models[i]->nupstreams; k++) {
			const struct model_upstream *u = &p->models[i]->upstreams[k];
			size_t at;

			if (!model_upstream_streams(u))
				continue;
			at = source_index(rw, u->source);
			if (!done[at])
				rc = run_windows_source_cover(w, rw->a, u->source,
							      u->source_relation, &rw->sources[at],
							      err);
			done[at] = true;
		}
	}
	return rc;
}

int run_windows_reload(struct run_windows *rw, struct wh *w, const struct model *m,
		       struct sl_err *err)
{
	struct model_rows *mr = rows_of(rw, m);
	struct state_window *rows;
	size_t n;
	int rc = state_windows_load(w, rw->a, rw->env, &m->fqn, 1, &rows, &n, err);

	if (!rc) {
		mr->rows = rows;
		mr->n = mr->cap = n;
	}
	return rc;
}

/* Takes [since, until) out of the grid rows of mr from at on: a row
 * standing for a run of windows keeps its windows on either side. */
static void cut_out(struct run_windows *rw, struct model_rows *mr, size_t at, int64_t since,
		    int64_t until)
{
	size_t end = at;

	while (end < mr->n && mr->rows[end].since < until)
		end++;
	if (at < end && mr->rows[end - 1].until > until) {
		struct state_window right = mr->rows[end - 1];

		right.since = until;
		push_row(rw, mr, end, &right);
	}
	if (at < end && mr->rows[at].since < since) {
		mr->rows[at].until = since;
		at++;
	}
	if (at < end) {
		memmove(mr->rows + at, mr->rows + end, (mr->n - end) * sizeof(*mr->rows));
		mr->n -= end - at;
	}
}

void run_windows_put(struct run_windows *rw, const struct model *m,
		     const struct state_window *row)
{
	struct model_rows *mr = rows_of(rw, m);
	size_t at = row->timeless ? 0 : lower_bound(mr, row->since);

	/* a model's existence row is its one row, as the statement makes it */
	if (row->timeless)
		mr->n = 0;
	if (row->grain && !row->timeless) {
		/* from the row that may hold since */
		at -= at && mr->rows[at - 1].until > row->since;
		cut_out(rw, mr, at, row->since, row->until);
		at = lower_bound(mr, row->since);
		if (at && state_window_joins(&mr->rows[at - 1], row)) {
			mr->rows[at - 1].until = row->until;
			at--;
		} else {
			push_row(rw, mr, at, row);
		}
		if (at + 1 < mr->n && state_window_joins(&mr->rows[at], &mr->rows[at + 1])) {
			mr->rows[at].until = mr->rows[at + 1].until;
			memmove(mr->rows + at + 1, mr->rows + at + 2,
				(mr->n - at - 2) * sizeof(*mr->rows));
			mr->n--;
		}
		return;
	}
	if (at < mr->n && mr->rows[at].since == row->since) {
		mr->rows[at] = *row;
		return;
	}
	push_row(rw, mr, at, row);
}

/* Drops the rows of mr that gone() says go, in place. */
static void drop_rows(struct model_rows *mr, bool (*gone)(const struct state_window *, int64_t,
							  int64_t),
		      int64_t since, int64_t until)
{
	size_t k = 0;

	for (size_t i = 0; i < mr->n; i++)
		if (!gone(&mr->rows[i], since, until))
			mr->rows[k++] = mr->rows[i];
	mr->n = k;
}

static bool overlaps(const struct state_window *w, int64_t since, int64_t until)
{
	return w->since < until && w->until > since;
}

static bool merges(const struct state_window *w, int64_t since, int64_t until)
{
	return overlaps(w, since, until) ||
	       (w->status == WINDOW_APPLIED && w->since <= until && w->until >= since);
}

struct state_window run_windows_island(const struct run_windows *rw, const struct model *m,
				       const struct state_window *row)
{
	const struct model_rows *mr = rows_of(rw, m);
	struct state_window island = *row;

	bool grew = true;

	island.oldest_at = row->applied_at;
	/* until no row is left that reaches it: a row it took in may reach
	 * one the window did not (rows left apart by a crash) */
	while (grew) {
		grew = false;
		for (size_t i = 0; i < mr->n; i++) {
			const struct state_window *w = &mr->rows[i];
			int64_t oldest = w->oldest_at ? w->oldest_at : w->applied_at;

			if (w->status != WINDOW_APPLIED || !merges(w, island.since, island.until))
				continue;
			grew |= w->since < island.since || w->until > island.until;
			if (w->since < island.since)
				island.since = w->since;
			if (w->until > island.until)
				island.until = w->until;
			if (w->applied_at > island.applied_at)
				island.applied_at = w->applied_at;
			if (oldest && oldest < island.oldest_at)
				island.oldest_at = oldest;
		}
	}
	return island;
}

static bool inside(const struct state_window *w, int64_t since, int64_t until)
{
	return w->since >= since && w->until <= until;
}

void run_windows_add(struct run_windows *rw, const struct model *m,
		     const struct state_window *row)
{
	struct model_rows *mr = rows_of(rw, m);

	drop_rows(mr, inside, row->since, row->until);
	push_row(rw, mr, lower_bound(mr, row->since), row);
}

const struct state_window *run_windows_loose(const struct run_windows *rw,
					     const struct model *m)
{
	const struct model_rows *mr = rows_of(rw, m);
	const struct state_window *prev = NULL;

	for (size_t i = 0; i < mr->n; i++) {
		const struct state_window *w = &mr->rows[i];

		if (w->status != WINDOW_APPLIED || w->timeless)
			continue;
		if (prev && w->since <= prev->until)
			return prev;
		if (!prev || w->until > prev->until)
			prev = w;
	}
	return NULL;
}

void run_windows_put_island(struct run_windows *rw, const struct model *m,
			    const struct state_window *island)
{
	struct model_rows *mr = rows_of(rw, m);

	drop_rows(mr, merges, island->since, island->until);
	push_row(rw, mr, lower_bound(mr, island->since), island);
}

void run_windows_uncover(struct run_windows *rw, const struct model *m, int64_t since,
			 int64_t until, struct state_window **pieces, size_t *n)
{
	struct model_rows *mr = rows_of(rw, m);

	*n = 0;
	*pieces = arena_alloc(rw->a, (2 * mr->n + 1) * sizeof(**pieces));
	for (size_t i = 0; i < mr->n; i++) {
		const struct state_window *w = &mr->rows[i];

		if (w->status != WINDOW_APPLIED || !overlaps(w, since, until))
			continue;
		if (w->since < since) {
			(*pieces)[*n] = *w;
			(*pieces)[(*n)++].until = since;
		}
		if (w->until > until) {
			(*pieces)[*n] = *w;
			(*pieces)[(*n)++].since = until;
		}
	}
	drop_rows(mr, overlaps, since, until);
	for (size_t i = 0; i < *n; i++)
		push_row(rw, mr, lower_bound(mr, (*pieces)[i].since), &(*pieces)[i]);
}

bool run_windows_covered(const struct run_windows *rw, const struct model *m, int64_t since,
			 int64_t until)
{
	const struct model_rows *mr = rows_of(rw, m);

	for (size_t i = 0; i < mr->n; i++)
		if (mr->rows[i].status == WINDOW_APPLIED && !mr->rows[i].timeless &&
		    mr->rows[i].since <= since && mr->rows[i].until >= until)
			return true;
	return false;
}

void run_windows_clear(struct run_windows *rw, const struct model *m)
{
	rows_of(rw, m)->n = 0;
}

const struct state_window *run_windows_at(const struct run_windows *rw, const struct model *m,
					  int64_t since)
{
	const struct model_rows *mr = rows_of(rw, m);
	size_t at = lower_bound(mr, since);

	if (at < mr->n && mr->rows[at].since == since)
		return &mr->rows[at];
	/* a grid row standing for a run of windows holds each of them */
	return at && mr->rows[at - 1].grain && mr->rows[at - 1].until > since ? &mr->rows[at - 1]
									      : NULL;
}

const char *run_windows_old_grain(const struct run_windows *rw, const struct model *m)
{
	const struct model_rows *mr = rows_of(rw, m);
	const char *now = win_grain_name(m->grain);

	for (size_t i = 0; m->temporal && !m->flex && i < mr->n; i++)
		if (mr->rows[i].grain && strcmp(mr->rows[i].grain, now) != 0)
			return mr->rows[i].grain;
	return NULL;
}

/* Appends row to the n rows of out, or, when it overlaps the last, widens
 * that: a flexible model's loose row within its island. */
static void add_applied(struct win_row *out, size_t *n, const struct win_row *row)
{
	struct win_row *last = *n ? &out[*n - 1] : NULL;

	if (!last || row->since >= last->until) {
		out[(*n)++] = *row;
		return;
	}
	if (row->until > last->until)
		last->until = row->until;
	if (row->applied_at > last->applied_at)
		last->applied_at = row->applied_at;
	if (row->oldest_at < last->oldest_at)
		last->oldest_at = row->oldest_at;
}

/* The applied rows of m as the contracts see them, malloc'd (n of them),
 * in since order and disjoint: a flexible model's window row that a crash
 * left inside an island, not joined yet, counts as part of the island.
 * by_window: a grid row standing for a run of windows is cut into them,
 * for EXACT, which asks for a row equal to one window; the other levels
 * read coverage, which a run is as it stands. */
static struct win_row *applied_rows(const struct run_windows *rw, const struct model *m,
				    bool by_window, size_t *n)
{
	const struct model_rows *mr = rows_of(rw, m);
	struct win_row *out = NULL;

	/* counted first, at most one row per piece, then filled by the same
	 * cut */
	for (int fill = 0; fill < 2; fill++) {
		*n = 0;
		for (size_t i = 0; i < mr->n; i++) {
			const struct state_window *s = &mr->rows[i];
			int64_t oldest = s->oldest_at ? s->oldest_at : s->applied_at, t = s->since;

			if (s->status != WINDOW_APPLIED || (m->temporal && s->timeless))
				continue;
			do {
				struct win_row row = { t, by_window && s->grain ? win_add(m->grain, t, 1)
										: s->until,
						       s->applied_at, oldest };

				if (!fill)
					++*n;
				else if (m->temporal)
					add_applied(out, n, &row);
				else
					out[(*n)++] = row;
				t = row.until;
			} while (t < s->until);
		}
		if (!fill)
			out = xmalloc((*n + 1) * sizeof(*out));
	}
	return out;
}

struct win_grid run_windows_grid(const struct model *m)
{
	return (struct win_grid){ .grain = m->grain, .start = m->start, .end = m->end,
				  .lookback = m->lookback, .flex = m->flex };
}

/* What of m's applied rows the upstream of gate `gate` applied again after
 * they were built (at `after`): a flexible island the part of it that read
 * the rows applied again ([from, to)); a fixed model's windows, whole. */
struct stale_row {
	size_t gate;
	int64_t since, until, after, from, to;
};

/* The stale rows of m, malloc'd, and what they cover together. */
struct stale {
	struct stale_row *r;
	size_t n, cap;
	struct win_set cover;
};

/* Records [since, until) as stale by gate, but for what an earlier gate
 * made stale already: a window is due again for its first upstream. */
static void add_stale(struct stale *st, const struct stale_row *row)
{
	struct win_set gaps = { 0 };

	win_set_gaps(&st->cover, row->since, row->until, &gaps);
	for (size_t i = 0; i < gaps.n; i++) {
		struct stale_row *last = st->n ? &st->r[st->n - 1] : NULL;

		if (last && last->gate == row->gate && last->after == row->after &&
		    last->until == gaps.r[i].since) {
			last->until = gaps.r[i].until;
			continue;
		}
		if (st->n == st->cap) {
			st->cap = st->cap ? 2 * st->cap : 16;
			st->r = xreallocarray(st->r, st->cap, sizeof(*st->r));
		}
		st->r[st->n] = *row;
		st->r[st->n].since = gaps.r[i].since;
		st->r[st->n++].until = gaps.r[i].until;
	}
	win_set_add(&st->cover, row->since, row->until);
	win_set_free(&gaps);
}

/* The level whose selection for a run of windows is what its windows'
 * own selections are together: EXACT's rows equal to the windows are the
 * rows that intersect them, on an upstream of the same grain (on another
 * none is ever equal to a window, and none is stale either). */
static enum win_level run_level(enum win_level l)
{
	return l == WIN_EXACT ? WIN_ENCAPSULATE : l;
}

/* The windows of fixed model m's applied row d (one window, or a run of
 * them built at one time) that the upstream of gate i applied rows again
 * after, as its level selects them for each window. One search over the
 * whole run says whether any is, so that a run of a million windows with
 * nothing restated costs that search; from the first stale window on,
 * THROUGH and WHOLE select more rows the later the window, so every later
 * one is stale too; EXACT and ENCAPSULATE go from one stale window to the
 * next restated row. */
static void restated_run(const struct run_gates *gs, size_t i, const struct model *m,
			 const struct state_window *d, struct stale *st)
{
	enum win_level l = (enum win_level)gs->g[i].u->level;
	const struct win_index *ix = &gs->g[i].ix;
	int64_t t = d->since, from, to;

	while (t < d->until && win_rebuilt(ix, run_level(l), t, d->until, d->applied_at, &from, &to)) {
		/* t is a window's since: a row from before it reaches into it */
		int64_t w = from > t ? win_floor(m->grain, from) : t;
		struct stale_row row = { i, w, win_add(m->grain, w, 1), d->applied_at, from, to };

		if (l == WIN_THROUGH || l == WIN_WHOLE)
			row.until = d->until;
		if (l != WIN_EXACT ||
		    win_rebuilt(ix, l, row.since, row.until, d->applied_at, &from, &to))
			add_stale(st, &row);
		t = row.until;
	}
}

/* Whether flexible model m's applied row d read rows an upstream of gs
 * applied again after it was built; the part of it that did is stale, for
 * the first such upstream. An island is stale in what read the rows
 * applied again (from their since on for THROUGH, whole for WHOLE). */
static void restated_island(const struct run_gates *gs, const struct state_window *d,
			    struct stale *st)
{
	for (size_t i = 0; i < gs->n; i++) {
		enum win_level l = (enum win_level)gs->g[i].u->level;
		int64_t from, to, lo = d->since, hi = d->until;

		if (gs->g[i].u->source ||
		    !win_rebuilt(&gs->g[i].ix, l, d->since, d->until, d->applied_at, &from, &to))
			continue;
		if (l != WIN_WHOLE) {
			lo = from > lo ? from : lo;
			hi = l == WIN_THROUGH || to > hi ? hi : to;
		}
		if (lo >= hi)
			continue;
		add_stale(st, &(struct stale_row){ i, lo, hi, d->applied_at, from, to });
		return;
	}
}

/* The applied rows of m that are due again, in st. */
static void restated(const struct run_windows *rw, const struct run_gates *gs,
		     const struct model *m, struct stale *st)
{
	const struct model_rows *mr = rows_of(rw, m);

	for (size_t i = 0; i < mr->n; i++) {
		const struct state_window *d = &mr->rows[i];

		if (d->status != WINDOW_APPLIED || d->timeless)
			continue;
		if (m->flex) {
			restated_island(gs, d, st);
			continue;
		}
		for (size_t k = 0; k < gs->n; k++)
			if (!gs->g[k].u->source)
				restated_run(gs, k, m, d, st);
	}
}

/* Counts in again the stale rows that windows of out build again: a fixed
 * model's by its windows out builds, the rows applied again those windows
 * read; a flexible island as one. */
static void count_again(const struct run_gates *gs, const struct model *m,
			const struct win_ask *ask, const struct stale *st,
			const struct win_list *out, struct run_again *again)
{
	struct win_grid g = run_windows_grid(m);

	for (size_t i = 0; i < st->n; i++) {
		const struct stale_row *row = &st->r[i];
		struct run_again_by *by = &again->by[row->gate];
		const struct run_gate *gate = &gs->g[row->gate];
		size_t k = out->n ? win_search(&out->r[0].until, out->n, sizeof(*out->r), row->since,
					       true)
				  : 0;

		for (; k < out->n && out->r[k].since < row->until; k++) {
			int64_t lo = row->since > out->r[k].since ? row->since : out->r[k].since;
			int64_t hi = row->until < out->r[k].until ? row->until : out->r[k].until;
			int64_t from = row->from, to = row->to, windows = 1;

			/* a fixed model's windows read, of the rows applied again,
			 * those their own selections hold */
			if (!m->flex) {
				windows = win_run_count(&g, ask, lo, hi);
				win_rebuilt(&gate->ix, run_level((enum win_level)gate->u->level), lo, hi,
					    row->after, &from, &to);
			}
			by->upstream = gate->u->target->fqn;
			by->from = by->windows && by->from < from ? by->from : from;
			by->to = by->windows && by->to > to ? by->to : to;
			by->windows += windows;
			if (m->flex)
				break;
		}
	}
}

void run_windows_due(const struct run_windows *rw, const struct model *m,
		     const struct win_ask *ask, const struct run_gates *gs, struct win_list *out,
		     struct run_again *again)
{
	struct win_set applied = { 0 };
	struct win_grid g = run_windows_grid(m);
	struct stale st = { 0 };
	size_t n;
	struct win_row *rows = applied_rows(rw, m, false, &n);

	restated(rw, gs, m, &st);
	for (size_t i = 0; i < n; i++) {
		win_set_add(&applied, rows[i].since, rows[i].until);
		for (size_t k = win_set_find(&st.cover, rows[i].since);
		     k < st.cover.n && st.cover.r[k].since < rows[i].until; k++)
			win_set_sub(&applied, st.cover.r[k].since, st.cover.r[k].until);
	}
	win_schedule(&g, ask, &applied, out);
	if (again) {
		again->by = arena_alloc(rw->a, (gs->n + 1) * sizeof(*again->by));
		memset(again->by, 0, (gs->n + 1) * sizeof(*again->by));
		again->n = gs->n;
		count_again(gs, m, ask, &st, out, again);
	}
	win_set_free(&applied);
	win_set_free(&st.cover);
	free(st.r);
	free(rows);
}

/* "2026-11-02 05:00", the seconds left out when they are 0. */
static void minute_text(int64_t t, char out[WIN_TIME_MAX])
{
	size_t n;

	win_time_format(t, out);
	n = strlen(out);
	if (n > 3 && strcmp(out + n - 3, ":00") == 0)
		out[n - 3] = '\0';
}

const char *run_again_text(struct arena *a, const struct run_again *again)
{
	struct buf b = BUF_INIT;
	const char *s;

	for (size_t i = 0; i < again->n; i++) {
		const struct run_again_by *by = &again->by[i];
		char from[WIN_TIME_MAX], to[WIN_TIME_MAX];

		if (!by->windows)
			continue;
		minute_text(by->from, from);
		minute_text(by->to, to);
		/* the end's date when it is the start's goes without saying */
		buf_addf(&b, "%s%lld again: upstream %s re-applied %s..%s after %s", b.len ? ", " : "",
			 (long long)by->windows, by->upstream, from,
			 strncmp(from, to, 11) == 0 ? to + 11 : to, by->windows == 1 ? "it" : "them");
	}
	s = b.len ? arena_strdup(a, b.buf) : NULL;
	buf_release(&b);
	return s;
}

/* A source's gate: its coverage as one island from m's start, so that
 * THROUGH asks what ENCAPSULATE does, that the stream has passed m's
 * window. */
static void open_source_gate(const struct run_windows *rw, const struct model *m,
			     const struct model_upstream *u, struct win_index *ix)
{
	const struct source_cover *c =
		rw->sources ? &rw->sources[source_index(rw, u->source)] : NULL;
	int64_t start = m->temporal ? m->start : 0;
	bool covers = m->temporal && c && c->known && c->until > start;
	struct win_row row = { start, covers ? c->until : start, covers ? c->landed_at : 0,
			       covers ? c->landed_at : 0 };

	/* a timeless model gates a source with exists alone, which reads no
	 * rows */
	win_index_build(ix, m->temporal ? WIN_FLEX : WIN_TIMELESS, start, 0, &row, covers);
}

void run_gates_open(const struct run_windows *rw, const struct model *m, int64_t now,
		    struct run_gates *out)
{
	*out = (struct run_gates){ .m = m, .a = rw->a, .now = now };
	out->g = xcalloc(m->nupstreams + 1, sizeof(*out->g));
	for (size_t i = 0; i < m->nupstreams; i++) {
		const struct model_upstream *u = &m->upstreams[i];
		const struct model *t = u->target;
		struct run_gate *g;
		struct win_row *rows;
		struct win_grid grid;
		size_t n;

		/* ungated, or trusted as it is outside the main environment */
		if (u->level < 0 || (!t && !u->source) || t == m ||
		    (u->deactivate_for_dev && rw->env && *rw->env))
			continue;
		g = &out->g[out->n++];
		g->u = u;
		if (u->source) {
			open_source_gate(rw, m, u, &g->ix);
			continue;
		}
		rows = applied_rows(rw, t, u->level == WIN_EXACT, &n);
		grid = run_windows_grid(t);
		/* what whole asks of a flexible upstream is its grain's closed
		 * windows: its own runs end its coverage at their own time */
		grid.flex = false;
		win_index_build(&g->ix, !t->temporal ? WIN_TIMELESS : t->flex ? WIN_FLEX : WIN_FIXED,
				t->start, t->temporal ? win_grid_closed(&grid, now) : 0, rows, n);
		free(rows);
	}
}

int run_gates_check(const struct run_gates *gs, int64_t since, int64_t until,
		    const char **reason, struct sl_err *err)
{
	struct buf why = BUF_INIT;
	int rc = 0;

	*reason = NULL;
	for (size_t i = 0; i < gs->n && !rc; i++) {
		const struct model_upstream *u = gs->g[i].u;
		struct win_contract c = { .level = (enum win_level)u->level, .fresh = u->fresh_s,
					  .fresh_all = u->fresh_all };
		const char *refused = NULL;
		enum win_verdict v = win_gate(&gs->g[i].ix, &c, since, until, gs->now, &refused);

		const char *name = u->target ? u->target->fqn : u->source_relation;

		if (v == WIN_REFUSED)
			rc = sl_err_set(err, SL_E_INVALID, "contract %s on '%s' can never be met: %s",
					win_level_name(c.level), name, refused);
		else if (v != WIN_MET)
			buf_addf(&why, "%s%s (%s%s)", why.len ? ", " : "", name,
				 win_level_name(c.level), v == WIN_STALE ? ", stale" : "");
	}
	if (!rc && why.len) {
		*reason = arena_strdup(gs->a, why.buf);
		rc = SL_E_BLOCKED;
	}
	buf_release(&why);
	return rc;
}

void run_gates_free(struct run_gates *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		win_index_free(&gs->g[i].ix);
	free(gs->g);
	memset(gs, 0, sizeof(*gs));
}
