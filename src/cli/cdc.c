/*
 * `sluice cdc NAME [--once] [--resnapshot]`: the postgres_cdc consumer of
 * NAME's slot in the foreground, landing every source that shares the
 * slot, until SIGINT or SIGTERM (between transactions); with --once, until
 * everything the source database had written when it started has landed;
 * with --resnapshot, from a new slot and its snapshot. It holds the
 * warehouse while it runs.
 */
#include "cli/commands.h"

#include "core/arena.h"
#include "core/err.h"
#include "ingest/pgcdc.h"
#include "live/advance.h"
#include "project/project.h"
#include "state/state.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

int cli_cdc(struct cli_args *args)
{
	struct cli_session s;
	const struct source_cfg *src;
	struct sl_err err = SL_ERR_INIT;
	struct pgcdc_opts opts = { .once = args->once, .stop = &stopping,
				   .resnapshot = args->resnapshot };
	struct pgcdc_stats st = { .snapshot_rows = -1 };
	struct pgcdc_cfg c;
	struct sigaction sa;
	int rc;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice cdc NAME [--once] [--resnapshot]\n");
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
	rc = pgcdc_cfg_of(s.arena, &s.project->cfg, src, &c, &err);
	if (!rc)
		rc = state_ensure(s.wh, &err);
	if (!rc)
		rc = live_sources_ensure(s.wh, s.project, &err);
	if (!rc)
		rc = pgcdc_run(s.wh, &c, &opts, &st, &err);
	if (st.snapshot_rows >= 0)
		printf("slot %s: initial snapshot landed, %lld row%s\n", c.slot,
		       (long long)st.snapshot_rows, st.snapshot_rows == 1 ? "" : "s");
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
