/*
 * Baselines of the Kafka landing benchmark, each half of a landing alone,
 * with nothing of sluice around it:
 *
 *   raw_kafka consume BROKERS TOPIC MESSAGES
 *       a bare librdkafka consumer with sluice's settings (no group, every
 *       partition assigned from its start) reading the topic to nothing
 *   raw_kafka append DB MESSAGES PARTITIONS PREFIX
 *       DuckDB's appender writing the rows those messages make (the values
 *       kafka_mock's sendmany produced, kafka_rows.h, i from 0 in each
 *       partition) into a table shaped like a typed landing table, in one
 *       transaction
 * (PostgreSQL's bulk path for the same rows is raw_kafka_pg.c.)
 *
 * Each prints "MESSAGES seconds cpu_seconds" on stdout: wall and CPU time
 * of this process (user and system) for the work alone.
 */
#define _GNU_SOURCE
#define RAW_NAME "raw_kafka"
#include "raw_duck.h"
#include "bench_clock.h"
#include "kafka_rows.h"

#include <librdkafka/rdkafka.h>
#include <stdint.h>
#include <string.h>

static void consume(const char *brokers, const char *topic, long messages)
{
	const char *settings[][2] = {
		{ "bootstrap.servers", brokers }, { "group.id", "sluice" },
		{ "enable.auto.commit", "false" }, { "enable.auto.offset.store", "false" },
		{ "enable.partition.eof", "true" }, { "auto.offset.reset", "error" },
	};
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	const struct rd_kafka_metadata *md;
	rd_kafka_topic_partition_list_t *list;
	const struct rd_kafka_metadata_topic *t = NULL;
	char errstr[512];
	rd_kafka_t *rk;
	long got = 0, bytes = 0;
	double t0, c0;

	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (rd_kafka_conf_set(conf, settings[i][0], settings[i][1], errstr, sizeof(errstr)))
			die("bad setting", errstr);
	if (!(rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr))))
		die("cannot make a consumer", errstr);
	rd_kafka_poll_set_consumer(rk);
	t0 = clock_wall();
	c0 = clock_cpu();
	if (rd_kafka_metadata(rk, 1, NULL, &md, 10000))
		die("no metadata", topic);
	for (int i = 0; i < md->topic_cnt && !t; i++)
		if (strcmp(md->topics[i].topic, topic) == 0)
			t = &md->topics[i];
	if (!t)
		die("no such topic", topic);
	list = rd_kafka_topic_partition_list_new(t->partition_cnt);
	for (int i = 0; i < t->partition_cnt; i++)
		rd_kafka_topic_partition_list_add(list, topic, t->partitions[i].id)->offset =
			RD_KAFKA_OFFSET_BEGINNING;
	if (rd_kafka_assign(rk, list))
		die("cannot assign", topic);
	/* to the last message, as sluice's landing stops at each partition's
	 * end found when it starts */
	while (got < messages) {
		rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 5000);

		if (!m)
			die("nothing came for 5 s", topic);
		if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			/* a partition read to its end: the others go on */
		} else if (m->err) {
			die("consume failed", rd_kafka_message_errstr(m));
		} else {
			got++;
			bytes += (long)(m->len + m->key_len);
		}
		rd_kafka_message_destroy(m);
	}
	printf("%ld %.3f %.3f %ld\n", got, clock_wall() - t0, clock_cpu() - c0, bytes);
	rd_kafka_topic_partition_list_destroy(list);
	rd_kafka_metadata_destroy(md);
	rd_kafka_assign(rk, NULL);
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
}

static void append(const char *path, long messages, int partitions, const char *prefix)
{
	duckdb_database db;
	duckdb_connection conn;
	duckdb_appender app;
	long per = messages / partitions;
	double t0, c0;

	open_db(path, &db, &conn);
	exec(conn, "CREATE SCHEMA landing; CREATE TABLE landing.raw (i BIGINT, p VARCHAR, "
		   "payload JSON, _sluice_op VARCHAR, _sluice_key VARCHAR, _sluice_headers JSON, "
		   "_sluice_topic VARCHAR, _sluice_partition INTEGER, _sluice_offset BIGINT, "
		   "_sluice_event_ts TIMESTAMP, _sluice_landed_at TIMESTAMP, _sluice_seq BIGINT)");
	t0 = clock_wall();
	c0 = clock_cpu();
	exec(conn, "BEGIN");
	if (duckdb_appender_create(conn, "landing", "raw", &app) != DuckDBSuccess)
		die("cannot make an appender", duckdb_appender_error(app));
	for (int p = 0; p < partitions; p++) {
		for (long i = 0; i < per; i++) {
			char key[256], value[320];
			duckdb_timestamp ts = { (int64_t)(1767225600000000LL + i) };

			kafka_bench_message(prefix, i, key, sizeof(key), value, sizeof(value));
			if (duckdb_append_int64(app, i) || duckdb_append_varchar(app, prefix) ||
			    duckdb_append_varchar(app, value) || duckdb_append_varchar(app, "u") ||
			    duckdb_append_varchar(app, key) || duckdb_append_null(app) ||
			    duckdb_append_varchar(app, "bench") ||
			    duckdb_append_int32(app, p) || duckdb_append_int64(app, i) ||
			    duckdb_append_timestamp(app, ts) || duckdb_append_timestamp(app, ts) ||
			    duckdb_append_int64(app, 1) || duckdb_appender_end_row(app))
				die("append failed", duckdb_appender_error(app));
		}
	}
	if (duckdb_appender_destroy(&app) != DuckDBSuccess)
		die("appender flush failed", NULL);
	exec(conn, "COMMIT");
	printf("%ld %.3f %.3f\n", per * partitions, clock_wall() - t0, clock_cpu() - c0);
	duckdb_disconnect(&conn);
	duckdb_close(&db);
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "consume") == 0)
		consume(argv[2], argv[3], atol(argv[4]));
	else if (argc == 6 && strcmp(argv[1], "append") == 0)
		append(argv[2], atol(argv[3]), atoi(argv[4]), argv[5]);
	else
		die("usage: raw_kafka consume BROKERS TOPIC MESSAGES | append DB MESSAGES "
		    "PARTITIONS PREFIX",
		    NULL);
	return 0;
}
