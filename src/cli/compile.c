/*
 * `sluice compile MODEL`: print the SQL a build of the model would run,
 * placeholders filled and ephemerals inlined. Runs nothing.
 */
#include "cli/commands.h"

#include "core/buf.h"
#include "core/err.h"
#include "exec/compile.h"
#include "exec/maintain.h"
#include "exec/render.h"
#include "live/watermark.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "project/maintain.h"
#include "project/model.h"

#include <stdio.h>

/* What the hooks of a compile share: the session, and the watermark
 * bookkeeping opened at the first model that keeps watermarks. */
struct compile_session {
	struct cli_session *s;
	struct live_books books;
};

/* What a refresh of a maintained model runs, when the warehouse is there
 * to spell it. */
static int compile_refresh(void *ctx, const struct model *m, const struct render_ctx *rctx,
			   struct buf *sql, struct sl_err *err)
{
	struct compile_session *cs = ctx;
	struct cli_session *s = cs->s;
	int rc = s->wh ? 0 : cli_session_open_warehouse(s, CLI_OPEN_READ, err);

	buf_adds(sql, "\n\n");
	if (!rc && !s->wh) {
		buf_addf(sql, "-- %s is maintained: %s\n-- its refreshes show once the warehouse "
			      "is there (sluice run)",
			 m->fqn, maintain_describe(s->arena, m));
		return 0;
	}
	return rc ? rc : maintain_compile(s->wh, s->arena, m, rctx, sql, err);
}

/* The watermarks a build of m that keeps them reads: as a build from
 * scratch (full) or the next refresh would, from the warehouse's
 * bookkeeping (an adopted table's cursor a literal of its type); none
 * (every {watermark} 0) without a warehouse. */
static int book_ctx(void *ctx, const struct model *m, bool full, struct render_ctx *rctx,
		    struct sl_err *err)
{
	struct compile_session *cs = ctx;
	struct cli_session *s = cs->s;
	struct live_book book;
	int rc;

	if (!inputs_tracks(m))
		return 0;
	rc = s->wh ? 0 : cli_session_open_warehouse(s, CLI_OPEN_READ, err);
	if (!rc && s->wh && !cs->books.open)
		rc = live_books_open(&cs->books, s->arena, s->project, rctx->env, s->wh, err);
	if (rc || !cs->books.open)
		return rc;
	return live_book_open(s->wh, s->arena, cs->books.ledger, m, full, &book, rctx, err);
}

int cli_compile(struct cli_args *args)
{
	struct cli_session s;
	struct compile_session cs = { .s = &s };
	struct compile_hooks hooks = { .ctx = &cs, .book = book_ctx, .refresh = compile_refresh };
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
	m = dag_model_named(s.project, args->pos[0], &err);
	rc = m ? compile_model(s.arena, m, args->env ? args->env : "", &hooks, &sql, &err)
	       : SL_E_NOTFOUND;
	if (rc) {
		cli_print_err(&err);
		rc = CLI_FAILED;
	} else {
		printf("%s\n", sql.buf);
	}
	buf_release(&sql);
	live_books_close(&cs.books);
	cli_session_close(&s);
	return rc;
}
