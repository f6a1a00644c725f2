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
#include "fixture_pg.h"
#include "fixture_wh.h"
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

/* Setups and teardown of a test run on each warehouse: a DuckDB file of
 * its own, or a PostgreSQL database of the suite's server made anew
 * (database), so that nothing another test left there is in the way. */
static inline int fx_setup_duckdb(void **state, const char *name)
{
	struct fx *f = fx_new(name);

	if (fixture_open_tiny(&f->w))
		return -1;
	*state = f;
	return 0;
}

static inline int fx_setup_postgres(void **state, const char *name, const char *database)
{
	struct fx *f = fx_new(name);
	struct wh *admin = fixture_pg_open();
	char sql[256], dsn[1024];

	snprintf(sql, sizeof(sql), "DROP DATABASE IF EXISTS %s", database);
	exec(admin, sql);
	snprintf(sql, sizeof(sql), "CREATE DATABASE %s", database);
	exec(admin, sql);
	wh_close(admin);
	snprintf(dsn, sizeof(dsn), "%s dbname=%s", fixture_pg_dsn(), database);
	if (wh_open_postgres(dsn, &f->w, &f->err))
		fail_msg("%s", f->err.msg);
	*state = f;
	return 0;
}

static inline int fx_teardown(void **state)
{
	fx_free(*state);
	return 0;
}

#endif
