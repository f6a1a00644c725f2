/*
 * This file implements the DuckDB backend's errors and its database in
 * doubt: DuckDB's errors become sl_err here, a failure that leaves the
 * database in doubt makes it suspect for every connection, and what may
 * commit takes the commit lock. It must never let a suspect database be
 * asked anything more.
 */
#include "warehouse/duckdb_doubt.h"

#include "core/err.h"
#include "warehouse/duckdb_conn.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Whether a failed statement leaves the database in doubt. Under ENOSPC
 * and EIO DuckDB 1.4 reports: an IO error naming the database file or its
 * WAL ("Could not write file \"x.duckdb\": No space left on device") where
 * a statement writes or reads blocks itself; a TransactionContext error
 * "Failed to commit: Could not write file ...", "Failed to commit: fsync
 * failed!" or "Failed to commit: Failed to create checkpoint because of
 * error: ..." from a COMMIT, or from a statement that commits on its own;
 * a FATAL error from a failed CHECKPOINT, a failed rollback and from every
 * statement after them ("database has been invalidated"). A checkpoint
 * that fails inside a commit leaves the database open but no longer
 * matching its file, and a checkpoint after that loses commits that were
 * acknowledged. A commit refused by a constraint is refused before
 * anything is written; an IO error on another file (a CSV that is not
 * there) is the query's own. */
static bool in_doubt(const struct duck_db *db, duckdb_error_type type, const char *msg)
{
	switch (type) {
	case DUCKDB_ERROR_FATAL:
	case DUCKDB_ERROR_INTERNAL:
		return true;
	case DUCKDB_ERROR_IO:
		return db->path && strstr(msg, db->path);
	case DUCKDB_ERROR_TRANSACTION:
		return strstr(msg, "Failed to commit") && !strstr(msg, "constraint violation");
	default:
		return false;
	}
}

int duck_classify(struct duck_db *db, duckdb_error_type type, const char *msg,
		  struct sl_err *err)
{
	if (!in_doubt(db, type, msg))
		return SL_E_SQL;
	pthread_mutex_lock(&db->lock);
	if (!atomic_load(&db->suspect)) {
		snprintf(db->why, sizeof(db->why), "%s", msg);
		atomic_store(&db->suspect, true);
	}
	pthread_mutex_unlock(&db->lock);
	if (err)
		err->code = SL_E_SUSPECT;
	return SL_E_SUSPECT;
}

bool duck_suspect(struct wh *w, struct sl_err *err)
{
	struct duck_db *db = duck_conn(w)->shared;

	if (!atomic_load(&db->suspect))
		return false;
	sl_err_set(err, SL_E_SUSPECT, "%s", db->why);
	return true;
}

bool duck_refused(struct wh_duckdb *d, struct sl_err *err)
{
	return duck_suspect(&d->base, err);
}

/* DuckDB's message already quotes the failing line with a caret; some
 * errors carry that quote twice, and once is enough. */
static int report(struct wh_duckdb *d, duckdb_result *res, bool classify, struct sl_err *err)
{
	const char *msg = duckdb_result_error(res);
	char *quote, *trace;
	size_t len;
	int rc = SL_E_SQL;

	if (!msg || !*msg)
		msg = "unknown DuckDB error";
	sl_err_set(err, SL_E_SQL, "%s", msg);
	if (classify)
		rc = duck_classify(d->shared, duckdb_result_error_type(res), msg, err);
	duckdb_destroy_result(res);
	/* an internal error carries DuckDB's stack, addresses and all: no
	 * reader of the message needs it */
	if (err && (trace = strstr(err->msg, "\n\nStack Trace:")) != NULL)
		*trace = '\0';
	if (err && (quote = strstr(err->msg, "\n\nLINE ")) != NULL) {
		len = strlen(quote);
		if (len % 2 == 0 && memcmp(quote, quote + len / 2, len / 2) == 0)
			quote[len / 2] = '\0';
	}
	return rc;
}

int duck_error(struct wh_duckdb *d, duckdb_result *res, struct sl_err *err)
{
	return report(d, res, true, err);
}

int duck_read_error(struct wh_duckdb *d, duckdb_result *res, struct sl_err *err)
{
	return report(d, res, false, err);
}

/* Whether sql is the one statement word (BEGIN, COMMIT, ...), in any case,
 * with what may follow it (BEGIN TRANSACTION) but no second statement. */
static bool is_statement(const char *sql, const char *word)
{
	size_t n = strlen(word);

	while (isspace((unsigned char)*sql))
		sql++;
	return strncasecmp(sql, word, n) == 0 && !isalnum((unsigned char)sql[n]) &&
	       !strchr(sql + n, ';');
}

bool duck_lock_commit(struct wh_duckdb *d, const char *sql, bool reads)
{
	bool may = is_statement(sql, "COMMIT") ||
		   (!d->in_txn && !reads && !is_statement(sql, "BEGIN"));

	if (may)
		pthread_mutex_lock(&d->shared->commit_lock);
	return may;
}

bool duck_only_reads(duckdb_prepared_statement ps)
{
	return ps && duckdb_prepared_statement_type(ps) == DUCKDB_STATEMENT_TYPE_SELECT;
}

void duck_unlock_commit(struct wh_duckdb *d, bool locked)
{
	if (locked)
		pthread_mutex_unlock(&d->shared->commit_lock);
}

void duck_follow_transaction(struct wh_duckdb *d, const char *sql)
{
	if (is_statement(sql, "BEGIN"))
		d->in_txn = true;
	else if (is_statement(sql, "COMMIT") || is_statement(sql, "ROLLBACK"))
		d->in_txn = false;
}

