/*
 * The live runner: refreshes every live model that is behind, in dependency
 * order, one transaction each, so a bronze -> silver -> gold chain moves in
 * one cycle. It holds back paused models, models backing off after a
 * failure and models whose live input is failing; alerts once on the first
 * failure and once on recovery; and logs one aggregated run-log row per
 * model per log_interval instead of one per refresh.
 */
#ifndef SL_LIVE_RUNNER_H
#define SL_LIVE_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct arena;
struct buf;
struct live_advance;
struct model;
struct project;
struct sl_err;
struct wh;
struct live_runner;

struct live_cycle {
	size_t refreshed, failed, held, behind; /* behind: still behind after the cycle */
	size_t due; /* of those behind, how many a cycle could refresh now */
	int64_t events;
};

/* What the runner tells a watcher as it happens: "refresh" (detail: rows
 * applied), "failure" (the error), "recovery", "pause", "resume". Called
 * on the runner's thread. */
typedef void (*live_event_fn)(void *ctx, const char *event, const char *model,
			      const char *detail);

/* A runner for the project's live models; out receives one line per
 * refresh, failure and recovery (may be NULL). Its arena is a child of a
 * (may be NULL). Free with live_runner_free, before a. */
struct live_runner *live_runner_new(struct arena *a, struct project *p, FILE *out);
/* What each build from scratch of the runner's records beside its data
 * (run_opts.on_full_build: the replay boundaries), handed down by the
 * layer that knows it. */
void live_runner_on_full_build(struct live_runner *r,
			       int (*fn)(void *ctx, struct wh *w, const struct model *m,
					 const char *env, int64_t run_id, struct buf *sql,
					 struct sl_err *err),
			       void *ctx);
void live_runner_free(struct live_runner *r);
/* A runner that keeps running (the server's, `sluice live`) shares the
 * live models of a shared warehouse with the other such runners: each
 * refreshes the groups it claims (live/claims.h). Without it, a runner
 * (`sluice live --once`) refreshes every live model it can lock. */
void live_runner_share(struct live_runner *r);
/* Sets the watcher (NULL for none). */
void live_runner_watch(struct live_runner *r, live_event_fn fn, void *ctx);

/* One cycle on an open warehouse. */
int live_runner_cycle(struct live_runner *r, struct wh *w, struct live_cycle *out,
		      struct sl_err *err);

/* Writes the aggregated run-log rows that are due (all of them when force). */
int live_runner_flush_log(struct live_runner *r, struct wh *w, bool force, struct sl_err *err);

/* How often to poll (live_runner_sources_moved): every poll_interval; on
 * a shared warehouse as often as the runner's claims are to be renewed
 * (live/claims.h), which the poll does. */
int64_t live_runner_poll_ms(const struct live_runner *r, struct wh *w);
/* Whether any source's watermark moved since the runner last looked: one
 * cheap query, the poll that picks up other connections' advances. On a
 * shared warehouse it also keeps the runner's claims; taking over live
 * models from another runner counts as a move. */
int live_runner_sources_moved(struct live_runner *r, struct wh *w, bool *moved,
			      struct sl_err *err);
/* An advance made in this process (any thread): the next cycle knows of it
 * without asking the warehouse. */
void live_runner_advanced(struct live_runner *r, const char *source,
			  const struct live_advance *adv);

/* Pauses or resumes a live model (resuming skips what is left of a
 * backoff): its state row and a run-log row, on the runner's connection. */
int live_runner_pause(struct live_runner *r, struct wh *w, const struct model *m, bool pause,
		      struct sl_err *err);
/* The statements that pause or resume model, for a process without a
 * runner. */
void live_pause_sql(struct buf *sql, const char *model, bool pause);
/* A cycle for one model only: it applies what is pending for it now. */
int live_runner_refresh(struct live_runner *r, struct wh *w, const struct model *m,
			struct live_cycle *out, struct sl_err *err);

/* Before the runner lets go of the warehouse: writes what its refreshes
 * left unwritten and the due run-log rows, gives up its claims, and
 * forgets what it kept, to read it again next time it holds the
 * warehouse. */
int live_runner_release(struct live_runner *r, struct wh *w, struct sl_err *err);

#endif
