/*
 * Kafka sources (src/kafka/): the stored offsets as text, a message as a
 * landing row (typed JSON, other values, bytes, tombstones, headers), and
 * the consumer against librdkafka's mock cluster in this process, landing
 * through the real writer on DuckDB and on the suite's PostgreSQL server:
 * every message once across consumers that start again from the stored
 * offsets, and the losses other consumers pass over in silence (a
 * partition gone, offsets past a partition's end, messages dropped by
 * retention before they landed) refused with what was lost.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_project_wh.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "ingest/writer.h"
#include "kafka/consumer.h"
#include "kafka/message.h"
#include "kafka/offsets.h"
#include "live/advance.h"
#include "project/config.h"
#include "project/model.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PG_DATABASE "sluice_unit_kafka"

static struct cfg_column COLUMNS[] = {
	{ "id", "BIGINT" },
	{ "amount", "DECIMAL(10,2)" },
};

/* ---- offsets and rows, alone ---- */

static void test_offsets_text(void **state)
{
	struct kafka_offsets o;
	struct buf b = BUF_INIT;

	(void)state;
	assert_true(kafka_offsets_parse("clicks:0:12,clicks:3:0,clicks:10:7,views.v2:0:4", NULL, &o));
	assert_int_equal(kafka_offsets_get(&o, "clicks", 3), 0);
	assert_int_equal(kafka_offsets_get(&o, "clicks", 10), 7);
	assert_int_equal(kafka_offsets_get(&o, "views.v2", 0), 4);
	assert_int_equal(kafka_offsets_get(&o, "clicks", 2), -1);
	assert_int_equal(kafka_offsets_get(&o, "views.v2", 3), -1);
	kafka_offsets_set(&o, "clicks", 2, 5);
	kafka_offsets_set(&o, "clicks", 0, 13);
	kafka_offsets_set(&o, "a-b_c", 1, 1);
	kafka_offsets_text(&o, &b);
	assert_string_equal(b.buf, "a-b_c:1:1,clicks:0:13,clicks:2:5,clicks:3:0,clicks:10:7,"
				   "views.v2:0:4");
	kafka_offsets_free(&o);
	/* what a source of one topic stored before topics were named is that
	 * topic's, and is written again with its name */
	assert_true(kafka_offsets_parse("0:12,3:0,10:7", "clicks", &o));
	assert_int_equal(kafka_offsets_get(&o, "clicks", 10), 7);
	buf_reset(&b);
	kafka_offsets_text(&o, &b);
	assert_string_equal(b.buf, "clicks:0:12,clicks:3:0,clicks:10:7");
	kafka_offsets_free(&o);
	assert_false(kafka_offsets_parse("0:12", NULL, &o));
	assert_true(kafka_offsets_parse(NULL, NULL, &o) && o.n == 0);
	assert_true(kafka_offsets_parse("", "t", &o) && o.n == 0);
	for (const char *const *bad = (const char *const[]){
		     "x", "0:1,", "1:2,0:1", "0:-1", "0:1,0:2", "0:", ":1", "0:1;1:2", "t:0:1:2",
		     ":0:1", "t:x:1", "t:0:", "b:0:1,a:0:1", "t:0:1,t:0:2", "t:1:1,0:1", NULL };
	     *bad; bad++) {
		assert_false(kafka_offsets_parse(*bad, "t", &o));
		assert_int_equal(o.n, 0);
	}
	buf_release(&b);
}

/* A source of the topics (which must outlive it). */
static struct source_cfg source(const char *brokers, const char **topics, size_t ntopics)
{
	return (struct source_cfg){ .name = "orders",
				    .kind = "kafka",
				    .columns = COLUMNS,
				    .ncolumns = 2,
				    .brokers = brokers,
				    .topics = topics,
				    .ntopics = ntopics };
}

static const char *T_TOPIC[] = { "t" };

/* rows' cells of row r, joined by '|' ("NULL" for SQL NULL). */
static const char *row(struct arena *a, const struct kafka_rows *rows, size_t ncols, size_t r)
{
	const char *s = "";

	for (size_t c = 0; c < ncols; c++) {
		const char *v = rows->cells[r * ncols + c];

		s = arena_sprintf(a, "%s%s%s", s, c ? "|" : "", v ? v : "NULL");
	}
	return s;
}

