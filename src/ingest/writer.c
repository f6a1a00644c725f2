/*
 * The landing writer: a queue, a thread and group commit. Whatever waits
 * when a flush starts goes into one transaction; when that transaction
 * fails, each batch is tried again alone, so one bad batch cannot take the
 * others down with it; unless the warehouse is in doubt, when nothing is
 * tried again and nothing more is answered. A second thread, the answerer,
 * gives each committed flush its answers, so that the writer goes on to
 * the next flush at once.
 */
#include "ingest/writer.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "ingest/landfile.h"
#include "state/deliveries.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pending {
	const struct ingest_batch *b;
	ingest_done_fn done;
	void *ctx;
	int64_t queued_us;
	struct ingest_result res;
	const struct pending *first; /* the earlier batch of this flush with its delivery id */
	struct pending *next;
};

/* A landing table's columns, read once. */
struct table {
	const char *fqn;
	struct arena *a; /* a child of the writer's */
	struct wh_column *cols;
	size_t ncols;
};

/* A flush done, its answers waiting for the answerer. */
struct answers {
	struct ingest_writer *wr;
	struct pending **items;
	size_t n;
	struct live_advance *advs;
	const char **sources;
	size_t nadv;
};

struct ingest_writer {
	struct arena *a; /* the landing tables' arenas hang under it */
	struct wh *w;
	struct ingest_opts opts;
	struct worker wk;
	struct worker_queue *answerer;
	struct pending *head, *tail;
	int64_t rows_waiting;
	/* senders of the last flush, answered or already waiting again, and how
	 * long it took: the next flush waits a little for them */
	size_t nwaiting, expect;
	/* the last flush's batches, and those that waited when it ended */
	size_t last_n, left;
	int64_t flushed_us, flush_took_us;
	/* from the end of the last flush that found nothing waiting to the
	 * first batch after it: how soon answered senders send again */
	int64_t back_us;
	bool none_waited; /* nothing waited when the last flush ended */
	bool rejoin; /* the last flush carried only those that waited for the one before */
	struct table *tables;
	size_t ntables;
	int64_t last_prune_ms;
	bool delivery_clash; /* the last commit failed recording its delivery ids */
	/* the warehouse is in doubt: nothing more is flushed or taken (under
	 * wk.mu), and held are the batches it left unanswered */
	bool suspect;
	struct pending *held;
	/* the connection is lost: submissions are refused until the writer
	 * opened it again (under wk.mu); why, for the health check */
	bool down;
	char down_why[256];
	/* a commit's outcome is unknown for good: answered as in doubt */
	bool in_doubt;
};

/* How often a writer whose connection is lost tries the warehouse. */
#define RECONNECT_POLL_MS 100

#define DELIVERY_KEEP_MS (24LL * 3600 * 1000)
#define SENDER_JITTER_US 500
#define MAX_SENDER_WAIT_US 5000
#define SMALL_FLUSH_ROWS 512

static struct table *table_of(struct ingest_writer *wr, const char *fqn, struct sl_err *err)
{
	const char *name;
	struct table *t;
	char schema[128];

	for (size_t i = 0; i < wr->ntables; i++)
		if (strcmp(wr->tables[i].fqn, fqn) == 0)
			return &wr->tables[i];
	if (!wh_split_qualified(fqn, schema, sizeof(schema), &name)) {
		sl_err_set(err, SL_E_USAGE, "invalid landing table '%s'", fqn);
		return NULL;
	}
	wr->tables = xreallocarray(wr->tables, wr->ntables + 1, sizeof(*wr->tables));
	t = &wr->tables[wr->ntables];
	*t = (struct table){ .a = arena_new(wr->a) };
	t->fqn = arena_strdup(t->a, fqn);
	if (wh_table_columns(wr->w, t->a, schema, name, &t->cols, &t->ncols, err) || !t->ncols) {
		if (!t->ncols)
			sl_err_set(err, SL_E_NOTFOUND, "no landing table '%s'", fqn);
		arena_free(t->a);
		return NULL;
	}
	wr->ntables++;
	return t;
}

