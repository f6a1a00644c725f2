/*
 * `sluice serve`: the long-running process a team deploys. SIGTERM or
 * SIGINT stops it cleanly: accepted batches commit and are answered, the
 * runner finishes its refresh, exit 0.
 */
#include "cli/commands.h"

#include "core/err.h"
#include "project/project.h"
#include "server/server.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

int cli_serve(struct cli_args *args)
{
	struct cli_session s;
	struct sl_err err = SL_ERR_INIT;
	struct sigaction sa;
	struct server_opts opts = { .log = stdout, .stop = &stopping };
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
	opts.root = s.root;
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
