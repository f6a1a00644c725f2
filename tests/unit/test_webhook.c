/*
 * Webhook ingest without HTTP: request bodies into rows (shapes, typed
 * conversions per type family, errors with row, column and line),
 * and signatures.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/arena.h"
#include "core/err.h"
#include "ingest/webhook.h"
#include "project/config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct arena *A;

static int setup(void **state)
{
	(void)state;
	A = arena_new(NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	arena_free(A);
	return 0;
}

/* The shop's checkouts source, with a few more types. */
static struct cfg_column shop_columns[] = {
	{ "checkout_id", "BIGINT" },
	{ "amount", "DOUBLE" },
	{ "region", "VARCHAR" },
	{ "paid_at", "TIMESTAMP" },
};
static const struct source_cfg shop = { .name = "checkouts",
					.kind = "webhook",
					.columns = shop_columns,
					.ncolumns = 4 };

/* webhook_parse on a NUL-terminated body. */
static int parse(const struct source_cfg *src, const char *body, bool ndjson,
		 struct webhook_rows *rows, struct sl_err *err)
{
	return webhook_parse(A, src, body, strlen(body), ndjson, rows, err);
}

static const char *cell(const struct webhook_rows *rows, size_t r, size_t c)
{
	const char *v;

	assert_true(r < rows->nrows);
	assert_true(c < rows->ncols);
	v = rows->cells[r * rows->ncols + c];
	return v ? v : "NULL";
}

/* The cell a one-column source of type `type` gets for the JSON value
 * text `value`, or "error CODE: message". */
static const char *convert(const char *type, const char *value)
{
	static struct cfg_column col;
	static struct source_cfg src = { .name = "s", .columns = &col, .ncolumns = 1 };
	const char *body = arena_sprintf(A, "{\"v\": %s}", value);
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;
	int rc;

	col.name = "v";
	col.type = type;
	rc = parse(&src, body, false, &rows, &err);
	if (rc) {
		assert_int_equal(rows.nrows, 0);
		assert_null(rows.cells);
		return arena_sprintf(A, "error %s: %s", sl_code_name(rc), err.msg);
	}
	assert_int_equal(rows.nrows, 1);
	assert_int_equal(rows.ncols, 2);
	return cell(&rows, 0, 0);
}

#define CONVERTS(type, value, want) assert_string_equal(convert(type, value), want)
#define REFUSES(type, value, msg) \
	assert_string_equal(convert(type, value), "error SL_E_INVALID: row 1, column v: " msg)

/* ---- body shapes ---- */

static void test_one_object(void **state)
{
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(parse(&shop,
			       "{\"checkout_id\": 7, \"amount\": 25.5, \"extra\": [1, {\"k\": null}],"
			       " \"paid_at\": null}",
			       false, &rows, &err),
			 0);
	assert_int_equal(rows.nrows, 1);
	assert_int_equal(rows.ncols, 5);
	assert_string_equal(cell(&rows, 0, 0), "7");
	assert_string_equal(cell(&rows, 0, 1), "25.5");
	/* a missing key and a JSON null are both SQL NULL */
	assert_null(rows.cells[2]);
	assert_null(rows.cells[3]);
	/* the payload is the whole object, compact, keys in the order sent */
	assert_string_equal(cell(&rows, 0, 4),
			    "{\"checkout_id\":7,\"amount\":25.5,\"extra\":[1,{\"k\":null}],"
			    "\"paid_at\":null}");
}

static void test_array_of_objects(void **state)
{
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(parse(&shop,
			       "[{\"checkout_id\": 1, \"region\": \"Europe\"},\n"
			       " {\"checkout_id\": 2, \"region\": \"Asia\"},\n"
			       " {\"checkout_id\": 3}]",
			       false, &rows, &err),
			 0);
	assert_int_equal(rows.nrows, 3);
	assert_int_equal(rows.ncols, 5);
	for (size_t r = 0; r < 3; r++) {
		assert_string_equal(cell(&rows, r, 0), arena_sprintf(A, "%zu", r + 1));
		assert_string_equal(cell(&rows, r, 1), "NULL");
	}
	assert_string_equal(cell(&rows, 0, 2), "Europe");
	assert_string_equal(cell(&rows, 1, 2), "Asia");
	assert_string_equal(cell(&rows, 2, 2), "NULL");
	assert_string_equal(cell(&rows, 2, 4), "{\"checkout_id\":3}");
}

