/*
 * Unit tests for diagnostics lists (src/core/diag.c): adding (strings copied
 * into the arena), counting by severity, the stable sort by place, and the
 * printed "file:line:col: error: msg" format with its hint line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/arena.h"
#include "core/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fx {
	struct arena *a;
	struct diag_list d;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->a = arena_new(NULL);
	diag_list_init(&f->d, f->a);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	arena_free(f->a);
	free(f);
	return 0;
}

/* What diag_print writes, as a malloc'd string. */
static char *printed(const struct diag_list *l)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	diag_print(l, out);
	fclose(out);
	return text;
}

static void test_add_copies(void **state)
{
	struct fx *f = *state;
	char file[] = "models/a/b.sql", hint[] = "try this";

	diag_add(&f->d, DIAG_ERROR, file, 3, 7, hint, "unknown key '%s'", "x");
	file[0] = hint[0] = '#';
	assert_int_equal(f->d.n, 1);
	assert_int_equal(f->d.items[0].severity, DIAG_ERROR);
	assert_string_equal(f->d.items[0].file, "models/a/b.sql");
	assert_int_equal(f->d.items[0].line, 3);
	assert_int_equal(f->d.items[0].col, 7);
	assert_string_equal(f->d.items[0].msg, "unknown key 'x'");
	assert_string_equal(f->d.items[0].hint, "try this");
	diag_add(&f->d, DIAG_WARNING, NULL, 0, 0, NULL, "plain");
	assert_null(f->d.items[1].file);
	assert_null(f->d.items[1].hint);
}

static void test_counts(void **state)
{
	struct fx *f = *state;

	assert_int_equal(diag_count(&f->d, DIAG_ERROR), 0);
	assert_false(diag_has_errors(&f->d));
	diag_add(&f->d, DIAG_WARNING, "a.sql", 1, 1, NULL, "w1");
	diag_add(&f->d, DIAG_WARNING, "a.sql", 2, 1, NULL, "w2");
	assert_false(diag_has_errors(&f->d));
	assert_int_equal(diag_count(&f->d, DIAG_WARNING), 2);
	for (int i = 0; i < 100; i++)
		diag_add(&f->d, DIAG_ERROR, "b.sql", i + 1, 0, NULL, "e%d", i);
	assert_true(diag_has_errors(&f->d));
	assert_int_equal(diag_count(&f->d, DIAG_ERROR), 100);
	assert_int_equal(diag_count(&f->d, DIAG_WARNING), 2);
	assert_int_equal(f->d.n, 102);
	/* growth kept every entry */
	assert_string_equal(f->d.items[0].msg, "w1");
	assert_string_equal(f->d.items[101].msg, "e99");
	assert_int_equal(f->d.items[101].line, 100);
}

static void test_sort_by_place(void **state)
{
	struct fx *f = *state;

	diag_add(&f->d, DIAG_ERROR, "models/b.sql", 2, 1, NULL, "b2");
	diag_add(&f->d, DIAG_ERROR, "models/a.sql", 10, 1, NULL, "a10");
	diag_add(&f->d, DIAG_ERROR, "models/a.sql", 2, 5, NULL, "a2c5");
	diag_add(&f->d, DIAG_ERROR, "models/a.sql", 2, 3, NULL, "a2c3");
	diag_add(&f->d, DIAG_ERROR, NULL, 0, 0, NULL, "nofile");
	diag_add(&f->d, DIAG_WARNING, "models/a.sql", 9, 0, NULL, "a9");
	diag_sort(&f->d);
	assert_string_equal(f->d.items[0].msg, "nofile");
	assert_string_equal(f->d.items[1].msg, "a2c3");
	assert_string_equal(f->d.items[2].msg, "a2c5");
	assert_string_equal(f->d.items[3].msg, "a9");
	assert_string_equal(f->d.items[4].msg, "a10"); /* numerically, not as text */
	assert_string_equal(f->d.items[5].msg, "b2");
}

