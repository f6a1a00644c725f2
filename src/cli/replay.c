/*
 * `sluice replay SELECTOR [--start-time T] [--dry-run]`: the direct
 * replay (src/replay/) of the selected models and every model that reads
 * them, from the history their sources keep; run by `sluice serve` when
 * it holds the warehouse. This file parses, prints and exits; the replay
 * decides everything.
 */
#include "cli/cli.h"
#include "cli/commands.h"

#include "core/arena.h"
#include "core/err.h"
#include "ingest/isotime.h"
#include "project/lineage_graph.h"
#include "project/project.h"
#include "replay/replay.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <string.h>

/* Whether text ends with a UTC offset (Z, +HH[:MM], -HH[:MM]) after its
 * time: a start time written without one would mean the reader's zone. */
static void print_closure(FILE *out, const struct project *p, const struct replay_closure *c,
			  const char *start)
{
	fprintf(out, "rebuilds %zu model%s:\n", c->nrebuild, c->nrebuild == 1 ? "" : "s");
	for (size_t i = 0; i < p->nmodels; i++)
		if (c->rebuild[i])
			fprintf(out, "  %-28s %s\n", p->models[i]->fqn, c->why[i]);
	fprintf(out, "reads history from:\n");
	for (size_t i = 0; i < c->nanchors; i++) {
		const struct replay_anchor *an = &c->anchors[i];

		fprintf(out, "  %-28s %s", an->relation,
			an->model ? "model, anchor of source" : an->source ? "source" : "landing table");
		if (an->source)
			fprintf(out, " %s", an->source->name);
		if (start && an->time)
			fprintf(out, ", from %s on (%s)", start, an->time);
		fputc('\n', out);
	}
	if (!c->nanchors)
		fprintf(out, "  (no source: the models are built from what they read)\n");
}

/* A server's live runner refreshes its models as they were when it
 * started: a replay of a model edited since would hand over to a runner
 * that refuses the new definition. */
static int served_as_on_disk(const struct cli_args *args, const struct project *p,
			     const struct replay_closure *c, struct sl_err *err)
{
	for (size_t i = 0; args->served && i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		const struct model *was = project_find_model(args->served, m->fqn);

		if (c->rebuild[i] && (!was || strcmp(was->recorded_hash, m->recorded_hash) != 0))
			return sl_err_set(err, SL_E_USAGE,
					  "sluice serve runs %s as it was when it started, and its "
					  "file has changed since\n  hint: restart sluice serve to "
					  "take the change in (its consumers go on from where they "
					  "stopped), then replay",
					  m->fqn);
	}
	return 0;
}

static void on_done(void *ctx, const struct run_item *item, size_t index, size_t total)
{
	FILE *out = ctx;

	fprintf(out, "  [%zu/%zu] %-28s %s", index, total, item->m->fqn,
		item->status == RUN_FAILED ? "failed" : item->action ? item->action : run_status_name(item->status));
	if (item->status != RUN_FAILED && item->action)
		fprintf(out, " · %lld rows", (long long)item->rows);
	fputc('\n', out);
	fflush(out);
}

static const struct run_item *failed_item(const struct run_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->items[i].status == RUN_FAILED)
			return &r->items[i];
	return NULL;
}

int cli_replay(struct cli_args *args)
{
	FILE *out = args->out ? args->out : stdout, *errf = args->err ? args->err : stderr;
	char start[ISOTIME_MAX];
	struct cli_session s;
	struct lineage_graph g;
	struct replay_opts o = { .on_done = on_done, .ctx = out };
	struct replay_closure c;
	struct run_report rep;
	struct sl_err err = SL_ERR_INIT;
	const struct run_item *bad;
	int rc;

	if (args->npos != 1) {
		fprintf(errf, "sluice replay: name the models to replay\n"
			      "  usage: sluice replay SELECTOR [--start-time T] [--dry-run]\n");
		return CLI_USAGE;
	}
	rc = cli_start_time("replay", args->start_time, start, errf);
	if (rc)
		return rc;
	o.start = args->start_time ? start : NULL;
	/* while `sluice serve` holds the warehouse, it runs the replay, or
	 * says what one would do */
	if (cli_forward(args, &rc))
		return rc;
	rc = cli_session_open(&s, args, args->dry_run ? CLI_OPEN_READ : CLI_OPEN_WRITE, true);
	if (rc)
		return rc;
	fprintf(out, "sluice replay · project %s · warehouse %s%s%s\n", s.project->cfg.name,
		s.warehouse_path, o.start ? " · from " : "", o.start ? o.start : "");
	lineage_graph_build(s.arena, s.project, s.parser, cli_warehouse_columns, &s, &g);
	rc = replay_closure_make(s.arena, s.project, &g, args->pos[0], o.start, &c, &err);
	if (!rc)
		print_closure(out, s.project, &c, o.start);
	if (!rc && !args->dry_run)
		rc = served_as_on_disk(args, s.project, &c, &err);
	if (!rc && !args->dry_run)
		rc = replay_run(s.arena, s.project, s.wh, s.relations, s.nrelations, &c, &o, &rep,
				&err);
	if (rc && s.wh && (err.code == SL_E_SUSPECT || wh_suspect(s.wh, &err)))
		sl_exit_suspect("replay", "stopped: the models are as they were or all rebuilt, "
					  "never a mix",
				&err);
	if (rc) {
		fflush(out);
		cli_print_err_to(s.err, &err);
		cli_session_close(&s);
		return err.code == SL_E_USAGE ? CLI_USAGE : CLI_FAILED;
	}
	if (args->dry_run) {
		cli_session_close(&s);
		return CLI_OK;
	}
	bad = failed_item(&rep);
	fflush(out);
	if (bad)
		fprintf(errf, "sluice replay: %s failed: %s\n  nothing changed: every rebuild "
			      "was undone\n",
			bad->m->fqn, bad->message ? bad->message : "?");
	else
		fprintf(out, "done: %zu model%s rebuilt in one transaction (run %lld)\n", rep.n,
			rep.n == 1 ? "" : "s", (long long)rep.run_id);
	run_report_free(&rep);
	cli_session_close(&s);
	return bad ? CLI_FAILED : CLI_OK;
}
