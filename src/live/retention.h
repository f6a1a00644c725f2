/*
 * Retention of landing tables: a source that declares `retention:` has
 * its landing rows older than that pruned, once every live model that
 * reads them has consumed them, and what was pruned recorded in the same
 * transaction (state/replay.h), so that a replay knows what history is
 * gone.
 */
#ifndef SL_LIVE_RETENTION_H
#define SL_LIVE_RETENTION_H

#include <stdint.h>

struct project;
struct sl_err;
struct wh;

/* Prunes every source of p that keeps a retention, as of now_ms (ms since
 * the epoch, UTC). On a shared warehouse one process prunes at a time;
 * the others skip. */
int live_retention_prune(struct wh *w, const struct project *p, int64_t now_ms, struct sl_err *err);

#endif