static void test_message_rows(void **state)
{
	struct arena *a = arena_new(NULL);
	struct source_cfg src = source("unused:9092", T_TOPIC, 1);
	struct kafka_rows rows = { 0 };
	struct sl_err err = SL_ERR_INIT;
	const struct kafka_header h[] = { { "trace", "abc", 3 }, { "empty", NULL, 0 } };
	struct kafka_message m = { .topic = "t", .partition = 2, .offset = 7,
				   .ts_ms = 1767225600123, .key = "k1", .key_len = 2,
				   .value = "{\"id\": 4, \"amount\": \"12.50\", \"x\": [1]}",
				   .headers = h, .nheaders = 2 };
	size_t ncols;
	const char *const *names = kafka_row_names(a, &src, &ncols);

	(void)state;
	assert_int_equal(ncols, 10);
	assert_string_equal(names[2], "payload");
	assert_string_equal(names[3], "_sluice_op");
	assert_string_equal(names[6], "_sluice_topic");
	assert_string_equal(names[9], "_sluice_event_ts");
	m.value_len = strlen(m.value);
	assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), 0);
	assert_string_equal(row(a, &rows, ncols, 0),
			    "4|12.50|{\"id\":4,\"amount\":\"12.50\",\"x\":[1]}|u|k1|"
			    "{\"trace\":\"abc\",\"empty\":null}|t|2|7|2026-01-01 00:00:00.123");
	/* other JSON as it is, text as a string, bytes in hex, a tombstone */
	m = (struct kafka_message){ .topic = "t", .partition = 0, .offset = 1, .ts_ms = -1,
				    .value = "[1,2]", .value_len = 5 };
	assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), 0);
	assert_string_equal(row(a, &rows, ncols, 1), "NULL|NULL|[1,2]|u|NULL|NULL|t|0|1|NULL");
	m.value = "plain \"text\"";
	m.value_len = strlen(m.value);
	assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), 0);
	assert_string_equal(row(a, &rows, ncols, 2),
			    "NULL|NULL|\"plain \\\"text\\\"\"|u|NULL|NULL|t|0|1|NULL");
	m.value = "\xff\x00\x01";
	m.value_len = 3;
	m.key = "\x80";
	m.key_len = 1;
	assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), 0);
	assert_string_equal(row(a, &rows, ncols, 3),
			    "NULL|NULL|\"\\\\xff0001\"|u|\\x80|NULL|t|0|1|NULL");
	m = (struct kafka_message){ .topic = "t", .partition = 1, .offset = 9, .ts_ms = 0,
				    .key = "gone", .key_len = 4 };
	assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), 0);
	assert_string_equal(row(a, &rows, ncols, 4),
			    "NULL|NULL|NULL|d|gone|NULL|t|1|9|1970-01-01 00:00:00.000");
	assert_int_equal(rows.nrows, 5);

	/* a header name that is not UTF-8 keeps its header, in hex */
	{
		const struct kafka_header odd[] = { { "\xffn", "v\x00w", 3 } };

		m = (struct kafka_message){ .partition = 0, .offset = 3, .ts_ms = -1,
					    .headers = odd, .nheaders = 1 };
		assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), 0);
		assert_string_equal(rows.cells[rows.ncells - 5], "{\"\\\\xff6e\":\"\\\\x760077\"}");
		rows.nrows--;
		rows.ncells -= ncols;
	}

	/* JSON the warehouse's reader refuses lands as a string, not as JSON */
	src.ncolumns = 0;
	ncols -= 2;
	for (const char *const *odd = (const char *const[]){ "\"\\ud800\"", "\"\\\"\\\\ud800\\\"\"",
							      "[1e400]", "\"[1e400]\"",
							      "123456789012345678901234",
							      "\"123456789012345678901234\"", NULL };
	     *odd; odd += 2) {
		m = (struct kafka_message){ .partition = 0, .offset = 2, .ts_ms = -1, .value = odd[0],
					    .value_len = strlen(odd[0]) };
		assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), 0);
		assert_string_equal(rows.cells[rows.ncells - 8], odd[1]);
	}
	src.ncolumns = 2;
	ncols += 2;
	rows.nrows -= 3;
	rows.ncells -= 3 * 8;

	/* a value its column does not take names the message */
	m = (struct kafka_message){ .partition = 2, .offset = 70, .ts_ms = -1,
				    .value = "{\"id\": \"four\"}", .value_len = 14 };
	assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), SL_E_INVALID);
	assert_non_null(strstr(err.msg, "partition 2, offset 70"));
	assert_non_null(strstr(err.msg, "id"));
	/* nor does an object its typed columns cannot read */
	m.value = "{\"id\": 18446744073709551615}";
	m.value_len = strlen(m.value);
	assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), SL_E_INVALID);
	assert_non_null(strstr(err.msg, "partition 2, offset 70: invalid JSON object"));
	assert_int_equal(rows.nrows, 5);
	arena_free(a);
}

/* A debezium source: the event's op and row (the old one for a delete,
 * the envelope under "payload" when the schema is beside it), tombstones
 * landing nothing, anything else refused with its place. */
