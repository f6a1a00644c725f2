/*
 * The postgres_cdc consumer's stream: the publication and the slot made
 * sure of over a normal connection, START_REPLICATION over a
 * replication=database one, every CopyData message decoded (pgoutput.h),
 * a transaction's changes from Begin to Commit landed in one batch
 * (pgcdc_land.c), held in memory up to a bound and appended as they come
 * past it, and the standby status updates sent back. Never confirms
 * an LSN the warehouse has not stored, and never lands a NULL for a value
 * the server did not send.
 */
#include "pgcdc/pgcdc.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "pgcdc/pgcdc_pg.h"
#include "pgcdc/pgcdc_retry.h"
#include "pgcdc/pgoutput.h"
#include "state/cdc_slots.h"
#include "warehouse/wh.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often an idle slot's WAL end is stored and confirmed. */
#define IDLE_CONFIRM_EVERY_US (1000 * 1000LL)
/* --once: how long a quiet stream waits before asking where the server is */
#define PING_AFTER_MS 200
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
/* Ended transactions are committed once the stream has had nothing more
 * for GROUP_LINGER_MS, so a backlog lands several per warehouse commit;
 * they wait no longer than GROUP_MAX_US (nor, through the landing gate,
 * for a cycle to let go of it) before the commit is made, or waited for. */
#define GROUP_MAX_US (100 * 1000LL)
#define PENDING_POLL_MS 5
#define GROUP_LINGER_MS 2

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
	struct arena *msg_a, *txn_a, *land_a, *batch_a;
	/* the changes held; the batch they go to once it is open */
	struct pgcdc_txn txn;
	size_t held_bytes;
	struct pgcdc_batch batch;
	bool in_txn, skip, done, batch_open;
	bool heard; /* the server sent something on this stream */
	/* the open batch's current transaction is this one (it holds some of
	 * its changes): until then the batch holds only ended ones, which may
	 * commit */
	bool joined;
	int64_t txn_start; /* the batch's place where the joined one began */
	/* source transactions ended in the batch, not committed yet (the
	 * gate was held): since when, the last one's LSNs and sequence, and
	 * what they add up to */
	bool pending;
	int64_t pending_since_us;
	struct txn_group pend;
	/* the pending ones being committed on the committer's thread, and
	 * the transactions that ended meanwhile (listed in hold_a, each with
	 * its own arena) */
	struct pgcdc_committer committer;
	bool committer_up, committing;
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
	bool ticking;
	int fd; /* repl's socket */
	struct buf payload;
};

/*
 * The statements that make the publication, in one transaction: each
 * table of the slot published, those with replica_identity: full made
 * REPLICA IDENTITY FULL first. A table whose updates and deletes the
 * publication would make fail (no primary key and no other replica
 * identity, or REPLICA IDENTITY NOTHING) is refused before anything
 * changes, unless its source sets replica_identity: full.
 */
static int publication_sql(PGconn *conn, const struct pgcdc_cfg *c, struct buf *sql,
			   struct sl_err *err)
{
	struct buf alter = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < c->ntables; i++) {
		const struct pgcdc_table *t = &c->tables[i];
		char ident;
		bool pk;

		rc = pgcdc_catalog_identity(conn, t->source, &ident, &pk, err);
		if (rc || ident == 'f')
			continue;
		if (t->full_identity) {
			buf_adds(&alter, "ALTER TABLE ");
			pgcdc_pg_add_table(&alter, t->source);
			buf_adds(&alter, " REPLICA IDENTITY FULL; ");
			continue;
		}
		if (ident == 'i' || (ident == 'd' && pk))
			continue;
		rc = sl_err_set(err, SL_E_CONFIG,
				"table %s has %s, so publishing it would make every UPDATE and "
				"DELETE of it fail in the source database (\"does not have a "
				"replica identity and publishes updates\"); nothing was changed\n"
				"  hint: add a primary key to %s, or set replica_identity: full "
				"under %s to have create make its REPLICA IDENTITY FULL (each "
				"update and delete then writes the whole old row to the WAL)",
				t->source, ident == 'n' ? "REPLICA IDENTITY NOTHING" : "no primary key",
				t->source, t->setting ? t->setting : c->setting);
	}
	if (!rc) {
		buf_addf(sql, "BEGIN; %s", alter.buf);
		buf_adds(sql, "CREATE PUBLICATION ");
		buf_add_sql_ident(sql, c->publication);
		buf_adds(sql, " FOR TABLE ");
		for (size_t i = 0; i < c->ntables; i++) {
			if (i)
				buf_adds(sql, ", ");
			pgcdc_pg_add_table(sql, c->tables[i].source);
		}
		buf_adds(sql, "; COMMIT");
	}
	buf_release(&alter);
	return rc;
}

static int ensure_publication(PGconn *conn, const struct pgcdc_cfg *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	PGresult *r = NULL;
	int rc = pgcdc_pg_run(conn, "SELECT 1 FROM pg_publication WHERE pubname = $1", c->publication,
		     PGRES_TUPLES_OK, &r, err);
	bool have;

	if (rc)
		return rc;
	have = PQntuples(r) > 0;
	PQclear(r);
	r = NULL;
	if (!have && !c->create)
		return sl_err_set(err, SL_E_NOTFOUND,
				  "no publication '%s' on the source database\n"
				  "  hint: set create: true under %s, or create it: CREATE "
				  "PUBLICATION %s FOR TABLE %s",
				  c->publication, c->setting, c->publication, c->tables[0].source);
	if (!have) {
		rc = publication_sql(conn, c, &sql, err);
		if (!rc)
			rc = pgcdc_pg_run(conn, sql.buf, NULL, PGRES_COMMAND_OK, NULL, err);
		buf_release(&sql);
		if (rc)
			return rc;
	}
	/* a table the publication leaves out would never send a change */
	rc = pgcdc_pg_run(conn,
		 "SELECT schemaname || '.' || tablename FROM pg_publication_tables WHERE pubname "
		 "= $1",
		 c->publication, PGRES_TUPLES_OK, &r, err);
	for (size_t i = 0; !rc && i < c->ntables; i++) {
		bool found = false;

		for (int k = 0; k < PQntuples(r) && !found; k++)
			found = strcmp(PQgetvalue(r, k, 0), c->tables[i].source) == 0;
		if (!found)
			rc = sl_err_set(err, SL_E_NOTFOUND,
					"publication '%s' does not publish %s (%s)\n"
					"  hint: ALTER PUBLICATION %s ADD TABLE %s",
					c->publication, c->tables[i].source, c->setting,
					c->publication, c->tables[i].source);
	}
	if (r)
		PQclear(r);
	return rc;
}

