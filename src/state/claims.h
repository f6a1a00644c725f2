/*
 * `_sluice.live_runners` (each runner alive, until its lease ends) and
 * `_sluice.live_claims` (which runner refreshes each group of live models,
 * until when), times in ms of the warehouse's clock. Who takes which group
 * is src/live/claims.c's decision; the statements are here. Every runner
 * writes only its own rows, and takes a group only in one statement that
 * finds it free or lapsed, so two runners never both take it.
 */
#ifndef SL_STATE_CLAIMS_H
#define SL_STATE_CLAIMS_H

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct wh;
struct wh_result;

/* The heartbeat of runner, its leases renewed for lease_ms, runners gone
 * for long forgotten; then every claim and every runner alive, as rows of
 * kind ('g' a group's claim: group, runner, 1 when its lease runs, else 0;
 * 'r' a runner alive: NULL, runner, 1). */
int state_claims_renew(struct wh *w, const char *runner, int64_t lease_ms,
		       struct wh_result **out, struct sl_err *err);

/* Takes group for runner for lease_ms when it is free or lapsed: *got says
 * whether it did. */
int state_claims_take(struct wh *w, const char *group, const char *runner, int64_t lease_ms,
		      bool *got, struct sl_err *err);

/* Lets go of runner's claim of group, or with group NULL of all its
 * claims. */
int state_claims_drop(struct wh *w, const char *runner, const char *group, struct sl_err *err);

/* Removes runner's heartbeat. */
int state_claims_runner_drop(struct wh *w, const char *runner, struct sl_err *err);

/* The claims whose lease runs: group, runner. NULL when the warehouse's
 * state predates claims. */
int state_claims_current(struct wh *w, struct arena *a, struct wh_result **out,
			 struct sl_err *err);

#endif
