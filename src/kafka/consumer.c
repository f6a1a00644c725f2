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
#include "live/advance.h"
#include "project/config.h"
#include "warehouse/wh.h"

#include <librdkafka/rdkafka.h>
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

struct kafka_consumer {
	struct arena *a;
	const struct source_cfg *src;
	const char *fqn; /* landing.NAME */
	int64_t batch_rows;
	rd_kafka_t *rk;
	atomic_bool cancel;
};

/* A partition to read: where it starts and where it ends for this call. */
struct part {
	int32_t id;
	int64_t next, end;
	bool done;
};

int kafka_consumer_new(struct arena *parent, const struct source_cfg *src, int64_t batch_rows,
		       struct kafka_consumer **out, struct sl_err *err)
{
	struct kafka_consumer *c = xcalloc(1, sizeof(*c));
	char errstr[512];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	/* no group decides offsets; an offset out of range is an error, never
	 * a silent jump to either end */
	const char *settings[][2] = {
		{ "bootstrap.servers", src->brokers },
		{ "group.id", "sluice" },
		{ "enable.auto.commit", "false" },
		{ "enable.auto.offset.store", "false" },
		{ "enable.partition.eof", "true" },
		{ "auto.offset.reset", "error" },
		{ "client.id", "sluice" },
	};

	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		if (rd_kafka_conf_set(conf, settings[i][0], settings[i][1], errstr, sizeof(errstr)) !=
		    RD_KAFKA_CONF_OK) {
			rd_kafka_conf_destroy(conf);
			free(c);
			return sl_err_set(err, SL_E_CONFIG, "source %s: %s", src->name, errstr);
		}
	}
	c->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
	if (!c->rk) {
		free(c);
		return sl_err_set(err, SL_E_CONFIG, "source %s: %s", src->name, errstr);
	}
	rd_kafka_poll_set_consumer(c->rk);
	c->a = arena_new(parent);
	c->src = src;
	c->fqn = arena_sprintf(c->a, "landing.%s", src->name);
	c->batch_rows = batch_rows > 0 ? batch_rows : 10000;
	*out = c;
	return 0;
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

static int broker_error(struct kafka_consumer *c, rd_kafka_resp_err_t e, const char *what,
			struct sl_err *err)
{
	if (e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC)
		return sl_err_set(err, SL_E_NOTFOUND, "source %s: topic '%s' is not on %s",
				  c->src->name, c->src->topic, c->src->brokers);
	return sl_err_set(err, SL_E_CONN, "source %s: %s from %s: %s", c->src->name, what,
			  c->src->brokers, rd_kafka_err2str(e));
}

/* The topic's partitions, each with its retained range, into *parts. */
static int partitions(struct kafka_consumer *c, struct arena *a, struct part **parts, size_t *n,
		      struct sl_err *err)
{
	const struct rd_kafka_metadata *md = NULL;
	/* every topic's: asking for one topic would make it, on a broker that
	 * makes topics on demand */
	rd_kafka_resp_err_t e = rd_kafka_metadata(c->rk, 1, NULL, &md, ASK_TIMEOUT_MS);
	const struct rd_kafka_metadata_topic *t = NULL;
	int rc = 0;

	for (int i = 0; !e && i < md->topic_cnt && !t; i++)
		if (strcmp(md->topics[i].topic, c->src->topic) == 0)
			t = &md->topics[i];
	if (!e && (!t || t->err))
		e = t ? t->err : RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
	*n = 0;
	if (e) {
		rc = broker_error(c, e, "the topic's partitions", err);
	} else {
		*n = (size_t)t->partition_cnt;
		*parts = arena_alloc(a, (*n + 1) * sizeof(**parts));
		for (size_t i = 0; i < *n; i++)
			(*parts)[i] = (struct part){ .id = t->partitions[i].id };
	}
	for (size_t i = 0; !rc && i < *n; i++) {
		int64_t low, high;

		if (atomic_load(&c->cancel)) {
			rc = sl_err_set(err, SL_E_BUSY, "source %s: stopped", c->src->name);
			break;
		}
		e = rd_kafka_query_watermark_offsets(c->rk, c->src->topic, (*parts)[i].id, &low,
						     &high, ASK_TIMEOUT_MS);
		if (e)
			rc = broker_error(c, e, "a partition's offsets", err);
		(*parts)[i].next = low;
		(*parts)[i].end = high;
	}
	if (md)
		rd_kafka_metadata_destroy(md);
	return rc;
}

/* Each partition starts at its stored offset, unless that is gone or
 * beyond the topic; a stored partition the topic lacks is the same. */
