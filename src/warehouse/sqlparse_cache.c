/*
 * This file implements the parse-tree cache (sqlparse_cache.h). The file:
 * a first line "sluice parse cache 2 VERSION", then per tree a line of
 * its key in hex, its length and its checksum, the tree, and a newline.
 * Anything that does not read so (a torn write, a changed byte) ends what
 * is taken from it: a cache is only ever a shortcut, never an answer of
 * its own.
 */
#include "warehouse/sqlparse_cache.h"

#include "core/hash.h"
#include "core/xalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_LEN 32
#define HEADER "sluice parse cache 2 "
/* a tree larger than this is no tree of a model */
#define TREE_MAX (64u << 20)

struct entry {
	unsigned char key[KEY_LEN];
	char *tree;
	bool used;
};

struct parse_cache {
	char *path, *version;
	struct entry *slots;
	size_t cap, n;
	bool changed; /* a tree added since the file was read */
};

static size_t slot_of(const struct parse_cache *c, const unsigned char *key)
{
	size_t h;

	memcpy(&h, key, sizeof(h));
	return h & (c->cap - 1);
}

static struct entry *find(struct parse_cache *c, const unsigned char *key)
{
	for (size_t i = slot_of(c, key); c->slots[i].tree; i = (i + 1) & (c->cap - 1))
		if (memcmp(c->slots[i].key, key, KEY_LEN) == 0)
			return &c->slots[i];
	return NULL;
}

static void insert(struct parse_cache *c, const unsigned char *key, char *tree, bool used)
{
	size_t i;

	if (2 * (c->n + 1) > c->cap) {
		struct entry *old = c->slots;
		size_t old_cap = c->cap;

		c->cap = c->cap ? 2 * c->cap : 256;
		c->slots = xcalloc(c->cap, sizeof(*c->slots));
		c->n = 0;
		for (size_t k = 0; k < old_cap; k++)
			if (old[k].tree)
				insert(c, old[k].key, old[k].tree, old[k].used);
		free(old);
	}
	for (i = slot_of(c, key); c->slots[i].tree; i = (i + 1) & (c->cap - 1))
		;
	memcpy(c->slots[i].key, key, KEY_LEN);
	c->slots[i].tree = tree;
	c->slots[i].used = used;
	c->n++;
}

/* FNV-1a over the tree: a check against torn and changed files, not
 * against anyone who means to forge one (who could edit the models) */
static unsigned long long checksum(const char *s, size_t len)
{
	return (unsigned long long)hash_bytes(HASH_INIT, s, len);
}

static bool read_key(const char *hex, unsigned char *key)
{
	for (size_t i = 0; i < KEY_LEN; i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return false;
		key[i] = (unsigned char)b;
	}
	return true;
}

/* The records of f after its header, until one does not read. */
static void read_records(struct parse_cache *c, FILE *f)
{
	char line[128];

	while (fgets(line, sizeof(line), f)) {
		unsigned char key[KEY_LEN];
		unsigned long len;
		unsigned long long sum;
		char *tree;

		if (strlen(line) < 2 * KEY_LEN + 3 || line[2 * KEY_LEN] != ' ' || !read_key(line, key) ||
		    sscanf(line + 2 * KEY_LEN + 1, "%lu %llx", &len, &sum) != 2 || len > TREE_MAX)
			return;
		tree = xmalloc(len + 1);
		if (fread(tree, 1, len, f) != len || fgetc(f) != '\n' || find(c, key) ||
		    checksum(tree, len) != sum) {
			free(tree);
			return;
		}
		tree[len] = '\0';
		insert(c, key, tree, false);
	}
}

struct parse_cache *parse_cache_load(const char *path, const char *version)
{
	struct parse_cache *c = xcalloc(1, sizeof(*c));
	char header[256];
	FILE *f;

	c->path = xstrdup(path);
	c->version = xstrdup(version);
	c->cap = 256;
	c->slots = xcalloc(c->cap, sizeof(*c->slots));
	f = fopen(path, "rb");
	if (!f)
		return c;
	snprintf(header, sizeof(header), HEADER "%s\n", version);
	{
		char got[256];

		if (fgets(got, sizeof(got), f) && strcmp(got, header) == 0)
			read_records(c, f);
	}
	fclose(f);
	return c;
}

const char *parse_cache_get(struct parse_cache *c, const unsigned char *key)
{
	struct entry *e = find(c, key);

	if (!e)
		return NULL;
	e->used = true;
	return e->tree;
}

void parse_cache_put(struct parse_cache *c, const unsigned char *key, const char *tree)
{
	if (find(c, key))
		return;
	insert(c, key, xstrdup(tree), true);
	c->changed = true;
}

/* The folder of path, made when it is not there. */
static void make_folder(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');

	if (slash) {
		*slash = '\0';
		mkdir(dir, 0755);
	}
	free(dir);
}

static void write_all(struct parse_cache *c)
{
	size_t len = strlen(c->path) + 16;
	char *tmp = xmalloc(len);
	bool ok;
	FILE *f;

	snprintf(tmp, len, "%s.%ld", c->path, (long)getpid());
	make_folder(c->path);
	f = fopen(tmp, "wb");
	if (!f) {
		free(tmp);
		return;
	}
	ok = fprintf(f, HEADER "%s\n", c->version) > 0;
	for (size_t i = 0; ok && i < c->cap; i++) {
		const struct entry *e = &c->slots[i];

		if (!e->tree || !e->used)
			continue;
		for (size_t k = 0; k < KEY_LEN; k++)
			fprintf(f, "%02x", e->key[k]);
		ok = fprintf(f, " %zu %llx\n", strlen(e->tree),
			     checksum(e->tree, strlen(e->tree))) > 0 &&
		     fwrite(e->tree, 1, strlen(e->tree), f) == strlen(e->tree) && fputc('\n', f) != EOF;
	}
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, c->path) != 0)
		unlink(tmp);
	free(tmp);
}

void parse_cache_save(struct parse_cache *c)
{
	bool unused = false, used = false;

	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++) {
		unused |= c->slots[i].tree && !c->slots[i].used;
		used |= c->slots[i].tree && c->slots[i].used;
	}
	/* a process that parsed nothing leaves the file as it is */
	if (c->changed || (unused && used))
		write_all(c);
	for (size_t i = 0; i < c->cap; i++)
		free(c->slots[i].tree);
	free(c->slots);
	free(c->path);
	free(c->version);
	free(c);
}
