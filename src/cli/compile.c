/*
 * `sluice compile MODEL`: print the SQL a build of the model would run,
 * placeholders filled and ephemerals inlined. Runs nothing.
 */
#include "cli/commands.h"

#include "exec/maintain.h"
#include "exec/render.h"
#include "core/buf.h"
#include "core/err.h"
#include "project/dag.h"
#include "project/maintain.h"
#include "project/model.h"

#include "windows/grid.h"

#include <stdio.h>
#include <string.h>

/* What a refresh of a maintained model runs, when the warehouse is there
 * to spell it. */
static int compile_refresh(struct cli_session *s, const struct model *m,
			   const struct render_ctx *ctx, struct buf *sql, struct sl_err *err)
{
	int rc = cli_session_open_warehouse(s, CLI_OPEN_READ, err);

	buf_adds(sql, "\n\n");
	if (!rc && !s->wh) {
		buf_addf(sql, "-- %s is maintained: %s\n-- its refreshes show once the warehouse "
			      "is there (sluice run)",
			 m->fqn, maintain_describe(s->arena, m));
		return 0;
	}
	return rc ? rc : maintain_compile(s->wh, s->arena, m, ctx, sql, err);
}

int cli_compile(struct cli_args *args)
{
	char since[WIN_TIME_MAX], until[WIN_TIME_MAX];
	struct cli_session s;
	struct render_ctx ctx = { .env = "" };
	struct sl_err err = SL_ERR_INIT;
	struct buf sql = BUF_INIT;
	const struct model *m;
	int rc;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice compile MODEL\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_NONE, true);
	if (rc)
		return rc;
	ctx.env = args->env ? args->env : "";
	m = dag_model_named(s.project, args->pos[0], &err);
	if (!m) {
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (m->mat == MAT_SEED) {
		printf("-- %s is a seed loaded from %s\n", m->fqn, m->path);
		cli_session_close(&s);
		return CLI_OK;
	}
	/* a temporal model compiles for its first window */
	if (m->temporal) {
		win_time_format(m->start, since);
		win_time_format(win_add(m->grain, m->start, 1), until);
		ctx.since = since;
		ctx.until = until;
		printf("-- the first window: [%s, %s)\n", since, until);
	}
	rc = render_model(m, &ctx, false, &sql, &err);
	if (!rc && m->maint)
		rc = compile_refresh(&s, m, &ctx, &sql, &err);
	if (!rc && m->filter) {
		buf_adds(&sql, "\n\n-- incremental runs read:\n");
		rc = render_model(m, &ctx, true, &sql, &err);
	}
	if (rc) {
		cli_print_err(&err);
		rc = CLI_FAILED;
	} else {
		printf("%s\n", sql.buf);
	}
	buf_release(&sql);
	cli_session_close(&s);
	return rc;
}