static int starts(struct kafka_consumer *c, const struct kafka_offsets *stored, struct part *parts,
		  size_t n, struct sl_err *err)
{
	for (size_t k = 0; k < stored->n; k++) {
		bool found = false;

		for (size_t i = 0; i < n && !found; i++)
			found = parts[i].id == stored->partition[k];
		if (!found)
			return sl_err_set(err, SL_E_INVALID,
					  "source %s: partition %d of topic '%s' landed up to "
					  "offset %lld and is gone: was the topic made again?",
					  c->src->name, (int)stored->partition[k], c->src->topic,
					  (long long)stored->next[k] - 1);
	}
	for (size_t i = 0; i < n; i++) {
		int64_t next = kafka_offsets_get(stored, parts[i].id);

		if (next >= 0 && next < parts[i].next)
			return sl_err_set(err, SL_E_INVALID,
					  "source %s: messages %lld to %lld of partition %d of topic "
					  "'%s' are gone from the brokers before they landed "
					  "(retention ran out): they are lost to sluice",
					  c->src->name, (long long)next, (long long)parts[i].next - 1,
					  (int)parts[i].id, c->src->topic);
		if (next > parts[i].end)
			return sl_err_set(err, SL_E_INVALID,
					  "source %s: partition %d of topic '%s' landed up to offset "
					  "%lld, past its end %lld: was the topic made again?",
					  c->src->name, (int)parts[i].id, c->src->topic,
					  (long long)next - 1, (long long)parts[i].end);
		if (next >= 0)
			parts[i].next = next;
		parts[i].done = parts[i].next >= parts[i].end;
	}
	return 0;
}

static int assign(struct kafka_consumer *c, const struct part *parts, size_t n,
		  struct sl_err *err)
{
	rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new((int)n);
	rd_kafka_resp_err_t e;

	for (size_t i = 0; i < n; i++)
		if (!parts[i].done)
			rd_kafka_topic_partition_list_add(list, c->src->topic, parts[i].id)->offset =
				parts[i].next;
	e = rd_kafka_assign(c->rk, list);
	rd_kafka_topic_partition_list_destroy(list);
	return e ? broker_error(c, e, "an assignment", err) : 0;
}

static struct part *part_of(struct part *parts, size_t n, int32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (parts[i].id == id)
			return &parts[i];
	return NULL;
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
		       struct kafka_rows *rows, struct sl_err *err)
{
	rd_kafka_headers_t *hdrs = NULL;
	struct kafka_header *h = NULL;
	rd_kafka_timestamp_type_t tstype;
	struct kafka_message m = {
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
		struct part *p;
		int rc = 0;

		if (atomic_load(&c->cancel))
			return sl_err_set(err, SL_E_BUSY, "source %s: stopped", c->src->name);
		msg = rd_kafka_consumer_poll(c->rk, wait);
		if (!msg && rows->nrows)
			return 0;
		if (!msg && (waited += wait) < STALL_MS)
			continue;
		if (!msg)
			return sl_err_set(err, SL_E_CONN,
					  "source %s: nothing came from %s for %d s while topic "
					  "'%s' has messages to land",
					  c->src->name, c->src->brokers, STALL_MS / 1000,
					  c->src->topic);
		waited = 0;
		p = part_of(parts, n, msg->partition);
		if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			/* past what the log holds but messages, up to the end this
			 * landing takes: a transaction's markers, an aborted one's
			 * records */
			if (p && !p->done && msg->offset > p->next && msg->offset <= p->end) {
				p->next = msg->offset;
				kafka_offsets_set(offsets, p->id, p->next);
			}
			if (p)
				p->done = true;
		} else if (msg->err) {
			rc = sl_err_set(err, msg->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE
						     ? SL_E_INVALID
						     : SL_E_CONN,
					"source %s: partition %d of topic '%s': %s", c->src->name,
					(int)msg->partition, c->src->topic,
					rd_kafka_message_errstr(msg));
		} else if (p && !p->done && msg->offset >= p->next) {
			/* past the end found at the start: the next call's */
			if (msg->offset >= p->end) {
				p->done = true;
			} else {
				rc = add_message(c, a, msg, rows, err);
				p->next = msg->offset + 1;
				p->done = p->next >= p->end;
				kafka_offsets_set(offsets, p->id, p->next);
			}
		}
		rd_kafka_message_destroy(msg);
		if (rc)
			return rc;
	}
	return 0;
}

