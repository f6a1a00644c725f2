/*
 * The postgres_cdc consumer's loop over the replication connection: each
 * CopyData message read (pgoutput.h) and handed on, a keepalive's WAL end
 * and its reply, what a quiet stream does (the pending transactions'
 * commit, an idle slot's confirmation, --once's question), the
 * committer's signal and the stream's failures put into words. The start
 * and the end are pgcdc_start.c's, the messages pgcdc_message.c's, the
 * batches and what is confirmed pgcdc_confirm.c's.
 */
#include "pgcdc/pgcdc.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "pgcdc/pgcdc_pg.h"
#include "pgcdc/pgcdc_retry.h"
#include "pgcdc/pgcdc_stream.h"
#include "pgcdc/pgoutput.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <string.h>

/* --once: how long a quiet stream waits before asking where the server is */
#define PING_AFTER_MS 200
/* Ended transactions are committed once the stream has had nothing more
 * for GROUP_LINGER_MS, so a backlog lands several per warehouse commit
 * (GROUP_MAX_US at most); meanwhile the stream looks every
 * PENDING_POLL_MS. */
#define PENDING_POLL_MS 5
#define GROUP_LINGER_MS 2

static int on_copy(struct stream *s, const char *buf, int len, struct sl_err *err)
{
	struct pgoutput_copy cp;
	int rc = pgoutput_copy_decode(buf, (size_t)len, &cp, err);

	if (rc)
		return rc;
	s->heard = true;
	if (cp.kind == 'w')
		return pgcdc_stream_message(s, &cp, err);
	s->server_end = pgcdc_lsn_max(s->server_end, cp.wal_end);
	if (cp.reply_requested)
		rc = pgcdc_stream_send_status(s, false, err);
	if (!rc)
		rc = pgcdc_stream_confirm_idle(s, false, err);
	if (!rc)
		pgcdc_stream_tell(s, 0);
	if (s->o->once && s->txn_at == TXN_NONE && s->server_end >= s->st->target_lsn)
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

	if (stream_pending(s))
		pgcdc_stream_commit_pending(s, false);
	else
		rc = pgcdc_stream_confirm_idle(s, false, err);

	if (!rc && s->o->once && s->txn_at == TXN_NONE && !stream_pending(s))
		rc = pgcdc_stream_send_status(s, true, err);
	if (!rc && !stream_pending(s) && s->heard)
		pgcdc_stream_tell(s, 0);
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

	while (!rc && !s->done && !(s->o->stop && *s->o->stop && s->txn_at == TXN_NONE)) {
		char *buf = NULL;
		int n = get_copy(s, &buf);
		struct pollfd pfd[2] = { { .fd = s->fd, .events = POLLIN },
					 { .fd = s->committer.fd, .events = POLLIN } };

		if (n > 0) {
			rc = on_copy(s, buf, n, err);
			PQfreemem(buf);
			if (!rc)
				rc = pgcdc_stream_finish_commit(s, false, err);
			continue;
		}
		if (n < 0) {
			rc = stream_failed(s, n == -1, err);
			break;
		}
		if (stream_pending(s)) {
			bool more = false;

			/* a backlog comes in bursts between the server's
			 * sends: a moment's wait joins the next to this
			 * commit, which costs the same for one or many */
			rc = more_ready(s, linger_ms(s), &more, err);
			if (!rc && !more)
				pgcdc_stream_commit_pending(s, false);
			if (rc)
				break;
			if (more || !stream_pending(s))
				continue;
		}
		/* the committer's signal too: a commit's end is told at once */
		n = poll(pfd, s->state == ST_COMMITTING ? 2 : 1,
			 stream_pending(s) ? PENDING_POLL_MS : s->o->once ? PING_AFTER_MS : 1000);
		if (n < 0 && errno != EINTR)
			rc = sl_err_set(err, SL_E_IO, "source database: poll: %s", strerror(errno));
		else if (n == 0)
			rc = on_quiet(s, err);
		if (!rc && n > 0 && s->state == ST_COMMITTING && pfd[1].revents)
			rc = pgcdc_stream_finish_commit(s, false, err);
		if (!rc && n > 0 && pfd[0].revents)
			rc = consume(s, err);
	}
	if (!rc)
		rc = pgcdc_stream_settle(s, err);
	if (!rc)
		rc = pgcdc_stream_confirm_idle(s, true, err);
	return rc;
}

int pgcdc_run(struct wh *w, const struct pgcdc_cfg *c, const struct pgcdc_opts *opts,
	      struct pgcdc_stats *st, struct sl_err *err)
{
	struct stream s = { .c = c, .o = opts, .st = st, .w = w, .payload = BUF_INIT };
	int rc = pgcdc_stream_open(&s, err);

	if (!rc)
		rc = stream_loop(&s, err);
	pgcdc_stream_close(&s);
	return rc;
}
