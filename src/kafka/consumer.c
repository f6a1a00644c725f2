/*
 * This file implements a Kafka source's consumer (consumer.h): the stored
 * offsets checked against each partition's retained range, every
 * partition assigned at its next offset, and messages landed in batches
 * with the offsets they reach.
 */
#include "kafka/consumer.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "ingest/writer.h"
#include "kafka/message.h"
#include "kafka/offsets.h"
#include "kafka/settings.h"
#include "live/advance.h"
#include "project/config.h"
#include "warehouse/wh.h"

#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long a broker may take to answer a metadata or offsets request. */
#define ASK_TIMEOUT_MS 10000
/* How long a batch waits for more messages once it has one. */
#define BATCH_WAIT_MS 100
/* How long without any message or end of partition is a stall. */
#define STALL_MS 30000
/* The longest one wait for a message, so that a cancel is seen soon. */
#define POLL_STEP_MS 200
/* How many times one landing reads the stored offsets again after a
 * batch was refused because they moved (another process landed). */
#define RESTARTS 3

struct kafka_consumer {
	struct arena *a;
	const struct source_cfg *src;
	const char *fqn; /* landing.NAME */
	const char *topics; /* "topic 'a'" or "topics 'a', 'b'", for messages */
	const char *lock_key;
	int64_t batch_rows;
	rd_kafka_t *rk;
	atomic_bool cancel;
	/* the connection the consumer's lock was taken on, and its session
	 * then: a new session holds no lock */
	const struct wh *locked_on;
	uint64_t locked_session;
};

/* A partition to read: where it starts and where it ends for this call. */
struct part {
	const char *topic; /* the source's */
	int32_t id;
	int64_t next, end;
	bool done;
};

static const char *topics_said(struct arena *a, const struct source_cfg *src)
{
	const char *s = src->ntopics == 1 ? "topic " : "topics ";

	for (size_t i = 0; i < src->ntopics; i++)
		s = arena_sprintf(a, "%s%s'%s'", s, i ? ", " : "", src->topics[i]);
	return s;
}

int kafka_consumer_new(struct arena *parent, const struct source_cfg *src, int64_t batch_rows,
		       struct kafka_consumer **out, struct sl_err *err)
{
	struct kafka_consumer *c = xcalloc(1, sizeof(*c));
	char errstr[512];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();

	c->a = arena_new(parent);
	if (kafka_settings_apply(c->a, src, conf, err)) {
		rd_kafka_conf_destroy(conf);
		arena_free(c->a);
		free(c);
		return err ? err->code : SL_E_CONFIG;
	}
	c->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
	if (!c->rk) {
		arena_free(c->a);
		free(c);
		return sl_err_set(err, SL_E_CONFIG, "source %s: %s", src->name, errstr);
	}
	rd_kafka_poll_set_consumer(c->rk);
	c->src = src;
	c->fqn = arena_sprintf(c->a, "landing.%s", src->name);
	c->topics = topics_said(c->a, src);
	c->lock_key = arena_sprintf(c->a, "kafka:%s", c->fqn);
	c->batch_rows = batch_rows > 0 ? batch_rows : 10000;
	*out = c;
	return 0;
}

int kafka_consumer_setting(struct kafka_consumer *c, const char *name, char *out, size_t n)
{
	return rd_kafka_conf_get(rd_kafka_conf(c->rk), name, out, &n) == RD_KAFKA_CONF_OK
		       ? 0
		       : SL_E_NOTFOUND;
}

int kafka_consumer_lock(struct kafka_consumer *c, struct wh *w, bool *got, struct sl_err *err)
{
	int rc = wh_lock(w, c->lock_key, WH_LOCK_TRY, got, err);

	if (!rc && *got) {
		c->locked_on = w;
		c->locked_session = wh_sessions(w);
	}
	return rc;
}

bool kafka_consumer_locked(const struct kafka_consumer *c, const struct wh *w)
{
	return c->locked_on == w && !wh_lost(w) && wh_sessions(w) == c->locked_session;
}

void kafka_consumer_cancel(struct kafka_consumer *c)
{
	atomic_store(&c->cancel, true);
}

