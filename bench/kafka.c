/*
 * Benchmark: a Kafka source's landing as sluice does it (src/kafka/):
 *
 *   kafka duckdb PATH BROKERS TOPIC typed|raw
 *   kafka postgres DSN BROKERS TOPIC typed|raw
 *
 * lands every message of TOPIC into a new DuckDB warehouse at PATH, or
 * the empty PostgreSQL database DSN names, through the landing writer,
 * the offsets stored with each batch, as `sluice kafka NAME --once` does:
 * typed, the columns i BIGINT and p VARCHAR read from each JSON value;
 * raw, the value kept as payload alone. Prints "MESSAGES seconds
 * cpu_seconds" (wall and CPU time of this process, for the landing
 * alone), to set against the halves raw_kafka and raw_kafka_pg time.
 */
#include "core/err.h"
#include "ingest/writer.h"
#include "kafka/consumer.h"
#include "live/advance.h"
#include "project/config.h"
#include "project/model.h"
#include "state/state.h"
#include "warehouse/open.h"
#include "warehouse/wh.h"

#include "bench_clock.h"
#include "bench_sql.h"

#include <string.h>

int main(int argc, char **argv)
{
	static struct cfg_column columns[] = { { "i", "BIGINT" }, { "p", "VARCHAR" } };
	struct sl_err err = SL_ERR_INIT;
	struct ingest_opts io = { .flush_interval_ms = 0, .flush_rows = 50000,
				  .max_rows = 500000 };
	struct source_cfg src;
	struct project p = { 0 };
	struct kafka_consumer *c;
	struct ingest_writer *wr;
	struct kafka_result res;
	struct wh *w, *conn;
	double t0, c0;

	if (argc != 6 || (strcmp(argv[1], "duckdb") && strcmp(argv[1], "postgres")) ||
	    (strcmp(argv[5], "typed") && strcmp(argv[5], "raw"))) {
		fprintf(stderr, "usage: kafka duckdb PATH|postgres DSN BROKERS TOPIC typed|raw\n");
		return 2;
	}
	src = (struct source_cfg){ .name = "bench",
				   .kind = "kafka",
				   .brokers = argv[3],
				   .topics = (const char *[]){ argv[4] },
				   .ntopics = 1,
				   .columns = strcmp(argv[5], "typed") == 0 ? columns : NULL,
				   .ncolumns = strcmp(argv[5], "typed") == 0 ? 2 : 0 };
	p.cfg.sources = &src;
	p.cfg.nsources = 1;
	if ((strcmp(argv[1], "duckdb") == 0 ? wh_open_duckdb(argv[2], false, &w, &err)
					    : wh_open_postgres(argv[2], &w, &err)) ||
	    state_ensure(w, &err) ||
	    live_sources_ensure(w, NULL, &p, &err) || wh_connect(w, &conn, &err) ||
	    ingest_writer_start(conn, &io, &wr, &err) ||
	    kafka_consumer_new(NULL, &src, io.flush_rows, &c, &err))
		die(&err);
	t0 = clock_wall();
	c0 = clock_cpu();
	if (kafka_land(c, w, wr, &res, &err))
		die(&err);
	printf("%lld %.3f %.3f\n", (long long)res.messages, clock_wall() - t0, clock_cpu() - c0);
	kafka_consumer_free(c);
	ingest_writer_stop(wr);
	wh_close(w);
	return 0;
}
