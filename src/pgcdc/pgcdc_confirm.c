/*
 * The postgres_cdc consumer's batches, from the first change taken to the
 * confirmation the server gets: the taken transactions appended to the
 * open batch (pgcdc_land.c), pending there until it commits on the
 * committer's thread (pgcdc_commit.c), held in memory when they end while
 * a commit is under way, and the LSNs sent back once the warehouse stored
 * them. Every change of the batch's state (enum stream_state, README.md)
 * is made here.
 * Never tells the server of an LSN the warehouse has not stored.
 */
#include "pgcdc/pgcdc_stream.h"

#include "core/arena.h"
#include "core/units.h"
#include "pgcdc/pgcdc_pg.h"
#include "state/cdc_slots.h"

#include <assert.h>

/* How often an idle slot's WAL end is stored and confirmed. */
#define IDLE_CONFIRM_EVERY_US (1000 * 1000LL)
/* A transaction's changes are held until its commit up to this much; past
 * it they are appended to its warehouse transaction as they come, so a
 * transaction of any size lands in bounded memory. */
#define HOLD_ROWS 4096
#define HOLD_BYTES (8u << 20)
/* While a commit is under way the transactions that follow are held in
 * memory, ended or not, up to this much; past it the stream waits for the
 * commit. A commit that checkpoints the warehouse takes a few hundred ms,
 * and the stream should not wait for it. */
#define HOLD_COMMITTING_ROWS (256 * 1024)
#define HOLD_COMMITTING_BYTES (64u << 20)

int pgcdc_stream_send_status(struct stream *s, bool reply, struct sl_err *err)
{
	return pgcdc_ticker_send(&s->tick, s->confirmed, reply, err);
}

void pgcdc_stream_tell(struct stream *s, int64_t seq)
{
	if (!s->o->progress)
		return;
	s->st->landed_lsn = s->landed;
	s->st->confirmed_lsn = s->confirmed;
	s->o->progress(s->o->ctx, s->st, s->server_end, seq);
}

/* Rows of transaction t, received at now_ms, appended to its batch
 * (begun, or joined after the ended ones it holds, on t's first call).
 * A failure rolled the batch back, the pending ones too: the server sends
 * them again. */
static int append_txn(struct stream *s, const struct pgcdc_txn *t, int64_t now_ms,
		      struct sl_err *err)
{
	int rc = 0;

	assert(s->state != ST_COMMITTING);
	if (s->state == ST_IDLE) {
		arena_reset(s->batch_a);
		rc = pgcdc_batch_begin(s->w, s->batch_a, s->c, t->commit_lsn, t->xid, now_ms, false,
				       &s->batch, err);
		s->batch.cols = s->cols;
		s->batch.cols_a = s->shape_a;
		s->txn_start = 0;
		s->state = rc ? ST_IDLE : ST_OPEN;
	} else if (s->state == ST_PENDING) {
		pgcdc_batch_next(&s->batch, t->commit_lsn, t->xid, now_ms);
		s->txn_start = s->batch.pos;
		s->state = ST_PENDING_OPEN;
	}
	if (!rc)
		rc = pgcdc_batch_add(s->w, s->c, &s->batch, t->rows, t->nrows, err);
	if (rc)
		s->state = ST_IDLE;
	return rc;
}

static void release_rows(struct stream *s)
{
	arena_reset(s->txn_a);
	s->txn.rows = NULL;
	s->txn.nrows = s->txn.cap = 0;
	s->held_bytes = 0;
}

/* The changes held so far appended to the transaction's batch, and let
 * go. */
static int flush_held(struct stream *s, struct sl_err *err)
{
	int rc = append_txn(s, &s->txn, units_now_ms(), err);

	release_rows(s);
	return rc;
}

/* Transaction t, its rows and new shapes, into the batch, and its end
 * there: pending until the batch commits. */