static void test_debezium_rows(void **state)
{
	struct arena *a = arena_new(NULL);
	struct source_cfg src = source("unused:9092", T_TOPIC, 1);
	struct kafka_rows rows = { 0 };
	struct sl_err err = SL_ERR_INIT;
	struct kafka_message m = { .partition = 1, .offset = 3, .ts_ms = -1, .key = "{\"id\":4}",
				   .key_len = 8 };
	size_t ncols;
	const char *values[] = {
		"{\"before\":null,\"after\":{\"id\":4,\"amount\":\"1.50\"},\"op\":\"c\","
		"\"source\":{\"lsn\":10}}",
		"{\"schema\":{},\"payload\":{\"before\":{\"id\":4,\"amount\":\"1.50\"},"
		"\"after\":{\"id\":4,\"amount\":\"2.00\"},\"op\":\"u\"}}",
		"{\"before\":{\"id\":4},\"after\":null,\"op\":\"d\"}",
		"{\"before\":null,\"after\":null,\"op\":\"t\"}",
	};
	const char *want[] = {
		"4|1.50|{\"id\":4,\"amount\":\"1.50\"}|c",
		"4|2.00|{\"id\":4,\"amount\":\"2.00\"}|u",
		"4|NULL|{\"id\":4}|d",
		"NULL|NULL|NULL|t",
	};

	(void)state;
	src.format = "debezium";
	kafka_row_names(a, &src, &ncols);
	for (size_t i = 0; i < 4; i++) {
		m.value = values[i];
		m.value_len = strlen(values[i]);
		if (kafka_rows_add(a, &src, &m, &rows, &err))
			fail_msg("%zu: %s", i, err.msg);
		assert_string_equal(arena_strndup(a, row(a, &rows, ncols, i), strlen(want[i])),
				    want[i]);
	}
	m.value = NULL;
	assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), 0);
	assert_int_equal(rows.nrows, 4);
	for (const char *const *bad = (const char *const[]){ "{\"id\":4}", "[1]", "plain",
							      "{\"op\":\"u\",\"after\":null}",
							      NULL };
	     *bad; bad++) {
		m.value = *bad;
		m.value_len = strlen(*bad);
		assert_int_equal(kafka_rows_add(a, &src, &m, &rows, &err), SL_E_INVALID);
		assert_non_null(strstr(err.msg, "partition 1, offset 3: not a Debezium change event"));
	}
	assert_int_equal(rows.nrows, 4);
	arena_free(a);
}

/* ---- the consumer, against the mock cluster ---- */

struct kfx {
	struct fx *f;
	rd_kafka_t *mock_rk, *producer;
	rd_kafka_mock_cluster_t *mc;
	const char *brokers;
	const char *topics[2]; /* the source's */
	struct source_cfg src;
	struct project p;
};

static rd_kafka_t *client(rd_kafka_type_t type, const char *brokers)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char errstr[256];
	rd_kafka_t *rk;

	if (brokers &&
	    rd_kafka_conf_set(conf, "bootstrap.servers", brokers, errstr, sizeof(errstr)))
		fail_msg("%s", errstr);
	rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof(errstr));
	rk = rd_kafka_new(type, conf, errstr, sizeof(errstr));
	if (!rk)
		fail_msg("%s", errstr);
	return rk;
}

static int kafka_setup(void **state, bool postgres)
{
	struct kfx *k = calloc(1, sizeof(*k));

	if (postgres ? fx_setup_postgres(state, "kafka", PG_DATABASE)
		     : fx_setup_duckdb(state, "kafka"))
		return -1;
	k->f = *state;
	k->mock_rk = client(RD_KAFKA_PRODUCER, NULL);
	k->mc = rd_kafka_mock_cluster_new(k->mock_rk, 1);
	if (!k->mc)
		return -1;
	k->brokers = arena_strdup(k->f->a, rd_kafka_mock_cluster_bootstraps(k->mc));
	k->producer = client(RD_KAFKA_PRODUCER, k->brokers);
	rd_kafka_mock_topic_create(k->mc, "orders", 3, 1);
	k->topics[0] = "orders";
	k->src = source(k->brokers, k->topics, 1);
	k->p.cfg.sources = &k->src;
	k->p.cfg.nsources = 1;
	if (state_ensure(k->f->w, &k->f->err) ||
	    live_sources_ensure(k->f->w, k->f->a, &k->p, &k->f->err))
		fail_msg("%s", k->f->err.msg);
	*state = k;
	return 0;
}

static int setup_duckdb(void **state)
{
	return kafka_setup(state, false);
}

static int setup_postgres(void **state)
{
	return kafka_setup(state, true);
}

static int teardown(void **state)
{
	struct kfx *k = *state;

	rd_kafka_destroy(k->producer);
	rd_kafka_mock_cluster_destroy(k->mc);
	rd_kafka_destroy(k->mock_rk);
	fx_free(k->f);
	free(k);
	return 0;
}

/* Messages first..first+n-1 to topic, round-robin over its partitions
 * (nparts), each with a key, a JSON value and a header. */
