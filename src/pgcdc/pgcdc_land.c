/*
 * The postgres_cdc consumer's warehouse side: a decoded source transaction
 * into its landing tables, with its sequence, its advances and the slot's
 * LSNs, in one transaction. Never speaks to the source database, and never
 * stores an LSN apart from the rows it accounts for.
 */
#include "pgcdc/pgcdc.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "ingest/jsontext.h"
#include "live/advance.h"
#include "live/gate.h"
#include "pgcdc/pgcdc_pg.h"
#include "pgcdc/pgoutput.h"
#include "state/cdc_slots.h"
#include "warehouse/wh.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appended payload bytes past which a batch's appenders are flushed: a
 * PostgreSQL appender holds its rows until then. */
#define FLUSH_BYTES (8u << 20)

/* What a landing table's column holds, found by its name once a batch. */
enum role { R_NULL, R_OP, R_LSN, R_XID, R_RECEIVED, R_PAYLOAD, R_SEQ, R_POS };

/* One landing table's appender in a batch: open from its first row to
 * the commit. */
struct pgcdc_sink {
	const char *landing;
	struct wh_appender *ap;
	unsigned char *roles;
	const char **values;
	size_t ncols;
};

int pgcdc_split_landing(const char *landing, char *schema, size_t n, const char **table,
			struct sl_err *err)
{
	return wh_split_qualified(landing, schema, n, table)
		       ? 0
		       : sl_err_set(err, SL_E_USAGE, "invalid landing table '%s'", landing);
}

static unsigned char role_of(const char *name)
{
	static const char *const names[] = { [R_OP] = "op",
					     [R_LSN] = "lsn",
					     [R_XID] = "xid",
					     [R_RECEIVED] = "received_at",
					     [R_PAYLOAD] = "payload",
					     [R_SEQ] = "_sluice_seq",
					     [R_POS] = "_sluice_pos" };

	for (unsigned char i = R_OP; i <= R_POS; i++)
		if (!strcmp(name, names[i]))
			return i;
	return R_NULL;
}

/* Table ti's sink, opened on its first row: each column by its name,
 * typed columns of the source (none for postgres_cdc) NULL. */
static int open_sink(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b, size_t ti,
		     struct pgcdc_sink **out, struct sl_err *err)
{
	struct pgcdc_sink *k;
	const char *landing, *table;
	struct wh_column *cols;
	char schema[128];
	int rc;

	*out = NULL;
	if (ti >= b->nsinks)
		return sl_err_set(err, SL_E_INTERNAL, "a row of table %zu in a batch of %zu tables", ti,
				  b->nsinks);
	k = *out = &b->sinks[ti];
	landing = c->tables[ti].landing;
	if (k->ap)
		return 0;
	rc = pgcdc_split_landing(landing, schema, sizeof(schema), &table, err);
	if (!rc && b->cols && b->cols[ti].n) {
		cols = b->cols[ti].cols;
		k->ncols = b->cols[ti].n;
	} else if (!rc) {
		rc = wh_table_columns(w, b->cols ? b->cols_a : b->a, schema, table, &cols, &k->ncols,
				      err);
		if (!rc && b->cols)
			b->cols[ti] = (struct pgcdc_columns){ .cols = cols, .n = k->ncols };
	}
	if (!rc && !k->ncols)
		rc = sl_err_set(err, SL_E_NOTFOUND, "no landing table '%s'", landing);
	if (!rc)
		rc = wh_appender_open(w, schema, table, &k->ap, err);
	if (rc)
		return rc;
	k->landing = landing;
	k->roles = arena_alloc(b->a, k->ncols);
	k->values = arena_alloc(b->a, k->ncols * sizeof(*k->values));
	for (size_t j = 0; j < k->ncols; j++)
		k->roles[j] = role_of(cols[j].name);
	return 0;
}

static void close_sinks(struct pgcdc_batch *b)
{
	for (size_t i = 0; i < b->nsinks; i++) {
		if (b->sinks[i].ap)
			wh_appender_close(b->sinks[i].ap);
		b->sinks[i].ap = NULL;
	}
}

/* Every row the slot's landing tables hold, deleted: a snapshot is their
 * whole history from now on. */
