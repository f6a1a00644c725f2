/*
 * The postgres_cdc consumer's decoded messages (pgoutput.h): a Begin
 * skips a transaction that landed before or takes it; each change of a
 * slot's table becomes a row of its payload JSON (an update that moved
 * its row to another key, a delete of the old key first; unchanged TOAST
 * values filled, pgcdc_toast.c), held in memory until it is flushed or
 * the transaction ends; a Relation message records a table's new shape
 * and has the types not built in read from the catalog; a Commit ends the
 * transaction into the batch (pgcdc_confirm.c). Never lands a NULL for a
 * value the server did not send.
 */
#include "pgcdc/pgcdc_stream.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "pgcdc/pgcdc_pg.h"
#include "pgcdc/pgoutput.h"
#include "state/cdc_slots.h"

#include <string.h>

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
	int rc;

	buf_reset(&s->payload);
	if (m->kind != PGOUTPUT_UPDATE || !pgoutput_tuple_fill(t, &m->change.old))
		return pgoutput_tuple_json(&s->payload, rel, t, NULL, NULL, err);
	/* the batch's earlier rows of the key are read back too, those held
	 * while it committed among them */
	rc = pgcdc_stream_flush(s, err);
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

	if (table < 0 || s->txn_at == TXN_SKIP)
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
	return pgcdc_stream_maybe_flush(s, err);
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

	if (s->txn_at != TXN_TAKE || table < 0)
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
	n->pos = (stream_joined(s) ? s->batch.pos - s->txn_start : 0) + (int64_t)s->txn.nrows + 1;
	buf_release(&text);
	return 0;
}

static int on_truncate(struct stream *s, const struct pgoutput_msg *m, struct sl_err *err)
{
	for (uint32_t i = 0; s->txn_at == TXN_TAKE && i < m->truncate.nrels; i++) {
		int table = table_of(s->c, m->truncate.rels[i]);

		if (table >= 0)
			push_row(s, table, 't', "{}", 2);
	}
	return pgcdc_stream_maybe_flush(s, err);
}

static int on_commit(struct stream *s, const struct pgoutput_msg *m, struct sl_err *err)
{
	int rc = 0;

	s->txn.end_lsn = m->commit.end_lsn;
	if (s->txn_at == TXN_SKIP)
		s->st->skipped++;
	else if (stream_joined(s) || s->txn.nrows || s->nnotes)
		rc = pgcdc_stream_end_txn(s, err);
	/* a backlog that never lets up still commits now and then */
	if (!rc && stream_pending(s) && units_mono_us() - s->pending_since_us >= GROUP_MAX_US)
		pgcdc_stream_commit_pending(s, true);
	s->txn_at = TXN_NONE;
	pgoutput_cache_forget(s->cache);
	if (s->o->once && s->txn.end_lsn >= s->st->target_lsn)
		s->done = true;
	return rc;
}

/* A transaction begins: skipped when it landed before. While others wait
 * to commit, it joins their batch with its first changes (flush_held). */
static void on_begin(struct stream *s, const struct pgoutput_msg *m)
{
	/* landed: stored before this stream (sent again after a crash);
	 * taken: ended in this stream, committed or not */
	bool skip = m->begin.final_lsn <= pgcdc_lsn_max(s->landed, s->taken);

	s->txn_at = skip ? TXN_SKIP : TXN_TAKE;
	arena_reset(s->txn_a);
	s->txn = (struct pgcdc_txn){ .commit_lsn = m->begin.final_lsn, .xid = m->begin.xid };
	s->held_bytes = 0;
	/* committed after --once started: not this run's */
	if (s->o->once && !skip && m->begin.final_lsn >= s->st->target_lsn)
		s->done = true;
}

int pgcdc_stream_message(struct stream *s, const struct pgoutput_copy *cp, struct sl_err *err)
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
		rc = s->txn_at != TXN_NONE ? on_change(s, &m, err)
			       : sl_err_set(err, SL_E_PARSE, "a change outside a transaction");
		break;
	case PGOUTPUT_RELATION:
		rc = describe_types(s, &m.relation, err);
		if (!rc)
			rc = on_relation(s, &m.relation);
		break;
	case PGOUTPUT_TRUNCATE:
		rc = s->txn_at != TXN_NONE ? on_truncate(s, &m, err)
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
