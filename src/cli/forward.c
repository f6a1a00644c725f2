/*
 * Commands that `sluice serve` runs for the command line while it holds
 * the project's warehouse (run, seed, plan, test, replay): the arguments go
 * to POST /api/commands/NAME as given, the server runs the same handler on
 * its own connection, and what it printed and its exit code come back to
 * be printed here as they would have been. It must never run anything
 * itself: it only asks and prints.
 */
#include "cli/commands.h"

#include "core/err.h"
#include "core/xalloc.h"
#include "project/project.h"
#include "server/client.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The longest a command may run for the client: a long build is the
 * server's to finish, this bounds the wait of a client whose server hung. */
#define FORWARD_TIMEOUT_MS (6L * 3600 * 1000)

static char *request_body(const struct cli_args *args, size_t *len)
{
	json_t *doc = json_object(), *argv = json_array();
	char *text;

	for (int i = 0; i < args->argc; i++)
		json_array_append_new(argv, json_string(args->argv[i]));
	json_object_set_new(doc, "args", argv);
	json_object_set_new(doc, "now", args->now ? json_string(args->now) : json_null());
	json_object_set_new(doc, "env", args->env ? json_string(args->env) : json_null());
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	if (!text)
		xalloc_die();
	*len = strlen(text);
	return text;
}

void cli_print_refusal(int status, const char *body, size_t len)
{
	json_t *doc = json_loadb(body, len, 0, NULL);
	const char *detail = json_string_value(json_object_get(doc, "detail"));

	fprintf(stderr, "sluice: the server answered %d: %s\n", status,
		detail ? detail : "no detail");
	json_decref(doc);
}

/* Prints the command's output and gives its exit code. */
static int print_answer(const struct server_answer *ans)
{
	json_t *doc = json_loadb(ans->body, ans->len, 0, NULL);
	json_t *code = json_object_get(doc, "exit");
	int rc;

	if (ans->status != 200 || !json_is_integer(code)) {
		cli_print_refusal(ans->status, ans->body, ans->len);
		json_decref(doc);
		return CLI_FAILED;
	}
	fwrite(json_string_value(json_object_get(doc, "stdout")), 1,
	       json_string_length(json_object_get(doc, "stdout")), stdout);
	fflush(stdout);
	fwrite(json_string_value(json_object_get(doc, "stderr")), 1,
	       json_string_length(json_object_get(doc, "stderr")), stderr);
	rc = (int)json_integer_value(code);
	json_decref(doc);
	return rc;
}

bool cli_forward(const struct cli_args *args, int *rc)
{
	struct sl_err err = SL_ERR_INIT;
	struct cli_session s;
	struct server_answer ans;
	struct server_ask ask = { .method = "POST", .content_type = "application/json",
				  .timeout_ms = FORWARD_TIMEOUT_MS };
	const char *env;
	char *root, path[64], *body;
	int port;

	/* a server found by the folder alone: no second load of the project
	 * when there is none */
	if (args->wh || project_locate(args->project, &root, &err))
		return false;
	if (!server_find(root, &port)) {
		free(root);
		return false;
	}
	free(root);
	*rc = cli_session_open(&s, args, CLI_OPEN_NONE, false);
	if (*rc)
		return true;
	if (!cli_session_served(&s, &port)) {
		cli_session_close(&s);
		return false;
	}
	env = s.project->cfg.server.token_env;
	snprintf(path, sizeof(path), "/api/commands/%s", args->command);
	body = request_body(args, &ask.body_len);
	ask.path = path;
	ask.body = body;
	ask.token = env ? getenv(env) : NULL;
	if (server_call(port, &ask, &ans, &err)) {
		cli_print_err(&err);
		*rc = CLI_FAILED;
	} else {
		*rc = print_answer(&ans);
	}
	free(ans.body);
	free(body);
	cli_session_close(&s);
	return true;
}
