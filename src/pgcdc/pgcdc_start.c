/*
 * The start and the end of a postgres_cdc consumer's run: the slot's
 * stored row and what the source server has (publication, slot) weighed
 * into a plan (stream from the stored LSN, make the slot, or make it and
 * land its initial snapshot), the publication made when asked, the
 * replication connection and START_REPLICATION, then the threads; at the
 * end, all of it let go. Never makes a slot again in silence over changes
 * that were lost with it, and never drops one another process streams
 * from.
 */
#include "pgcdc/pgcdc_stream.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "pgcdc/pgcdc_pg.h"
#include "pgcdc/pgoutput.h"
#include "state/cdc_slots.h"

#include <stdlib.h>
#include <string.h>

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

/* The source database asked over a normal connection: the publication
 * made sure of, the slot found, the plan made (and a snapshot prepared for),
 * --once's target and each table's primary key read. */
static int plan_run(struct stream *s, struct state_cdc_slot *stored, enum start_plan *plan,
		    struct sl_err *err)
{
	const struct pgcdc_cfg *c = s->c;
	struct slot_info slot;
	PGconn *conn = NULL;
	int rc = state_cdc_slot_read(s->w, c->slot, stored, err);

	if (!rc)
		rc = pgcdc_pg_connect(c->dsn, false, &conn, err);
	if (!rc)
		rc = ensure_publication(conn, c, err);
	if (!rc)
		rc = find_slot(conn, c, &slot, err);
	if (!rc)
		rc = plan_start(c, s->o, &slot, stored, plan, err);
	if (!rc && *plan == PLAN_SNAPSHOT)
		rc = prepare_snapshot(conn, s->w, c, &slot, err);
	if (!rc && s->o->once)
		rc = current_lsn(conn, &s->st->target_lsn, err);
	s->keys = arena_alloc(s->shape_a, (c->ntables + 1) * sizeof(*s->keys));
	for (size_t i = 0; !rc && i < c->ntables; i++)
		rc = pgcdc_catalog_keys(conn, s->shape_a, c->tables[i].source, &s->keys[i], err);
	if (conn)
		PQfinish(conn);
	return rc;
}

int pgcdc_stream_open(struct stream *s, struct sl_err *err)
{
	const struct pgcdc_cfg *c = s->c;
	struct state_cdc_slot stored;
	enum start_plan plan = PLAN_STREAM;
	int rc;

	*s->st = (struct pgcdc_stats){ .snapshot_rows = -1 };
	s->a = arena_new(s->o->a);
	s->shape_a = arena_new(s->a);
	s->msg_a = arena_new(s->a);
	s->txn_a = arena_new(s->a);
	s->land_a = arena_new(s->a);
	s->batch_a = arena_new(s->a);
	s->hold_a = arena_new(s->a);
	s->cache = pgoutput_cache_new();
	rc = plan_run(s, &stored, &plan, err);
	if (rc)
		return rc;
	if (plan == PLAN_STREAM) {
		s->landed = stored.landed;
		s->confirmed = pgcdc_lsn_max(stored.confirmed, stored.landed);
	}
	s->last_idle_us = units_mono_us();
	rc = start_stream(s, plan, err);
	/* a slot made on this connection a moment ago has landed nothing */
	if (!rc && plan == PLAN_STREAM)
		rc = check_held_slot(s, &stored, err);
	if (!rc) {
		s->fd = PQsocket(s->repl);
		rc = pgcdc_ticker_start(&s->tick, s->repl, s->confirmed, c->status_interval_ms, err);
		s->ticking = !rc;
	}
	s->cols = arena_alloc(s->shape_a, (c->ntables + 1) * sizeof(*s->cols));
	if (!rc)
		rc = state_cdc_shapes_read(s->w, s->shape_a, c->slot, &s->shapes, &s->nshapes, err);
	s->shapes_cap = s->nshapes;
	if (!rc) {
		rc = pgcdc_committer_start(&s->committer, err);
		s->committer_up = !rc;
	}
	return rc;
}

void pgcdc_stream_close(struct stream *s)
{
	pgcdc_stream_end_batch(s);
	if (s->committer_up)
		pgcdc_committer_stop(&s->committer);
	s->st->landed_lsn = s->landed;
	s->st->confirmed_lsn = s->confirmed;
	if (s->ticking)
		pgcdc_ticker_stop(&s->tick);
	if (s->repl)
		PQfinish(s->repl);
	buf_release(&s->payload);
	arena_free(s->a);
	pgoutput_cache_free(s->cache);
}
