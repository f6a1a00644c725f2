/*
 * Edit distance (Damerau-Levenshtein, optimal string alignment) and the
 * nearest-candidate choice used for hints.
 */
#include "core/suggest.h"

#include <stdlib.h>
#include <string.h>

#define SUGGEST_MAXLEN 128

size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t rows[3][SUGGEST_MAXLEN + 1];
	size_t *two = rows[0], *one = rows[1], *cur = rows[2];

	if (la > SUGGEST_MAXLEN || lb > SUGGEST_MAXLEN)
		return la > lb ? la : lb;
	for (size_t j = 0; j <= lb; j++)
		one[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = one[j] + 1;

			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (one[j - 1] + cost < v)
				v = one[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    two[j - 2] + 1 < v)
				v = two[j - 2] + 1;
			cur[j] = v;
		}
		t = two;
		two = one;
		one = cur;
		cur = t;
	}
	return one[lb];
}

const char *suggest_nearest(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	size_t limit = strlen(word) / 3 + 1;

	if (limit > 3)
		limit = 3;
	for (size_t i = 0; candidates[i]; i++) {
		size_t dist = suggest_distance(word, candidates[i]);

		if (dist < best_d) {
			best_d = dist;
			best = candidates[i];
		}
	}
	return best_d <= limit ? best : NULL;
}

const char *suggest_command(const char *word, const char *const *candidates,
			    const struct suggest_alias *aliases)
{
	const char *prefixed = NULL;
	size_t len = strlen(word), hits = 0;

	for (size_t i = 0; aliases && aliases[i].word; i++)
		if (strcmp(word, aliases[i].word) == 0)
			return aliases[i].means;
	/* edit distance ranks "list" as near "test" as "ls": what a word
	 * abbreviates is the stronger clue */
	for (size_t i = 0; len >= 2 && candidates[i]; i++) {
		if (strncmp(candidates[i], word, len) == 0) {
			prefixed = candidates[i];
			hits++;
		}
	}
	if (hits == 1)
		return prefixed;
	return suggest_nearest(word, candidates);
}

int suggest_index(const char *word, const char *const *candidates)
{
	for (int i = 0; word && candidates[i]; i++)
		if (strcmp(word, candidates[i]) == 0)
			return i;
	return -1;
}
