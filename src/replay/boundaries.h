/*
 * What a build from scratch of a model records of the sources it reads
 * itself, in the build's transaction: per source and part of its
 * boundary (project/bounds.h), the lowest and highest value and sequence
 * of the rows the build's snapshot showed it, and how many
 * (`_sluice.replay_boundaries`, state/replay.h). A later replay checks
 * against it that retention has not pruned rows the model holds. Models
 * a run builds anew from their inputs each time (tables, views) hold no
 * history of their own and record nothing.
 */
#ifndef SL_REPLAY_BOUNDARIES_H
#define SL_REPLAY_BOUNDARIES_H

#include "project/model.h"

#include <stdbool.h>
#include <stdint.h>

struct buf;
struct project;
struct sl_err;
struct wh;

struct replay_record {
	const struct project *p;
	/* the time the build read its sources from ("YYYY-MM-DD HH:MM:SS",
	 * UTC), or NULL: all they hold */
	const char *start;
};

/* Whether m's table holds rows its inputs may no longer have: one built
 * by increments. */
bool replay_keeps_history(const struct model *m);

/* run_opts.on_full_build, ctx a struct replay_record: appends the
 * statements that record m's boundaries to sql. */
int replay_record_build(void *ctx, struct wh *w, const struct model *m, const char *env,
			int64_t run_id, struct buf *sql, struct sl_err *err);

#endif
