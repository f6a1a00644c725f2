/*
 * What `sluice compile` prints for a model, and the model page and
 * `sluice docs` show: the SQL a build from scratch runs, then what a
 * refresh of a maintained model runs and what incremental runs read,
 * placeholders filled and ephemerals inlined (render.h). What only the
 * warehouse knows (the watermarks a build reads, how a maintained
 * model's refresh is spelled) comes through hooks; without them every
 * {watermark} is 0 and a maintained model's refresh is named, not
 * spelled.
 */
#ifndef SL_EXEC_COMPILE_H
#define SL_EXEC_COMPILE_H

#include <stdbool.h>

struct arena;
struct buf;
struct model;
struct render_ctx;
struct sl_err;

struct compile_hooks {
	void *ctx;
	/* points rctx's watermarks at what a build of m reads: from
	 * scratch (full) or the next refresh; NULL: none (every 0) */
	int (*book)(void *ctx, const struct model *m, bool full, struct render_ctx *rctx,
		    struct sl_err *err);
	/* appends what a refresh of maintained model m runs, after a blank
	 * line; NULL: a note says how to see it */
	int (*refresh)(void *ctx, const struct model *m, const struct render_ctx *rctx,
		       struct buf *sql, struct sl_err *err);
};

/* Appends m's compiled SQL in environment env ("" for none) to out: a
 * seed says where it loads from; a temporal model compiles for its first
 * window, which a first line names. h may be NULL; scratch in a. */
int compile_model(struct arena *a, const struct model *m, const char *env,
		  const struct compile_hooks *h, struct buf *out, struct sl_err *err);

#endif
