/*
 * The change log of a live model that rewrites rows (a merge or a
 * delete+insert, change events included): per refresh, the rows of the
 * keys it touches as they were (weight -1) and as they are after it
 * (+1), stamped with the refresh's sequence, written in the refresh's own
 * transaction. The table is src/state/changes.c's.
 */
#ifndef SL_EXEC_CHANGES_H
#define SL_EXEC_CHANGES_H

#include "project/model.h"

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct wh;

/* One refresh's writer of the change log. */
struct changes {
	struct wh *w;
	const struct model *m;
	const char *cols; /* the logged columns, comma-separated */
	int64_t seq;      /* the refresh's sequence */
	/* keys are matched NULL to NULL (a maintained model's NULL group) */
	bool nullsafe;
};

/* Makes m's change log (anew and empty, or only when it is not there)
 * with the columns of schema-of-m.table, and readies c to record changes
 * stamped seq. c's strings are a's. */
int changes_open(struct wh *w, struct arena *a, const struct model *m, const char *table,
		 bool anew, int64_t seq, struct changes *c, struct sl_err *err);

/* Records the rows m's table holds for the keys of the relation keys
 * (which names m's unique_key columns), with weight: -1 before the
 * refresh writes them, +1 after. */
int changes_record(const struct changes *c, const char *keys, int weight, struct sl_err *err);

/* The columns of m's change log but its weight (its sequence among
 * them), quoted and comma-separated, in a. */
int changes_log_columns(struct wh *w, struct arena *a, const struct model *m, const char **out,
			struct sl_err *err);

/* Records that m was built from scratch again, the log started anew: a
 * row of weight 0 and no values (state_sql_changes_rebuilt), which tells
 * a reader that consumed less than its sequence to read m whole. */
int changes_record_rebuilt(const struct changes *c, struct sl_err *err);

/* Records every row m's table holds, with weight. */
int changes_record_all(const struct changes *c, int weight, struct sl_err *err);

/* Records as written (+1) the rows of batch, which the refresh wrote
 * whole: from batch itself when it has every logged column, which spares
 * a join with m's table; else as changes_record does. */
int changes_record_written(const struct changes *c, const char *batch, struct sl_err *err);

#endif