static void produce(struct kfx *k, const char *topic, int first, int n, int nparts)
{
	for (int i = first; i < first + n; i++) {
		char key[32], value[128];

		snprintf(key, sizeof(key), "k%d", i);
		snprintf(value, sizeof(value), "{\"id\": %d, \"amount\": \"%d.25\"}", i, i);
		if (rd_kafka_producev(k->producer, RD_KAFKA_V_TOPIC(topic),
				      RD_KAFKA_V_PARTITION(i % nparts),
				      RD_KAFKA_V_KEY(key, strlen(key)),
				      RD_KAFKA_V_VALUE(value, strlen(value)),
				      RD_KAFKA_V_HEADER("n", key, -1),
				      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END))
			fail_msg("cannot produce message %d", i);
	}
	assert_int_equal(rd_kafka_flush(k->producer, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
}

/* A consumer made anew, as a process started again would, landing once
 * through a writer of its own. */
static int land(struct kfx *k, struct kafka_result *res)
{
	struct ingest_opts io = { .flush_interval_ms = 0, .flush_rows = 1000, .max_rows = 100000 };
	struct kafka_consumer *c;
	struct ingest_writer *wr;
	struct wh *conn;
	int rc;

	sl_err_clear(&k->f->err);
	if (wh_connect(k->f->w, &conn, &k->f->err) ||
	    ingest_writer_start(conn, &io, &wr, &k->f->err) ||
	    kafka_consumer_new(NULL, &k->src, 7, &c, &k->f->err))
		fail_msg("%s", k->f->err.msg);
	rc = kafka_land(c, k->f->w, wr, res, &k->f->err);
	kafka_consumer_free(c);
	ingest_writer_stop(wr);
	return rc;
}

static const char *stored(struct kfx *k)
{
	const char *s = NULL;

	if (live_cursor_get(k->f->w, k->f->a, "landing.orders", &s, &k->f->err))
		fail_msg("%s", k->f->err.msg);
	return s ? s : "";
}

static void test_lands_each_message_once(void **state)
{
	struct kfx *k = *state;
	struct kafka_result res;

	produce(k, "orders", 0, 25, 3);
	assert_int_equal(land(k, &res), 0);
	assert_int_equal(res.messages, 25);
	/* batches of up to 7 messages */
	assert_true(res.batches >= 4);
	assert_string_equal(stored(k), "orders:0:9,orders:1:8,orders:2:8");
	assert_string_equal(res.offsets, "orders:0:9,orders:1:8,orders:2:8");
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders"), 25);
	assert_int_equal(query_int(k->f->w, "SELECT count(DISTINCT (_sluice_partition, "
					    "_sluice_offset)) FROM landing.orders"),
			 25);
	assert_int_equal(query_int(k->f->w, "SELECT sum(id) FROM landing.orders"), 300);
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders WHERE "
					    "_sluice_key = 'k' || CAST(id AS VARCHAR) AND "
					    "amount = id + 0.25 AND _sluice_seq IS NOT NULL AND "
					    "_sluice_event_ts IS NOT NULL AND _sluice_headers IS NOT NULL"),
			 25);

	/* started again: only what came since */
	produce(k, "orders", 25, 10, 3);
	assert_int_equal(land(k, &res), 0);
	assert_int_equal(res.messages, 10);
	assert_int_equal(land(k, &res), 0);
	assert_int_equal(res.messages, 0);
	assert_string_equal(stored(k), "orders:0:12,orders:1:12,orders:2:11");
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders"), 35);
	assert_int_equal(query_int(k->f->w, "SELECT count(DISTINCT id) FROM landing.orders"), 35);
}

/* Offsets stored as a landing would, after one that stored the source's
 * first (a message of its own). */
static void set_stored(struct kfx *k, const char *offsets)
{
	if (live_cursor_set(k->f->w, "landing.orders", offsets, &k->f->err))
		fail_msg("%s", k->f->err.msg);
}

static void test_losses_are_refused(void **state)
{
	struct kfx *k = *state;
	struct kafka_result res;

	produce(k, "orders", 0, 6, 3);
	assert_int_equal(land(k, &res), 0);
	/* offsets past a partition's end: the topic was made again (stored
	 * as a source of one topic did before topics were named) */
	set_stored(k, "0:2,1:40,2:0");
	assert_int_equal(land(k, &res), SL_E_INVALID);
	assert_non_null(strstr(k->f->err.msg, "partition 1 of topic 'orders' landed up to offset "
					      "39, past its end 2"));
	/* a partition the topic no longer has */
	set_stored(k, "orders:0:2,orders:5:3");
	assert_int_equal(land(k, &res), SL_E_INVALID);
	assert_non_null(strstr(k->f->err.msg, "partition 5 of topic 'orders' landed up to offset "
					      "2 and is gone"));
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders"), 6);
	/* stored offsets that do not read */
	set_stored(k, "zero:1");
	assert_int_equal(land(k, &res), SL_E_INVALID);
	assert_non_null(strstr(k->f->err.msg, "'zero:1'"));
	/* a topic that is not there */
	k->topics[0] = "nothing_here";
	set_stored(k, "");
	assert_int_equal(land(k, &res), SL_E_NOTFOUND);
	assert_non_null(strstr(k->f->err.msg, "topic 'nothing_here'"));
	k->topics[0] = "orders";
	if (land(k, &res))
		fail_msg("%s", k->f->err.msg);
	assert_int_equal(res.messages, 6);
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders"), 12);
}