/* What the server says of the slot. */
struct slot_info {
	bool have;
	bool lost;		 /* wal_status lost: the WAL it needs is gone */
	long active_pid;	 /* the process streaming from it, 0 when none */
	uint64_t confirmed;	 /* confirmed_flush_lsn */
};

/* The slot, if it exists; one of another plugin or database is refused. */
static int find_slot(PGconn *conn, const struct pgcdc_cfg *c, struct slot_info *out,
		     struct sl_err *err)
{
	PGresult *r;
	int rc = pgcdc_pg_run(conn,
			      "SELECT plugin, database = current_database(), coalesce(wal_status, "
			      "''), coalesce(confirmed_flush_lsn, '0/0')::text, coalesce(database, "
			      "'no database'), coalesce(active_pid, 0) FROM pg_replication_slots "
			      "WHERE slot_name = $1",
			      c->slot, PGRES_TUPLES_OK, &r, err);

	*out = (struct slot_info){ 0 };
	if (rc)
		return rc;
	out->have = PQntuples(r) > 0;
	if (out->have && strcmp(PQgetvalue(r, 0, 1), "t"))
		rc = sl_err_set(err, SL_E_CONFIG,
				"replication slot '%s' belongs to another database (%s)\n"
				"  hint: name another slot under %s",
				c->slot, PQgetvalue(r, 0, 4), c->setting);
	else if (out->have && strcmp(PQgetvalue(r, 0, 0), "pgoutput"))
		rc = sl_err_set(err, SL_E_CONFIG,
				"replication slot '%s' decodes with %s, not pgoutput\n"
				"  hint: name another slot under %s",
				c->slot, PQgetvalue(r, 0, 0), c->setting);
	else if (!out->have && !c->create)
		rc = sl_err_set(err, SL_E_NOTFOUND,
				"no replication slot '%s' on the source database\n"
				"  hint: set create: true under %s, or create it: SELECT "
				"pg_create_logical_replication_slot('%s', 'pgoutput')",
				c->slot, c->setting, c->slot);
	if (!rc && out->have) {
		out->lost = strcmp(PQgetvalue(r, 0, 2), "lost") == 0;
		out->active_pid = strtol(PQgetvalue(r, 0, 5), NULL, 10);
		if (pgcdc_pg_lsn(PQgetvalue(r, 0, 3), &out->confirmed))
			rc = sl_err_set(err, SL_E_PARSE, "source database: unreadable LSN '%s'",
					PQgetvalue(r, 0, 3));
	}
	PQclear(r);
	return rc;
}

/* How the run starts. */
enum start_plan {
	PLAN_STREAM,   /* the slot is there: from the stored LSN */
	PLAN_MAKE,     /* make the slot, stream from where it starts */
	PLAN_SNAPSHOT, /* make the slot (dropped first when there), land its snapshot */
};

/* What to do with the slot the server has and the state the warehouse
 * stored: never a slot made again in silence over changes it has lost. */
static int plan_start(const struct pgcdc_cfg *c, const struct pgcdc_opts *o,
		      const struct slot_info *slot, const struct state_cdc_slot *stored,
		      enum start_plan *plan, struct sl_err *err)
{
	const char *name = c->name ? c->name : c->slot;
	/* a snapshot pending that is no longer wanted: the slot streams alone */
	bool landed = stored->stored && (stored->snapshot != 'p' || !c->snapshot);

	*plan = PLAN_STREAM;
	if (o->resnapshot && !c->snapshot)
		return sl_err_set(err, SL_E_USAGE,
				  "--resnapshot takes a new initial snapshot, and %s has snapshot: "
				  "never\n  hint: set snapshot: initial under %s",
				  c->setting, c->setting);
	if (o->resnapshot || (stored->snapshot == 'p' && c->snapshot)) {
		/* a snapshot that never landed starts over from a new slot */
		*plan = PLAN_SNAPSHOT;
		return 0;
	}
	if (!slot->have && landed)
		return sl_err_set(err, SL_E_NOTFOUND,
				  "replication slot '%s' is gone from the source database, but "
				  "changes up to LSN %X/%X landed from it: the changes since are "
				  "lost with it\n  hint: sluice cdc %s --resnapshot makes it again "
				  "and lands the tables anew",
				  c->slot, (unsigned)(stored->landed >> 32), (unsigned)stored->landed,
				  name);
	if (!slot->have) {
		*plan = c->snapshot ? PLAN_SNAPSHOT : PLAN_MAKE;
		return 0;
	}
	if (slot->lost)
		return sl_err_set(err, SL_E_INVALID,
				  "replication slot '%s' is lost (wal_status lost): the server removed "
				  "WAL it had not sent, so changes are missing\n"
				  "  hint: sluice cdc %s --resnapshot drops it, makes it again and "
				  "lands the tables anew",
				  c->slot, name);
	if (!landed && c->snapshot)
		return sl_err_set(err, SL_E_INVALID,
				  "replication slot '%s' exists but nothing landed from it: what the "
				  "tables held before it was made is unknown, so no initial snapshot "
				  "can be taken from it\n"
				  "  hint: sluice cdc %s --resnapshot drops it and starts from a new "
				  "one; snapshot: never under %s follows its changes alone",
				  c->slot, name, c->setting);
	if (landed && slot->confirmed > stored->confirmed)
		return sl_err_set(err, SL_E_INVALID,
				  "replication slot '%s' was read by someone else, or made again: the "
				  "server has confirmed LSN %X/%X, beyond the %X/%X sluice stored, so "
				  "the changes between never landed\n"
				  "  hint: give each consumer a slot of its own; sluice cdc %s "
				  "--resnapshot starts over from a new snapshot",
				  c->slot, (unsigned)(slot->confirmed >> 32), (unsigned)slot->confirmed,
				  (unsigned)(stored->confirmed >> 32), (unsigned)stored->confirmed,
				  name);
	return 0;
}