/* For each table column, where its value comes from: a column of the
 * batch (>= 0), the sequence (-1), the landing time (-2) or nothing (-3). */
static int map_columns(const struct table *t, const struct ingest_batch *b, int *from,
		       struct sl_err *err)
{
	for (size_t j = 0; j < t->ncols; j++) {
		const char *name = t->cols[j].name;

		from[j] = strcmp(name, "_sluice_seq") == 0	   ? -1
			  : strcmp(name, "_sluice_landed_at") == 0 ? -2
								   : -3;
		for (size_t k = 0; k < b->ncols; k++)
			if (strcmp(b->names[k], name) == 0)
				from[j] = (int)k;
	}
	for (size_t k = 0; k < b->ncols; k++) {
		bool found = false;

		for (size_t j = 0; j < t->ncols && !found; j++)
			found = strcmp(b->names[k], t->cols[j].name) == 0;
		if (!found)
			return sl_err_set(err, SL_E_CONFIG,
					  "landing table %s has no column '%s'\n"
					  "  hint: add it (ALTER TABLE %s ADD COLUMN ...) or drop it from "
					  "the source's columns in sluice.yml",
					  t->fqn, b->names[k], t->fqn);
	}
	return 0;
}

/* Which batches carry a delivery id that an earlier batch of this flush
 * carries and, with lookup, which carry one that already landed (their
 * answer is the first one's). The lookup scans _sluice.deliveries, so it
 * only runs when a flush met a landed id. A file is always looked up (by
 * key). */
static int find_duplicates(struct ingest_writer *wr, struct pending **items, size_t n,
			   bool lookup, struct sl_err *err)
{
	struct state_delivery *d;
	size_t nd = 0;
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++)
		if (items[i]->b->file)
			rc = ingest_file_find(wr->w, items[i]->b->source, items[i]->b->file,
					      &items[i]->res, err);
	for (size_t i = 0; !rc && i < n; i++) {
		const struct ingest_batch *b = items[i]->b;

		items[i]->first = NULL;
		if (!b->delivery)
			continue;
		for (size_t k = 0; k < i && !items[i]->first; k++)
			if (items[k]->b->delivery && strcmp(items[k]->b->delivery, b->delivery) == 0 &&
			    strcmp(items[k]->b->source, b->source) == 0)
				items[i]->first = items[k];
	}
	if (rc || !lookup)
		return rc;
	d = xcalloc(n + 1, sizeof(*d));
	for (size_t i = 0; i < n; i++)
		if (items[i]->b->delivery && !items[i]->first)
			d[nd++] = (struct state_delivery){ .source = items[i]->b->source,
							   .id = items[i]->b->delivery };
	rc = state_deliveries_find(wr->w, d, nd, err);
	for (size_t k = 0; !rc && k < nd; k++)
		for (size_t i = 0; d[k].landed && i < n; i++) {
			const struct ingest_batch *b = items[i]->b;

			if (b->delivery && strcmp(b->source, d[k].source) == 0 &&
			    strcmp(b->delivery, d[k].id) == 0) {
				items[i]->res.duplicate = true;
				items[i]->res.seq = d[k].seq;
				items[i]->res.rows = d[k].rows;
			}
		}
	free(d);
	return rc;
}

/* Appends one batch; a value the table refuses marks it bad input. */
static int append_batch(struct wh_appender *ap, const struct table *t, struct pending *p,
			const char *seq, const char *now, struct sl_err *err)
{
	const struct ingest_batch *b = p->b;
	const char **values = xcalloc(t->ncols + 1, sizeof(char *));
	int *from = xcalloc(t->ncols + 1, sizeof(int));
	int rc;

	rc = map_columns(t, b, from, err);
	for (size_t i = 0; !rc && i < b->nrows; i++) {
		for (size_t j = 0; j < t->ncols; j++)
			values[j] = from[j] >= 0   ? b->cells[i * b->ncols + (size_t)from[j]]
				    : from[j] == -1 ? seq
				    : from[j] == -2 ? now
						    : NULL;
		rc = wh_appender_row(ap, values, t->ncols, err);
		if (rc) {
			p->res.bad_input = true;
			sl_err_context(err, "row %zu", i + 1);
		}
	}
	free(values);
	free(from);
	return rc;
}

