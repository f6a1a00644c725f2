/*
 * The temporal models that gate on a stream: a contract on a declared
 * source with event_time. The runner builds their windows as the streams
 * pass them, in a batch run of those models alone, whenever a stream they
 * gate on has landed more since it last looked.
 */
#ifndef SL_LIVE_WINDOWS_H
#define SL_LIVE_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct arena;
struct live_ledger;
struct run_book;
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
 * runner's schedule spaces the passes out, and a model another build
 * holds is looked at again next pass. book keeps the watermarks of the
 * models that read theirs. out gets a line per model that built or failed
 * windows (may be NULL). *built says whether a window was built, so that
 * the caller reads the catalog again; *held how many models another build
 * held, for which the caller comes back. */
int live_windows_pass(struct live_windows *lw, struct live_ledger *ledger,
		      const struct run_book *book, struct arena *a, struct wh *w, FILE *out,
		      bool *built, size_t *held, struct sl_err *err);

#endif