static int current_lsn(PGconn *conn, uint64_t *out, struct sl_err *err)
{
	PGresult *r;
	int rc = pgcdc_pg_run(conn, "SELECT pg_current_wal_lsn()::text", NULL, PGRES_TUPLES_OK, &r, err);

	if (rc)
		return rc;
	if (pgcdc_pg_lsn(PQgetvalue(r, 0, 0), out))
		rc = sl_err_set(err, SL_E_PARSE, "source database: unreadable LSN '%s'",
				PQgetvalue(r, 0, 0));
	PQclear(r);
	return rc;
}

static void add_lsn(struct buf *b, uint64_t lsn)
{
	buf_addf(b, "%X/%X", (unsigned)(lsn >> 32), (unsigned)lsn);
}

/* The slot made on the replication connection; for a snapshot, with one
 * exported, which stays valid until the connection runs its next command:
 * the snapshot lands first, and streaming starts at its consistent point. */
static int make_slot(struct stream *s, bool snapshot, struct sl_err *err)
{
	const struct pgcdc_cfg *c = s->c;
	struct buf sql = BUF_INIT;
	PGresult *r = NULL;
	uint64_t cp = 0;
	int rc;

	buf_adds(&sql, "CREATE_REPLICATION_SLOT ");
	buf_add_sql_ident(&sql, c->slot);
	buf_adds(&sql, snapshot ? " LOGICAL pgoutput (SNAPSHOT 'export')"
				: " LOGICAL pgoutput NOEXPORT_SNAPSHOT");
	rc = pgcdc_pg_run(s->repl, sql.buf, NULL, PGRES_TUPLES_OK, &r, err);
	buf_release(&sql);
	if (rc) {
		if (r)
			PQclear(r);
		return rc;
	}
	if (PQntuples(r) != 1 || PQnfields(r) < 3 || pgcdc_pg_lsn(PQgetvalue(r, 0, 1), &cp) ||
	    (snapshot && PQgetisnull(r, 0, 2)))
		rc = sl_err_set(err, SL_E_PARSE,
				"source database: CREATE_REPLICATION_SLOT gave no consistent point%s",
				snapshot ? " and snapshot" : "");
	/* without a snapshot, where the new slot stands is stored at once:
	 * should the stream end before it confirms anything, the next run
	 * still knows the slot it made, and refuses one read or made again
	 * by someone else. No change commits at the consistent point itself:
	 * one that has rows wrote them after it, so its commit comes later. */
	if (!rc && !snapshot)
		rc = pgcdc_confirm_store(s->w, c->slot, cp, err);
	else if (!rc)
		rc = pgcdc_snapshot_take(s->w, c, PQgetvalue(r, 0, 2), cp, s->land_a, s->txn_a,
					 &s->st->snapshot_rows, err);
	arena_reset(s->land_a);
	arena_reset(s->txn_a);
	if (!rc)
		s->confirmed = cp;
	if (!rc && snapshot)
		s->landed = cp;
	PQclear(r);
	return rc;
}

/* The replication connection, the slot made by plan, the session's output
 * settings (pgoutput.h), streaming from the stored position. */
static int start_stream(struct stream *s, enum start_plan plan, struct sl_err *err)
{
	const struct pgcdc_cfg *c = s->c;
	struct buf sql = BUF_INIT;
	int rc = pgcdc_pg_connect(c->dsn, true, &s->repl, err);

	if (!rc)
		rc = pgcdc_pg_run(s->repl, "IDENTIFY_SYSTEM", NULL, PGRES_TUPLES_OK, NULL, err);
	if (!rc && plan != PLAN_STREAM)
		rc = make_slot(s, plan == PLAN_SNAPSHOT, err);
	if (!rc)
		rc = pgcdc_pg_settings(s->repl, err);
	if (!rc) {
		buf_adds(&sql, "START_REPLICATION SLOT ");
		buf_add_sql_ident(&sql, c->slot);
		buf_adds(&sql, " LOGICAL ");
		add_lsn(&sql, s->landed);
		buf_adds(&sql, " (proto_version '1', publication_names ");
		{
			struct buf name = BUF_INIT;

			buf_add_sql_ident(&name, c->publication);
			buf_add_sql_str(&sql, name.buf);
			buf_release(&name);
		}
		buf_adds(&sql, ")");
		rc = pgcdc_pg_run(s->repl, sql.buf, NULL, PGRES_COPY_BOTH, NULL, err);
	}
	buf_release(&sql);
	return rc;
}

/*
 * The slot once START_REPLICATION holds it, when nothing can drop or
 * replace it any more: one dropped and made again between the first look
 * and the start would stream from its own position, past changes that
 * never landed. The same rules as the first look, against the same stored
 * state, must still say it streams: a slot of which nothing landed yet
 * (snapshot: never) may stand anywhere, one that changes landed from no
 * further than they did.
 */
static int check_held_slot(const struct stream *s, const struct state_cdc_slot *stored,
			   struct sl_err *err)
{
	const struct pgcdc_opts held = { 0 };
	struct slot_info slot;
	enum start_plan plan;
	PGconn *conn = NULL;
	int rc = pgcdc_pg_connect(s->c->dsn, false, &conn, err);

	if (!rc)
		rc = find_slot(conn, s->c, &slot, err);
	if (!rc)
		rc = plan_start(s->c, &held, &slot, stored, &plan, err);
	if (!rc && plan != PLAN_STREAM)
		rc = sl_err_set(err, SL_E_INVALID,
				"replication slot '%s' changed while the consumer started streaming "
				"from it",
				s->c->slot);
	if (conn)
		PQfinish(conn);
	return rc;
}

