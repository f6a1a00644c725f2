/*
 * The UTF-8 check (src/core/utf8.c) against the well-formed and the
 * ill-formed sequences of Unicode's table 3-7.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/utf8.h"

#include <stdbool.h>
#include <string.h>

static void test_valid(void **state)
{
	static const char *const good[] = {
		"", "plain ascii", "caf\xc3\xa9", "\xe2\x82\xac", "\xed\x9f\xbf",
		"\xee\x80\x80", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xc2\x80\xdf\xbf",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!utf8_valid(good[i], strlen(good[i])))
			fail_msg("'%s' should be valid", good[i]);
	assert_true(utf8_valid("a\0b", 3));
}

static void test_invalid(void **state)
{
	static const char *const bad[] = {
		"\x80",             /* a continuation byte alone */
		"\xbf",
		"\xc0\xaf",         /* overlong '/' */
		"\xc1\xbf",
		"\xe0\x80\xaf",     /* overlong, three bytes */
		"\xe0\x9f\xbf",
		"\xed\xa0\x80",     /* a surrogate */
		"\xed\xbf\xbf",
		"\xf0\x80\x80\xaf", /* overlong, four bytes */
		"\xf4\x90\x80\x80", /* past U+10FFFF */
		"\xf5\x80\x80\x80",
		"\xff",
		"\xc3",             /* cut short */
		"\xe2\x82",
		"\xf0\x90\x80",
		"a\xc3(",           /* a continuation missing */
		"\xe2\x28\xa1",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (utf8_valid(bad[i], strlen(bad[i])))
			fail_msg("sequence %zu should be invalid", i);
}

/* A sequence anywhere in a long ASCII text, at every place within and
 * across the eight-byte steps: judged as it is alone. */
static void test_in_ascii(void **state)
{
	static const char *const seqs[] = { "\xc3\xa9", "\xf0\x90\x80\x80", "\x80", "\xc3",
					     "\xed\xa0\x80", "\xff" };
	static const bool valid[] = { true, true, false, false, false, false };
	char text[64];

	(void)state;
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		for (size_t at = 0; at + strlen(seqs[i]) <= 40; at++) {
			memset(text, 'a', 40);
			memcpy(text + at, seqs[i], strlen(seqs[i]));
			if (utf8_valid(text, 40) != valid[i])
				fail_msg("sequence %zu at byte %zu judged wrong", i, at);
			/* cut short at the end of the text */
			if (strlen(seqs[i]) > 1 && utf8_valid(text, at + 1))
				fail_msg("sequence %zu cut at byte %zu judged valid", i, at + 1);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_in_ascii),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
