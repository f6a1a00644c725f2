/*
 * The source side of the postgres_cdc latency benchmark: commits a paced
 * stream of changes into one table of a PostgreSQL database and measures,
 * for each transaction, the time from the return of its COMMIT to
 *
 *   - landed: the consumer's slot confirmed its end LSN (sluice confirms a
 *     transaction only after the warehouse transaction that lands it has
 *     committed), read from pg_replication_slots every --poll-ms;
 *   - received by a bare replication client on a second slot (the engine
 *     alone: libpq, START_REPLICATION with pgoutput, every Commit confirmed
 *     at once, nothing done with the changes), both when its thread read
 *     the Commit and when the source showed it confirmed, polled as above;
 *   - covered (with --status): GET /api/live/status of `sluice serve`, read
 *     after each `refresh` event of the model on GET /api/live/events,
 *     gives the model's covered sequence; --timeline writes when it
 *     reached what, for bench/run.sh to set against each transaction's
 *     landing sequence once the warehouse can be read.
 *
 * No sluice code: libpq, libcurl and jansson only. It writes only into the
 * table it is given, never reads a warehouse and never creates a slot.
 *
 *   cdc_latency --dsn DSN --table NAME --slot SLOT [--raw-slot SLOT
 *               --publication PUB] [--status URL --model NAME]
 *               [--seconds 20] [--rate 10000] [--txn 100] [--poll-ms 2]
 *               [--wait 30] [--dump FILE] [--timeline FILE]
 *
 * The table is (id BIGINT PRIMARY KEY, txn BIGINT, amount BIGINT, note
 * TEXT), empty, in the publications of both slots, and the slots exist
 * before the first transaction. Transaction k (of --txn changes) inserts
 * half of its changes as new ids carrying txn = k, updates three tenths
 * (ids of transaction k-1) and deletes the rest (ids of transaction k-2
 * that no update touched): no key changes twice in one transaction. A
 * warm-up transaction (txn 0) goes first and is waited for on every side
 * (with --status, until the model's covered sequence stays put), and so
 * is the last one at the end. A transaction's LSN is pg_current_wal_lsn()
 * right after the COMMIT, in the
 * same round trip: the commit's end when nothing else writes WAL at that
 * moment, later otherwise (then a transaction counts as landed with a
 * later one).
 *
 * Prints one line per measure; all times are upper bounds: landed and
 * confirmed late by at most one poll interval and one poll, covered by one
 * status read. After the last transaction it waits --wait seconds at most;
 * a transaction not there by then counts as lagging until then. Exits 0
 * unless it cannot run (a statement or a connection failed). --dump
 * writes a line per transaction: its number, its commit (ms since the
 * first), its changes, and its landed, received and confirmed latencies
 * (ms, -1 for none or not measured); --timeline a line per status read
 * that saw the covered sequence rise: the time (ms since the first
 * commit) and the sequence.
 *
 * Built by `make bench` (the Makefile's bench rule).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#define RAW_NAME "cdc_latency"
#include "raw_pg.h"

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../tests/tools/live_status.h"

/* PostgreSQL's epoch (2000-01-01) in unix microseconds */
#define PG_EPOCH_US 946684800000000LL

struct opts {
	const char *dsn, *table, *slot, *raw_slot, *publication, *status, *model, *dump, *timeline;
	double seconds;
	int rate, txn, poll_ms, wait_s;
};

/* What one thread saw change, in time order: (time, value) pairs. */
struct timeline {
	pthread_mutex_t mu;
	int64_t *t, *v;
	size_t n, cap;
};

static atomic_bool stopping;

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sleep_until_us(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000, .tv_nsec = (t % 1000000) * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory", NULL);
	return p;
}

static void timeline_init(struct timeline *tl)
{
	*tl = (struct timeline){ .cap = 1024 };
	pthread_mutex_init(&tl->mu, NULL);
	tl->t = xcalloc(tl->cap, sizeof(*tl->t));
	tl->v = xcalloc(tl->cap, sizeof(*tl->v));
}

