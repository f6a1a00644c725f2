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

/* A word people bring from other tools for one of ours: dbt's `list` is
 * our `ls`. means is what the hint suggests, which may be more than one
 * word ("live status"). */
struct suggest_alias {
	const char *word, *means;
};

/* What an unknown command word most likely meant: a well-known synonym
 * (aliases ends with a NULL word), else the one candidate the word begins
 * (two letters at least), else the nearest candidate by edit distance;
 * NULL when nothing fits. Returns a string of aliases or candidates. */
const char *suggest_command(const char *word, const char *const *candidates,
			    const struct suggest_alias *aliases);

/* The index of word in candidates (ending with NULL), spelt exactly, or -1;
 * a NULL word is in none. */
int suggest_index(const char *word, const char *const *candidates);

#endif
