/*
 * `_sluice.profiles`: a live model's columns as a profile found them (rows,
 * NULLs, least and greatest value as text), one row per column and
 * profile. Which models are profiled, and when, is src/live/'s decision.
 */
#ifndef SL_STATE_PROFILES_H
#define SL_STATE_PROFILES_H

#include <stddef.h>
#include <stdint.h>

struct sl_err;
struct wh;
struct wh_column;

/* Profiles the table schema.table of model, whose n columns are cols, in
 * one scan, as taken at now_ms. */
int state_profile_write(struct wh *w, const char *model, const char *schema, const char *table,
			const struct wh_column *cols, size_t n, int64_t now_ms,
			struct sl_err *err);

/* When model was last profiled (ms since the epoch), 0 when never. */
int state_profile_last_ms(struct wh *w, const char *model, int64_t *ms, struct sl_err *err);

#endif
