/*
 * The postgres_cdc consumer: one replication slot of a source database,
 * read over libpq (replication=database, pgoutput protocol 1) and landed
 * in the landing tables of the sources that share the slot.
 *
 * Invariants:
 * - One source transaction lands in one warehouse transaction with one
 *   sequence, across every landing table it touches, together with the
 *   advance of each of them and the slot's row in _sluice.cdc_slots
 *   (landed_lsn: its commit LSN). Transactions that follow it may share
 *   that warehouse transaction and its sequence, whole and in commit
 *   order, their places (_sluice_pos) counting on.
 * - The server is told an LSN is flushed only after the warehouse stored
 *   it: a landed transaction's end after its commit, an idle slot's WAL end
 *   after confirmed_lsn holds it. A crash at any point loses nothing: the
 *   server sends again what was not confirmed.
 * - A transaction whose commit LSN is at or below landed_lsn is skipped:
 *   nothing lands twice.
 * - A change that names a table none of the slot's sources declares lands
 *   nothing (a shared publication may carry more tables).
 * - An update that moves a row to another key lands as a delete of the
 *   old key, then the update, in the next place: applied per key, the
 *   old key is gone and the new one holds the row.
 * - create never publishes a table whose updates and deletes the
 *   publication would make fail (no primary key, no other replica
 *   identity), unless its source asks for REPLICA IDENTITY FULL.
 * - An initial snapshot lands whole, with the slot's row, or not at all;
 *   a slot that cannot be followed without a gap (gone, lost, read by
 *   someone else, or with nothing landed before a snapshot) is an error,
 *   never made again in silence.
 */
#ifndef SL_PGCDC_PGCDC_H
#define SL_PGCDC_PGCDC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct wh;
struct wh_column;

/* A source of the slot: the table read ("public.orders") and the landing
 * table it lands in ("landing.orders"); with full_identity (its setting
 * replica_identity: full), create makes its REPLICA IDENTITY FULL. */
struct pgcdc_table {
	const char *source;
	const char *landing;
	bool full_identity;
	const char *setting; /* "sources.orders", named in its errors */
};

struct pgcdc_cfg {
	const char *slot, *publication;
	const char *dsn;     /* the source database's connection string */
	const char *setting; /* "sources.orders", named in errors */
	const char *name;    /* the source `sluice cdc` was given, named in hints */
	bool create;         /* make the publication and the slot when missing */
	/* land the rows there when the slot is made (its exported snapshot)
	 * before its changes: snapshot: initial */
	bool snapshot;
	/* how often a quiet stream sends a status update, in ms */
	int64_t status_interval_ms;
	/* commit through the landing gate (live/gate.h): a live model reads
	 * two tables of the slot through two of its inputs */
	bool gate;
	/* in landing-name order: a transaction locks its tables in this order */
	const struct pgcdc_table *tables;
	size_t ntables;
};

/* ---- settings (pgcdc_cfg.c) ---- */

struct project;
struct project_cfg;
struct source_cfg;

/* The consumer of src's slot: every postgres_cdc source of p that names
 * it, in landing-name order, in arena a; SL_E_CONFIG when src's dsn_env is
 * not set. */
int pgcdc_cfg_of(struct arena *a, const struct project *p, const struct source_cfg *src,
		 struct pgcdc_cfg *out, struct sl_err *err);
bool pgcdc_source(const struct source_cfg *s);
/* Whether sources[i] is the first postgres_cdc source of its slot: a
 * process runs one consumer per slot. */
bool pgcdc_first_of_slot(const struct project_cfg *cfg, size_t i);

/* ---- landing (pgcdc_land.c) ---- */

/* One change of a source transaction: the table (an index into
 * pgcdc_cfg.tables), op c/u/d/t (r: a row of the initial snapshot), and
 * its payload JSON. */
struct pgcdc_row {
	size_t table;
	char op;
	const char *payload;
};

struct pgcdc_txn {
	uint64_t commit_lsn, end_lsn;
	uint32_t xid;
	struct pgcdc_row *rows;
	size_t nrows, cap;
};

/* A landing in progress: one warehouse transaction from begin to commit,
 * its rows all stamped with one sequence. It holds one source transaction
 * or several that follow one another (a backlog), each whole and in
 * commit order: the LSN and xid are the current one's (its commit LSN, a
 * snapshot's consistent point; xid 0: none, a snapshot's), and each row's
 * place (_sluice_pos, from 1) counts on across them, so that (sequence,
 * place) orders every change of the commit. Rows go to one appender per
 * landing table, kept open until the commit and flushed when they add up
 * (bounded memory) or when the batch must read them (pgcdc_batch_flush). */
/* A landing table's columns as read (n 0: not read yet). */
struct pgcdc_columns {
	struct wh_column *cols;
	size_t n;
};

struct pgcdc_sink;

struct pgcdc_batch {
	uint64_t lsn;
	uint32_t xid;
	bool snapshot;
	int64_t now_ms, seq;
	int64_t pos;   /* rows added so far */
	int64_t *rows; /* per table of the slot */
	char seqtext[32], now[32];
	/* the landing tables' columns, per table, read once into cols_a and
	 * kept there by the caller from batch to batch (NULL: read at each
	 * commit's first row of a table) */
	struct pgcdc_columns *cols;
	struct arena *cols_a;
	struct pgcdc_sink *sinks; /* per table; in a */
	size_t nsinks;
	struct arena *a;
	size_t unflushed; /* payload bytes appended since the last flush */
};

