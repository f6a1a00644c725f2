/*
 * The temporal models that gate on a stream: a contract on a declared
 * source with event_time. The runner builds their windows as the streams
 * pass them, in a batch run of those models alone, whenever a stream they
 * gate on has landed more since it last looked.
 */
#ifndef SL_LIVE_WINDOWS_H
#define SL_LIVE_WINDOWS_H

#include <stdbool.h>
#include <stdio.h>

struct arena;
struct live_ledger;
struct project;
struct sl_err;
struct wh;

struct live_windows;

/* Whether some model of p gates on a stream: the runner has work then
 * even without live models. */
bool live_windows_any(const struct project *p);
/* NULL when no model of p gates on a stream. Free with live_windows_free. */
struct live_windows *live_windows_new(const struct project *p);
void live_windows_free(struct live_windows *lw);

/* Builds the windows of the models whose streams moved (the ledger's
 * landing watermarks) since the last pass, or all on the first; the
 * runner's schedule spaces the passes out. out gets a line
 * per model that built or failed windows (may be NULL). *built says
 * whether a window was built, so that the caller reads the catalog
 * again. */
int live_windows_pass(struct live_windows *lw, struct live_ledger *ledger, struct arena *a,
		      struct wh *w, FILE *out, bool *built, struct sl_err *err);

#endif