/* reset's answer on a consumer of its own, and the offsets it stored. */
static int reset_to(struct kfx *k, const char *to, const char **stored)
{
	struct kafka_consumer *c;
	int rc;

	sl_err_clear(&k->f->err);
	if (kafka_consumer_new(NULL, &k->src, 7, &c, &k->f->err))
		fail_msg("%s", k->f->err.msg);
	rc = kafka_reset(c, k->f->a, k->f->w, to, stored, &k->f->err);
	kafka_consumer_free(c);
	return rc;
}

/* The deliberate way on: offsets moved to either end or where asked, each
 * within what its partition holds; a source that landed nothing has
 * nothing to move. */
static void test_reset(void **state)
{
	struct kfx *k = *state;
	struct kafka_result res;
	const char *to;

	produce(k, "orders", 0, 9, 3);
	assert_int_equal(reset_to(k, "latest", &to), SL_E_NOTFOUND);
	assert_non_null(strstr(k->f->err.msg, "landed nothing yet"));
	assert_int_equal(land(k, &res), 0);
	assert_int_equal(reset_to(k, "earliest", &to), 0);
	assert_string_equal(to, "orders:0:0,orders:1:0,orders:2:0");
	assert_string_equal(stored(k), "orders:0:0,orders:1:0,orders:2:0");
	assert_int_equal(reset_to(k, "2:1", &to), 0);
	assert_string_equal(stored(k), "orders:0:0,orders:1:0,orders:2:1");
	assert_int_equal(reset_to(k, "orders:1:2", &to), 0);
	assert_string_equal(stored(k), "orders:0:0,orders:1:2,orders:2:0");
	assert_int_equal(reset_to(k, "latest", &to), 0);
	assert_string_equal(stored(k), "orders:0:3,orders:1:3,orders:2:3");
	assert_int_equal(land(k, &res), 0);
	assert_int_equal(res.messages, 0);
	assert_int_equal(reset_to(k, "1:4", &to), SL_E_USAGE);
	assert_non_null(strstr(k->f->err.msg, "from 0 (its first retained message) to 3"));
	assert_int_equal(reset_to(k, "3:0", &to), SL_E_USAGE);
	assert_int_equal(reset_to(k, "-", &to), SL_E_USAGE);
	assert_int_equal(reset_to(k, "views:0:0", &to), SL_E_USAGE);
	assert_non_null(strstr(k->f->err.msg, "reads no topic 'views'"));
	assert_string_equal(stored(k), "orders:0:3,orders:1:3,orders:2:3");
	k->topics[0] = "nothing_here";
	assert_int_equal(reset_to(k, "latest", &to), SL_E_NOTFOUND);
	assert_non_null(strstr(k->f->err.msg, "topic 'nothing_here'"));
}

/* A landing asked to stop reads nothing; a landing table made before its
 * kind had the op, key, headers and topic columns gets them. */
static void test_stopped_and_old_tables(void **state)
{
	struct kfx *k = *state;
	struct ingest_opts io = { .flush_interval_ms = 0, .flush_rows = 1000, .max_rows = 100000 };
	struct kafka_consumer *c;
	struct ingest_writer *wr;
	struct kafka_result res;
	struct wh *conn;

	produce(k, "orders", 0, 4, 3);
	if (wh_connect(k->f->w, &conn, &k->f->err) ||
	    ingest_writer_start(conn, &io, &wr, &k->f->err) ||
	    kafka_consumer_new(NULL, &k->src, 7, &c, &k->f->err))
		fail_msg("%s", k->f->err.msg);
	kafka_consumer_cancel(c);
	assert_int_equal(kafka_land(c, k->f->w, wr, &res, &k->f->err), SL_E_BUSY);
	kafka_consumer_free(c);
	ingest_writer_stop(wr);
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders"), 0);

	exec(k->f->w, "DROP TABLE landing.orders; CREATE TABLE landing.orders (id BIGINT, "
		      "amount DECIMAL(10,2), _sluice_partition INTEGER, _sluice_offset BIGINT, "
		      "_sluice_event_ts TIMESTAMP, _sluice_landed_at TIMESTAMP, payload JSON, "
		      "_sluice_seq BIGINT)");
	if (live_sources_ensure(k->f->w, k->f->a, &k->p, &k->f->err))
		fail_msg("%s", k->f->err.msg);
	assert_int_equal(land(k, &res), 0);
	assert_int_equal(res.messages, 4);
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders WHERE "
					    "_sluice_op = 'u' AND _sluice_key IS NOT NULL AND "
					    "_sluice_topic = 'orders'"),
			 4);
}

