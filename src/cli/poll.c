/*
 * `sluice poll NAME [--once]`: one poll source's poller in the foreground,
 * at its interval (backing off while it fails) until SIGINT or SIGTERM, or
 * one poll with --once. Like `sluice live`, the loop holds the warehouse
 * only while a poll lands, so other processes can use it in between.
 */
#include "cli/commands.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "ingest/poll.h"
#include "project/project.h"
#include "warehouse/wh.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stopping;
static struct poller *running;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
	if (running)
		poller_cancel(running);
}

/* The poll in progress, landed through the writer cli_land gives it. */
struct polling {
	struct cli_session *s;
	struct poller *p;
	struct poll_result *res;
};

static int poll_with(void *ctx, struct ingest_writer *wr, struct sl_err *err)
{
	struct polling *pl = ctx;

	return poller_poll(pl->p, pl->s->wh, wr, pl->res, err);
}

/* One poll on the open warehouse: a writer of its own for the landing. */
static int poll_once(struct cli_session *s, struct poller *p, struct poll_result *res,
		     struct sl_err *err)
{
	struct polling pl = { s, p, res };

	return cli_land(s, "poll",
			"exiting so that it is reopened from what is on disk: the page may or "
			"may not have landed, and the next poll finds out",
			poll_with, &pl, err);
}

static void report(const struct source_cfg *src, struct poller *p, int rc,
		   const struct poll_result *res, const struct sl_err *err, bool once)
{
	char wait[32];

	if (!rc) {
		if (res->rows)
			printf("polled %s: %lld row%s landed at sequence %lld", src->name,
			       (long long)res->rows, res->rows == 1 ? "" : "s", (long long)res->seq);
		else
			printf("polled %s: nothing new", src->name);
		if (res->cursor[0])
			printf(", cursor %s", res->cursor);
		printf("\n");
		fflush(stdout);
		return;
	}
	fprintf(stderr, "sluice: poll %s failed: %s\n", src->name, err->msg);
	if (!once && rc != SL_E_BUSY) {
		json_t *st = poller_status(p);

		units_format_duration(poller_wait_ms(p), wait, sizeof(wait));
		fprintf(stderr, "  next attempt in %s (%lld failure%s in a row)\n", wait,
			(long long)json_integer_value(json_object_get(st, "failures")),
			json_integer_value(json_object_get(st, "failures")) == 1 ? "" : "s");
		json_decref(st);
	}
	fflush(stderr);
}

int cli_poll(struct cli_args *args)
{
	struct cli_session s;
	const struct source_cfg *src;
	struct sl_err err = SL_ERR_INIT;
	struct poll_result res;
	struct poller *p = NULL;
	struct sigaction sa;
	int rc, last = 0;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice poll NAME [--once]\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, args->once ? CLI_OPEN_WRITE : CLI_OPEN_NONE, true);
	if (rc)
		return rc;
	src = cli_find_source(&s.project->cfg, args->pos[0], "poll",
			      "declare one under sources: with kind: poll and a url");
	if (!src || poller_new(s.arena, src, &p, &err)) {
		if (src)
			cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	running = p;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stopping) {
		if (!s.wh && cli_session_connect(&s, &err)) {
			/* another process holds the warehouse: look again soon */
			if (err.code != SL_E_LOCKED) {
				cli_print_err(&err);
				last = err.code;
				break;
			}
			sl_err_clear(&err);
			cli_nap(200, &stopping);
			continue;
		}
		sl_err_clear(&err);
		last = poll_once(&s, p, &res, &err);
		if (!(stopping && last == SL_E_BUSY))
			report(src, p, last, &res, &err, args->once);
		if (args->once)
			break;
		wh_close(s.wh);
		s.wh = NULL;
		cli_nap(poller_wait_ms(p), &stopping);
	}
	running = NULL;
	poller_free(p);
	cli_session_close(&s);
	/* a stop by signal while waiting is a clean end */
	return last && (args->once || !stopping) ? CLI_FAILED : CLI_OK;
}
