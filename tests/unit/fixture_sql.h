/*
 * Statements and queries a test needs to succeed, on any warehouse: a
 * failure fails the test and shows the SQL. Include after <cmocka.h>.
 */
#ifndef SL_TESTS_FIXTURE_SQL_H
#define SL_TESTS_FIXTURE_SQL_H

#include "core/arena.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <stdint.h>

static inline void exec(struct wh *w, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;

	if (wh_exec(w, sql, &err))
		fail_msg("%s\n%s", err.msg, sql);
}

static inline int64_t query_int(struct wh *w, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;
	int64_t v = -1;

	if (wh_query_int(w, sql, &v, &err))
		fail_msg("%s\n%s", err.msg, sql);
	return v;
}

/* The first value of the first row as text ("NULL" for SQL NULL, "" for no
 * row), copied into a. */
static inline const char *query_str(struct wh *w, struct arena *a, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;
	struct wh_result *r;
	const char *s;

	if (wh_query(w, sql, &r, &err))
		fail_msg("%s\n%s", err.msg, sql);
	s = !wh_result_nrows(r) ? "" : wh_result_value(r, 0, 0) ? wh_result_value(r, 0, 0) : "NULL";
	s = arena_strdup(a, s);
	wh_result_free(r);
	return s;
}

#endif
