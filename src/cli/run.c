/*
 * `sluice run`, `sluice seed`, `sluice plan` and `sluice test`: one line per
 * model, a progress line on a terminal, the failures in detail, and a
 * summary; or JSON for machines.
 */
#include "cli/commands.h"

#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "exec/profile_json.h"
#include "exec/run.h"
#include "live/batch.h"
#include "project/dag.h"
#include "project/maintain.h"
#include "project/lineage_graph.h"
#include "project/model.h"
#include "replay/boundaries.h"
#include "replay/envpolicy.h"
#include "state/profiles.h"
#include "warehouse/wh.h"
#include "windows/grid.h"
#include "windows/schedule.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct printer {
	FILE *out;
	bool tty, json;
	const char *doing; /* for the progress line: "building", "checking" */
};

static void print_start(void *ctx, const struct run_item *item, size_t index, size_t total)
{
	struct printer *pr = ctx;

	if (!pr->tty || pr->json)
		return;
	fprintf(pr->out, "\r\033[K  %zu/%zu  %s %s ...", index, total, pr->doing, item->m->fqn);
	fflush(pr->out);
}

static void print_done(void *ctx, const struct run_item *item, size_t index, size_t total)
{
	struct printer *pr = ctx;
	static const char *const label[] = { "OK",   "WARN", "FAIL", "SKIP",
					     "SKIP", "PLAN", "HOLD", "WAIT" };
	char dur[32], rows[48] = "", action[48] = "";
	int width = total >= 100 ? 3 : total >= 10 ? 2 : 1;

	if (pr->json)
		return;
	if (pr->tty)
		fprintf(pr->out, "\r\033[K");
	units_format_duration(item->ms, dur, sizeof(dur));
	if (item->status == RUN_OK || item->status == RUN_WARN) {
		if (item->checks_only)
			snprintf(rows, sizeof(rows), "%zu check%s", item->nasserts,
				 item->nasserts == 1 ? "" : "s");
		else if (item->m->mat != MAT_VIEW)
			snprintf(rows, sizeof(rows), "%lld row%s", (long long)item->rows,
				 item->rows == 1 ? "" : "s");
		if (item->m->temporal && !item->checks_only)
			snprintf(action, sizeof(action), "%lld window%s", (long long)item->windows,
				 item->windows == 1 ? "" : "s");
		fprintf(pr->out, "  %*zu/%zu  %-4s  %-32s %-12s %-14s %12s  %s\n", width, index, total,
		       label[item->status], item->m->fqn, model_mat_name(item->m->mat),
		       *action ? action : item->action ? item->action : "", rows, dur);
	} else if (item->status == RUN_PLANNED) {
		fprintf(pr->out, "  %*zu/%zu  %-4s  %-32s %-12s %s (%s)%s%s%s%s\n", width, index, total,
		       "PLAN", item->m->fqn, model_mat_name(item->m->mat),
		       item->checks_only ? "check" : "build", item->reason,
		       item->waits ? ": " : "", item->waits ? item->waits : "",
		       item->m->maint ? ", maintained " : "",
		       item->m->maint ? ivm_class_name(item->m->maint->cls) : "");
	} else if (item->status == RUN_BLOCKED) {
		fprintf(pr->out, "  %*zu/%zu  %-4s  %-32s %-12s %s\n", width, index, total, "WAIT",
		       item->m->fqn, model_mat_name(item->m->mat),
		       item->waits ? item->waits : item->reason);
	} else if (item->status == RUN_FAILED) {
		fprintf(pr->out, "  %*zu/%zu  %-4s  %-32s %-12s %s\n", width, index, total, "FAIL",
		       item->m->fqn, model_mat_name(item->m->mat), "see below");
	} else {
		fprintf(pr->out, "  %*zu/%zu  %-4s  %-32s %-12s %s\n", width, index, total, "SKIP",
		       item->m->fqn, model_mat_name(item->m->mat), item->reason);
	}
	fflush(pr->out);
}

