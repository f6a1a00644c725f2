/*
 * What the benchmark programs share: running warehouse statements and
 * giving up with the error, and ordering timings. Each program is one
 * file that includes this.
 */
#ifndef SL_BENCH_SQL_H
#define SL_BENCH_SQL_H

#include "core/err.h"
#include "warehouse/wh.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void die(const struct sl_err *err)
{
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, err->msg);
	exit(1);
}

static void exec(struct wh *w, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;

	if (wh_exec(w, sql, &err))
		die(&err);
}

static int64_t qint(struct wh *w, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;
	int64_t v = 0;

	if (wh_query_int(w, sql, &v, &err))
		die(&err);
	return v;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

#endif
