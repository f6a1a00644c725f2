/*
 * @assert checks: each becomes a query for the rows that break it, run on
 * the freshly built relation inside the build's transaction, counted, with
 * up to ASSERT_SAMPLE rows kept for the report.
 */
#ifndef SL_EXEC_ASSERT_H
#define SL_EXEC_ASSERT_H

#include "project/model.h"

#include <stdint.h>

struct arena;
struct buf;
struct sl_err;
struct wh;
struct wh_result;

#define ASSERT_SAMPLE 5

struct assert_result {
	const struct model *model; /* whose check: the built model or an ephemeral it inlines */
	const struct model_assert *check;
	int64_t failures;
	struct wh_result *sample; /* owned; freed by assert_results_free */
};

/* The query returning the rows that break check, on relation (SQL text). */
void assert_failing_sql(const struct model_assert *check, const char *relation, struct buf *out);

/* Runs every check of m on relation; with, when not NULL, is a common
 * table expression ("name AS (query)") each check's query starts with, for
 * a relation that is a query rather than a table. *out (n entries, one per
 * check) must be freed with assert_results_free. Its scratch memory is
 * an arena child of parent (the build's, may be NULL). */
int assert_run_all(struct wh *w, struct arena *parent, const struct model *m, const char *with,
		   const char *relation, struct assert_result **out, size_t *n,
		   struct sl_err *err);
void assert_results_free(struct assert_result *r, size_t n);

/* How many error-severity checks failed. */
size_t assert_errors(const struct assert_result *r, size_t n);

#endif