static void test_ndjson(void **state)
{
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	/* blank lines, CRLF endings and a last newline are all fine */
	assert_int_equal(parse(&shop,
			       "{\"checkout_id\": 1}\n"
			       "\n"
			       "{\"checkout_id\": 2}\r\n"
			       "   \t\n"
			       "{\"checkout_id\": 3, \"amount\": 1}\n",
			       true, &rows, &err),
			 0);
	assert_int_equal(rows.nrows, 3);
	assert_string_equal(cell(&rows, 0, 0), "1");
	assert_string_equal(cell(&rows, 1, 0), "2");
	assert_string_equal(cell(&rows, 2, 0), "3");
	assert_string_equal(cell(&rows, 2, 4), "{\"checkout_id\":3,\"amount\":1}");
	/* without a last newline too */
	assert_int_equal(parse(&shop, "{\"checkout_id\": 1}\n{\"checkout_id\": 2}", true, &rows, &err),
			 0);
	assert_int_equal(rows.nrows, 2);
	/* an array is one document, not NDJSON */
	assert_int_equal(parse(&shop, "[{\"checkout_id\": 1}]", true, &rows, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "row 1 is an array, not an object");
}

static void test_empty_bodies_give_no_rows(void **state)
{
	static const char *const documents[] = { "", "   \r\n\t ", "[]", " [ ] " };
	static const char *const ndjson[] = { "", "\n\n\n", " \r\n\t\n" };
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(documents) / sizeof(documents[0]); i++) {
		assert_int_equal(parse(&shop, documents[i], false, &rows, &err), 0);
		assert_int_equal(rows.nrows, 0);
	}
	for (size_t i = 0; i < sizeof(ndjson) / sizeof(ndjson[0]); i++) {
		assert_int_equal(parse(&shop, ndjson[i], true, &rows, &err), 0);
		assert_int_equal(rows.nrows, 0);
	}
	assert_int_equal(webhook_parse(A, &shop, NULL, 0, false, &rows, &err), 0);
	assert_int_equal(rows.nrows, 0);
	/* an empty object is a row of NULLs */
	assert_int_equal(parse(&shop, "{}", false, &rows, &err), 0);
	assert_int_equal(rows.nrows, 1);
	assert_string_equal(cell(&rows, 0, 0), "NULL");
	assert_string_equal(cell(&rows, 0, 4), "{}");
}

