/*
 * Unit tests for the allocators that never return NULL (src/core/xalloc.c):
 * what they hand out, and that a size that overflows or cannot be had ends
 * the process with the one out-of-memory line rather than returning.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/xalloc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_calloc_is_zeroed(void **state)
{
	unsigned char *p = xcalloc(64, 3);

	(void)state;
	for (size_t i = 0; i < 64 * 3; i++)
		assert_int_equal(p[i], 0);
	free(p);
}

static void test_reallocarray_keeps_content(void **state)
{
	int *p = NULL;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		p = xreallocarray(p, (size_t)i + 1, sizeof(*p));
		p[i] = i;
	}
	for (int i = 0; i < 1000; i++)
		assert_int_equal(p[i], i);
	free(p);
}

static void test_strndup_stops_at_the_end(void **state)
{
	char *a = xstrndup("abc", 10), *b = xstrndup("abcdef", 2), *c = xstrdup("");

	(void)state;
	assert_string_equal(a, "abc");
	assert_string_equal(b, "ab");
	assert_string_equal(c, "");
	free(a);
	free(b);
	free(c);
}

static void test_asprintf_formats(void **state)
{
	char *a = xasprintf("%s.%s", "gold", "revenue");
	char *b = xasprintf("%.*s|%zu", 2, "abcdef", (size_t)7);
	char *c = xasprintf("%s", "");

	(void)state;
	assert_string_equal(a, "gold.revenue");
	assert_string_equal(b, "ab|7");
	assert_string_equal(c, "");
	free(a);
	free(b);
	free(c);
}

static void test_zero_sizes_are_usable(void **state)
{
	void *a = xmalloc(0), *b = xcalloc(0, 8);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	free(a);
	free(b);
}

/* Runs fn in a child with stderr on a pipe: it must die by SIGABRT, after
 * saying "out of memory" when said is set (under AddressSanitizer an
 * impossible malloc is the sanitizer's to report, and it aborts too). */
static void expect_abort(void (*fn)(void), int said)
{
	int fds[2], status;
	char out[128] = { 0 };
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		signal(SIGABRT, SIG_DFL);
		fn();
		_exit(0);
	}
	close(fds[1]);
	assert_true(read(fds[0], out, sizeof(out) - 1) > 0);
	while (read(fds[0], (char[512]){ 0 }, 512) > 0)
		;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	if (said)
		assert_string_equal(out, "sluice: out of memory\n");
}

static void overflowing_array(void)
{
	free(xreallocarray(NULL, SIZE_MAX / 2, 4));
}

static void impossible_block(void)
{
	free(xmalloc(SIZE_MAX - 64));
}

static void test_overflow_aborts(void **state)
{
	(void)state;
	expect_abort(overflowing_array, 1);
}

static void test_no_memory_aborts(void **state)
{
	(void)state;
	expect_abort(impossible_block, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calloc_is_zeroed),
		cmocka_unit_test(test_reallocarray_keeps_content),
		cmocka_unit_test(test_strndup_stops_at_the_end),
		cmocka_unit_test(test_asprintf_formats),
		cmocka_unit_test(test_zero_sizes_are_usable),
		cmocka_unit_test(test_overflow_aborts),
		cmocka_unit_test(test_no_memory_aborts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
