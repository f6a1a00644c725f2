/*
 * This file implements a files source's memory of its folder and the
 * settle rule (settle.h). It must never touch the file system: what a
 * look saw is handed in.
 */
#include "files/settle.h"

#include "core/arena.h"
#include "files/scan.h"

#include <string.h>

void files_memory_look(struct files_memory *m)
{
	m->look++;
}

static bool same(const struct files_seen *s, const struct files_entry *e)
{
	return s->size == e->size && s->mtime_ns == e->mtime_ns && s->dev == e->dev &&
	       s->ino == e->ino;
}

struct files_seen *files_memory_see(struct files_memory *m, const struct files_entry *e,
				    int64_t now_ms)
{
	struct files_seen *s = NULL;

	for (size_t i = 0; !s && i < m->n; i++)
		if (strcmp(m->items[i].name, e->name) == 0)
			s = &m->items[i];
	if (!s) {
		s = ARENA_PUSH(m->a, &m->items, &m->n, &m->cap);
		*s = (struct files_seen){ .name = arena_strdup(m->a, e->name) };
	} else if (same(s, e)) {
		s->look = m->look;
		return s;
	}
	s->size = e->size;
	s->mtime_ns = e->mtime_ns;
	s->dev = e->dev;
	s->ino = e->ino;
	s->since_ms = now_ms;
	s->look = m->look;
	s->sha256[0] = '\0';
	s->failed = false;
	return s;
}

void files_memory_sweep(struct files_memory *m)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n; i++)
		if (m->items[i].look == m->look)
			m->items[k++] = m->items[i];
	m->n = k;
}

bool files_settled(const struct files_seen *s, int64_t now_ms, int64_t settle_ms,
		   int64_t *wait_ms)
{
	int64_t changed_ms = s->mtime_ns / 1000000;
	int64_t from = changed_ms > s->since_ms ? s->since_ms : changed_ms;

	*wait_ms = from + settle_ms - now_ms;
	if (*wait_ms <= 0) {
		*wait_ms = 0;
		return true;
	}
	return false;
}