/* The mock cluster keeps a few MiB a partition and drops the oldest
 * messages past that, as retention does: what was not landed by then is
 * named, and nothing lands. */
static void test_retention_ran_out(void **state)
{
	struct kfx *k = *state;
	struct kafka_result res;
	int64_t low = 0, high = 0;
	char *big = malloc(200001);

	produce(k, "orders", 0, 1, 1);
	assert_int_equal(land(k, &res), 0);
	rd_kafka_mock_topic_create(k->mc, "big", 1, 1);
	memset(big, 'x', 200000);
	big[200000] = '\0';
	for (int i = 0; i < 60; i++)
		if (rd_kafka_producev(k->producer, RD_KAFKA_V_TOPIC("big"), RD_KAFKA_V_PARTITION(0),
				      RD_KAFKA_V_VALUE(big, 200000),
				      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END))
			fail_msg("cannot produce");
	assert_int_equal(rd_kafka_flush(k->producer, 20000), RD_KAFKA_RESP_ERR_NO_ERROR);
	free(big);
	assert_int_equal(rd_kafka_query_watermark_offsets(k->producer, "big", 0, &low, &high, 5000),
			 0);
	assert_true(low > 0);
	k->topics[0] = "big";
	set_stored(k, "big:0:0");
	assert_int_equal(land(k, &res), SL_E_INVALID);
	assert_non_null(strstr(k->f->err.msg,
			       arena_sprintf(k->f->a, "messages 0 to %lld of partition 0 of topic "
						      "'big' are gone",
					     (long long)low - 1)));
	assert_non_null(strstr(k->f->err.msg, "retention ran out"));
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders"), 1);
}

/* Two topics into one source: offsets per topic and partition, each row
 * with its topic, and every message once. */
static void test_topics(void **state)
{
	struct kfx *k = *state;
	struct kafka_result res;

	rd_kafka_mock_topic_create(k->mc, "returns", 2, 1);
	k->topics[1] = "returns";
	k->src.ntopics = 2;
	produce(k, "orders", 0, 6, 3);
	produce(k, "returns", 100, 5, 2);
	assert_int_equal(land(k, &res), 0);
	assert_int_equal(res.messages, 11);
	assert_string_equal(stored(k), "orders:0:2,orders:1:2,orders:2:2,returns:0:3,returns:1:2");
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders WHERE "
					    "_sluice_topic = 'returns' AND id >= 100"),
			 5);
	assert_int_equal(query_int(k->f->w, "SELECT count(DISTINCT (_sluice_topic, "
					    "_sluice_partition, _sluice_offset)) FROM landing.orders"),
			 11);
	produce(k, "returns", 105, 2, 2);
	assert_int_equal(land(k, &res), 0);
	assert_int_equal(res.messages, 2);
	/* what a loss names is the topic's */
	set_stored(k, "orders:0:2,orders:1:2,orders:2:2,returns:0:3,returns:1:99");
	assert_int_equal(land(k, &res), SL_E_INVALID);
	assert_non_null(strstr(k->f->err.msg, "partition 1 of topic 'returns' landed up to offset "
					      "98, past its end 3"));
	k->topics[1] = "gone_topic";
	assert_int_equal(land(k, &res), SL_E_NOTFOUND);
	assert_non_null(strstr(k->f->err.msg, "topic 'gone_topic' is not on"));
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders"), 13);
}

/* A partition without stored offsets, as one added to the topic since the
 * last landing has, is read from its first message. librdkafka's mock
 * cluster cannot add partitions to a topic, so the stored offsets are
 * those of a landing that saw only partition 0. */
static void test_partition_added(void **state)
{
	struct kfx *k = *state;
	struct kafka_result res;

	produce(k, "orders", 0, 9, 3);
	assert_int_equal(land(k, &res), 0);
	exec(k->f->w, "DELETE FROM landing.orders WHERE _sluice_partition > 0");
	set_stored(k, "orders:0:3");
	assert_int_equal(land(k, &res), 0);
	assert_int_equal(res.messages, 6);
	assert_string_equal(stored(k), "orders:0:3,orders:1:3,orders:2:3");
	assert_int_equal(query_int(k->f->w, "SELECT count(DISTINCT (_sluice_partition, "
					    "_sluice_offset)) FROM landing.orders"),
			 9);
}

