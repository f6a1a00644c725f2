/*
 * Unit tests for seed files read by DuckDB's CSV reader (src/warehouse/
 * csv.c): the delimiter, quoting, header and types it detects, values as
 * DuckDB's text, column names folded for a warehouse that folds unquoted
 * names, and the reader's errors naming the file and line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/arena.h"
#include "core/err.h"
#include "warehouse/csv.h"
#include "warehouse/csv_file.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fx {
	struct arena *a;
	struct sl_err err;
	char path[64];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->a = arena_new(NULL);
	snprintf(f->path, sizeof(f->path), "/tmp/sluice-test-csv-XXXXXX");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	unlink(f->path);
	arena_free(f->a);
	free(f);
	return 0;
}

/* The file f->path made to hold text. */
static void write_file(struct fx *f, const char *text)
{
	int fd = mkstemp(f->path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A file as the model-car company's exports write them: `;` between
 * fields, quotes around some, a `;` inside quotes, a quoted line break,
 * empty fields for NULL. */
static void test_detects_delimiter_quotes_and_types(void **state)
{
	struct fx *f = *state;
	struct csv_file c;

	write_file(f, "\"orderNumber\";\"orderDate\";\"note\";\"price\";\"paid\";\"at\"\n"
		      "10100;\"2003-01-06\";\"one; two\";136.00;true;2003-01-06 10:00:00\n"
		      "10101;\"2003-01-09\";\"a\nb\";55.09;false;\n"
		      "10102;;;1e3;;2003-01-07 00:00:01\n");
	if (csv_open(f->a, f->path, &c, &f->err))
		fail_msg("%s", f->err.msg);
	assert_int_equal(c.ncols, 6);
	assert_int_equal(c.nrows, 3);
	assert_string_equal(c.names[0], "orderNumber");
	assert_string_equal(c.types[0], "BIGINT");
	assert_string_equal(c.types[1], "DATE");
	assert_string_equal(c.types[2], "VARCHAR");
	assert_string_equal(c.types[3], "DOUBLE");
	assert_string_equal(c.types[4], "BOOLEAN");
	assert_string_equal(c.types[5], "TIMESTAMP");
	assert_string_equal(wh_result_value(c.rows, 0, 2), "one; two");
	assert_string_equal(wh_result_value(c.rows, 1, 2), "a\nb");
	/* DuckDB's own text of each value, which every warehouse reads back
	 * as the same value */
	assert_string_equal(wh_result_value(c.rows, 0, 3), "136.0");
	assert_string_equal(wh_result_value(c.rows, 1, 3), "55.09");
	assert_string_equal(wh_result_value(c.rows, 2, 3), "1000.0");
	assert_string_equal(wh_result_value(c.rows, 0, 5), "2003-01-06 10:00:00");
	assert_null(wh_result_value(c.rows, 2, 1));
	assert_null(wh_result_value(c.rows, 2, 2));
	assert_null(wh_result_value(c.rows, 1, 5));
	csv_close(&c);
}

/* A header row without rows: its columns, as text. */
static void test_header_alone(void **state)
{
	struct fx *f = *state;
	struct csv_file c;

	write_file(f, "k,v\n");
	if (csv_open(f->a, f->path, &c, &f->err))
		fail_msg("%s", f->err.msg);
	assert_int_equal(c.ncols, 2);
	assert_int_equal(c.nrows, 0);
	assert_string_equal(c.names[1], "v");
	csv_close(&c);
}

/* What the reader refuses names the file and the line, in sluice's words. */
static void test_errors_name_file_and_line(void **state)
{
	struct fx *f = *state;
	struct csv_file c;
	char want[128];

	write_file(f, "k,note\n1,a\n2,b\n3,\xe9t\xe9\n");
	assert_int_equal(csv_open(f->a, f->path, &c, &f->err), SL_E_SQL);
	snprintf(want, sizeof(want), "%s:4: invalid unicode", f->path);
	if (strncmp(f->err.msg, want, strlen(want)) != 0)
		fail_msg("%s", f->err.msg);
	assert_null(strstr(f->err.msg, "Possible Solution"));
	assert_non_null(strstr(f->err.msg, "\n  hint: a seed is a CSV file in UTF-8"));
	assert_int_equal(csv_open(f->a, "/nonexistent/x.csv", &c, &f->err), SL_E_IO);
	assert_string_equal(f->err.msg, "cannot read '/nonexistent/x.csv': No such file or directory");
}

/* A FIFO in a seed's place is refused at once: waiting for a writer would
 * hang the load. */
static void test_fifo_refused_without_blocking(void **state)
{
	struct fx *f = *state;
	struct csv_file c;
	char want[128];

	write_file(f, "");
	unlink(f->path);
	assert_int_equal(mkfifo(f->path, 0600), 0);
	assert_int_equal(csv_open(f->a, f->path, &c, &f->err), SL_E_IO);
	snprintf(want, sizeof(want), "cannot read '%s': not a regular file", f->path);
	assert_string_equal(f->err.msg, want);
}

/* A value beyond the rows the reader samples for types, which the type it
 * chose refuses: the line is the file's, the header being line 1. */
static void test_late_value_names_its_line(void **state)
{
	struct fx *f = *state;
	struct csv_file c;
	size_t n = 60000, len = 0;
	char *text = malloc(n * 16 + 64), want[128];

	len += (size_t)sprintf(text + len, "k,v\n");
	for (size_t i = 1; i <= n; i++)
		len += (size_t)sprintf(text + len, "%zu,%zu\n", i, i);
	sprintf(text + len, "%zu,x\n", n + 1);
	write_file(f, text);
	free(text);
	assert_int_not_equal(csv_open(f->a, f->path, &c, &f->err), 0);
	snprintf(want, sizeof(want), "%s:%zu: error when converting column \"v\"", f->path, n + 2);
	if (strncmp(f->err.msg, want, strlen(want)) != 0)
		fail_msg("%s", f->err.msg);
}

/* Plain names in lower case, any other name as it is. */
static void test_names_folded(void **state)
{
	struct fx *f = *state;

	assert_string_equal(csv_name_folded(f->a, "orderNumber"), "ordernumber");
	assert_string_equal(csv_name_folded(f->a, "MSRP"), "msrp");
	assert_string_equal(csv_name_folded(f->a, "_Id2"), "_id2");
	assert_string_equal(csv_name_folded(f->a, "already_lower"), "already_lower");
	assert_string_equal(csv_name_folded(f->a, "Order Date"), "Order Date");
	assert_string_equal(csv_name_folded(f->a, "2ndLine"), "2ndLine");
	assert_string_equal(csv_name_folded(f->a, "Größe"), "Größe");
	assert_string_equal(csv_name_folded(f->a, "a-B"), "a-B");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_detects_delimiter_quotes_and_types),
		T(test_header_alone),
		T(test_errors_name_file_and_line),
		T(test_fifo_refused_without_blocking),
		T(test_late_value_names_its_line),
		T(test_names_folded),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
