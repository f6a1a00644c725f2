/*
 * Unit tests for the string buffer (src/core/buf.c): the strbuf invariants
 * (never NULL, always terminated, BUF_INIT reads as ""), growth, detach,
 * the size cap that refuses an append and leaves the buffer as it was, and
 * SQL string and identifier quoting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The invariants every buffer keeps between calls. */
static void check_invariants(const struct buf *b)
{
	assert_non_null(b->buf);
	assert_int_equal(strlen(b->buf), b->len);
	if (b->alloc)
		assert_true(b->len < b->alloc);
	else
		assert_ptr_equal(b->buf, buf_empty);
	if (b->cap)
		assert_true(b->len <= b->cap);
}

static void test_init_reads_empty(void **state)
{
	struct buf a = BUF_INIT, b;

	(void)state;
	check_invariants(&a);
	assert_string_equal(a.buf, "");
	assert_int_equal(a.len, 0);
	assert_int_equal(a.alloc, 0);
	assert_int_equal(a.cap, 0);

	buf_init(&b, 0);
	check_invariants(&b);
	assert_ptr_equal(b.buf, buf_empty);

	buf_init(&b, 100);
	check_invariants(&b);
	assert_string_equal(b.buf, "");
	assert_true(b.alloc > 100);
	buf_release(&b);
	check_invariants(&b);

	/* releasing or resetting an untouched buffer is harmless */
	buf_release(&a);
	buf_reset(&a);
	check_invariants(&a);
	assert_ptr_equal(a.buf, buf_empty);
	assert_int_equal(buf_empty[0], '\0');
}

static void test_appends(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(buf_adds(&b, "abc"), 0);
	check_invariants(&b);
	assert_int_equal(buf_addch(&b, '-'), 0);
	assert_int_equal(buf_add(&b, "xyz123", 3), 0);
	assert_int_equal(buf_addf(&b, "%d/%s", 42, "q"), 0);
	assert_int_equal(buf_add(&b, NULL, 0), 0);
	assert_int_equal(buf_adds(&b, ""), 0);
	assert_int_equal(buf_addf(&b, "%s", ""), 0);
	check_invariants(&b);
	assert_string_equal(b.buf, "abc-xyz42/q");
	assert_int_equal(b.len, 11);
	buf_release(&b);
	check_invariants(&b);
	assert_ptr_equal(b.buf, buf_empty);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.alloc, 0);
}

static void test_embedded_nul(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(buf_add(&b, "a\0b", 3), 0);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.buf, "a\0b", 4);
	buf_release(&b);
}

static void test_growth_keeps_contents(void **state)
{
	struct buf b = BUF_INIT;
	char expect[64];

	(void)state;
	for (int i = 0; i < 5000; i++) {
		assert_int_equal(buf_addf(&b, "%04d,", i), 0);
		if (i % 997 == 0)
			check_invariants(&b);
	}
	check_invariants(&b);
	assert_int_equal(b.len, 5000 * 5);
	for (int i = 0; i < 5000; i += 123) {
		snprintf(expect, sizeof(expect), "%04d,", i);
		assert_memory_equal(b.buf + i * 5, expect, 5);
	}

	/* one formatted append longer than any earlier growth step */
	buf_reset(&b);
	char *big = malloc(100001);
	assert_non_null(big);
	memset(big, 'x', 100000);
	big[100000] = '\0';
	assert_int_equal(buf_addf(&b, "<%s>", big), 0);
	check_invariants(&b);
	assert_int_equal(b.len, 100002);
	assert_int_equal(b.buf[0], '<');
	assert_int_equal(b.buf[100001], '>');
	free(big);
	buf_release(&b);
}

static void test_setlen_and_reset(void **state)
{
	struct buf b = BUF_INIT;
	size_t alloc;

	(void)state;
	buf_adds(&b, "hello world");
	alloc = b.alloc;
	buf_setlen(&b, 5);
	check_invariants(&b);
	assert_string_equal(b.buf, "hello");
	buf_adds(&b, "!");
	assert_string_equal(b.buf, "hello!");
	buf_reset(&b);
	check_invariants(&b);
	assert_string_equal(b.buf, "");
	assert_int_equal(b.alloc, alloc); /* storage kept for reuse */
	buf_release(&b);

	/* setlen(0) on a buffer that never allocated leaves it BUF_INIT */
	buf_setlen(&b, 0);
	check_invariants(&b);
	assert_ptr_equal(b.buf, buf_empty);
}

static void test_detach(void **state)
{
	struct buf b = BUF_INIT;
	size_t len = 99;
	char *s;

	(void)state;
	buf_adds(&b, "owned");
	s = buf_detach(&b, &len);
	assert_string_equal(s, "owned");
	assert_int_equal(len, 5);
	check_invariants(&b);
	assert_ptr_equal(b.buf, buf_empty);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.alloc, 0);
	free(s);

	/* the buffer is usable again after a detach */
	buf_adds(&b, "again");
	assert_string_equal(b.buf, "again");
	s = buf_detach(&b, NULL);
	assert_string_equal(s, "again");
	free(s);

	/* detaching an empty buffer still hands over a string free() accepts */
	s = buf_detach(&b, &len);
	assert_non_null(s);
	assert_ptr_not_equal(s, buf_empty);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);
	check_invariants(&b);
}

