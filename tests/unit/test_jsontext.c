/*
 * JSON text of parsed values (src/ingest/jsontext.c): integers written
 * without printf must read exactly as printf writes them; strings escaped
 * eight bytes a step must come out as escaping byte by byte writes them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"
#include "ingest/jsontext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(json_int_t v)
{
	char got[JSONTEXT_INT_MAX], want[64];
	size_t n = jsontext_integer(v, got);

	snprintf(want, sizeof(want), "%" JSON_INTEGER_FORMAT, v);
	assert_string_equal(got, want);
	assert_int_equal(n, strlen(want));
}

static void test_integer_as_printf(void **state)
{
	static const json_int_t edges[] = {
		0, 1, -1, 9, 10, -10, 99, 100, 1234567890, -987654321, INT64_MAX, INT64_MIN,
		INT64_MAX - 1, INT64_MIN + 1, 1000000000000000000LL, -1000000000000000000LL,
	};
	unsigned seed = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		check(edges[i]);
	for (int i = 0; i < 100000; i++) {
		uint64_t r = (uint64_t)rand_r(&seed) << 33 ^ (uint64_t)rand_r(&seed) << 11 ^
			     (uint64_t)rand_r(&seed);

		/* all magnitudes, not only the large ones */
		check((json_int_t)(r >> (1 + i % 63)) * (i % 2 ? -1 : 1));
	}
}

static void test_write_integers(void **state)
{
	json_t *doc = json_loads("{\"a\": -9223372036854775808, \"b\": [0, 42, -7]}", 0, NULL);
	struct buf b = BUF_INIT;

	(void)state;
	assert_non_null(doc);
	jsontext_write(&b, doc);
	assert_string_equal(b.buf, "{\"a\":-9223372036854775808,\"b\":[0,42,-7]}");
	buf_release(&b);
	json_decref(doc);
}

/* What escaping byte by byte writes: the short escapes JSON names, \u
 * for the other control characters, every other byte as it is. */
static void escape_bytewise(struct buf *b, const unsigned char *s, size_t len)
{
	static const char *const named[0x80] = {
		['"'] = "\\\"", ['\\'] = "\\\\", ['\b'] = "\\b", ['\f'] = "\\f",
		['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
	};

	for (size_t i = 0; i < len; i++) {
		if (s[i] < 0x80 && named[s[i]])
			buf_adds(b, named[s[i]]);
		else if (s[i] < 0x20)
			buf_addf(b, "\\u%04x", s[i]);
		else
			buf_addch(b, (char)s[i]);
	}
}

/* jsontext_escape of s writes what escaping byte by byte does. */
static void check_escape(struct buf *got, struct buf *want, const unsigned char *s, size_t len)
{
	buf_reset(got);
	buf_reset(want);
	assert_int_equal(jsontext_escape(got, (const char *)s, len), 0);
	escape_bytewise(want, s, len);
	assert_int_equal(got->len, want->len);
	assert_memory_equal(got->buf, want->buf, want->len);
}

/* Every byte value at every place of plain texts of many lengths, and
 * texts of random bytes: a byte that needs an escape is never missed by
 * the eight-byte step, wherever it stands, whatever stands beside it. */
static void test_escape_as_bytewise(void **state)
{
	unsigned char s[40];
	struct buf got = BUF_INIT, want = BUF_INIT;
	unsigned seed = 11;

	(void)state;
	for (size_t len = 1; len <= 24; len++)
		for (size_t at = 0; at < len; at++)
			for (int c = 1; c < 256; c++) {
				memset(s, c < 0x80 ? 'a' : 0xc3, len);
				s[at] = (unsigned char)c;
				check_escape(&got, &want, s, len);
			}
	for (int k = 0; k < 20000; k++) {
		size_t len = (size_t)rand_r(&seed) % sizeof(s);

		for (size_t i = 0; i < len; i++)
			s[i] = (unsigned char)(rand_r(&seed) % 4 ? 0x20 + rand_r(&seed) % 0xe0
								 : rand_r(&seed) % 0x24);
		check_escape(&got, &want, s, len);
	}
	buf_release(&got);
	buf_release(&want);
}

/* The validator agrees with jansson's parser on what is one JSON value:
 * hand-picked edges, then every prefix of some texts (a torn value). */
static void test_valid_as_jansson(void **state)
{
	static const char *const texts[] = {
		"{}", "[]", " {\"a\" : [1, -2.5e+3, true, false, null, \"x\\u00e9\\n\"]} ",
		"\"s\"", "0", "-0", "1.0E-2", "01", "1.", ".5", "-", "1e", "+1", "[1,]", "{,}",
		"{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{1:2}", "[1 2]", "tru", "nul", "\"\\x\"",
		"\"\\u12g4\"", "\"a\tb\"", "[[[[]]]]", "[[[[]]]", "{}{}", "\"unterminated",
		"{\"a\":{\"b\":[{\"c\":\"d\"}]}}", "", " ", "[\"\\\"\"]", "1 2",
	};
	static const char *const torn[] = {
		"{\"id\": 12, \"tags\": [\"a\", \"b\"], \"nested\": {\"x\": -1.5e3, \"y\": null}}",
		"[true, false, {\"k\": \"v\\\\\\\"w\"}, [1, [2, [3]]]]",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++) {
		json_t *v = json_loadb(texts[i], strlen(texts[i]), JSON_DECODE_ANY, NULL);

		if (jsontext_valid(texts[i], strlen(texts[i])) != (v != NULL))
			fail_msg("'%s': jansson %s it", texts[i], v ? "reads" : "refuses");
		json_decref(v);
	}
	for (size_t i = 0; i < sizeof(torn) / sizeof(*torn); i++)
		for (size_t n = 0; n <= strlen(torn[i]); n++) {
			json_t *v = json_loadb(torn[i], n, JSON_DECODE_ANY, NULL);

			if (jsontext_valid(torn[i], n) != (v != NULL))
				fail_msg("'%.*s': jansson %s it", (int)n, torn[i],
					 v ? "reads" : "refuses");
			json_decref(v);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integer_as_printf),
		cmocka_unit_test(test_write_integers),
		cmocka_unit_test(test_escape_as_bytewise),
		cmocka_unit_test(test_valid_as_jansson),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