/* Notes v at t when it is above the last value noted. */
static void timeline_note(struct timeline *tl, int64_t t, int64_t v)
{
	pthread_mutex_lock(&tl->mu);
	if (!tl->n || v > tl->v[tl->n - 1]) {
		if (tl->n == tl->cap) {
			tl->cap *= 2;
			tl->t = realloc(tl->t, tl->cap * sizeof(*tl->t));
			tl->v = realloc(tl->v, tl->cap * sizeof(*tl->v));
			if (!tl->t || !tl->v)
				die("out of memory", NULL);
		}
		tl->t[tl->n] = t;
		tl->v[tl->n++] = v;
	}
	pthread_mutex_unlock(&tl->mu);
}

/* The first time the value reached v, or -1. */
static int64_t timeline_reached(struct timeline *tl, int64_t v)
{
	int64_t t = -1;
	size_t lo = 0, hi;

	pthread_mutex_lock(&tl->mu);
	hi = tl->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (tl->v[mid] >= v)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < tl->n)
		t = tl->t[lo];
	pthread_mutex_unlock(&tl->mu);
	return t;
}

static int64_t timeline_last(struct timeline *tl)
{
	int64_t v;

	pthread_mutex_lock(&tl->mu);
	v = tl->n ? tl->v[tl->n - 1] : -1;
	pthread_mutex_unlock(&tl->mu);
	return v;
}

/* ---- the source's view of the slots: confirmed_flush_lsn ---- */

struct slots_poll {
	const struct opts *o;
	struct timeline landed, raw_confirmed;
	long polls;
	int64_t poll_us;
};

static void *slots_run(void *arg)
{
	struct slots_poll *p = arg;
	const struct opts *o = p->o;
	PGconn *conn = connect_pg(o->dsn);
	const char *params[2] = { o->slot, o->raw_slot ? o->raw_slot : o->slot };
	PGresult *res = PQprepare(conn, "slots",
				  "SELECT slot_name = $1, (confirmed_flush_lsn - '0/0')::bigint FROM "
				  "pg_replication_slots WHERE slot_name IN ($1, $2) AND "
				  "confirmed_flush_lsn IS NOT NULL",
				  2, NULL);

	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		die("cannot prepare the slots' query", PQerrorMessage(conn));
	PQclear(res);
	while (!atomic_load(&stopping)) {
		int64_t t0 = now_us(), t;

		res = PQexecPrepared(conn, "slots", 2, params, NULL, NULL, 0);
		if (PQresultStatus(res) != PGRES_TUPLES_OK)
			die("cannot read pg_replication_slots", PQerrorMessage(conn));
		t = now_us();
		for (int i = 0; i < PQntuples(res); i++) {
			int64_t lsn = strtoll(PQgetvalue(res, i, 1), NULL, 10);

			timeline_note(strcmp(PQgetvalue(res, i, 0), "t") == 0 ? &p->landed
									     : &p->raw_confirmed,
				      t, lsn);
		}
		PQclear(res);
		p->polls++;
		p->poll_us += t - t0;
		sleep_until_us(t0 + o->poll_ms * 1000LL);
	}
	PQfinish(conn);
	return NULL;
}

/* ---- the engine alone: a bare pgoutput receiver on the raw slot ---- */

struct receiver {
	const struct opts *o;
	PGconn *conn;
	struct timeline received; /* end LSN of each Commit as it was read */
};

static uint64_t be64(const char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | (uint8_t)p[i];
	return v;
}

static void put64(char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (char)(v & 0xff);
}