/* One batch through a writer of its own; its result code. */
static int submit(struct kfx *k, const char *from, const char *cursor, const char *id)
{
	struct ingest_opts io = { .flush_interval_ms = 0, .flush_rows = 1000, .max_rows = 100000 };
	const char *names[] = { "id" };
	const char *cells[] = { id };
	struct ingest_batch b = { .source = "landing.orders", .names = names, .ncols = 1,
				  .nrows = 1, .cells = cells, .cursor = cursor,
				  .cursor_from = from };
	struct ingest_result ir = { 0 };
	struct ingest_writer *wr;
	struct wh *conn;

	sl_err_clear(&k->f->err);
	if (wh_connect(k->f->w, &conn, &k->f->err) ||
	    ingest_writer_start(conn, &io, &wr, &k->f->err) ||
	    ingest_submit_wait(wr, &b, &ir, &k->f->err))
		fail_msg("%s", k->f->err.msg);
	ingest_writer_stop(wr);
	snprintf(k->f->err.msg, sizeof(k->f->err.msg), "%s", ir.error);
	return ir.code;
}

/* A batch read after a cursor that is no longer the one stored (another
 * process landed meanwhile) is refused and lands nothing; one read after
 * the stored cursor lands. */
static void test_stale_cursor_refused(void **state)
{
	struct kfx *k = *state;

	assert_int_equal(submit(k, "", "orders:0:1", "1"), 0);
	assert_string_equal(stored(k), "orders:0:1");
	assert_int_equal(submit(k, "", "orders:0:2", "2"), SL_E_BUSY);
	assert_non_null(strstr(k->f->err.msg, "the stored cursor of landing.orders moved"));
	assert_int_equal(submit(k, "orders:0:0", "orders:0:2", "2"), SL_E_BUSY);
	assert_string_equal(stored(k), "orders:0:1");
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders"), 1);
	assert_int_equal(submit(k, "orders:0:1", "orders:0:2", "2"), 0);
	assert_string_equal(stored(k), "orders:0:2");
	/* a batch that does not say what it was read after is not compared */
	assert_int_equal(submit(k, NULL, "orders:0:3", "3"), 0);
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders"), 3);
}

struct racer {
	struct kfx *k;
	struct wh *conn;
	int rc;
	struct sl_err err;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	struct ingest_opts io = { .flush_interval_ms = 0, .flush_rows = 1000, .max_rows = 100000 };
	struct kafka_consumer *c;
	struct ingest_writer *wr;
	struct kafka_result res;
	struct wh *wconn;

	if (wh_connect(r->conn, &wconn, &r->err) ||
	    ingest_writer_start(wconn, &io, &wr, &r->err) ||
	    kafka_consumer_new(NULL, &r->k->src, 7, &c, &r->err)) {
		r->rc = -1;
		return NULL;
	}
	r->rc = kafka_land(c, r->conn, wr, &res, &r->err);
	kafka_consumer_free(c);
	ingest_writer_stop(wr);
	return NULL;
}

/* Two consumers of one source in two processes, without the lock that
 * keeps them apart, land at once on a shared warehouse: each batch the
 * other's landing made stale is refused, its consumer reads the stored
 * offsets again and goes on from there, and every message is in the
 * table once. */
static void test_two_consumers_race(void **state)
{
	struct kfx *k = *state;
	struct racer r[2] = { { .k = k }, { .k = k } };
	pthread_t th[2];
	struct kafka_result res;

	produce(k, "orders", 0, 600, 3);
	for (int i = 0; i < 2; i++)
		if (wh_connect(k->f->w, &r[i].conn, &k->f->err))
			fail_msg("%s", k->f->err.msg);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, race, &r[i]), 0);
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		wh_close(r[i].conn);
		/* a landing whose offsets kept moving gives up, as the other
		 * lands them */
		if (r[i].rc && r[i].rc != SL_E_BUSY)
			fail_msg("consumer %d: %s", i, r[i].err.msg);
	}
	assert_int_equal(land(k, &res), 0);
	assert_int_equal(query_int(k->f->w, "SELECT count(*) FROM landing.orders"), 600);
	assert_int_equal(query_int(k->f->w, "SELECT count(DISTINCT id) FROM landing.orders"), 600);
	assert_string_equal(stored(k), "orders:0:200,orders:1:200,orders:2:200");
}

/* The source's lock: one holder at a time on a shared warehouse, let go
 * when its connection closes. */
static void test_consumer_lock(void **state)
{
	struct kfx *k = *state;
	struct kafka_consumer *a, *b;
	struct wh *ca, *cb;
	bool got = false;

	if (kafka_consumer_new(NULL, &k->src, 7, &a, &k->f->err) ||
	    kafka_consumer_new(NULL, &k->src, 7, &b, &k->f->err) ||
	    wh_connect(k->f->w, &ca, &k->f->err) || wh_connect(k->f->w, &cb, &k->f->err))
		fail_msg("%s", k->f->err.msg);
	assert_false(kafka_consumer_locked(a, ca));
	assert_int_equal(kafka_consumer_lock(a, ca, &got, &k->f->err), 0);
	assert_true(got);
	assert_true(kafka_consumer_locked(a, ca));
	assert_int_equal(kafka_consumer_lock(b, cb, &got, &k->f->err), 0);
	assert_false(got);
	assert_false(kafka_consumer_locked(b, cb));
	/* the server lets go once the session's process ended, soon after */
	wh_close(ca);
	for (int i = 0; i < 100 && !got; i++) {
		assert_int_equal(kafka_consumer_lock(b, cb, &got, &k->f->err), 0);
		if (!got)
			usleep(50 * 1000);
	}
	assert_true(got);
	assert_true(kafka_consumer_locked(b, cb));
	wh_close(cb);
	kafka_consumer_free(a);
	kafka_consumer_free(b);
}

