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
/* Writes the cache (sqlbind_use_cache) when it changed. */
void sqlbind_close(struct sqlbind *b);

/* Keeps the columns of bound queries and CSV files in the file at path
 * between processes (a project's .sluice/bind-cache): a query whose text
 * and whose tables' columns are as they were when it was bound is not
 * bound again, and its table is made in the binder only when a query
 * bound after it reads it. */
void sqlbind_use_cache(struct sqlbind *b, const char *path);

/* schema.name is an empty table of the n columns (names and types as the
 * warehouse gives them), made in the binder when a query reading it is
 * bound. */
int sqlbind_table(struct sqlbind *b, const char *schema, const char *name,
		  const struct wh_column *cols, size_t n, struct sl_err *err);

/* Makes schema.name an empty table of a CSV file's columns, typed as a
 * seed's load types them; digest says the file's content, for the
 * cache. */
int sqlbind_csv(struct sqlbind *b, const char *schema, const char *name, const char *path,
		const char *digest, struct sl_err *err);

/* How many queries this binder ran: those bound, or refused, not those
 * whose columns were kept. */
size_t sqlbind_queries_run(const struct sqlbind *b);

/* A table a query reads. */
struct sqlbind_read {
	const char *schema, *name;
};

/* Makes schema.name an empty table of the columns the query sql gives,
 * which reads the tables reads (made by sqlbind_table, sqlbind_csv or
 * sqlbind_query before). A query the binder refuses is SL_E_INVALID:
 * err's message is the binder's first line, *hint its suggestion (a
 * candidate column, a function's nearest name) or NULL, both in a;
 * *offset the byte offset in sql it points at, or -1. Another error
 * (SL_E_INTERNAL) is not the query's: a table it reads could not be
 * made. */
int sqlbind_query(struct sqlbind *b, struct arena *a, const char *schema, const char *name,
		  const char *sql, const struct sqlbind_read *reads, size_t nreads, long *offset,
		  const char **hint, struct sl_err *err);

#endif