/* The standby status update: written, flushed and applied up to lsn. */
static void receiver_confirm(struct receiver *r, uint64_t lsn)
{
	char msg[34];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	msg[0] = 'r';
	put64(msg + 1, lsn);
	put64(msg + 9, lsn);
	put64(msg + 17, lsn);
	put64(msg + 25, (uint64_t)((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - PG_EPOCH_US));
	msg[33] = 0;
	if (PQputCopyData(r->conn, msg, sizeof(msg)) != 1 || PQflush(r->conn))
		die("cannot send a status update", PQerrorMessage(r->conn));
}

static void *receiver_run(void *arg)
{
	struct receiver *r = arg;
	uint64_t confirmed = 0;

	while (!atomic_load(&stopping)) {
		struct pollfd pfd = { .fd = PQsocket(r->conn), .events = POLLIN };
		char *buf = NULL;
		int n = PQgetCopyData(r->conn, &buf, 1);

		if (n > 0) {
			/* XLogData: 'w', start, end, time, then the pgoutput message */
			if (buf[0] == 'w' && n >= 1 + 24 + 1 + 1 + 16 && buf[25] == 'C') {
				uint64_t end = be64(buf + 25 + 2 + 8);

				timeline_note(&r->received, now_us(), (int64_t)end);
				receiver_confirm(r, end);
				confirmed = end;
			} else if (buf[0] == 'k' && n >= 18 && buf[17]) {
				/* a keepalive that asks for an answer */
				receiver_confirm(r, confirmed);
			}
			PQfreemem(buf);
			continue;
		}
		if (n < 0)
			die("the replication stream ended", PQerrorMessage(r->conn));
		if (poll(&pfd, 1, 100) > 0 && !PQconsumeInput(r->conn))
			die("replication stream", PQerrorMessage(r->conn));
	}
	return NULL;
}

static void receiver_start(struct receiver *r)
{
	const struct opts *o = r->o;
	const char *keys[] = { "dbname", "replication", NULL };
	const char *values[] = { o->dsn, "database", NULL };
	char sql[512];
	PGresult *res;

	r->conn = PQconnectdbParams(keys, values, 1);
	if (PQstatus(r->conn) != CONNECTION_OK)
		die("cannot open a replication connection", PQerrorMessage(r->conn));
	snprintf(sql, sizeof(sql),
		 "START_REPLICATION SLOT \"%s\" LOGICAL 0/0 (proto_version '1', "
		 "publication_names '\"%s\"')",
		 o->raw_slot, o->publication);
	res = PQexec(r->conn, sql);
	if (PQresultStatus(res) != PGRES_COPY_BOTH)
		die("START_REPLICATION failed", PQerrorMessage(r->conn));
	PQclear(res);
}

/* ---- sluice serve: the model's covered sequence ---- */

struct body {
	char *buf;
	size_t len;
};

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct body *b = ctx;
	char *grown = realloc(b->buf, b->len + size * n + 1);

	if (!grown)
		die("out of memory", NULL);
	b->buf = grown;
	memcpy(b->buf + b->len, data, size * n);
	b->len += size * n;
	b->buf[b->len] = '\0';
	return size * n;
}

/* The status is read when GET /api/live/events says the model refreshed
 * (the server marks its status stale before it sends the event, so the
 * read that follows waits for a document built after the refresh), not on
 * a clock: every read of a stale status costs the server a build on the
 * warehouse the consumer writes to. */
struct status_poll {
	const struct opts *o;
	CURL *get;	     /* GET /api/live/status, on the events thread */
	struct timeline covered;
	struct body pending; /* the event stream's unfinished event */
	long events, polls, failed;
	int64_t poll_us;
};

