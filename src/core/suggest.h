/*
 * "Did you mean" suggestions: the nearest of a list of valid words by edit
 * distance, for error hints on unknown keys and names.
 */
#ifndef SL_CORE_SUGGEST_H
#define SL_CORE_SUGGEST_H

#include <stddef.h>

size_t suggest_distance(const char *a, const char *b);
/* The candidate nearest to word when it is close enough to be a likely typo,
 * else NULL. candidates ends with a NULL entry. Returns one of the
 * candidates (not a copy). */
const char *suggest_nearest(const char *word, const char *const *candidates);
/* The index of word in candidates (ending with NULL), spelt exactly, or -1;
 * a NULL word is in none. */
int suggest_index(const char *word, const char *const *candidates);

#endif
