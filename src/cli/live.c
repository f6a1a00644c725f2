/*
 * `sluice live`: the live runner in the foreground (a status table that
 * redraws on a terminal, plain lines otherwise), `--once` for one cycle,
 * and the subcommands that look at and steer it: status, advance, pause,
 * resume. The foreground runner holds the warehouse only while a cycle
 * runs, so other processes can land and announce rows in between; it
 * re-reads the sources every live.poll_interval.
 */
#include "cli/commands.h"

#include "build/state.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "live/advance.h"
#include "live/inputs.h"
#include "live/ledger.h"
#include "live/runner.h"
#include "project/dag.h"
#include "project/model.h"
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

static const char *warehouse_path(const struct cli_session *s)
{
	const char *path = s->project->cfg.warehouse.path;

	return path[0] == '/' ? path : arena_sprintf(s->arena, "%s/%s", s->root, path);
}

struct model_status {
	const struct model *m;
	const char *state, *last_refresh, *last_error;
	int64_t lag_ms, refreshes, events, retry_in_ms;
	double events_per_s;
};

/* Each live model's state as the warehouse records it. */
static int collect_status(struct cli_session *s, struct model_status **out, size_t *n,
			  struct sl_err *err)
{
	struct project *p = s->project;
	struct model_status *st = arena_alloc(s->arena, (p->nmodels + 1) * sizeof(*st));
	bool have_state = dag_relation_exists(s->relations, s->nrelations, "_sluice.live_state");
	struct live_ledger *ledger = NULL;
	int64_t now = units_now_ms();
	int rc = 0;

	*n = 0;
	for (size_t i = 0; i < p->nmodels && !rc; i++) {
		const struct model *m = p->models[i];
		struct model_status *ms;
		struct wh_result *r = NULL;
		struct buf sql = BUF_INIT;

		if (!live_model_refreshes(m))
			continue;
		ms = &st[(*n)++];
		ms->m = m;
		ms->state = "new";
		if (!have_state || !s->wh)
			continue;
		buf_adds(&sql, "SELECT status, paused, refresh_count, events, events_per_s, "
			       "strftime(last_refresh_at, '%Y-%m-%d %H:%M:%S'), last_error, "
			       "coalesce(epoch_ms(next_retry_at), 0) FROM _sluice.live_state WHERE "
			       "model = ");
		buf_add_sql_str(&sql, m->fqn);
		rc = wh_query(s->wh, sql.buf, &r, err);
		buf_release(&sql);
		if (!rc && wh_result_nrows(r)) {
			const char *v;

			ms->state = strcmp(wh_result_value(r, 0, 1), "true") == 0
					    ? "paused"
					    : arena_strdup(s->arena, wh_result_value(r, 0, 0));
			ms->refreshes = strtoll(wh_result_value(r, 0, 2), NULL, 10);
			ms->events = strtoll(wh_result_value(r, 0, 3), NULL, 10);
			ms->events_per_s = strtod(wh_result_value(r, 0, 4), NULL);
			v = wh_result_value(r, 0, 5);
			ms->last_refresh = v ? arena_strdup(s->arena, v) : NULL;
			v = wh_result_value(r, 0, 6);
			ms->last_error = v ? arena_strdup(s->arena, v) : NULL;
			ms->retry_in_ms = strtoll(wh_result_value(r, 0, 7), NULL, 10);
			ms->retry_in_ms = ms->retry_in_ms > now ? ms->retry_in_ms - now : 0;
		}
		wh_result_free(r);
		if (!rc && !ledger) {
			ledger = live_ledger_new(p);
			rc = live_ledger_load(ledger, s->wh, err);
		}
		if (!rc)
			ms->lag_ms = live_ledger_lag_ms(ledger, m, now);
		if (!rc && strcmp(ms->state, "live") == 0 &&
		    (live_ledger_behind(ledger, m) || ms->lag_ms > 0)) {
			struct live_inputs in;

			ms->state = "behind";
			live_inputs_find(s->arena, m, &in);
			for (size_t k = 0; k < in.n; k++)
				for (size_t j = 0; j < *n; j++)
					if (st[j].m == in.items[k].model &&
					    strcmp(st[j].state, "failing") == 0)
						ms->state = "waiting";
		}
	}
	live_ledger_free(ledger);
	*out = st;
	return rc;
}