static void print_assert_details(FILE *out, const struct run_item *item)
{
	for (size_t i = 0; i < item->nasserts; i++) {
		const struct assert_result *ar = &item->asserts[i];

		if (!ar->failures)
			continue;
		fprintf(out, "  %s%s%s@assert %s%s%s (%s:%d): %lld failing row%s\n",
			item->checked_window ? item->checked_window : "",
			item->checked_window ? ": " : "", ar->check->warn ? "warn: " : "",
			ar->check->text,
			ar->model != item->m ? " of " : "", ar->model != item->m ? ar->model->fqn : "",
			ar->model->path, ar->check->line, (long long)ar->failures,
			ar->failures == 1 ? "" : "s");
		if (ar->sample)
			cli_print_table(out, ar->sample, "      ");
	}
}

static void print_indented(FILE *out, const char *text, const char *indent)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		fprintf(out, "%s%.*s\n", indent, (int)n, text);
		text += n + (text[n] == '\n');
	}
}

enum run_mode { MODE_RUN, MODE_SEED, MODE_PLAN, MODE_TEST };

static void print_summary(FILE *out, const struct run_report *rep, enum run_mode mode)
{
	char dur[32];
	bool header = false;

	for (size_t i = 0; i < rep->n; i++) {
		const struct run_item *item = &rep->items[i];

		if (item->replayed) {
			fprintf(out, "%sHISTORY %s: %s\n", header ? "" : "\n", item->m->fqn,
				item->replayed);
			header = true;
		}
		if (item->waits && item->status != RUN_BLOCKED) {
			fprintf(out, "%sWAITING %s: %s\n", header ? "" : "\n", item->m->fqn, item->waits);
			header = true;
		}
		if (item->status != RUN_FAILED && item->status != RUN_WARN)
			continue;
		if (!header) {
			fprintf(out, "\n");
			header = true;
		}
		fprintf(out, "%s %s (%s)\n", item->status == RUN_FAILED ? "FAILED" : "WARNING",
		       item->m->fqn, item->m->path);
		/* after a window's checks, how many windows failed */
		if (item->nasserts && strstr(item->message ? item->message : "", "@assert")) {
			print_assert_details(out, item);
			if (strchr(item->message, '\n'))
				print_indented(out, strchr(item->message, '\n') + 1, "  ");
		} else if (item->message)
			print_indented(out, item->message, "  ");
		if (item->status == RUN_FAILED && item->had_previous)
			fprintf(out, "  the previous version of %s stays in place\n", item->m->fqn);
	}
	units_format_duration(rep->ms, dur, sizeof(dur));
	if (mode == MODE_PLAN) {
		fprintf(out, "\nPlanned in %s: %zu to build", dur, rep->planned - rep->checked);
		if (rep->checked)
			fprintf(out, ", %zu to check", rep->checked);
		fprintf(out, ", %zu up to date", rep->skipped);
		if (rep->waiting)
			fprintf(out, ", %zu waiting", rep->waiting);
		fprintf(out, "\n");
		return;
	}
	if (mode == MODE_TEST) {
		fprintf(out, "\nDone in %s: %zu passed", dur, rep->ok + rep->warned);
		if (rep->warned)
			fprintf(out, " (%zu with warnings)", rep->warned);
		fprintf(out, ", %zu failed, %zu not built\n", rep->failed, rep->skipped);
		return;
	}
	fprintf(out, "\nDone in %s: %zu built", dur, rep->ok + rep->warned - rep->checked);
	if (rep->warned)
		fprintf(out, " (%zu with warnings)", rep->warned);
	if (rep->checked)
		fprintf(out, ", %zu checked", rep->checked);
	fprintf(out, ", %zu failed, %zu skipped", rep->failed, rep->skipped);
	if (rep->waiting)
		fprintf(out, ", %zu waiting", rep->waiting);
	fprintf(out, "\n");
}

/* Whether the item has a row count: a view holds no rows of its own, a
 * check writes none, and a model not built wrote nothing. */
static bool wrote_rows(const struct run_item *item)
{
	return (item->status == RUN_OK || item->status == RUN_WARN) && !item->checks_only &&
	       item->m->mat != MAT_VIEW && item->m->mat != MAT_EPHEMERAL;
}

