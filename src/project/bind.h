/*
 * Binding every query of a project before anything runs: each model,
 * in dependency order, becomes an empty table in the binder
 * (warehouse/sqlbind.h) of the columns its query gives over the ones it
 * reads, so that a column,
 * function or type that does not exist is a diagnostic at its place.
 */
#ifndef SL_PROJECT_BIND_H
#define SL_PROJECT_BIND_H

#include "project/model.h"
#include "warehouse/wh.h"

struct arena;
struct sl_err;
struct sqlbind;

/* The columns (names and types) of schema.name, a table no model makes,
 * into *cols (n > 0), or false when it is not known (not made yet). */
typedef bool (*bind_table_fn)(void *ctx, const char *schema, const char *name,
			      struct wh_column **cols, size_t *n);

/* Binds each model of p (dag_build done) in b, the tables outside the
 * project described by outside(ctx, ...), seeds by their files. A query
 * the binder refuses gets an error in diags at its file:line:col with the
 * binder's suggestion; a model is not bound (and says nothing) when it
 * reads a table not known, a model that was not bound, or holds a
 * placeholder other than {watermark}. Returns how many models were
 * bound. */
size_t project_bind(struct project *p, struct sqlbind *b, bind_table_fn outside, void *ctx,
		    struct diag_list *diags);

/* Binds query against the warehouse itself (wh_bind's contract). */
typedef int (*bind_query_fn)(void *ctx, struct arena *a, const char *query, long *offset,
			     const char **hint, struct sl_err *err);
/* Whether model m's relation in the warehouse is what its definition as
 * it is now makes (built since its last change). */
typedef bool (*bind_current_fn)(void *ctx, const struct model *m);

/* On a warehouse that binds by itself, against its own tables: each model
 * of p whose every input is there as the query expects it (a current
 * model, a table outside the project that is there; no ephemeral) is
 * bound with bind(ctx, ...), its errors in diags as project_bind's. A
 * model that reads a model changed since its build is left for its
 * build: the warehouse holds the old columns. Returns how many were
 * bound. */
size_t project_bind_in_place(struct project *p, bind_query_fn bind, bind_current_fn current,
			     bind_table_fn outside, void *ctx, struct diag_list *diags);

#endif
