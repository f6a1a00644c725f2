/*
 * Test tool: a Kafka cluster for tests, since no real broker can be
 * installed here. Runs librdkafka's mock cluster (brokers 1 to N on
 * 127.0.0.1) in this process so that other processes reach it over TCP,
 * prints "bootstrap HOST:PORT[,HOST:PORT...]" on stdout, then reads
 * commands on stdin, one a line, and answers each with exactly one line:
 * "ok", "ok VALUE..." or "error MESSAGE". A bad command is answered with
 * an error, never with a crash or a second line. Exits 0 on "quit" or at
 * the end of stdin, 2 on a bad command line, 1 when it cannot start.
 *   kafka_mock [BROKERS]                 (1 to 9, default 1)
 * Commands, their words separated by single spaces:
 *   topic NAME PARTITIONS                create a topic, replication factor 1
 *   send TOPIC PARTITION KEY VALUE [TIMESTAMP_MS [HEADER=VALUE ...]]
 *                                        produce one message and wait until
 *                                        it is delivered: "ok OFFSET"
 *   sendmany TOPIC PARTITION COUNT PREFIX
 *                                        the same for COUNT messages, key
 *                                        PREFIX-i, value {"i":i,"p":"PREFIX"}:
 *                                        "ok FIRST_OFFSET LAST_OFFSET"
 *   watermarks TOPIC PARTITION           "ok LOW HIGH"
 *   down BROKER_ID, up BROKER_ID         take a broker off the network, or back
 *   leader TOPIC PARTITION BROKER_ID     move a partition's leader (-1: none)
 *   rtt BROKER_ID MS                     delay a broker's responses
 *   errors APIKEY ERRCODE...             fail the next requests of that kind
 *                                        (1 is Fetch) on any broker, one code
 *                                        each, in order
 *   quit
 * KEY, VALUE and the names and values of headers are percent-decoded (%20
 * is a space, %25 a percent sign); "-" means null (a VALUE of "-" is a
 * tombstone), "%2D" is a dash, and an empty word the empty string. A
 * message the cluster has not taken within DELIVERY_TIMEOUT_MS (sent to a
 * broker that is down) fails its command.
 * Create topics with "topic" first: the cluster creates a topic it does
 * not know when a client asks for it, with 4 partitions, and the first
 * send to it waits a second. The cluster keeps about 5 MiB or 100000
 * message sets a partition and drops the oldest beyond that, moving the
 * low watermark.
 */
#include "core/hex.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define MAX_BROKERS 9
#define MAX_PARTITIONS 10000
#define MAX_LINE (1024 * 1024)
#define MAX_WORDS 1024
/* a typo such as an extra zero should fail, not keep the test busy for an hour */
#define MAX_SENDMANY 10000000
/*
 * Long enough for a loaded machine under the sanitizers, short enough that
 * a send to a broker that is down fails before the test gives up.
 */
#define DELIVERY_TIMEOUT_MS 30000
/*
 * Well past the delivery timeout, so that every message has had its
 * report: librdkafka notices a timed-out message only when the broker's
 * thread wakes, between two attempts to reconnect.
 */
#define FLUSH_TIMEOUT_MS (2 * DELIVERY_TIMEOUT_MS)
#define WATERMARK_TIMEOUT_MS 5000
#define METADATA_TIMEOUT_MS 5000

struct kmock {
	rd_kafka_t *mock_rk; /* the handle the cluster is created with, used for nothing else */
	rd_kafka_mock_cluster_t *mcluster;
	rd_kafka_t *producer;
	/*
	 * The batch of messages being delivered (one send or sendmany) and
	 * what their delivery reports said. Each message carries its batch's
	 * number, so that late reports of a batch whose flush timed out do
	 * not count for the next one.
	 */
	uintptr_t batch;
	long pending;
	rd_kafka_resp_err_t err;
	int64_t first, last;
	bool quitting;
};

/* what a command answers: the text after "ok" or after "error " */
struct reply {
	char text[512];
};

/* a key or value; ptr is NULL for Kafka's null */
struct bytes {
	const char *ptr;
	size_t len;
};

struct command {
	const char *name;
	int (*run)(struct kmock *km, int argc, char **argv, struct reply *r);
	int min_args, max_args; /* words after the name; max_args -1: no limit */
	bool topic_arg;		/* argv[1] is a topic name, which may not be empty */
	const char *usage;
};

enum line_status { LINE_OK, LINE_EOF, LINE_TOO_LONG, LINE_ERROR };

