/*
 * The postgres_cdc consumer of one slot on a thread of its own, for a
 * process that also serves (sluice serve): it runs the consumer on its own
 * warehouse connection until stopped, and when the source database fails
 * (unreachable, a restart, a dropped connection) tries again with
 * exponential backoff; each attempt resumes from what landed, so nothing
 * is lost or landed twice. It tells the caller of every transaction that
 * landed, and keeps what status documents show of the slot.
 */
#ifndef SL_PGCDC_PGCDC_THREAD_H
#define SL_PGCDC_PGCDC_THREAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct arena;
struct project;
struct project_cfg;
struct source_cfg;
struct sl_err;
struct wh;
struct pgcdc_thread;

/* A commit of the consumer: its slot, the sequence of its last source
 * transaction, and how many transactions and changes it landed. */
struct pgcdc_landed {
	const char *slot;
	int64_t seq, txns, changes;
};

/* Told on the consumer's thread after each commit with rows. */
typedef void (*pgcdc_landed_fn)(void *ctx, const struct pgcdc_landed *landed);

/* The consumer of src's slot (cfg's postgres_cdc sources that name it) on
 * connection w, which it owns from now on; log gets a line per failure
 * and recovery (may be NULL). The slot's memory is a child of parent (may
 * be NULL) until pgcdc_thread_free. */
int pgcdc_thread_start(struct arena *parent, const struct project *p,
		       const struct source_cfg *src, struct wh *w, FILE *log,
		       pgcdc_landed_fn landed, void *ctx, struct pgcdc_thread **out,
		       struct sl_err *err);
/* Stops between transactions (within a second) and joins; the status
 * stays readable until pgcdc_thread_free. */
void pgcdc_thread_stop(struct pgcdc_thread *t);
void pgcdc_thread_free(struct pgcdc_thread *t);
/* The slot as it stands: sources, state (starting, streaming, failing;
 * lost when the server says so), landed and confirmed LSNs, the server's
 * WAL position (the latest a keepalive or the probe gave), the lag behind
 * it in bytes and ms, the slot's wal_status and safe_wal_size as the
 * server gave them at the last probe (wal_status "missing" without the
 * slot, both null when unknown), what landed, the last error and the next
 * attempt. */
json_t *pgcdc_thread_status(struct pgcdc_thread *t);
/* Whether the slot's warehouse connection is lost (the consumer opens it
 * again every 100 ms, and resumes as soon as it is back). Any thread. */
bool pgcdc_thread_down(struct pgcdc_thread *t);
/* The slot's sources, "orders, order_lines"; owned by t. */
const char *pgcdc_thread_sources(const struct pgcdc_thread *t);

#endif
