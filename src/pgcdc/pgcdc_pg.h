/*
 * What the postgres_cdc consumer's files share: about speaking to the
 * source database over libpq (pgcdc_pg.c: connecting, running a
 * statement, an error put into words, a table's quoted name, the
 * session's output settings, an LSN), the initial snapshot, the filling
 * of unchanged TOAST values, the status updates, the committer, the
 * catalog and what the server says of a slot for the status.
 * Internal to src/pgcdc/pgcdc*.c (and their tests); the rest of the tree
 * sees pgcdc.h.
 */
#ifndef SL_PGCDC_PGCDC_PG_H
#define SL_PGCDC_PGCDC_PG_H

#include "core/err.h"
#include "core/worker.h"

#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct pgcdc_cfg;
struct pgcdc_batch;
struct pgcdc_txn;
struct pgoutput_relation;
struct pgoutput_tuple;
struct sl_err;
struct wh;

/* A landing table's schema into schema (n bytes), *table its name;
 * SL_E_USAGE naming it without a dot (pgcdc_land.c). */
int pgcdc_split_landing(const char *landing, char *schema, size_t n, const char **table,
			struct sl_err *err);

/* SL_E_IO naming what failed and the server's message. */
int pgcdc_pg_failed(PGconn *conn, const char *what, struct sl_err *err);

/* A connection to dsn (client_encoding UTF8), replication=database when
 * asked; *out must be closed with PQfinish. */
int pgcdc_pg_connect(const char *dsn, bool replication, PGconn **out, struct sl_err *err);

/* Runs sql with up to one text parameter; *res gets the result (may be
 * NULL: cleared), the caller's to PQclear. */
int pgcdc_pg_run(PGconn *conn, const char *sql, const char *param, ExecStatusType want,
		 PGresult **res, struct sl_err *err);

/* The output settings pgoutput_tuple_json reads values in (DateStyle ISO,
 * UTC, hex bytea, every float digit), set on conn. */
int pgcdc_pg_settings(PGconn *conn, struct sl_err *err);

/* An LSN as the server writes it ("16/B374D848") into *out; SL_E_PARSE
 * when s is NULL or not one. */
int pgcdc_pg_lsn(const char *s, uint64_t *out);

static inline uint64_t pgcdc_lsn_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* "schema.name" as a quoted SQL name. */
void pgcdc_pg_add_table(struct buf *b, const char *table);

/* Lands the rows of every table of c's slot as the exported snapshot
 * snapshot_name sees them (a normal connection imports it), in one
 * warehouse transaction with the slot's row: lsn is the slot's
 * consistent point. *rows gets how many landed. The rows are read 256
 * at a time and each batch appended before the next is read;
 * a and batch_a are reset between batches. */
int pgcdc_snapshot_take(struct wh *w, const struct pgcdc_cfg *c, const char *snapshot_name,
			uint64_t lsn, struct arena *a, struct arena *batch_a, int64_t *rows,
			struct sl_err *err);

/* Appends the payload JSON of t, the new row of an update of c's table
 * (an index into c->tables), to out, its unchanged TOAST values filled
 * from the latest earlier row of its key, the key columns of key_of (t,
 * or the old key of an update that moved the row to another key): the
 * last of txn's rows (the changes of the source transaction still held),
 * else the landing table's row of the key with the newest sequence and
 * place. An error names the table, the key and the column when there is
 * no such row or it lacks the column (pgcdc_toast.c). */
int pgcdc_toast_json(struct wh *w, const struct pgcdc_cfg *c, size_t table,
		     const struct pgcdc_txn *txn, const struct pgoutput_relation *rel,
		     const struct pgoutput_tuple *key_of, const struct pgoutput_tuple *t,
		     struct buf *out, struct sl_err *err);

/* The status updates of a streaming replication connection, repeated
 * every every_ms from a thread of its own (pgcdc_ticker.c). wk.mu is the
 * connection's lock: hold it around every libpq call on conn while the
 * ticker runs. */