static void test_sort_stable(void **state)
{
	struct fx *f = *state;
	char expect[16];

	/* ties in file, line and column keep the order they were added in */
	for (int i = 0; i < 20; i++) {
		diag_add(&f->d, DIAG_ERROR, i % 2 ? "z.sql" : "a.sql", 4, 2, NULL, "%d", i);
		diag_add(&f->d, DIAG_ERROR, "m.sql", 1, 0, NULL, "m%d", i);
	}
	diag_sort(&f->d);
	for (int i = 0, k = 0; i < 20; i += 2, k++) {
		snprintf(expect, sizeof(expect), "%d", i);
		assert_string_equal(f->d.items[k].msg, expect);
		assert_string_equal(f->d.items[k].file, "a.sql");
	}
	for (int i = 0; i < 20; i++) {
		snprintf(expect, sizeof(expect), "m%d", i);
		assert_string_equal(f->d.items[10 + i].msg, expect);
	}
	for (int i = 1, k = 30; i < 20; i += 2, k++) {
		snprintf(expect, sizeof(expect), "%d", i);
		assert_string_equal(f->d.items[k].msg, expect);
	}
	/* sorting again changes nothing */
	diag_sort(&f->d);
	assert_string_equal(f->d.items[0].msg, "0");
	assert_string_equal(f->d.items[39].msg, "19");
}

static void test_print_format(void **state)
{
	struct fx *f = *state;
	char *text;

	diag_add(&f->d, DIAG_ERROR, "models/silver/orders.sql", 3, 7, "did you mean 'unique_key'?",
		 "unknown @config key '%s'", "uniqe_key");
	diag_add(&f->d, DIAG_ERROR, "models/x.sql", 4, 0, NULL, "line only");
	diag_add(&f->d, DIAG_ERROR, "sluice.yml", 0, 0, "add a model", "file only");
	diag_add(&f->d, DIAG_ERROR, NULL, 0, 0, NULL, "no place");
	text = printed(&f->d);
	assert_string_equal(text, "models/silver/orders.sql:3:7: error: unknown @config key "
				  "'uniqe_key'\n"
				  "  hint: did you mean 'unique_key'?\n"
				  "models/x.sql:4: error: line only\n"
				  "sluice.yml: error: file only\n"
				  "  hint: add a model\n"
				  "error: no place\n");
	free(text);
}

static void test_print_warning(void **state)
{
	struct fx *f = *state;
	char *text;

	diag_add(&f->d, DIAG_WARNING, "models/a/b.sql", 1, 2, "make it live", "batch input");
	text = printed(&f->d);
	assert_string_equal(text, "models/a/b.sql:1:2: warning: batch input\n"
				  "  hint: make it live\n");
	free(text);
}

static void test_print_in_list_order(void **state)
{
	struct fx *f = *state;
	char *text;

	/* printed as added: errors are not moved ahead of warnings */
	diag_add(&f->d, DIAG_WARNING, "b.sql", 2, 1, NULL, "warn b");
	diag_add(&f->d, DIAG_ERROR, "c.sql", 1, 1, NULL, "err c");
	diag_add(&f->d, DIAG_WARNING, "a.sql", 1, 1, NULL, "warn a");
	text = printed(&f->d);
	assert_string_equal(text, "b.sql:2:1: warning: warn b\n"
				  "c.sql:1:1: error: err c\n"
				  "a.sql:1:1: warning: warn a\n");
	free(text);
	/* after diag_sort, in order of place, whatever the severity */
	diag_sort(&f->d);
	text = printed(&f->d);
	assert_string_equal(text, "a.sql:1:1: warning: warn a\n"
				  "b.sql:2:1: warning: warn b\n"
				  "c.sql:1:1: error: err c\n");
	free(text);
}

static void test_print_empty(void **state)
{
	struct fx *f = *state;
	char *text = printed(&f->d);

	assert_string_equal(text, "");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_add_copies),
		T(test_counts),
		T(test_sort_by_place),
		T(test_sort_stable),
		T(test_print_format),
		T(test_print_warning),
		T(test_print_in_list_order),
		T(test_print_empty),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
