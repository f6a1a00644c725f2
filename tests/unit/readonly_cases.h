/*
 * The cases of a reader's query (wh_query_readonly) that every backend
 * passes alike: how its rows are bounded by bytes. Included by a test file
 * that first defines `static struct wh *db`, the warehouse it reads.
 */
#ifndef SL_TESTS_READONLY_CASES_H
#define SL_TESTS_READONLY_CASES_H

#include <stdio.h>

static const struct wh_read_limits roomy = { .max_rows = 1000, .max_bytes = 1 << 20,
					     .timeout_ms = 10000 };

/* The code wh_query_readonly gives for sql, err's message in msg. */
static int reads(const char *sql, const struct wh_read_limits *lim, struct wh_result **out,
		 bool *truncated, char *msg, size_t size)
{
	struct sl_err err = SL_ERR_INIT;
	int rc = wh_query_readonly(db, sql, lim, out, truncated, &err);

	snprintf(msg, size, "%s", err.msg);
	return rc;
}

static size_t result_bytes(const struct wh_result *r)
{
	size_t bytes = 0;

	for (size_t i = 0; i < wh_result_nrows(r); i++)
		for (size_t c = 0; c < wh_result_ncols(r); c++)
			bytes += wh_result_value_len(r, i, c) + 1;
	return bytes;
}

/* The row that would pass the byte limit is not read into the result, nor
 * any after it: the result never holds more than the limit, however large
 * a value. */
static void test_bytes_bounded_per_row(void **state)
{
	struct wh_read_limits lim = roomy;
	struct wh_result *r;
	bool truncated;
	char msg[4096];

	(void)state;
	lim.max_bytes = 1 << 20;
	assert_int_equal(reads("SELECT repeat('x', 3000000) AS v FROM generate_series(1, 5)", &lim,
			       &r, &truncated, msg, sizeof(msg)),
			 0);
	assert_true(truncated);
	assert_int_equal(wh_result_nrows(r), 0);
	assert_int_equal(wh_result_ncols(r), 1);
	wh_result_free(r);
	assert_int_equal(reads("SELECT repeat('x', 300000) AS v, 1 AS n FROM generate_series(1, 10)",
			       &lim, &r, &truncated, msg, sizeof(msg)),
			 0);
	assert_true(truncated);
	assert_int_equal(wh_result_nrows(r), 3);
	assert_true(result_bytes(r) <= lim.max_bytes);
	wh_result_free(r);
	assert_int_equal(reads("SELECT repeat('x', 300000) AS v FROM generate_series(1, 3)", &lim, &r,
			       &truncated, msg, sizeof(msg)),
			 0);
	assert_false(truncated);
	assert_int_equal(wh_result_nrows(r), 3);
	wh_result_free(r);
	assert_int_equal(reads("SELECT 1 AS one", &roomy, &r, &truncated, msg, sizeof(msg)), 0);
	wh_result_free(r);
}

/* A page further on: the rows before offset are skipped (across the
 * warehouse's batches of rows), count for no limit, and the page says
 * whether more follow; an offset past the end reads nothing. */
static void test_offset_pages(void **state)
{
	struct wh_read_limits lim = roomy;
	struct wh_result *r;
	bool truncated;
	char msg[4096];

	(void)state;
	lim.max_rows = 3;
	lim.offset = 4097;
	assert_int_equal(reads("SELECT x FROM generate_series(1, 5000) AS t(x) ORDER BY x", &lim, &r,
			       &truncated, msg, sizeof(msg)),
			 0);
	assert_true(truncated);
	assert_int_equal(wh_result_nrows(r), 3);
	assert_string_equal(wh_result_value(r, 0, 0), "4098");
	assert_string_equal(wh_result_value(r, 2, 0), "4100");
	wh_result_free(r);
	lim.offset = 4998;
	assert_int_equal(reads("SELECT x FROM generate_series(1, 5000) AS t(x) ORDER BY x", &lim, &r,
			       &truncated, msg, sizeof(msg)),
			 0);
	assert_false(truncated);
	assert_int_equal(wh_result_nrows(r), 2);
	assert_string_equal(wh_result_value(r, 1, 0), "5000");
	wh_result_free(r);
	/* the skipped rows are never measured: a large one before the page
	 * passes no byte limit */
	lim.max_bytes = 1000;
	lim.offset = 1;
	assert_int_equal(reads("SELECT CASE WHEN x = 1 THEN repeat('x', 5000) ELSE 'y' END AS v "
			       "FROM generate_series(1, 3) AS t(x) ORDER BY x",
			       &lim, &r, &truncated, msg, sizeof(msg)),
			 0);
	assert_false(truncated);
	assert_int_equal(wh_result_nrows(r), 2);
	wh_result_free(r);
	lim.offset = 1000000;
	assert_int_equal(reads("SELECT x FROM generate_series(1, 5) AS t(x)", &lim, &r, &truncated,
			       msg, sizeof(msg)),
			 0);
	assert_false(truncated);
	assert_int_equal(wh_result_nrows(r), 0);
	assert_int_equal(wh_result_ncols(r), 1);
	wh_result_free(r);
}

#endif
