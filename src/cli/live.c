/*
 * `sluice live`: the live runner in the foreground (a status table that
 * redraws on a terminal, plain lines otherwise), `--once` for one cycle,
 * and the subcommands that look at and steer it: status, advance, pause,
 * resume. The foreground runner holds the warehouse only while a cycle
 * runs, so other processes can land and announce rows in between; it
 * re-reads the sources every live.poll_interval.
 */
#include "cli/commands.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "live/advance.h"
#include "live/runner.h"
#include "live/status.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "project/model.h"
#include "replay/boundaries.h"
#include "server/client.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* While `sluice serve` runs for the project it owns the warehouse: the
 * commands that look at and steer live models ask it instead, and print
 * the same either way. */
static bool served(const struct cli_session *s, int *port)
{
	return server_find(s->root, port);
}

/* One request to the server; an error answer is printed as the command's
 * error. */
static int ask(const struct cli_session *s, int port, const char *method, const char *path,
	       json_t **doc)
{
	const char *env = s->project->cfg.server.token_env;
	struct sl_err err = SL_ERR_INIT;
	int status;

	if (server_request(port, method, path, env ? getenv(env) : NULL, &status, doc, &err)) {
		cli_print_err(&err);
		return CLI_FAILED;
	}
	if (status >= 300 || !*doc) {
		const char *detail = json_string_value(json_object_get(*doc, "detail"));

		fprintf(stderr, "sluice: the server answered %d%s%s\n", status, detail ? ": " : "",
			detail ? detail : "");
		json_decref(*doc);
		*doc = NULL;
		return CLI_FAILED;
	}
	return CLI_OK;
}

static int finish(struct cli_session *s, int rc, const struct sl_err *err)
{
	if (rc && err)
		cli_print_err(err);
	cli_session_close(s);
	return rc ? CLI_FAILED : CLI_OK;
}

static int live_status(struct cli_args *args)
{
	struct cli_session s;
	struct sl_err err = SL_ERR_INIT;
	json_t *doc = NULL;
	int port, rc = cli_session_open(&s, args, CLI_OPEN_NONE, true);

	if (rc)
		return rc;
	if (served(&s, &port)) {
		if (ask(&s, port, "GET", "/api/live/status", &doc))
			return finish(&s, CLI_FAILED, NULL);
	} else {
		rc = cli_session_open_warehouse(&s, CLI_OPEN_READ, &err);
		if (!rc)
			rc = live_status_doc(s.arena, s.project, s.wh, &doc, &err);
		if (rc)
			return finish(&s, rc, &err);
	}
	if (args->json) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		printf("\n");
	} else {
		live_status_print(doc, stdout);
	}
	json_decref(doc);
	return finish(&s, 0, NULL);
}

