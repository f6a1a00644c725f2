/*
 * Rendering a model into the SQL the warehouse runs: placeholders replaced
 * by their values and references to ephemeral models inlined as CTEs, both
 * by editing the text at the offsets the parser reported.
 */
#ifndef SL_EXEC_RENDER_H
#define SL_EXEC_RENDER_H

#include "project/model.h"

#include <stdbool.h>
#include <stdint.h>

struct buf;
struct sl_err;

/* A relation read in place of another: every reference to relation
 * ("schema.name", any case) reads the query instead, under the name it
 * had, so the model's text needs no change (a replay's rows from a start
 * time on). */
struct render_read {
	const char *relation;
	const char *query;
};

struct render_ctx {
	const char *env;       /* environment name, "" for none */
	int64_t watermark;     /* what {watermark} stands for */
	/* what each {watermark:NAME} stands for: nwm names ("landing.orders",
	 * "silver.orders") and their values */
	const char *const *wm_names;
	const int64_t *wm_values;
	size_t nwm;
	/* per input (each array may be NULL): the SQL it stands for when that
	 * is not the number in wm_values (an adopted table's cursor, a literal
	 * of the cursor's type), and another name {watermark:NAME} may give it
	 * (an adopted source's own), or NULL */
	const char *const *wm_literals;
	const char *const *wm_aliases;
	const char *since, *until; /* window bounds as 'YYYY-MM-DD HH:MM:SS', or NULL */
	const char *this_relation; /* overrides {this} (e.g. a staging table), or NULL */
	/* the sequence a refresh of a model that keeps a change log stamps
	 * its changes with (exec/changes.c): one above what the model
	 * published, which it publishes at least; 0 for none */
	int64_t refresh_seq;
	/* no model reads that model: its refresh records nothing in the log,
	 * which would forget it at once */
	bool changes_unread;
	const struct render_read *reads;
	size_t nreads;
};

/* Whether m, rendered in ctx's environment, reads the env's copy of
 * target (a managed model), not the main table. */
bool render_reads_env_copy(const struct model *m, const struct model *target,
			   const struct render_ctx *ctx);

/* Appends the model's query to out; with_filter wraps it with the model's
 * incremental_filter. Fails with SL_E_INVALID when a placeholder has no
 * value in ctx. */
int render_model(const struct model *m, const struct render_ctx *ctx, bool with_filter,
		 struct buf *out, struct sl_err *err);

/* An edit of a model's body beside rendering's own: with replaces
 * body[offset, offset + len) (len 0: inserted there), and any placeholder
 * or reference inside it. */
struct render_edit {
	size_t offset, len;
	const char *with;
};

/* render_model without the filter, the body edited by edits (n of them,
 * none overlapping another). */
int render_model_edited(const struct model *m, const struct render_ctx *ctx,
			const struct render_edit *edits, size_t n, struct buf *out,
			struct sl_err *err);

/* The query ctx reads in place of schema.name, or NULL: the relation
 * itself. */
const char *render_read_of(const struct render_ctx *ctx, const char *schema, const char *name);

/* Whether the model's filter mentions {this} (it cannot run before the
 * model's table exists). */
bool render_filter_reads_this(const struct model *m);

#endif