/* The model's covered sequence now, by a GET on curl, or -1. */
static int64_t status_covered(CURL *curl, const char *model)
{
	struct body body = { 0 };
	int64_t covered = -1;
	long code = 0;

	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
	if (curl_easy_perform(curl) == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	if (code == 200 && body.buf)
		covered = covered_of(body.buf, model);
	free(body.buf);
	return covered;
}

static CURL *status_handle(const struct opts *o, const char *path)
{
	CURL *curl = curl_easy_init();
	char url[600];

	if (!curl)
		die("cannot start libcurl", NULL);
	snprintf(url, sizeof(url), "%s%s", o->status, path);
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
	return curl;
}

/* One event of the stream: a refresh of the model is followed by a read
 * of the status, its answer's time taken as the time of what it shows. */
static void on_event(struct status_poll *p, const char *ev)
{
	const char *data = strstr(ev, "\ndata: ");
	json_t *doc;
	bool ours;
	int64_t t0, covered;

	if (strncmp(ev, "event: refresh\n", 15) || !data)
		return;
	doc = json_loads(data + 7, JSON_DISABLE_EOF_CHECK, NULL);
	ours = json_is_string(json_object_get(doc, "model")) &&
	       strcmp(json_string_value(json_object_get(doc, "model")), p->o->model) == 0;
	json_decref(doc);
	if (!ours)
		return;
	p->events++;
	t0 = now_us();
	covered = status_covered(p->get, p->o->model);
	if (covered < 0) {
		p->failed++;
		return;
	}
	timeline_note(&p->covered, now_us(), covered);
	p->polls++;
	p->poll_us += now_us() - t0;
}

static size_t on_events(char *data, size_t size, size_t n, void *ctx)
{
	struct status_poll *p = ctx;
	char *end;

	on_body(data, size, n, &p->pending);
	while ((end = strstr(p->pending.buf, "\n\n"))) {
		size_t used = (size_t)(end + 2 - p->pending.buf);

		*end = '\0';
		on_event(p, p->pending.buf);
		memmove(p->pending.buf, p->pending.buf + used, p->pending.len - used + 1);
		p->pending.len -= used;
	}
	return size * n;
}

static int on_transfer(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	(void)ctx, (void)a, (void)b, (void)c, (void)d;
	return atomic_load(&stopping);
}

static void *events_run(void *arg)
{
	struct status_poll *p = arg;
	CURL *curl = status_handle(p->o, "/api/live/events");

	p->get = status_handle(p->o, "/api/live/status");
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_events);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, p);
	curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_transfer);
	curl_easy_setopt(curl, CURLOPT_XFERINFODATA, p);
	while (!atomic_load(&stopping)) {
		curl_easy_perform(curl);
		if (!atomic_load(&stopping))
			usleep(100000);
	}
	curl_easy_cleanup(curl);
	curl_easy_cleanup(p->get);
	free(p->pending.buf);
	return NULL;
}

/* ---- the generator ---- */

struct txn {
	int64_t commit_us, lsn;
	long changes;
};

/* One transaction: BEGIN, its changes, COMMIT and the WAL position after
 * it, in one round trip; returns the changes it made. */
