/*
 * Baseline of the Kafka landing benchmark on PostgreSQL, the warehouse
 * half alone, with nothing of sluice around it:
 *
 *   raw_kafka_pg DSN MESSAGES PARTITIONS PREFIX
 *
 * PostgreSQL's bulk path, libpq's COPY ... FROM STDIN in text format,
 * writing the rows those messages make (kafka_rows.h, i from 0 in each
 * partition) into a table shaped like a typed landing table, with the
 * index on _sluice_seq every landing table has, in one transaction, into
 * the empty database DSN names. Prints "MESSAGES seconds cpu_seconds":
 * wall and CPU time of this process for the work alone (the server's own
 * CPU time is the caller's to measure).
 */
#define _GNU_SOURCE
#define RAW_NAME "raw_kafka_pg"
#include "raw_pg.h"
#include "bench_clock.h"
#include "kafka_rows.h"

#include <string.h>

/* How much COPY text is gathered before it is sent. */
#define CHUNK (256 * 1024)

static void send_chunk(PGconn *conn, const char *buf, size_t len)
{
	if (PQputCopyData(conn, buf, (int)len) != 1)
		die("COPY failed", PQerrorMessage(conn));
}

int main(int argc, char **argv)
{
	PGconn *conn;
	PGresult *res;
	char *buf;
	size_t len = 0;
	long messages, per;
	int partitions;
	double t0, c0;

	if (argc != 5)
		die("usage: raw_kafka_pg DSN MESSAGES PARTITIONS PREFIX", NULL);
	messages = atol(argv[2]);
	partitions = atoi(argv[3]);
	per = messages / partitions;
	conn = connect_pg(argv[1]);
	exec(conn, "CREATE SCHEMA landing; CREATE TABLE landing.raw (i BIGINT, p VARCHAR, "
		   "payload JSON, _sluice_op VARCHAR, _sluice_key VARCHAR, _sluice_headers JSON, "
		   "_sluice_topic VARCHAR, _sluice_partition INTEGER, _sluice_offset BIGINT, "
		   "_sluice_event_ts TIMESTAMP, _sluice_landed_at TIMESTAMP, _sluice_seq BIGINT); "
		   "CREATE INDEX ON landing.raw (_sluice_seq)");
	buf = malloc(CHUNK + 1024);
	if (!buf)
		die("out of memory", NULL);
	t0 = clock_wall();
	c0 = clock_cpu();
	exec(conn, "BEGIN");
	res = PQexec(conn, "COPY landing.raw FROM STDIN");
	if (PQresultStatus(res) != PGRES_COPY_IN)
		die("COPY failed", PQerrorMessage(conn));
	PQclear(res);
	for (int p = 0; p < partitions; p++) {
		for (long i = 0; i < per; i++) {
			char key[256], value[320];

			kafka_bench_message(argv[4], i, key, sizeof(key), value, sizeof(value));
			len += (size_t)snprintf(buf + len, 1024,
						"%ld\t%s\t%s\tu\t%s\t\\N\tbench\t%d\t%ld\t"
						"2026-01-01 00:00:00.%06ld\t2026-01-01 00:00:00.%06ld\t1\n",
						i, argv[4], value, key, p, i, i % 1000000,
						i % 1000000);
			if (len >= CHUNK) {
				send_chunk(conn, buf, len);
				len = 0;
			}
		}
	}
	if (len)
		send_chunk(conn, buf, len);
	if (PQputCopyEnd(conn, NULL) != 1)
		die("COPY failed", PQerrorMessage(conn));
	res = PQgetResult(conn);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		die("COPY failed", PQerrorMessage(conn));
	PQclear(res);
	exec(conn, "COMMIT");
	printf("%ld %.3f %.3f\n", per * partitions, clock_wall() - t0, clock_cpu() - c0);
	free(buf);
	PQfinish(conn);
	return 0;
}
