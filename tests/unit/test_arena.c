/*
 * Unit tests for arenas (src/core/arena.c): the parent/child tree (a child
 * goes with its parent), cleanups run last-registered-first on reset and
 * free, children before their parent, ARENA_PUSH growth that keeps the
 * elements, allocations bigger than a block, and children made and freed
 * on several threads at once. Leaks are left to ASan.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/arena.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A log of cleanup calls: each appends its tag. */
struct log {
	char text[64];
};

struct tag {
	struct log *log;
	char c;
};

static void log_cleanup(void *ctx)
{
	struct tag *t = ctx;
	size_t n = strlen(t->log->text);

	t->log->text[n] = t->c;
	t->log->text[n + 1] = '\0';
}

static void test_alloc_zeroed_and_aligned(void **state)
{
	struct arena *a = arena_new(NULL);

	(void)state;
	for (size_t size = 0; size < 200; size += 7) {
		unsigned char *p = arena_alloc(a, size);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % sizeof(max_align_t), 0);
		for (size_t i = 0; i < size; i++)
			assert_int_equal(p[i], 0);
		memset(p, 0xab, size);
	}
	/* a zero-size request still gets its own address */
	assert_ptr_not_equal(arena_alloc(a, 0), arena_alloc(a, 0));
	arena_free(a);
	arena_free(NULL);
}

static void test_allocations_do_not_overlap(void **state)
{
	struct arena *a = arena_new(NULL);
	unsigned char *p[300];
	size_t sizes[300];

	(void)state;
	for (size_t i = 0; i < 300; i++) {
		sizes[i] = (i * 37) % 600 + 1;
		if (i % 50 == 7)
			sizes[i] = 20000 + i; /* past a block's quarter: a block of its own */
		p[i] = arena_alloc(a, sizes[i]);
		memset(p[i], (int)(i & 0xff), sizes[i]);
	}
	for (size_t i = 0; i < 300; i++)
		for (size_t j = 0; j < sizes[i]; j++)
			if (p[i][j] != (unsigned char)(i & 0xff))
				fail_msg("allocation %zu byte %zu was overwritten", i, j);
	arena_free(a);
}

static void test_big_allocations(void **state)
{
	struct arena *a = arena_new(NULL);
	char *small1, *big, *small2, *huge;

	(void)state;
	small1 = arena_strdup(a, "before");
	big = arena_alloc(a, 5000);
	memset(big, 'b', 4999);
	small2 = arena_strdup(a, "after");
	huge = arena_alloc(a, 8u << 20);
	assert_non_null(huge);
	assert_int_equal(huge[0], 0);
	assert_int_equal(huge[(8u << 20) - 1], 0);
	memset(huge, 'h', 8u << 20);
	assert_string_equal(small1, "before");
	assert_string_equal(small2, "after");
	assert_int_equal(big[0], 'b');
	assert_int_equal(big[4998], 'b');
	assert_int_equal(big[4999], 0);
	/* the first allocation of a fresh arena can be a big one too */
	arena_reset(a);
	big = arena_alloc(a, 100000);
	small1 = arena_strdup(a, "small");
	memset(big, 'x', 100000);
	assert_string_equal(small1, "small");
	arena_free(a);
}

static void test_strings(void **state)
{
	struct arena *a = arena_new(NULL);
	char *big = malloc(40001);
	char *s;

	(void)state;
	assert_null(arena_strdup(a, NULL));
	assert_string_equal(arena_strdup(a, ""), "");
	assert_string_equal(arena_strdup(a, "abc"), "abc");
	assert_string_equal(arena_strndup(a, "abcdef", 3), "abc");
	assert_string_equal(arena_sprintf(a, "%s-%d-%05.1f", "x", 7, 2.25), "x-7-002.2");
	memset(big, 'z', 40000);
	big[40000] = '\0';
	s = arena_sprintf(a, "[%s]", big);
	assert_int_equal(strlen(s), 40002);
	assert_int_equal(s[0], '[');
	assert_int_equal(s[40001], ']');
	free(big);
	arena_free(a);
}

