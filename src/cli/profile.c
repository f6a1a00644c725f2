/*
 * `sluice profile MODEL`: the profiles of a model, newest first: when and
 * by what each was taken, its rows, whether its build kept its data, and
 * the anomalies it was judged to hold; then the columns of the newest one.
 * Or JSON, every profile with its columns. Reads only.
 */
#include "cli/commands.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "exec/anomaly.h"
#include "exec/profile_json.h"
#include "project/dag.h"
#include "project/model.h"
#include "state/profiles.h"
#include "state/state.h"
#include "warehouse/wh.h"
#include "windows/grid.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* How many profiles are listed unless --since or --until asks for a range. */
#define PROFILES_SHOWN 30

static void print_text(struct arena *a, const struct state_profile *ps, size_t n)
{
	printf("%-8s  %-19s  %-5s  %-10s  %12s  %-8s  %s\n", "profile", "taken_at", "kind", "by",
	       "rows", "status", "anomalies");
	for (size_t i = 0; i < n; i++) {
		const struct state_profile *p = &ps[i];
		char at[32], by[32] = "-";

		units_format_ts(p->taken_ms, at, sizeof(at));
		at[19] = '\0';
		if (p->run_id)
			snprintf(by, sizeof(by), "run %lld", (long long)p->run_id);
		else if (p->refresh_count >= 0)
			snprintf(by, sizeof(by), "refresh %lld", (long long)p->refresh_count);
		printf("%-8lld  %-19s  %-5s  %-10s  %12lld  %-8s  ", (long long)p->id, at,
		       state_profile_kind_name(p->kind), by, (long long)p->rows, profile_status(p));
		for (size_t k = 0; k < p->nanomalies; k++)
			printf("%s%s (%s)", k ? "; " : "", anomaly_describe(a, &p->anomalies[k]),
			       p->anomalies[k].error ? "error" : "warn");
		printf("\n");
	}
	if (!n) {
		printf("(no profiles)\n");
		return;
	}
	printf("\ncolumns of profile %lld:\n%-24s  %-20s  %10s  %9s  %10s  %s .. %s\n",
	       (long long)ps[0].id, "column", "type", "nulls", "null_rate", "distinct", "min", "max");
	for (size_t i = 0; i < ps[0].ncols; i++) {
		const struct state_profile_column *c = &ps[0].cols[i];
		char rate[32] = "-", distinct[32] = "-";

		if (ps[0].rows)
			snprintf(rate, sizeof(rate), "%.4g", (double)c->nulls / (double)ps[0].rows);
		if (c->distinct >= 0)
			snprintf(distinct, sizeof(distinct), "%lld", (long long)c->distinct);
		printf("%-24s  %-20s  %10lld  %9s  %10s  %s .. %s\n", c->name, c->type ? c->type : "-",
		       (long long)c->nulls, rate, distinct, c->min ? c->min : "NULL",
		       c->max ? c->max : "NULL");
	}
}

/* --since and --until as the range asked, in ms; a usage error names the
 * flag. */
static int range_of(const struct cli_args *args, struct state_profile_ask *ask)
{
	const char *bad = NULL;
	int64_t t;

	if (args->since && !win_time_parse(args->since, &t))
		ask->since_ms = t * 1000;
	else if (args->since)
		bad = "since";
	if (args->until && !win_time_parse(args->until, &t))
		ask->until_ms = t * 1000;
	else if (args->until)
		bad = "until";
	if (bad) {
		fprintf(stderr, "sluice profile: invalid --%s\n"
				"  hint: a UTC date or time such as 2026-01-01 or '2026-01-01 06:00'\n",
			bad);
		return CLI_USAGE;
	}
	ask->limit = args->since || args->until ? 0 : PROFILES_SHOWN;
	return CLI_OK;
}

int cli_profile(struct cli_args *args)
{
	struct cli_session s;
	struct sl_err err = SL_ERR_INIT;
	struct state_profile_ask ask = { .env = args->env ? args->env : "" };
	struct state_profile *ps = NULL;
	const struct model *m;
	size_t n = 0;
	int rc;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice profile MODEL [--since T] [--until T] [--env E] "
				"[--json]\n");
		return CLI_USAGE;
	}
	rc = range_of(args, &ask);
	if (rc)
		return rc;
	rc = cli_session_open(&s, args, CLI_OPEN_READ, true);
	if (rc)
		return rc;
	m = dag_model_named(s.project, args->pos[0], &err);
	rc = m ? 0 : SL_E_NOTFOUND;
	ask.model = m ? m->fqn : NULL;
	if (!rc && s.wh && dag_relation_exists(s.relations, s.nrelations, STATE_PROFILES_TABLE))
		rc = state_profiles_read(s.wh, s.arena, &ask, &ps, &n, &err);
	if (rc) {
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (args->json) {
		json_t *list = json_array();

		for (size_t i = 0; i < n; i++)
			json_array_append_new(list, profile_json(&ps[i]));
		json_dumpf(list, stdout, JSON_INDENT(2) | PROFILE_JSON_REALS);
		printf("\n");
		json_decref(list);
	} else {
		print_text(s.arena, ps, n);
	}
	cli_session_close(&s);
	return CLI_OK;
}