struct pgcdc_ticker {
	struct worker wk;
	PGconn *conn;
	/* under wk.mu: the LSN sent last, repeated; when */
	uint64_t lsn;
	int64_t last_us, every_us;
};

int pgcdc_ticker_start(struct pgcdc_ticker *t, PGconn *conn, uint64_t lsn, int64_t every_ms,
		       struct sl_err *err);
void pgcdc_ticker_stop(struct pgcdc_ticker *t);
/* Sends a status update of lsn now (takes the lock); the ticker repeats
 * it from then on. */
int pgcdc_ticker_send(struct pgcdc_ticker *t, uint64_t lsn, bool reply, struct sl_err *err);

/* A batch's commit (pgcdc_batch_commit) on a thread of its own, so that
 * the stream is read and decoded while the warehouse commits
 * (pgcdc_commit.c). One at a time: from the submit until
 * pgcdc_committer_ended has said so, the warehouse connection and the
 * batch are the committer's. fd becomes readable when a commit ends. */
struct pgcdc_committer {
	struct worker wk;
	int fd;
	atomic_bool ended;
	/* under wk.mu: the commit asked for, and how it ended */
	bool busy;
	struct wh *w;
	const struct pgcdc_cfg *c;
	struct pgcdc_batch *b;
	uint64_t end_lsn;
	bool wait;
	int rc;
	bool done;
	struct sl_err err;
};

int pgcdc_committer_start(struct pgcdc_committer *k, struct sl_err *err);
/* Waits for a commit under way, then ends the thread. */
void pgcdc_committer_stop(struct pgcdc_committer *k);
void pgcdc_committer_submit(struct pgcdc_committer *k, struct wh *w, const struct pgcdc_cfg *c,
			    struct pgcdc_batch *b, uint64_t end_lsn, bool wait);
/* Whether the commit submitted last has ended (with block, once it has):
 * then *rc, *done and, on failure, err are pgcdc_batch_commit's. */
bool pgcdc_committer_ended(struct pgcdc_committer *k, bool block, int *rc, bool *done,
			   struct sl_err *err);

/* A table's primary key, its column names (n 0: it has none). */
struct pgcdc_key {
	const char **names;
	size_t n;
};

/* The primary key of table ("schema.name") from the source database's
 * catalog, into a (pgcdc_catalog.c). */
int pgcdc_catalog_keys(PGconn *conn, struct arena *a, const char *table, struct pgcdc_key *out,
		       struct sl_err *err);

/* A table's replica identity (pg_class.relreplident: 'd' default, 'n'
 * nothing, 'f' full, 'i' index) and whether it has a primary key
 * (pgcdc_catalog.c). */
int pgcdc_catalog_identity(PGconn *conn, const char *table, char *ident, bool *pk,
			   struct sl_err *err);

struct pgoutput_types;

/* What the catalog says now of the types of rel's columns that are not
 * built in, and of every type they are made of, into types, replacing
 * what it said of them before (pgcdc_catalog.c). */
int pgcdc_catalog_types(PGconn *conn, const struct pgoutput_relation *rel,
			struct pgoutput_types *types, struct sl_err *err);

/* What the source server says of a slot (pgcdc_probe.c). */
struct pgcdc_probe {
	bool have;	       /* the server has the slot */
	char wal_status[16];   /* reserved, extended, unreserved or lost; "" when NULL */
	bool safe_known;       /* safe_wal_size is not NULL (NULL: no limit, or lost) */
	int64_t safe_wal_size; /* bytes of WAL that may still be written before it is lost */
	uint64_t server_lsn;   /* pg_current_wal_lsn() */
};

/* Reads p for slot over conn, a normal connection, in one query. */
int pgcdc_probe_read(PGconn *conn, const char *slot, struct pgcdc_probe *out,
		     struct sl_err *err);

#endif
