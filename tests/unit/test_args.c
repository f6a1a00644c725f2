/*
 * The shared flag parser (src/cli/args.c): what is an option and what an
 * argument, so that SQL starting with a "--" comment, "-" for standard
 * input and anything after "--" reach the command as arguments, while a
 * flag whose value holds a space is still a flag.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cli/cli.h"

#include <stdlib.h>

/* args.c prints a command's usage for --help: main.c's, not linked here */
void cli_print_usage(const struct cli_command *c)
{
	(void)c;
}

static const struct cli_command sql = { "sql", NULL, CLI_F_PROJECT | CLI_F_FILE | CLI_F_FORMAT |
						     CLI_F_SELECT,
					1, "QUERY", "" };

static int parse(struct cli_args *out, int argc, const char **argv)
{
	return cli_args_parse(&sql, argc, (char **)argv, out);
}

static void test_comment_first_is_an_argument(void **state)
{
	const char *argv[] = { "-- a comment\nSELECT 1", "--format", "csv" };
	const char *nl[] = { "--comment\nSELECT 1" };
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, 3, argv), CLI_OK);
	assert_int_equal(a.npos, 1);
	assert_string_equal(a.pos[0], argv[0]);
	assert_string_equal(a.format, "csv");
	free(a.pos);
	assert_int_equal(parse(&a, 1, nl), CLI_OK);
	assert_int_equal(a.npos, 1);
	free(a.pos);
}

static void test_dash_and_double_dash(void **state)
{
	const char *dash[] = { "-" };
	const char *after[] = { "--", "--format" };
	const char *file[] = { "-f", "q.sql", "--max-rows=5" };
	const char *spaced[] = { "--select=a b" };
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, 1, dash), CLI_OK);
	assert_string_equal(a.pos[0], "-");
	free(a.pos);
	assert_int_equal(parse(&a, 2, after), CLI_OK);
	assert_int_equal(a.npos, 1);
	assert_string_equal(a.pos[0], "--format");
	assert_null(a.format);
	free(a.pos);
	assert_int_equal(parse(&a, 3, file), CLI_OK);
	assert_string_equal(a.file, "q.sql");
	assert_string_equal(a.max_rows, "5");
	assert_int_equal(a.argc, 3);
	free(a.pos);
	assert_int_equal(parse(&a, 1, spaced), CLI_OK);
	assert_string_equal(a.select, "a b");
	assert_int_equal(a.npos, 0);
	free(a.pos);
}

static void test_unknown_option_still_refused(void **state)
{
	const char *argv[] = { "--formt", "csv" };
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, 2, argv), CLI_USAGE);
	free(a.pos);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comment_first_is_an_argument),
		cmocka_unit_test(test_dash_and_double_dash),
		cmocka_unit_test(test_unknown_option_still_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
