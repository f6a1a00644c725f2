/*
 * What the DuckDB backend checks before it runs a query for an untrusted
 * reader (wh_query_readonly). Private to src/warehouse/.
 */
#ifndef SL_WAREHOUSE_DUCKDB_READ_H
#define SL_WAREHOUSE_DUCKDB_READ_H

#include <stdbool.h>

struct sl_err;

/* How the check asks the database whether catalog.schema.table (catalog
 * may be "") names one of its tables or views: *found. */
struct duck_read_names {
	int (*exists)(void *ctx, const char *catalog, const char *schema, const char *table,
		      bool *found, struct sl_err *err);
	void *ctx;
};

/* Judges a query by its parse tree, json_serialize_sql's text for it:
 * SL_E_USAGE, err naming what is refused, when it calls a table function
 * that may read outside the database (read_csv, read_text, glob, query,
 * any not on a short list of generators and catalog views), names a
 * relation (in FROM, or for DESCRIBE, SUMMARIZE or SHOW) that a
 * replacement scan would read as a file or URL ('x.csv', '/etc/passwd',
 * 's3://b/k': a name part with '.', '/', ':' or '\'; secrets.csv, a name
 * of several parts that names no relation), or is not a query
 * json_serialize_sql can show (PRAGMA). SL_E_SQL when the text does not
 * parse, with the parser's message. */
int duck_read_check_tree(const char *serialized, const struct duck_read_names *names,
			 struct sl_err *err);

#endif
