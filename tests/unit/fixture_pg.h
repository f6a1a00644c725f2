/*
 * The PostgreSQL server tests/run.sh starts for the suite: its connection
 * string is in SLUICE_TEST_PG, and without it a test that needs the server
 * fails rather than passing without it.
 */
#ifndef SL_TESTS_FIXTURE_PG_H
#define SL_TESTS_FIXTURE_PG_H

#include "core/err.h"
#include "warehouse/wh.h"

#include <stdlib.h>

static inline const char *fixture_pg_dsn(void)
{
	const char *dsn = getenv("SLUICE_TEST_PG");

	if (!dsn || !*dsn)
		fail_msg("SLUICE_TEST_PG is not set: tests/run.sh starts the server and sets it");
	return dsn;
}

/* A new connection to the server; each stands for a process of its own. */
static inline struct wh *fixture_pg_open(void)
{
	struct sl_err err = SL_ERR_INIT;
	struct wh *w = NULL;

	if (wh_open_postgres(fixture_pg_dsn(), &w, &err))
		fail_msg("%s", err.msg);
	return w;
}

#endif
