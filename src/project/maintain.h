/*
 * How a maintained model (a live incremental model written as its plain
 * query) is kept up to date: the class its query allows over the input it
 * reads, the construct that blocks a better one, its output keys. Decided
 * from the loaded project alone, once dag_build resolved its references.
 */
#ifndef SL_PROJECT_MAINTAIN_H
#define SL_PROJECT_MAINTAIN_H

#include "project/ivm.h"
#include "project/model.h"

/* What the input gives a refresh: its new rows (a landing table, a live
 * append model: rows are only ever added, found by _sluice_seq), or its
 * change log (a model that rewrites rows), or nothing to follow. */
enum maint_input { MAINT_APPENDS, MAINT_REWRITES, MAINT_NONE };

struct maint {
	struct ivm_result q; /* the query's items, keys and aggregates */
	/* what a refresh does: q's class, or full where the input or the
	 * model's text does not allow it, with the reason and its place (a
	 * byte offset in the body, or -1) */
	enum ivm_class cls;
	const char *blocker;
	long offset;
	enum maint_input in;
	const struct model_ref *ref; /* the input's reference in the body */
	const struct model *input;   /* the model read (MAINT_REWRITES, or an append model) */
	/* the output keys: the model's columns that identify a row, and the
	 * expression over an input row that gives each (NULL when only the
	 * model's rows show it) */
	const char **keys, **key_exprs;
	size_t nkeys;
};

/* Plans every maintained model of p, in dependency order (a maintained
 * model read by another is planned first), and sets its unique_key to
 * its output keys. */
void maintain_plan_all(struct project *p);

/* "counted", or the class with what blocks a better one and its place:
 * "full: a join at models/gold/x.sql:3:8". In a. */
const char *maintain_describe(struct arena *a, const struct model *m);

#endif
