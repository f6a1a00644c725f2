/*
 * The SQL parser: DuckDB's own, reached through json_serialize_sql on a
 * private in-memory database, so sluice reads queries exactly as the
 * warehouse will. Used for every backend (PostgreSQL projects still write
 * SQL that DuckDB's parser reads). Parses; never executes user SQL.
 */
#ifndef SL_WAREHOUSE_SQLPARSE_H
#define SL_WAREHOUSE_SQLPARSE_H

#include <stdbool.h>
#include <stddef.h>

struct sl_err;
struct sqlparse;

int sqlparse_open(struct sqlparse **out, struct sl_err *err);
void sqlparse_close(struct sqlparse *p);

/* Keeps the trees of the queries parsed in the file at path between
 * processes (a project's .sluice/parse-cache), by their text: one parsed
 * before is read from there. */
void sqlparse_use_cache(struct sqlparse *p, const char *path);

/* Keeps in the file at path (.sluice/derived-cache) what callers derive
 * from queries (refs.c: a model's tables and digest), by keys of theirs
 * (32 bytes), for a program built as this one: another build may derive
 * them otherwise, and its texts count as none. get gives NULL when
 * nothing is kept for key, or no such file is in use. */
void sqlparse_use_derived_cache(struct sqlparse *p, const char *path);
const char *sqlparse_derived_get(struct sqlparse *p, const unsigned char *key);
void sqlparse_derived_put(struct sqlparse *p, const unsigned char *key, const char *text);

/* The message of a statement that parses but is not a query. */
#define SQLPARSE_NOT_A_QUERY "not a query"

/* The parse tree of sql as JSON text, which the caller must free(). A syntax
 * error returns SL_E_PARSE with the parser's message and, in *error_offset,
 * the byte offset it points at (or -1). A statement that is not a query
 * returns SL_E_PARSE with the message SQLPARSE_NOT_A_QUERY. */
int sqlparse_tree(struct sqlparse *p, const char *sql, char **json, long *error_offset,
		  struct sl_err *err);

/* What DuckDB's function catalog says of a function name (any case),
 * read once per process when first asked: the name as the catalog
 * spells it when it is an aggregate, else NULL; whether it gives other
 * values on each call (its stability is VOLATILE). */
const char *sqlparse_aggregate(const char *name);
bool sqlparse_volatile(const char *name);

#endif