static int fail(struct reply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int done(struct reply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reply *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->text, sizeof(r->text), fmt, ap);
	va_end(ap);
	return -1;
}

/* Answers "ok " and the text; a plain "ok" needs no call. */
static int done(struct reply *r, const char *fmt, ...)
{
	va_list ap;

	r->text[0] = ' ';
	va_start(ap, fmt);
	vsnprintf(r->text + 1, sizeof(r->text) - 1, fmt, ap);
	va_end(ap);
	return 0;
}

static int num_parse(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Decodes the %XX escapes of s in place; returns the new length, or -1 on a bad escape. */
static ssize_t pct_decode(char *s)
{
	char *in = s, *out = s;
	int hi, lo;

	for (; *in; in++) {
		if (*in != '%') {
			*out++ = *in;
			continue;
		}
		hi = hex_value(in[1]);
		lo = hi < 0 ? -1 : hex_value(in[2]);
		if (lo < 0)
			return -1;
		*out++ = (char)(hi * 16 + lo);
		in += 2;
	}
	*out = '\0';
	return out - s;
}

/* Reads a key or value word: "-" is null, anything else is percent-decoded in place. */
static int bytes_parse(char *word, struct bytes *b)
{
	ssize_t n;

	if (strcmp(word, "-") == 0) {
		b->ptr = NULL;
		b->len = 0;
		return 0;
	}
	n = pct_decode(word);
	if (n < 0)
		return -1;
	b->ptr = word;
	b->len = (size_t)n;
	return 0;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	struct kmock *km = opaque;

	(void)rk;
	if ((uintptr_t)m->_private != km->batch)
		return;
	km->pending--;
	if (m->err) {
		if (!km->err)
			km->err = m->err;
		return;
	}
	if (m->offset < km->first)
		km->first = m->offset;
	if (m->offset > km->last)
		km->last = m->offset;
}

static void batch_start(struct kmock *km)
{
	km->batch++;
	km->pending = 0;
	km->err = RD_KAFKA_RESP_ERR_NO_ERROR;
	km->first = INT64_MAX;
	km->last = -1;
}

/* Fills the fields every message has (vu[0] to vu[3]); returns how many. */
static size_t vu_head(struct kmock *km, rd_kafka_vu_t *vu, const char *topic, int32_t partition)
{
	vu[0].vtype = RD_KAFKA_VTYPE_TOPIC;
	vu[0].u.cstr = topic;
	vu[1].vtype = RD_KAFKA_VTYPE_PARTITION;
	vu[1].u.i32 = partition;
	vu[2].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
	vu[2].u.i = RD_KAFKA_MSG_F_COPY;
	vu[3].vtype = RD_KAFKA_VTYPE_OPAQUE;
	vu[3].u.ptr = (void *)km->batch;
	return 4;
}

static void vu_bytes(rd_kafka_vu_t *vu, rd_kafka_vtype_t type, struct bytes b)
{
	vu->vtype = type;
	vu->u.mem.ptr = (void *)b.ptr;
	vu->u.mem.size = b.len;
}

/*
 * Queues one message of the current batch. A full queue is not an error:
 * serving delivery reports empties it, so wait for some and try again.
 */
static rd_kafka_resp_err_t batch_produce(struct kmock *km, const rd_kafka_vu_t *vu, size_t n)
{
	rd_kafka_error_t *error;
	rd_kafka_resp_err_t err;

	while ((error = rd_kafka_produceva(km->producer, vu, n))) {
		err = rd_kafka_error_code(error);
		rd_kafka_error_destroy(error);
		if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
			return err;
		rd_kafka_poll(km->producer, 100);
	}
	km->pending++;
	return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* Waits for the delivery reports of the current batch; returns the first error. */
static rd_kafka_resp_err_t batch_wait(struct kmock *km)
{
	rd_kafka_resp_err_t err = rd_kafka_flush(km->producer, FLUSH_TIMEOUT_MS);

	if (err)
		return err;
	/* flush returns once the queue is empty, and a message leaves it after its report */
	assert(km->pending == 0);
	return km->err;
}

static int partition_parse(const char *s, int32_t *partition)
{
	long long v;

	if (num_parse(s, 0, INT32_MAX, &v))
		return -1;
	*partition = (int32_t)v;
	return 0;
}

static int broker_parse(const char *s, long long min, int32_t *broker)
{
	long long v;

	if (num_parse(s, min, INT32_MAX, &v))
		return -1;
	*broker = (int32_t)v;
	return 0;
}

/*
 * Has the producer learn the topic's partitions now: left to itself it
 * would ask only at its next topic scan, a second after the first send.
 */
static rd_kafka_resp_err_t topic_learn(struct kmock *km, const char *topic)
{
	const struct rd_kafka_metadata *md;
	rd_kafka_resp_err_t err;
	rd_kafka_topic_t *rkt = rd_kafka_topic_new(km->producer, topic, NULL);

	if (!rkt)
		return rd_kafka_last_error();
	err = rd_kafka_metadata(km->producer, 0, rkt, &md, METADATA_TIMEOUT_MS);
	if (!err)
		rd_kafka_metadata_destroy(md);
	rd_kafka_topic_destroy(rkt);
	return err;
}

static int cmd_topic(struct kmock *km, int argc, char **argv, struct reply *r)
{
	rd_kafka_resp_err_t err;
	long long partitions;

	(void)argc;
	if (num_parse(argv[2], 1, MAX_PARTITIONS, &partitions))
		return fail(r, "bad partition count '%s' (1 to %d)", argv[2], MAX_PARTITIONS);
	err = rd_kafka_mock_topic_create(km->mcluster, argv[1], (int)partitions, 1);
	if (err)
		return fail(r, "cannot create topic '%s': %s", argv[1], rd_kafka_err2str(err));
	err = topic_learn(km, argv[1]);
	if (err)
		return fail(r, "cannot read the metadata of topic '%s': %s", argv[1],
			    rd_kafka_err2str(err));
	return 0;
}

/* Adds the HEADER=VALUE words to vu; returns how many, or -1 after filling r. */
static int headers_parse(char **words, int n, rd_kafka_vu_t *vu, struct reply *r)
{
	struct bytes value;
	char *eq;
	ssize_t len;

	for (int i = 0; i < n; i++) {
		eq = strchr(words[i], '=');
		if (!eq)
			return fail(r, "header '%s' has no '=' (HEADER=VALUE)", words[i]);
		*eq = '\0';
		len = pct_decode(words[i]);
		if (len <= 0 || (size_t)len != strlen(words[i]))
			return fail(r, "bad header name '%s'", words[i]);
		if (bytes_parse(eq + 1, &value))
			return fail(r, "bad percent escape in the value of header '%s'", words[i]);
		vu[i].vtype = RD_KAFKA_VTYPE_HEADER;
		vu[i].u.header.name = words[i];
		vu[i].u.header.val = value.ptr;
		vu[i].u.header.size = (ssize_t)value.len;
	}
	return n;
}

static int cmd_send(struct kmock *km, int argc, char **argv, struct reply *r)
{
	rd_kafka_resp_err_t err;
	rd_kafka_vu_t *vu;
	struct bytes key, value;
	long long ts;
	int32_t partition;
	size_t n;
	int headers = argc > 6 ? argc - 6 : 0;

	if (partition_parse(argv[2], &partition))
		return fail(r, "bad partition '%s'", argv[2]);
	if (bytes_parse(argv[3], &key))
		return fail(r, "bad percent escape in the key");
	if (bytes_parse(argv[4], &value))
		return fail(r, "bad percent escape in the value");
	if (argc > 5 && num_parse(argv[5], 0, INT64_MAX, &ts))
		return fail(r, "bad timestamp '%s' (milliseconds since 1970)", argv[5]);
	/* the head, key, value, timestamp and headers */
	vu = calloc(7 + (size_t)headers, sizeof(*vu));
	if (!vu)
		return fail(r, "out of memory");
	batch_start(km);
	n = vu_head(km, vu, argv[1], partition);
	vu_bytes(&vu[n++], RD_KAFKA_VTYPE_KEY, key);
	vu_bytes(&vu[n++], RD_KAFKA_VTYPE_VALUE, value);
	if (argc > 5) {
		vu[n].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
		vu[n++].u.i64 = ts;
	}
	if (headers_parse(argv + 6, headers, vu + n, r) < 0) {
		free(vu);
		return -1;
	}
	err = batch_produce(km, vu, n + (size_t)headers);
	free(vu);
	if (err)
		return fail(r, "cannot produce to '%s' [%s]: %s", argv[1], argv[2],
			    rd_kafka_err2str(err));
	err = batch_wait(km);
	if (err)
		return fail(r, "message to '%s' [%s] not delivered: %s", argv[1], argv[2],
			    rd_kafka_err2str(err));
	return done(r, "%" PRId64, km->first);
}

static int cmd_sendmany(struct kmock *km, int argc, char **argv, struct reply *r)
{
	rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR, wait_err;
	rd_kafka_vu_t vu[6];
	const char *prefix = argv[4];
	size_t cap = strlen(prefix) + 64, n;
	char *key, *value;
	long long count, i;
	int32_t partition;
	int key_len, value_len;

	(void)argc;
	if (partition_parse(argv[2], &partition))
		return fail(r, "bad partition '%s'", argv[2]);
	if (num_parse(argv[3], 1, MAX_SENDMANY, &count))
		return fail(r, "bad count '%s' (1 to %d)", argv[3], MAX_SENDMANY);
	/* the prefix goes into a JSON string as it is */
	if (strpbrk(prefix, "\"\\"))
		return fail(r, "prefix '%s' has a quote or a backslash", prefix);
	key = malloc(cap);
	value = malloc(cap);
	if (!key || !value) {
		free(key);
		free(value);
		return fail(r, "out of memory");
	}
	batch_start(km);
	n = vu_head(km, vu, argv[1], partition);
	for (i = 0; i < count && !err; i++) {
		key_len = snprintf(key, cap, "%s-%lld", prefix, i);
		value_len = snprintf(value, cap, "{\"i\":%lld,\"p\":\"%s\"}", i, prefix);
		vu_bytes(&vu[n], RD_KAFKA_VTYPE_KEY, (struct bytes){ key, (size_t)key_len });
		vu_bytes(&vu[n + 1], RD_KAFKA_VTYPE_VALUE,
			 (struct bytes){ value, (size_t)value_len });
		err = batch_produce(km, vu, n + 2);
	}
	free(key);
	free(value);
	/* wait for what was queued even after an error, so that no report is left over */
	wait_err = batch_wait(km);
	if (err)
		return fail(r, "cannot produce message %lld to '%s' [%s]: %s", i - 1, argv[1],
			    argv[2], rd_kafka_err2str(err));
	if (wait_err)
		return fail(r, "messages to '%s' [%s] not delivered: %s", argv[1], argv[2],
			    rd_kafka_err2str(wait_err));
	return done(r, "%" PRId64 " %" PRId64, km->first, km->last);
}

static int cmd_watermarks(struct kmock *km, int argc, char **argv, struct reply *r)
{
	rd_kafka_resp_err_t err;
	int64_t low, high;
	int32_t partition;

	(void)argc;
	if (partition_parse(argv[2], &partition))
		return fail(r, "bad partition '%s'", argv[2]);
	err = rd_kafka_query_watermark_offsets(km->producer, argv[1], partition, &low, &high,
					       WATERMARK_TIMEOUT_MS);
	if (err)
		return fail(r, "cannot query the watermarks of '%s' [%s]: %s", argv[1], argv[2],
			    rd_kafka_err2str(err));
	return done(r, "%" PRId64 " %" PRId64, low, high);
}

static int cmd_updown(struct kmock *km, int argc, char **argv, struct reply *r)
{
	rd_kafka_resp_err_t err;
	int32_t broker;

	(void)argc;
	if (broker_parse(argv[1], 0, &broker))
		return fail(r, "bad broker id '%s'", argv[1]);
	err = strcmp(argv[0], "down") == 0 ? rd_kafka_mock_broker_set_down(km->mcluster, broker)
					   : rd_kafka_mock_broker_set_up(km->mcluster, broker);
	if (err)
		return fail(r, "cannot set broker %" PRId32 " %s: %s", broker, argv[0],
			    rd_kafka_err2str(err));
	return 0;
}

static int cmd_leader(struct kmock *km, int argc, char **argv, struct reply *r)
{
	rd_kafka_resp_err_t err;
	int32_t partition, broker;

	(void)argc;
	if (partition_parse(argv[2], &partition))
		return fail(r, "bad partition '%s'", argv[2]);
	if (broker_parse(argv[3], -1, &broker))
		return fail(r, "bad broker id '%s'", argv[3]);
	err = rd_kafka_mock_partition_set_leader(km->mcluster, argv[1], partition, broker);
	if (err)
		return fail(r, "cannot move the leader of '%s' [%s]: %s", argv[1], argv[2],
			    rd_kafka_err2str(err));
	return 0;
}

static int cmd_rtt(struct kmock *km, int argc, char **argv, struct reply *r)
{
	rd_kafka_resp_err_t err;
	long long ms;
	int32_t broker;

	(void)argc;
	if (broker_parse(argv[1], 0, &broker))
		return fail(r, "bad broker id '%s'", argv[1]);
	if (num_parse(argv[2], 0, INT32_MAX, &ms))
		return fail(r, "bad rtt '%s' (milliseconds)", argv[2]);
	err = rd_kafka_mock_broker_set_rtt(km->mcluster, broker, (int)ms);
	if (err)
		return fail(r, "cannot set the rtt of broker %" PRId32 ": %s", broker,
			    rd_kafka_err2str(err));
	return 0;
}

static int cmd_errors(struct kmock *km, int argc, char **argv, struct reply *r)
{
	rd_kafka_resp_err_t *codes;
	long long apikey, code;
	size_t n = (size_t)argc - 2;

	if (num_parse(argv[1], 0, INT16_MAX, &apikey))
		return fail(r, "bad api key '%s'", argv[1]);
	codes = calloc(n, sizeof(*codes));
	if (!codes)
		return fail(r, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (num_parse(argv[2 + i], INT16_MIN, INT16_MAX, &code)) {
			free(codes);
			return fail(r, "bad error code '%s'", argv[2 + i]);
		}
		codes[i] = (rd_kafka_resp_err_t)code;
	}
	rd_kafka_mock_push_request_errors_array(km->mcluster, (int16_t)apikey, n, codes);
	free(codes);
	return 0;
}

static int cmd_quit(struct kmock *km, int argc, char **argv, struct reply *r)
{
	(void)argc;
	(void)argv;
	(void)r;
	km->quitting = true;
	return 0;
}

static const struct command commands[] = {
	{ "topic", cmd_topic, 2, 2, true, "topic NAME PARTITIONS" },
	{ "send", cmd_send, 4, -1, true,
	  "send TOPIC PARTITION KEY VALUE [TIMESTAMP_MS [HEADER=VALUE ...]]" },
	{ "sendmany", cmd_sendmany, 4, 4, true, "sendmany TOPIC PARTITION COUNT PREFIX" },
	{ "watermarks", cmd_watermarks, 2, 2, true, "watermarks TOPIC PARTITION" },
	{ "down", cmd_updown, 1, 1, false, "down BROKER_ID" },
	{ "up", cmd_updown, 1, 1, false, "up BROKER_ID" },
	{ "leader", cmd_leader, 3, 3, true, "leader TOPIC PARTITION BROKER_ID" },
	{ "rtt", cmd_rtt, 2, 2, false, "rtt BROKER_ID MS" },
	{ "errors", cmd_errors, 2, -1, false, "errors APIKEY ERRCODE [ERRCODE...]" },
	{ "quit", cmd_quit, 0, 0, false, "quit" },
};

/* Splits line at each space, in place; returns the number of words, or -1 past max. */
static int line_split(char *line, char **words, int max)
{
	int n = 0;

	for (;;) {
		if (n == max)
			return -1;
		words[n++] = line;
		line = strchr(line, ' ');
		if (!line)
			return n;
		*line++ = '\0';
	}
}

static int command_run(struct kmock *km, char *line, struct reply *r)
{
	char *argv[MAX_WORDS];
	const struct command *c;
	int argc = line_split(line, argv, MAX_WORDS);
	size_t i;

	if (argc < 0)
		return fail(r, "too many words (at most %d)", MAX_WORDS);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, argv[0]) == 0)
			break;
	if (i == sizeof(commands) / sizeof(commands[0]))
		return fail(r, "unknown command '%s'", argv[0]);
	c = &commands[i];
	if (argc - 1 < c->min_args || (c->max_args >= 0 && argc - 1 > c->max_args))
		return fail(r, "usage: %s", c->usage);
	if (c->topic_arg && !argv[1][0])
		return fail(r, "empty topic name");
	return c->run(km, argc, argv, r);
}

