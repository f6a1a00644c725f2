/*
 * Lexical facts about SQL text that the parse tree does not give: where
 * string literals and comments are, and how far a table reference written
 * at some offset extends. Works on bytes; never parses grammar.
 */
#ifndef SL_PROJECT_SQLTEXT_H
#define SL_PROJECT_SQLTEXT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

/* Length of the qualified name (`a`, `a.b`, `"a"  . "b".c`) starting at
 * sql[offset]; 0 when no identifier starts there. */
size_t sqltext_name_len(const char *sql, size_t offset);

/* Marks, for each byte of sql, whether it lies inside a '...' string
 * literal (in_string has len entries, allocated by the caller). */
void sqltext_string_map(const char *sql, size_t len, bool *in_string);

/* Appends sql's tokens to out as PostgreSQL tells them apart, less their
 * layout: comments dropped, whitespace kept as one space only between two
 * words (or quoted tokens), unquoted words lowercased (PostgreSQL folds
 * them); string literals and quoted names as written. */
void sqltext_tokens(const char *sql, struct buf *out);

/* Offset just past leading whitespace and comments. */
size_t sqltext_skip_space(const char *sql, size_t offset);

/* Offset of the ')' that closes the '(' at sql[open], past string
 * literals, quoted names and comments; 0 when it is never closed. */
size_t sqltext_close_paren(const char *sql, size_t open);

/* Splits the comma-separated list that starts at sql[start] and ends at
 * the first word kw (any case) outside parentheses and brackets, or at the
 * text's end: each item's end (its comma, or the list's end) goes into
 * ends, up to max of them. Returns how many items the list has. */
size_t sqltext_split_list(const char *sql, size_t start, const char *kw, size_t *ends, size_t max);

/* Where the first word kw (any case) outside parentheses and brackets
 * starts, from sql[start] on, or -1. */
long sqltext_find_word(const char *sql, size_t start, const char *kw);

#endif
