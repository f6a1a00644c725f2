/*
 * Which runner refreshes which live models when several processes share a
 * warehouse (wh_shared). The live models are claimed in groups, a group
 * being the models joined through live inputs (a bronze -> silver -> gold
 * chain): one runner refreshes a whole group, so its ledger sees every
 * commit that moves the group. A claim is a lease on the warehouse's
 * clock, renewed by its runner every poll_interval / 6 and lapsing
 * poll_interval / 2 after the last renewal: the groups of a runner that
 * died are taken by the others within poll_interval. Runners share the
 * groups out evenly: one holding more than its share lets the surplus go
 * for those holding less to take.
 */
#ifndef SL_LIVE_CLAIMS_H
#define SL_LIVE_CLAIMS_H

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct model;
struct project;
struct sl_err;
struct wh;
struct live_claims;

/* The claims over p's live models of the runner named runner, NULL for
 * this process ("HOST:PID"); its arena is a child of a (may be NULL). */
struct live_claims *live_claims_new(struct arena *a, const struct project *p,
				    const char *runner);
void live_claims_free(struct live_claims *c);
const char *live_claims_runner(const struct live_claims *c);
/* The group of a live model: the name of its first model in dependency
 * order; NULL for a model that does not refresh live. */
const char *live_claims_group(const struct live_claims *c, const struct model *m);
/* How often the claims are to be kept (live_claims_keep). */
int64_t live_claims_period_ms(const struct project *p);

/* Renews this runner's claims, takes free and lapsed groups up to its
 * share and lets go of those above it, when a period has passed since the
 * last time (at once the first time). *gained: it took a group it did not
 * hold, whose bookkeeping others wrote. */
int live_claims_keep(struct live_claims *c, struct wh *w, bool *gained, struct sl_err *err);
/* Whether this runner holds m's group now (its lease has not lapsed). */
bool live_claims_holds(const struct live_claims *c, const struct model *m);
/* Gives every claim up, for a runner that stops: the others need not wait
 * for the leases to lapse. */
int live_claims_release(struct live_claims *c, struct wh *w, struct sl_err *err);

#endif