static void print_status_text(struct cli_session *s, const struct model_status *st, size_t n)
{
	struct wh_result *r = NULL;

	printf("%-32s %-8s %9s %9s %-19s %9s  %s\n", "MODEL", "STATE", "LAG", "EVENTS/S",
	       "LAST REFRESH", "REFRESHES", "LAST ERROR");
	for (size_t i = 0; i < n; i++) {
		char lag[32], retry[48] = "";

		units_format_duration(st[i].lag_ms, lag, sizeof(lag));
		if (st[i].retry_in_ms && strcmp(st[i].state, "failing") == 0) {
			char d[32];

			units_format_duration(st[i].retry_in_ms, d, sizeof(d));
			snprintf(retry, sizeof(retry), " (retry in %s)", d);
		}
		printf("%-32s %-8s %9s %9.1f %-19s %9lld  %s%s\n", st[i].m->fqn, st[i].state, lag,
		       st[i].events_per_s, st[i].last_refresh ? st[i].last_refresh : "-",
		       (long long)st[i].refreshes, st[i].last_error ? st[i].last_error : "", retry);
	}
	if (!s->wh || !dag_relation_exists(s->relations, s->nrelations, "_sluice.live_sources"))
		return;
	if (wh_query(s->wh,
		     "SELECT source, watermark, rows, strftime(advanced_at, '%Y-%m-%d %H:%M:%S') "
		     "FROM _sluice.live_sources ORDER BY source",
		     &r, NULL) == 0) {
		printf("\n%-32s %9s %9s  %s\n", "SOURCE", "WATERMARK", "ROWS", "LAST ADVANCE");
		for (size_t i = 0; i < wh_result_nrows(r); i++)
			printf("%-32s %9s %9s  %s\n", wh_result_value(r, i, 0),
			       wh_result_value(r, i, 1), wh_result_value(r, i, 2),
			       wh_result_value(r, i, 3));
	}
	wh_result_free(r);
}

static void print_status_json(struct cli_session *s, const struct model_status *st, size_t n)
{
	json_t *root = json_object(), *models = json_array(), *sources = json_array();
	struct wh_result *r = NULL;

	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "model", json_string(st[i].m->fqn));
		json_object_set_new(o, "state", json_string(st[i].state));
		json_object_set_new(o, "lag_ms", json_integer(st[i].lag_ms));
		json_object_set_new(o, "events_per_s", json_real(st[i].events_per_s));
		json_object_set_new(o, "last_refresh", st[i].last_refresh
							       ? json_string(st[i].last_refresh)
							       : json_null());
		json_object_set_new(o, "refreshes", json_integer(st[i].refreshes));
		json_object_set_new(o, "events", json_integer(st[i].events));
		json_object_set_new(o, "last_error", st[i].last_error ? json_string(st[i].last_error)
								       : json_null());
		json_object_set_new(o, "retry_in_ms", json_integer(st[i].retry_in_ms));
		json_array_append_new(models, o);
	}
	if (s->wh && dag_relation_exists(s->relations, s->nrelations, "_sluice.live_sources") &&
	    wh_query(s->wh, "SELECT source, watermark, rows FROM _sluice.live_sources ORDER BY 1",
		     &r, NULL) == 0) {
		for (size_t i = 0; i < wh_result_nrows(r); i++) {
			json_t *o = json_object();

			json_object_set_new(o, "source", json_string(wh_result_value(r, i, 0)));
			json_object_set_new(o, "watermark",
					    json_integer(strtoll(wh_result_value(r, i, 1), NULL, 10)));
			json_object_set_new(o, "rows",
					    json_integer(strtoll(wh_result_value(r, i, 2), NULL, 10)));
			json_array_append_new(sources, o);
		}
	}
	wh_result_free(r);
	json_object_set_new(root, "models", models);
	json_object_set_new(root, "sources", sources);
	json_dumpf(root, stdout, JSON_INDENT(2));
	printf("\n");
	json_decref(root);
}

