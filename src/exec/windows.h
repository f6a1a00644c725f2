/*
 * The window state of a run: every `_sluice.windows` row of the run's
 * environment, read once and kept per model as the run builds, so that
 * each model's windows are gated on what its upstreams hold by the time
 * its turn comes (a dry run: on what they would hold). It schedules a
 * temporal model's windows and checks each window's contracts.
 */
#ifndef SL_EXEC_WINDOWS_H
#define SL_EXEC_WINDOWS_H

#include "project/model.h"
#include "state/windows.h"
#include "windows/contract.h"
#include "windows/schedule.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct wh;

/* Per model order, its rows sorted by since. */
struct run_windows {
	struct project *p;
	struct arena *a;
	const char *env;
	struct model_rows {
		struct state_window *rows;
		size_t n, cap;
	} *by_model;
	/* per declared source (config order) that a contract names, the
	 * coverage its event_time publishes: before its newest event less its
	 * lateness, applied at its newest landing; known false while it has
	 * landed no event */
	struct source_cover {
		bool known;
		int64_t until, landed_at;
	} *sources;
};

/* Reads env's rows of the models wanted (per model order; NULL: every
 * model), none when the warehouse has no state yet (w NULL). */
int run_windows_load(struct run_windows *rw, struct arena *a, struct project *p, struct wh *w,
		     const char *env, const bool *wanted, struct sl_err *err);
/* Reads m's rows again, as another process may have written them. */
int run_windows_reload(struct run_windows *rw, struct wh *w, const struct model *m,
		       struct sl_err *err);
/* Reads one source's coverage from its table (relation), strings in a. */
int run_windows_source_cover(struct wh *w, struct arena *a, const struct source_cfg *s,
			     const char *relation, struct source_cover *out, struct sl_err *err);
/* Reads the coverage of every declared source a contract of a selected
 * model names (selected: per model order), from its landing table as it
 * stands: a source not landed yet covers nothing. */
int run_windows_load_sources(struct run_windows *rw, struct wh *w, const bool *selected,
			     struct sl_err *err);
/* Makes row the model's row at its since (its existence row); strings must
 * outlive the run. A grid row (one window or a run of them) replaces what
 * the rows held of its windows and joins a neighbour in the same state. */
void run_windows_put(struct run_windows *rw, const struct model *m,
		     const struct state_window *row);
/* A flexible model's window row, applied, as the island it makes with
 * every applied row it reaches, overlapping or touching, through the
 * others (applied_at the newest of them, oldest_at the oldest). */
struct state_window run_windows_island(const struct run_windows *rw, const struct model *m,
				       const struct state_window *row);
/* Adds a flexible model's window row as its transaction wrote it: in
 * place of the rows inside it, beside the island it may lie in. */
void run_windows_add(struct run_windows *rw, const struct model *m,
		     const struct state_window *row);
/* The first applied row of m that overlaps or touches a later one (rows
 * a crash or a failed join left apart), or NULL when its applied rows are
 * islands. */
const struct state_window *run_windows_loose(const struct run_windows *rw,
					     const struct model *m);
/* Makes island a row of m, in place of every row it overlaps and of the
 * applied ones it touches. */
void run_windows_put_island(struct run_windows *rw, const struct model *m,
			    const struct state_window *island);
/* Uncovers [since, until) of a flexible model: each applied island it
 * cuts keeps what lies outside, each other row inside goes. The pieces
 * left of cut islands are written to *pieces (n of them, at most two per
 * island; in rw's arena). */
void run_windows_uncover(struct run_windows *rw, const struct model *m, int64_t since,
			 int64_t until, struct state_window **pieces, size_t *n);
/* Whether an applied row of m covers [since, until). */
bool run_windows_covered(const struct run_windows *rw, const struct model *m, int64_t since,
			 int64_t until);
/* Forgets every row of m (a build from scratch). */
void run_windows_clear(struct run_windows *rw, const struct model *m);
/* m's row at since (a grid row holding the window at since), or NULL. */
const struct state_window *run_windows_at(const struct run_windows *rw, const struct model *m,
					  int64_t since);
/* The grain m's grid rows were built at when it is not m's own grain now,
 * else NULL. */
const char *run_windows_old_grain(const struct run_windows *rw, const struct model *m);

/* Temporal model m's grid as its @config sets it. */
struct win_grid run_windows_grid(const struct model *m);

/* The gates of m's upstreams, indexed once for all of its windows as the
 * upstreams stand now. Free with run_gates_free. */
struct run_gates {
	const struct model *m;
	struct arena *a;
	int64_t now;
	struct run_gate {
		const struct model_upstream *u;
		struct win_index ix;
	} *g;
	size_t n;
};

void run_gates_open(const struct run_windows *rw, const struct model *m, int64_t now,
		    struct run_gates *out);

/* The applied windows of a model that are due again, per gate (in gates'
 * order): the upstream that applied rows again after them, how many
 * windows and the span of those rows. In the run's arena. */
struct run_again {
	struct run_again_by {
		const char *upstream;
		int64_t windows, from, to;
	} *by;
	size_t n;
};

/* The runs of windows of temporal model m this run builds, in order:
 * those its run window and mode make due on its applied coverage, where
 * an applied window that an upstream's gate (gs, opened for m) applied rows again
 * after, as its level's scope sees them, counts as not applied (said in
 * again, when not NULL). */
void run_windows_due(const struct run_windows *rw, const struct model *m,
		     const struct win_ask *ask, const struct run_gates *gs, struct win_list *out,
		     struct run_again *again);
/* "2 again: upstream a.b re-applied 2026-11-02 05:00..07:00 after them,
 * ..." or NULL when no window is due again; in a. */
const char *run_again_text(struct arena *a, const struct run_again *again);
/* Checks every gate for one window (a timeless model: since == until),
 * none skipped. Returns 0 when every one is met, SL_E_BLOCKED with
 * *reason naming each upstream that is not ("a.b (encapsulate), c.d
 * (whole, stale)"), or SL_E_INVALID with err saying which contract can
 * never be met. *reason lives in the run's arena. */
int run_gates_check(const struct run_gates *gs, int64_t since, int64_t until,
		    const char **reason, struct sl_err *err);
void run_gates_free(struct run_gates *gs);

#endif
