/*
 * Profiles and their anomalies as JSON, one shape for every reader: the
 * run's and `sluice profile`'s output, the model_anomaly alert, and an
 * HTTP answer that shows them.
 */
#ifndef SL_EXEC_PROFILE_JSON_H
#define SL_EXEC_PROFILE_JSON_H

struct json_t;
struct state_anomaly;
struct state_profile;

/* {"metric", "column", "value", "median", "low", "high", "history",
 * "level"}: whole numbers as integers. A new reference. */
struct json_t *profile_anomaly_json(const struct state_anomaly *an);

/* {"id", "taken_at", "kind", "run_id", "refresh_count", "status" (ok,
 * warned or rejected), "rows", "columns": [{"name", "type", "nulls",
 * "null_rate", "min", "max", "distinct"}], "anomalies": [...]}. A new
 * reference. */
struct json_t *profile_json(const struct state_profile *p);

/* What became of the profile's build: "ok", "warned" (anomalies at level
 * warn) or "rejected" (one at level error failed it). */
const char *profile_status(const struct state_profile *p);

/* The precision reals are written with (json_dumps flags): the digits a
 * band was computed to, not the last bits of binary rounding. */
#define PROFILE_JSON_REALS JSON_REAL_PRECISION(12)

#endif
