/*
 * `sluice check`: freshness. A live model is fresh while its lag stays
 * within live.max_lag, however long ago it last refreshed; a batch model is
 * fresh when a run would not rebuild it. Exit 1 when anything is stale.
 */
#include "cli/commands.h"

#include "core/err.h"
#include "core/units.h"
#include "exec/run.h"
#include "live/ledger.h"
#include "live/watermark.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "project/model.h"

#include <jansson.h>
#include <string.h>

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
	bool have_live;

	if (rc) {
		json_decref(arr);
		return rc;
	}
	have_live = s.wh && dag_relation_exists(s.relations, s.nrelations, "_sluice.live_state");
	if (have_live) {
		ledger = live_ledger_new(s.project);
		rc = live_ledger_load(ledger, s.wh, &err);
		live_books_over(&books, s.project, ledger);
		opts.book = live_books_hooks(&books);
	}
	if (!rc)
		rc = build_run(s.arena, s.project, s.wh, s.relations, s.nrelations, &opts, &rep,
			       &err);
	for (size_t i = 0; !rc && i < rep.n; i++) {
		const struct run_item *item = &rep.items[i];
		const struct model *m = item->m;
		const char *verdict = "fresh", *why = NULL;
		char detail[96];
		int64_t lag = 0;

		if (inputs_refreshes(m) && have_live) {
			char d[32];

			lag = live_ledger_lag_ms(ledger, m, units_now_ms());
			units_format_duration(lag, d, sizeof(d));
			snprintf(detail, sizeof(detail), "lag %s", d);
			why = detail;
			if (lag > s.project->cfg.live.max_lag_ms)
				verdict = "stale";
		} else if (item->status == RUN_PLANNED) {
			verdict = "stale";
			why = item->reason;
		} else {
			why = "up to date";
		}
		stale += strcmp(verdict, "stale") == 0;
		if (arr) {
			json_t *o = json_object();

			json_object_set_new(o, "model", json_string(m->fqn));
			json_object_set_new(o, "verdict", json_string(verdict));
			json_object_set_new(o, "detail", json_string(why));
			json_array_append_new(arr, o);
		} else {
			printf("%-32s %-6s %s\n", m->fqn, verdict, why);
		}
	}
	live_books_close(&books);
	live_ledger_free(ledger);
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
		printf("\n%zu stale, %zu fresh\n", stale, rep.n - stale);
	}
	run_report_free(&rep);
	cli_session_close(&s);
	return stale ? CLI_FAILED : CLI_OK;
}