static int clear_tables(struct wh *w, const struct pgcdc_cfg *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < c->ntables; i++) {
		const char *table;
		char schema[128];

		rc = pgcdc_split_landing(c->tables[i].landing, schema, sizeof(schema), &table, err);
		if (rc)
			break;
		buf_reset(&sql);
		buf_adds(&sql, "DELETE FROM ");
		wh_sql_qualified(&sql, schema, table);
		rc = wh_exec(w, sql.buf, err);
		if (rc)
			sl_err_context(err, "replacing the rows of %s", c->tables[i].landing);
	}
	buf_release(&sql);
	return rc;
}

static void stamp_txn(struct pgcdc_batch *b, uint64_t lsn, uint32_t xid, int64_t now_ms)
{
	b->lsn = lsn;
	b->xid = xid;
	b->now_ms = now_ms;
	units_format_ts(now_ms, b->now, sizeof(b->now));
}

int pgcdc_batch_begin(struct wh *w, struct arena *a, const struct pgcdc_cfg *c, uint64_t lsn,
		      uint32_t xid, int64_t now_ms, bool snapshot, struct pgcdc_batch *b,
		      struct sl_err *err)
{
	size_t n = c->ntables ? c->ntables : 1;
	int rc = wh_begin(w, err);

	*b = (struct pgcdc_batch){ .snapshot = snapshot, .a = a };
	stamp_txn(b, lsn, xid, now_ms);
	b->rows = arena_alloc(a, n * sizeof(*b->rows));
	memset(b->rows, 0, n * sizeof(*b->rows));
	b->sinks = arena_alloc(a, n * sizeof(*b->sinks));
	memset(b->sinks, 0, n * sizeof(*b->sinks));
	b->nsinks = c->ntables;
	/* in name order: two writers sharing tables never wait in a circle */
	for (size_t i = 0; !rc && wh_shared(w) && i < c->ntables; i++)
		rc = live_advance_lock(w, c->tables[i].landing, err);
	if (!rc)
		rc = live_next_seq(w, &b->seq, err);
	if (!rc && snapshot)
		rc = clear_tables(w, c, err);
	snprintf(b->seqtext, sizeof(b->seqtext), "%lld", (long long)b->seq);
	if (rc)
		wh_rollback(w);
	return rc;
}

void pgcdc_batch_abandon(struct wh *w, struct pgcdc_batch *b)
{
	close_sinks(b);
	wh_rollback(w);
}

static int append_row(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b,
		      const struct pgcdc_row *row, const char *lsn, const char *xid,
		      struct sl_err *err)
{
	char pos[32], op[2] = { row->op, 0 };
	struct pgcdc_sink *k;
	int rc = open_sink(w, c, b, row->table, &k, err);

	if (rc)
		return rc;
	snprintf(pos, sizeof(pos), "%" PRId64, ++b->pos);
	for (size_t j = 0; j < k->ncols; j++) {
		switch (k->roles[j]) {
		case R_OP:
			k->values[j] = op;
			break;
		case R_LSN:
			k->values[j] = lsn;
			break;
		case R_XID:
			/* 0 (InvalidTransactionId): a snapshot's row, of no transaction */
			k->values[j] = b->xid ? xid : NULL;
			break;
		case R_RECEIVED:
			k->values[j] = b->now;
			break;
		case R_PAYLOAD:
			k->values[j] = row->payload;
			break;
		case R_SEQ:
			k->values[j] = b->seqtext;
			break;
		case R_POS:
			k->values[j] = pos;
			break;
		default:
			k->values[j] = NULL;
		}
	}
	rc = wh_appender_row(k->ap, k->values, k->ncols, err);
	b->rows[row->table]++;
	b->unflushed += strlen(row->payload);
	return rc;
}

int pgcdc_batch_add(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b,
		    const struct pgcdc_row *rows, size_t nrows, struct sl_err *err)
{
	char lsn[32], xid[16];
	int rc = 0;

	snprintf(lsn, sizeof(lsn), "%" PRIu64, b->lsn);
	snprintf(xid, sizeof(xid), "%" PRIu32, b->xid);
	for (size_t i = 0; !rc && i < nrows; i++) {
		rc = append_row(w, c, b, &rows[i], lsn, xid, err);
		if (rc)
			sl_err_context(err, "landing %s", c->tables[rows[i].table].landing);
	}
	if (!rc && b->unflushed >= FLUSH_BYTES)
		return pgcdc_batch_flush(w, b, err);
	if (rc)
		pgcdc_batch_abandon(w, b);
	return rc;
}

