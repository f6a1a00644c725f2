/*
 * A slot's consumer on its own thread, and a second thread that asks the
 * source server of the slot (pgcdc_probe_read) every few seconds, on a
 * normal connection of its own: the consumer only speaks when something
 * lands or a keepalive comes, and not at all while it takes a snapshot or
 * waits to try again, which is when the slot's WAL matters most. Both copy
 * their figures under the consumer's lock, so a status read never waits
 * for the source database.
 */
#include "pgcdc/pgcdc_thread.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "pgcdc/pgcdc.h"
#include "pgcdc/pgcdc_pg.h"
#include "pgcdc/pgcdc_retry.h"
#include "project/config.h"
#include "project/project.h"
#include "warehouse/wh.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* how often the probe asks the source server of the slot */
#define PROBE_EVERY_MS 5000
/* how often a consumer whose warehouse connection is lost tries it */
#define RECONNECT_POLL_MS 100

struct pgcdc_thread {
	struct worker wk;
	struct arena *a;
	struct pgcdc_cfg cfg;
	const char *sources; /* "orders, order_lines" */
	struct wh *w;
	pgcdc_landed_fn landed;
	void *ctx;
	volatile sig_atomic_t stop;
	bool stopped; /* joined */
	/* under wk.mu */
	bool streaming;
	struct pgcdc_stats st; /* the attempt running; those that ended: retry.total */
	struct pgcdc_retry retry;
	uint64_t wal_end;
	int64_t behind_since_ms; /* wall clock: since the server was ahead; 0 caught up */
	bool probed; /* slot holds what the server said at the last probe */
	struct pgcdc_probe slot;
	/* counts the starts of streaming: a probe begun before the last one
	 * may have asked before the consumer made the slot, and is not kept */
	uint64_t probe_epoch;
	/* the probe's thread; probe_now (under probe.mu): ask again at once */
	struct worker probe;
	bool probe_now;
};

/* The probe asks the server now rather than at its next turn: the slot's
 * figures change when the consumer starts streaming or fails. */
static void probe_ask(struct pgcdc_thread *t)
{
	pthread_mutex_lock(&t->probe.mu);
	t->probe_now = true;
	pthread_cond_signal(&t->probe.cv);
	pthread_mutex_unlock(&t->probe.mu);
}

/* Under wk.mu: the LSNs as they stand, across attempts (0: not known yet). */
static uint64_t landed_lsn(const struct pgcdc_thread *t)
{
	return pgcdc_lsn_max(t->retry.total.landed_lsn, t->st.landed_lsn);
}

static uint64_t confirmed_lsn(const struct pgcdc_thread *t)
{
	return pgcdc_lsn_max(t->retry.total.confirmed_lsn, t->st.confirmed_lsn);
}

/* Under wk.mu: the server's WAL is at lsn (a keepalive said so, or the
 * probe asked). The lag counts from the consumer's confirmed LSN, once it
 * is known. */
static void server_at(struct pgcdc_thread *t, uint64_t lsn)
{
	uint64_t confirmed = confirmed_lsn(t);

	t->wal_end = pgcdc_lsn_max(t->wal_end, lsn);
	if (!confirmed || t->wal_end <= confirmed)
		t->behind_since_ms = 0;
	else if (!t->behind_since_ms)
		t->behind_since_ms = units_now_ms();
}

static void on_progress(void *ctx, const struct pgcdc_stats *st, uint64_t wal_end, int64_t seq)
{
	struct pgcdc_thread *t = ctx;
	struct pgcdc_landed landed = { .slot = t->cfg.slot, .seq = seq };

	pthread_mutex_lock(&t->wk.mu);
	if (!t->streaming) {
		t->probe_epoch++;
		t->probed = false;
		probe_ask(t);
	}
	/* what this commit added: st counts the attempt's */
	landed.txns = st->txns - t->st.txns;
	landed.changes = st->rows - t->st.rows;
	t->streaming = true;
	t->st = *st;
	server_at(t, wal_end);
	pgcdc_retry_progress(&t->retry, st, seq > 0, units_mono_ms());
	pthread_mutex_unlock(&t->wk.mu);
	if (seq && t->landed)
		t->landed(t->ctx, &landed);
}