/* properties reach the client, after sluice's own settings; one sluice
 * sets itself, one librdkafka refuses and a variable not set are refused
 * with the property's line, and a secret read from the environment never
 * shows in a message. */
static void test_properties(void **state)
{
	struct source_cfg src = source("127.0.0.1:9", T_TOPIC, 1);
	struct cfg_setting set[] = {
		{ "fetch.wait.max.ms", "50", 12 },
		{ "client.id", "shop-${SLUICE_TEST_REGION}", 13 },
		{ "log_level", "0", 14 },
	};
	struct sl_err err = SL_ERR_INIT;
	struct kafka_consumer *c;
	char value[64];

	(void)state;
	setenv("SLUICE_TEST_REGION", "eu", 1);
	src.properties = set;
	src.nproperties = 3;
	if (kafka_consumer_new(NULL, &src, 7, &c, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kafka_consumer_setting(c, "fetch.wait.max.ms", value, sizeof(value)), 0);
	assert_string_equal(value, "50");
	assert_int_equal(kafka_consumer_setting(c, "client.id", value, sizeof(value)), 0);
	assert_string_equal(value, "shop-eu");
	assert_int_equal(kafka_consumer_setting(c, "auto.offset.reset", value, sizeof(value)), 0);
	assert_string_equal(value, "error");
	kafka_consumer_free(c);

	set[0] = (struct cfg_setting){ "fetch.wait.max.ms", "soon", 12 };
	assert_int_equal(kafka_consumer_new(NULL, &src, 7, &c, &err), SL_E_CONFIG);
	assert_non_null(strstr(err.msg, "property 'fetch.wait.max.ms' of source orders: "));
	assert_non_null(strstr(err.msg, "in sluice.yml:12"));
	set[0] = (struct cfg_setting){ "no.such.thing", "1", 12 };
	assert_int_equal(kafka_consumer_new(NULL, &src, 7, &c, &err), SL_E_CONFIG);
	assert_non_null(strstr(err.msg, "no.such.thing"));
	set[0] = (struct cfg_setting){ "group.id", "mine", 12 };
	assert_int_equal(kafka_consumer_new(NULL, &src, 7, &c, &err), SL_E_CONFIG);
	assert_non_null(strstr(err.msg, "property 'group.id' of source orders is sluice's to set: "
					"no consumer group decides anything"));
	assert_non_null(strstr(err.msg, "in sluice.yml:12"));
	set[0] = (struct cfg_setting){ "enable.auto.commit", "true", 12 };
	assert_int_equal(kafka_consumer_new(NULL, &src, 7, &c, &err), SL_E_CONFIG);
	set[0] = (struct cfg_setting){ "security.protocol", "${SLUICE_TEST_REGION}", 12 };
	assert_int_equal(kafka_consumer_new(NULL, &src, 7, &c, &err), SL_E_CONFIG);
	assert_non_null(strstr(err.msg, "${SLUICE_TEST_REGION}"));
	assert_null(strstr(err.msg, "\"eu\""));
	unsetenv("SLUICE_TEST_REGION");
	set[0] = (struct cfg_setting){ "fetch.wait.max.ms", "50", 12 };
	assert_int_equal(kafka_consumer_new(NULL, &src, 7, &c, &err), SL_E_CONFIG);
	assert_non_null(strstr(err.msg, "environment variable SLUICE_TEST_REGION is not set "
					"(property 'client.id' of source orders reads"));
	assert_non_null(strstr(err.msg, "in sluice.yml:13"));
}

int main(void)
{
#define ON(name, wh) { #name "_" #wh, test_##name, setup_##wh, teardown, NULL }
#define T(name) ON(name, duckdb), ON(name, postgres)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_text),
		cmocka_unit_test(test_message_rows),
		cmocka_unit_test(test_debezium_rows),
		T(lands_each_message_once),
		T(losses_are_refused),
		T(reset),
		T(stopped_and_old_tables),
		T(topics),
		T(partition_added),
		T(stale_cursor_refused),
		ON(two_consumers_race, postgres),
		ON(consumer_lock, postgres),
		cmocka_unit_test(test_properties),
		ON(retention_ran_out, duckdb),
	};
#undef T
#undef ON

	return cmocka_run_group_tests(tests, NULL, NULL);
}
