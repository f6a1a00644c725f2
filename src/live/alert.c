/*
 * Alert delivery through the configured command. Never fails the caller.
 */
#include "live/alert.h"

#include "state/state.h"
#include "core/units.h"

#include <jansson.h>
#include <stdlib.h>

void live_alert(const char *command, const char *root, FILE *out, const char *kind,
		const char *model, const char *error)
{
	json_t *o = json_object();
	char at[32], *text;
	FILE *p;
	int status;

	units_format_ts(units_now_ms(), at, sizeof(at));
	json_object_set_new(o, "alert", json_string(kind));
	json_object_set_new(o, "model", json_string(model));
	json_object_set_new(o, "at", json_string(at));
	json_object_set_new(o, "error", error ? json_string(error) : json_null());
	text = json_dumps(o, JSON_COMPACT);
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
			status = pclose(p);
			if (status != 0 && out)
				fprintf(out, "alert command '%s' exited with status %d\n", command,
					status);
		} else if (out) {
			fprintf(out, "alert command '%s' could not be started\n", command);
		}
		free(cmd);
	}
	free(text);
}
