/*
 * The replication connection's status updates, sent on a thread of their
 * own as well as by the stream: a warehouse commit that takes longer than
 * the server's wal_sender_timeout must not end the connection. The
 * ticker's lock is the connection's: whoever calls libpq on it holds the
 * lock, and the ticker only ever repeats the LSN the stream last sent, so
 * it never confirms what the warehouse has not stored.
 */
#include "pgcdc/pgcdc_pg.h"

#include "core/err.h"
#include "core/units.h"
#include "pgcdc/pgoutput.h"

/* Under the lock: the status update, LSN lsn. */
static int send_locked(struct pgcdc_ticker *t, uint64_t lsn, bool reply, struct sl_err *err)
{
	uint8_t msg[PGOUTPUT_STATUS_LEN];
	int64_t now = units_now_ms() * 1000 - PGOUTPUT_EPOCH_UNIX_US;

	pgoutput_status_encode(msg, lsn, lsn, lsn, now, reply);
	if (PQputCopyData(t->conn, (const char *)msg, sizeof(msg)) != 1 || PQflush(t->conn))
		return pgcdc_pg_failed(t->conn, "cannot send the status update", err);
	t->lsn = lsn;
	t->last_us = units_mono_us();
	return 0;
}

static void *tick(void *arg)
{
	struct pgcdc_ticker *t = arg;

	pthread_mutex_lock(&t->wk.mu);
	while (!t->wk.stop) {
		int64_t due = t->last_us + t->every_us;

		if (units_mono_us() >= due) {
			/* a failure is the stream's to find on its next call */
			if (send_locked(t, t->lsn, false, NULL))
				t->last_us = units_mono_us();
			continue;
		}
		worker_wait_until_us(&t->wk, due);
	}
	pthread_mutex_unlock(&t->wk.mu);
	return NULL;
}

int pgcdc_ticker_start(struct pgcdc_ticker *t, PGconn *conn, uint64_t lsn, int64_t every_ms,
		       struct sl_err *err)
{
	t->conn = conn;
	t->lsn = lsn;
	t->every_us = every_ms * 1000;
	t->last_us = units_mono_us();
	return worker_start(&t->wk, tick, t, "cdc status", err);
}

void pgcdc_ticker_stop(struct pgcdc_ticker *t)
{
	worker_stop(&t->wk);
	worker_destroy(&t->wk);
}

int pgcdc_ticker_send(struct pgcdc_ticker *t, uint64_t lsn, bool reply, struct sl_err *err)
{
	int rc;

	pthread_mutex_lock(&t->wk.mu);
	rc = send_locked(t, lsn, reply, err);
	pthread_mutex_unlock(&t->wk.mu);
	return rc;
}