void kafka_consumer_free(struct kafka_consumer *c)
{
	if (!c)
		return;
	rd_kafka_assign(c->rk, NULL);
	rd_kafka_consumer_close(c->rk);
	rd_kafka_destroy(c->rk);
	arena_free(c->a);
	free(c);
}

static int broker_error(struct kafka_consumer *c, const char *topic, rd_kafka_resp_err_t e,
			const char *what, struct sl_err *err)
{
	if (e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC)
		return sl_err_set(err, SL_E_NOTFOUND, "source %s: topic '%s' is not on %s",
				  c->src->name, topic, c->src->brokers);
	return sl_err_set(err, SL_E_CONN, "source %s: %s from %s: %s", c->src->name, what,
			  c->src->brokers, rd_kafka_err2str(e));
}

static int stopped(struct kafka_consumer *c, struct sl_err *err)
{
	return sl_err_set(err, SL_E_BUSY, "source %s: stopped", c->src->name);
}

/* The metadata of the source's topic; its error when it is not there. */
static rd_kafka_resp_err_t topic_of(const struct rd_kafka_metadata *md, const char *topic,
				   const struct rd_kafka_metadata_topic **t)
{
	*t = NULL;
	for (int i = 0; i < md->topic_cnt && !*t; i++)
		if (strcmp(md->topics[i].topic, topic) == 0)
			*t = &md->topics[i];
	return !*t ? RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART : (*t)->err;
}

/* The partitions of the source's topics, each with its retained range,
 * into *parts. */
static int partitions(struct kafka_consumer *c, struct arena *a, struct part **parts, size_t *n,
		      struct sl_err *err)
{
	const struct rd_kafka_metadata *md = NULL;
	/* every topic's: asking for one topic would make it, on a broker that
	 * makes topics on demand */
	rd_kafka_resp_err_t e = rd_kafka_metadata(c->rk, 1, NULL, &md, ASK_TIMEOUT_MS);
	size_t cap = 0;
	int rc = e ? broker_error(c, c->src->topics[0], e, "the topics' partitions", err) : 0;

	*n = 0;
	*parts = NULL;
	for (size_t k = 0; !rc && k < c->src->ntopics; k++) {
		const struct rd_kafka_metadata_topic *t;

		e = topic_of(md, c->src->topics[k], &t);
		if (e) {
			rc = broker_error(c, c->src->topics[k], e, "the topic's partitions", err);
			break;
		}
		for (int i = 0; i < t->partition_cnt; i++)
			*ARENA_PUSH(a, parts, n, &cap) = (struct part){
				.topic = c->src->topics[k], .id = t->partitions[i].id
			};
	}
	for (size_t i = 0; !rc && i < *n; i++) {
		int64_t low, high;

		if (atomic_load(&c->cancel)) {
			rc = stopped(c, err);
			break;
		}
		e = rd_kafka_query_watermark_offsets(c->rk, (*parts)[i].topic, (*parts)[i].id, &low,
						     &high, ASK_TIMEOUT_MS);
		if (e)
			rc = broker_error(c, (*parts)[i].topic, e, "a partition's offsets", err);
		(*parts)[i].next = low;
		(*parts)[i].end = high;
	}
	if (md)
		rd_kafka_metadata_destroy(md);
	return rc;
}

/* Where the partition of topic is in parts, or n. */
static size_t part_at(const struct part *parts, size_t n, const char *topic, int32_t id)
{
	size_t i = 0;

	while (i < n && (parts[i].id != id || strcmp(parts[i].topic, topic) != 0))
		i++;
	return i;
}

static bool is_topic_of(const struct source_cfg *src, const char *topic)
{
	for (size_t i = 0; i < src->ntopics; i++)
		if (strcmp(src->topics[i], topic) == 0)
			return true;
	return false;
}

/* Each partition starts at its stored offset, unless that is gone or
 * beyond the topic; a stored partition its topic lacks is the same. The
 * offsets of a topic the source no longer reads are kept as they are. */
