/*
 * A batch run the way `sluice run`, `plan` and `test` make it: before a run
 * that writes, the state schema and the landing tables of the declared
 * sources are made sure of; the watermark bookkeeping of the models that
 * keep watermarks is read for the run and handed down to it. The run
 * itself is src/exec/run.c's (build_run); this is the live layer's part
 * of it, and lives here because src/exec/ is below src/live/ and never
 * includes it: the bookkeeping reaches the run only as hooks
 * (run_opts.book), which this file gives it; and the alerts of the
 * anomalies the run's profiles found.
 */
#ifndef SL_LIVE_BATCH_H
#define SL_LIVE_BATCH_H

#include "exec/run.h"

#include <stddef.h>

/* After the run, each anomaly its builds' profiles found goes out as a
 * model_anomaly alert (live/alert.h), said on opts->alerts_out. */
int live_batch_run(struct arena *a, struct project *p, struct wh *w, const char *const *relations,
		   size_t nrelations, const struct run_opts *opts, struct run_report *report,
		   struct sl_err *err);

#endif
