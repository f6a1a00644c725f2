/*
 * Alerts: a line on the caller's output and, when sluice.yml names
 * alerts.command, that command run with the alert as one JSON object on
 * its standard input.
 */
#ifndef SL_LIVE_ALERT_H
#define SL_LIVE_ALERT_H

#include <stdint.h>
#include <stdio.h>

struct state_anomaly;

/* kind: "live_model_failed" or "live_model_recovered"; error may be NULL.
 * A command that cannot be run is reported on out and otherwise ignored:
 * an alert must never stop the runner. */
void live_alert(const char *command, const char *root, FILE *out, const char *kind,
		const char *model, const char *error);

/* A "model_anomaly" alert: a batch build of model in env (run run_id)
 * whose profile put a metric outside its band; text says it in words.
 * Delivered as live_alert delivers. */
void live_alert_anomaly(const char *command, const char *root, FILE *out, const char *model,
			const char *env, int64_t run_id, const struct state_anomaly *an,
			const char *text);

#endif