static int starts(struct kafka_consumer *c, const struct kafka_offsets *stored, struct part *parts,
		  size_t n, struct sl_err *err)
{
	for (size_t k = 0; k < stored->n; k++)
		if (is_topic_of(c->src, stored->topic[k]) &&
		    part_at(parts, n, stored->topic[k], stored->partition[k]) == n)
			return sl_err_set(err, SL_E_INVALID,
					  "source %s: partition %d of topic '%s' landed up to "
					  "offset %lld and is gone: was the topic made again?",
					  c->src->name, (int)stored->partition[k], stored->topic[k],
					  (long long)stored->next[k] - 1);
	for (size_t i = 0; i < n; i++) {
		int64_t next = kafka_offsets_get(stored, parts[i].topic, parts[i].id);

		if (next >= 0 && next < parts[i].next)
			return sl_err_set(err, SL_E_INVALID,
					  "source %s: messages %lld to %lld of partition %d of topic "
					  "'%s' are gone from the brokers before they landed "
					  "(retention ran out): they are lost to sluice",
					  c->src->name, (long long)next, (long long)parts[i].next - 1,
					  (int)parts[i].id, parts[i].topic);
		if (next > parts[i].end)
			return sl_err_set(err, SL_E_INVALID,
					  "source %s: partition %d of topic '%s' landed up to offset "
					  "%lld, past its end %lld: was the topic made again?",
					  c->src->name, (int)parts[i].id, parts[i].topic,
					  (long long)next - 1, (long long)parts[i].end);
		if (next >= 0)
			parts[i].next = next;
		parts[i].done = parts[i].next >= parts[i].end;
	}
	return 0;
}

/* Every partition with messages to land assigned at its next offset: a
 * new assignment drops what was fetched for the one before. */
static int assign(struct kafka_consumer *c, const struct part *parts, size_t n,
		  struct sl_err *err)
{
	rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new((int)n);
	rd_kafka_resp_err_t e;

	for (size_t i = 0; i < n; i++)
		if (!parts[i].done)
			rd_kafka_topic_partition_list_add(list, parts[i].topic, parts[i].id)->offset =
				parts[i].next;
	e = rd_kafka_assign(c->rk, list);
	rd_kafka_topic_partition_list_destroy(list);
	return e ? broker_error(c, c->src->topics[0], e, "an assignment", err) : 0;
}

static bool all_done(const struct part *parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!parts[i].done)
			return false;
	return true;
}

