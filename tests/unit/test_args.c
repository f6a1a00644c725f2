/*
 * The shared flag parser (src/cli/args.c): what is an option and what an
 * argument, so that SQL starting with a "--" comment, "-" for standard
 * input and anything after "--" reach the command as arguments, while a
 * flag whose value holds a space is still a flag. And the help printed
 * from the flag and command tables: every flag a command takes is
 * explained in its usage.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cli/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_command sql = { "sql", NULL, CLI_F_PROJECT | CLI_F_FILE | CLI_F_FORMAT |
						     CLI_F_SELECT,
					1, "QUERY", "", NULL };

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

/* Every flag has help text, and so does every note a command gives on a
 * flag, which must be one the command takes. */
static void test_every_flag_explained(void **state)
{
	(void)state;
	for (size_t i = 0; cli_options[i].long_name; i++) {
		assert_non_null(cli_options[i].help);
		assert_true(strlen(cli_options[i].help) > 10);
	}
	for (size_t c = 0; cli_commands[c].name; c++) {
		const struct cli_command *cmd = &cli_commands[c];

		assert_non_null(cmd->usage);
		assert_non_null(cmd->summary);
		assert_true(strlen(cmd->summary) > 10);
		for (size_t n = 0; cmd->notes && cmd->notes[n].long_name; n++) {
			bool taken = false;

			for (size_t i = 0; cli_options[i].long_name; i++)
				if (strcmp(cli_options[i].long_name, cmd->notes[n].long_name) == 0)
					taken = cmd->flags & cli_options[i].bit;
			if (!taken)
				fail_msg("'%s' has a note on --%s, which it does not take", cmd->name,
					 cmd->notes[n].long_name);
			assert_true(strlen(cmd->notes[n].help) > 10);
		}
	}
}

/* `sluice help CMD` shows the synopsis, the summary, and one line per flag
 * CMD takes that starts with the flag and goes on with its help. */
static void test_usage_lists_every_flag(void **state)
{
	(void)state;
	for (size_t c = 0; cli_commands[c].name; c++) {
		const struct cli_command *cmd = &cli_commands[c];
		char *text = NULL, head[256];
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		cli_print_usage(f, cmd);
		fclose(f);
		snprintf(head, sizeof(head), "usage: sluice %s %s\n\n  %.*s", cmd->name, cmd->usage,
			 (int)strcspn(cmd->summary, " "), cmd->summary);
		assert_memory_equal(text, head, strlen(head));
		for (size_t i = 0; cli_options[i].long_name; i++) {
			const struct cli_option *o = &cli_options[i];
			char flag[64], words[32];
			const char *at, *help = cli_option_help(cmd, o);

			snprintf(flag, sizeof(flag), " --%s%s%s ", o->long_name, o->value ? " " : "",
				 o->value ? o->value : "");
			at = strstr(text, flag);
			if (!(cmd->flags & o->bit)) {
				if (at)
					fail_msg("'%s' lists --%s, which it does not take", cmd->name,
						 o->long_name);
				continue;
			}
			if (!at)
				fail_msg("'%s' does not list --%s", cmd->name, o->long_name);
			/* the help starts on the flag's own line */
			snprintf(words, sizeof(words), "%.*s", (int)strcspn(help, " "), help);
			at += strspn(at + strlen(flag), " ") + strlen(flag);
			if (strncmp(at, words, strlen(words)) != 0)
				fail_msg("'%s' does not explain --%s", cmd->name, o->long_name);
		}
		free(text);
	}
}

/* A synopsis names each flag its command takes (as --long or -x), but
 * the --project every command that reads a project takes. */
static void test_synopsis_names_every_flag(void **state)
{
	(void)state;
	for (size_t c = 0; cli_commands[c].name; c++) {
		const struct cli_command *cmd = &cli_commands[c];

		for (size_t i = 0; cli_options[i].long_name; i++) {
			const struct cli_option *o = &cli_options[i];
			char l[64], s[8];

			if (!(cmd->flags & o->bit) || o->bit == CLI_F_PROJECT)
				continue;
			snprintf(l, sizeof(l), "--%s", o->long_name);
			snprintf(s, sizeof(s), "-%c ", o->short_name);
			if (!strstr(cmd->usage, l) && !(o->short_name && strstr(cmd->usage, s)))
				fail_msg("the synopsis of '%s' does not name --%s", cmd->name,
					 o->long_name);
		}
	}
}

/* The lines a usage prints fit 80 columns, the synopsis aside. */
static void test_usage_fits(void **state)
{
	(void)state;
	for (size_t c = 0; cli_commands[c].name; c++) {
		char *text = NULL, *line;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		cli_print_usage(f, &cli_commands[c]);
		fclose(f);
		line = strchr(text, '\n');
		while (line && line[1]) {
			size_t n = strcspn(line + 1, "\n");

			if (n > 79)
				fail_msg("'%s': a line of %zu columns: %.*s", cli_commands[c].name, n,
					 (int)n, line + 1);
			line = strchr(line + 1, '\n');
		}
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comment_first_is_an_argument),
		cmocka_unit_test(test_dash_and_double_dash),
		cmocka_unit_test(test_unknown_option_still_refused),
		cmocka_unit_test(test_every_flag_explained),
		cmocka_unit_test(test_usage_lists_every_flag),
		cmocka_unit_test(test_synopsis_names_every_flag),
		cmocka_unit_test(test_usage_fits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