/* A batch without rows lands nothing: no sequence, no delivery id. A
 * file lands even without rows: its ledger row. */
static bool lands(const struct pending *p)
{
	return !p->first && !p->res.duplicate && (p->b->nrows || p->b->file);
}

/* The delivery ids this flush lands for source. The primary key refuses
 * an id that landed before: the flush is then tried again with the lookup
 * (delivery_clash). */
static int record_deliveries(struct ingest_writer *wr, struct pending **items, size_t n,
			     const char *source, const char *now, struct sl_err *err)
{
	struct state_delivery *d = xcalloc(n + 1, sizeof(*d));
	size_t nd = 0;
	int rc;

	for (size_t i = 0; i < n; i++) {
		const struct pending *p = items[i];

		if (p->b->delivery && lands(p) && strcmp(p->b->source, source) == 0)
			d[nd++] = (struct state_delivery){ .source = source,
							   .id = p->b->delivery,
							   .seq = p->res.seq,
							   .rows = p->res.rows };
	}
	rc = state_deliveries_record(wr->w, d, nd, now, &wr->delivery_clash, err);
	free(d);
	return rc;
}

/* The appender on source, opened at its first use in a flush (a flush of
 * files needs none); table_of took the name apart already. */
static int appender_of(struct wh *w, const char *source, struct wh_appender **ap,
		       struct sl_err *err)
{
	const char *name;
	char schema[128];

	if (*ap)
		return 0;
	wh_split_qualified(source, schema, sizeof(schema), &name);
	return wh_appender_open(w, schema, name, ap, err);
}

/* Everything of one landing table in this flush: one sequence, one
 * appender, one advance. */
static int land_source(struct ingest_writer *wr, struct pending **items, size_t n, size_t at,
		       struct live_advance *adv, struct sl_err *err)
{
	const char *source = items[at]->b->source;
	struct table *t = table_of(wr, source, err);
	struct wh_appender *ap = NULL;
	char seq[32], now[32];
	const char *cursor = NULL;
	int64_t now_ms = units_now_ms();
	bool any = false;
	int rc;

	if (!t)
		return err ? err->code : SL_E_NOTFOUND;
	*adv = (struct live_advance){ 0 };
	/* a flush of copies and retries alone lands nothing and takes no
	 * sequence */
	for (size_t i = at; i < n && !any; i++)
		any = strcmp(items[i]->b->source, source) == 0 && lands(items[i]);
	if (!any)
		return 0;
	rc = live_next_seq(wr->w, &adv->seq, err);
	snprintf(seq, sizeof(seq), "%lld", (long long)adv->seq);
	units_format_ts(now_ms, now, sizeof(now));
	for (size_t i = at; !rc && i < n; i++) {
		struct pending *p = items[i];

		if (strcmp(p->b->source, source) != 0 || !lands(p))
			continue;
		/* the cursor its rows were read after: the one an earlier batch
		 * of this flush stores, else the one stored */
		if (p->b->cursor_from)
			rc = live_cursor_unmoved(wr->w, wr->a, source, p->b->cursor_from, cursor,
						 err);
		if (rc)
			break;
		p->res.rows = (int64_t)p->b->nrows;
		rc = p->b->file ? ingest_file_land(wr->w, source, p->b->file, adv->seq, now,
						   &p->res.rows, err)
				: appender_of(wr->w, source, &ap, err);
		if (!rc && !p->b->file)
			rc = append_batch(ap, t, p, seq, now, err);
		p->res.seq = adv->seq;
		adv->rows += p->res.rows;
		if (p->b->cursor && p->b->nrows)
			cursor = p->b->cursor; /* the last submitted is the newest */
	}
	if (!rc && ap)
		rc = wh_appender_flush(ap, err);
	/* a warehouse that converts values only as the rows are sent refuses
	 * them here; alone, a batch that fails so is the sender's */
	for (size_t i = at; rc == SL_E_INVALID && i < n; i++)
		if (strcmp(items[i]->b->source, source) == 0 && lands(items[i]))
			items[i]->res.bad_input = true;
	if (ap)
		wh_appender_close(ap);
	if (!rc && adv->rows)
		rc = live_advance_record(wr->w, source, adv, now_ms, err);
	if (!rc && cursor)
		rc = live_cursor_set(wr->w, source, cursor, err);
	if (!rc)
		rc = record_deliveries(wr, items, n, source, now, err);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The advance lock of every landing table the items land in, in name
 * order: two processes whose flushes share tables then never wait for
 * each other in a circle. Only a shared warehouse has locks to take. */
static int lock_sources(struct ingest_writer *wr, struct pending **items, size_t n,
			struct sl_err *err)
{
	const char **names;
	size_t k = 0;
	int rc = 0;

