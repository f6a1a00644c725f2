/*
 * This file implements a files source's ledger in memory (ledger.h). It
 * must never be taken for the warehouse's: a verdict here only spares
 * work, the landing transaction checks again.
 */
#include "files/ledger.h"

#include "core/arena.h"

#include <stdbool.h>
#include <string.h>

void files_ledger_add(struct files_ledger *l, const char *path, const char *sha256)
{
	struct files_ledger_row *r;

	if (files_ledger_judge(l, path, sha256) == FILES_LANDED)
		return;
	r = ARENA_PUSH(l->a, &l->rows, &l->n, &l->cap);
	r->path = arena_strdup(l->a, path);
	r->sha256 = arena_strdup(l->a, sha256);
}

enum files_verdict files_ledger_judge(const struct files_ledger *l, const char *path,
				      const char *sha256)
{
	bool named = false;

	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->rows[i].path, path) != 0)
			continue;
		if (strcmp(l->rows[i].sha256, sha256) == 0)
			return FILES_LANDED;
		named = true;
	}
	return named ? FILES_NEW_VERSION : FILES_NEW;
}