static long commit_txn(PGconn *conn, const struct opts *o, long k, int64_t *lsn)
{
	int ins = o->txn / 2, upd = o->txn * 3 / 10, del = o->txn - ins - upd;
	long long first = (long long)k * ins, changes = 0;
	char sql[1024];
	int len;
	PGresult *res;

	len = snprintf(sql, sizeof(sql),
		       "BEGIN; INSERT INTO %s (id, txn, amount, note) SELECT %lld + g, %ld, g, "
		       "'transaction %ld' FROM generate_series(0, %d) g;",
		       o->table, first, k, k, ins - 1);
	if (k >= 1 && upd)
		len += snprintf(sql + len, sizeof(sql) - (size_t)len,
				" UPDATE %s SET amount = amount + 1, txn = %ld WHERE id >= %lld AND "
				"id < %lld;",
				o->table, k, first - ins, first - ins + upd);
	if (k >= 2 && del)
		len += snprintf(sql + len, sizeof(sql) - (size_t)len,
				" DELETE FROM %s WHERE id >= %lld AND id < %lld;", o->table,
				first - 2 * ins + upd, first - 2 * ins + upd + del);
	snprintf(sql + len, sizeof(sql) - (size_t)len,
		 " COMMIT; SELECT (pg_current_wal_lsn() - '0/0')::bigint");
	if (!PQsendQuery(conn, sql))
		die("cannot send a transaction", PQerrorMessage(conn));
	while ((res = PQgetResult(conn))) {
		ExecStatusType st = PQresultStatus(res);

		if (st == PGRES_TUPLES_OK) {
			*lsn = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		} else if (st == PGRES_COMMAND_OK) {
			const char *tag = PQcmdStatus(res);

			if (!strncmp(tag, "INSERT", 6) || !strncmp(tag, "UPDATE", 6) ||
			    !strncmp(tag, "DELETE", 6))
				changes += strtoll(PQcmdTuples(res), NULL, 10);
		} else {
			fprintf(stderr, RAW_NAME ": while running:\n%s\n", sql);
			die("transaction failed", PQerrorMessage(conn));
		}
		PQclear(res);
	}
	return (long)changes;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The latency of each transaction to the first time tl reached its LSN
 * into v; one that never did counts as lagging until stop. Returns how
 * many never did. */
static long collect(struct timeline *tl, const struct txn *txns, long ntx, int64_t stop,
		    int64_t *v)
{
	long missing = 0;

	for (long k = 1; k <= ntx; k++) {
		int64_t t = timeline_reached(tl, txns[k].lsn);

		if (t < 0) {
			t = stop;
			missing++;
		}
		v[k - 1] = t - txns[k].commit_us;
	}
	return missing;
}

/* "p50 X ms, p99 Y ms, max Z ms over N transactions" of the n latencies in
 * v (sorted here). */
static void print_lat(const char *what, int64_t *v, long n, long missing, const char *extra)
{
	char tail[96] = "";

	qsort(v, (size_t)n, sizeof(*v), cmp64);
	if (missing)
		snprintf(tail, sizeof(tail), ", %ld not there by the end (counted until then)",
			 missing);
	printf(RAW_NAME ": %s: p50 %.1f ms, p99 %.1f ms, max %.1f ms over %ld transactions%s%s\n",
	       what, v[n / 2] / 1000.0, v[(n * 99) / 100] / 1000.0, v[n - 1] / 1000.0, n, tail,
	       extra);
}

static void usage(void)
{
	fprintf(stderr, "usage: cdc_latency --dsn DSN --table NAME --slot SLOT [--raw-slot SLOT "
			"--publication PUB]\n"
			"                   [--status URL --model NAME] [--seconds S] [--rate "
			"CHANGES/S] [--txn CHANGES]\n"
			"                   [--poll-ms MS] [--wait S] [--dump FILE] [--timeline "
			"FILE]\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option long_opts[] = {
		{ "dsn", required_argument, NULL, 'd' },
		{ "table", required_argument, NULL, 't' },
		{ "slot", required_argument, NULL, 's' },
		{ "raw-slot", required_argument, NULL, 'r' },
		{ "publication", required_argument, NULL, 'p' },
		{ "status", required_argument, NULL, 'u' },
		{ "model", required_argument, NULL, 'm' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "rate", required_argument, NULL, 'R' },
		{ "txn", required_argument, NULL, 'T' },
		{ "poll-ms", required_argument, NULL, 'P' },
		{ "wait", required_argument, NULL, 'W' },
		{ "dump", required_argument, NULL, 'D' },
		{ "timeline", required_argument, NULL, 'L' },
		{ 0 },
	};
	int c;

	*o = (struct opts){ .seconds = 20, .rate = 10000, .txn = 100, .poll_ms = 2,
			    .wait_s = 30 };
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (c) {
		case 'd': o->dsn = optarg; break;
		case 't': o->table = optarg; break;
		case 's': o->slot = optarg; break;
		case 'r': o->raw_slot = optarg; break;
		case 'p': o->publication = optarg; break;
		case 'u': o->status = optarg; break;
		case 'm': o->model = optarg; break;
		case 'S': o->seconds = atof(optarg); break;
		case 'R': o->rate = atoi(optarg); break;
		case 'T': o->txn = atoi(optarg); break;
		case 'P': o->poll_ms = atoi(optarg); break;
		case 'W': o->wait_s = atoi(optarg); break;
		case 'D': o->dump = optarg; break;
		case 'L': o->timeline = optarg; break;
		default: usage();
		}
	}
	if (!o->dsn || !o->table || !o->slot || (!o->raw_slot != !o->publication) ||
	    (!o->status != !o->model) || (o->timeline && !o->status) || o->seconds <= 0 || o->rate < 1 || o->txn < 4 ||
	    o->poll_ms < 1 || optind != argc)
		usage();
}

static double lat_ms(struct timeline *tl, int64_t v, int64_t since)
{
	int64_t t = timeline_reached(tl, v);

	return t < 0 ? -1 : (t - since) / 1000.0;
}

