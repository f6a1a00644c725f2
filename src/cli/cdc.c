/*
 * `sluice cdc NAME [--once]`: the postgres_cdc consumer of NAME's slot in
 * the foreground, landing every source that shares the slot, until SIGINT
 * or SIGTERM (between transactions); with --once, until everything the
 * source database had written when it started has landed. It holds the
 * warehouse while it runs.
 */
#include "cli/commands.h"

#include "core/arena.h"
#include "core/err.h"
#include "ingest/pgcdc.h"
#include "live/advance.h"
#include "project/inputs.h"
#include "project/project.h"
#include "state/state.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static int by_landing(const void *a, const void *b)
{
	return strcmp(((const struct pgcdc_table *)a)->landing,
		      ((const struct pgcdc_table *)b)->landing);
}

/* The consumer's settings: every postgres_cdc source of src's slot. */
static int slot_cfg(struct arena *a, const struct project_cfg *cfg, const struct source_cfg *src,
		    struct pgcdc_cfg *out, struct sl_err *err)
{
	struct pgcdc_table *tables = arena_alloc(a, cfg->nsources * sizeof(*tables));
	const char *dsn = getenv(src->dsn_env);
	size_t n = 0;

	if (!dsn || !*dsn)
		return sl_err_set(err, SL_E_CONFIG,
				  "environment variable %s is not set (sources.%s.dsn_env names it)\n"
				  "  hint: export %s='host=... dbname=...', the source database's "
				  "connection string",
				  src->dsn_env, src->name, src->dsn_env);
	for (size_t i = 0; i < cfg->nsources; i++) {
		const struct source_cfg *s = &cfg->sources[i];
		char landing[256];

		if (!s->kind || strcmp(s->kind, "postgres_cdc") || strcmp(s->slot, src->slot))
			continue;
		inputs_source_table(s, landing, sizeof(landing));
		tables[n].source = s->table;
		tables[n++].landing = arena_strdup(a, landing);
	}
	qsort(tables, n, sizeof(*tables), by_landing);
	*out = (struct pgcdc_cfg){
		.slot = src->slot,
		.publication = src->publication,
		.dsn = dsn,
		.setting = arena_sprintf(a, "sources.%s", src->name),
		.create = src->create,
		.tables = tables,
		.ntables = n,
	};
	return 0;
}

int cli_cdc(struct cli_args *args)
{
	struct cli_session s;
	const struct source_cfg *src;
	struct sl_err err = SL_ERR_INIT;
	struct pgcdc_opts opts = { .once = args->once, .stop = &stopping };
	struct pgcdc_stats st = { 0 };
	struct pgcdc_cfg c;
	struct sigaction sa;
	int rc;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice cdc NAME [--once]\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_WRITE, true);
	if (rc)
		return rc;
	src = cli_find_source(&s.project->cfg, args->pos[0], "postgres_cdc",
			      "declare one under sources: with kind: postgres_cdc, dsn_env, slot "
			      "and publication");
	if (!src) {
		cli_session_close(&s);
		return CLI_FAILED;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = slot_cfg(s.arena, &s.project->cfg, src, &c, &err);
	if (!rc)
		rc = state_ensure(s.wh, &err);
	if (!rc)
		rc = live_sources_ensure(s.wh, s.project, &err);
	if (!rc)
		rc = pgcdc_run(s.wh, &c, &opts, &st, &err);
	if (!rc || st.txns)
		printf("slot %s: %lld transaction%s landed (%lld change%s), %lld skipped as landed "
		       "before; landed up to LSN %X/%X\n",
		       c.slot, (long long)st.txns, st.txns == 1 ? "" : "s", (long long)st.rows,
		       st.rows == 1 ? "" : "s", (long long)st.skipped,
		       (unsigned)(st.landed_lsn >> 32), (unsigned)st.landed_lsn);
	fflush(stdout);
	if (rc) {
		sl_err_context(&err, "in source %s (slot %s)", src->name, src->slot);
		cli_print_err(&err);
	}
	cli_session_close(&s);
	return rc ? CLI_FAILED : CLI_OK;
}
