/*
 * The postgres_cdc consumer's warehouse side: a decoded source transaction
 * into its landing tables, with its sequence, its advances and the slot's
 * LSNs, in one transaction. Never speaks to the source database, and never
 * stores an LSN apart from the rows it accounts for.
 */
#include "ingest/pgcdc.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "ingest/jsontext.h"
#include "ingest/pgoutput.h"
#include "live/advance.h"
#include "live/gate.h"
#include "warehouse/wh.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pgcdc_slot_read(struct wh *w, const char *slot, struct pgcdc_slot_state *out,
		    struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	*out = (struct pgcdc_slot_state){ 0 };
	buf_adds(&sql, "SELECT landed_lsn, confirmed_lsn, snapshot FROM _sluice.cdc_slots WHERE "
		       "slot = ");
	buf_add_sql_str(&sql, slot);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	if (wh_result_nrows(r)) {
		const char *snap = wh_result_value(r, 0, 2);

		out->stored = true;
		out->landed = strtoull(wh_result_value(r, 0, 0), NULL, 10);
		out->confirmed = strtoull(wh_result_value(r, 0, 1), NULL, 10);
		out->snapshot = !snap ? 0 : !strcmp(snap, "pending") ? 'p' : 'd';
	}
	wh_result_free(r);
	return 0;
}

/* The slot's row: landed (unless 0, kept) and confirmed raised to at
 * least confirmed, in the caller's transaction. */
static int slot_store(struct wh *w, const char *slot, uint64_t landed, uint64_t confirmed,
		      struct sl_err *err)
{
	const struct wh_arg args[] = { WH_INT((int64_t)landed), WH_INT((int64_t)confirmed),
				       WH_TEXT(slot) };
	const char *update = "UPDATE _sluice.cdc_slots SET landed_lsn = CASE WHEN $1::BIGINT > 0 "
			     "THEN $1::BIGINT ELSE landed_lsn END, confirmed_lsn = "
			     "greatest(confirmed_lsn, $2::BIGINT) WHERE slot = $3::VARCHAR";
	int64_t changed = 0;
	int rc = wh_exec_args(w, update, args, 3, &changed, err);

	/* planned anew: the kept plan may date from before the row existed */
	if (!rc && !changed) {
		wh_forget_statement(w, update);
		rc = wh_exec_args(w, update, args, 3, &changed, err);
	}
	if (!rc && !changed) {
		const struct wh_arg row[] = { WH_TEXT(slot), WH_INT((int64_t)landed),
					      WH_INT((int64_t)(confirmed > landed ? confirmed
										  : landed)) };

		wh_forget_statement(w, update);
		rc = wh_exec_args(w,
				  "INSERT INTO _sluice.cdc_slots (slot, landed_lsn, confirmed_lsn) "
				  "VALUES ($1::VARCHAR, $2::BIGINT, $3::BIGINT)",
				  row, 3, NULL, err);
	}
	return rc;
}

/* The slot's row replaced by one of the given LSNs and snapshot state, in
 * the caller's transaction. */
static int slot_replace(struct wh *w, const char *slot, uint64_t lsn, const char *snapshot,
			struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "DELETE FROM _sluice.cdc_slots WHERE slot = ");
	buf_add_sql_str(&sql, slot);
	rc = wh_exec(w, sql.buf, err);
	if (!rc) {
		buf_reset(&sql);
		buf_adds(&sql, "INSERT INTO _sluice.cdc_slots (slot, landed_lsn, confirmed_lsn, "
			       "snapshot) VALUES (");
		buf_add_sql_str(&sql, slot);
		buf_addf(&sql, ", %" PRIu64 ", %" PRIu64 ", ", lsn, lsn);
		buf_add_sql_str(&sql, snapshot);
		buf_adds(&sql, ")");
		rc = wh_exec(w, sql.buf, err);
	}
	buf_release(&sql);
	return rc;
}

/* One landing table's rows among rows, through an appender: each column
 * by its name, typed columns of the source (none for postgres_cdc) NULL;
 * row i's position is b->pos + i + 1, its order in its transaction. */
static int append_table(struct wh *w, struct arena *a, const struct pgcdc_table *tab, size_t ti,
			struct pgcdc_batch *b, const struct pgcdc_row *rows, size_t nrows,
			struct sl_err *err)
{
	const char *dot = strchr(tab->landing, '.');
	char schema[128], lsn[32], xid[16], pos[32], op[2] = { 0 };
	struct wh_column *cols;
	struct wh_appender *ap = NULL;
	const char **values;
	size_t ncols;
	int rc;