/* The ticker repeats it every status_interval until the next. */
static int send_status(struct stream *s, bool reply, struct sl_err *err)
{
	return pgcdc_ticker_send(&s->tick, s->confirmed, reply, err);
}

/* The index of rel in the slot's tables, or -1 for one of no source. */
static int table_of(const struct pgcdc_cfg *c, const struct pgoutput_relation *rel)
{
	size_t nsp = strlen(rel->nspname);

	for (size_t i = 0; i < c->ntables; i++) {
		const char *t = c->tables[i].source;

		if (strncmp(t, rel->nspname, nsp) == 0 && t[nsp] == '.' &&
		    strcmp(t + nsp + 1, rel->relname) == 0)
			return (int)i;
	}
	return -1;
}

static void push_row(struct stream *s, int table, char op, const char *payload, size_t len)
{
	struct pgcdc_row *r = ARENA_PUSH(s->txn_a, &s->txn.rows, &s->txn.nrows, &s->txn.cap);

	r->table = (size_t)table;
	r->op = op;
	r->payload = arena_strndup(s->txn_a, payload, len);
	s->held_bytes += len;
}

/* Rows of transaction t, received at now_ms, appended to its batch
 * (begun, or joined after the ended ones it holds, on t's first call). */
static int append_txn(struct stream *s, const struct pgcdc_txn *t, int64_t now_ms,
		      struct sl_err *err)
{
	int rc = 0;