static void test_grow_copies(void **state)
{
	struct arena *a = arena_new(NULL);
	int *v = arena_alloc(a, 4 * sizeof(int));
	int *w, *x;

	(void)state;
	for (int i = 0; i < 4; i++)
		v[i] = i + 1;
	w = arena_grow(a, v, 4 * sizeof(int), 8 * sizeof(int));
	assert_ptr_not_equal(v, w);
	for (int i = 0; i < 4; i++)
		assert_int_equal(w[i], i + 1);
	for (int i = 4; i < 8; i++)
		assert_int_equal(w[i], 0);
	assert_int_equal(v[3], 4); /* the old copy stays until reset */
	x = arena_grow(a, w, 8 * sizeof(int), 2 * sizeof(int));
	assert_int_equal(x[0], 1);
	assert_int_equal(x[1], 2);
	x = arena_grow(a, NULL, 0, 3 * sizeof(int));
	assert_int_equal(x[2], 0);
	arena_free(a);
}

static void test_push_growth_keeps_contents(void **state)
{
	struct arena *a = arena_new(NULL);
	struct item {
		int id;
		char name[16];
	} *items = NULL;
	size_t n = 0, cap = 0;

	(void)state;
	for (int i = 0; i < 5000; i++) {
		struct item *it = ARENA_PUSH(a, &items, &n, &cap);

		assert_int_equal(it->id, 0); /* zeroed */
		assert_int_equal(it->name[0], 0);
		it->id = i;
		snprintf(it->name, sizeof(it->name), "n%d", i);
		assert_int_equal(n, (size_t)i + 1);
		assert_true(cap >= n);
	}
	for (int i = 0; i < 5000; i++) {
		char expect[16];

		snprintf(expect, sizeof(expect), "n%d", i);
		assert_int_equal(items[i].id, i);
		assert_string_equal(items[i].name, expect);
	}
	arena_free(a);
}

static void test_push_pointers(void **state)
{
	struct arena *a = arena_new(NULL);
	const char **names = NULL;
	size_t n = 0, cap = 0;

	(void)state;
	for (int i = 0; i < 100; i++)
		*ARENA_PUSH(a, &names, &n, &cap) = arena_sprintf(a, "s%d", i);
	assert_int_equal(n, 100);
	assert_string_equal(names[0], "s0");
	assert_string_equal(names[99], "s99");
	arena_free(a);
}

static void test_cleanups_reverse_order(void **state)
{
	struct arena *a = arena_new(NULL);
	struct log log = { "" };
	struct tag t1 = { &log, '1' }, t2 = { &log, '2' }, t3 = { &log, '3' };

	(void)state;
	arena_on_reset(a, log_cleanup, &t1);
	arena_on_reset(a, log_cleanup, &t2);
	arena_on_reset(a, log_cleanup, &t3);
	assert_string_equal(log.text, "");
	arena_reset(a);
	assert_string_equal(log.text, "321");
	/* they run once: a second reset has nothing left to run */
	arena_reset(a);
	assert_string_equal(log.text, "321");
	/* the arena stays usable after a reset */
	assert_string_equal(arena_strdup(a, "still here"), "still here");
	arena_on_reset(a, log_cleanup, &t1);
	arena_free(a);
	assert_string_equal(log.text, "3211");
}

static void test_child_freed_with_parent(void **state)
{
	struct arena *parent = arena_new(NULL);
	struct arena *c1 = arena_new(parent);
	struct arena *c2 = arena_new(parent);
	struct arena *grandchild = arena_new(c1);
	struct log log = { "" };
	struct tag tp = { &log, 'p' }, t1 = { &log, 'a' }, t2 = { &log, 'b' },
		   tg = { &log, 'g' };

	(void)state;
	arena_on_reset(parent, log_cleanup, &tp);
	arena_on_reset(c1, log_cleanup, &t1);
	arena_on_reset(c2, log_cleanup, &t2);
	arena_on_reset(grandchild, log_cleanup, &tg);
	arena_strdup(c1, "in c1");
	arena_alloc(grandchild, 30000);
	arena_free(parent);
	/* every child goes, each before its parent's own cleanups */
	assert_int_equal(strlen(log.text), 4);
	assert_int_equal(log.text[3], 'p');
	assert_true(strchr(log.text, 'g') < strchr(log.text, 'a'));
	assert_non_null(strchr(log.text, 'b'));
}

