/*
 * Texts kept in a file between commands by a 32-byte key (a SHA-256 of
 * what they were computed from): the parse trees of queries (sqlparse.c)
 * and the columns of bound queries (sqlbind.c), so that what was worked
 * out before is not worked out again. A cache is only ever a shortcut:
 * a file that does not read as one counts as empty.
 */
#ifndef SL_WAREHOUSE_TEXT_CACHE_H
#define SL_WAREHOUSE_TEXT_CACHE_H

#include <stddef.h>

struct text_cache;

/* The texts in the file at path, written for kind ("parse cache") by a
 * program of version; an empty cache when there is none, or it is of
 * another kind or version, or unreadable. A text goes when keep_unused
 * saves in a row found it unused (0: the first that does). */
struct text_cache *text_cache_load(const char *path, const char *kind, const char *version,
				   unsigned keep_unused);

/* The text kept for key, or NULL; in the cache, which owns it. */
const char *text_cache_get(struct text_cache *c, const unsigned char *key);
/* Keeps text for key, in place of another text kept for it (what it was
 * worked out from changed since), whose pointer from get is then gone. */
void text_cache_put(struct text_cache *c, const unsigned char *key, const char *text);

/* Writes the texts this process used, and those unused for no more than
 * keep_unused saves (so that a query no longer in the project goes), when
 * that changes the file, whole, through a temporary file renamed over it;
 * a cache that cannot be written is let go. Frees c. */
void text_cache_save(struct text_cache *c);

#endif
