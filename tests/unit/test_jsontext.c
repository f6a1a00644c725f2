/*
 * JSON text of parsed values (src/ingest/jsontext.c): integers written
 * without printf must read exactly as printf writes them.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integer_as_printf),
		cmocka_unit_test(test_write_integers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