static void *run(void *arg)
{
	struct pgcdc_thread *t = arg;
	struct pgcdc_opts opts = { .stop = &t->stop, .progress = on_progress, .ctx = t, .a = t->a };

	pthread_mutex_lock(&t->wk.mu);
	while (!t->wk.stop) {
		struct sl_err err = SL_ERR_INIT;
		struct pgcdc_stats st;
		int rc;

		pthread_mutex_unlock(&t->wk.mu);
		rc = pgcdc_run(t->w, &t->cfg, &opts, &st, &err);
		pthread_mutex_lock(&t->wk.mu);
		t->streaming = false;
		pgcdc_retry_ended(&t->retry, &st);
		t->st = (struct pgcdc_stats){ 0 };
		if (t->wk.stop)
			break;
		probe_ask(t);
		/* the one place a slot's failure is recorded (the status, the
		 * log): several slots share them */
		sl_err_context(&err, "in source %s (slot %s)", t->cfg.name, t->cfg.slot);
		/* every failure is tried again, those pgcdc_retry_mends does
		 * not expect to mend too: the server stays up for its other
		 * work, and a fix on the source database (the publication
		 * made, the REPLICATION attribute granted) is taken up without
		 * a restart; the status shows the error meanwhile */
		pgcdc_retry_failed(&t->retry, rc, &err);
		/* a warehouse in doubt is the process's to answer: no retry */
		if (wh_suspect(t->w, NULL))
			break;
		while (!t->wk.stop && units_mono_ms() < t->retry.next_attempt_ms) {
			bool up;

			if (!wh_lost(t->w)) {
				worker_wait_until(&t->wk, t->retry.next_attempt_ms);
				continue;
			}
			/* the warehouse's connection was lost: the next attempt
			 * starts as soon as it is opened again, resuming from the
			 * LSN the warehouse stored */
			pthread_mutex_unlock(&t->wk.mu);
			up = wh_reconnect(t->w, NULL) == 0;
			pthread_mutex_lock(&t->wk.mu);
			if (up)
				break;
			worker_wait_until(&t->wk, units_mono_ms() + RECONNECT_POLL_MS);
		}
	}
	pthread_mutex_unlock(&t->wk.mu);
	return NULL;
}

/* One probe, on *conn (connected first when NULL, closed after a failure);
 * what it found goes under wk.mu, or nothing when the server did not
 * answer: then the status shows the slot's figures as unknown. A probe
 * overtaken by the start of streaming is dropped: it may have asked
 * before the consumer made the slot, and would show it missing. */
static void probe_once(struct pgcdc_thread *t, PGconn **conn)
{
	struct pgcdc_probe p;
	uint64_t epoch;
	int rc;

	pthread_mutex_lock(&t->wk.mu);
	epoch = t->probe_epoch;
	pthread_mutex_unlock(&t->wk.mu);
	rc = *conn ? 0 : pgcdc_pg_connect(t->cfg.dsn, false, conn, NULL);
	if (!rc)
		rc = pgcdc_probe_read(*conn, t->cfg.slot, &p, NULL);
	if (rc && *conn) {
		PQfinish(*conn);
		*conn = NULL;
	}
	pthread_mutex_lock(&t->wk.mu);
	if (epoch == t->probe_epoch) {
		t->probed = !rc;
		if (!rc) {
			t->slot = p;
			server_at(t, p.server_lsn);
		}
	}
	pthread_mutex_unlock(&t->wk.mu);
}

static void *probe_run(void *arg)
{
	struct pgcdc_thread *t = arg;
	PGconn *conn = NULL;

	pthread_mutex_lock(&t->probe.mu);
	while (!t->probe.stop) {
		int64_t next;

		t->probe_now = false;
		pthread_mutex_unlock(&t->probe.mu);
		probe_once(t, &conn);
		pthread_mutex_lock(&t->probe.mu);
		next = units_mono_ms() + PROBE_EVERY_MS;
		while (!t->probe.stop && !t->probe_now && units_mono_ms() < next)
			worker_wait_until(&t->probe, next);
	}
	pthread_mutex_unlock(&t->probe.mu);
	if (conn)
		PQfinish(conn);
	return NULL;
}

int pgcdc_thread_start(struct arena *parent, const struct project *p,
		       const struct source_cfg *src, struct wh *w, FILE *log,
		       pgcdc_landed_fn landed, void *ctx, struct pgcdc_thread **out,
		       struct sl_err *err)
{
	const struct project_cfg *cfg = &p->cfg;
	struct pgcdc_thread *t = xcalloc(1, sizeof(*t));
	char *names;
	size_t len = 0;
	int rc;

