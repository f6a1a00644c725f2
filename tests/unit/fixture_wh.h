/*
 * What the unit tests that work on a DuckDB warehouse share: one in-memory
 * database for a whole file, emptied between tests, and statements and
 * queries that must succeed. Include after <cmocka.h>.
 *
 * Everything here is static inline so that a test file may use any part
 * of it without -Wunused-function complaining about the rest.
 */
#ifndef SL_TESTS_FIXTURE_WH_H
#define SL_TESTS_FIXTURE_WH_H

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "fixture_sql.h"
#include "warehouse/wh.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* One in-memory database for the whole file, for the files that use
 * fixture_db: opening one per test would be most of the run time. */
static struct wh *db;

/* A new in-memory database in *w; when it cannot be opened, says why on
 * stderr and returns -1, which fails a cmocka setup. */
static inline int fixture_open_memory(struct wh **w)
{
	struct sl_err err = SL_ERR_INIT;

	if (wh_open_duckdb(":memory:", false, w, &err)) {
		fprintf(stderr, "cannot open DuckDB: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* The same for tables of a few rows: on one thread, since worker threads
 * would only add wake-ups. */
static inline int fixture_open_tiny(struct wh **w)
{
	struct sl_err err = SL_ERR_INIT;

	if (fixture_open_memory(w))
		return -1;
	if (wh_exec(*w, "SET threads = 1", &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static inline int fixture_db_group_setup(void **state)
{
	(void)state;
	return fixture_open_memory(&db);
}

static inline int fixture_db_group_teardown(void **state)
{
	(void)state;
	wh_close(db);
	return 0;
}

/* Rolls back what a test left open and drops every schema and every
 * relation of main, so that the next test finds db empty. */
static inline int fixture_db_clean(void)
{
	struct wh_result *r;
	struct buf sql = BUF_INIT;
	int rc;

	wh_rollback(db);
	rc = wh_query(db,
		      "SELECT DISTINCT 'DROP SCHEMA \"' || schema_name || '\" CASCADE' "
		      "FROM information_schema.schemata WHERE catalog_name = current_database() "
		      "AND schema_name NOT IN ('main', 'information_schema', 'pg_catalog') "
		      "UNION ALL SELECT 'DROP ' || CASE WHEN table_type = 'VIEW' THEN 'VIEW' "
		      "ELSE 'TABLE' END || ' main.\"' || table_name || '\"' "
		      "FROM information_schema.tables WHERE table_schema = 'main'",
		      &r, NULL);
	if (rc)
		return rc;
	for (size_t i = 0; i < wh_result_nrows(r); i++)
		buf_addf(&sql, "%s;\n", wh_result_value(r, i, 0));
	wh_result_free(r);
	if (sql.len)
		rc = wh_exec(db, sql.buf, NULL);
	buf_release(&sql);
	return rc;
}

/* What a test in db keeps: its arena, the connection (db itself), room
 * for an error, and a file to remove after it. */
struct fixture_db {
	struct arena *a;
	struct wh *w;
	struct sl_err err;
	char path[64]; /* empty unless the test wrote a file */
};

static inline int fixture_db_setup(void **state)
{
	struct fixture_db *f = calloc(1, sizeof(*f));

	f->a = arena_new(NULL);
	f->w = db;
	*state = f;
	return 0;
}

static inline int fixture_db_teardown(void **state)
{
	struct fixture_db *f = *state;
	int rc;

	if (f->path[0])
		unlink(f->path);
	rc = fixture_db_clean();
	arena_free(f->a);
	free(f);
	return rc ? -1 : 0;
}

#endif
