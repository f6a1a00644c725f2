/*
 * Lexical facts about SQL text that the parse tree does not give: where
 * string literals and comments are, and how far a table reference written
 * at some offset extends. Works on bytes; never parses grammar.
 */
#ifndef SL_PROJECT_SQLTEXT_H
#define SL_PROJECT_SQLTEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the qualified name (`a`, `a.b`, `"a"  . "b".c`) starting at
 * sql[offset]; 0 when no identifier starts there. */
size_t sqltext_name_len(const char *sql, size_t offset);

/* Marks, for each byte of sql, whether it lies inside a '...' string
 * literal (in_string has len entries, allocated by the caller). */
void sqltext_string_map(const char *sql, size_t len, bool *in_string);

/* Offset just past leading whitespace and comments. */
size_t sqltext_skip_space(const char *sql, size_t offset);

/* Offset of the ')' that closes the '(' at sql[open], past string
 * literals, quoted names and comments; 0 when it is never closed. */
size_t sqltext_close_paren(const char *sql, size_t open);

#endif
