/*
 * `sluice compile MODEL`: print the SQL a build of the model would run,
 * placeholders filled and ephemerals inlined. Runs nothing.
 */
#include "cli/commands.h"

#include "exec/maintain.h"
#include "exec/render.h"
#include "core/buf.h"
#include "core/err.h"
#include "live/watermark.h"
#include "project/dag.h"
#include "project/inputs.h"
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
	int rc = s->wh ? 0 : cli_session_open_warehouse(s, CLI_OPEN_READ, err);

	buf_adds(sql, "\n\n");
	if (!rc && !s->wh) {
		buf_addf(sql, "-- %s is maintained: %s\n-- its refreshes show once the warehouse "
			      "is there (sluice run)",
			 m->fqn, maintain_describe(s->arena, m));
		return 0;
	}
	return rc ? rc : maintain_compile(s->wh, s->arena, m, ctx, sql, err);
}

/* The watermarks a build of m that keeps them reads: as a build from
 * scratch (full) or the next refresh would, from the warehouse's
 * bookkeeping (an adopted table's cursor a literal of its type); none
 * (every {watermark} 0) without a warehouse. */
static int book_ctx(struct cli_session *s, struct live_books *books, const struct model *m,
		    bool full, struct render_ctx *ctx, struct sl_err *err)
{
	struct live_book book;
	int rc;

	if (!inputs_tracks(m))
		return 0;
	rc = s->wh ? 0 : cli_session_open_warehouse(s, CLI_OPEN_READ, err);
	if (!rc && s->wh && !books->open)
		rc = live_books_open(books, s->arena, s->project, ctx->env, s->wh, err);
	if (rc || !books->open)
		return rc;
	return live_book_open(s->wh, s->arena, books->ledger, m, full, &book, ctx, err);
}

int cli_compile(struct cli_args *args)
{
	char since[WIN_TIME_MAX], until[WIN_TIME_MAX];
	struct cli_session s;
	struct render_ctx ctx = { .env = "" }, next;
	struct live_books books = { 0 };
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
	next = ctx;
	rc = book_ctx(&s, &books, m, true, &ctx, &err);
	if (!rc)
		rc = render_model(m, &ctx, false, &sql, &err);
	if (!rc)
		rc = book_ctx(&s, &books, m, false, &next, &err);
	if (!rc && m->maint)
		rc = compile_refresh(&s, m, &next, &sql, &err);
	if (!rc && m->filter) {
		buf_adds(&sql, "\n\n-- incremental runs read:\n");
		rc = render_model(m, &next, true, &sql, &err);
	}
	if (rc) {
		cli_print_err(&err);
		rc = CLI_FAILED;
	} else {
		printf("%s\n", sql.buf);
	}
	buf_release(&sql);
	live_books_close(&books);
	cli_session_close(&s);
	return rc;
}
