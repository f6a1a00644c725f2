/*
 * `sluice files NAME [--once]`: one files source's lander in the
 * foreground, a look at its folder every interval until SIGINT or SIGTERM;
 * with --once, it lands what the folder holds and exits, after waiting
 * once for the files still being written to settle. Like `sluice kafka`,
 * the loop holds the warehouse only while it lands.
 */
#include "cli/commands.h"

#include "core/arena.h"
#include "core/err.h"
#include "files/lander.h"
#include "project/config.h"
#include "project/project.h"
#include "warehouse/wh.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t stopping;
static struct files_lander *running;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
	if (running)
		files_lander_cancel(running);
}

/* The look in progress, through the writer cli_land gives it. */
struct look {
	struct cli_session *s;
	struct files_lander *l;
	struct arena *a;
	struct files_result *res;
};

static int look_with(void *ctx, struct ingest_writer *wr, struct sl_err *err)
{
	struct look *lk = ctx;

	return files_land(lk->l, lk->a, lk->s->wh, wr, lk->res, err);
}

static int look_once(struct cli_session *s, struct files_lander *l, struct arena *a,
		     struct files_result *res, struct sl_err *err)
{
	struct look lk = { s, l, a, res };

	return cli_land(s, "files",
			"exiting so that it is reopened from what is on disk: the file may or "
			"may not have landed, and its ledger says which",
			look_with, &lk, err);
}

/* Each file's outcome a line, failures on stderr; waiting files only when
 * they are the last word (last: no look follows). */
static void report(struct arena *a, const char *name, const struct files_result *res,
		   bool last)
{
	for (size_t i = 0; i < res->n; i++) {
		const struct files_event *ev = &res->events[i];
		bool failed = ev->what == FILES_OUT_FAILED;

		if (ev->what == FILES_OUT_WAITING && !last)
			continue;
		fprintf(failed ? stderr : stdout, "%s%s\n", failed ? "sluice: " : "",
			files_event_text(a, name, ev));
		fflush(failed ? stderr : stdout);
	}
}

/* --once: a look, and one more when files waited, after the time every one
 * of them needs to settle if it stops changing: the first to settle is not
 * enough when they were dropped moments apart. */
static int once(struct cli_session *s, struct files_lander *l, const struct source_cfg *src)
{
	struct sl_err err = SL_ERR_INIT;
	struct files_result res;
	int64_t files = 0, rows = 0, failed = 0;
	int rc = 0;

	for (int round = 0; round < 2 && !rc && !stopping; round++) {
		struct arena *a = arena_new(s->arena);

		if (round)
			cli_nap(res.wait_all_ms, &stopping);
		rc = look_once(s, l, a, &res, &err);
		if (!rc) {
			report(a, src->name, &res, round == 1 || !res.waiting);
			files += res.files;
			rows += res.rows;
			failed += res.failed;
		}
		arena_free(a);
		if (!rc && !res.waiting)
			break;
	}
	if (rc) {
		fprintf(stderr, "sluice: files %s failed: %s\n", src->name, err.msg);
		return CLI_FAILED;
	}
	if (files)
		printf("files %s: %lld file%s landed, %lld row%s\n", src->name, (long long)files,
		       files == 1 ? "" : "s", (long long)rows, rows == 1 ? "" : "s");
	else if (!failed)
		printf("files %s: nothing new\n", src->name);
	return failed ? CLI_FAILED : CLI_OK;
}

/* Without --once: looks until stopped, the warehouse held only during
 * each. */
static int watch(struct cli_session *s, struct files_lander *l, const struct source_cfg *src)
{
	int last = 0;

	while (!stopping) {
		struct sl_err err = SL_ERR_INIT;
		struct arena *a;
		struct files_result res = { 0 };

		if (!s->wh && cli_session_connect(s, &err)) {
			/* another process holds the warehouse: look again soon */
			if (err.code != SL_E_LOCKED) {
				cli_print_err(&err);
				return CLI_FAILED;
			}
			cli_nap(200, &stopping);
			continue;
		}
		a = arena_new(s->arena);
		last = look_once(s, l, a, &res, &err);
		if (!last)
			report(a, src->name, &res, false);
		else if (!(stopping && last == SL_E_BUSY))
			fprintf(stderr, "sluice: files %s failed: %s\n", src->name, err.msg);
		fflush(stderr);
		arena_free(a);
		wh_close(s->wh);
		s->wh = NULL;
		cli_nap(res.waiting && res.wait_ms < src->interval_ms ? res.wait_ms : src->interval_ms,
			&stopping);
	}
	return last && last != SL_E_BUSY ? CLI_FAILED : CLI_OK;
}

int cli_files(struct cli_args *args)
{
	struct cli_session s;
	const struct source_cfg *src;
	struct sl_err err = SL_ERR_INIT;
	struct files_lander *l = NULL;
	struct sigaction sa;
	int rc;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice files NAME [--once]\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, args->once ? CLI_OPEN_WRITE : CLI_OPEN_NONE, true);
	if (rc)
		return rc;
	src = cli_find_source(&s.project->cfg, args->pos[0], "files",
			      "declare one under sources: with kind: files and a path");
	if (!src || files_lander_new(s.arena, src, s.root, &l, &err)) {
		if (src)
			cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	running = l;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = args->once ? once(&s, l, src) : watch(&s, l, src);
	running = NULL;
	files_lander_free(l);
	cli_session_close(&s);
	return rc;
}
