/*
 * This file implements the compiled SQL of a model (compile.h). It runs
 * nothing; whatever it needs of the warehouse comes from the caller's
 * hooks.
 */
#include "exec/compile.h"

#include "core/buf.h"
#include "core/err.h"
#include "exec/render.h"
#include "project/maintain.h"
#include "project/model.h"
#include "windows/grid.h"

#include <string.h>

static int book(const struct compile_hooks *h, const struct model *m, bool full,
		struct render_ctx *ctx, struct sl_err *err)
{
	return h && h->book ? h->book(h->ctx, m, full, ctx, err) : 0;
}

int compile_model(struct arena *a, const struct model *m, const char *env,
		  const struct compile_hooks *h, struct buf *out, struct sl_err *err)
{
	char since[WIN_TIME_MAX], until[WIN_TIME_MAX];
	struct render_ctx ctx = { .env = env ? env : "" }, next;
	int rc;

	if (m->mat == MAT_SEED) {
		buf_addf(out, "-- %s is a seed loaded from %s", m->fqn, m->path);
		return 0;
	}
	/* a temporal model compiles for its first window */
	if (m->temporal) {
		win_time_format(m->start, since);
		win_time_format(win_add(m->grain, m->start, 1), until);
		ctx.since = since;
		ctx.until = until;
		buf_addf(out, "-- the first window: [%s, %s)\n", since, until);
	}
	next = ctx;
	rc = book(h, m, true, &ctx, err);
	if (!rc)
		rc = render_model(m, &ctx, false, out, err);
	if (!rc)
		rc = book(h, m, false, &next, err);
	if (!rc && m->maint && h && h->refresh) {
		rc = h->refresh(h->ctx, m, &next, out, err);
	} else if (!rc && m->maint) {
		buf_addf(out, "\n\n-- %s is maintained: %s\n-- `sluice compile %s` shows its refreshes",
			 m->fqn, maintain_describe(a, m), m->fqn);
	}
	if (!rc && m->filter) {
		buf_adds(out, "\n\n-- incremental runs read:\n");
		rc = render_model(m, &next, true, out, err);
	}
	return rc;
}
