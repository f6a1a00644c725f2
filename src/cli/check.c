/*
 * `sluice check`: freshness. A live model is judged by the live status
 * document, so check and `live status` never disagree: failing (with its
 * error) while its last refresh failed, else fresh while its lag stays
 * within live.max_lag, however long ago it last refreshed. A batch model is
 * fresh when a run would not rebuild it. Exit 1 when anything is stale or
 * failing.
 */
#include "cli/commands.h"

#include "core/err.h"
#include "core/units.h"
#include "exec/run.h"
#include "live/ledger.h"
#include "live/status.h"
#include "live/watermark.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "project/model.h"
#include "state/state.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* The status document's entry for fqn, or NULL. */
static const json_t *live_entry(const json_t *doc, const char *fqn)
{
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(doc, "models"), i, o)
		if (strcmp(json_string_value(json_object_get(o, "model")), fqn) == 0)
			return o;
	return NULL;
}

/* A live model's verdict from its status entry o; detail says why. */
static const char *live_verdict(const json_t *o, int64_t max_lag_ms, char *detail, size_t len)
{
	int64_t lag = json_integer_value(json_object_get(o, "lag_ms"));
	const char *error = json_string_value(json_object_get(o, "last_error"));
	char d[32];

	units_format_duration(lag, d, sizeof(d));
	if (strcmp(json_string_value(json_object_get(o, "state")), "failing") == 0) {
		/* its first line: a hint below it would break the table */
		error = error ? error : "failed";
		snprintf(detail, len, "lag %s: %.*s", d, (int)strcspn(error, "\n"), error);
		return "failing";
	}
	snprintf(detail, len, "lag %s", d);
	return lag > max_lag_ms ? "stale" : "fresh";
}

int cli_check(struct cli_args *args)
{
	struct cli_session s;
	struct run_opts opts = { .env = "", .dry_run = true };
	struct run_report rep;
	struct sl_err err = SL_ERR_INIT;
	json_t *arr = args->json ? json_array() : NULL;
	size_t stale = 0;
	int rc = cli_session_open(&s, args, CLI_OPEN_READ, true);
	struct live_ledger *ledger = NULL;
	struct live_books books = { 0 };
	json_t *live = NULL;
	size_t failing = 0;

	if (rc) {
		json_decref(arr);
		return rc;
	}
	if (s.wh && dag_relation_exists(s.relations, s.nrelations, STATE_LIVE_TABLE)) {
		ledger = live_ledger_new(s.arena, s.project);
		rc = live_ledger_load(ledger, s.wh, &err);
		live_books_over(&books, s.project, ledger);
		opts.book = live_books_hooks(&books);
		if (!rc)
			rc = live_status_doc(s.arena, s.project, s.wh, &live, &err);
	}
	if (!rc)
		rc = build_run(s.arena, s.project, s.wh, s.relations, s.nrelations, &opts, &rep,
			       &err);
	for (size_t i = 0; !rc && i < rep.n; i++) {
		const struct run_item *item = &rep.items[i];
		const struct model *m = item->m;
		const json_t *o = live && inputs_refreshes(m) ? live_entry(live, m->fqn) : NULL;
		const char *verdict = "fresh", *why = NULL;
		char detail[512];

		if (o) {
			verdict = live_verdict(o, s.project->cfg.live.max_lag_ms, detail,
					       sizeof(detail));
			why = detail;
		} else if (item->status == RUN_PLANNED) {
			verdict = "stale";
			why = item->reason;
		} else {
			why = "up to date";
		}
		stale += strcmp(verdict, "stale") == 0;
		failing += strcmp(verdict, "failing") == 0;
		if (arr) {
			json_t *v = json_object();

			json_object_set_new(v, "model", json_string(m->fqn));
			json_object_set_new(v, "verdict", json_string(verdict));
			json_object_set_new(v, "detail", json_string(why));
			json_array_append_new(arr, v);
		} else {
			printf("%-32s %-6s %s\n", m->fqn, verdict, why);
		}
	}
	live_books_close(&books);
	live_ledger_free(ledger);
	json_decref(live);
	if (rc) {
		cli_print_err(&err);
		json_decref(arr);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (arr) {
		json_dumpf(arr, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(arr);
	} else {
		printf("\n");
		if (failing)
			printf("%zu failing, ", failing);
		printf("%zu stale, %zu fresh\n", stale, rep.n - stale - failing);
	}
	run_report_free(&rep);
	cli_session_close(&s);
	return stale || failing ? CLI_FAILED : CLI_OK;
}