	if (!wh_shared(wr->w))
		return 0;
	names = xreallocarray(NULL, n + 1, sizeof(*names));
	for (size_t i = 0; i < n; i++)
		if (lands(items[i]))
			names[k++] = items[i]->b->source;
	qsort(names, k, sizeof(*names), by_name);
	for (size_t i = 0; !rc && i < k; i++)
		if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
			rc = live_advance_lock(wr->w, names[i], err);
	free(names);
	return rc;
}

static bool stopping(struct ingest_writer *wr)
{
	bool stop;

	pthread_mutex_lock(&wr->wk.mu);
	stop = wr->wk.stop;
	pthread_mutex_unlock(&wr->wk.mu);
	return stop;
}

/* Under wk.mu or on the writer's thread before it takes batches again. */
static void set_down(struct ingest_writer *wr, bool down, const struct sl_err *err)
{
	pthread_mutex_lock(&wr->wk.mu);
	wr->down = down;
	if (down)
		snprintf(wr->down_why, sizeof(wr->down_why), "%.*s",
			 (int)sizeof(wr->down_why) - 1, err->msg);
	pthread_mutex_unlock(&wr->wk.mu);
}

/* Whether the landing of source at seq is in the warehouse: asked under
 * its advance lock, which the lost session's transaction held until it
 * ended, so that a commit still under way on the server is waited for. */
static int landed_at(struct ingest_writer *wr, const char *source, int64_t seq, bool *landed,
		     struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	const char *name;
	char schema[128];
	int64_t n = 0;
	int rc = wh_begin(wr->w, err);

	if (!rc && wh_shared(wr->w))
		rc = live_advance_lock(wr->w, source, err);
	wh_split_qualified(source, schema, sizeof(schema), &name);
	buf_adds(&sql, "SELECT count(*) FROM ");
	wh_sql_qualified(&sql, schema, name);
	buf_addf(&sql, " WHERE _sluice_seq = %lld", (long long)seq);
	if (!rc)
		rc = wh_query_int(wr->w, sql.buf, &n, err);
	wh_rollback(wr->w);
	buf_release(&sql);
	*landed = n > 0;
	return rc;
}

/* A COMMIT met the loss of the connection: whether it committed is told
 * by the warehouse, asked on a new session as soon as one opens (until
 * the writer stops: then it stays unknown, SL_E_CONN). source and seq:
 * a landing of that commit. */
static int commit_outcome(struct ingest_writer *wr, const char *source, int64_t seq,
			  bool *landed, struct sl_err *err)
{
	int rc;

	for (;;) {
		wh_rollback(wr->w);
		rc = wh_reconnect(wr->w, err);
		if (!rc)
			rc = landed_at(wr, source, seq, landed, err);
		if (rc != SL_E_CONN || stopping(wr))
			return rc;
		set_down(wr, true, err);
		pthread_mutex_lock(&wr->wk.mu);
		worker_wait_until(&wr->wk, units_mono_ms() + RECONNECT_POLL_MS);
		pthread_mutex_unlock(&wr->wk.mu);
	}
}

/* One transaction for items; advs gets one advance per landing table.
 * Without lookup, delivery ids that landed before are left to the primary
 * key to find. A commit that met the loss of the connection counts as
 * made when the warehouse has its rows: a batch is then answered as
 * landed, and is never landed twice. */
static int commit(struct ingest_writer *wr, struct pending **items, size_t n, bool lookup,
		  struct live_advance *advs, const char **sources, size_t *nadv, struct sl_err *err)
{
	int rc = wh_begin(wr->w, err);