	if (!s->batch_open) {
		arena_reset(s->batch_a);
		rc = pgcdc_batch_begin(s->w, s->batch_a, s->c, t->commit_lsn, t->xid, now_ms, false,
				       &s->batch, err);
		s->batch_open = !rc;
		s->batch.cols = s->cols;
		s->batch.cols_a = s->shape_a;
		s->txn_start = 0;
	} else if (!s->joined) {
		pgcdc_batch_next(&s->batch, t->commit_lsn, t->xid, now_ms);
		s->txn_start = s->batch.pos;
	}
	s->joined = !rc;
	if (!rc)
		rc = pgcdc_batch_add(s->w, s->c, &s->batch, t->rows, t->nrows, err);
	/* rolled back, the pending ones too: the server sends them again */
	if (rc)
		s->batch_open = s->pending = false;
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

static uint64_t max_lsn(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* The caller's progress hook, with the figures as they stand. */
static void tell(struct stream *s, int64_t seq)
{
	if (!s->o->progress)
		return;
	s->st->landed_lsn = s->landed;
	s->st->confirmed_lsn = s->confirmed;
	s->o->progress(s->o->ctx, s->st, s->server_end, seq);
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
	s->joined = false;
	if (rc) {
		/* rolled back, the pending ones too: the server sends them again */
		s->batch_open = s->pending = false;
		return rc;
	}
	/* a transaction held through a commit has waited since it ended */
	if (!s->pending)
		s->pending_since_us = ended_us;
	s->pending = true;
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
	for (size_t i = 0; i < s->nheld; i++)
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

/* The commit under way, once it has ended (with block, when it has): what
 * it landed is confirmed to the server or, when the gate was held, stays
 * pending in the open batch; either way what was held meanwhile joins the
 * batch. Before anything else uses the warehouse or the batch. */
static int finish_commit(struct stream *s, bool block, struct sl_err *err)
{
	bool done;
	int rc;

	if (!s->committing || !pgcdc_committer_ended(&s->committer, block, &rc, &done, err))
		return 0;
	s->committing = false;
	/* a failed commit rolled back: the server sends it all again */
	if (rc)
		return rc;
	if (!done) {
		s->batch_open = s->pending = true;
		s->pend = s->inflight;
	} else {
		arena_reset(s->batch_a);
		count_landed(s);
		s->confirmed = max_lsn(s->confirmed, s->inflight.end);
		rc = send_status(s, false, err);
		tell(s, s->inflight.seq);
	}
	return rc ? rc : land_held(s, err);
}

static int maybe_flush(struct stream *s, struct sl_err *err)
{
	int rc;

	if (s->committing) {
		if (s->hold_rows + s->txn.nrows < HOLD_COMMITTING_ROWS &&
		    s->hold_bytes + s->held_bytes < HOLD_COMMITTING_BYTES)
			return 0;
		rc = finish_commit(s, true, err);
		if (rc)
			return rc;
	}
	if (s->txn.nrows < HOLD_ROWS && s->held_bytes < HOLD_BYTES)
		return 0;
	return flush_held(s, err);
}

/* Which columns of rel are the key whose change moves a row: the replica
 * identity's, but for REPLICA IDENTITY FULL (every column is marked) the
 * primary key's; NULL for the relation's own marks, and *none when a FULL
 * table has no primary key. In msg_a. */
static const bool *key_columns(struct stream *s, int table, const struct pgoutput_relation *rel,
			       bool *none)
{
	const struct pgcdc_key *k = &s->keys[table];
	bool *key;

	*none = false;
	if (rel->replident != 'f')
		return NULL;
	*none = !k->n;
	key = arena_alloc(s->msg_a, (rel->ncols + 1u) * sizeof(*key));
	for (uint16_t i = 0; i < rel->ncols; i++) {
		key[i] = false;
		for (size_t j = 0; j < k->n && !key[i]; j++)
			key[i] = strcmp(rel->cols[i].name, k->names[j]) == 0;
	}
	return key;
}

/* Whether an update moved its row to another key. */
static bool moved_key(struct stream *s, int table, const struct pgoutput_msg *m)
{
	bool none;
	const bool *key = key_columns(s, table, m->change.rel, &none);

	return !none && pgoutput_key_changed(m->change.rel, key, &m->change.old, &m->change.new);
}

/* The delete of the old key of an update that moved its row, held before
 * the update itself (its payload as a delete's: the old key, or the whole
 * old row under REPLICA IDENTITY FULL). In the next place the update of
 * the new key follows: a model that applies the changes drops the old key
 * and holds the new one, and a later change of the old key (a row moved
 * back) comes after the delete. */
static int push_old_key(struct stream *s, int table, const struct pgoutput_msg *m,
			const struct pgoutput_relation *rel, struct sl_err *err)
{
	struct buf old = BUF_INIT;
	int rc = pgoutput_tuple_json(&old, rel, &m->change.old, NULL, NULL, err);

	if (!rc)
		push_row(s, table, 'd', old.buf, old.len);
	buf_release(&old);
	return rc;
}

/* The payload of change m, t its row, into s->payload, its values by
 * rel (m's relation, or a copy without types). Unchanged TOAST
 * values: from the old row when it is whole, else from the row of the key
 * before (the old key's, for a row moved: found before its delete is
 * held). */
static int change_payload(struct stream *s, int table, const struct pgoutput_msg *m,
			  const struct pgoutput_relation *rel, struct pgoutput_tuple *t, bool moved,
			  struct sl_err *err)
{
	int rc = 0;

	buf_reset(&s->payload);
	if (m->kind != PGOUTPUT_UPDATE || !pgoutput_tuple_fill(t, &m->change.old))
		return pgoutput_tuple_json(&s->payload, rel, t, NULL, NULL, err);
	/* the batch's earlier rows of the key are read back too, those held
	 * while it committed among them */
	rc = finish_commit(s, true, err);
	if (!rc && s->batch_open) {
		rc = pgcdc_batch_flush(s->w, &s->batch, err);
		if (rc)
			s->batch_open = s->pending = false;
	}
	if (!rc)
		rc = pgcdc_toast_json(s->w, s->c, (size_t)table, &s->txn, rel,
				      moved ? &m->change.old : t, t, &s->payload, err);
	return rc;
}

/* Whether a column of rel has a type that is not built in. */
static bool user_types(const struct pgoutput_relation *rel)
{
	for (uint16_t i = 0; i < rel->ncols; i++)
		if (rel->cols[i].type_oid >= PGOUTPUT_FIRST_USER_OID)
			return true;
	return false;
}

/* The types of a slot's table that are not built in, described from the
 * catalog with each Relation message that names them (over a normal
 * connection of its own, as the stream's cannot ask), so that its values
 * are written by their types: in a skipped transaction too, as the
 * relation serves the changes after it. The server sends one when a
 * stream first changes the table and after its columns change; a type
 * changed in place is read again when a value fails to follow it
 * (on_change). */
static int describe_types(struct stream *s, const struct pgoutput_relation *rel,
			  struct sl_err *err)
{
	PGconn *conn = NULL;
	int rc;

	if (table_of(s->c, rel) < 0 || !user_types(rel))
		return 0;
	rc = pgcdc_pg_connect(s->c->dsn, false, &conn, err);
	if (!rc)
		rc = pgcdc_catalog_types(conn, rel, pgoutput_cache_types(s->cache), err);
	if (conn)
		PQfinish(conn);
	if (rc)
		sl_err_context(err, "the types of %s.%s", rel->nspname, rel->relname);
	return rc;
}

static int on_change(struct stream *s, const struct pgoutput_msg *m, struct sl_err *err)
{
	const struct pgoutput_relation *rel = m->change.rel;
	struct pgoutput_relation plain;
	struct pgoutput_tuple t = m->kind == PGOUTPUT_DELETE ? m->change.old : m->change.new;
	int table = table_of(s->c, rel);
	char op = m->kind == PGOUTPUT_INSERT ? 'c' : m->kind == PGOUTPUT_UPDATE ? 'u' : 'd';
	bool moved;
	int rc;

	if (table < 0 || s->skip)
		return 0;
	if (!t.kind)
		return sl_err_set(err, SL_E_INVALID,
				  "delete from %s.%s carries no key (REPLICA IDENTITY NOTHING)\n"
				  "  hint: ALTER TABLE %s.%s REPLICA IDENTITY DEFAULT (with a "
				  "primary key) or FULL",
				  rel->nspname, rel->relname, rel->nspname, rel->relname);
	moved = m->kind == PGOUTPUT_UPDATE && moved_key(s, table, m);
	rc = change_payload(s, table, m, rel, &t, moved, err);
	/* a value that does not follow its type as read: the type changed
	 * since (ALTER TYPE ... CASCADE sends no Relation message), so it is
	 * read again; a value made before a change of its type (a backlog)
	 * still does not follow the catalog as it is now, and then the
	 * change's values of types not built in land as their text, rather
	 * than the stream stopping at it for good */
	if (rc == SL_E_PARSE && user_types(rel)) {
		sl_err_clear(err);
		rc = describe_types(s, rel, err);
		if (!rc)
			rc = change_payload(s, table, m, rel, &t, moved, err);
		if (rc == SL_E_PARSE) {
			sl_err_clear(err);
			plain = *rel;
			plain.types = NULL;
			rel = &plain;
			rc = change_payload(s, table, m, rel, &t, moved, err);
		}
	}
	if (!rc && moved)
		rc = push_old_key(s, table, m, rel, err);
	if (rc) {
		sl_err_context(err, "a change of %s.%s", rel->nspname, rel->relname);
		return rc;
	}
	push_row(s, table, op, s->payload.buf, s->payload.len);
	return maybe_flush(s, err);
}

/* A Relation message: a table's columns as the changes after it carry
 * them. One that differs from the shape recorded last is recorded with
 * the transaction, at the place of its next change. */
static int on_relation(struct stream *s, const struct pgoutput_relation *rel)
{
	struct buf text = BUF_INIT;
	struct state_cdc_shape *known = NULL;
	struct shape_note *n;
	int table = table_of(s->c, rel);
	const char *name;

	if (!s->in_txn || s->skip || table < 0)
		return 0;
	name = s->c->tables[table].source;
	pgcdc_shape_text(&text, rel);
	for (size_t i = 0; i < s->nshapes && !known; i++)
		if (strcmp(s->shapes[i].relation, name) == 0)
			known = &s->shapes[i];
	if (known && strcmp(known->columns, text.buf) == 0) {
		buf_release(&text);
		return 0;
	}
	if (!known) {
		known = ARENA_PUSH(s->shape_a, &s->shapes, &s->nshapes, &s->shapes_cap);
		known->relation = name;
	}
	known->columns = arena_strdup(s->shape_a, text.buf);
	/* in shape_a: a commit of the ended transactions before this one
	 * resets batch_a */
	n = ARENA_PUSH(s->shape_a, &s->notes, &s->nnotes, &s->notes_cap);
	n->relation = name;
	n->columns = known->columns;
	/* in the transaction: where it lands in the batch is known once
	 * it has joined one */
	n->pos = (s->joined ? s->batch.pos - s->txn_start : 0) + (int64_t)s->txn.nrows + 1;
	buf_release(&text);
	return 0;
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
	s->txn_a = arena_new(NULL);
	s->hold_rows += s->txn.nrows;
	s->hold_bytes += s->held_bytes;
}

/* The source transaction ended: into the batch, pending until it commits,
 * or held while a commit is under way. */
static int end_txn(struct stream *s, struct sl_err *err)
{
	int rc = 0;

	s->taken = s->txn.commit_lsn;
	if (s->committing)
		hold_txn(s);
	else
		rc = land_txn(s, &s->txn, units_now_ms(), units_mono_us(), s->notes, s->nnotes,
			      err);
	release_rows(s);
	s->notes = NULL;
	s->nnotes = s->notes_cap = 0;
	return rc;
}

/* Commits the pending transactions on the committer's thread: at once
 * without the gate; through it when free, or (force, or pending too long)
 * once it is. finish_commit tells the server once it has ended. */
static void commit_pending(struct stream *s, bool force)
{
	if (!s->pending || s->joined || s->committing)
		return;
	s->inflight = s->pend;
	s->pend = (struct txn_group){ 0 };
	s->pending = s->batch_open = false;
	s->committing = true;
	pgcdc_committer_submit(&s->committer, s->w, s->c, &s->batch, s->inflight.end,
			       force || units_mono_us() - s->pending_since_us >= GROUP_MAX_US);
}

/* Everything taken committed and told: the commit under way, then what
 * was held or pending, through the gate however long it is held. */
static int settle(struct stream *s, struct sl_err *err)
{
	int rc = finish_commit(s, true, err);

	while (!rc && s->pending && !s->joined) {
		commit_pending(s, true);
		rc = finish_commit(s, true, err);
	}
	return rc;
}

static int on_truncate(struct stream *s, const struct pgoutput_msg *m, struct sl_err *err)
{
	for (uint32_t i = 0; !s->skip && i < m->truncate.nrels; i++) {
		int table = table_of(s->c, m->truncate.rels[i]);

		if (table >= 0)
			push_row(s, table, 't', "{}", 2);
	}
	return maybe_flush(s, err);
}

static int on_commit(struct stream *s, const struct pgoutput_msg *m, struct sl_err *err)
{
	int rc = 0;

	s->txn.end_lsn = m->commit.end_lsn;
	if (s->skip)
		s->st->skipped++;
	else if (s->joined || s->txn.nrows || s->nnotes)
		rc = end_txn(s, err);
	/* a backlog that never lets up still commits now and then */
	if (!rc && s->pending && units_mono_us() - s->pending_since_us >= GROUP_MAX_US)
		commit_pending(s, true);
	s->in_txn = false;
	pgoutput_cache_forget(s->cache);
	if (s->o->once && s->txn.end_lsn >= s->st->target_lsn)
		s->done = true;
	return rc;
}

/* A transaction begins: skipped when it landed before. While others wait
 * to commit, it joins their batch with its first changes (flush_held). */
static void on_begin(struct stream *s, const struct pgoutput_msg *m)
{
	s->in_txn = true;
	/* landed: stored before this stream (sent again after a crash);
	 * taken: ended in this stream, committed or not */
	s->skip = m->begin.final_lsn <= max_lsn(s->landed, s->taken);
	arena_reset(s->txn_a);
	s->txn = (struct pgcdc_txn){ .commit_lsn = m->begin.final_lsn, .xid = m->begin.xid };
	s->held_bytes = 0;
	/* committed after --once started: not this run's */
	if (s->o->once && !s->skip && m->begin.final_lsn >= s->st->target_lsn)
		s->done = true;
}

static int on_message(struct stream *s, const struct pgoutput_copy *cp, struct sl_err *err)
{
	struct pgoutput_msg m;
	int rc = pgoutput_decode(s->cache, cp->data, cp->len, s->msg_a, &m, err);

	if (rc)
		return rc;
	switch (m.kind) {
	case PGOUTPUT_BEGIN:
		on_begin(s, &m);
		break;
	case PGOUTPUT_INSERT:
	case PGOUTPUT_UPDATE:
	case PGOUTPUT_DELETE:
		rc = s->in_txn ? on_change(s, &m, err)
			       : sl_err_set(err, SL_E_PARSE, "a change outside a transaction");
		break;
	case PGOUTPUT_RELATION:
		rc = describe_types(s, &m.relation, err);
		if (!rc)
			rc = on_relation(s, &m.relation);
		break;
	case PGOUTPUT_TRUNCATE:
		rc = s->in_txn ? on_truncate(s, &m, err)
			       : sl_err_set(err, SL_E_PARSE, "a truncate outside a transaction");
		break;
	case PGOUTPUT_COMMIT:
		rc = on_commit(s, &m, err);
		break;
	default:
		break;
	}
	arena_reset(s->msg_a);
	return rc;
}

/* Between transactions everything the server sent up to its WAL end has
 * landed: confirm it, stored first, at most once a second. */
static int confirm_idle(struct stream *s, bool now, struct sl_err *err)
{
	int rc;

	if (s->in_txn || s->pending || s->committing || s->server_end <= s->confirmed ||
	    (!now && units_mono_us() - s->last_idle_us < IDLE_CONFIRM_EVERY_US))
		return 0;
	rc = pgcdc_confirm_store(s->w, s->c->slot, s->server_end, err);
	if (rc)
		return rc;
	s->last_idle_us = units_mono_us();
	s->confirmed = s->server_end;
	return send_status(s, false, err);
}

static int on_copy(struct stream *s, const char *buf, int len, struct sl_err *err)
{
	struct pgoutput_copy cp;
	int rc = pgoutput_copy_decode(buf, (size_t)len, &cp, err);

	if (rc)
		return rc;
	s->heard = true;
	if (cp.kind == 'w')
		return on_message(s, &cp, err);
	s->server_end = max_lsn(s->server_end, cp.wal_end);
	if (cp.reply_requested)
		rc = send_status(s, false, err);
	if (!rc)
		rc = confirm_idle(s, false, err);
	if (!rc)
		tell(s, 0);
	if (s->o->once && !s->in_txn && s->server_end >= s->st->target_lsn)
		s->done = true;
	return rc;
}

/* Nothing came for a while: pending transactions try the gate again; an
 * idle slot's WAL end a keepalive gave too soon after the last is
 * confirmed now; --once asks the server where it is (it answers with a
 * keepalive). Once the server has sent anything, the caller hears that
 * the stream is still up: on an idle source its keepalives may be half a
 * wal_sender_timeout apart, and an attempt counts as recovered after some
 * seconds of it. */
static int on_quiet(struct stream *s, struct sl_err *err)
{
	int rc = 0;

	if (s->pending)
		commit_pending(s, false);
	else
		rc = confirm_idle(s, false, err);

	if (!rc && s->o->once && !s->in_txn && !s->pending)
		rc = send_status(s, true, err);
	if (!rc && !s->pending && s->heard)
		tell(s, 0);
	return rc;
}

/* The libpq calls of the loop, under the connection's lock. */
static int get_copy(struct stream *s, char **buf)
{
	int n;

	pthread_mutex_lock(&s->tick.wk.mu);
	n = PQgetCopyData(s->repl, buf, 1);
	pthread_mutex_unlock(&s->tick.wk.mu);
	return n;
}

/* An error the server raised on the stream. One it raises at the same
 * change on every attempt (a publication dropped: it reads the catalog as
 * of the change, so making it again does not help) cannot be mended by
 * trying again. */
static int server_refused(struct stream *s, const char *sqlstate, struct sl_err *err)
{
	const char *name = s->c->name ? s->c->name : s->c->slot;
	struct sl_err pg = SL_ERR_INIT;

	pgcdc_pg_failed(s->repl, "replication stream", &pg);
	if (pgcdc_retry_stream_code(sqlstate) == SL_E_IO)
		return sl_err_set(err, SL_E_IO, "%s", pg.msg);
	return sl_err_set(err, SL_E_INVALID,
			  "%.2000s\n  hint: the server fails at this change each time it sends it, "
			  "so slot '%s' cannot stream past it; sluice cdc %s --resnapshot starts "
			  "over from a new snapshot",
			  pg.msg, s->c->slot, name);
}

static int stream_failed(struct stream *s, bool ended, struct sl_err *err)
{
	int rc;

	pthread_mutex_lock(&s->tick.wk.mu);
	if (ended) {
		PGresult *r = PQgetResult(s->repl);

		if (PQresultStatus(r) == PGRES_COMMAND_OK)
			rc = sl_err_set(err, SL_E_IO,
					"source database: the server ended the replication stream");
		else
			rc = server_refused(s, PQresultErrorField(r, PG_DIAG_SQLSTATE), err);
		PQclear(r);
	} else {
		rc = pgcdc_pg_failed(s->repl, "replication stream", err);
	}
	pthread_mutex_unlock(&s->tick.wk.mu);
	return rc;
}

static int consume(struct stream *s, struct sl_err *err)
{
	int ok;

	pthread_mutex_lock(&s->tick.wk.mu);
	ok = PQconsumeInput(s->repl);
	pthread_mutex_unlock(&s->tick.wk.mu);
	return ok ? 0 : stream_failed(s, false, err);
}

/* Whether the socket has more of the stream ready within wait_ms; if so,
 * it is read. */
static int more_ready(struct stream *s, int wait_ms, bool *more, struct sl_err *err)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };

	*more = poll(&pfd, 1, wait_ms) > 0;
	return *more ? consume(s, err) : 0;
}

/* How long pending transactions wait for more before they commit: while
 * the batch is young, a little. */
static int linger_ms(const struct stream *s)
{
	return units_mono_us() - s->pending_since_us < GROUP_MAX_US - GROUP_LINGER_MS * 1000
		       ? GROUP_LINGER_MS
		       : 0;
}

static int stream_loop(struct stream *s, struct sl_err *err)
{
	int rc = 0;

	while (!rc && !s->done && !(s->o->stop && *s->o->stop && !s->in_txn)) {
		char *buf = NULL;
		int n = get_copy(s, &buf);
		struct pollfd pfd[2] = { { .fd = s->fd, .events = POLLIN },
					 { .fd = s->committer.fd, .events = POLLIN } };

		if (n > 0) {
			rc = on_copy(s, buf, n, err);
			PQfreemem(buf);
			if (!rc)
				rc = finish_commit(s, false, err);
			continue;
		}
		if (n < 0) {
			rc = stream_failed(s, n == -1, err);
			break;
		}
		if (s->pending) {
			bool more = false;

			/* a backlog comes in bursts between the server's
			 * sends: a moment's wait joins the next to this
			 * commit, which costs the same for one or many */
			rc = more_ready(s, linger_ms(s), &more, err);
			if (!rc && !more)
				commit_pending(s, false);
			if (rc)
				break;
			if (more || !s->pending)
				continue;
		}
		/* the committer's signal too: a commit's end is told at once */
		n = poll(pfd, s->committing ? 2 : 1,
			 s->pending ? PENDING_POLL_MS : s->o->once ? PING_AFTER_MS : 1000);
		if (n < 0 && errno != EINTR)
			rc = sl_err_set(err, SL_E_IO, "source database: poll: %s", strerror(errno));
		else if (n == 0)
			rc = on_quiet(s, err);
		if (!rc && n > 0 && s->committing && pfd[1].revents)
			rc = finish_commit(s, false, err);
		if (!rc && n > 0 && pfd[0].revents)
			rc = consume(s, err);
	}
	if (!rc)
		rc = settle(s, err);
	if (!rc)
		rc = confirm_idle(s, true, err);
	return rc;
}

/* Before a snapshot: the slot's row says a snapshot is pending, then
 * the old slot (if any) is dropped, so that a crash anywhere before the
 * snapshot lands makes the next run start over, whichever side of the
 * drop it came. A slot another process streams from is refused before
 * anything changes, as connection trouble (SL_E_IO): the server lets go
 * of a consumer that is gone only once it notices, so a consumer that
 * tries again gets it then; one that still cannot be dropped (taken in
 * between) leaves the row pending, and the next run tries again. */
static int prepare_snapshot(PGconn *conn, struct wh *w, const struct pgcdc_cfg *c,
			    const struct slot_info *slot, struct sl_err *err)
{
	int rc = 0;

	if (slot->active_pid)
		return sl_err_set(err, SL_E_IO,
				  "replication slot '%s' is in use by process %ld on the source "
				  "database, so it cannot be dropped for a new snapshot\n"
				  "  hint: stop the consumer that streams from it, then run again",
				  c->slot, slot->active_pid);
	rc = pgcdc_snapshot_pending(w, c->slot, err);
	if (!rc && slot->have)
		rc = pgcdc_pg_run(conn, "SELECT pg_drop_replication_slot($1)", c->slot,
				  PGRES_TUPLES_OK, NULL, err);
	return rc;
}

int pgcdc_run(struct wh *w, const struct pgcdc_cfg *c, const struct pgcdc_opts *opts,
	      struct pgcdc_stats *st, struct sl_err *err)
{
	struct stream s = { .c = c, .o = opts, .st = st, .w = w, .payload = BUF_INIT };
	struct state_cdc_slot stored;
	struct slot_info slot;
	enum start_plan plan = PLAN_STREAM;
	PGconn *conn = NULL;
	int rc;

