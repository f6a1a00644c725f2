/*
 * Inputs a model declares that are no model (@upstream type=file|api|
 * hardcoded): their content hashes, which version them (a file's bytes, a
 * hardcoded input's rows or sql as written), and the query that makes a
 * hardcoded input's table, which sluice writes and the model reads by its
 * name.
 */
#ifndef SL_PROJECT_DECLARED_H
#define SL_PROJECT_DECLARED_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct model;
struct model_upstream;
struct project;

/* Fills each declared input's content hash and checks what can be checked
 * of it alone: a file that cannot be read, a hardcoded input without
 * exactly one of rows and sql, rows that are no list of alike rows, a
 * name that is not schema.table or names a model, two models that declare
 * one table with other content. Problems go to p->diags. Call after
 * dag_build. */
void declared_load(struct project *p);

bool declared_hardcoded(const struct model_upstream *u);

/* The hardcoded input of m whose table is schema.name, or NULL. */
const struct model_upstream *declared_hardcoded_named(const struct model *m, const char *schema,
						      const char *name);

/* The SELECT that makes u's rows (its sql as written, or its rows as
 * VALUES), or NULL when they are malformed; why then says what, in a. */
const char *declared_query(struct arena *a, const struct model_upstream *u, const char **why);

/* What a model's inputs signature adds for its declared inputs that have a
 * content hash: ",NAME#HASH" each, into a; "" when none. */
const char *declared_signature(struct arena *a, const struct model *m);

#endif
