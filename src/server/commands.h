/*
 * POST /api/commands/NAME: a client's `sluice run`, `seed`, `plan` or
 * `test`, run by the server that holds the warehouse, one at a time on
 * the control queue and on the live runner's thread between its cycles
 * (on a connection of its own when the runner is off), so that it never
 * races a refresh. The answer is {"exit": N, "stdout": TEXT, "stderr":
 * TEXT}: what the command line would have printed, once it has ended.
 */
#ifndef SL_SERVER_COMMANDS_H
#define SL_SERVER_COMMANDS_H

#include "live/thread.h"

struct arena;
struct http_call;
struct worker_queue;
struct server_opts;
struct sl_err;

/* The most arguments, the longest one, and the output kept of each stream
 * (the rest is cut, and the cut said). */
#define COMMAND_MAX_ARGS 64
#define COMMAND_MAX_ARG 4096
#define COMMAND_MAX_OUTPUT (4 * 1024 * 1024)

/* Runs fn with the connection commands use, where they may write without
 * racing the runner; the server's. */
typedef int (*server_on_warehouse_fn)(void *ctx, live_job_fn fn, void *arg, struct sl_err *err);

/* Takes the call (the HTTP thread): a bad request is answered at once, a
 * good one queued on queue, whose thread runs it through on_warehouse and
 * answers. The command's arena is a child of a (the server's). */
void server_command_answer(struct http_call *c, const char *name, struct arena *a,
			   const struct server_opts *opts, struct worker_queue *queue,
			   server_on_warehouse_fn on_warehouse, void *ctx);

#endif
