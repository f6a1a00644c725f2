/*
 * The parse trees a project's queries had, kept in a file between
 * commands by the SHA-256 of each query's text: a query parsed before is
 * not parsed again. Private to sqlparse.c.
 */
#ifndef SL_WAREHOUSE_SQLPARSE_CACHE_H
#define SL_WAREHOUSE_SQLPARSE_CACHE_H

#include <stddef.h>

struct parse_cache;

/* The trees in the file at path written by a parser of version; an empty
 * cache when there is none, or it is of another version or unreadable. */
struct parse_cache *parse_cache_load(const char *path, const char *version);

/* The tree of the query whose digest is key (32 bytes), or NULL; in the
 * cache, which owns it. */
const char *parse_cache_get(struct parse_cache *c, const unsigned char *key);
void parse_cache_put(struct parse_cache *c, const unsigned char *key, const char *tree);

/* Writes the trees this process used (and only those: a query no longer
 * in the project goes) when that changes the file, whole, through a
 * temporary file renamed over it; a cache that cannot be written is let
 * go. Frees c. */
void parse_cache_save(struct parse_cache *c);

#endif