static int live_status(struct cli_args *args)
{
	struct cli_session s;
	struct model_status *st;
	struct sl_err err = SL_ERR_INIT;
	size_t n;
	int rc = cli_session_open(&s, args, CLI_OPEN_READ, true);

	if (rc)
		return rc;
	rc = collect_status(&s, &st, &n, &err);
	if (rc) {
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (args->json)
		print_status_json(&s, st, n);
	else
		print_status_text(&s, st, n);
	cli_session_close(&s);
	return CLI_OK;
}

static int live_advance(struct cli_args *args)
{
	struct cli_session s;
	struct live_advance adv;
	struct sl_err err = SL_ERR_INIT;
	int rc;

	if (args->npos != 2) {
		fprintf(stderr, "usage: sluice live advance SOURCE\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_WRITE, false);
	if (rc)
		return rc;
	rc = live_sources_ensure(s.wh, s.project, &err);
	if (!rc)
		rc = live_advance_source(s.wh, args->pos[1], &adv, &err);
	if (rc) {
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (adv.rows)
		printf("advanced %s: %lld row%s at sequence %lld\n", args->pos[1],
		       (long long)adv.rows, adv.rows == 1 ? "" : "s", (long long)adv.seq);
	else
		printf("nothing new in %s\n", args->pos[1]);
	cli_session_close(&s);
	return CLI_OK;
}

static int live_pause(struct cli_args *args, bool pause)
{
	struct cli_session s;
	struct sl_err err = SL_ERR_INIT;
	struct buf sql = BUF_INIT;
	const struct model *m;
	char now[32];
	int rc;

	if (args->npos != 2) {
		fprintf(stderr, "usage: sluice live %s MODEL\n", pause ? "pause" : "resume");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_WRITE, true);
	if (rc)
		return rc;
	m = project_find_model(s.project, args->pos[1]);
	if (!m || !live_model_refreshes(m)) {
		fprintf(stderr, "sluice: '%s' is not a live model\n", args->pos[1]);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	state_format_ts(units_now_ms(), now, sizeof(now));
	/* resuming also skips what is left of a failure's backoff */
	buf_adds(&sql, "INSERT INTO _sluice.live_state VALUES (");
	buf_add_sql_str(&sql, m->fqn);
	buf_addf(&sql,
		 ", 0, 0, 0, 0, 0, 'live', %s, 0, NULL, NULL, NULL) ON CONFLICT (model) DO UPDATE "
		 "SET paused = excluded.paused%s;\n",
		 pause ? "true" : "false", pause ? "" : ", next_retry_at = NULL");
	buf_adds(&sql, "INSERT INTO _sluice.run_log VALUES (NULL, ");
	buf_add_sql_str(&sql, m->fqn);
	buf_addf(&sql, ", '', 'live', '%s', '%s', '%s', 0, 0, NULL)", pause ? "paused" : "resumed",
		 now, now);
	rc = state_ensure(s.wh, &err);
	if (!rc)
		rc = wh_exec(s.wh, sql.buf, &err);
	buf_release(&sql);
	if (rc) {
		cli_print_err(&err);
		rc = CLI_FAILED;
	} else {
		printf("%s %s\n", pause ? "paused" : "resumed", m->fqn);
	}
	cli_session_close(&s);
	return rc;
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
	struct model_status *st;
	size_t n;

	if (!tty)
		return;
	if (wh_relation_list(s->wh, s->arena, &s->relations, &s->nrelations, NULL) ||
	    collect_status(s, &st, &n, NULL))
		return;
	printf("\033[H\033[J");
	print_status_text(s, st, n);
	printf("\nsluice live · %s · polling every %lldms · Ctrl-C stops\n", s->project->cfg.name,
	       (long long)s->project->cfg.live.poll_interval_ms);
	fflush(stdout);
}

/* What the runner kept unwritten and the last aggregated run-log rows,
 * written on the way out; the warehouse
 * may have to be opened again, waiting a little for another writer. */
static int flush_on_exit(struct cli_session *s, struct live_runner *runner, struct sl_err *err)
{
	for (int i = 0; !s->wh && i < 100; i++) {
		if (wh_open_duckdb(warehouse_path(s), false, &s->wh, err) == 0)
			break;
		if (err->code != SL_E_LOCKED)
			return err->code;
		sl_err_clear(err);
		nanosleep(&(struct timespec){ 0, 50000000L }, NULL);
	}
	if (!s->wh)
		return sl_err_set(err, SL_E_LOCKED, "could not write the live run log: the "
						  "warehouse stayed locked");
	return live_runner_release(runner, s->wh, err) ||
	       live_runner_flush_log(runner, s->wh, true, err);
}

static int live_loop(struct cli_args *args)
{
	struct cli_session s;
	struct live_runner *runner;
	struct live_cycle c;
	struct sl_err err = SL_ERR_INIT;
	bool tty = isatty(STDOUT_FILENO) && !args->once;
	/* the warehouse is opened by the loop, which waits while another
	 * process holds it */
	int rc = cli_session_open(&s, args, CLI_OPEN_NONE, true);

	if (rc)
		return rc;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	runner = live_runner_new(s.project, tty ? NULL : stdout);
	while (!stopping) {
		bool moved = true;

		if (!s.wh && wh_open_duckdb(warehouse_path(&s), false, &s.wh, &err)) {
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
		/* between cycles the warehouse is free for other writers */
		rc = live_runner_release(runner, s.wh, &err);
		if (rc)
			break;
		redraw(&s, tty);
		wh_close(s.wh);
		s.wh = NULL;
		nap(c.behind ? s.project->cfg.live.min_interval_ms
			     : s.project->cfg.live.poll_interval_ms);
	}
	if (!rc && err.code)
		rc = err.code;
	if (!rc)
		rc = flush_on_exit(&s, runner, &err);
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