/*
 * Reads one line without its newline into buf (cap bytes and a NUL); a
 * longer line is read to its end and dropped, so that memory stays bounded.
 */
static enum line_status line_read(FILE *f, char *buf, size_t cap, size_t *len)
{
	bool too_long = false;
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (n < cap)
			buf[n++] = (char)c;
		else
			too_long = true;
	}
	if (ferror(f))
		return LINE_ERROR;
	if (c == EOF && n == 0)
		return LINE_EOF;
	buf[n] = '\0';
	*len = n;
	return too_long ? LINE_TOO_LONG : LINE_OK;
}

/* Answers the commands on stdin until quit or its end; returns the exit status. */
static int serve(struct kmock *km, char *line)
{
	enum line_status st;
	struct reply r;
	size_t len;
	int failed;

	while (!km->quitting) {
		st = line_read(stdin, line, MAX_LINE, &len);
		if (st == LINE_EOF)
			return 0;
		if (st == LINE_ERROR) {
			fprintf(stderr, "kafka_mock: cannot read stdin: %s\n", strerror(errno));
			return 1;
		}
		r.text[0] = '\0';
		if (st == LINE_TOO_LONG)
			failed = fail(&r, "line too long");
		else if (strlen(line) != len)
			failed = fail(&r, "line has a NUL byte");
		else
			failed = command_run(km, line, &r);
		if (printf(failed ? "error %s\n" : "ok%s\n", r.text) < 0 || fflush(stdout)) {
			fprintf(stderr, "kafka_mock: cannot write stdout: %s\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* Creates a producer from conf and the key/value pairs in kv, ending with NULL. */
static rd_kafka_t *producer_new(rd_kafka_conf_t *conf, const char *const *kv)
{
	char errstr[512];
	rd_kafka_t *rk;

	for (; kv[0]; kv += 2) {
		if (rd_kafka_conf_set(conf, kv[0], kv[1], errstr, sizeof(errstr))) {
			fprintf(stderr, "kafka_mock: %s\n", errstr);
			rd_kafka_conf_destroy(conf);
			return NULL;
		}
	}
	rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
	if (!rk) {
		fprintf(stderr, "kafka_mock: cannot create a producer: %s\n", errstr);
		rd_kafka_conf_destroy(conf); /* rd_kafka_new takes it only when it succeeds */
	}
	return rk;
}

/* The producer behind send and sendmany, a client of the mock cluster like any other. */
static rd_kafka_t *sender_new(struct kmock *km)
{
	char timeout[16];
	const char *const kv[] = {
		"bootstrap.servers", rd_kafka_mock_cluster_bootstraps(km->mcluster),
		"acks", "all",
		"message.timeout.ms", timeout,
		"queue.buffering.max.messages", "1000000",
		/* keeps a sendmany in order through retries, without idempotence's fatal errors */
		"max.in.flight.requests.per.connection", "1",
		/* back within a second of "up", not after the default 10 s of backoff */
		"reconnect.backoff.max.ms", "1000",
		NULL,
	};
	rd_kafka_conf_t *conf = rd_kafka_conf_new();

	snprintf(timeout, sizeof(timeout), "%d", DELIVERY_TIMEOUT_MS);
	rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
	rd_kafka_conf_set_opaque(conf, km);
	return producer_new(conf, kv);
}

static int kmock_start(struct kmock *km, int brokers)
{
	/* it has no bootstrap.servers, by design: no notice about that on every run */
	static const char *const quiet[] = { "log_level", "4", NULL };

	km->mock_rk = producer_new(rd_kafka_conf_new(), quiet);
	if (!km->mock_rk)
		return -1;
	km->mcluster = rd_kafka_mock_cluster_new(km->mock_rk, brokers);
	if (!km->mcluster) {
		fprintf(stderr, "kafka_mock: cannot create a mock cluster of %d brokers\n",
			brokers);
		return -1;
	}
	km->producer = sender_new(km);
	return km->producer ? 0 : -1;
}

/* The producer goes first, while its brokers still answer; the cluster before its handle. */
static void kmock_stop(struct kmock *km)
{
	if (km->producer)
		rd_kafka_destroy(km->producer);
	if (km->mcluster)
		rd_kafka_mock_cluster_destroy(km->mcluster);
	if (km->mock_rk)
		rd_kafka_destroy(km->mock_rk);
}

int main(int argc, char **argv)
{
	struct kmock km = { 0 };
	long long brokers = 1;
	char *line;
	int status = 1;

	if (argc > 2 || (argc == 2 && num_parse(argv[1], 1, MAX_BROKERS, &brokers))) {
		fprintf(stderr, "usage: kafka_mock [BROKERS]   (1 to %d, default 1)\n",
			MAX_BROKERS);
		return 2;
	}
	line = malloc(MAX_LINE + 1);
	if (!line) {
		fprintf(stderr, "kafka_mock: out of memory\n");
		return 1;
	}
	if (kmock_start(&km, (int)brokers) == 0) {
		if (printf("bootstrap %s\n", rd_kafka_mock_cluster_bootstraps(km.mcluster)) < 0 ||
		    fflush(stdout))
			fprintf(stderr, "kafka_mock: cannot write stdout: %s\n", strerror(errno));
		else
			status = serve(&km, line);
	}
	kmock_stop(&km);
	free(line);
	return status;
}
