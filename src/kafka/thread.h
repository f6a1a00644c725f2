/*
 * A Kafka source's consumer on a thread of its own, for `sluice serve`:
 * it lands what the topics hold (consumer.h) again and again, through the
 * server's landing writer (whose commits wake the live runner), resting
 * briefly when nothing came and backing off while it fails. It lands only
 * while it holds the source's lock (kafka_consumer_lock) on its own
 * connection: on a warehouse that servers on many machines share, one
 * consumes a source and the others stand by, trying the lock every
 * second, and one takes over when that one dies. Its status may be read
 * from any thread.
 */
#ifndef SL_KAFKA_THREAD_H
#define SL_KAFKA_THREAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct arena;
struct ingest_writer;
struct sl_err;
struct source_cfg;
struct wh;

struct kafka_thread;

/* Starts src's consumer (src must outlive it) on r, which it owns from
 * now on; wr must stay running until it is stopped. Batches hold up to
 * batch_rows messages. Failures and recoveries are logged to log (may be
 * NULL), a line each. */
int kafka_thread_start(struct arena *parent, const struct source_cfg *src, struct wh *r,
		       struct ingest_writer *wr, int64_t batch_rows, FILE *log,
		       struct kafka_thread **out, struct sl_err *err);
/* Ends the landing in progress after its batch, joins the thread and
 * closes its connection; its status stays readable. */
void kafka_thread_stop(struct kafka_thread *t);
void kafka_thread_free(struct kafka_thread *t);

/* {"source", "topics", "brokers", "state" (new, ok, failing, standby),
 * "standby" (why, or null), "batches" (landing transactions), "messages",
 * "last_ok", "last_error", "last_error_at", "failures" (in a row),
 * "offsets"}; times UTC "YYYY-MM-DD HH:MM:SS" or null. A new reference. */
json_t *kafka_thread_status(struct kafka_thread *t);
/* Whether its warehouse connection is lost. */
bool kafka_thread_down(struct kafka_thread *t);

#endif
