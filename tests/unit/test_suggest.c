/*
 * Unit tests for "did you mean" suggestions (src/core/suggest.c): edit
 * distance with adjacent transpositions counted as one edit, and the choice
 * of the nearest candidate within the typo threshold.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/suggest.h"

#include <string.h>

static void test_distance_basics(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("", ""), 0);
	assert_int_equal(suggest_distance("abc", ""), 3);
	assert_int_equal(suggest_distance("", "abcd"), 4);
	assert_int_equal(suggest_distance("unique_key", "unique_key"), 0);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("flaw", "lawn"), 2);
	/* insertion, deletion, substitution: one each */
	assert_int_equal(suggest_distance("uniqe_key", "unique_key"), 1);
	assert_int_equal(suggest_distance("unique_keys", "unique_key"), 1);
	assert_int_equal(suggest_distance("unique_kez", "unique_key"), 1);
	/* case matters */
	assert_int_equal(suggest_distance("Live", "live"), 1);
}

static void test_distance_transposition(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("ab", "ba"), 1);
	assert_int_equal(suggest_distance("unqiue_key", "unique_key"), 1);
	assert_int_equal(suggest_distance("materailized", "materialized"), 1);
	assert_int_equal(suggest_distance("abcd", "badc"), 2);
	/* optimal string alignment: a transposed pair is not edited again */
	assert_int_equal(suggest_distance("ca", "abc"), 3);
}

static void test_distance_symmetric(void **state)
{
	static const char *const words[] = { "", "a", "ab", "ba", "config", "confg", "cofnig",
					     "watermark", "wtermark", "tags", NULL };

	(void)state;
	for (size_t i = 0; words[i]; i++)
		for (size_t j = 0; words[j]; j++)
			assert_int_equal(suggest_distance(words[i], words[j]),
					 suggest_distance(words[j], words[i]));
}

static void test_distance_long_words(void **state)
{
	char a[301], b[301];

	(void)state;
	memset(a, 'a', 300);
	a[300] = '\0';
	memset(b, 'a', 200);
	b[200] = '\0';
	/* past the length the table holds, the distance is the longer length:
	 * never a match, never a crash */
	assert_int_equal(suggest_distance(a, b), 300);
	assert_int_equal(suggest_distance("x", a), 300);
	memset(b, 'a', 128);
	b[128] = '\0';
	memset(a, 'a', 127);
	a[127] = 'b';
	a[128] = '\0';
	assert_int_equal(suggest_distance(a, b), 1);
}

static void test_nearest(void **state)
{
	static const char *const keys[] = { "materialized", "unique_key", "tags", "live",
					    "live_interval", "description", NULL };

	(void)state;
	assert_string_equal(suggest_nearest("uniqe_key", keys), "unique_key");
	assert_string_equal(suggest_nearest("unqiue_key", keys), "unique_key");
	assert_string_equal(suggest_nearest("materialised", keys), "materialized");
	assert_string_equal(suggest_nearest("tag", keys), "tags");
	assert_string_equal(suggest_nearest("live_intreval", keys), "live_interval");
	/* an exact word is its own nearest */
	assert_ptr_equal(suggest_nearest("live", keys), keys[3]);
	/* the result is the candidate itself, not a copy */
	assert_ptr_equal(suggest_nearest("descripton", keys), keys[5]);
	/* nothing close */
	assert_null(suggest_nearest("zzzzzz", keys));
	assert_null(suggest_nearest("schedule", keys));
}

static void test_nearest_threshold(void **state)
{
	static const char *const two[] = { "ab", NULL };
	static const char *const six[] = { "abcdef", NULL };
	static const char *const long_word[] = { "abcdefghijklmnop", NULL };

	(void)state;
	/* short words: at most one edit */
	assert_string_equal(suggest_nearest("ax", two), "ab");
	assert_string_equal(suggest_nearest("ba", two), "ab");
	assert_null(suggest_nearest("xy", two));
	/* six letters: len/3 + 1 = 3 edits allowed */
	assert_string_equal(suggest_nearest("abcxyz", six), "abcdef");
	assert_null(suggest_nearest("abwxyz", six));
	/* never more than three edits, however long the word */
	assert_string_equal(suggest_nearest("abcdefghijklmxyz", long_word), "abcdefghijklmnop");
	assert_null(suggest_nearest("abcdefghijkwxyzp", long_word));
}

static void test_nearest_ties_and_empty(void **state)
{
	static const char *const tied[] = { "cat", "bat", "rat", NULL };
	static const char *const none[] = { NULL };

	(void)state;
	/* equally near candidates: the first listed wins */
	assert_string_equal(suggest_nearest("hat", tied), "cat");
	assert_string_equal(suggest_nearest("brt", tied), "bat");
	assert_null(suggest_nearest("anything", none));
}

/* An exact spelling only: a near one is a suggestion, not a match. */
static void test_index(void **state)
{
	static const char *const words[] = { "discover", "bulldozer", "torch", NULL };

	(void)state;
	assert_int_equal(suggest_index("discover", words), 0);
	assert_int_equal(suggest_index("torch", words), 2);
	assert_int_equal(suggest_index("Torch", words), -1);
	assert_int_equal(suggest_index("torc", words), -1);
	assert_int_equal(suggest_index("", words), -1);
	assert_int_equal(suggest_index(NULL, words), -1);
}

/* sluice's commands and the synonyms main.c gives them */
static const char *const commands[] = { "init", "run",	  "plan",    "seed",  "test",
					"validate", "compile", "windows", "ls", "dag",
					"live", "serve",   "poll",    "cdc",   "check",
					"sql",  "help",	  NULL };
static const struct suggest_alias aliases[] = {
	{ "list", "ls" },
	{ "build", "run" },
	{ "status", "live status" },
	{ NULL, NULL },
};

static void test_command_synonym_before_distance(void **state)
{
	(void)state;
	/* "list" is as near "test" as "ls" by edits: the synonym decides */
	assert_int_equal(suggest_distance("list", "test"), suggest_distance("list", "ls"));
	assert_string_equal(suggest_command("list", commands, aliases), "ls");
	assert_string_equal(suggest_command("build", commands, aliases), "run");
	assert_string_equal(suggest_command("status", commands, aliases), "live status");
	/* without the table, distance alone picks the first of the tie */
	assert_string_equal(suggest_command("list", commands, NULL), "test");
}

static void test_command_prefix_then_distance(void **state)
{
	(void)state;
	/* a word that begins one command only */
	assert_string_equal(suggest_command("val", commands, aliases), "validate");
	assert_string_equal(suggest_command("win", commands, aliases), "windows");
	assert_string_equal(suggest_command("comp", commands, aliases), "compile");
	/* begins several (seed, serve, sql... ): distance, or nothing */
	assert_null(suggest_command("se", commands, aliases));
	/* one letter is no abbreviation */
	assert_null(suggest_command("v", commands, aliases));
	/* typos still go by distance */
	assert_string_equal(suggest_command("lst", commands, aliases), "ls");
	assert_string_equal(suggest_command("vaildate", commands, aliases), "validate");
	assert_string_equal(suggest_command("serv", commands, aliases), "serve");
	assert_null(suggest_command("frobnicate", commands, aliases));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_distance_basics),
		cmocka_unit_test(test_distance_transposition),
		cmocka_unit_test(test_distance_symmetric),
		cmocka_unit_test(test_distance_long_words),
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_nearest_threshold),
		cmocka_unit_test(test_nearest_ties_and_empty),
		cmocka_unit_test(test_command_synonym_before_distance),
		cmocka_unit_test(test_command_prefix_then_distance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
