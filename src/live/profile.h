/*
 * Profiles of live models: the row count and, per column, the NULLs, the
 * least and greatest value and the distinct values (exec/profile.h),
 * appended to `_sluice.profiles`. A full scan, so the runner takes one at
 * most every live.profile_interval per model. A live profile is history
 * to read, never judged: anomalies are judged on batch builds.
 */
#ifndef SL_LIVE_PROFILE_H
#define SL_LIVE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

struct anomaly_cfg;
struct arena;
struct model;
struct sl_err;
struct wh;

/* Whether the runner profiles m: a model with a table of its own whose
 * anomaly level, or a column's, is not off. */
bool live_profile_wanted(const struct model *m, const struct anomaly_cfg *cfg);

/* Profiles m after its refresh_count-th refresh, written at once in a
 * transaction of its own; its scratch memory is a child of cycle, freed
 * before it returns. */
int live_profile(struct arena *cycle, struct wh *w, const struct model *m, int64_t refresh_count,
		 struct sl_err *err);

#endif
