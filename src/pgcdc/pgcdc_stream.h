/*
 * One run of the postgres_cdc consumer (pgcdc_run), shared by the files
 * that make it up: its start and end (pgcdc_start.c), the loop over the
 * replication connection (pgcdc.c), the decoded messages (pgcdc_message.c)
 * and the batches they land in, their commits and what is confirmed to
 * the server (pgcdc_confirm.c). The states and what moves them are in
 * README.md. Internal to src/pgcdc/.
 */
#ifndef SL_PGCDC_PGCDC_STREAM_H
#define SL_PGCDC_PGCDC_STREAM_H

#include "core/buf.h"
#include "pgcdc/pgcdc.h"
#include "pgcdc/pgcdc_pg.h"

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct pgoutput_cache;
struct pgoutput_copy;
struct sl_err;
struct state_cdc_shape;
struct wh;

/* Ended transactions wait no longer than this in a batch (nor, through
 * the landing gate, for a cycle to let go of it) before their commit is
 * made, or waited for. */
#define GROUP_MAX_US (100 * 1000LL)

/* Where the stream stands in the source's transactions. */
enum stream_txn {
	TXN_NONE, /* between a Commit and the next Begin */
	TXN_SKIP, /* in a transaction that landed before: its changes are not taken */
	TXN_TAKE, /* in a transaction whose changes are taken */
};

/* The batch: the warehouse transaction the taken transactions land in. */
enum stream_state {
	ST_IDLE,	 /* no batch open, no commit under way */
	ST_OPEN,	 /* a batch holds some changes of the transaction being read, none ended */
	ST_PENDING,	 /* a batch holds ended transactions, which wait to commit */
	ST_PENDING_OPEN, /* and some changes of the one being read: no commit before it ends */
	ST_COMMITTING,	 /* the committer has the batch; transactions that end are held */
};

/* A table's new shape, from the change at pos of its transaction on. */
struct shape_note {
	const char *relation, *columns;
	int64_t pos;
};

/* Ended source transactions in one batch: the last one's sequence and
 * LSNs, and what they add up to. */
struct txn_group {
	int64_t seq, txns, rows;
	uint64_t landed, end;
};

/* A source transaction that ended while a commit was under way: its rows
 * and new shapes, and when it came, until it joins the next batch. */
struct held_txn {
	struct pgcdc_txn txn;
	struct arena *a; /* its rows and payloads: the transaction's arena, taken whole */
	struct shape_note *notes;
	size_t nnotes;
	int64_t now_ms, ended_us;
};

struct stream {
	const struct pgcdc_cfg *c;
	const struct pgcdc_opts *o;
	struct pgcdc_stats *st;
	struct wh *w;
	PGconn *repl;
	struct pgoutput_cache *cache;
	/* the run's arena (a child of opts->a), and its children */
	struct arena *a, *msg_a, *txn_a, *land_a, *batch_a;
	enum stream_txn txn_at;
	enum stream_state state;
	/* the changes held; the batch they go to once it is open */
	struct pgcdc_txn txn;
	size_t held_bytes;
	struct pgcdc_batch batch;
	/* the run has reached its end (--once): the loop stops at the next
	 * place it may, whatever the batch's state */
	bool done;
	/* the server sent something on this stream, in any state: the caller
	 * hears from then on that the stream is up */
	bool heard;
	int64_t txn_start; /* the batch's place where the open one began */
	/* the pending transactions: since when, the last one's LSNs and
	 * sequence, and what they add up to */
	int64_t pending_since_us;
	struct txn_group pend;
	/* the ones being committed on the committer's thread, and the
	 * transactions that ended meanwhile (listed in hold_a, each with its
	 * own arena) */
	struct pgcdc_committer committer;
	struct txn_group inflight;
	struct arena *hold_a;
	struct held_txn *held;
	size_t nheld, held_cap, hold_rows, hold_bytes;
	/* the commit LSN of the last transaction taken into a batch or held */
	uint64_t taken;
	/* each table's latest shape as recorded, and the new shapes the
	 * transaction records when it lands (in shape_a) */
	struct arena *shape_a;
	struct pgcdc_columns *cols; /* the landing tables', per table, in shape_a */
	/* per table, its primary key as the catalog had it when the stream
	 * started (in shape_a): the key of a REPLICA IDENTITY FULL table */
	struct pgcdc_key *keys;
	struct state_cdc_shape *shapes;
	size_t nshapes, shapes_cap;
	struct shape_note *notes;
	size_t nnotes, notes_cap;
	uint64_t landed, confirmed, server_end;
	int64_t last_idle_us;
	/* the status updates, and the lock on repl while they run */
	struct pgcdc_ticker tick;
	/* which of the two threads started: the end stops those, in any
	 * state (a start can fail between the two) */
	bool ticking, committer_up;
	int fd; /* repl's socket */
	struct buf payload;
};

/* Ended transactions wait in the open batch. */
static inline bool stream_pending(const struct stream *s)
{
	return s->state == ST_PENDING || s->state == ST_PENDING_OPEN;
}

/* The open batch holds changes of the transaction being read. */
static inline bool stream_joined(const struct stream *s)
{
	return s->state == ST_OPEN || s->state == ST_PENDING_OPEN;
}

/* ---- the start and the end (pgcdc_start.c) ---- */

/* s (c, o, st and w set) made ready to stream: the publication and the
 * slot made sure of (made, a snapshot landed, when the plan says so),
 * START_REPLICATION sent, the threads started. pgcdc_stream_close ends it
 * whether this failed or not. */
int pgcdc_stream_open(struct stream *s, struct sl_err *err);
/* A commit under way waited for, an open batch abandoned, the threads
 * stopped, the connection closed and the memory freed; st gets the LSNs. */
void pgcdc_stream_close(struct stream *s);

/* ---- the messages (pgcdc_message.c) ---- */

/* One pgoutput message of CopyData cp ('w'). */
int pgcdc_stream_message(struct stream *s, const struct pgoutput_copy *cp, struct sl_err *err);

/* ---- the batches, their commits, the confirmations (pgcdc_confirm.c) ---- */

/* The confirmed LSN sent now; the ticker repeats it until the next. */
int pgcdc_stream_send_status(struct stream *s, bool reply, struct sl_err *err);
/* The caller's progress hook, with the figures as they stand. */
void pgcdc_stream_tell(struct stream *s, int64_t seq);
/* The changes held appended to the transaction's batch once they are too
 * many (a commit under way ended first when those held meanwhile are). */
int pgcdc_stream_maybe_flush(struct stream *s, struct sl_err *err);
/* The open batch's rows made visible to its own reads, the commit under
 * way ended first. */
int pgcdc_stream_flush(struct stream *s, struct sl_err *err);
/* The transaction being read ended: into the batch, or held while a
 * commit is under way. */
int pgcdc_stream_end_txn(struct stream *s, struct sl_err *err);
/* The pending transactions submitted to the committer (force: through the
 * gate however long it is held). */
void pgcdc_stream_commit_pending(struct stream *s, bool force);
/* The commit under way, once it has ended (with block, when it has). */
int pgcdc_stream_finish_commit(struct stream *s, bool block, struct sl_err *err);
/* Everything taken committed and told. */
int pgcdc_stream_settle(struct stream *s, struct sl_err *err);
/* Between transactions with nothing to commit: the server's WAL end
 * stored and confirmed (at most once a second unless now). */
int pgcdc_stream_confirm_idle(struct stream *s, bool now, struct sl_err *err);
/* The run's end: the commit under way ended, an open batch rolled back. */
void pgcdc_stream_end_batch(struct stream *s);

#endif
