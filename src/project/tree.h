/*
 * Reading DuckDB's parse tree (sqlparse_tree's JSON, through jansson):
 * the accessors and facts the readers of queries share, so that the
 * maintenance classifier (ivm.c) and column lineage (lineage.c) read the
 * tree one way.
 */
#ifndef SL_PROJECT_TREE_H
#define SL_PROJECT_TREE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The text a tree was parsed from, which its locations point into. */
struct tree_text {
	const char *text;
	size_t len;
};

void tree_text_init(struct tree_text *t, const char *text);

/* The string under key, or "" when there is none. */
const char *tree_str(json_t *obj, const char *key);
/* Whether the string under key is value. */
bool tree_is(json_t *obj, const char *key, const char *value);
/* Whether key holds something other than null. */
bool tree_present(json_t *obj, const char *key);
/* A node's own place in the text, or -1 ("none" is 2^64-1 in the tree). */
long tree_location(const struct tree_text *t, json_t *node);
/* The first place in the text of anything under j, or -1: an operator's
 * node sits at the operator, its left operand before it. */
long tree_first_location(const struct tree_text *t, json_t *j);
/* The name a column reference ends with: the column, whatever qualifies
 * it. */
const char *tree_column_name(json_t *colref);
/* What a search of a tree makes of a node: it is what is sought, it and
 * what it holds are not looked at, or the search goes on into it. */
enum tree_seen { TREE_GO_ON, TREE_FOUND, TREE_SKIP };
/* Whether j (an expression, a list of them) holds a node see(node, ctx)
 * says is sought, looking into the nodes it lets through. */
bool tree_holds(json_t *j, enum tree_seen (*see)(json_t *node, const void *ctx), const void *ctx);

/* What DuckDB names the output column of select item e, as written: its
 * alias, its column, "*" for a star, its function, else "?column?". */
const char *tree_output_name(json_t *e);

/* Whether a function gives other values from one run to the next. */
bool tree_is_volatile(const char *function);
/* CURRENT_TIMESTAMP and its kin, which the parser reads as column names. */
bool tree_is_volatile_keyword(json_t *colref);

#endif