/* m's row into rows; the message's headers read in a. */
static int add_message(struct kafka_consumer *c, struct arena *a, const rd_kafka_message_t *msg,
		       const char *topic, struct kafka_rows *rows, struct sl_err *err)
{
	rd_kafka_headers_t *hdrs = NULL;
	struct kafka_header *h = NULL;
	rd_kafka_timestamp_type_t tstype;
	struct kafka_message m = {
		.topic = topic,
		.partition = msg->partition,
		.offset = msg->offset,
		.ts_ms = rd_kafka_message_timestamp(msg, &tstype),
		.key = msg->key,
		.key_len = msg->key_len,
		.value = msg->payload,
		.value_len = msg->len,
	};

	if (rd_kafka_message_headers(msg, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
		size_t n = rd_kafka_header_cnt(hdrs);

		h = arena_alloc(a, (n + 1) * sizeof(*h));
		for (size_t i = 0; i < n; i++) {
			const void *v;

			if (rd_kafka_header_get_all(hdrs, i, &h[i].name, &v, &h[i].len))
				break;
			h[i].value = v;
			m.nheaders++;
		}
		m.headers = h;
	}
	return kafka_rows_add(a, c->src, &m, rows, err);
}

/* One batch read: up to batch_rows messages, or what came within
 * BATCH_WAIT_MS of the first, or until every partition is done. */
static int read_batch(struct kafka_consumer *c, struct arena *a, struct part *parts, size_t n,
		      struct kafka_offsets *offsets, struct kafka_rows *rows, struct sl_err *err)
{
	int waited = 0;

	while ((int64_t)rows->nrows < c->batch_rows && !all_done(parts, n)) {
		int wait = rows->nrows ? BATCH_WAIT_MS : POLL_STEP_MS;
		rd_kafka_message_t *msg;
		struct part *p = NULL;
		size_t at;
		int rc = 0;

		if (atomic_load(&c->cancel))
			return stopped(c, err);
		msg = rd_kafka_consumer_poll(c->rk, wait);
		if (!msg && rows->nrows)
			return 0;
		if (!msg && (waited += wait) < STALL_MS)
			continue;
		if (!msg)
			return sl_err_set(err, SL_E_CONN,
					  "source %s: nothing came from %s for %d s while %s "
					  "%s messages to land",
					  c->src->name, c->src->brokers, STALL_MS / 1000, c->topics,
					  c->src->ntopics == 1 ? "has" : "have");
		waited = 0;
		at = msg->rkt ? part_at(parts, n, rd_kafka_topic_name(msg->rkt), msg->partition) : n;
		if (at < n)
			p = &parts[at];
		if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			/* past what the log holds but messages, up to the end this
			 * landing takes: a transaction's markers, an aborted one's
			 * records */
			if (p && !p->done && msg->offset > p->next && msg->offset <= p->end) {
				p->next = msg->offset;
				kafka_offsets_set(offsets, p->topic, p->id, p->next);
			}
			if (p)
				p->done = true;
		} else if (msg->err) {
			rc = sl_err_set(err, msg->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE
						     ? SL_E_INVALID
						     : SL_E_CONN,
					"source %s: partition %d of topic '%s': %s", c->src->name,
					(int)msg->partition,
					msg->rkt ? rd_kafka_topic_name(msg->rkt) : "?",
					rd_kafka_message_errstr(msg));
		} else if (p && !p->done && msg->offset >= p->next) {
			/* past the end found at the start: the next call's */
			if (msg->offset >= p->end) {
				p->done = true;
			} else {
				rc = add_message(c, a, msg, p->topic, rows, err);
				p->next = msg->offset + 1;
				p->done = p->next >= p->end;
				kafka_offsets_set(offsets, p->topic, p->id, p->next);
			}
		}
		rd_kafka_message_destroy(msg);
		if (rc)
			return rc;
	}
	return 0;
}

/* The batch handed to the writer and not answered yet. The next batch is
 * read meanwhile, so that the reading of one and the commit of the other
 * overlap, and is handed over only once this one landed: it goes on from
 * this one's offsets, and after a failure nothing more goes. */
struct flight {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool waiting;
	struct arena *a; /* the rows' memory; NULL: nothing in flight */
	struct ingest_batch b;
	struct ingest_result res;
	struct buf cursor; /* the offsets it stores */
};

