/*
 * The DuckDB backend's errors and a database in doubt (README.md, "A
 * database in doubt"): DuckDB's errors as sl_err, the failures that make
 * the database suspect told from the others, and the commit lock that
 * serializes what may commit. Private to the DuckDB backend.
 */
#ifndef SL_WAREHOUSE_DUCKDB_DOUBT_H
#define SL_WAREHOUSE_DUCKDB_DOUBT_H

#include <duckdb.h>
#include <stdbool.h>

struct duck_db;
struct sl_err;
struct wh;
struct wh_duckdb;

/* Makes the database suspect when the failure leaves it in doubt: the
 * code for a failure with message msg (already in err). */
int duck_classify(struct duck_db *db, duckdb_error_type type, const char *msg,
		  struct sl_err *err);
/* Whether w's database is suspect, with why in err. */
bool duck_suspect(struct wh *w, struct sl_err *err);
/* A database in doubt is not asked anything more: true, err set, when d's
 * is suspect. */
bool duck_refused(struct wh_duckdb *d, struct sl_err *err);
/* res's error into err, classified; destroys res. */
int duck_error(struct wh_duckdb *d, duckdb_result *res, struct sl_err *err);
/* The same, never in doubt (SL_E_SQL): an error of a read in a READ ONLY
 * transaction, rolled back, changed nothing, whatever DuckDB calls it
 * (its database is opened not to invalidate itself on one). */
int duck_read_error(struct wh_duckdb *d, duckdb_result *res, struct sl_err *err);

/* Takes the commit lock for what may commit, and tells whether it did:
 * a COMMIT, or what runs outside a transaction (but a BEGIN, and, with
 * reads, a query that only reads). */
bool duck_lock_commit(struct wh_duckdb *d, const char *sql, bool reads);
void duck_unlock_commit(struct wh_duckdb *d, bool locked);
/* Whether ps (NULL: unknown) only reads. */
bool duck_only_reads(duckdb_prepared_statement ps);
/* A statement that ran (or failed) on d: where it leaves the transaction.
 * A script of several statements (BEGIN; ...; COMMIT) is taken to end
 * where it began. */
void duck_follow_transaction(struct wh_duckdb *d, const char *sql);

#endif