static int land_batch(struct kafka_consumer *c, struct arena *a, struct ingest_writer *wr,
		      const struct kafka_offsets *offsets, const struct kafka_rows *rows,
		      struct kafka_result *res, struct sl_err *err)
{
	struct buf cursor = BUF_INIT;
	struct ingest_result ir;
	size_t ncols;
	const char *const *names = kafka_row_names(a, c->src, &ncols);
	struct ingest_batch b = {
		.source = c->fqn,
		.names = names,
		.ncols = ncols,
		.nrows = rows->nrows,
		.cells = rows->cells,
	};
	int rc;

	kafka_offsets_text(offsets, &cursor);
	b.cursor = cursor.buf;
	rc = ingest_submit_wait(wr, &b, &ir, err);
	if (!rc && ir.code)
		rc = sl_err_set(err, ir.code, "source %s: %s", c->src->name, ir.error);
	if (!rc) {
		res->messages += ir.rows;
		res->batches++;
		res->seq = ir.seq;
		snprintf(res->offsets, sizeof(res->offsets), "%s", cursor.buf);
	}
	buf_release(&cursor);
	return rc;
}

/* The offsets "to" asks for, each within what its partition holds. */
static int reset_offsets(struct kafka_consumer *c, const char *to, const struct part *parts,
			 size_t n, struct kafka_offsets *out, struct sl_err *err)
{
	struct kafka_offsets asked = { 0 };
	bool latest = strcmp(to, "latest") == 0;

	if (!latest && strcmp(to, "earliest") != 0 && (!kafka_offsets_parse(to, &asked) || !asked.n))
		return sl_err_set(err, SL_E_USAGE,
				  "--reset takes earliest, latest or PARTITION:OFFSET pairs "
				  "(0:120,1:88), not '%s'",
				  to);
	*out = (struct kafka_offsets){ 0 };
	for (size_t k = 0; k < asked.n; k++) {
		const struct part *p = NULL;

		for (size_t i = 0; i < n && !p; i++)
			p = parts[i].id == asked.partition[k] ? &parts[i] : NULL;
		if (!p || asked.next[k] < p->next || asked.next[k] > p->end) {
			int rc = p ? sl_err_set(err, SL_E_USAGE,
						"source %s: partition %d of topic '%s' takes an offset "
						"from %lld (its first retained message) to %lld (its "
						"end), not %lld",
						c->src->name, (int)p->id, c->src->topic,
						(long long)p->next, (long long)p->end,
						(long long)asked.next[k])
				   : sl_err_set(err, SL_E_USAGE,
						"source %s: topic '%s' has no partition %d",
						c->src->name, c->src->topic, (int)asked.partition[k]);

			kafka_offsets_free(&asked);
			return rc;
		}
	}
	for (size_t i = 0; i < n; i++) {
		int64_t at = kafka_offsets_get(&asked, parts[i].id);

		kafka_offsets_set(out, parts[i].id, at >= 0 ? at : latest ? parts[i].end : parts[i].next);
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

int kafka_land(struct kafka_consumer *c, struct wh *r, struct ingest_writer *wr,
	       struct kafka_result *res, struct sl_err *err)
{
	struct arena *a = arena_new(c->a);
	struct kafka_offsets offsets;
	const char *stored = NULL;
	struct part *parts = NULL;
	size_t n = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = atomic_load(&c->cancel) ? sl_err_set(err, SL_E_BUSY, "source %s: stopped", c->src->name)
				     : live_cursor_get(r, a, c->fqn, &stored, err);
	if (!rc && !kafka_offsets_parse(stored, &offsets))
		rc = sl_err_set(err, SL_E_INVALID,
				"source %s: its stored offsets '%s' do not read as "
				"PARTITION:OFFSET pairs",
				c->src->name, stored);
	if (rc) {
		arena_free(a);
		return rc;
	}
	snprintf(res->offsets, sizeof(res->offsets), "%s", stored ? stored : "");
	rc = partitions(c, a, &parts, &n, err);
	if (!rc)
		rc = starts(c, &offsets, parts, n, err);
	if (!rc && !all_done(parts, n))
		rc = assign(c, parts, n, err);
	while (!rc && !all_done(parts, n)) {
		struct arena *batch = arena_new(a);
		struct kafka_rows rows = { 0 };

		rc = read_batch(c, batch, parts, n, &offsets, &rows, err);
		if (!rc && rows.nrows)
			rc = land_batch(c, batch, wr, &offsets, &rows, res, err);
		arena_free(batch);
	}
	rd_kafka_assign(c->rk, NULL);
	kafka_offsets_free(&offsets);
	arena_free(a);
	return rc;
}