static int flush_sinks(struct pgcdc_batch *b, struct sl_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < b->nsinks; i++)
		if (b->sinks[i].ap) {
			rc = wh_appender_flush(b->sinks[i].ap, err);
			if (rc)
				sl_err_context(err, "landing %s", b->sinks[i].landing);
		}
	b->unflushed = 0;
	return rc;
}

int pgcdc_batch_flush(struct wh *w, struct pgcdc_batch *b, struct sl_err *err)
{
	int rc = flush_sinks(b, err);

	if (rc)
		pgcdc_batch_abandon(w, b);
	return rc;
}

void pgcdc_batch_next(struct pgcdc_batch *b, uint64_t lsn, uint32_t xid, int64_t now_ms)
{
	stamp_txn(b, lsn, xid, now_ms);
}

/* What the commit writes besides the rows: each landing table's advance
 * (a snapshot's says each table was replaced, rows or not) and the slot's
 * row. */
static int record(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b,
		  uint64_t end_lsn, struct sl_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < c->ntables; i++) {
		struct live_advance adv = { .seq = b->seq, .rows = b->rows[i] };

		if (b->snapshot || b->rows[i])
			rc = live_advance_record(w, c->tables[i].landing, &adv, b->now_ms, err);
	}
	if (!rc)
		rc = b->snapshot ? state_cdc_slot_replace(w, c->slot, b->lsn, "done", err)
				 : state_cdc_slot_store(w, c->slot, b->lsn, end_lsn, err);
	return rc;
}

int pgcdc_batch_commit(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b,
		       uint64_t end_lsn, bool wait, bool *done, struct sl_err *err)
{
	bool got = true;
	int rc = 0;

	*done = false;
	/* flushed first (abandoned if that fails): the gate is held for the
	 * bookkeeping alone */
	rc = pgcdc_batch_flush(w, b, err);
	if (!rc && c->gate)
		rc = live_gate_take(w, wait, &got, err);
	if (rc || !got) {
		/* a failed take rolled back */
		if (rc)
			close_sinks(b);
		return rc;
	}
	rc = record(w, c, b, end_lsn, err);
	close_sinks(b);
	if (rc) {
		if (c->gate)
			live_gate_abandon(w);
		else
			wh_rollback(w);
		return rc;
	}
	rc = c->gate ? live_gate_commit(w, err) : wh_commit(w, err);
	if (rc && !c->gate)
		wh_rollback(w);
	*done = !rc;
	return rc;
}

int pgcdc_land(struct wh *w, struct arena *a, const struct pgcdc_cfg *c,
	       const struct pgcdc_txn *t, int64_t now_ms, int64_t *seq, struct sl_err *err)
{
	struct pgcdc_batch b;
	bool done;
	int rc = pgcdc_batch_begin(w, a, c, t->commit_lsn, t->xid, now_ms, false, &b, err);

	if (!rc)
		rc = pgcdc_batch_add(w, c, &b, t->rows, t->nrows, err);
	if (!rc)
		rc = pgcdc_batch_commit(w, c, &b, t->end_lsn, true, &done, err);
	*seq = rc ? 0 : b.seq;
	return rc;
}

int pgcdc_confirm_store(struct wh *w, const char *slot, uint64_t lsn, struct sl_err *err)
{
	int rc = wh_begin(w, err);

	if (!rc)
		rc = state_cdc_slot_store(w, slot, 0, lsn, err);
	if (!rc)
		rc = wh_commit(w, err);
	if (rc)
		wh_rollback(w);
	return rc;
}

int pgcdc_snapshot_pending(struct wh *w, const char *slot, struct sl_err *err)
{
	int rc = wh_begin(w, err);

	if (!rc)
		rc = state_cdc_slot_replace(w, slot, 0, "pending", err);
	if (!rc)
		rc = wh_commit(w, err);
	if (rc)
		wh_rollback(w);
	return rc;
}

void pgcdc_shape_text(struct buf *out, const struct pgoutput_relation *rel)
{
	buf_addch(out, '[');
	for (uint16_t i = 0; i < rel->ncols; i++) {
		const struct pgoutput_column *col = &rel->cols[i];

		buf_adds(out, i ? ",{\"name\":\"" : "{\"name\":\"");
		jsontext_escape(out, col->name, strlen(col->name));
		buf_addf(out, "\",\"type\":%" PRIu32 ",\"typmod\":%" PRId32 ",\"key\":%s}",
			 col->type_oid, col->typmod, col->key ? "true" : "false");
	}
	buf_addch(out, ']');
}