	*st = (struct pgcdc_stats){ .snapshot_rows = -1 };
	rc = state_cdc_slot_read(w, c->slot, &stored, err);
	if (!rc)
		rc = pgcdc_pg_connect(c->dsn, false, &conn, err);
	if (!rc)
		rc = ensure_publication(conn, c, err);
	if (!rc)
		rc = find_slot(conn, c, &slot, err);
	if (!rc)
		rc = plan_start(c, opts, &slot, &stored, &plan, err);
	if (!rc && plan == PLAN_SNAPSHOT)
		rc = prepare_snapshot(conn, w, c, &slot, err);
	if (!rc && opts->once)
		rc = current_lsn(conn, &st->target_lsn, err);
	s.shape_a = arena_new(NULL);
	s.keys = arena_alloc(s.shape_a, (c->ntables + 1) * sizeof(*s.keys));
	for (size_t i = 0; !rc && i < c->ntables; i++)
		rc = pgcdc_catalog_keys(conn, s.shape_a, c->tables[i].source, &s.keys[i], err);
	if (conn)
		PQfinish(conn);
	if (rc) {
		arena_free(s.shape_a);
		return rc;
	}
	if (plan == PLAN_STREAM) {
		s.landed = stored.landed;
		s.confirmed = max_lsn(stored.confirmed, stored.landed);
	}
	s.cache = pgoutput_cache_new();
	s.msg_a = arena_new(NULL);
	s.txn_a = arena_new(NULL);
	s.land_a = arena_new(NULL);
	s.batch_a = arena_new(NULL);
	s.hold_a = arena_new(NULL);
	s.last_idle_us = units_mono_us();
	rc = start_stream(&s, plan, err);
	/* a slot made on this connection a moment ago has landed nothing */
	if (!rc && plan == PLAN_STREAM)
		rc = check_held_slot(&s, &stored, err);
	if (!rc) {
		s.fd = PQsocket(s.repl);
		rc = pgcdc_ticker_start(&s.tick, s.repl, s.confirmed, c->status_interval_ms, err);
		s.ticking = !rc;
	}
	s.cols = arena_alloc(s.shape_a, (c->ntables + 1) * sizeof(*s.cols));
	memset(s.cols, 0, (c->ntables + 1) * sizeof(*s.cols));
	if (!rc)
		rc = state_cdc_shapes_read(w, s.shape_a, c->slot, &s.shapes, &s.nshapes, err);
	s.shapes_cap = s.nshapes;
	if (!rc) {
		rc = pgcdc_committer_start(&s.committer, err);
		s.committer_up = !rc;
	}
	if (!rc)
		rc = stream_loop(&s, err);
	if (s.committing) {
		bool done;
		int crc;

		/* ended, it is left as it ended: what committed is stored (and
		 * counted, though the server never heard of it), and the
		 * server sends the rest again */
		pgcdc_committer_ended(&s.committer, true, &crc, &done, NULL);
		s.batch_open = !crc && !done;
		if (!crc && done)
			count_landed(&s);
	}
	if (s.committer_up)
		pgcdc_committer_stop(&s.committer);
	/* a transaction cut off mid-way leaves nothing: the server sends it
	 * again */
	if (s.batch_open)
		pgcdc_batch_abandon(w, &s.batch);
	st->landed_lsn = s.landed;
	st->confirmed_lsn = s.confirmed;
	if (s.ticking)
		pgcdc_ticker_stop(&s.tick);
	if (s.repl)
		PQfinish(s.repl);
	buf_release(&s.payload);
	arena_free(s.msg_a);
	arena_free(s.txn_a);
	arena_free(s.land_a);
	arena_free(s.batch_a);
	arena_free(s.shape_a);
	drop_held(&s);
	arena_free(s.hold_a);
	pgoutput_cache_free(s.cache);
	return rc;
}