	*nadv = 0;
	wr->delivery_clash = false;
	if (!rc)
		rc = lock_sources(wr, items, n, err);
	if (!rc)
		rc = find_duplicates(wr, items, n, lookup, err);
	for (size_t i = 0; !rc && i < n; i++) {
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = strcmp(items[k]->b->source, items[i]->b->source) == 0;
		if (seen)
			continue;
		rc = land_source(wr, items, n, i, &advs[*nadv], err);
		sources[(*nadv)++] = items[i]->b->source;
	}
	bool at_commit = !rc;

	if (!rc)
		rc = wh_commit(wr->w, err);
	/* lost before the COMMIT, the transaction died with its session */
	if (rc == SL_E_CONN && at_commit) {
		struct sl_err asked = SL_ERR_INIT;
		size_t k = 0;
		bool landed = false;

		while (k < *nadv && !advs[k].rows)
			k++;
		/* a flush that landed no rows changed nothing either way */
		if (k < *nadv && wh_lost(wr->w)) {
			int asked_rc = commit_outcome(wr, sources[k], advs[k].seq, &landed, &asked);

			if (!asked_rc && landed)
				return 0;
			/* stopped before the warehouse could be asked: the
			 * outcome stays unknown to this process */
			if (asked_rc == SL_E_CONN) {
				wr->in_doubt = true;
				sl_err_set(err, SL_E_CONN,
					   "the connection to the warehouse was lost during a commit, and "
					   "the writer stopped before it could ask whether it committed: %s",
					   asked.msg);
			}
		}
	}
	if (rc) {
		wh_rollback(wr->w);
		*nadv = 0;
	}
	return rc;
}

/* A flush in one transaction: first on the assumption that no delivery id
 * landed before (the common case, which needs no lookup), and when the
 * primary key says otherwise, again with the lookup. */
static int commit_flush(struct ingest_writer *wr, struct pending **items, size_t n,
			struct live_advance *advs, const char **sources, size_t *nadv,
			struct sl_err *err)
{
	int rc = commit(wr, items, n, false, advs, sources, nadv, err);