	if (!dot || (size_t)(dot - tab->landing) >= sizeof(schema))
		return sl_err_set(err, SL_E_USAGE, "invalid landing table '%s'", tab->landing);
	snprintf(schema, sizeof(schema), "%.*s", (int)(dot - tab->landing), tab->landing);
	if (b->cols && b->cols[ti].n) {
		cols = b->cols[ti].cols;
		ncols = b->cols[ti].n;
		rc = 0;
	} else {
		rc = wh_table_columns(w, b->cols ? b->cols_a : a, schema, dot + 1, &cols, &ncols,
				      err);
		if (!rc && b->cols)
			b->cols[ti] = (struct pgcdc_columns){ .cols = cols, .n = ncols };
	}
	if (!rc && !ncols)
		rc = sl_err_set(err, SL_E_NOTFOUND, "no landing table '%s'", tab->landing);
	if (!rc)
		rc = wh_appender_open(w, schema, dot + 1, &ap, err);
	if (rc)
		return rc;
	snprintf(lsn, sizeof(lsn), "%" PRIu64, b->lsn);
	snprintf(xid, sizeof(xid), "%" PRIu32, b->xid);
	/* xid 0 (InvalidTransactionId): a snapshot's row, of no transaction */
	values = arena_alloc(a, ncols * sizeof(*values));
	for (size_t i = 0; !rc && i < nrows; i++) {
		const struct pgcdc_row *row = &rows[i];

		if (row->table != ti)
			continue;
		op[0] = row->op;
		snprintf(pos, sizeof(pos), "%" PRId64, b->pos + (int64_t)i + 1);
		for (size_t j = 0; j < ncols; j++) {
			const char *name = cols[j].name;

			values[j] = !strcmp(name, "op")		 ? op
				    : !strcmp(name, "lsn")	 ? lsn
				    : !strcmp(name, "xid")	 ? (b->xid ? xid : NULL)
				    : !strcmp(name, "received_at") ? b->now
				    : !strcmp(name, "payload")	 ? row->payload
				    : !strcmp(name, "_sluice_seq") ? b->seqtext
				    : !strcmp(name, "_sluice_pos") ? pos
								   : NULL;
		}
		rc = wh_appender_row(ap, values, ncols, err);
		b->rows[ti]++;
	}
	if (!rc)
		rc = wh_appender_flush(ap, err);
	wh_appender_close(ap);
	if (rc)
		sl_err_context(err, "landing %s", tab->landing);
	return rc;
}

static bool touches(const struct pgcdc_row *rows, size_t nrows, size_t ti)
{
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].table == ti)
			return true;
	return false;
}

/* Every row the slot's landing tables hold, deleted: a snapshot is their
 * whole history from now on. */
static int clear_tables(struct wh *w, const struct pgcdc_cfg *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < c->ntables; i++) {
		const char *name = c->tables[i].landing, *dot = strchr(name, '.');
		char schema[128];

		if (!dot || (size_t)(dot - name) >= sizeof(schema)) {
			rc = sl_err_set(err, SL_E_USAGE, "invalid landing table '%s'", name);
			break;
		}
		snprintf(schema, sizeof(schema), "%.*s", (int)(dot - name), name);
		buf_reset(&sql);
		buf_adds(&sql, "DELETE FROM ");
		buf_add_sql_ident(&sql, schema);
		buf_addch(&sql, '.');
		buf_add_sql_ident(&sql, dot + 1);
		rc = wh_exec(w, sql.buf, err);
		if (rc)
			sl_err_context(err, "replacing the rows of %s", c->tables[i].landing);
	}
	buf_release(&sql);
	return rc;
}

int pgcdc_batch_begin(struct wh *w, struct arena *a, const struct pgcdc_cfg *c, uint64_t lsn,
		      uint32_t xid, int64_t now_ms, bool snapshot, struct pgcdc_batch *b,
		      struct sl_err *err)
{
	size_t n = c->ntables ? c->ntables : 1;
	int rc = wh_begin(w, err);

	*b = (struct pgcdc_batch){ .lsn = lsn, .xid = xid, .now_ms = now_ms, .snapshot = snapshot };
	b->rows = arena_alloc(a, n * sizeof(*b->rows));
	memset(b->rows, 0, n * sizeof(*b->rows));
	/* in name order: two writers sharing tables never wait in a circle */
	for (size_t i = 0; !rc && wh_shared(w) && i < c->ntables; i++)
		rc = live_advance_lock(w, c->tables[i].landing, err);
	if (!rc)
		rc = live_next_seq(w, &b->seq, err);
	if (!rc && snapshot)
		rc = clear_tables(w, c, err);
	snprintf(b->seqtext, sizeof(b->seqtext), "%lld", (long long)b->seq);
	units_format_ts(now_ms, b->now, sizeof(b->now));
	if (rc)
		wh_rollback(w);
	return rc;
}

int pgcdc_batch_add(struct wh *w, struct arena *a, const struct pgcdc_cfg *c,
		    struct pgcdc_batch *b, const struct pgcdc_row *rows, size_t nrows,
		    struct sl_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < c->ntables; i++)
		if (touches(rows, nrows, i))
			rc = append_table(w, a, &c->tables[i], i, b, rows, nrows, err);
	b->pos += (int64_t)nrows;
	if (rc)
		wh_rollback(w);
	return rc;
}