static void dump(const struct opts *o, const struct txn *txns, long ntx, int64_t t0,
		 struct slots_poll *sp, struct receiver *rv)
{
	FILE *f = fopen(o->dump, "w");

	if (!f)
		die("cannot write", o->dump);
	for (long k = 1; k <= ntx; k++) {
		const struct txn *t = &txns[k];

		fprintf(f, "%ld %.1f %ld %.1f %.1f %.1f\n", k, (t->commit_us - t0) / 1000.0,
			t->changes, lat_ms(&sp->landed, t->lsn, t->commit_us),
			o->raw_slot ? lat_ms(&rv->received, t->lsn, t->commit_us) : -1,
			o->raw_slot ? lat_ms(&sp->raw_confirmed, t->lsn, t->commit_us) : -1);
	}
	fclose(f);
}

static void write_timeline(const char *path, struct timeline *tl, int64_t t0)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("cannot write", path);
	pthread_mutex_lock(&tl->mu);
	for (size_t i = 0; i < tl->n; i++)
		fprintf(f, "%.1f %" PRId64 "\n", (tl->t[i] - t0) / 1000.0, tl->v[i]);
	pthread_mutex_unlock(&tl->mu);
	fclose(f);
}

/* Waits until the model's covered sequence has stayed put for a second
 * (above 0), or the deadline; returns it. Read by a GET on curl, or (NULL)
 * as the events thread last saw it. */
static int64_t covered_settles(struct status_poll *st, CURL *curl, int64_t deadline)
{
	int64_t seen = -1, since = 0;

	while (now_us() < deadline) {
		int64_t c = curl ? status_covered(curl, st->o->model) : timeline_last(&st->covered);

		if (c != seen) {
			seen = c;
			since = now_us();
		} else if (c > 0 && now_us() - since > 1000000) {
			break;
		}
		usleep(50000);
	}
	return seen;
}

/* Waits until every timeline reached its value, or the deadline. */
static bool wait_for(struct timeline *const *tls, const int64_t *want, size_t n, int64_t deadline)
{
	for (;;) {
		bool all = true;

		for (size_t i = 0; i < n; i++)
			all = all && (!tls[i] || timeline_last(tls[i]) >= want[i]);
		if (all)
			return true;
		if (now_us() > deadline)
			return false;
		usleep(5000);
	}
}

