/*
 * A Kafka source's consumer: librdkafka, with no consumer group deciding
 * anything. It assigns every partition of the source's topics itself, at
 * the offsets the warehouse stores for the source (offsets.h), and lands
 * what it reads through the landing writer in batches, each with the
 * source's new offsets in the same transaction, which commits only while
 * the stored offsets are still those the batch was read from: a kill -9
 * anywhere, then a restart, lands every message once, and so do two
 * consumers of one source in two processes.
 *
 * What other consumers do in silence is an error here, naming what is
 * lost: a stored offset below the partition's first retained message
 * (retention ran out), above its end or on a partition the topic no
 * longer has (the topic was made again). A partition added since is read
 * from its start. Nothing here opens the warehouse: callers hand in the
 * connections.
 */
#ifndef SL_KAFKA_CONSUMER_H
#define SL_KAFKA_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct ingest_writer;
struct sl_err;
struct source_cfg;
struct wh;

struct kafka_consumer;

/* What one kafka_land did. */
struct kafka_result {
	int64_t messages; /* landed */
	int64_t batches;  /* landing transactions */
	int64_t seq;      /* the last one's sequence */
	char offsets[512]; /* the stored position after it (cut short when longer) */
};

/* A consumer of src (a kafka source, which must outlive it), in an arena
 * of its own under parent (may be NULL). Batches hold up to batch_rows
 * messages. The client gets sluice's settings, then src's properties,
 * their ${NAME} references read from the environment now: SL_E_CONFIG,
 * with the property's line in sluice.yml, for one sluice sets itself (a
 * consumer group's, the offsets', the brokers) or librdkafka refuses, or
 * a variable not set. Free with kafka_consumer_free. */
int kafka_consumer_new(struct arena *parent, const struct source_cfg *src, int64_t batch_rows,
		       struct kafka_consumer **out, struct sl_err *err);
void kafka_consumer_free(struct kafka_consumer *c);
/* The value of a librdkafka property the client runs with, into out (n
 * bytes); SL_E_NOTFOUND when it has none or out is too small. */
int kafka_consumer_setting(struct kafka_consumer *c, const char *name, char *out, size_t n);

/* Processes that share a warehouse consume a source one at a time: the
 * one holding its lock, the others standing by. Takes it on w, for as
 * long as w's session lasts, when no one holds it (*got), at once either
 * way; on a warehouse of one process (DuckDB) always got. Correctness
 * does not rest on it (see kafka_land): it keeps the others from reading
 * what they would only be refused to land. */
int kafka_consumer_lock(struct kafka_consumer *c, struct wh *w, bool *got, struct sl_err *err);
/* Whether the lock taken on w is still held: false once w's session was
 * lost (a new one holds no lock), or when it was taken on another
 * connection. */
bool kafka_consumer_locked(const struct kafka_consumer *c, const struct wh *w);
/* Makes the landing in progress end soon, after the batch it is landing,
 * and every later one fail without reading (SL_E_BUSY). Only stores a
 * flag: safe in a signal handler. */
void kafka_consumer_cancel(struct kafka_consumer *c);

/* Lands what the topics hold past the stored offsets (read on r), up to
 * each partition's end as found when it starts, through wr. A batch whose
 * stored offsets another process moved meanwhile is refused by the
 * writer; the landing then reads them again and goes on from there, a
 * few times at most. Errors:
 *   SL_E_CONN     the brokers cannot be reached (nothing more landed)
 *   SL_E_NOTFOUND a topic is not there
 *   SL_E_INVALID  messages lost to retention, a topic made again, a
 *                 message whose JSON a typed column does not take
 *   SL_E_BUSY     stopped, or the stored offsets kept moving (another
 *                 process lands the source)
 *   and the writer's. Batches landed before an error stay landed. */
int kafka_land(struct kafka_consumer *c, struct wh *r, struct ingest_writer *wr,
	       struct kafka_result *res, struct sl_err *err);

/* Stores new offsets for the source on w, deliberately, in a transaction
 * of its own: every partition at its first retained message (to
 * "earliest"), at its end ("latest": what is there now is never landed),
 * or as TOPIC:PARTITION:OFFSET triples say (PARTITION:OFFSET pairs for a
 * source of one topic; each within what the partition holds; the
 * partitions not named at their first retained message). The source must
 * have landed before (SL_E_NOTFOUND). A consumer landing meanwhile has
 * its next batch refused, and goes on from the new offsets. *stored gets
 * the text, in a. */
int kafka_reset(struct kafka_consumer *c, struct arena *a, struct wh *w, const char *to,
		const char **stored, struct sl_err *err);

#endif
