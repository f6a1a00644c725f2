/*
 * What a files source remembers of its folder between looks: each file's
 * size, change time and identity as last seen and since when, its hash
 * once taken, and whether its failure was said. A file still being
 * written changes between looks: it is settled once it has rested
 * unchanged for the settle time. Pure: the looks are handed in.
 */
#ifndef SL_FILES_SETTLE_H
#define SL_FILES_SETTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct files_entry;

struct files_seen {
	const char *name;
	int64_t size, mtime_ns;
	uint64_t dev, ino;
	int64_t since_ms;  /* the first look that saw it so */
	int64_t look;      /* the last look that saw it */
	char sha256[65];   /* "" until taken for this version */
	bool failed;       /* this version failed for its own sake and was said */
};

struct files_memory {
	struct arena *a; /* the names; owned by the caller */
	struct files_seen *items;
	size_t n, cap;
	int64_t look;
};

/* Begins a look: files_memory_see counts what it sees in it. */
void files_memory_look(struct files_memory *m);

/* e as seen at now_ms (wall clock): its memory, new or kept while e
 * is unchanged (a changed file is a new version: its hash and failure
 * are forgotten). */
struct files_seen *files_memory_see(struct files_memory *m, const struct files_entry *e,
				    int64_t now_ms);

/* Forgets the files the look just made did not see. */
void files_memory_sweep(struct files_memory *m);

/* Whether the file seen as s has rested for settle_ms at now_ms: unchanged
 * since a look at least that long ago, or last changed at least that long
 * before now. *wait_ms gets how long is left otherwise. */
bool files_settled(const struct files_seen *s, int64_t now_ms, int64_t settle_ms,
		   int64_t *wait_ms);

#endif
