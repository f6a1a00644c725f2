/*
 * A run: the plan of the selected models (src/plan/) executed in
 * dependency order, one transaction per model. A failed model rolls back
 * alone; what reads it is skipped and independent branches go on. A dry
 * run reports the plan and builds nothing.
 */
#ifndef SL_EXEC_RUN_H
#define SL_EXEC_RUN_H

#include "exec/assert.h"
#include "project/model.h"
#include "windows/schedule.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct arena;
struct buf;
struct render_ctx;
struct render_read;
struct state_cache;
struct state_profile;
struct sl_err;
struct wh;

enum run_status {
	RUN_OK,
	RUN_WARN,
	RUN_FAILED,
	RUN_UP_TO_DATE,
	RUN_UPSTREAM_FAILED,
	RUN_PLANNED, /* a dry run would build it */
	RUN_HELD,    /* the caller held it back (paused, backing off, waiting) */
	RUN_BLOCKED, /* every window due waits for its upstreams' contracts */
};

struct run_item {
	struct model *m;
	enum run_status status;
	const char *action;  /* what the build did ("created", "merged", ...) */
	const char *reason;  /* why it was built or skipped */
	const char *message; /* the error, for failures */
	int64_t rows, ms;
	bool had_previous; /* a failed build left an earlier version in place */
	bool checks_only;  /* its data was up to date: only its checks ran (or would) */
	/* a temporal model: windows built (or planned), blocked and failed,
	 * and what the blocked ones wait for, grouped ("3 windows wait for
	 * a.b (encapsulate)"), or NULL */
	int64_t windows, blocked, failed_windows;
	const char *waits;
	struct assert_result *asserts; /* freed by run_report_free */
	size_t nasserts;
	/* a temporal model: the window the asserts were checked on ("window
	 * [since, until)"), its first failed one, else its first warned one */
	const char *checked_window;
	/* a model that keeps watermarks built from scratch in an environment:
	 * what it read of its history (run_scratch's note), or NULL */
	const char *replayed;
	/* the profile a batch build took of the model's new data, judged
	 * against its earlier ones, with the anomalies found; NULL when none
	 * was taken (exec/profile.h) */
	const struct state_profile *profile;
};

struct run_report {
	int64_t run_id, ms;
	struct run_item *items; /* selected models, in build order */
	size_t n;
	size_t ok, warned, failed, skipped, planned;
	size_t waiting; /* blocked on their upstreams' contracts (not in skipped) */
	/* of ok, warned and planned, the models whose checks alone ran (or would) */
	size_t checked;
};

/*
 * The bookkeeping of the models that keep watermarks (inputs_tracks). It
 * belongs to the live layer, which hands it down: whether a model has input
 * it has not consumed, and what a build records beside its data, inside
 * the build's transaction. A run of a project with such models needs one.
 */
struct run_book {
	void *ctx;
	bool (*behind)(void *ctx, const struct model *m);
	/* whether a refresh of m that changed nothing may leave its record
	 * for later */
	bool (*may_defer)(void *ctx, const struct model *m);
	/* before the data: points rctx's watermarks at what m has consumed;
	 * *entry is the build's own, for close and abort */
	int (*open)(void *ctx, struct wh *w, struct arena *a, const struct model *m, bool full,
		    struct render_ctx *rctx, void **entry, struct sl_err *err);
	/* after the data: takes the outcome in and appends the statements
	 * that record it to sql; with sql NULL, the record waits */
	int (*close)(void *ctx, struct wh *w, struct model *m, void *entry, int64_t rows,
		     bool full, struct buf *sql, struct sl_err *err);
	void (*saved)(void *ctx, const struct model *m); /* the build committed */
	void (*abort)(void *ctx, void *entry);           /* the build rolled back */
};

/*
 * How a model that keeps watermarks is built from scratch in an
 * environment, as the caller's change policy decides: the reads in place
 * of the relations it reads (none: all their history), and the rows it
 * takes from the main tables' copy, `seed_query` into `seed_columns`
 * (NULL: none), inside the build's transaction, before its checks.
 */
