/*
 * What the benchmark programs share: opening a project and its warehouse,
 * running warehouse statements and giving up with the error, and ordering
 * timings. Each program is one file that includes this.
 */
#ifndef SL_BENCH_SQL_H
#define SL_BENCH_SQL_H

#include "core/arena.h"
#include "core/err.h"
#include "project/project.h"
#include "project/validate.h"
#include "warehouse/sqlparse.h"
#include "warehouse/wh.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline void die(const struct sl_err *err)
{
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, err->msg);
	exit(1);
}

static inline void exec(struct wh *w, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;

	if (wh_exec(w, sql, &err))
		die(&err);
}

static inline int64_t qint(struct wh *w, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;
	int64_t v = 0;

	if (wh_query_int(w, sql, &v, &err))
		die(&err);
	return v;
}

/* The project in dir (in arena a) and its warehouse, opened for writing. */
static inline struct project *load(struct arena *a, const char *dir,
				   struct sqlparse **parser, struct wh **w)
{
	struct sl_err err = SL_ERR_INIT;
	struct project *p;
	char path[4096];

	if (sqlparse_open(parser, &err) || project_load(a, dir, *parser, &p, &err))
		die(&err);
	project_validate(p, NULL, 0);
	snprintf(path, sizeof(path), "%s/%s", dir, p->cfg.warehouse.path);
	if (wh_open_duckdb(path, false, w, &err))
		die(&err);
	return p;
}

static inline int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

#endif
