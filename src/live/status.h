/*
 * The live status of a project: each live model's state (live, behind,
 * waiting, failing, paused, new), lag, rate, refreshes and last error,
 * each source's watermark, and the server's pollers. One JSON document,
 * built once and printed as it is (`--json`, the server's API) or as a
 * table, so every way of asking gives the same answer.
 */
#ifndef SL_LIVE_STATUS_H
#define SL_LIVE_STATUS_H

#include <jansson.h>
#include <stdio.h>

struct arena;
struct project;
struct sl_err;
struct wh;

/* {"models": [...], "sources": [...]} as the warehouse records it (w may be
 * NULL: every live model is new). A source that follows a cursor column
 * has its "cursor". The server adds "pollers", its pollers' status (see
 * poller_status in ingest/poll.h); live_status_print prints them too. Its
 * scratch is a child of parent (may be NULL). */
int live_status_doc(struct arena *parent, struct project *p, struct wh *w, json_t **out,
		    struct sl_err *err);
/* Says, for each model of a status document's "models" that is not
 * live and current, which of its upstream live models holds it back, as
 * "cause": {"upstream", "upstream_state", "upstream_lag_ms", "path"}: the
 * path goes up from the
 * model's own input, at each step to the input most to blame (failing or
 * paused first, then waiting, then the largest lag), and ends at the first
 * failing or paused one, or where no input is to blame. A model held back
 * by no upstream model (behind its sources only) gets no cause. Reads each
 * model's "inputs". */
void live_status_blame(json_t *models);
/* The document as two tables. */
void live_status_print(const json_t *doc, FILE *out);

#endif
