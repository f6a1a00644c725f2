/*
 * Alert delivery through the configured command, each alert recorded in
 * the folder's log (alertlog.h) with how it went. Never fails the caller.
 */
#include "live/alert.h"

#include "core/err.h"
#include "core/units.h"
#include "exec/profile_json.h"
#include "live/alertlog.h"

#include <jansson.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Says the alert o (consumed) on out and hands it to the command. */
static void deliver(const char *command, const char *root, FILE *out, json_t *o,
		    const char *kind, const char *model, const char *error)
{
	char *text = json_dumps(o, JSON_COMPACT | PROFILE_JSON_REALS), exited[32];
	const char *delivery = "no command";
	struct sl_err err = SL_ERR_INIT;
	FILE *p;
	int status;

	json_decref(o);
	if (out)
		fprintf(out, "alert %s: %s%s%s\n", kind, model, error ? ": " : "",
			error ? error : "");
	if (command && text) {
		/* the command runs in the project folder, like every path in
		 * sluice.yml; the folder goes through the environment so that no
		 * character in it needs quoting */
		char *cmd = NULL;

		setenv("SLUICE_PROJECT", root, 1);
		if (asprintf(&cmd, "cd \"$SLUICE_PROJECT\" && %s", command) > 0 &&
		    (p = popen(cmd, "w"))) {
			fprintf(p, "%s\n", text);
			/* a wait status: the command's own exit code, or its signal */
			status = pclose(p);
			if (status != -1 && WIFSIGNALED(status))
				snprintf(exited, sizeof(exited), "killed by signal %d", WTERMSIG(status));
			else
				snprintf(exited, sizeof(exited), "exit status %d",
					 status == -1 ? -1 : WEXITSTATUS(status));
			delivery = status ? exited : "sent";
			if (status != 0 && out)
				fprintf(out, "alert command '%s' failed: %s\n", command, exited);
		} else {
			delivery = "not started";
			if (out)
				fprintf(out, "alert command '%s' could not be started\n", command);
		}
		free(cmd);
	}
	if (text && alert_log_add(root, text, delivery, &err) && out)
		fprintf(out, "alert not recorded: %s\n", err.msg);
	free(text);
}

/* The members every alert has. */
static json_t *alert_object(const char *kind, const char *model, const char *error)
{
	json_t *o = json_object();
	char at[32];

	units_format_ts(units_now_ms(), at, sizeof(at));
	json_object_set_new(o, "alert", json_string(kind));
	json_object_set_new(o, "model", json_string(model));
	json_object_set_new(o, "at", json_string(at));
	json_object_set_new(o, "error", error ? json_string(error) : json_null());
	return o;
}

void live_alert(const char *command, const char *root, FILE *out, const char *kind,
		const char *model, const char *error)
{
	deliver(command, root, out, alert_object(kind, model, error), kind, model, error);
}

void live_alert_anomaly(const char *command, const char *root, FILE *out, const char *model,
			const char *env, int64_t run_id, const struct state_anomaly *an,
			const char *text)
{
	json_t *o = alert_object("model_anomaly", model, text), *fields = profile_anomaly_json(an);

	json_object_set_new(o, "env", json_string(env));
	json_object_set_new(o, "run_id", json_integer(run_id));
	json_object_update(o, fields);
	json_decref(fields);
	deliver(command, root, out, o, "model_anomaly", model, text);
}
