/*
 * What each selected model needs, decided before anything is built: a
 * build (from scratch or not) and why, its checks alone, nothing, or held
 * back by the caller. `sluice plan` prints this value, a run executes it,
 * and the live runner's cycles are runs. Each decision keeps the versions
 * of the inputs it was made on, the plan expecting each build to change
 * its model's data: a run decides again when its inputs turned out
 * otherwise (a build that changed nothing leaves its readers up to date).
 */
#ifndef SL_PLAN_PLAN_H
#define SL_PLAN_PLAN_H

#include "project/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct shape_diff;
struct state_model;

/* PLAN_REFUSED: a build would be wrong; the reason says why and what to do */
enum plan_do { PLAN_UP_TO_DATE, PLAN_BUILD, PLAN_CHECK, PLAN_HELD, PLAN_REFUSED };

struct plan_item {
	struct model *m;
	enum plan_do what;
	bool full; /* a build from scratch */
	const char *reason;
	const char *sig; /* the inputs' versions it was decided on (plan_signature) */
	/* a build that changes these columns alone, its rows as they were
	 * (plan/columns.h); NULL for any other */
	const struct shape_diff *columns;
};

/* What a plan is decided from. A run that records state rows as it goes
 * points state and nstate at them anew. */
struct plan_facts {
	struct arena *a; /* for what a decision works out (a change's columns) */
	struct project *p;
	const struct state_model *state;
	size_t nstate;
	/* a state row records a build that changed some columns alone
	 * (column_versions): only then is what a reader sees of an input
	 * worked out from its columns */
	bool columns_changed;
	const char *const *relations; /* what the warehouse holds, sorted */
	size_t nrelations;
	bool full_refresh;
	bool skip_checks; /* checks are spaced out this time (live.assertion_interval) */
	/* the caller's say, each may be NULL: whether a model that keeps
	 * watermarks has input it has not consumed, and a reason to hold a
	 * model back this time */
	bool (*behind)(void *ctx, const struct model *m);
	void *behind_ctx;
	const char *(*hold)(void *ctx, const struct model *m);
	void *hold_ctx;
	/* whether temporal model m has windows the run would build (blocked
	 * ones too); NULL: none has */
	bool (*windows_due)(void *ctx, const struct model *m);
	void *windows_ctx;
};

struct plan {
	struct plan_item *items; /* the selected models but ephemerals, in build order */
	size_t n;
};

/* The plan of the selected models (per model order); a build is expected
 * to change its model's data. */
void plan_make(struct arena *a, const struct plan_facts *f, const bool *selected,
	       struct plan *out);

/* Per model order, the version of its data as the state rows say; a run
 * moves them as it builds. */
int64_t *plan_versions(struct arena *a, const struct plan_facts *f);
/* A view or ephemeral shows its inputs' data as it is: its version follows
 * theirs, or is `fresh` when it reads tables outside the project. */
void plan_pass_through(const struct model *m, int64_t *version, int64_t fresh);
/* "input@version,..." over m's inputs: what its state row must match. */
const char *plan_signature(struct arena *a, const struct plan_facts *f, const struct model *m,
			   const int64_t *version);
/* What m needs, its inputs being at sig; fills item (but m and sig). */
void plan_decide(const struct plan_facts *f, struct model *m, const char *sig,
		 struct plan_item *item);

#endif
