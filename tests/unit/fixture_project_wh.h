/*
 * For the unit tests that work on a project in a warehouse: as fixture.h's
 * struct fixture_project (a folder of their own, an arena, the project),
 * with the warehouse and an error beside it, made and freed together.
 * Include after fixture.h.
 */
#ifndef SL_TESTS_FIXTURE_PROJECT_WH_H
#define SL_TESTS_FIXTURE_PROJECT_WH_H

#include "core/arena.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <limits.h>
#include <stdlib.h>

struct fx {
	struct arena *a;
	char root[PATH_MAX];
	struct project *p;
	struct wh *w;
	struct sl_err err;
};

/* A fixture with its folder (named after name) and arena; no warehouse
 * yet. */
static inline struct fx *fx_new(const char *name)
{
	struct fx *f = calloc(1, sizeof(*f));

	fixture_mkdtemp(f->root, name);
	f->a = arena_new(NULL);
	return f;
}

/* Closes the warehouse, removes the folder, frees the rest. */
static inline void fx_free(struct fx *f)
{
	wh_close(f->w);
	fixture_rmtree(f->root);
	arena_free(f->a);
	free(f);
}

#endif
