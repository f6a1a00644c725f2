/*
 * The builds and refreshes of maintained models (project/maintain.h): the
 * model's own query, edited to run over the rows of its input that changed
 * since the last refresh, applied in the class its plan gives. Everything
 * runs in the caller's transaction.
 */
#ifndef SL_EXEC_MAINTAIN_H
#define SL_EXEC_MAINTAIN_H

#include "exec/render.h"
#include "project/model.h"

#include <stdint.h>

struct arena;
struct buf;
struct changes;
struct sl_err;
struct wh;

/* Appends the query a build of m from scratch runs: its own, over the
 * rows of its input that have a sequence (a landing table's rows not
 * announced yet are left to the refresh that finds them announced); for a
 * counted model whose groups table maintain_build_state just made, its
 * rows finished from those groups. */
int maintain_render_full(struct wh *w, const struct model *m, const struct render_ctx *ctx,
			 struct buf *out, struct sl_err *err);

/* After m was built from scratch: its groups table made anew from its
 * whole input when its plan counts, dropped when not. */
int maintain_build_state(struct wh *w, struct arena *a, const struct model *m,
			 const struct render_ctx *ctx, struct sl_err *err);

/* One refresh of m, its table there: the changes of its input above its
 * watermark in ctx, applied in m's class (or by the whole query, past the
 * crossover); log, when not NULL, records the rows it replaces and writes.
 * *rows: the rows it rewrote; *how: what it did ("counted", "regrouped",
 * "appended", "recomputed"). */
int maintain_refresh(struct wh *w, struct arena *a, const struct model *m,
		     const struct render_ctx *ctx, const struct changes *log, int64_t *rows,
		     const char **how, struct sl_err *err);

/* Appends what a refresh of m runs, its class first, running none of it
 * (w answers what the catalog knows and spells the dialect). */
int maintain_compile(struct wh *w, struct arena *a, const struct model *m,
		     const struct render_ctx *ctx, struct buf *out, struct sl_err *err);

#endif
