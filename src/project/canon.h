/*
 * The canonical form of a parse tree, for a model's change hash: the tree
 * without what only says where things were written, so that comments,
 * spacing and the case of keywords, which move nothing but positions,
 * leave it as it was.
 */
#ifndef SL_PROJECT_CANON_H
#define SL_PROJECT_CANON_H

#include <stddef.h>

struct buf;

/* The text that stands for a node at byte offset location of the parsed
 * text (*len bytes, not NUL-terminated), or NULL for none. */
typedef const char *canon_mark_fn(void *ctx, size_t location, size_t *len);

/* Appends tree (sqlparse_tree's JSON, whose fields come in a fixed order)
 * to out without its "query_location" fields; a location that mark gives
 * text for is written as that text instead (a placeholder's own words,
 * where the tree holds its stand-in). mark may be NULL. Returns 0, or
 * SL_E_PARSE for a string that never ends or a location without a number
 * (out then holds part of the form). */
int canon_tree(const char *tree, canon_mark_fn *mark, void *ctx, struct buf *out);

#endif