/* Begins the transaction: the slot's landing tables locked (shared
 * warehouses), the sequence taken, and for a snapshot every row the
 * landing tables held deleted: a snapshot is their whole history from now
 * on. The batch's state lives in a until it commits or is abandoned. Each
 * pgcdc_batch_* call that fails abandons the batch. */
int pgcdc_batch_begin(struct wh *w, struct arena *a, const struct pgcdc_cfg *c, uint64_t lsn,
		      uint32_t xid, int64_t now_ms, bool snapshot, struct pgcdc_batch *b,
		      struct sl_err *err);
/* Appends rows, the next of the current source transaction in their
 * order. */
int pgcdc_batch_add(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b,
		    const struct pgcdc_row *rows, size_t nrows, struct sl_err *err);
/* Every row appended so far made visible to the transaction's own reads. */
int pgcdc_batch_flush(struct wh *w, struct pgcdc_batch *b, struct sl_err *err);
/* The next source transaction (commit LSN lsn, xid) in the same warehouse
 * transaction, after the current one ended: same sequence, places
 * counting on. */
void pgcdc_batch_next(struct pgcdc_batch *b, uint64_t lsn, uint32_t xid, int64_t now_ms);
/* The rows flushed, the advance of each landing table they went to (a
 * snapshot: of each one), the slot's row (a transaction: landed_lsn the
 * last one's commit LSN, confirmed_lsn raised to end_lsn, its end, which
 * the caller sends once this committed; a snapshot: landed and confirmed
 * its consistent point, done), then the commit, through the landing gate
 * when c asks for it: waiting for it, or (not wait) only when no cycle
 * holds it, *done saying whether it committed (when not, nothing was
 * written and the batch stays open for more). */
int pgcdc_batch_commit(struct wh *w, const struct pgcdc_cfg *c, struct pgcdc_batch *b,
		       uint64_t end_lsn, bool wait, bool *done, struct sl_err *err);
/* Rolls the batch's transaction back, its appenders closed. */
void pgcdc_batch_abandon(struct wh *w, struct pgcdc_batch *b);

/* Lands t whole in one batch of its own; *seq gets its sequence (0 on
 * error). */
int pgcdc_land(struct wh *w, struct arena *a, const struct pgcdc_cfg *c,
	       const struct pgcdc_txn *t, int64_t now_ms, int64_t *seq, struct sl_err *err);

/* ---- table shapes (pgcdc_land.c) ---- */

struct pgoutput_relation;
struct buf;

/* The columns of rel as _sluice.cdc_relations keeps them
 * (state_cdc_shape_store): a JSON array of {"name", "type" (OID),
 * "typmod", "key"}, appended to out. */
void pgcdc_shape_text(struct buf *out, const struct pgoutput_relation *rel);

/* Stores lsn as the slot's confirmed_lsn (never lowering it), in a
 * transaction of its own: before an idle slot's WAL end is confirmed. */
int pgcdc_confirm_store(struct wh *w, const char *slot, uint64_t lsn, struct sl_err *err);

/* ---- the initial snapshot (pgcdc_land.c) ---- */

/* Stores the slot's row as a snapshot pending (LSNs 0), replacing any row
 * it had, in a transaction of its own: before the slot is made, so a slot
 * whose snapshot never landed is known for one and made again. */
int pgcdc_snapshot_pending(struct wh *w, const char *slot, struct sl_err *err);

/* ---- the stream (pgcdc.c) ---- */

struct pgcdc_stats {
	int64_t txns, rows;   /* landed */
	int64_t skipped;      /* transactions at or below landed_lsn */
	uint64_t landed_lsn, confirmed_lsn;
	uint64_t target_lsn;  /* --once: the server's WAL position at start */
	int64_t snapshot_rows; /* landed by an initial snapshot, -1 when none was taken */
};

struct pgcdc_opts {
	/* stop once everything up to the server's WAL position at start
	 * (pg_current_wal_lsn()) has landed */
	bool once;
	/* set by a signal handler: stop between transactions */
	volatile sig_atomic_t *stop;
	/* told after each warehouse commit of transactions (seq: its
	 * sequence, 0 when they had no rows) and each keepalive (seq 0): st
	 * as it stands, wal_end the server's WAL position as it last said; on
	 * the consumer's thread (may be NULL) */
	void (*progress)(void *ctx, const struct pgcdc_stats *st, uint64_t wal_end, int64_t seq);
	void *ctx;
	/* drop the slot and start over from a new snapshot, replacing every
	 * row its landing tables hold */
	bool resnapshot;
	/* the run's memory is a child of it (may be NULL): the slot's, or
	 * the command's */
	struct arena *a;
};

/* Runs the consumer of c's slot on w until opts->stop is set, the server
 * ends the stream, an error, or (once) the start position is reached:
 * checks (or with create, makes) the publication and the slot, lands the
 * initial snapshot of a slot it makes (c->snapshot; opts->resnapshot
 * drops the slot first), resumes from the stored LSN, lands each
 * transaction, confirms after each commit and answers keepalives. Returns
 * 0 or an error; st is filled either way. */
int pgcdc_run(struct wh *w, const struct pgcdc_cfg *c, const struct pgcdc_opts *opts,
	      struct pgcdc_stats *st, struct sl_err *err);

#endif
