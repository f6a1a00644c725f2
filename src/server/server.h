/*
 * `sluice serve`: one process, one warehouse. It owns the DuckDB file and
 * gives each part its own connection: the landing writer (every ingest
 * goes through its queue), one poller per poll source (each on a thread of
 * its own, landing through the writer), the live runner (every refresh,
 * pause, resume goes through its thread) and the HTTP front door, whose
 * reads use connections of their own and never wait for either.
 */
#ifndef SL_SERVER_SERVER_H
#define SL_SERVER_SERVER_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

struct arena;
struct buf;
struct model;
struct project;
struct sl_err;
struct wh;

/* A command a client asked the server to run (POST /api/commands/NAME):
 * its name ("run", "seed", "plan", "test"), its arguments as the client
 * gave them, the client's SLUICE_NOW and environment (either may be NULL),
 * and where its output and errors go. */
struct server_command {
	const char *name;
	char **argv;
	int argc;
	const char *now, *env;
	FILE *out, *err;
	struct arena *arena; /* the server's: the command's arena is its child */
};
/* Runs it as the command line would, on connection w, and returns its
 * exit code. The CLI's: the server knows no command. */
typedef int (*server_command_fn)(void *ctx, struct wh *w, const struct server_command *cmd);

struct server_opts {
	struct arena *arena; /* the command's: the server's arena is its child (may be NULL) */
	const char *listen;  /* "127.0.0.1:8080"; port 0 picks a free one */
	const char *root;    /* the project folder: the server file goes there */
	FILE *log;           /* a line per start, stop, failure */
	volatile sig_atomic_t *stop; /* set (by a signal handler) to stop */
	server_command_fn command; /* NULL: POST /api/commands/NAME is 404 */
	void *command_ctx;
	/* what the live runner's builds from scratch record beside their
	 * data (run_opts.on_full_build); may be NULL */
	int (*on_full_build)(void *ctx, struct wh *w, const struct model *m, const char *env,
			     int64_t run_id, struct buf *sql, struct sl_err *err);
	void *record_ctx;
};

/* Serves until *opts->stop is set, then stops accepting, commits every
 * accepted batch, lets the runner finish its refresh and returns 0. w is
 * the warehouse's first connection, which the server owns from now on. */
int server_run(struct project *p, struct wh *w, const struct server_opts *opts,
	       struct sl_err *err);

#endif
