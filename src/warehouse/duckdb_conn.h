/*
 * A connection of the DuckDB backend and the database it shares with the
 * other connections opened on it: what duckdb.c and the files that do one
 * job of the backend each (duckdb_doubt.c, duckdb_result.c,
 * duckdb_readonly.c, duckdb_append.c) hold in common. Private to the
 * DuckDB backend.
 */
#ifndef SL_WAREHOUSE_DUCKDB_CONN_H
#define SL_WAREHOUSE_DUCKDB_CONN_H

#include "warehouse/wh_impl.h"

#include <duckdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct duck_feed;

/* The database is shared by every connection opened on it and closed
 * with the last one. */
struct duck_db {
	duckdb_database db;
	int refs;
	pthread_mutex_t lock;
	/* Held by whatever may commit (a COMMIT, a statement outside a
	 * transaction), so that no commit completes while another one is
	 * under way. Once the WAL has outgrown checkpoint_threshold, DuckDB
	 * 1.4 commits a large transaction by checkpointing it instead of
	 * writing it to the WAL, and the other connections see it before it
	 * is on disk; should the checkpoint fail, a commit made meanwhile on
	 * what it read would be on disk without what it was made of (a
	 * watermark past rows that are not there). Behind the lock, that
	 * commit finds the database suspect instead. */
	pthread_mutex_t commit_lock;
	char *path; /* NULL in memory */
	/* set once, by the first failure that left the database in doubt,
	 * after why is written; why never changes after */
	atomic_bool suspect;
	char why[1024];
	struct duck_db *next_left; /* on the list of databases left open */
};

/* Statements kept prepared on a connection, by their SQL text. The hot
 * paths have a handful; past the cap a statement is prepared per call. */
#define PREPARED_MAX 64

struct duck_prepared {
	char *sql;
	duckdb_prepared_statement ps;
};

/* Queries found to return values that are cast to text in SQL
 * (prepare_as_text), with the text that casts them: a query run again is
 * then prepared once, not twice. As many as the kept statements. */
struct duck_wrapped {
	char *sql, *text;
	size_t reals; /* the columns cast that are FLOAT or DOUBLE */
	bool reals_only; /* and no other column is cast */
	/* Run sql as it is, its reals written through DuckDB one by one: it
	 * cast only reals and returned fewer than FEW_REALS last time, and
	 * preparing the wrapped text costs more than that (some 100 us, the
	 * price of writing about as many reals). */
	bool direct;
};

#define FEW_REALS 128

/* The feeds of a connection, one per table appended to (past the cap, or
 * for a table with a column of a type no feed takes, DuckDB's appender). */
#define FEEDS_MAX 32

struct duck_kept_feed {
	char *table; /* schema.table, NULL for a free entry */
	struct duck_feed *feed;
	bool open; /* an appender holds it; a second one of the table goes
		    * through DuckDB's */
};

struct wh_duckdb {
	struct wh base;
	struct duck_db *shared;
	duckdb_connection conn;
	char version[32];
	struct duck_prepared prepared[PREPARED_MAX];
	size_t nprepared;
	struct duck_wrapped wrapped[PREPARED_MAX];
	size_t nwrapped;
	struct duck_kept_feed feeds[FEEDS_MAX];
	size_t nfeeds;
	bool in_txn; /* a BEGIN ran, and no COMMIT or ROLLBACK since */
	struct wh_duckdb *next_left; /* on the list of connections left open */
};

static inline struct wh_duckdb *duck_conn(struct wh *w)
{
	return (struct wh_duckdb *)w;
}

#endif
