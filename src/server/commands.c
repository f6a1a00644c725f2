/*
 * This file implements POST /api/commands/NAME (commands.h): it checks
 * the request, queues it, and runs the CLI's handler through the hook
 * the CLI gave (server_opts.command) with its output into buffers. It
 * must never interpret a command's arguments: the handler does, as it
 * does on the command line.
 */
#include "server/commands.h"

#include "core/err.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "live/runner.h"
#include "server/http.h"
#include "server/server.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const commands[] = { "run", "seed", "plan", "test", "replay", NULL };

struct command_call {
	struct http_call *c;
	const struct server_opts *opts;
	server_on_warehouse_fn on_warehouse;
	void *ctx;
	struct server_command cmd;
	json_t *doc; /* the request, which argv's strings belong to */
	int exit;
	char *out, *err;
	size_t out_len, err_len;
};

static void command_free(struct command_call *cc)
{
	free(cc->cmd.argv);
	json_decref(cc->doc);
	free(cc->out);
	free(cc->err);
	free(cc);
}

/* On the thread on_warehouse runs it on: the live runner's, between two
 * of its cycles, when it runs (r). The runner first writes what it kept
 * and forgets it, to read the live state again at its next cycle: a run
 * may apply what the runner would have, and a stale ledger would apply it
 * twice. */
static int command_job(struct live_runner *r, struct wh *w, void *arg, struct sl_err *err)
{
	struct command_call *cc = arg;
	int rc = r ? live_runner_release(r, w, err) : 0;

	if (rc)
		return rc;
	cc->cmd.out = open_memstream(&cc->out, &cc->out_len);
	cc->cmd.err = open_memstream(&cc->err, &cc->err_len);
	if (!cc->cmd.out || !cc->cmd.err)
		xalloc_die();
	cc->exit = cc->opts->command(cc->opts->command_ctx, w, &cc->cmd);
	fclose(cc->cmd.out);
	fclose(cc->cmd.err);
	return 0;
}

/* The text, cut at COMMAND_MAX_OUTPUT with a line that says so; text that
 * is not UTF-8 is said to be so. */
static json_t *output(const char *text, size_t len)
{
	json_t *s;
	char *cut;

	if (len <= COMMAND_MAX_OUTPUT) {
		s = json_stringn(text, len);
		return s ? s : json_string("(the output is not UTF-8)\n");
	}
	cut = xasprintf("%.*s\n(cut: %zu bytes more)\n", COMMAND_MAX_OUTPUT, text,
			len - COMMAND_MAX_OUTPUT);
	s = json_string(cut);
	free(cut);
	return s ? s : json_string("(the output is not UTF-8)\n");
}

static void command_run(void *arg)
{
	struct command_call *cc = arg;
	struct sl_err err = SL_ERR_INIT;
	json_t *o;

	if (cc->on_warehouse(cc->ctx, command_job, cc, &err)) {
		http_reply_sl_err(cc->c, &err);
		command_free(cc);
		return;
	}
	o = json_object();
	json_object_set_new(o, "command", json_string(cc->cmd.name));
	json_object_set_new(o, "exit", json_integer(cc->exit));
	json_object_set_new(o, "stdout", output(cc->out, cc->out_len));
	json_object_set_new(o, "stderr", output(cc->err, cc->err_len));
	http_reply_json(cc->c, 200, o);
	command_free(cc);
}

/* A string member or null; false (the call answered) for anything else. */
static bool optional_text(struct http_call *c, json_t *doc, const char *key, const char **out)
{
	json_t *v = json_object_get(doc, key);
	char detail[96];

	*out = json_string_value(v);
	if (!v || json_is_null(v) || (json_is_string(v) && strlen(*out) == json_string_length(v)))
		return true;
	snprintf(detail, sizeof(detail), "'%s' must be a string without NUL bytes, or null", key);
	http_reply_error(c, 400, "bad request", detail);
	return false;
}

static bool read_request(struct http_call *c, struct command_call *cc)
{
	size_t len, i;
	const char *body = http_call_body(c, &len);
	json_t *args, *v;
	json_error_t jerr;

	cc->doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	args = json_object_get(cc->doc, "args");
	if (!json_is_object(cc->doc) || !json_is_array(args)) {
		http_reply_error(c, 400, "bad request",
				 "send {\"args\": [...], \"now\": ..., \"env\": ...} as JSON");
		return false;
	}
	if (json_array_size(args) > COMMAND_MAX_ARGS) {
		http_reply_error(c, 413, "too many arguments", "at most 64 arguments");
		return false;
	}
	cc->cmd.argv = xcalloc(json_array_size(args) + 1, sizeof(char *));
	json_array_foreach(args, i, v) {
		const char *s = json_string_value(v);

		if (!s || json_string_length(v) > COMMAND_MAX_ARG || strlen(s) != json_string_length(v)) {
			http_reply_error(c, 400, "bad request",
					 "each argument must be a string of at most 4096 bytes, "
					 "without NUL bytes");
			return false;
		}
		cc->cmd.argv[cc->cmd.argc++] = (char *)s;
	}
	return optional_text(c, cc->doc, "now", &cc->cmd.now) &&
	       optional_text(c, cc->doc, "env", &cc->cmd.env);
}

void server_command_answer(struct http_call *c, const char *name, struct arena *a,
			   const struct server_opts *opts, struct worker_queue *queue,
			   server_on_warehouse_fn on_warehouse, void *ctx)
{
	struct command_call *cc;
	size_t i;

	for (i = 0; commands[i] && strcmp(commands[i], name) != 0; i++)
		;
	if (!commands[i] || !opts->command) {
		http_reply_error(c, 404, "not found", "the commands are run, seed, plan, test and replay");
		return;
	}
	cc = xcalloc(1, sizeof(*cc));
	cc->c = c;
	cc->opts = opts;
	cc->on_warehouse = on_warehouse;
	cc->ctx = ctx;
	cc->cmd.name = commands[i];
	cc->cmd.arena = a;
	if (!read_request(c, cc)) {
		command_free(cc);
		return;
	}
	worker_queue_push(queue, command_run, cc);
}
