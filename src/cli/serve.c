/*
 * `sluice serve`: the long-running process a team deploys. SIGTERM or
 * SIGINT stops it cleanly: accepted batches commit and are answered, the
 * runner finishes its refresh, exit 0.
 */
#include "cli/commands.h"

#include "core/err.h"
#include "project/project.h"
#include "replay/boundaries.h"
#include "server/server.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* What a client's command runs with besides its arguments. */
struct client_ctx {
	const char *root;
	const struct cli_command *commands;
	const struct project *served;
};

/* A client's command, run by the server as the command line would run it
 * (its arguments were checked there already), on the server's connection
 * and with its output into the server's buffers. */
static int run_for_client(void *ctx, struct wh *w, const struct server_command *c)
{
	const struct client_ctx *cc = ctx;
	const struct cli_command *cmd = cli_command_find(cc->commands, c->name);
	struct cli_args args;
	int rc = cmd ? cli_args_parse(cmd, c->argc, c->argv, &args) : CLI_USAGE;

	/* the parser said why on the server's stderr: the client hears it too */
	if (rc && rc != CLI_HELP)
		fprintf(c->err, "sluice %s: the arguments do not parse\n  hint: see 'sluice help %s'\n",
			c->name, c->name);
	if (!rc) {
		args.project = cc->root;
		args.commands = cc->commands;
		args.wh = w;
		args.out = c->out;
		args.err = c->err;
		args.now = c->now;
		args.env = c->env;
		args.arena = c->arena;
		args.served = cc->served;
		rc = cmd->run(&args);
	}
	if (cmd)
		free(args.pos);
	return rc == CLI_HELP ? CLI_OK : rc;
}

int cli_serve(struct cli_args *args)
{
	struct cli_session s;
	struct sl_err err = SL_ERR_INIT;
	struct sigaction sa;
	struct server_opts opts = { .log = stdout, .stop = &stopping };
	struct client_ctx cc = { .commands = args->commands };
	struct replay_record rec = { 0 };
	struct wh *w;
	int rc = cli_session_open(&s, args, CLI_OPEN_WRITE, true);

	if (rc)
		return rc;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	opts.listen = args->listen ? args->listen : s.project->cfg.server.listen;
	opts.arena = s.arena;
	opts.root = s.root;
	cc.root = s.root;
	cc.served = s.project;
	rec.p = s.project;
	opts.on_full_build = replay_record_build;
	opts.record_ctx = &rec;
	opts.command = run_for_client;
	opts.command_ctx = &cc;
	/* the server owns the connection from here on */
	w = s.wh;
	s.wh = NULL;
	rc = server_run(s.project, w, &opts, &err);
	if (rc) {
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	cli_session_close(&s);
	return CLI_OK;
}
