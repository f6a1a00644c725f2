/*
 * `_sluice.run_log` read back, for the pages that show it: a model's rows,
 * a number of runs with every row of each, the live runner's rows (which
 * have no run id). Newest first, each read bounded by its caller's
 * count. The rows are written by state_run_log (state.h).
 */
#ifndef SL_STATE_RUNLOG_H
#define SL_STATE_RUNLOG_H

#include <stddef.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct state_run_row;
struct wh;

/* The most rows one read returns, whatever it asks for */
#define STATE_RUN_ROWS_MAX 20000

/* model's newest rows, at most limit, newest first (by when they ended). */
int state_run_log_model(struct wh *w, struct arena *a, const char *model, size_t limit,
			struct state_run_row **rows, size_t *n, struct sl_err *err);

/* Every row of the newest nruns runs whose id is below before (0: any),
 * by run id newest first, a run's rows in the order they started. */
int state_run_log_runs(struct wh *w, struct arena *a, size_t nruns, int64_t before,
		       struct state_run_row **rows, size_t *n, struct sl_err *err);

/* The newest rows without a run id (the live runner's summaries, pauses,
 * failures), at most limit, newest first. */
int state_run_log_live(struct wh *w, struct arena *a, size_t limit, struct state_run_row **rows,
		       size_t *n, struct sl_err *err);

#endif
