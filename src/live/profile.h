/*
 * Profiles of live models: per column, the row count, NULL count and the
 * smallest and largest value, appended to `_sluice.profiles`. A full scan,
 * so the runner takes one at most every live.profile_interval per model.
 */
#ifndef SL_LIVE_PROFILE_H
#define SL_LIVE_PROFILE_H

struct model;
struct sl_err;
struct wh;

int live_profile(struct wh *w, const struct model *m, struct sl_err *err);

#endif