static int land_txn(struct stream *s, const struct pgcdc_txn *t, int64_t now_ms,
		    int64_t ended_us, const struct shape_note *notes, size_t nnotes,
		    struct sl_err *err)
{
	int rc = append_txn(s, t, now_ms, err);

	for (size_t i = 0; !rc && i < nnotes; i++) {
		rc = state_cdc_shape_store(s->w, s->c->slot, notes[i].relation, t->commit_lsn,
					   s->txn_start + notes[i].pos, notes[i].columns, err);
		if (rc)
			pgcdc_batch_abandon(s->w, &s->batch);
	}
	if (rc) {
		/* rolled back, the pending ones too: the server sends them again */
		s->state = ST_IDLE;
		return rc;
	}
	/* a transaction held through a commit has waited since it ended */
	if (s->state == ST_OPEN)
		s->pending_since_us = ended_us;
	s->state = ST_PENDING;
	s->pend.seq = s->batch.seq;
	s->pend.landed = t->commit_lsn;
	s->pend.end = t->end_lsn;
	s->pend.txns++;
	s->pend.rows += s->batch.pos - s->txn_start;
	return 0;
}

/* Lets go of the held transactions, landed or not. */
static void drop_held(struct stream *s)
{
	/* newest first: each is then near the head of the run arena's list
	 * of children, which a free walks */
	for (size_t i = s->nheld; i-- > 0;)
		arena_free(s->held[i].a);
	arena_reset(s->hold_a);
	s->held = NULL;
	s->nheld = s->held_cap = s->hold_rows = s->hold_bytes = 0;
}

/* The transactions that ended while a commit was under way, into the
 * batch in their order. */
static int land_held(struct stream *s, struct sl_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < s->nheld; i++)
		rc = land_txn(s, &s->held[i].txn, s->held[i].now_ms, s->held[i].ended_us,
			      s->held[i].notes, s->held[i].nnotes, err);
	drop_held(s);
	return rc;
}

/* The committed batch's transactions, in the run's figures. */
static void count_landed(struct stream *s)
{
	s->landed = s->inflight.landed;
	s->st->txns += s->inflight.txns;
	s->st->rows += s->inflight.rows;
}

/* What it landed is confirmed to the server or, when the gate was held,
 * stays pending in the open batch; either way what was held meanwhile
 * joins the batch. Before anything else uses the warehouse or the batch. */
int pgcdc_stream_finish_commit(struct stream *s, bool block, struct sl_err *err)
{
	bool done;
	int rc;

	if (s->state != ST_COMMITTING ||
	    !pgcdc_committer_ended(&s->committer, block, &rc, &done, err))
		return 0;
	/* a failed commit rolled back: the server sends it all again */
	s->state = rc || done ? ST_IDLE : ST_PENDING;
	if (rc)
		return rc;
	if (!done) {
		s->pend = s->inflight;
	} else {
		arena_reset(s->batch_a);
		count_landed(s);
		s->confirmed = pgcdc_lsn_max(s->confirmed, s->inflight.end);
		rc = pgcdc_stream_send_status(s, false, err);
		pgcdc_stream_tell(s, s->inflight.seq);
	}
	return rc ? rc : land_held(s, err);
}

int pgcdc_stream_maybe_flush(struct stream *s, struct sl_err *err)
{
	int rc;

	if (s->state == ST_COMMITTING) {
		if (s->hold_rows + s->txn.nrows < HOLD_COMMITTING_ROWS &&
		    s->hold_bytes + s->held_bytes < HOLD_COMMITTING_BYTES)
			return 0;
		rc = pgcdc_stream_finish_commit(s, true, err);
		if (rc)
			return rc;
	}
	if (s->txn.nrows < HOLD_ROWS && s->held_bytes < HOLD_BYTES)
		return 0;
	return flush_held(s, err);
}

