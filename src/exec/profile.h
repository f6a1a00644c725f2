/*
 * Profiles of models' tables: the row count and, per column, the NULLs,
 * the least and greatest value and the distinct values, in one scan. A
 * batch build takes one of its model's new data in its transaction and
 * judges it (build.c, anomaly.h); the live runner takes one now and then
 * (src/live/profile.c).
 */
#ifndef SL_EXEC_PROFILE_H
#define SL_EXEC_PROFILE_H

#include <stdbool.h>

struct arena;
struct model;
struct sl_err;
struct state_profile;
struct wh;

/* Profiles the table schema.name into *out: rows and cols (in a); the
 * rest of *out (who took it, when) is the caller's to fill. */
int profile_take(struct wh *w, struct arena *a, const char *schema, const char *name,
		 struct state_profile *out, struct sl_err *err);

/* Whether m is a model whose batch builds are profiled: one with a table
 * of its own (a table, an incremental model, a snapshot or a seed) built
 * whole, not window by window. Whether its metrics are judged is
 * anomaly_wanted's (anomaly.h). */
bool profile_builds_of(const struct model *m);

#endif