static void test_reset_frees_children(void **state)
{
	struct arena *parent = arena_new(NULL);
	struct arena *child = arena_new(parent);
	struct log log = { "" };
	struct tag tc = { &log, 'c' }, tp = { &log, 'p' };

	(void)state;
	arena_on_reset(parent, log_cleanup, &tp);
	arena_on_reset(child, log_cleanup, &tc);
	arena_reset(parent);
	assert_string_equal(log.text, "cp");
	/* a new child after the reset is freed with the parent as usual */
	child = arena_new(parent);
	arena_on_reset(child, log_cleanup, &tc);
	arena_free(parent);
	assert_string_equal(log.text, "cpc");
}

static void test_child_freed_alone(void **state)
{
	struct arena *parent = arena_new(NULL);
	struct arena *a = arena_new(parent);
	struct arena *b = arena_new(parent);
	struct arena *c = arena_new(parent);
	struct log log = { "" };
	struct tag ta = { &log, 'a' }, tb = { &log, 'b' }, tc = { &log, 'c' };

	(void)state;
	arena_on_reset(a, log_cleanup, &ta);
	arena_on_reset(b, log_cleanup, &tb);
	arena_on_reset(c, log_cleanup, &tc);
	/* freeing a middle child unlinks it: the parent must not free it again */
	arena_free(b);
	assert_string_equal(log.text, "b");
	arena_free(c);
	assert_string_equal(log.text, "bc");
	arena_free(parent);
	assert_string_equal(log.text, "bca");
}

/* Threads that make children of one parent and free every other one: the
 * parent's free must then run the cleanup of each child kept, once. */
#define KID_THREADS 4
#define KIDS_EACH 20000

struct kids {
	struct arena *parent;
	atomic_int cleaned;
};

static void count_cleanup(void *ctx)
{
	atomic_fetch_add(&((struct kids *)ctx)->cleaned, 1);
}

static void *make_kids(void *ctx)
{
	struct kids *k = ctx;

	for (int i = 0; i < KIDS_EACH; i++) {
		struct arena *c = arena_new(k->parent);

		arena_on_reset(c, count_cleanup, k);
		if (i % 2)
			arena_free(c);
	}
	return NULL;
}

static void test_children_on_many_threads(void **state)
{
	struct kids k = { .parent = arena_new(NULL) };
	pthread_t tids[KID_THREADS];

	(void)state;
	atomic_init(&k.cleaned, 0);
	for (int t = 0; t < KID_THREADS; t++)
		assert_int_equal(pthread_create(&tids[t], NULL, make_kids, &k), 0);
	for (int t = 0; t < KID_THREADS; t++)
		pthread_join(tids[t], NULL);
	assert_int_equal(atomic_load(&k.cleaned), KID_THREADS * KIDS_EACH / 2);
	arena_free(k.parent);
	assert_int_equal(atomic_load(&k.cleaned), KID_THREADS * KIDS_EACH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_zeroed_and_aligned),
		cmocka_unit_test(test_allocations_do_not_overlap),
		cmocka_unit_test(test_big_allocations),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_grow_copies),
		cmocka_unit_test(test_push_growth_keeps_contents),
		cmocka_unit_test(test_push_pointers),
		cmocka_unit_test(test_cleanups_reverse_order),
		cmocka_unit_test(test_child_freed_with_parent),
		cmocka_unit_test(test_reset_frees_children),
		cmocka_unit_test(test_children_on_many_threads),
		cmocka_unit_test(test_child_freed_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
