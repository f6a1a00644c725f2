/*
 * Inside src/exec/ only: the run that executes a plan (run.c), as its
 * parts share it, and one model's build in its own transaction (build.c),
 * which the run loop and a temporal model's windows (temporal.c) call.
 */
#ifndef SL_EXEC_BUILD_H
#define SL_EXEC_BUILD_H

#include "exec/run.h"
#include "exec/windows.h"
#include "plan/plan.h"
#include "state/state.h"
#include "state/windows.h"
#include "windows/grid.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct run_slot;

struct run {
	struct arena *a;
	struct project *p;
	struct wh *w;
	const struct run_opts *opts;
	const char *const *relations;
	const char *const *kinds; /* per relation, when the run read them */
	size_t nrelations;
	struct state_model *state;
	size_t nstate;
	const struct run_book *book; /* when a model keeps watermarks */
	struct plan_facts facts;
	int64_t run_id; /* 0 until a build needs one */
	char run_ts[32];
	int64_t *version;       /* per model order: version of its data now */
	enum run_status *status; /* per model order, for models built this run */
	bool *built;
	/* per model order: a temporal model that failed some windows only,
	 * whose readers gate on what it holds instead of being skipped */
	bool *windows_failed;
	struct run_windows wins;
	int64_t now; /* the run's time in UTC seconds, for windows */
	/* per model order: a contract of some model names it */
	bool *gating;
	/* per model order: its window rows are read, being selected or named
	 * by a contract of a selected model */
	bool *wanted;
	bool windowed; /* the project has temporal models or contracts */
	/* wins and the rows' writes are under it while workers build */
	pthread_mutex_t *rows_mu;
	/* a worker's copy of the run: its windows leave the model's row
	 * (which they would all write) to the model's last transaction */
	bool pooled;
	struct run_slot *slots; /* opts->workers of them once opened (temporal.c) */
	size_t nslots;
};

/* Whether fqn held a relation when the run started (or since, as the run
 * saw); what it held: "table", "view" or NULL. */
bool run_relation_exists(const struct run *r, const char *fqn);
const char *run_relation_kind(const struct run *r, const char *fqn);

/* The run's id, taken on first use: live refreshes that change nothing
 * need none, so they cost no query for it. */
int run_id_need(struct run *r, struct sl_err *err);
/* The run-log row of a model that failed, in a transaction of its own:
 * the failure is on record even though the build rolled back. */
void run_log_failed(struct run *r, const struct run_item *item, int64_t started);
/* The run-log row of a model that ended ok or with warnings, in the
 * caller's transaction. */
int run_log_done(struct run *r, const struct run_item *item, int64_t rows, int64_t started,
		 struct sl_err *err);
/* Keeps what a finished model's row now says for the rest of the run and
 * for a caller that holds the rows between runs. */
void run_keep_row(struct run *r, const struct state_model *row);

/* The model's description as its relation's comment. */
int build_describe(struct wh *w, const struct model *m, struct sl_err *err);
/* The state row a build records beside its data: its window applied, or
 * a timeless model's existence row (win NULL). */
struct state_window build_applied_row(const struct run *r, const struct model *m,
				      const struct win_range *win);
/* Whether a build records that row. */
bool build_records_window(const struct run *r, const struct model *m,
			  const struct win_range *win);
/* The model's row after a build of it (changed: its data changed). */
struct state_model build_model_row(const struct run *r, const struct model *m,
				   const struct state_model *st, const char *sig, bool changed);
/* Joins a flexible model's window row into the island it makes with the
 * applied rows it reaches, in a transaction of its own; with rows_mu held. */
int build_island_join(struct run *r, const struct model *m, const struct state_window *wrow,
		      struct sl_err *err);

/*
 * One build in its own transaction: the whole model, or with win one
 * window of a temporal model (full: the table made anew from it, every
 * window row of the model dropped). *made (may be NULL) says whether its
 * data committed. A failed build is the item's (0, item->status
 * RUN_FAILED); SL_E_BUSY: another process's commit undid it, rolled back
 * and unrecorded; SL_E_SUSPECT (run_err says why): the warehouse is in
 * doubt and nothing more was written.
 */
int build_model(struct run *r, struct run_item *item, bool full, const char *sig,
		const struct win_range *win, bool *made, struct sl_err *run_err);
/*
 * A model whose data is up to date but whose checks are due, or one that
 * `sluice test` checks: its checks alone, in a transaction of their own.
 * Fails only with SL_E_SUSPECT, as build_model.
 */
int build_checks_only(struct run *r, struct run_item *item, const char *sig,
		      struct sl_err *run_err);

#endif