int pgcdc_batch_end(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b,
		    struct sl_err *err)
{
	int rc = 0;

	/* a snapshot's advance says each table was replaced, rows or not */
	for (size_t i = 0; !rc && i < c->ntables; i++) {
		struct live_advance adv = { .seq = b->seq, .rows = b->rows[i] };

		if (b->snapshot || b->rows[i])
			rc = live_advance_record(w, c->tables[i].landing, &adv, b->now_ms, err);
	}
	if (rc)
		wh_rollback(w);
	return rc;
}

int pgcdc_batch_next(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b, uint64_t lsn,
		     uint32_t xid, int64_t now_ms, struct sl_err *err)
{
	int rc = live_next_seq(w, &b->seq, err);

	b->lsn = lsn;
	b->xid = xid;
	b->now_ms = now_ms;
	b->pos = 0;
	memset(b->rows, 0, (c->ntables ? c->ntables : 1) * sizeof(*b->rows));
	snprintf(b->seqtext, sizeof(b->seqtext), "%lld", (long long)b->seq);
	units_format_ts(now_ms, b->now, sizeof(b->now));
	if (rc)
		wh_rollback(w);
	return rc;
}

int pgcdc_batch_commit(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b,
		       uint64_t end_lsn, bool wait, bool *done, struct sl_err *err)
{
	int rc = b->snapshot ? slot_replace(w, c->slot, b->lsn, "done", err)
			     : slot_store(w, c->slot, b->lsn, end_lsn, err);

	*done = false;
	if (rc) {
		wh_rollback(w);
		return rc;
	}
	*done = true;
	if (c->gate)
		return wait ? live_gate_commit(w, err) : live_gate_try_commit(w, done, err);
	rc = wh_commit(w, err);
	if (rc)
		wh_rollback(w);
	return rc;
}

int pgcdc_batch_finish(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b,
		       uint64_t end_lsn, struct sl_err *err)
{
	bool done;
	int rc = pgcdc_batch_end(w, c, b, err);

	return rc ? rc : pgcdc_batch_commit(w, c, b, end_lsn, true, &done, err);
}

int pgcdc_land(struct wh *w, struct arena *a, const struct pgcdc_cfg *c,
	       const struct pgcdc_txn *t, int64_t now_ms, int64_t *seq, struct sl_err *err)
{
	struct pgcdc_batch b;
	int rc = pgcdc_batch_begin(w, a, c, t->commit_lsn, t->xid, now_ms, false, &b, err);

	if (!rc)
		rc = pgcdc_batch_add(w, a, c, &b, t->rows, t->nrows, err);
	if (!rc)
		rc = pgcdc_batch_finish(w, c, &b, t->end_lsn, err);
	*seq = rc ? 0 : b.seq;
	return rc;
}

int pgcdc_confirm_store(struct wh *w, const char *slot, uint64_t lsn, struct sl_err *err)
{
	int rc = wh_begin(w, err);

	if (!rc)
		rc = slot_store(w, slot, 0, lsn, err);
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
		rc = slot_replace(w, slot, 0, "pending", err);
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

int pgcdc_shapes_read(struct wh *w, struct arena *a, const char *slot, struct pgcdc_shape **out,
		      size_t *n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	*out = NULL;
	*n = 0;
	buf_adds(&sql, "SELECT relation, columns FROM _sluice.cdc_relations AS c WHERE slot = ");
	buf_add_sql_str(&sql, slot);
	buf_adds(&sql, " AND NOT EXISTS (SELECT 1 FROM _sluice.cdc_relations AS l WHERE l.slot = "
		       "c.slot AND l.relation = c.relation AND (l.lsn > c.lsn OR (l.lsn = c.lsn AND "
		       "l.pos > c.pos)))");
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	*out = arena_alloc(a, (wh_result_nrows(r) + 1) * sizeof(**out));
	for (size_t i = 0; i < wh_result_nrows(r); i++) {
		(*out)[i].relation = arena_strdup(a, wh_result_value(r, i, 0));
		(*out)[i].columns = arena_strdup(a, wh_result_value(r, i, 1));
	}
	*n = wh_result_nrows(r);
	wh_result_free(r);
	return 0;
}

int pgcdc_shape_store(struct wh *w, const char *slot, const char *relation, uint64_t lsn,
		      int64_t pos, const char *columns, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "INSERT INTO _sluice.cdc_relations (slot, relation, lsn, pos, columns) "
		       "VALUES (");
	buf_add_sql_str(&sql, slot);
	buf_adds(&sql, ", ");
	buf_add_sql_str(&sql, relation);
	buf_addf(&sql, ", %" PRIu64 ", %" PRId64 ", ", lsn, pos);
	buf_add_sql_str(&sql, columns);
	buf_adds(&sql, ")");
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}
