/*
 * Profiles of live models: per column, the row count, NULL count and the
 * smallest and largest value, appended to `_sluice.profiles`. A full scan,
 * so the runner takes one at most every live.profile_interval per model.
 */
#ifndef SL_LIVE_PROFILE_H
#define SL_LIVE_PROFILE_H

struct arena;
struct model;
struct sl_err;
struct wh;

/* Profiles m; its scratch memory is a child of cycle, freed before it
 * returns. */
int live_profile(struct arena *cycle, struct wh *w, const struct model *m, struct sl_err *err);

#endif