struct run_scratch {
	const struct render_read *reads;
	size_t nreads;
	const char *seed_columns; /* "a, b, c", quoted */
	const char *seed_query;
	const char *note; /* what was read and why, for the report */
};

struct run_opts {
	const char *selector;
	bool full_refresh;
	bool seeds_only;
	bool dry_run; /* plan only: decide, build nothing, write nothing */
	/* `sluice test`: the checks of every selected built model that has
	 * some, on its data as it is; nothing is built or written */
	bool test;
	bool live;    /* refreshes by the live runner: no run-log row per build */
	/* a model another build holds is held back, not waited for (the
	 * runner's batch runs); live runs never wait */
	bool no_wait;
	bool skip_asserts; /* the runner spaces checks out (live.assertion_interval) */
	bool state_ready;  /* the caller made sure of the state schema */
	/* the relations' kinds, matching the relations passed in, when the
	 * caller keeps them current (the runner); else the run reads them */
	const char *const *kinds;
	/* the watermark bookkeeping, when a model keeps watermarks */
	const struct run_book *book;
	/* the model rows a long-lived caller (the runner) keeps between runs;
	 * else the run reads its own */
	struct state_cache *cache;
	const char *env;
	/* the whole run in one transaction of the caller's (a replay), who
	 * holds every selected model's build lock, begins, and commits or
	 * rolls back: no build here begins, commits, rolls back or logs a
	 * failure, and the first failed model stops the run; temporal models
	 * (a transaction per window) are refused */
	bool in_txn;
	/* the models to run, by model order, in place of the selector */
	const bool *chosen;
	/* relations every build reads in place of others (render.h) */
	const struct render_read *reads;
	size_t nreads;
	/* called in the transaction of each build of a timeless model from
	 * scratch, after its data: appends to sql what the caller records
	 * of it (the boundaries of what it read); may be NULL */
	int (*on_full_build)(void *ctx, struct wh *w, const struct model *m, const char *env,
			     int64_t run_id, struct buf *sql, struct sl_err *err);
	void *record_ctx;
	/* decides each run_scratch; NULL: such builds read all history */
	int (*scratch)(void *ctx, struct wh *w, const struct model *m, struct run_scratch *out,
		       struct sl_err *err);
	void *scratch_ctx;
	/* the windows of temporal models: the run window and mode (now is the
	 * run's own time, filled by the run) */
	struct win_ask windows;
	/* how many windows of one temporal model build at once, each worker
	 * on a connection of its own (0 or 1: one after the other) */
	size_t workers;
	/* called before and after each model, for live output; may be NULL */
	void (*on_start)(void *ctx, const struct run_item *item, size_t index, size_t total);
	void (*on_done)(void *ctx, const struct run_item *item, size_t index, size_t total);
	/* the live runner's say: which models a cycle considers, and a reason
	 * to hold one back this time (NULL to go ahead); both may be NULL */
	bool (*pick)(void *ctx, const struct model *m);
	const char *(*hold)(void *ctx, const struct model *m);
	void *ctx;
	/* where the live layer's batch run says the alerts it sends after
	 * the run (live/batch.h); NULL: nowhere */
	FILE *alerts_out;
};

/* Runs the selected models of an already validated project. Returns 0 when
 * the run happened (even with failed models: see report->failed), else an
 * error that stopped it before any model was built, or SL_E_SUSPECT when
 * the warehouse failed a write in doubt (wh_suspect) during a build: the
 * run stops there, every model built before stays, and the report is
 * freed. */
int build_run(struct arena *a, struct project *p, struct wh *w, const char *const *relations,
	      size_t nrelations, const struct run_opts *opts, struct run_report *report,
	      struct sl_err *err);
void run_report_free(struct run_report *r);

const char *run_status_name(enum run_status s);

#endif