int pgcdc_stream_flush(struct stream *s, struct sl_err *err)
{
	int rc = pgcdc_stream_finish_commit(s, true, err);

	if (!rc && s->state != ST_IDLE) {
		rc = pgcdc_batch_flush(s->w, &s->batch, err);
		if (rc)
			s->state = ST_IDLE;
	}
	return rc;
}

/* The transaction, ended while a commit is under way, kept until that
 * commit has ended: its arena goes with it, the next one gets a new one. */
static void hold_txn(struct stream *s)
{
	struct held_txn *h = ARENA_PUSH(s->hold_a, &s->held, &s->nheld, &s->held_cap);

	*h = (struct held_txn){ .txn = s->txn,
				.a = s->txn_a,
				.notes = s->notes,
				.nnotes = s->nnotes,
				.now_ms = units_now_ms(),
				.ended_us = units_mono_us() };
	s->txn_a = arena_new(s->a);
	s->hold_rows += s->txn.nrows;
	s->hold_bytes += s->held_bytes;
}

int pgcdc_stream_end_txn(struct stream *s, struct sl_err *err)
{
	int rc = 0;

	s->taken = s->txn.commit_lsn;
	if (s->state == ST_COMMITTING)
		hold_txn(s);
	else
		rc = land_txn(s, &s->txn, units_now_ms(), units_mono_us(), s->notes, s->nnotes,
			      err);
	release_rows(s);
	s->notes = NULL;
	s->nnotes = s->notes_cap = 0;
	return rc;
}

/* At once without the gate; through it when free, or (force, or pending
 * too long) once it is. pgcdc_stream_finish_commit tells the server once
 * it has ended. */
void pgcdc_stream_commit_pending(struct stream *s, bool force)
{
	if (s->state != ST_PENDING)
		return;
	s->inflight = s->pend;
	s->pend = (struct txn_group){ 0 };
	s->state = ST_COMMITTING;
	pgcdc_committer_submit(&s->committer, s->w, s->c, &s->batch, s->inflight.end,
			       force || units_mono_us() - s->pending_since_us >= GROUP_MAX_US);
}

/* The commit under way, then what was held or pending, through the gate
 * however long it is held. */
int pgcdc_stream_settle(struct stream *s, struct sl_err *err)
{
	int rc = pgcdc_stream_finish_commit(s, true, err);

	while (!rc && s->state == ST_PENDING) {
		pgcdc_stream_commit_pending(s, true);
		rc = pgcdc_stream_finish_commit(s, true, err);
	}
	return rc;
}

/* Between transactions everything the server sent up to its WAL end has
 * landed: confirm it, stored first. */
int pgcdc_stream_confirm_idle(struct stream *s, bool now, struct sl_err *err)
{
	int rc;

	if (s->txn_at != TXN_NONE || s->state != ST_IDLE || s->server_end <= s->confirmed ||
	    (!now && units_mono_us() - s->last_idle_us < IDLE_CONFIRM_EVERY_US))
		return 0;
	rc = pgcdc_confirm_store(s->w, s->c->slot, s->server_end, err);
	if (rc)
		return rc;
	s->last_idle_us = units_mono_us();
	s->confirmed = s->server_end;
	return pgcdc_stream_send_status(s, false, err);
}

/* A commit under way is waited for: what it committed is stored, and
 * counted, though the server never heard of it. An open batch is rolled
 * back: a transaction cut off mid-way leaves nothing. The server sends
 * again what it did not hear of. */
void pgcdc_stream_end_batch(struct stream *s)
{
	if (s->state == ST_COMMITTING) {
		bool done;
		int rc;

		pgcdc_committer_ended(&s->committer, true, &rc, &done, NULL);
		s->state = !rc && !done ? ST_PENDING : ST_IDLE;
		if (!rc && done)
			count_landed(s);
	}
	if (s->state != ST_IDLE)
		pgcdc_batch_abandon(s->w, &s->batch);
	s->state = ST_IDLE;
}
