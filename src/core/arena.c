/*
 * Arenas: a list of malloc'd blocks per arena plus a list of children and of
 * cleanups. Allocations are bump-pointer within a block; big requests get a
 * block of their own. Must never hand out memory that outlives its arena.
 */
#include "core/arena.h"

#include "core/xalloc.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK 16384

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[];
};

struct arena_cleanup {
	struct arena_cleanup *next;
	void (*fn)(void *);
	void *ctx;
};

struct arena {
	/* guards first_child and the children's siblings: the children of
	 * one arena (a server's requests, a command's slots) come and go on
	 * their own threads, a server's by the thousand at once */
	pthread_mutex_t kids;
	struct arena *parent, *first_child, *prev_sibling, *next_sibling;
	struct arena_block *blocks;
	struct arena_cleanup *cleanups;
};

struct arena *arena_new(struct arena *parent)
{
	struct arena *a = xmalloc(sizeof(*a));

	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->kids, NULL);
	a->parent = parent;
	if (parent) {
		pthread_mutex_lock(&parent->kids);
		a->next_sibling = parent->first_child;
		if (a->next_sibling)
			a->next_sibling->prev_sibling = a;
		parent->first_child = a;
		pthread_mutex_unlock(&parent->kids);
	}
	return a;
}

static void unlink_from_parent(struct arena *a)
{
	if (!a->parent)
		return;
	pthread_mutex_lock(&a->parent->kids);
	if (a->prev_sibling)
		a->prev_sibling->next_sibling = a->next_sibling;
	else
		a->parent->first_child = a->next_sibling;
	if (a->next_sibling)
		a->next_sibling->prev_sibling = a->prev_sibling;
	pthread_mutex_unlock(&a->parent->kids);
	a->parent = NULL;
	a->prev_sibling = a->next_sibling = NULL;
}

static struct arena *first_child(struct arena *a)
{
	struct arena *c;

	pthread_mutex_lock(&a->kids);
	c = a->first_child;
	pthread_mutex_unlock(&a->kids);
	return c;
}

void arena_reset(struct arena *a)
{
	struct arena *c;

	while ((c = first_child(a)))
		arena_free(c);
	while (a->cleanups) {
		struct arena_cleanup *c = a->cleanups;

		a->cleanups = c->next;
		c->fn(c->ctx);
		free(c);
	}
	while (a->blocks) {
		struct arena_block *b = a->blocks;

		a->blocks = b->next;
		free(b);
	}
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	arena_reset(a);
	unlink_from_parent(a);
	pthread_mutex_destroy(&a->kids);
	free(a);
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_block *b = a->blocks;
	size_t align = sizeof(max_align_t);
	size_t need = (size + align - 1) / align * align;
	void *p;

	if (need == 0)
		need = align;
	if (!b || b->size - b->used < need) {
		size_t bsize = need > ARENA_BLOCK / 4 ? need : ARENA_BLOCK;

		b = xmalloc(sizeof(*b) + bsize);
		b->size = bsize;
		b->used = 0;
		if (need > ARENA_BLOCK / 4 && a->blocks) {
			/* keep the partly used block in front for small requests */
			b->next = a->blocks->next;
			a->blocks->next = b;
		} else {
			b->next = a->blocks;
			a->blocks = b;
		}
	}
	p = (char *)b->data + b->used;
	b->used += need;
	memset(p, 0, size);
	return p;
}

void *arena_grow(struct arena *a, void *old, size_t old_size, size_t new_size)
{
	void *p = arena_alloc(a, new_size);

	if (old && old_size)
		memcpy(p, old, old_size < new_size ? old_size : new_size);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_vsprintf(struct arena *a, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	char *p;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		n = 0;
	p = arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *arena_sprintf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = arena_vsprintf(a, fmt, ap);
	va_end(ap);
	return p;
}

void arena_on_reset(struct arena *a, void (*fn)(void *), void *ctx)
{
	struct arena_cleanup *c = xmalloc(sizeof(*c));

	c->fn = fn;
	c->ctx = ctx;
	c->next = a->cleanups;
	a->cleanups = c;
}

void *arena_push(struct arena *a, void **items, size_t *n, size_t *cap, size_t elem)
{
	if (*n == *cap) {
		size_t grown = *cap ? *cap * 2 : 8;

		*items = arena_grow(a, *items, *cap * elem, grown * elem);
		*cap = grown;
	}
	return (char *)*items + (*n)++ * elem;
}
