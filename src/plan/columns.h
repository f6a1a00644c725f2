/*
 * Column-level change: which columns of a model a change of its query
 * touches (project/shape.h), whether a build can then change those
 * columns alone, and which of them each model that reads it reads, so
 * that a reader of none of them keeps its data. Pure, like plan.c.
 */
#ifndef SL_PLAN_COLUMNS_H
#define SL_PLAN_COLUMNS_H

#include "project/shape.h"

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct model;
struct state_model;

/* Whether m is defined as when st was built (its materialization and
 * its query's hash, or its text's). */
bool plan_same_definition(const struct model *m, const struct state_model *st);

/* How a change of m's definition since its state row st reads: every
 * column breaks (d->rows), or only the columns d lists. False when it
 * cannot be told (a row without a shape, a query without a tree). */
bool plan_change_of(struct arena *a, const struct model *m, const struct state_model *st,
		    struct shape_diff *d);

/* Whether a build of m, changed as d says, changes only d's columns and
 * leaves its rows as they were: a table, its rows' part unchanged, its
 * inputs at sig as when st was built, none of its functions varying from
 * run to run. */
bool plan_columns_only(const struct model *m, const struct state_model *st, const char *sig,
		       const struct shape_diff *d);

/* The column_versions a columns-only build at version v records over st. */
const char *plan_column_versions(struct arena *a, const struct state_model *st,
				 const struct shape_diff *d, int64_t v);

/* Whether m's query reads (names, or takes every column of) any column d
 * touches of model of; a query that cannot be read reads them all. */
bool plan_reads_any(struct arena *a, const struct model *m, const struct model *of,
		    const struct shape_diff *d);

/* The version of of's data that m sees, its state row st: the latest at
 * which of's rows or a column m reads changed (st's column_versions), or
 * version when st records no columns-only build. */
int64_t plan_seen_version(struct arena *a, const struct model *m, const struct model *of,
			  const struct state_model *st, int64_t version);

#endif
