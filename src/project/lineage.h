/*
 * Column lineage of one query, read from its parse tree: for each output
 * column, the columns of the relations it reads that it is computed from
 * (directly) or that decide which rows it has (indirectly), in
 * OpenLineage's terms. Pure: what the relations read hold comes from the
 * caller; the warehouse is never asked.
 */
#ifndef SL_PROJECT_LINEAGE_H
#define SL_PROJECT_LINEAGE_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

/* How an input column reaches an output column: the first three
 * directly (its value is copied, computed from it, or aggregated), the
 * others indirectly (it joins, filters, groups, orders, partitions or
 * picks a branch). */
enum lineage_kind {
	LINEAGE_IDENTITY,
	LINEAGE_TRANSFORMATION,
	LINEAGE_AGGREGATION,
	LINEAGE_JOIN,
	LINEAGE_FILTER,
	LINEAGE_GROUP_BY,
	LINEAGE_SORT,
	LINEAGE_WINDOW,
	LINEAGE_CONDITIONAL,
};

struct lineage_input {
	const char *relation; /* "schema.table", lowercase; schema "main" when left out */
	const char *column;   /* lowercase */
	enum lineage_kind kind;
};

struct lineage_column {
	const char *name; /* as the query names it: alias, column, or the expression */
	struct lineage_input *inputs;
	size_t ninputs, inputs_cap;
};

/* What the lineage cannot see through, and where (a byte offset in the
 * text, or -1). */
struct lineage_unknown {
	const char *why;
	long offset;
};

struct lineage {
	struct lineage_column *cols;
	size_t ncols, cols_cap;
	struct lineage_unknown *unknown;
	size_t nunknown, unknown_cap;
};

/* The columns of schema.table (lowercase names), in order, into *cols;
 * false when they are not known. */
typedef bool (*lineage_columns_fn)(void *ctx, const char *schema, const char *table,
				   const char *const **cols, size_t *n);

/* The lineage of the one query of tree (sqlparse_tree's JSON of text),
 * the relations it reads described by columns(ctx, ...); unwrap: the
 * query is a model's body wrapped with its incremental filter
 * (refs_parse_text), which only incremental runs apply, and the body's
 * lineage is the model's. Strings of out live in a. Returns 0, or
 * SL_E_PARSE when the tree is not one query. */
int lineage_query(struct arena *a, const char *tree, const char *text, bool unwrap,
		  lineage_columns_fn columns, void *ctx, struct lineage *out);

/* "IDENTITY", "TRANSFORMATION", ... as OpenLineage spells them. */
const char *lineage_kind_name(enum lineage_kind k);
/* Whether the kind is direct (IDENTITY, TRANSFORMATION, AGGREGATION). */
bool lineage_kind_direct(enum lineage_kind k);

#endif