/* The anomalies of the item's profile, under "anomalies" when it found
 * some: a model without any reads as it did before profiles judged. */
static void add_anomalies(json_t *o, const struct run_item *item)
{
	json_t *list;

	if (!item->profile || !item->profile->nanomalies)
		return;
	list = json_array();
	for (size_t i = 0; i < item->profile->nanomalies; i++)
		json_array_append_new(list, profile_anomaly_json(&item->profile->anomalies[i]));
	json_object_set_new(o, "anomalies", list);
}

static void print_json(FILE *out, const struct run_report *rep)
{
	json_t *root = json_object(), *models = json_array();
	size_t built = 0;

	json_object_set_new(root, "run_id", json_integer(rep->run_id));
	json_object_set_new(root, "duration_ms", json_integer(rep->ms));
	for (size_t i = 0; i < rep->n; i++) {
		const struct run_item *item = &rep->items[i];
		json_t *o = json_object(), *checks = json_array();

		built += item->status == RUN_OK && !item->checks_only;
		json_object_set_new(o, "model", json_string(item->m->fqn));
		json_object_set_new(o, "path", json_string(item->m->path));
		json_object_set_new(o, "materialized",
				    json_string(model_mat_name(item->m->mat)));
		json_object_set_new(o, "status", json_string(run_status_name(item->status)));
		json_object_set_new(o, "action", item->action ? json_string(item->action)
							       : json_null());
		json_object_set_new(o, "reason", item->reason ? json_string(item->reason)
							       : json_null());
		json_object_set_new(o, "rows", wrote_rows(item) ? json_integer(item->rows)
							      : json_null());
		json_object_set_new(o, "duration_ms", json_integer(item->ms));
		if (item->m->temporal) {
			json_object_set_new(o, "windows", json_integer(item->windows));
			json_object_set_new(o, "windows_blocked", json_integer(item->blocked));
			json_object_set_new(o, "windows_failed", json_integer(item->failed_windows));
			json_object_set_new(o, "waits", item->waits ? json_string(item->waits)
								   : json_null());
		}
		json_object_set_new(o, "message", item->message ? json_string(item->message)
								 : json_null());
		if (item->replayed)
			json_object_set_new(o, "history", json_string(item->replayed));
		for (size_t k = 0; k < item->nasserts; k++) {
			json_t *c = json_object();

			json_object_set_new(c, "model", json_string(item->asserts[k].model->fqn));
			json_object_set_new(c, "check", json_string(item->asserts[k].check->text));
			json_object_set_new(c, "severity", json_string(item->asserts[k].check->warn
									       ? "warn"
									       : "error"));
			json_object_set_new(c, "failures", json_integer(item->asserts[k].failures));
			json_array_append_new(checks, c);
		}
		json_object_set_new(o, "assertions", checks);
		add_anomalies(o, item);
		json_array_append_new(models, o);
	}
	json_object_set_new(root, "models", models);
	json_object_set_new(root, "built", json_integer((json_int_t)built));
	json_object_set_new(root, "checked", json_integer((json_int_t)rep->checked));
	json_object_set_new(root, "failed", json_integer((json_int_t)rep->failed));
	json_object_set_new(root, "warned", json_integer((json_int_t)rep->warned));
	json_object_set_new(root, "skipped", json_integer((json_int_t)rep->skipped));
	json_object_set_new(root, "planned", json_integer((json_int_t)rep->planned));
	json_object_set_new(root, "waiting", json_integer((json_int_t)rep->waiting));
	json_dumpf(root, out, JSON_INDENT(2) | PROFILE_JSON_REALS);
	fprintf(out, "\n");
	json_decref(root);
}

/* --since, --until, --mode and --chunk as the run's window ask; a usage
 * error names the flag. */