	if (rc && rc != SL_E_CONN && wr->delivery_clash && !wh_suspect(wr->w, NULL)) {
		sl_err_clear(err);
		for (size_t i = 0; i < n; i++)
			items[i]->res = (struct ingest_result){ 0 };
		rc = commit(wr, items, n, true, advs, sources, nadv, err);
	}
	return rc;
}

static void fail(struct pending *p, const struct sl_err *err)
{
	p->res.code = err->code ? err->code : SL_E_INTERNAL;
	p->res.seq = p->res.rows = 0;
	snprintf(p->res.error, sizeof(p->res.error), "%.*s", (int)sizeof(p->res.error) - 1,
		 err->msg);
}

/* On the answerer's thread. */
static void answer(struct ingest_writer *wr, struct pending **items, size_t n,
		   const struct live_advance *advs, const char **sources, size_t nadv)
{
	/* the batches' memory is their submitters' again once answered, and
	 * copies take their first's answer before any is freed */
	for (size_t k = 0; wr->opts.advanced && k < nadv; k++)
		if (advs[k].rows)
			wr->opts.advanced(wr->opts.ctx, sources[k], &advs[k]);
	for (size_t i = 0; i < n; i++) {
		struct pending *p = items[i];

		if (p->first) {
			p->res.duplicate = true;
			p->res.seq = p->first->res.seq;
			p->res.rows = p->first->res.rows;
		}
	}
	for (size_t i = 0; i < n; i++) {
		items[i]->done(items[i]->ctx, &items[i]->res);
		free(items[i]);
	}
}

/* On the answerer's thread. */
static void answer_run(void *arg)
{
	struct answers *a = arg;

	answer(a->wr, a->items, a->n, a->advs, a->sources, a->nadv);
	free(a->items);
	free(a->advs);
	free(a->sources);
	free(a);
}

/* Hands a flush's answers to the answerer; copies what flush reuses. */
static void finish(struct ingest_writer *wr, struct pending **items, size_t n,
		   const struct live_advance *advs, const char **sources, size_t nadv)
{
	struct answers *a = xcalloc(1, sizeof(*a));

	a->wr = wr;
	a->items = xreallocarray(NULL, n, sizeof(*items));
	a->advs = xreallocarray(NULL, nadv ? nadv : 1, sizeof(*advs));
	a->sources = xreallocarray(NULL, nadv ? nadv : 1, sizeof(*sources));
	memcpy(a->items, items, n * sizeof(*items));
	if (nadv) {
		memcpy(a->advs, advs, nadv * sizeof(*advs));
		memcpy(a->sources, sources, nadv * sizeof(*sources));
	}
	a->n = n;
	a->nadv = nadv;
	worker_queue_push(wr->answerer, answer_run, a);
}

/* The warehouse is in doubt: items (the rest of a flush) are kept
 * unanswered, since an answer either way may be a lie, and the writer
 * stops. */
static void give_up(struct ingest_writer *wr, struct pending **items, size_t n,
		    const struct sl_err *err)
{
	pthread_mutex_lock(&wr->wk.mu);
	for (size_t i = 0; i < n; i++) {
		items[i]->next = wr->held;
		wr->held = items[i];
	}
	wr->suspect = true;
	pthread_mutex_unlock(&wr->wk.mu);
	if (wr->opts.suspect)
		wr->opts.suspect(wr->opts.ctx, err);
}

static void flush(struct ingest_writer *wr, struct pending *list)
{
	size_t n = 0, nadv;
	struct pending **items;
	struct live_advance *advs;
	const char **sources;
	struct sl_err err = SL_ERR_INIT;

	for (struct pending *p = list; p; p = p->next)
		n++;
	items = xcalloc(n, sizeof(*items));
	advs = xcalloc(n, sizeof(*advs));
	sources = xcalloc(n, sizeof(*sources));
	n = 0;
	for (struct pending *p = list; p; p = p->next)
		items[n++] = p;
	if (commit_flush(wr, items, n, advs, sources, &nadv, &err) == 0) {
		finish(wr, items, n, advs, sources, nadv);
	} else if (wh_suspect(wr->w, &err) || wr->in_doubt) {
		give_up(wr, items, n, &err);
	} else if (err.code == SL_E_CONN) {
		/* nothing of it committed: each sender is told to retry, and
		 * nothing more is taken until the writer is connected again */
		set_down(wr, true, &err);
		for (size_t i = 0; i < n; i++)
			fail(items[i], &err);
		finish(wr, items, n, advs, sources, 0);
	} else if (n == 1) {
		fail(items[0], &err);
		finish(wr, items, 1, advs, sources, 0);
	} else {
		/* alone, each batch lands or fails on its own account */
		for (size_t i = 0; i < n; i++) {
			struct sl_err one = SL_ERR_INIT;
			int rc;

			items[i]->res = (struct ingest_result){ 0 };
			rc = commit(wr, &items[i], 1, true, advs, sources, &nadv, &one);
			if (rc && (wh_suspect(wr->w, &one) || wr->in_doubt)) {
				give_up(wr, &items[i], n - i, &one);
				break;
			}
			if (rc)
				fail(items[i], &one);
			finish(wr, &items[i], 1, advs, sources, nadv);
		}
	}
	free(items);
	free(advs);
	free(sources);
}

/* Deliveries are remembered for a day; once an hour the older ones go. */
static void prune_deliveries(struct ingest_writer *wr)
{
	if (units_mono_ms() - wr->last_prune_ms < 3600 * 1000)
		return;
	wr->last_prune_ms = units_mono_ms();
	state_deliveries_prune(wr->w, units_now_ms() - DELIVERY_KEEP_MS, NULL);
}

/*
 * Under wk.mu, with a batch waiting. Each sender waits for its answer
 * before it sends again, so a commit taken as soon as one batch waits
 * splits the senders into two groups that alternate, each commit carrying
 * half of them. Waiting for as many batches as the last flush carried and
 * found waiting, for at most half that flush's time (and a little for the
 * senders' scheduling), lets them meet again: twice the rows a commit, and
 * no answer later than by about half a commit. When
 * the last flush carried just the batches that waited for the one before,
 * the groups have fallen apart and come back a commit apart: the wait is
 * then for that one's senders too, for a commit's time and a little. The
 * wait counts from the end of the last flush or, when none had arrived by
 * then, from the first arrival: after a flush that carried every sender,
 * the first answer takes a while to come back (over 1 ms for 64
 * connections), and a budget spent before it arrives would commit the
 * first few alone, at a whole commit's cost. Batches that arrived during
 * the flush do not wait when the senders it answered took longer than the
 * budget to come back last time (they think between requests): they would
 * wait out the budget and come back later still, the groups never meeting.
 * A lone sender is never held:
 * its one batch is all that is expected. Only small flushes wait: once
 * SMALL_FLUSH_ROWS rows wait, a commit's fixed cost is already shared.
 */
static void wait_for_senders(struct ingest_writer *wr)
{
	/* groups that fell apart come back a commit apart (the second's answer
	 * waited for the first's commit): less than a commit would keep them
	 * apart. Senders answered together come back apart by their threads'
	 * scheduling, which a commit of a few rows may not outlast. */
	int64_t budget = (wr->rejoin ? wr->flush_took_us : wr->flush_took_us / 2) + SENDER_JITTER_US;
	int64_t from, until;

	if (budget > MAX_SENDER_WAIT_US)
		budget = MAX_SENDER_WAIT_US;
	from = wr->head->queued_us > wr->flushed_us ? wr->head->queued_us : wr->flushed_us;
	until = from + budget;
	/* batches that came during the flush wait for no one who cannot be
	 * back in time: they would only fall further behind */
	if (from == wr->flushed_us && from + wr->back_us > until)
		return;
	while (!wr->wk.stop && wr->nwaiting < wr->expect &&
	       wr->rows_waiting < SMALL_FLUSH_ROWS && units_mono_us() < until)
		worker_wait_until_us(&wr->wk, until);
}

static void *run(void *arg)
{
	struct ingest_writer *wr = arg;

	pthread_mutex_lock(&wr->wk.mu);
	for (;;) {
		struct pending *list;
		struct sl_err err = SL_ERR_INIT;
		size_t n;
		int64_t t0, linger;

		while (wr->down && !wr->wk.stop) {
			pthread_mutex_unlock(&wr->wk.mu);
			/* the health check says what the last attempt met */
			set_down(wr, wh_reconnect(wr->w, &err) != 0, &err);
			pthread_mutex_lock(&wr->wk.mu);
			if (wr->down)
				worker_wait_until(&wr->wk, units_mono_ms() + RECONNECT_POLL_MS);
		}
		while ((!wr->head || wr->suspect) && !wr->wk.stop)
			worker_wait(&wr->wk);
		if (!wr->head || wr->suspect)
			break;
		if (wr->none_waited)
			wr->back_us = wr->head->queued_us - wr->flushed_us;
		wr->none_waited = false;
		/* company: more batches, until the oldest has waited long enough */
		linger = wr->head->queued_us + wr->opts.flush_interval_ms * 1000;
		while (!wr->wk.stop && wr->rows_waiting < wr->opts.flush_rows &&
		       units_mono_us() < linger)
			worker_wait_until_us(&wr->wk, linger);
		wait_for_senders(wr);
		list = wr->head;
		n = wr->nwaiting;
		wr->head = wr->tail = NULL;
		wr->rows_waiting = 0;
		wr->nwaiting = 0;
		pthread_mutex_unlock(&wr->wk.mu);
		t0 = units_mono_us();
		flush(wr, list);
		prune_deliveries(wr);
		if (!wr->suspect && wh_suspect(wr->w, &err))
			give_up(wr, NULL, 0, &err);
		pthread_mutex_lock(&wr->wk.mu);
		wr->flushed_us = units_mono_us();
		wr->flush_took_us = wr->flushed_us - t0;
		/* a flush of just the batches that waited for the last one is
		 * the second of two groups: the first comes back too */
		wr->rejoin = wr->left && n == wr->left;
		wr->expect = n + wr->nwaiting + (wr->rejoin ? wr->last_n : 0);
		wr->last_n = n;
		wr->left = wr->nwaiting;
		wr->none_waited = !wr->nwaiting;
	}
	pthread_mutex_unlock(&wr->wk.mu);
	return NULL;
}

int ingest_writer_start(struct wh *w, const struct ingest_opts *opts, struct ingest_writer **out,
			struct sl_err *err)
{
	struct ingest_writer *wr;
	int rc = state_ensure(w, err);

