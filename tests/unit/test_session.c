/*
 * The UI's sessions (server/session.c): made with random ids and CSRF
 * tokens, found by id only, forgotten when idle too long, when too old,
 * or when signed out, and never more than the store holds: a full store
 * forgets the session used longest ago.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "server/session.h"

#include <string.h>

#define TOK (SESSION_TOKEN_LEN + 1)

static void test_create_and_find(void **state)
{
	struct session_store *st = session_store_new(NULL);
	char id[TOK], csrf[TOK], id2[TOK], csrf2[TOK], got[TOK];

	(void)state;
	assert_int_equal(session_create(st, 1000, id, csrf, NULL), 0);
	assert_int_equal(session_create(st, 1000, id2, csrf2, NULL), 0);
	assert_int_equal(strlen(id), SESSION_TOKEN_LEN);
	assert_int_equal(strspn(id, "0123456789abcdef"), SESSION_TOKEN_LEN);
	assert_string_not_equal(id, id2);
	assert_string_not_equal(csrf, csrf2);
	assert_string_not_equal(id, csrf);
	assert_true(session_find(st, id, 2000, got));
	assert_string_equal(got, csrf);
	assert_true(session_find(st, id2, 2000, NULL));
	assert_int_equal(session_count(st, 2000), 2);
	/* the CSRF token is no id; nor is an id cut short or changed */
	assert_false(session_find(st, csrf, 2000, NULL));
	id[5] = id[5] == 'a' ? 'b' : 'a';
	assert_false(session_find(st, id, 2000, NULL));
	id[10] = '\0';
	assert_false(session_find(st, id, 2000, NULL));
	assert_false(session_find(st, "", 2000, NULL));
	assert_false(session_find(st, NULL, 2000, NULL));
	session_store_free(st);
}

static void test_expiry(void **state)
{
	struct session_limits lim = { .capacity = 4, .idle_ms = 100, .max_ms = 250 };
	struct session_store *st = session_store_new(&lim);
	char id[TOK], csrf[TOK], other[TOK];

	(void)state;
	assert_int_equal(session_store_max_ms(st), 250);
	assert_int_equal(session_create(st, 0, id, csrf, NULL), 0);
	assert_int_equal(session_create(st, 0, other, csrf, NULL), 0);
	/* each use keeps it from going idle, until it is too old */
	assert_true(session_find(st, id, 90, NULL));
	assert_true(session_find(st, id, 180, NULL));
	assert_false(session_find(st, other, 180, NULL));
	assert_true(session_find(st, id, 249, NULL));
	assert_false(session_find(st, id, 250, NULL));
	assert_int_equal(session_count(st, 250), 0);
	session_store_free(st);
}

static void test_sign_out(void **state)
{
	struct session_store *st = session_store_new(NULL);
	char id[TOK], csrf[TOK], other[TOK];

	(void)state;
	assert_int_equal(session_create(st, 0, id, csrf, NULL), 0);
	assert_int_equal(session_create(st, 0, other, csrf, NULL), 0);
	session_end(st, id, 10);
	assert_false(session_find(st, id, 10, NULL));
	assert_true(session_find(st, other, 10, NULL));
	session_end(st, "not a session", 10);
	session_end(st, NULL, 10);
	assert_int_equal(session_count(st, 10), 1);
	session_store_free(st);
}

static void test_bounded(void **state)
{
	struct session_limits lim = { .capacity = 3 };
	struct session_store *st = session_store_new(&lim);
	char ids[5][TOK], csrf[TOK];

	(void)state;
	for (int i = 0; i < 3; i++)
		assert_int_equal(session_create(st, i, ids[i], csrf, NULL), 0);
	/* the first is used again: the second is now the one used longest ago */
	assert_true(session_find(st, ids[0], 10, NULL));
	assert_int_equal(session_create(st, 11, ids[3], csrf, NULL), 0);
	assert_int_equal(session_count(st, 11), 3);
	assert_true(session_find(st, ids[0], 12, NULL));
	assert_false(session_find(st, ids[1], 12, NULL));
	assert_true(session_find(st, ids[2], 12, NULL));
	assert_true(session_find(st, ids[3], 12, NULL));
	for (int i = 0; i < 1000; i++)
		assert_int_equal(session_create(st, 100 + i, ids[4], csrf, NULL), 0);
	assert_int_equal(session_count(st, 2000), 3);
	session_store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_and_find),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_sign_out),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