static int live_advance(struct cli_args *args)
{
	struct cli_session s;
	struct live_advance adv = { 0 };
	struct sl_err err = SL_ERR_INIT;
	json_t *doc = NULL;
	int port, rc;

	if (args->npos != 2) {
		fprintf(stderr, "usage: sluice live advance SOURCE\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_NONE, false);
	if (rc)
		return rc;
	if (served(&s, &port)) {
		const char *path = arena_sprintf(s.arena, "/api/live/sources/%s/advance", args->pos[1]);

		if (ask(&s, port, "POST", path, &doc))
			return finish(&s, CLI_FAILED, NULL);
		adv.seq = json_integer_value(json_object_get(doc, "seq"));
		adv.rows = json_integer_value(json_object_get(doc, "rows"));
		snprintf(adv.cursor, sizeof(adv.cursor), "%s",
			 json_string_value(json_object_get(doc, "cursor"))
				 ? json_string_value(json_object_get(doc, "cursor"))
				 : "");
		json_decref(doc);
	} else {
		char fqn[256];

		/* the project is not validated (an advance needs its settings
		 * only), but the references must be resolved for the landing
		 * tables that live models read through views to count */
		dag_build(s.project, NULL, 0);
		rc = live_advance_target(s.arena, s.project, args->pos[1], fqn, sizeof(fqn), &err);
		if (!rc)
			rc = cli_session_open_warehouse(&s, CLI_OPEN_WRITE, &err);
		if (!rc)
			rc = live_sources_ensure(s.wh, s.arena, s.project, &err);
		if (!rc)
			rc = live_advance_any(s.wh, s.arena, s.project, fqn, &adv, &err);
		if (rc)
			return finish(&s, rc, &err);
	}
	if (adv.cursor[0])
		printf("followed %s: its highest cursor is %s\n", args->pos[1], adv.cursor);
	else if (adv.rows)
		printf("advanced %s: %lld row%s at sequence %lld\n", args->pos[1],
		       (long long)adv.rows, adv.rows == 1 ? "" : "s", (long long)adv.seq);
	else
		printf("nothing new in %s\n", args->pos[1]);
	return finish(&s, 0, NULL);
}

static int live_pause(struct cli_args *args, bool pause)
{
	struct cli_session s;
	struct sl_err err = SL_ERR_INIT;
	const struct model *m;
	json_t *doc = NULL;
	int port, rc;

	if (args->npos != 2) {
		fprintf(stderr, "usage: sluice live %s MODEL\n", pause ? "pause" : "resume");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_NONE, true);
	if (rc)
		return rc;
	m = dag_model_named(s.project, args->pos[1], &err);
	if (!m) {
		cli_print_err(&err);
		return finish(&s, CLI_FAILED, NULL);
	}
	if (!inputs_refreshes(m)) {
		fprintf(stderr, "sluice: '%s' is not a live model\n", m->fqn);
		return finish(&s, CLI_FAILED, NULL);
	}
	if (served(&s, &port)) {
		const char *path = arena_sprintf(s.arena, "/api/live/models/%s/%s", m->fqn,
						 pause ? "pause" : "resume");

		if (ask(&s, port, "POST", path, &doc))
			return finish(&s, CLI_FAILED, NULL);
		json_decref(doc);
	} else {
		struct buf sql = BUF_INIT;

		live_pause_sql(&sql, m->fqn, pause);
		rc = cli_session_open_warehouse(&s, CLI_OPEN_WRITE, &err);
		if (!rc)
			rc = state_ensure(s.wh, &err);
		if (!rc)
			rc = wh_exec(s.wh, sql.buf, &err);
		buf_release(&sql);
		if (rc)
			return finish(&s, rc, &err);
	}
	printf("%s %s\n", pause ? "paused" : "resumed", m->fqn);
	return finish(&s, 0, NULL);
}

/* Sleeps in short steps so a signal ends the wait at once. */
static void nap(int64_t ms)
{
	while (ms > 0 && !stopping) {
		struct timespec ts = { 0, (ms > 100 ? 100 : ms) * 1000000L };

		nanosleep(&ts, NULL);
		ms -= 100;
	}
}

static void redraw(struct cli_session *s, bool tty)
{
	json_t *doc;

	if (!tty || live_status_doc(s->arena, s->project, s->wh, &doc, NULL))
		return;
	printf("\033[H\033[J");
	live_status_print(doc, stdout);
	json_decref(doc);
	printf("\nsluice live · %s · polling every %lldms · Ctrl-C stops\n", s->project->cfg.name,
	       (long long)s->project->cfg.live.poll_interval_ms);
	fflush(stdout);
}

/* Names, comma-separated, the first few of them: a start line stays a
 * line however large the project. */
static void print_names(const char *const *names, size_t n)
{
	enum { SHOWN = 8 };

	for (size_t i = 0; i < n && i < SHOWN; i++)
		printf("%s%s", i ? ", " : "", names[i]);
	if (n > SHOWN)
		printf(" and %zu more", n - SHOWN);
	printf("\n");
}

/* Says that the runner started and what it follows: the live models it
 * refreshes, the landing tables they read (through views and other live
 * models too), how often it looks. */
static void print_start(struct cli_session *s)
{
	const struct project *p = s->project;
	const char **models = arena_alloc(s->arena, (p->nmodels + 1) * sizeof(char *));
	const char **inputs = NULL;
	size_t nmodels = 0, ninputs = 0, cap = 0;
	char every[32];

	for (size_t i = 0; i < p->nmodels; i++) {
		struct model_inputs in;

		if (!inputs_refreshes(p->models[i]))
			continue;
		models[nmodels++] = p->models[i]->fqn;
		inputs_find(s->arena, p->models[i], &in);
		for (size_t k = 0; k < in.nsources; k++) {
			size_t j = 0;

			while (j < ninputs && strcmp(inputs[j], in.sources[k]) != 0)
				j++;
			if (j == ninputs)
				*ARENA_PUSH(s->arena, &inputs, &ninputs, &cap) = in.sources[k];
		}
	}
	units_format_duration(p->cfg.live.poll_interval_ms, every, sizeof(every));
	printf("sluice live: started for project %s, looking for new rows every %s (Ctrl-C "
	       "stops)\n",
	       p->cfg.name, every);
	if (!nmodels) {
		printf("  no live models: set live=true in a model's @config to keep it current\n");
		return;
	}
	printf("  %zu live model%s: ", nmodels, nmodels == 1 ? "" : "s");
	print_names(models, nmodels);
	if (ninputs) {
		printf("  following %zu landing table%s: ", ninputs, ninputs == 1 ? "" : "s");
		print_names(inputs, ninputs);
	}
}

/* What the runner kept unwritten and the last aggregated run-log rows,
 * written on the way out; the warehouse
 * may have to be opened again, waiting a little for another writer. */
static int flush_on_exit(struct cli_session *s, struct live_runner *runner, struct sl_err *err)
{
	int rc;

	for (int i = 0; !s->wh && i < 100; i++) {
		if (cli_session_connect(s, err) == 0)
			break;
		if (err->code != SL_E_LOCKED)
			return err->code;
		sl_err_clear(err);
		nanosleep(&(struct timespec){ 0, 50000000L }, NULL);
	}
	if (!s->wh)
		return sl_err_set(err, SL_E_LOCKED, "could not write the live run log: the "
						  "warehouse stayed locked");
	rc = live_runner_release(runner, s->wh, err);
	return rc ? rc : live_runner_flush_log(runner, s->wh, true, err);
}

static int live_loop(struct cli_args *args)
{
	struct cli_session s;
	struct live_runner *runner;
	struct live_cycle c;
	struct replay_record rec = { 0 };
	struct sl_err err = SL_ERR_INIT;
	bool tty = isatty(STDOUT_FILENO) && !args->once;
	/* the warehouse is opened by the loop, which waits while another
	 * process holds it */
	int rc = cli_session_open(&s, args, CLI_OPEN_NONE, true);

	if (rc)
		return rc;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	runner = live_runner_new(s.arena, s.project, tty ? NULL : stdout);
	rec.p = s.project;
	live_runner_on_full_build(runner, replay_record_build, &rec);
	if (!args->once) {
		live_runner_share(runner);
		print_start(&s);
		fflush(stdout);
	}
	while (!stopping) {
		bool moved = true;

		if (!s.wh && cli_session_connect(&s, &err)) {
			/* another process is landing rows: look again soon */
			if (err.code != SL_E_LOCKED)
				break;
			sl_err_clear(&err);
			nap(args->once ? 50 : s.project->cfg.live.poll_interval_ms);
			continue;
		}
		rc = live_runner_sources_moved(runner, s.wh, &moved, &err);
		if (!rc)
			rc = live_runner_cycle(runner, s.wh, &c, &err);
		if (rc)
			break;
		fflush(stdout);
		if (args->once)
			break;
		redraw(&s, tty);
		/* between cycles a DuckDB file is free for other writers; a
		 * shared warehouse is not held, and the runner keeps its claims */
		if (wh_shared(s.wh)) {
			nap(c.due ? s.project->cfg.live.min_interval_ms
				     : live_runner_poll_ms(runner, s.wh));
			continue;
		}
		rc = live_runner_release(runner, s.wh, &err);
		if (rc)
			break;
		wh_close(s.wh);
		s.wh = NULL;
		nap(c.due ? s.project->cfg.live.min_interval_ms
			     : s.project->cfg.live.poll_interval_ms);
	}
	if (!rc && err.code)
		rc = err.code;
	if (!rc)
		rc = flush_on_exit(&s, runner, &err);
	if (rc && s.wh && (err.code == SL_E_SUSPECT || wh_suspect(s.wh, &err)))
		sl_exit_suspect("live", "exiting so that it is reopened from what is on disk: the "
					 "refresh that failed is there whole or not at all, those "
					 "before stay",
				 &err);
	live_runner_free(runner);
	if (rc) {
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	cli_session_close(&s);
	if (args->once) {
		printf("%zu refreshed, %zu failed, %zu held, %zu behind\n", c.refreshed, c.failed,
		       c.held, c.behind);
		return c.failed || c.behind ? CLI_FAILED : CLI_OK;
	}
	return CLI_OK;
}

int cli_live(struct cli_args *args)
{
	const char *sub = args->npos ? args->pos[0] : NULL;

	if (!sub)
		return live_loop(args);
	if (strcmp(sub, "status") == 0)
		return live_status(args);
	if (strcmp(sub, "advance") == 0)
		return live_advance(args);
	if (strcmp(sub, "pause") == 0)
		return live_pause(args, true);
	if (strcmp(sub, "resume") == 0)
		return live_pause(args, false);
	fprintf(stderr,
		"sluice live: unknown subcommand '%s'\n"
		"  usage: sluice live [--once] | status | advance SOURCE | pause MODEL | resume MODEL\n",
		sub);
	return CLI_USAGE;
}