/* The writer's answer, on its thread. */
static void flight_done(void *ctx, const struct ingest_result *res)
{
	struct flight *f = ctx;

	pthread_mutex_lock(&f->mu);
	f->res = *res;
	f->waiting = false;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

/* Hands rows (in a, the flight's from now on unless this fails) to the
 * writer with the offsets they reach, to land only while the stored
 * offsets are still from. */
static int flight_send(struct kafka_consumer *c, struct ingest_writer *wr, struct flight *f,
		       struct arena *a, const struct kafka_offsets *offsets,
		       const struct kafka_rows *rows, const char *from, struct sl_err *err)
{
	size_t ncols;
	const char *const *names = kafka_row_names(a, c->src, &ncols);
	int rc;

	buf_reset(&f->cursor);
	kafka_offsets_text(offsets, &f->cursor);
	f->b = (struct ingest_batch){
		.source = c->fqn,
		.names = names,
		.ncols = ncols,
		.nrows = rows->nrows,
		.cells = rows->cells,
		.cursor = f->cursor.buf,
		.cursor_from = from,
	};
	f->waiting = true;
	f->a = a;
	rc = ingest_submit(wr, &f->b, flight_done, f, err);
	if (rc) {
		f->waiting = false;
		f->a = NULL;
	}
	return rc;
}

/* Waits for the batch in flight, if there is one, and counts it: its
 * offsets become *from, the stored offsets the next batch goes on from. */
static int flight_land(struct kafka_consumer *c, struct flight *f, struct buf *from,
		       struct kafka_result *res, struct sl_err *err)
{
	int rc = 0;

	if (!f->a)
		return 0;
	pthread_mutex_lock(&f->mu);
	while (f->waiting)
		pthread_cond_wait(&f->cv, &f->mu);
	pthread_mutex_unlock(&f->mu);
	if (f->res.code) {
		rc = sl_err_set(err, f->res.code, "source %s: %s", c->src->name, f->res.error);
	} else {
		res->messages += f->res.rows;
		res->batches++;
		res->seq = f->res.seq;
		snprintf(res->offsets, sizeof(res->offsets), "%s", f->cursor.buf);
		buf_reset(from);
		buf_adds(from, f->cursor.buf);
	}
	arena_free(f->a);
	f->a = NULL;
	return rc;
}

/* Reads and lands batch after batch until every partition is done, one
 * batch in flight while the next is read. The first failure wins: a
 * batch's failure in the writer came before one reading the next. */
static int land_batches(struct kafka_consumer *c, struct arena *a, struct ingest_writer *wr,
			struct part *parts, size_t n, struct kafka_offsets *offsets,
			struct buf *from, struct kafka_result *res, struct sl_err *err)
{
	struct flight f = { .cursor = BUF_INIT };
	struct sl_err landing = SL_ERR_INIT;
	int rc = 0, landed = 0;

	pthread_mutex_init(&f.mu, NULL);
	pthread_cond_init(&f.cv, NULL);
	while (!rc && !landed && !all_done(parts, n)) {
		struct arena *batch = arena_new(a);
		struct kafka_rows rows = { 0 };

		rc = read_batch(c, batch, parts, n, offsets, &rows, err);
		landed = flight_land(c, &f, from, res, &landing);
		if (!rc && !landed && rows.nrows)
			rc = flight_send(c, wr, &f, batch, offsets, &rows, from->buf, err);
		if (f.a != batch)
			arena_free(batch);
	}
	if (!landed)
		landed = flight_land(c, &f, from, res, &landing);
	if (landed && err)
		*err = landing;
	pthread_cond_destroy(&f.cv);
	pthread_mutex_destroy(&f.mu);
	buf_release(&f.cursor);
	return landed ? landed : rc;
}

/* The offsets "to" asks for, each within what its partition holds. */
static int reset_offsets(struct kafka_consumer *c, const char *to, const struct part *parts,
			 size_t n, struct kafka_offsets *out, struct sl_err *err)
{
	struct kafka_offsets asked = { 0 };
	bool latest = strcmp(to, "latest") == 0;
	/* partitions without a topic are the only topic's */
	const char *one = c->src->ntopics == 1 ? c->src->topics[0] : NULL;

	if (!latest && strcmp(to, "earliest") != 0 &&
	    (!kafka_offsets_parse(to, one, &asked) || !asked.n))
		return sl_err_set(err, SL_E_USAGE,
				  "--reset takes earliest, latest or %s, not '%s'",
				  one ? "PARTITION:OFFSET pairs (0:120,1:88)"
				      : "TOPIC:PARTITION:OFFSET triples (clicks:0:120,views:1:88)",
				  to);
	*out = (struct kafka_offsets){ 0 };
	for (size_t k = 0; k < asked.n; k++) {
		size_t at = part_at(parts, n, asked.topic[k], asked.partition[k]);
		const struct part *p = at < n ? &parts[at] : NULL;

		if (!p || asked.next[k] < p->next || asked.next[k] > p->end) {
			int rc = p ? sl_err_set(err, SL_E_USAGE,
						"source %s: partition %d of topic '%s' takes an offset "
						"from %lld (its first retained message) to %lld (its "
						"end), not %lld",
						c->src->name, (int)p->id, p->topic, (long long)p->next,
						(long long)p->end, (long long)asked.next[k])
				 : is_topic_of(c->src, asked.topic[k])
					 ? sl_err_set(err, SL_E_USAGE,
						      "source %s: topic '%s' has no partition %d",
						      c->src->name, asked.topic[k],
						      (int)asked.partition[k])
					 : sl_err_set(err, SL_E_USAGE,
						      "source %s reads no topic '%s'", c->src->name,
						      asked.topic[k]);

			kafka_offsets_free(&asked);
			return rc;
		}
	}
	for (size_t i = 0; i < n; i++) {
		int64_t at = kafka_offsets_get(&asked, parts[i].topic, parts[i].id);

		kafka_offsets_set(out, parts[i].topic, parts[i].id,
				  at >= 0 ? at : latest ? parts[i].end : parts[i].next);
	}
	kafka_offsets_free(&asked);
	return 0;
}

int kafka_reset(struct kafka_consumer *c, struct arena *a, struct wh *w, const char *to,
		const char **stored, struct sl_err *err)
{
	struct kafka_offsets offsets = { 0 };
	struct buf text = BUF_INIT;
	struct part *parts = NULL;
	size_t n = 0;
	int rc = partitions(c, a, &parts, &n, err);

	if (!rc)
		rc = reset_offsets(c, to, parts, n, &offsets, err);
	kafka_offsets_text(&offsets, &text);
	if (!rc)
		rc = wh_begin(w, err);
	if (!rc) {
		/* a consumer's landing in progress compares and stores the
		 * offsets under this lock: it sees the reset, or the reset
		 * follows it */
		rc = live_advance_lock(w, c->fqn, err);
		if (!rc)
			rc = live_cursor_set(w, c->fqn, text.buf, err);
		if (rc == SL_E_NOTFOUND)
			sl_err_set(err, rc,
				   "source %s has landed nothing yet: its first landing reads each "
				   "partition from its first retained message",
				   c->src->name);
		if (rc)
			wh_rollback(w);
		else
			rc = wh_commit(w, err);
	}
	*stored = arena_strdup(a, text.buf);
	buf_release(&text);
	kafka_offsets_free(&offsets);
	return rc;
}

/* One landing from the offsets stored now. */
static int land_from_stored(struct kafka_consumer *c, struct wh *r, struct ingest_writer *wr,
			    struct kafka_result *res, struct sl_err *err)
{
	struct arena *a = arena_new(c->a);
	struct kafka_offsets offsets;
	struct buf from = BUF_INIT;
	const char *stored = NULL;
	struct part *parts = NULL;
	size_t n = 0;
	int rc;

	rc = atomic_load(&c->cancel) ? stopped(c, err) : live_cursor_get(r, a, c->fqn, &stored, err);
	/* offsets stored before sources had topic lists are the first topic's */
	if (!rc && !kafka_offsets_parse(stored, c->src->topics[0], &offsets))
		rc = sl_err_set(err, SL_E_INVALID,
				"source %s: its stored offsets '%s' do not read as "
				"TOPIC:PARTITION:OFFSET triples",
				c->src->name, stored);
	if (rc) {
		arena_free(a);
		return rc;
	}
	buf_adds(&from, stored ? stored : "");
	snprintf(res->offsets, sizeof(res->offsets), "%s", from.buf);
	rc = partitions(c, a, &parts, &n, err);
	if (!rc)
		rc = starts(c, &offsets, parts, n, err);
	if (!rc && !all_done(parts, n))
		rc = assign(c, parts, n, err);
	if (!rc)
		rc = land_batches(c, a, wr, parts, n, &offsets, &from, res, err);
	rd_kafka_assign(c->rk, NULL);
	kafka_offsets_free(&offsets);
	buf_release(&from);
	arena_free(a);
	return rc;
}

int kafka_land(struct kafka_consumer *c, struct wh *r, struct ingest_writer *wr,
	       struct kafka_result *res, struct sl_err *err)
{
	int rc;

	memset(res, 0, sizeof(*res));
	for (int tries = 0;; tries++) {
		rc = land_from_stored(c, r, wr, res, err);
		/* a batch refused because the stored offsets moved (another
		 * process landed, or a reset) lands again from where they are */
		if (rc != SL_E_BUSY || atomic_load(&c->cancel) || tries == RESTARTS)
			return rc;
		sl_err_clear(err);
	}
}
