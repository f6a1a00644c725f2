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
	/* past a few inputs, where each is (its place + 1, by its hash), so
	 * that adding one does not compare it with all: a column of a long
	 * chain of models has the many inputs that decide its rows */
	size_t *index, index_cap;
};

/* What the lineage cannot see through, and where (a byte offset in the
 * text, or -1). */
struct lineage_unknown {
	const char *why;
	long offset;
};

/* How a relation the query reads reaches its rows, weakest first: row
 * (projected, filtered, computed on, unioned with ALL, or the driving side
 * of a join: each output row is one input row's), agg (aggregated,
 * grouped, made distinct, windowed, limited or set-combined), side (only
 * looked up: a join's other side, a subquery of an expression, LATERAL),
 * unknown (what the walk cannot judge: WITH RECURSIVE, a filter that
 * changes with each run). Read twice, it takes the strongest. */
enum lineage_edge_type {
	LINEAGE_EDGE_ROW,
	LINEAGE_EDGE_AGG,
	LINEAGE_EDGE_SIDE,
	LINEAGE_EDGE_UNKNOWN,
};

struct lineage_edge {
	const char *relation; /* as struct lineage_input names it */
	enum lineage_edge_type type;
	const char *why; /* what made it so ("GROUP BY", "a join's other side"); NULL for row */
};

struct lineage {
	/* every relation the query reads, once, in the order first read */
	struct lineage_edge *edges;
	size_t nedges, edges_cap;
	struct lineage_column *cols;
	size_t ncols, cols_cap;
	/* the inputs that decide which rows the query has (every column has
	 * them too), for a query that reads it and names none of its columns */
	struct lineage_column rows;
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

/* What the query of l has of relation ("schema.table") that it reads,
 * rows being the inputs that decide which rows relation has (its own
 * lineage's): l's rows, and each column that names none of relation's
 * columns (count(*), a constant) has them too. Strings live in a. */
void lineage_add_rows(struct arena *a, struct lineage *l, const char *relation,
		      const struct lineage_column *rows);

/* Adds an input to c, unless c has it already. */
void lineage_column_add(struct arena *a, struct lineage_column *c, const char *relation,
			const char *column, enum lineage_kind kind);

/* "row", "agg", "side", "unknown". */
const char *lineage_edge_name(enum lineage_edge_type t);

/* "IDENTITY", "TRANSFORMATION", ... as OpenLineage spells them. */
const char *lineage_kind_name(enum lineage_kind k);
/* Whether the kind is direct (IDENTITY, TRANSFORMATION, AGGREGATION). */
bool lineage_kind_direct(enum lineage_kind k);

#endif
