/*
 * Binding queries without running them: an in-memory DuckDB of empty
 * tables shaped like the warehouse's and like the project's models,
 * so that a column, function or type that does not exist is found before
 * anything runs, with the binder's own words and the place it points at.
 * Never reads the warehouse's data.
 */
#ifndef SL_WAREHOUSE_SQLBIND_H
#define SL_WAREHOUSE_SQLBIND_H

#include "warehouse/wh.h"

#include <stddef.h>

struct sl_err;
struct sqlbind;

int sqlbind_open(struct sqlbind **out, struct sl_err *err);
void sqlbind_close(struct sqlbind *b);

/* Makes schema.name an empty table of the n columns (names and types as
 * the warehouse gives them). */
int sqlbind_table(struct sqlbind *b, const char *schema, const char *name,
		  const struct wh_column *cols, size_t n, struct sl_err *err);

/* Makes schema.name an empty table of a CSV file's columns, typed as a
 * seed's load types them. */
int sqlbind_csv(struct sqlbind *b, const char *schema, const char *name, const char *path,
		struct sl_err *err);

/* Makes schema.name an empty table of the columns the query sql gives.
 * A query the binder refuses is SL_E_INVALID: err's message is the
 * binder's first line, *hint its suggestion (a candidate column, a
 * function's nearest name) or NULL, both in a; *offset the byte offset
 * in sql it points at, or -1. */
int sqlbind_query(struct sqlbind *b, struct arena *a, const char *schema, const char *name,
		  const char *sql, long *offset, const char **hint, struct sl_err *err);

#endif