static void test_cap_refuses_and_keeps(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	b.cap = 10;
	assert_int_equal(buf_adds(&b, "12345678"), 0);
	assert_int_equal(buf_adds(&b, "abc"), SL_E_TOOBIG);
	check_invariants(&b);
	assert_string_equal(b.buf, "12345678");
	assert_int_equal(b.len, 8);
	assert_int_equal(buf_addf(&b, "%d", 123), SL_E_TOOBIG);
	assert_string_equal(b.buf, "12345678");
	assert_int_equal(buf_add(&b, "xyz", 3), SL_E_TOOBIG);
	assert_int_equal(b.len, 8);
	/* filling up to the cap exactly is allowed, one more byte is not */
	assert_int_equal(buf_addch(&b, '9'), 0);
	assert_int_equal(buf_addf(&b, "%c", '0'), 0);
	assert_int_equal(b.len, 10);
	assert_string_equal(b.buf, "1234567890");
	assert_int_equal(buf_addch(&b, 'x'), SL_E_TOOBIG);
	assert_int_equal(buf_add(&b, "", 0), 0);
	check_invariants(&b);
	assert_string_equal(b.buf, "1234567890");
	/* reset makes room again under the same cap */
	buf_reset(&b);
	assert_int_equal(buf_adds(&b, "0123456789"), 0);
	assert_int_equal(buf_adds(&b, "x"), SL_E_TOOBIG);
	buf_release(&b);
}

static void test_cap_on_empty_buffer(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	b.cap = 3;
	assert_int_equal(buf_adds(&b, "abcd"), SL_E_TOOBIG);
	check_invariants(&b);
	assert_ptr_equal(b.buf, buf_empty);
	assert_int_equal(buf_addf(&b, "%s", "abcd"), SL_E_TOOBIG);
	check_invariants(&b);
	assert_string_equal(b.buf, "");
	assert_int_equal(buf_adds(&b, "abc"), 0);
	assert_string_equal(b.buf, "abc");
	buf_release(&b);
}

static void test_sql_str(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(buf_add_sql_str(&b, "plain"), 0);
	assert_string_equal(b.buf, "'plain'");
	buf_reset(&b);
	assert_int_equal(buf_add_sql_str(&b, "it's 'quoted'"), 0);
	assert_string_equal(b.buf, "'it''s ''quoted'''");
	buf_reset(&b);
	assert_int_equal(buf_add_sql_str(&b, ""), 0);
	assert_string_equal(b.buf, "''");
	buf_reset(&b);
	assert_int_equal(buf_add_sql_str(&b, "'"), 0);
	assert_string_equal(b.buf, "''''");
	buf_reset(&b);
	/* double quotes are left alone inside a string literal */
	assert_int_equal(buf_add_sql_str(&b, "say \"hi\""), 0);
	assert_string_equal(b.buf, "'say \"hi\"'");
	check_invariants(&b);
	buf_release(&b);
}

static void test_sql_ident(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(buf_add_sql_ident(&b, "orders"), 0);
	assert_string_equal(b.buf, "\"orders\"");
	buf_reset(&b);
	assert_int_equal(buf_add_sql_ident(&b, "My \"Table\""), 0);
	assert_string_equal(b.buf, "\"My \"\"Table\"\"\"");
	buf_reset(&b);
	assert_int_equal(buf_add_sql_ident(&b, "it's"), 0);
	assert_string_equal(b.buf, "\"it's\"");
	buf_reset(&b);
	assert_int_equal(buf_add_sql_ident(&b, ""), 0);
	assert_string_equal(b.buf, "\"\"");
	check_invariants(&b);
	buf_release(&b);
}

static void test_sql_quoting_under_cap_that_fits(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	b.cap = 6;
	assert_int_equal(buf_add_sql_str(&b, "a'b"), 0); /* 'a''b' is 6 bytes */
	assert_string_equal(b.buf, "'a''b'");
	assert_int_equal(b.len, 6);
	buf_release(&b);
}

static void test_sql_quoting_over_cap_keeps_buffer(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	/* a quoted string or identifier that does not fit is not cut short:
	 * the append fails and the buffer is as it was */
	b.cap = 8;
	assert_int_equal(buf_adds(&b, "ab"), 0);
	assert_int_equal(buf_add_sql_str(&b, "abcdef"), SL_E_TOOBIG);
	check_invariants(&b);
	assert_string_equal(b.buf, "ab");
	assert_int_equal(b.len, 2);
	assert_int_equal(buf_add_sql_ident(&b, "abcdef"), SL_E_TOOBIG);
	check_invariants(&b);
	assert_string_equal(b.buf, "ab");
	assert_int_equal(b.len, 2);
	/* the doubled quote is what goes over the cap */
	assert_int_equal(buf_add_sql_str(&b, "ab'c"), SL_E_TOOBIG);
	assert_string_equal(b.buf, "ab");
	/* the buffer is still usable up to the cap */
	assert_int_equal(buf_add_sql_str(&b, "abc"), 0);
	assert_string_equal(b.buf, "ab'abc'");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_reads_empty),
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_growth_keeps_contents),
		cmocka_unit_test(test_setlen_and_reset),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_cap_refuses_and_keeps),
		cmocka_unit_test(test_cap_on_empty_buffer),
		cmocka_unit_test(test_sql_str),
		cmocka_unit_test(test_sql_ident),
		cmocka_unit_test(test_sql_quoting_under_cap_that_fits),
		cmocka_unit_test(test_sql_quoting_over_cap_keeps_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