	t->a = arena_new(parent);
	rc = pgcdc_cfg_of(t->a, p, src, &t->cfg, err);
	if (rc) {
		arena_free(t->a);
		free(t);
		return rc;
	}
	for (size_t i = 0; i < cfg->nsources; i++)
		if (pgcdc_source(&cfg->sources[i]) && strcmp(cfg->sources[i].slot, src->slot) == 0)
			len += strlen(cfg->sources[i].name) + 2;
	names = arena_alloc(t->a, len + 1);
	names[0] = '\0';
	for (size_t i = 0; i < cfg->nsources; i++)
		if (pgcdc_source(&cfg->sources[i]) && strcmp(cfg->sources[i].slot, src->slot) == 0) {
			if (names[0])
				strcat(names, ", ");
			strcat(names, cfg->sources[i].name);
		}
	t->sources = names;
	t->w = w;
	pgcdc_retry_init(&t->retry, t->cfg.slot, log);
	t->landed = landed;
	t->ctx = ctx;
	rc = worker_start(&t->probe, probe_run, t, "postgres_cdc probe", err);
	if (!rc && (rc = worker_start(&t->wk, run, t, "postgres_cdc consumer", err))) {
		worker_stop(&t->probe);
		worker_destroy(&t->probe);
	}
	if (rc) {
		arena_free(t->a);
		free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void pgcdc_thread_stop(struct pgcdc_thread *t)
{
	if (!t || t->stopped)
		return;
	t->stop = 1;
	worker_stop(&t->wk);
	worker_stop(&t->probe);
	t->stopped = true;
}

void pgcdc_thread_free(struct pgcdc_thread *t)
{
	if (!t)
		return;
	pgcdc_thread_stop(t);
	worker_destroy(&t->wk);
	worker_destroy(&t->probe);
	wh_close(t->w);
	arena_free(t->a);
	free(t);
}

bool pgcdc_thread_down(struct pgcdc_thread *t)
{
	return wh_lost(t->w);
}

const char *pgcdc_thread_sources(const struct pgcdc_thread *t)
{
	return t->sources;
}

/* An LSN as PostgreSQL writes it: 0/16B3748. */
static json_t *lsn_text(uint64_t lsn)
{
	char out[24];

	snprintf(out, sizeof(out), "%X/%X", (unsigned)(lsn >> 32), (unsigned)lsn);
	return json_string(out);
}

/* Under wk.mu: the slot's wal_status as the last probe found it, "missing"
 * when the server has no such slot, NULL when unknown. */
static const char *wal_status(const struct pgcdc_thread *t)
{
	if (!t->probed)
		return NULL;
	if (!t->slot.have)
		return "missing";
	return t->slot.wal_status[0] ? t->slot.wal_status : NULL;
}

/* Under wk.mu: a lost slot is said first, whatever the consumer does: it
 * cannot stream from it again. */
static const char *state(const struct pgcdc_thread *t)
{
	const char *ws = wal_status(t);

	if (ws && strcmp(ws, "lost") == 0)
		return "lost";
	return t->retry.failures ? "failing" : t->streaming ? "streaming" : "starting";
}

json_t *pgcdc_thread_status(struct pgcdc_thread *t)
{
	json_t *o = json_object();
	int64_t now = units_now_ms(), wait;
	uint64_t confirmed;
	const char *ws;

	pthread_mutex_lock(&t->wk.mu);
	wait = t->retry.failures ? t->retry.next_attempt_ms - units_mono_ms() : 0;
	confirmed = confirmed_lsn(t);
	ws = wal_status(t);
	json_object_set_new(o, "slot", json_string(t->cfg.slot));
	json_object_set_new(o, "sources", json_string(t->sources));
	json_object_set_new(o, "state", json_string(state(t)));
	json_object_set_new(o, "landed_lsn", lsn_text(landed_lsn(t)));
	json_object_set_new(o, "confirmed_lsn", lsn_text(confirmed));
	json_object_set_new(o, "server_lsn", lsn_text(t->wal_end));
	json_object_set_new(o, "lag_bytes",
			    json_integer(confirmed && t->wal_end > confirmed
						 ? (json_int_t)(t->wal_end - confirmed)
						 : 0));
	json_object_set_new(o, "wal_status", ws ? json_string(ws) : json_null());
	json_object_set_new(o, "safe_wal_size", t->probed && t->slot.safe_known
							? json_integer(t->slot.safe_wal_size)
							: json_null());
	json_object_set_new(o, "lag_ms",
			    json_integer(t->behind_since_ms ? now - t->behind_since_ms : 0));
	json_object_set_new(o, "transactions", json_integer(t->retry.total.txns + t->st.txns));
	json_object_set_new(o, "changes", json_integer(t->retry.total.rows + t->st.rows));
	json_object_set_new(o, "failures", json_integer(t->retry.failures));
	json_object_set_new(o, "last_error", t->retry.last_error[0]
						     ? json_string(t->retry.last_error)
						     : json_null());
	json_object_set_new(o, "next_attempt_in_ms", json_integer(wait > 0 ? wait : 0));
	pthread_mutex_unlock(&t->wk.mu);
	return o;
}
