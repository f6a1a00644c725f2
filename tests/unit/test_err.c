/*
 * Unit tests for error values (src/core/err.c): setting a message, context
 * lines, truncation at the fixed size, and the names and texts of codes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"

#include <stdio.h>
#include <string.h>

static void test_set_returns_code(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(err.code, 0);
	assert_string_equal(err.msg, "");
	assert_int_equal(sl_err_set(&err, SL_E_IO, "cannot read '%s'", "a.sql"), SL_E_IO);
	assert_int_equal(err.code, SL_E_IO);
	assert_string_equal(err.msg, "cannot read 'a.sql'");
	/* a second set replaces the first */
	assert_int_equal(sl_err_set(&err, SL_E_PARSE, "%d problems", 3), SL_E_PARSE);
	assert_int_equal(err.code, SL_E_PARSE);
	assert_string_equal(err.msg, "3 problems");
	/* no struct: the code still comes back */
	assert_int_equal(sl_err_set(NULL, SL_E_SQL, "ignored %s", "x"), SL_E_SQL);
}

static void test_context_lines(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	sl_err_set(&err, SL_E_SQL, "table not found");
	sl_err_context(&err, "in model %s (%s:%d)", "gold.revenue", "models/gold/revenue.sql", 4);
	sl_err_context(&err, "while running '%s'", "sluice run");
	assert_string_equal(err.msg, "table not found\n"
				     "  in model gold.revenue (models/gold/revenue.sql:4)\n"
				     "  while running 'sluice run'");
	assert_int_equal(err.code, SL_E_SQL);
}

static void test_context_without_error(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	sl_err_context(&err, "in model %s", "a.b");
	assert_int_equal(err.code, 0);
	assert_string_equal(err.msg, "");
	sl_err_context(NULL, "in model %s", "a.b");
}

static void test_clear(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	sl_err_set(&err, SL_E_CYCLE, "a -> b -> a");
	sl_err_clear(&err);
	assert_int_equal(err.code, 0);
	assert_string_equal(err.msg, "");
	sl_err_clear(NULL);
	/* a cleared error takes no context */
	sl_err_context(&err, "more");
	assert_string_equal(err.msg, "");
}

static void test_truncation(void **state)
{
	static char big[SL_ERR_MSG_MAX * 2];
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	sl_err_set(&err, SL_E_SQL, "%s", big);
	assert_int_equal(strlen(err.msg), SL_ERR_MSG_MAX - 1);
	sl_err_context(&err, "%s", "dropped");
	assert_int_equal(strlen(err.msg), SL_ERR_MSG_MAX - 1);
	assert_null(strstr(err.msg, "dropped"));

	/* a context line that does not fit whole is cut at the end */
	big[SL_ERR_MSG_MAX - 20] = '\0';
	sl_err_set(&err, SL_E_SQL, "%s", big);
	sl_err_context(&err, "%s", big);
	assert_int_equal(strlen(err.msg), SL_ERR_MSG_MAX - 1);
	assert_memory_equal(err.msg + SL_ERR_MSG_MAX - 20, "\n  ", 3);
}

static void test_names_and_texts(void **state)
{
	(void)state;
	assert_string_equal(sl_code_name(SL_OK), "SL_OK");
	assert_string_equal(sl_code_text(SL_OK), "ok");
	assert_string_equal(sl_code_name(SL_E_IO), "SL_E_IO");
	assert_string_equal(sl_code_text(SL_E_IO), "input/output error");
	assert_string_equal(sl_code_name(SL_E_TOOBIG), "SL_E_TOOBIG");
	assert_string_equal(sl_code_text(SL_E_TOOBIG), "size limit exceeded");
	assert_string_equal(sl_code_name(SL_E_VERSION), "SL_E_VERSION");
	assert_string_equal(sl_code_text(SL_E_CYCLE), "dependency cycle");
	assert_string_equal(sl_code_name(-999), "SL_E_UNKNOWN");
	assert_string_equal(sl_code_text(-999), "unknown error");
	assert_string_equal(sl_code_name(1), "SL_E_UNKNOWN");
}

/* Every code of the X-macro list: negative, numbered without gaps from -1
 * (codes are only appended), with its own name and a lowercase text. */
static void test_code_table(void **state)
{
	static const struct {
		int value;
		const char *name, *text;
	} codes[] = {
#define ROW(name, value, text) { value, #name, text },
		SL_ERRORS(ROW)
#undef ROW
	};
	size_t n = sizeof(codes) / sizeof(codes[0]);

	(void)state;
	assert_true(n >= 15);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(codes[i].value, -(int)i - 1);
		assert_string_equal(sl_code_name(codes[i].value), codes[i].name);
		assert_string_equal(sl_code_text(codes[i].value), codes[i].text);
		assert_true(strncmp(codes[i].name, "SL_E_", 5) == 0);
		assert_false(codes[i].text[0] >= 'A' && codes[i].text[0] <= 'Z');
		assert_int_not_equal(codes[i].text[strlen(codes[i].text) - 1], '.');
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(codes[i].name, codes[j].name);
	}
	assert_string_equal(sl_code_name(-(int)n - 1), "SL_E_UNKNOWN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_returns_code),
		cmocka_unit_test(test_context_lines),
		cmocka_unit_test(test_context_without_error),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_names_and_texts),
		cmocka_unit_test(test_code_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
