/*
 * The maintenance class of a model's query, read from its parse tree: how
 * much a refresh must recompute when rows of its input change, and what in
 * the query stands in the way of less. Pure: reads the tree and the text it
 * was parsed from, never the warehouse.
 */
#ifndef SL_PROJECT_IVM_H
#define SL_PROJECT_IVM_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

/*
 * mapped: each output row comes from one input row (a projection and
 * filter), so a changed input row changes its own output row;
 * counted: groups whose aggregates follow from the changed rows alone,
 * with a hidden row count per group;
 * regroup: the groups the changed rows touch are computed again;
 * full: the whole query runs again.
 * mapped and counted are both the best a query can get.
 */
enum ivm_class { IVM_MAPPED, IVM_COUNTED, IVM_REGROUP, IVM_FULL };

enum ivm_agg_kind { IVM_COUNT_STAR, IVM_COUNT, IVM_SUM, IVM_AVG, IVM_MIN, IVM_MAX };

/* An aggregate of a counted query, in the order of the select list. */
struct ivm_agg {
	enum ivm_agg_kind kind;
	const char *arg; /* its argument as written; NULL for COUNT(*) */
	size_t item;     /* the select item holding it, from 0 */
	bool bare;       /* the item is the aggregate alone, not an expression over it */
	size_t start, end; /* the call in the text, name to closing parenthesis */
};

/* An item of the outer select list as written: [start, end) runs from
 * just past the comma (or SELECT) before it to the comma (or FROM) after
 * it, white space and comments included; its expression ends at expr_end,
 * before its alias (end when it has none; 0 when that cannot be told). */
struct ivm_item {
	size_t start, end, expr_end;
	bool key;
};

/* A GROUP BY key (or, under SELECT DISTINCT, a selected column): the
 * select item that shows it. */
struct ivm_key {
	size_t item; /* from 0 */
	/* the output column: its alias or its column's name; NULL when DuckDB
	 * names it after the expression (or it is a * of several columns) */
	const char *name;
};

struct ivm_result {
	enum ivm_class cls;
	/* the first construct that keeps the query from a better class
	 * ("a join", "COUNT(DISTINCT)", "now()"): NULL for mapped and counted;
	 * where it starts, a byte offset in the text, or -1 when unknown */
	const char *blocker;
	long offset;
	/* the one table the query reads (through CTEs and subqueries in
	 * FROM), lowercase, schema "main" when the SQL left it out; NULL when
	 * it reads none or several */
	const char *schema, *table;
	/* mapped, counted and regroup: the output keys (none for a mapped
	 * query and a single group) */
	struct ivm_key *keys;
	size_t nkeys, keys_cap;
	/* counted: its aggregates */
	struct ivm_agg *aggs;
	size_t naggs, aggs_cap;
	/* mapped, counted and regroup: the outer select list, item by item */
	struct ivm_item *items;
	size_t nitems, items_cap;
	/* where the input table is named (set with table), or -1; whether the
	 * outer query's FROM names it itself (not a WITH name or a subquery) */
	long table_at;
	bool direct;
	/* SELECT DISTINCT: where DISTINCT is written, else -1 */
	long distinct_at;
	/* just past the HAVING keyword, else -1 */
	long having_end;
};

/* Classifies the one query of tree (sqlparse_tree's JSON of text).
 * append_only: the input only ever gains rows, so MIN and MAX can be kept
 * from the changes. Strings of out live in a. Returns 0, or SL_E_PARSE when
 * the tree is not one query. */
int ivm_classify(struct arena *a, const char *tree, const char *text, bool append_only,
		 struct ivm_result *out);

/* "mapped", "counted", "regroup" or "full". */
const char *ivm_class_name(enum ivm_class c);

#endif