static int window_ask(const struct cli_args *args, const char *cmd, struct win_ask *ask)
{
	int64_t ms;
	int mode;

	*ask = (struct win_ask){ .mode = WIN_DISCOVER };
	if (!args->since != !args->until) {
		fprintf(stderr, "sluice %s: --since and --until go together\n"
				"  hint: e.g. --since 2026-01-01 --until 2026-02-01\n", cmd);
		return CLI_USAGE;
	}
	if (args->since) {
		bool bad_since = win_time_parse(args->since, &ask->since) != 0;

		if (bad_since || win_time_parse(args->until, &ask->until) != 0) {
			fprintf(stderr, "sluice %s: invalid --%s '%s'\n"
					"  hint: a UTC date or time such as 2026-01-01 or '2026-01-01 06:00'\n",
				cmd, bad_since ? "since" : "until", bad_since ? args->since : args->until);
			return CLI_USAGE;
		}
		if (ask->until <= ask->since) {
			fprintf(stderr, "sluice %s: --until '%s' is not after --since '%s'\n", cmd,
				args->until, args->since);
			return CLI_USAGE;
		}
		ask->ranged = true;
		ask->mode = WIN_BULLDOZER;
	}
	if (args->mode) {
		mode = win_mode_parse(args->mode);
		if (mode < 0) {
			fprintf(stderr, "sluice %s: invalid --mode '%s'\n"
					"  hint: discover, bulldozer or torch\n", cmd, args->mode);
			return CLI_USAGE;
		}
		ask->mode = (enum win_mode)mode;
	}
	if (ask->mode == WIN_BULLDOZER && !ask->ranged) {
		fprintf(stderr, "sluice %s: --mode bulldozer builds a run window again: give --since "
				"and --until\n"
				"  hint: --mode torch rebuilds everything\n", cmd);
		return CLI_USAGE;
	}
	if (args->chunk) {
		if (units_parse_duration(args->chunk, &ms) || ms < 1000 || ms % 1000) {
			fprintf(stderr, "sluice %s: invalid --chunk '%s'\n"
					"  hint: a duration of whole seconds such as 6h or 2d\n", cmd,
				args->chunk);
			return CLI_USAGE;
		}
		ask->chunk = ms / 1000;
	}
	return CLI_OK;
}

/* --chunk slices flexible models; a fixed model's grain is its identity. */
static void warn_chunk_ignored(const struct cli_session *s, const struct cli_args *args)
{
	bool *picked = xcalloc(s->project->nmodels + 1, sizeof(bool));

	if (args->chunk && dag_select(s->project, args->select, picked, NULL) == 0)
		for (size_t i = 0; i < s->project->nmodels; i++)
			if (picked[i] && s->project->models[i]->temporal && !s->project->models[i]->flex)
				fprintf(s->err,
					"warning: --chunk is ignored on fixed model '%s': its windows are its "
					"grain (%s)\n  hint: change a fixed model's grain with --mode torch\n",
					s->project->models[i]->fqn,
					win_grain_name(s->project->models[i]->grain));
	free(picked);
}

/* How many windows of a temporal model build at once: more than the
 * warehouse serves at once only queue. */
#define WORKERS_MAX 64

/* --workers N as the run's workers; a usage error says the range. */
static int workers_of(const struct cli_args *args, const char *cmd, size_t *out)
{
	char *end;
	long n;

	*out = 1;
	if (!args->workers)
		return CLI_OK;
	n = strtol(args->workers, &end, 10);
	if (end == args->workers || *end || n < 1 || n > WORKERS_MAX) {
		fprintf(stderr, "sluice %s: invalid --workers '%s'\n"
				"  hint: a whole number from 1 to %d\n", cmd, args->workers, WORKERS_MAX);
		return CLI_USAGE;
	}
	*out = (size_t)n;
	return CLI_OK;
}

/* Whether a model, or some windows of one, waited for its upstreams. */
static bool waited(const struct run_report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		if (rep->items[i].status == RUN_BLOCKED || rep->items[i].blocked)
			return true;
	return false;
}