static void test_invalid_json_says_where(void **state)
{
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(parse(&shop, "[{\"a\": 1},\n {\"a\": 2},\n x]", false, &rows, &err),
			 SL_E_PARSE);
	assert_string_equal(err.msg, "invalid JSON at line 3, column 2: invalid token near 'x'");
	assert_int_equal(rows.nrows, 0);
	assert_null(rows.cells);
	assert_int_equal(parse(&shop, "{\"a\": 1} {\"b\": 2}", false, &rows, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "invalid JSON at line 1, column 10: end of file expected near "
				     "'{'");
	/* NDJSON: the line is the body's, counting blank lines */
	assert_int_equal(parse(&shop, "{\"a\": 1}\n\n{\"a\": 2,}\n", true, &rows, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "invalid JSON at line 3, column 9: string or '}' expected near "
				     "'}'");
	assert_int_equal(rows.nrows, 0);
	/* one object spread over lines is not NDJSON */
	assert_int_equal(parse(&shop, "{\n\"a\": 1\n}\n", true, &rows, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "invalid JSON at line 1, column 1: string or '}' expected near "
				     "end of file");
}

/* A key twice in one object is read two ways: refused, nested too, and
 * in NDJSON; the same key in two objects is not a duplicate. */
static void test_duplicate_keys(void **state)
{
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(parse(&shop, "{\"a\": 1, \"a\": 2}", false, &rows, &err), SL_E_PARSE);
	assert_non_null(strstr(err.msg, "duplicate object key"));
	assert_int_equal(parse(&shop, "[{\"a\": 1, \"b\": {\"c\": 1, \"c\": 2}}]", false, &rows,
			       &err),
			 SL_E_PARSE);
	assert_int_equal(parse(&shop, "{\"a\": 1}\n{\"a\": 1, \"a\": 1}\n", true, &rows, &err),
			 SL_E_PARSE);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(parse(&shop, "[{\"a\": 1}, {\"a\": 2}]", false, &rows, &err), 0);
	assert_int_equal(rows.nrows, 2);
}

static void test_rows_that_are_not_objects(void **state)
{
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(parse(&shop, "\"hello\"", false, &rows, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "body is a string, not an object or an array of objects");
	assert_int_equal(parse(&shop, "42", false, &rows, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "body is a number, not an object or an array of objects");
	assert_int_equal(parse(&shop, "[{}, {}, \"x\"]", false, &rows, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "row 3 is a string, not an object");
	assert_int_equal(rows.nrows, 0);
	assert_int_equal(parse(&shop, "[{}, null]", false, &rows, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "row 2 is null, not an object");
	assert_int_equal(parse(&shop, "[[{}]]", false, &rows, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "row 1 is an array, not an object");
	/* NDJSON names the line when blank lines make it differ from the row */
	assert_int_equal(parse(&shop, "{}\ntrue\n", true, &rows, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "row 2 is a boolean, not an object");
	assert_int_equal(parse(&shop, "{}\n\n{}\n\n17\n", true, &rows, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "row 3 (line 5) is a number, not an object");
}

static void test_bad_value_names_row_and_column(void **state)
{
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(parse(&shop,
			       "[{\"amount\": 1}, {\"amount\": 2}, {\"amount\": \"abc\"}, "
			       "{\"amount\": 4}]",
			       false, &rows, &err),
			 SL_E_INVALID);
	assert_string_equal(err.msg, "row 3, column amount: \"abc\" is not a DOUBLE");
	assert_int_equal(rows.nrows, 0);
	assert_null(rows.cells);
	assert_int_equal(parse(&shop, "\n{\"checkout_id\": 1.5}", true, &rows, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "row 1 (line 2), column checkout_id: 1.5 is not a BIGINT (it "
				     "has a fractional part)");
}

/* ---- typed conversions ---- */

static void test_integers(void **state)
{
	(void)state;
	CONVERTS("TINYINT", "127", "127");
	CONVERTS("TINYINT", "-128", "-128");
	REFUSES("TINYINT", "128", "128 is out of range for TINYINT");
	REFUSES("TINYINT", "-129", "-129 is out of range for TINYINT");
	CONVERTS("smallint", "\"-32768\"", "-32768");
	REFUSES("smallint", "32768", "32768 is out of range for SMALLINT");
	CONVERTS("INTEGER", "2147483647", "2147483647");
	REFUSES("INTEGER", "2147483648", "2147483648 is out of range for INTEGER");
	REFUSES("INT", "\"12x\"", "\"12x\" is not an INT");
	CONVERTS("BIGINT", "-9223372036854775808", "-9223372036854775808");
	CONVERTS("BIGINT", "\"9223372036854775807\"", "9223372036854775807");
	REFUSES("BIGINT", "\"9223372036854775808\"",
		"\"9223372036854775808\" is out of range for BIGINT");
	/* a real without a fraction is an integer; one with a fraction is not */
	CONVERTS("BIGINT", "42.0", "42");
	CONVERTS("BIGINT", "1e3", "1000");
	CONVERTS("BIGINT", "\"1.5e1\"", "15");
	REFUSES("BIGINT", "1.5", "1.5 is not a BIGINT (it has a fractional part)");
	REFUSES("BIGINT", "\"1e-5\"", "\"1e-5\" is not a BIGINT (it has a fractional part)");
	CONVERTS("BIGINT", "\"-0\"", "0");
	CONVERTS("BIGINT", "\"007\"", "7");
	CONVERTS("BIGINT", "\"+5\"", "5");
	REFUSES("BIGINT", "\" 5\"", "\" 5\" is not a BIGINT");
	REFUSES("BIGINT", "\"0x10\"", "\"0x10\" is not a BIGINT");
	REFUSES("BIGINT", "\"\"", "\"\" is not a BIGINT");
	REFUSES("BIGINT", "true", "true is not a BIGINT");
	REFUSES("BIGINT", "[1]", "[1] is not a BIGINT");
	REFUSES("BIGINT", "\"1e999999999999\"", "\"1e999999999999\" is out of range for BIGINT");
	CONVERTS("UTINYINT", "255", "255");
	REFUSES("UTINYINT", "-1", "-1 is out of range for UTINYINT");
	CONVERTS("UBIGINT", "\"18446744073709551615\"", "18446744073709551615");
	REFUSES("UBIGINT", "\"18446744073709551616\"",
		"\"18446744073709551616\" is out of range for UBIGINT");
	CONVERTS("HUGEINT", "\"-170141183460469231731687303715884105728\"",
		 "-170141183460469231731687303715884105728");
	REFUSES("HUGEINT", "\"170141183460469231731687303715884105728\"",
		"\"170141183460469231731687303715884105728\" is out of range for HUGEINT");
	CONVERTS("UHUGEINT", "\"340282366920938463463374607431768211455\"",
		 "340282366920938463463374607431768211455");
	CONVERTS("HUGEINT", "1e20", "100000000000000000000");
	REFUSES("UHUGEINT", "1e40", "1e+40 is out of range for UHUGEINT");
	/* integers beyond 64 bits must come as strings: jansson refuses them */
	assert_string_equal(convert("UBIGINT", "18446744073709551615"),
			    "error SL_E_PARSE: invalid JSON at line 1, column 26: too big integer "
			    "near '18446744073709551615'");
}

static void test_floats(void **state)
{
	(void)state;
	CONVERTS("DOUBLE", "0.1", "0.1");
	CONVERTS("DOUBLE", "25", "25");
	CONVERTS("DOUBLE", "-1.5e-7", "-1.5e-07");
	CONVERTS("DOUBLE", "\"2.5e3\"", "2.5e3");
	CONVERTS("DOUBLE", "\".5\"", ".5");
	CONVERTS("FLOAT8", "1e300", "1e+300");
	REFUSES("DOUBLE", "\"1e400\"", "\"1e400\" is out of range for DOUBLE");
	REFUSES("DOUBLE", "\"nan\"", "\"nan\" is not a DOUBLE");
	REFUSES("DOUBLE", "\"inf\"", "\"inf\" is not a DOUBLE");
	REFUSES("DOUBLE", "\"1,5\"", "\"1,5\" is not a DOUBLE");
	REFUSES("DOUBLE", "{}", "{} is not a DOUBLE");
	CONVERTS("FLOAT", "3.4028235e38", "3.4028235e+38");
	REFUSES("FLOAT", "3.5e38", "3.5e+38 is out of range for FLOAT");
	REFUSES("REAL", "\"-1e39\"", "\"-1e39\" is out of range for REAL");
	CONVERTS("REAL", "1e-50", "1e-50");
}

static void test_decimals(void **state)
{
	(void)state;
	CONVERTS("DECIMAL(10,2)", "1.5", "1.50");
	CONVERTS("DECIMAL(10,2)", "12", "12.00");
	/* more digits than the scale round half away from zero, as DuckDB does */
	CONVERTS("DECIMAL(10,2)", "1.234", "1.23");
	CONVERTS("DECIMAL(10,2)", "1.235", "1.24");
	CONVERTS("DECIMAL(10,2)", "-1.235", "-1.24");
	CONVERTS("DECIMAL(10,2)", "\"0.001\"", "0.00");
	CONVERTS("DECIMAL(10,2)", "-0.001", "0.00");
	CONVERTS("DECIMAL(10,2)", "\"9.999\"", "10.00");
	CONVERTS("DECIMAL(10,2)", "\"1e2\"", "100.00");
	CONVERTS("decimal (10, 2)", "99999999.99", "99999999.99");
	REFUSES("DECIMAL(10,2)", "99999999.995",
		"99999999.995 is out of range for DECIMAL(10,2) (at most 8 digits before the "
		"point)");
	REFUSES("DECIMAL(10,2)", "123456789", "123456789 is out of range for DECIMAL(10,2) (at "
					      "most 8 digits before the point)");
	REFUSES("NUMERIC(4,1)", "\"12.3.4\"", "\"12.3.4\" is not a NUMERIC(4,1)");
	CONVERTS("DECIMAL", "1", "1.000");
	CONVERTS("DECIMAL(5)", "2.5", "3");
	CONVERTS("DECIMAL(3,3)", "0.1234", "0.123");
	REFUSES("DECIMAL(3,3)", "1", "1 is out of range for DECIMAL(3,3) (at most 0 digits before "
				     "the point)");
	CONVERTS("DECIMAL(38,0)", "\"99999999999999999999999999999999999999\"",
		 "99999999999999999999999999999999999999");
	REFUSES("DECIMAL(38,0)", "\"99999999999999999999999999999999999999.5\"",
		"\"99999999999999999999999999999999999999.5\" is out of range for DECIMAL(38,0) "
		"(at most 38 digits before the point)");
	CONVERTS("DECIMAL(38,38)", "\"-0.000000000000000000000000000000000000005\"",
		 "-0.00000000000000000000000000000000000001");
	REFUSES("DECIMAL(10,2)", "\"1e99999999999999\"",
		"\"1e99999999999999\" is out of range for DECIMAL(10,2) (at most 8 digits before "
		"the point)");
	CONVERTS("DECIMAL(10,2)", "\"1e-99999999999999\"", "0.00");
	/* a type DuckDB would refuse is a configuration problem */
	assert_string_equal(convert("DECIMAL(50,2)", "1"),
			    "error SL_E_CONFIG: invalid type 'DECIMAL(50,2)' (precision 1 to 38, "
			    "scale 0 to the precision)\n"
			    "  in column v of source s");
	assert_string_equal(convert("DECIMAL(4,5)", "1"),
			    "error SL_E_CONFIG: invalid type 'DECIMAL(4,5)' (precision 1 to 38, "
			    "scale 0 to the precision)\n"
			    "  in column v of source s");
}

static void test_booleans(void **state)
{
	(void)state;
	CONVERTS("BOOLEAN", "true", "true");
	CONVERTS("BOOLEAN", "false", "false");
	CONVERTS("BOOL", "\"TRUE\"", "true");
	CONVERTS("BOOLEAN", "\"False\"", "false");
	REFUSES("BOOLEAN", "1", "1 is not a BOOLEAN (expected true or false)");
	REFUSES("BOOLEAN", "\"yes\"", "\"yes\" is not a BOOLEAN (expected true or false)");
}

static void test_text_and_unchecked_types(void **state)
{
	(void)state;
	CONVERTS("VARCHAR", "\"caf\\u00e9 \\\"x\\\"\"", "caf\xc3\xa9 \"x\"");
	CONVERTS("VARCHAR", "12.5", "12.5");
	CONVERTS("VARCHAR", "0.1", "0.1");
	CONVERTS("TEXT", "3", "3");
	CONVERTS("STRING", "true", "true");
	CONVERTS("VARCHAR(3)", "\"longer than 3\"", "longer than 3");
	CONVERTS("VARCHAR", "{\"a\": [1, 2.50]}", "{\"a\":[1,2.5]}");
	/* types not checked here get the text, and DuckDB decides */
	CONVERTS("INTEGER[]", "[1, 2, \"3\"]", "[1,2,\"3\"]");
	CONVERTS("STRUCT(a INTEGER, b VARCHAR)", "{\"a\": 1, \"b\": \"x\"}",
		 "{\"a\":1,\"b\":\"x\"}");
	CONVERTS("ENUM_MOOD", "\"happy\"", "happy");
	CONVERTS("BIGINT NOT NULL", "\"anything\"", "anything");
	CONVERTS("FLOAT(53)", "1e300", "1e+300");
	CONVERTS("DECIMAL(10,2)[]", "[1.5]", "[1.5]");
	/* JSON keeps the value's JSON text, quotes and all */
	CONVERTS("JSON", "\"text\"", "\"text\"");
	CONVERTS("JSON", "{\"k\": [true, null]}", "{\"k\":[true,null]}");
	CONVERTS("JSON", "null", "NULL");
	CONVERTS("VARCHAR", "null", "NULL");
}

static void test_dates(void **state)
{
	(void)state;
	CONVERTS("DATE", "\"2024-02-29\"", "2024-02-29");
	REFUSES("DATE", "\"2023-02-29\"", "\"2023-02-29\" is not a DATE (no such date)");
	REFUSES("DATE", "\"2024-02-30\"", "\"2024-02-30\" is not a DATE (no such date)");
	REFUSES("DATE", "\"2024-04-31\"", "\"2024-04-31\" is not a DATE (no such date)");
	REFUSES("DATE", "\"2024-13-01\"", "\"2024-13-01\" is not a DATE (no such date)");
	REFUSES("DATE", "\"0000-01-01\"",
		"\"0000-01-01\" is not a DATE (out of range (years 0001 to 9999))");
	REFUSES("DATE", "\"2024-1-2\"", "\"2024-1-2\" is not a DATE (expected YYYY-MM-DD)");
	REFUSES("DATE", "\"2024-01-02T10:00:00\"",
		"\"2024-01-02T10:00:00\" is not a DATE (expected YYYY-MM-DD)");
	REFUSES("DATE", "20240102", "20240102 is not a DATE");
	CONVERTS("DATE", "\"1900-02-28\"", "1900-02-28");
	REFUSES("DATE", "\"1900-02-29\"", "\"1900-02-29\" is not a DATE (no such date)");
	CONVERTS("DATE", "\"2000-02-29\"", "2000-02-29");
}

static void test_times(void **state)
{
	(void)state;
	CONVERTS("TIME", "\"12:34\"", "12:34:00");
	CONVERTS("TIME", "\"23:59:59.999999\"", "23:59:59.999999");
	CONVERTS("TIME_NS", "\"00:00:00.123456789\"", "00:00:00.123456789");
	REFUSES("TIME", "\"24:00:00\"", "\"24:00:00\" is not a TIME (no such time)");
	REFUSES("TIME", "\"12:60\"", "\"12:60\" is not a TIME (no such time)");
	REFUSES("TIME", "\"12:00:60\"", "\"12:00:60\" is not a TIME (no such time)");
	REFUSES("TIME", "\"12:00:00.1234567891\"",
		"\"12:00:00.1234567891\" is not a TIME (expected HH:MM[:SS[.fraction]])");
	REFUSES("TIME", "\"12:00:00+02:00\"",
		"\"12:00:00+02:00\" is not a TIME (expected HH:MM[:SS[.fraction]])");
	REFUSES("TIME", "\"1:00\"", "\"1:00\" is not a TIME (expected HH:MM[:SS[.fraction]])");
	CONVERTS("TIMETZ", "\"12:34:56-05:30\"", "12:34:56-05:30");
	CONVERTS("TIMETZ", "\"12:34:56Z\"", "12:34:56+00:00");
	CONVERTS("TIME WITH TIME ZONE", "\"12:34+0200\"", "12:34:00+02:00");
	CONVERTS("TIMETZ", "\"12:34:56.5\"", "12:34:56.5+00:00");
	REFUSES("TIMETZ", "\"12:34:56+16:00\"", "\"12:34:56+16:00\" is not a TIMETZ (offset out of "
						"range)");
	REFUSES("TIMETZ", "\"12:34:56+02:60\"", "\"12:34:56+02:60\" is not a TIMETZ (offset out of "
						"range)");
}

static void test_timestamps(void **state)
{
	(void)state;
	CONVERTS("TIMESTAMP", "\"2024-01-02T03:04:05\"", "2024-01-02 03:04:05");
	CONVERTS("TIMESTAMP", "\"2024-01-02 03:04\"", "2024-01-02 03:04:00");
	CONVERTS("DATETIME", "\"2024-01-02\"", "2024-01-02 00:00:00");
	CONVERTS("TIMESTAMP", "\"2024-01-02t03:04:05.250Z\"", "2024-01-02 03:04:05.250");
	CONVERTS("TIMESTAMP_NS", "\"2024-01-02T03:04:05.123456789\"",
		 "2024-01-02 03:04:05.123456789");
	CONVERTS("timestamp(3)", "\"2024-01-02T03:04:05.5+01:00\"", "2024-01-02 02:04:05.5");
	CONVERTS("TIMESTAMP WITHOUT TIME ZONE", "\"2024-01-02T03:04:05Z\"", "2024-01-02 03:04:05");
	/* an offset is applied: DuckDB's appender would drop it */
	CONVERTS("TIMESTAMP", "\"2024-01-01T00:30:00+01:00\"", "2023-12-31 23:30:00");
	CONVERTS("TIMESTAMP", "\"2024-02-28T23:30:00-01:00\"", "2024-02-29 00:30:00");
	CONVERTS("TIMESTAMP", "\"2023-02-28T23:30:00-0100\"", "2023-03-01 00:30:00");
	CONVERTS("TIMESTAMP", "\"2024-01-02T03:04:05+05\"", "2024-01-01 22:04:05");
	CONVERTS("TIMESTAMPTZ", "\"2024-03-10T12:00:00.5-05:30\"", "2024-03-10 17:30:00.5+00");
	CONVERTS("TIMESTAMP WITH TIME ZONE", "\"2024-03-10 12:00:00\"", "2024-03-10 12:00:00+00");
	/* unix seconds, to the microsecond */
	CONVERTS("TIMESTAMP", "0", "1970-01-01 00:00:00");
	CONVERTS("TIMESTAMP", "-1", "1969-12-31 23:59:59");
	CONVERTS("TIMESTAMP", "1700000000.25", "2023-11-14 22:13:20.25");
	CONVERTS("TIMESTAMPTZ", "1709251200", "2024-03-01 00:00:00+00");
	CONVERTS("TIMESTAMP", "-62135596800", "0001-01-01 00:00:00");
	CONVERTS("TIMESTAMP", "253402300799", "9999-12-31 23:59:59");
	REFUSES("TIMESTAMP", "253402300800",
		"253402300800 is not a TIMESTAMP (out of range (years 0001 to 9999))");
	REFUSES("TIMESTAMP", "1e300", "1e+300 is not a TIMESTAMP (out of range (years 0001 to "
				      "9999))");
	REFUSES("TIMESTAMP", "\"0001-01-01T00:00:00+01:00\"",
		"\"0001-01-01T00:00:00+01:00\" is not a TIMESTAMP (out of range (years 0001 to "
		"9999))");
	REFUSES("TIMESTAMP", "\"9999-12-31T23:59:59-01:00\"",
		"\"9999-12-31T23:59:59-01:00\" is not a TIMESTAMP (out of range (years 0001 to "
		"9999))");
	REFUSES("TIMESTAMP", "\"2024-02-30T00:00:00\"",
		"\"2024-02-30T00:00:00\" is not a TIMESTAMP (no such date)");
	REFUSES("TIMESTAMP", "\"2024-01-02T25:00\"",
		"\"2024-01-02T25:00\" is not a TIMESTAMP (no such time)");
	REFUSES("TIMESTAMP", "\"2024-01-02 03:04:05 Europe/Paris\"",
		"\"2024-01-02 03:04:05 Europe/Paris\" is not a TIMESTAMP (expected "
		"YYYY-MM-DD[THH:MM[:SS[.fraction]]] and an optional Z or +HH:MM, or unix "
		"seconds)");
	REFUSES("TIMESTAMP", "\"1700000000\"",
		"\"1700000000\" is not a TIMESTAMP (expected YYYY-MM-DD[THH:MM[:SS[.fraction]]] "
		"and an optional Z or +HH:MM, or unix seconds)");
	REFUSES("TIMESTAMP", "\"2024-01-02T03\"",
		"\"2024-01-02T03\" is not a TIMESTAMP (expected "
		"YYYY-MM-DD[THH:MM[:SS[.fraction]]] and an optional Z or +HH:MM, or unix "
		"seconds)");
	REFUSES("TIMESTAMPTZ", "false", "false is not a TIMESTAMPTZ");
}

static void test_uuids(void **state)
{
	(void)state;
	CONVERTS("UUID", "\"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11\"",
		 "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
	CONVERTS("UUID", "\"a0eebc999c0b4ef8bb6d6bb9bd380a11\"",
		 "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
	CONVERTS("GUID", "\"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}\"",
		 "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
	REFUSES("UUID", "\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1\"",
		"\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1\" is not a UUID");
	REFUSES("UUID", "\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g\"",
		"\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g\" is not a UUID");
	REFUSES("UUID", "\"a0eebc999-c0b-4ef8-bb6d-6bb9bd380a11\"",
		"\"a0eebc999-c0b-4ef8-bb6d-6bb9bd380a11\" is not a UUID");
	REFUSES("UUID", "42", "42 is not a UUID");
}

static void test_dotted_path(void **state)
{
	static struct cfg_column cols[] = { { "customer.id", "BIGINT" } };
	static const struct source_cfg src = { .name = "s", .columns = cols, .ncolumns = 1 };
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(parse(&src,
			       "[{\"customer\": {\"id\": 42}},"
			       " {\"customer.id\": 7, \"customer\": {\"id\": 8}},"
			       " {\"customer\": 5},"
			       " {\"customer\": {\"name\": \"x\"}}]",
			       false, &rows, &err),
			 0);
	assert_string_equal(cell(&rows, 0, 0), "42");
	/* a top-level key of the full name wins */
	assert_string_equal(cell(&rows, 1, 0), "7");
	assert_string_equal(cell(&rows, 2, 0), "NULL");
	assert_string_equal(cell(&rows, 3, 0), "NULL");
}

static void test_payload_text(void **state)
{
	static const char body[] =
		"{\"s\": \"a\\\"b\\\\c\\nd\\u0001\\u00e9\\ud83d\\ude00/\", \"r\": [0.1, 1e21, "
		"-0.0, 100.0], \"i\": -7, \"b\": [true, false, null]}";
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;
	json_t *again;

	(void)state;
	assert_int_equal(parse(&shop, body, false, &rows, &err), 0);
	/* escapes JSON needs, UTF-8 as it is, reals in their shortest form */
	assert_string_equal(cell(&rows, 0, 4),
			    "{\"s\":\"a\\\"b\\\\c\\nd\\u0001\xc3\xa9\xf0\x9f\x98\x80/\","
			    "\"r\":[0.1,1e+21,-0.0,100.0],\"i\":-7,\"b\":[true,false,null]}");
	again = json_loads(cell(&rows, 0, 4), 0, NULL);
	assert_non_null(again);
	assert_string_equal(json_string_value(json_object_get(again, "s")),
			    "a\"b\\c\nd\x01\xc3\xa9\xf0\x9f\x98\x80/");
	json_decref(again);
}

static void test_hostile_input(void **state)
{
	struct webhook_rows rows;
	struct sl_err err = SL_ERR_INIT;
	char *deep, *huge;
	size_t n = 3000;

	(void)state;
	/* invalid UTF-8, NUL bytes and \u0000 are refused by the parser */
	assert_int_equal(parse(&shop, "{\"region\": \"\xff\"}", false, &rows, &err), SL_E_PARSE);
	assert_int_equal(webhook_parse(A, &shop, "{\"region\": \"a\0b\"}", 17, false, &rows, &err),
			 SL_E_PARSE);
	assert_int_equal(webhook_parse(A, &shop, "{}\n\0\n{}", 7, true, &rows, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "invalid JSON at line 2, column 1: invalid token near "
				     "end of file");
	assert_int_equal(parse(&shop, "{\"region\": \"\\u0000\"}", false, &rows, &err), SL_E_PARSE);
	assert_int_equal(parse(&shop, "{\"amount\": 1e999}", false, &rows, &err), SL_E_PARSE);
	/* nesting: deep is fine up to jansson's limit, deeper is an error */
	deep = arena_alloc(A, 2 * n + 16);
	memcpy(deep, "{\"x\":", 5);
	memset(deep + 5, '[', n);
	memset(deep + 5 + n, ']', n);
	strcpy(deep + 5 + 2 * n, "}");
	assert_int_equal(parse(&shop, deep, false, &rows, &err), SL_E_PARSE);
	memset(deep + 5 + 1000, ']', 1000);
	strcpy(deep + 5 + 2000, "}");
	assert_int_equal(parse(&shop, deep, false, &rows, &err), 0);
	assert_int_equal(strlen(cell(&rows, 0, 4)), 2006);
	/* a huge bad value is quoted short, cut on a character boundary */
	huge = arena_alloc(A, 2 * n + 32);
	strcpy(huge, "{\"amount\": \"");
	for (size_t i = 0; i < n; i++)
		memcpy(huge + 12 + 2 * i, "\xc3\xa9", 2);
	strcpy(huge + 12 + 2 * n, "\"}");
	assert_int_equal(parse(&shop, huge, false, &rows, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "row 1, column amount: \"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				     "... is not a DOUBLE");
}

/* ---- signatures ---- */

#define SECRET "whsec_test"
#define BODY "{\"order_id\":1}"
#define NOW 1700000000

static int verify(const char *ts, const char *sig, const char *body, int64_t now,
		  struct sl_err *err)
{
	return webhook_verify(SECRET, ts, sig, body, strlen(body), now, err);
}

static void test_sign_known_answer(void **state)
{
	char hex[65];

	(void)state;
	/* printf '1700000000.{"order_id":1}' | openssl dgst -sha256 -hmac whsec_test */
	assert_int_equal(webhook_sign(SECRET, NOW, BODY, strlen(BODY), hex), 0);
	assert_string_equal(hex, "393a834ff737d8a5ef182be00b6558b278e4629fba58ecc59b60966bdff183a9");
	assert_int_equal(webhook_sign(SECRET, NOW, "", 0, hex), 0);
	assert_string_equal(hex, "5967f3c560522fa40cf2876ebc3c3a08551dd6959aaade3b413460591895bdcc");
}

static void test_verify_good(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	char hex[65], *upper;

	(void)state;
	webhook_sign(SECRET, NOW, BODY, strlen(BODY), hex);
	assert_int_equal(verify("1700000000", arena_sprintf(A, "sha256=%s", hex), BODY, NOW, &err),
			 0);
	/* upper-case hex, and the scheme in any case */
	upper = arena_sprintf(A, "SHA256=%s", hex);
	for (char *p = upper + 7; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'f' ? *p - 32 : *p);
	assert_int_equal(verify("1700000000", upper, BODY, NOW, &err), 0);
	/* 300 s either way is still in time */
	assert_int_equal(verify("1700000000", arena_sprintf(A, "sha256=%s", hex), BODY,
				NOW + WEBHOOK_TOLERANCE_S, &err),
			 0);
	assert_int_equal(verify("1700000000", arena_sprintf(A, "sha256=%s", hex), BODY,
				NOW - WEBHOOK_TOLERANCE_S, &err),
			 0);
}

static void test_verify_hands_back_what_it_verified(void **state)
{
	struct webhook_signature sig, upper_sig;
	struct sl_err err = SL_ERR_INIT;
	char hex[65], *upper;

	(void)state;
	webhook_sign(SECRET, NOW, BODY, strlen(BODY), hex);
	assert_int_equal(webhook_verify_signature(SECRET, "1700000000",
						  arena_sprintf(A, "sha256=%s", hex), BODY,
						  strlen(BODY), NOW, &sig, &err),
			 0);
	assert_int_equal(sig.ts, NOW);
	for (int i = 0; i < WEBHOOK_MAC_LEN; i++) {
		unsigned int byte;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &byte), 1);
		assert_int_equal(sig.mac[i], byte);
	}
	/* the MAC names the request however its hex digits were written */
	upper = arena_sprintf(A, "sha256=%s", hex);
	for (char *p = upper + 7; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'f' ? *p - 32 : *p);
	assert_int_equal(webhook_verify_signature(SECRET, "1700000000", upper, BODY, strlen(BODY),
						  NOW, &upper_sig, &err),
			 0);
	assert_memory_equal(sig.mac, upper_sig.mac, WEBHOOK_MAC_LEN);
	/* a refusal leaves out alone */
	memset(&sig, 0x5a, sizeof(sig));
	upper_sig = sig;
	assert_int_equal(webhook_verify_signature(SECRET, "1700000001",
						  arena_sprintf(A, "sha256=%s", hex), BODY,
						  strlen(BODY), NOW, &sig, &err),
			 SL_E_AUTH_DENIED);
	assert_memory_equal(&sig, &upper_sig, sizeof(sig));
}

static void test_verify_refuses(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	char hex[65], other[65];
	const char *sig;

	(void)state;
	webhook_sign(SECRET, NOW, BODY, strlen(BODY), hex);
	sig = arena_sprintf(A, "sha256=%s", hex);
	/* wrong secret, tampered body, another timestamp */
	webhook_sign("another secret", NOW, BODY, strlen(BODY), other);
	assert_int_equal(verify("1700000000", arena_sprintf(A, "sha256=%s", other), BODY, NOW, &err),
			 SL_E_AUTH_DENIED);
	assert_string_equal(err.msg, "signature does not match (sign \"TIMESTAMP.BODY\" with the "
				     "source's secret)");
	assert_int_equal(verify("1700000000", sig, "{\"order_id\":2}", NOW, &err), SL_E_AUTH_DENIED);
	assert_int_equal(verify("1700000001", sig, BODY, NOW, &err), SL_E_AUTH_DENIED);
	/* too old, too far ahead */
	assert_int_equal(verify("1700000000", sig, BODY, NOW + 301, &err), SL_E_AUTH_EXPIRED);
	assert_string_equal(err.msg, "X-Sluice-Timestamp is 301 s old (at most 300 s; check the "
				     "sender's clock)");
	assert_int_equal(verify("1700000000", sig, BODY, NOW - 301, &err), SL_E_AUTH_EXPIRED);
	assert_string_equal(err.msg, "X-Sluice-Timestamp is 301 s in the future (at most 300 s; "
				     "check the sender's clock)");
	/* missing headers */
	assert_int_equal(verify(NULL, sig, BODY, NOW, &err), SL_E_AUTH_MISSING);
	assert_string_equal(err.msg, "missing X-Sluice-Timestamp header");
	assert_int_equal(verify("1700000000", "", BODY, NOW, &err), SL_E_AUTH_MISSING);
	assert_string_equal(err.msg, "missing X-Sluice-Signature header");
	/* malformed headers */
	assert_int_equal(verify("1700000000", hex, BODY, NOW, &err), SL_E_AUTH_MALFORMED);
	assert_string_equal(err.msg, "malformed X-Sluice-Signature header (expected sha256= and 64 "
				     "hex digits)");
	assert_int_equal(verify("1700000000", arena_sprintf(A, "sha1=%s", hex), BODY, NOW, &err),
			 SL_E_AUTH_MALFORMED);
	assert_int_equal(verify("1700000000", arena_sprintf(A, "sha256=%.63s", hex), BODY, NOW, &err),
			 SL_E_AUTH_MALFORMED);
	assert_int_equal(verify("1700000000", arena_sprintf(A, "sha256=%sa", hex), BODY, NOW, &err),
			 SL_E_AUTH_MALFORMED);
	assert_int_equal(verify("1700000000", arena_sprintf(A, "sha256=%.63sg", hex), BODY, NOW,
				&err),
			 SL_E_AUTH_MALFORMED);
	assert_int_equal(verify("1700000000", arena_sprintf(A, "sha256= %.63s", hex), BODY, NOW,
				&err),
			 SL_E_AUTH_MALFORMED);
	assert_int_equal(verify("17000000x0", sig, BODY, NOW, &err), SL_E_AUTH_MALFORMED);
	assert_string_equal(err.msg, "malformed X-Sluice-Timestamp header (expected unix seconds)");
	assert_int_equal(verify("-1700000000", sig, BODY, NOW, &err), SL_E_AUTH_MALFORMED);
	assert_int_equal(verify(" 1700000000", sig, BODY, NOW, &err), SL_E_AUTH_MALFORMED);
	assert_int_equal(verify("1700000000.5", sig, BODY, NOW, &err), SL_E_AUTH_MALFORMED);
	assert_int_equal(verify("99999999999999999999", sig, BODY, NOW, &err), SL_E_AUTH_MALFORMED);
	/* an empty secret would accept anyone's signature */
	assert_int_equal(webhook_verify("", "1700000000", sig, BODY, strlen(BODY), NOW, &err),
			 SL_E_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_object, setup, teardown),
		cmocka_unit_test_setup_teardown(test_array_of_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ndjson, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_bodies_give_no_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_json_says_where, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rows_that_are_not_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_value_names_row_and_column, setup, teardown),
		cmocka_unit_test_setup_teardown(test_integers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_floats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decimals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_booleans, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_and_unchecked_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_times, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timestamps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uuids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dotted_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_payload_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sign_known_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_good, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_hands_back_what_it_verified, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_verify_refuses, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