	if (rc)
		return rc;
	wr = xcalloc(1, sizeof(*wr));
	wr->a = arena_new(opts->arena);
	wr->w = w;
	wr->opts = *opts;
	wr->last_prune_ms = units_mono_ms() - 3600 * 1000;
	if (worker_queue_start(&wr->answerer, "landing answers", err)) {
		arena_free(wr->a);
		free(wr);
		return err ? err->code : SL_E_INTERNAL;
	}
	if (worker_start(&wr->wk, run, wr, "landing writer", err)) {
		worker_queue_stop(wr->answerer);
		arena_free(wr->a);
		free(wr);
		return err ? err->code : SL_E_INTERNAL;
	}
	*out = wr;
	return 0;
}

int ingest_submit(struct ingest_writer *wr, const struct ingest_batch *b, ingest_done_fn done,
		  void *ctx, struct sl_err *err)
{
	struct pending *p;

	pthread_mutex_lock(&wr->wk.mu);
	if (wr->down && !wr->wk.stop && !wr->suspect) {
		int rc = sl_err_set(err, SL_E_CONN,
				    "the warehouse is unreachable (%s); nothing lands until the "
				    "landing writer is connected again, retry shortly",
				    wr->down_why);

		pthread_mutex_unlock(&wr->wk.mu);
		return rc;
	}
	if (wr->wk.stop || wr->suspect ||
	    (wr->head && wr->rows_waiting + (int64_t)b->nrows > wr->opts.max_rows)) {
		const char *why = wr->suspect ? "the warehouse failed a write; nothing lands "
						"until it has been opened again"
				  : wr->wk.stop ? "the server is stopping"
						: "too many rows are waiting to land; retry shortly";

		pthread_mutex_unlock(&wr->wk.mu);
		return sl_err_set(err, SL_E_BUSY, "%s", why);
	}
	p = xmalloc(sizeof(*p));
	*p = (struct pending){ .b = b, .done = done, .ctx = ctx, .queued_us = units_mono_us() };
	if (wr->tail)
		wr->tail->next = p;
	else
		wr->head = p;
	wr->tail = p;
	wr->rows_waiting += (int64_t)b->nrows;
	wr->nwaiting++;
	pthread_cond_signal(&wr->wk.cv);
	pthread_mutex_unlock(&wr->wk.mu);
	return 0;
}

bool ingest_writer_down(struct ingest_writer *wr, char *why, size_t n)
{
	bool down;

	pthread_mutex_lock(&wr->wk.mu);
	down = wr->down;
	if (down && why)
		snprintf(why, n, "%s", wr->down_why);
	pthread_mutex_unlock(&wr->wk.mu);
	return down;
}

static void drop(struct pending *p)
{
	while (p) {
		struct pending *next = p->next;

		free(p);
		p = next;
	}
}

void ingest_writer_stop(struct ingest_writer *wr)
{
	/* the writer lands what is queued, then the answerer answers it;
	 * when the warehouse is in doubt, what is left stays unanswered */
	worker_stop(&wr->wk);
	worker_queue_stop(wr->answerer);
	drop(wr->held);
	drop(wr->head);
	free(wr->tables);
	arena_free(wr->a);
	wh_close(wr->w);
	worker_destroy(&wr->wk);
	free(wr);
}