static int run_common(struct cli_args *args, enum run_mode mode)
{
	static const char *const names[] = { "run", "seed", "plan", "test" };
	struct cli_session s;
	struct printer pr = { .out = args->out ? args->out : stdout,
			      .tty = !args->out && isatty(STDOUT_FILENO),
			      .json = args->json,
			      .doing = mode == MODE_TEST ? "checking" : "building" };
	struct run_opts opts = {
		.selector = args->select,
		.full_refresh = args->full_refresh,
		.seeds_only = mode == MODE_SEED,
		.dry_run = mode == MODE_PLAN,
		.test = mode == MODE_TEST,
		.env = args->env ? args->env : "",
		.on_start = print_start,
		.on_done = print_done,
		.ctx = &pr,
	};
	struct run_report rep;
	struct replay_record rec = { 0 };
	struct env_policy policy = { .full_refresh = args->full_refresh };
	struct lineage_graph g;
	struct sl_err err = SL_ERR_INIT;
	char start[ISOTIME_MAX];
	bool reads = mode == MODE_PLAN || mode == MODE_TEST;
	int rc = window_ask(args, names[mode], &opts.windows);

	if (!rc && args->start_time && !args->env) {
		fprintf(stderr, "sluice %s: --start-time bounds what an environment replays\n"
				"  hint: give --env E, or replay the main tables with sluice replay\n",
			names[mode]);
		rc = CLI_USAGE;
	}
	if (!rc)
		rc = cli_start_time(names[mode], args->start_time, start, stderr);
	if (!rc)
		rc = workers_of(args, names[mode], &opts.workers);
	if (rc)
		return rc;
	opts.windows.now = cli_window_clock_at(names[mode], args->now, args->err ? args->err : stderr);
	if (opts.windows.now < 0)
		return CLI_USAGE;
	/* while `sluice serve` holds the warehouse, it runs the command */
	if (cli_forward(args, &rc))
		return rc;
	rc = cli_session_open(&s, args, reads ? CLI_OPEN_READ : CLI_OPEN_WRITE, true);
	if (rc)
		return rc;
	warn_chunk_ignored(&s, args);
	/* a build from scratch records what it read of its sources, for the
	 * replays after it */
	rec.p = s.project;
	if (mode == MODE_RUN) {
		opts.on_full_build = replay_record_build;
		opts.record_ctx = &rec;
	}
	/* an environment's models that keep watermarks replay their history
	 * by the change policy */
	if (mode == MODE_RUN && args->env) {
		lineage_graph_build(s.arena, s.project, s.parser, cli_warehouse_columns, &s, &g);
		policy.a = s.arena;
		policy.p = s.project;
		policy.g = &g;
		policy.env = args->env;
		policy.start = args->start_time ? start : NULL;
		policy.now_ms = opts.windows.now * 1000;
		opts.scratch = env_policy_scratch;
		opts.scratch_ctx = &policy;
	}
	if (!pr.json)
		fprintf(pr.out, "sluice %s · project %s · warehouse %s%s%s\n", names[mode],
			s.project->cfg.name, s.warehouse_path, args->env ? " · env " : "",
			args->env ? args->env : "");
	opts.alerts_out = pr.json ? s.err : pr.out;
	rc = live_batch_run(s.arena, s.project, s.wh, s.relations, s.nrelations, &opts, &rep,
			    &err);
	if (rc && s.wh && (err.code == SL_E_SUSPECT || wh_suspect(s.wh, &err)))
		sl_exit_suspect(names[mode], "stopped, leaving it as it is: the model it was building "
					      "is there whole or not at all, those built before stay",
				 &err);
	if (rc) {
		cli_print_err_to(s.err, &err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (pr.json)
		print_json(pr.out, &rep);
	else
		print_summary(pr.out, &rep, mode);
	rc = rep.failed ? CLI_FAILED : args->fail_on_wait && waited(&rep) ? CLI_WAITED : CLI_OK;
	run_report_free(&rep);
	cli_session_close(&s);
	return rc;
}

int cli_run(struct cli_args *args)
{
	return run_common(args, MODE_RUN);
}

int cli_plan(struct cli_args *args)
{
	return run_common(args, MODE_PLAN);
}

int cli_test(struct cli_args *args)
{
	return run_common(args, MODE_TEST);
}

int cli_seed(struct cli_args *args)
{
	return run_common(args, MODE_SEED);
}
