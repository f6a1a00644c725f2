/*
 * Alerts: a line on the runner's output and, when sluice.yml names
 * alerts.command, that command run with the alert as one JSON object on
 * its standard input.
 */
#ifndef SL_LIVE_ALERT_H
#define SL_LIVE_ALERT_H

#include <stdio.h>

/* kind: "live_model_failed" or "live_model_recovered"; error may be NULL.
 * A command that cannot be run is reported on out and otherwise ignored:
 * an alert must never stop the runner. */
void live_alert(const char *command, const char *root, FILE *out, const char *kind,
		const char *model, const char *error);

#endif