int main(int argc, char **argv)
{
	struct opts o;
	struct slots_poll sp;
	struct receiver rv;
	struct status_poll st;
	pthread_t t_slots, t_recv, t_status;
	PGconn *conn;
	struct txn *txns;
	long ntx, changes = 0, k, missing;
	int64_t period_us, t0, t_end, t_stop, warm_lsn = 0, *late, *lat;
	bool all;
	char extra[256];

	parse(argc, argv, &o);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	ntx = (long)(o.seconds * o.rate / o.txn + 0.5);
	if (ntx < 1)
		ntx = 1;
	period_us = (int64_t)o.txn * 1000000 / o.rate;
	txns = xcalloc((size_t)ntx + 1, sizeof(*txns));
	late = xcalloc((size_t)ntx + 1, sizeof(*late));
	lat = xcalloc((size_t)ntx + 1, sizeof(*lat));

	sp = (struct slots_poll){ .o = &o };
	timeline_init(&sp.landed);
	timeline_init(&sp.raw_confirmed);
	rv = (struct receiver){ .o = &o };
	timeline_init(&rv.received);
	st = (struct status_poll){ .o = &o };
	timeline_init(&st.covered);
	if (o.raw_slot)
		receiver_start(&rv);
	if (pthread_create(&t_slots, NULL, slots_run, &sp) ||
	    (o.raw_slot && pthread_create(&t_recv, NULL, receiver_run, &rv)) ||
	    (o.status && pthread_create(&t_status, NULL, events_run, &st)))
		die("cannot start a thread", NULL);

	/* the warm-up: every side streams, and the model covered it */
	conn = connect_pg(o.dsn);
	commit_txn(conn, &o, 0, &warm_lsn);
	{
		struct timeline *tls[] = { &sp.landed, o.raw_slot ? &rv.received : NULL };
		int64_t want[] = { warm_lsn, warm_lsn };

		if (!wait_for(tls, want, 2, now_us() + o.wait_s * 1000000LL))
			die("the warm-up transaction did not land", "is the consumer running?");
	}
	if (o.status) {
		/* the model covers the warm-up once covered stays put */
		CURL *curl = status_handle(&o, "/api/live/status");
		int64_t seen = covered_settles(&st, curl, now_us() + o.wait_s * 1000000LL);

		curl_easy_cleanup(curl);
		if (seen <= 0)
			die("the model never covered the warm-up transaction", o.model);
	}

	/* the paced stream: transaction k is due at t0 + (k - 1) * period */
	t0 = now_us();
	for (k = 1; k <= ntx; k++) {
		int64_t due = t0 + (k - 1) * period_us;

		sleep_until_us(due);
		late[k - 1] = now_us() - due;
		txns[k].changes = commit_txn(conn, &o, k, &txns[k].lsn);
		txns[k].commit_us = now_us();
		changes += txns[k].changes;
	}
	t_end = now_us();
	PQfinish(conn);

	{
		struct timeline *tls[] = { &sp.landed, o.raw_slot ? &rv.received : NULL,
					   o.raw_slot ? &sp.raw_confirmed : NULL };
		int64_t want[] = { txns[ntx].lsn, txns[ntx].lsn, txns[ntx].lsn };
		int64_t deadline = now_us() + o.wait_s * 1000000LL;

		all = wait_for(tls, want, 3, deadline);
		/* the model refreshes once more after the last landing */
		if (o.status)
			covered_settles(&st, NULL, deadline);
	}
	t_stop = now_us();
	atomic_store(&stopping, true);
	pthread_join(t_slots, NULL);
	if (o.raw_slot)
		pthread_join(t_recv, NULL);
	if (o.status)
		pthread_join(t_status, NULL);

	qsort(late, (size_t)ntx, sizeof(*late), cmp64);
	printf(RAW_NAME ": %ld transactions of %d changes (%ld changes) in %.2f s: %.0f "
	       "changes/s (asked %d); commits late p50 %.1f ms, p99 %.1f ms; warm-up LSN %" PRId64
	       "%s\n",
	       ntx, o.txn, changes, (t_end - t0) / 1e6, changes / ((t_end - t0) / 1e6), o.rate,
	       late[ntx / 2] / 1000.0, late[ntx * 99 / 100] / 1000.0, warm_lsn,
	       all ? "" : "; not all caught up after the last one");

	snprintf(extra, sizeof(extra), " (slot %s, polled every %d ms: %ld polls of %.2f ms)",
		 o.slot, o.poll_ms, sp.polls, sp.polls ? sp.poll_us / 1000.0 / sp.polls : 0);
	missing = collect(&sp.landed, txns, ntx, t_stop, lat);
	print_lat("commit to landed", lat, ntx, missing, extra);
	if (o.raw_slot) {
		snprintf(extra, sizeof(extra), " (slot %s, read by its thread)", o.raw_slot);
		missing = collect(&rv.received, txns, ntx, t_stop, lat);
		print_lat("the engine alone, commit to received", lat, ntx, missing, extra);
		snprintf(extra, sizeof(extra), " (slot %s, polled as above)", o.raw_slot);
		missing = collect(&sp.raw_confirmed, txns, ntx, t_stop, lat);
		print_lat("the engine alone, commit to confirmed", lat, ntx, missing, extra);
	}
	if (o.status)
		printf(RAW_NAME ": status of %s read after each of its %ld refresh events: reads of "
		       "%.1f ms, %ld failed; last covered %" PRId64 ", %.1f ms after the first "
		       "commit\n",
		       o.model, st.events, st.polls ? st.poll_us / 1000.0 / st.polls : 0, st.failed,
		       timeline_last(&st.covered), (t_stop - t0) / 1000.0);
	if (o.dump)
		dump(&o, txns, ntx, t0, &sp, &rv);
	if (o.timeline)
		write_timeline(o.timeline, &st.covered, t0);
	if (o.raw_slot)
		PQfinish(rv.conn);
	curl_global_cleanup();
	return 0;
}
