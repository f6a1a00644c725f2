/*
 * This file implements the text caches (text_cache.h). The file: a first
 * line "sluice KIND 3 VERSION", then per text a line of its key in hex,
 * its length, its checksum and how many saves in a row it went unused,
 * the text, and a newline.
 * Anything that does not read so (a torn write, a changed byte) ends what
 * is taken from it: a cache is only ever a shortcut, never an answer of
 * its own.
 */
#include "warehouse/text_cache.h"

#include "core/hash.h"
#include "core/hex.h"
#include "core/xalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_LEN 32
#define FORMAT "3"
/* a text larger than this is no model's */
#define TEXT_MAX (64u << 20)

struct entry {
	unsigned char key[KEY_LEN];
	char *text;
	bool used;
	unsigned age; /* saves in a row it went unused, as read */
};

struct text_cache {
	char *path, *header;
	struct entry *slots;
	size_t cap, n;
	bool changed; /* a text added since the file was read */
	unsigned keep_unused; /* saves in a row a text may go unused */
};

static size_t slot_of(const struct text_cache *c, const unsigned char *key)
{
	size_t h;

	memcpy(&h, key, sizeof(h));
	return h & (c->cap - 1);
}

static struct entry *find(struct text_cache *c, const unsigned char *key)
{
	for (size_t i = slot_of(c, key); c->slots[i].text; i = (i + 1) & (c->cap - 1))
		if (memcmp(c->slots[i].key, key, KEY_LEN) == 0)
			return &c->slots[i];
	return NULL;
}

static void insert(struct text_cache *c, const unsigned char *key, char *text, bool used,
		   unsigned age)
{
	size_t i;

	if (2 * (c->n + 1) > c->cap) {
		struct entry *old = c->slots;
		size_t old_cap = c->cap;

		c->cap = c->cap ? 2 * c->cap : 256;
		c->slots = xcalloc(c->cap, sizeof(*c->slots));
		c->n = 0;
		for (size_t k = 0; k < old_cap; k++)
			if (old[k].text)
				insert(c, old[k].key, old[k].text, old[k].used, old[k].age);
		free(old);
	}
	for (i = slot_of(c, key); c->slots[i].text; i = (i + 1) & (c->cap - 1))
		;
	memcpy(c->slots[i].key, key, KEY_LEN);
	c->slots[i].text = text;
	c->slots[i].used = used;
	c->slots[i].age = age;
	c->n++;
}

/* A check against torn and changed files, not against anyone who means to
 * forge one (who could edit the models): a cache of megabytes is read by
 * every command, so eight bytes at a time. */
static unsigned long long checksum(const char *s, size_t len)
{
	return (unsigned long long)hash_words(HASH_INIT, s, len);
}

static bool read_key(const char *hex, unsigned char *key)
{
	for (size_t i = 0; i < KEY_LEN; i++) {
		int hi = hex_value(hex[2 * i]), lo = hi < 0 ? -1 : hex_value(hex[2 * i + 1]);

		if (lo < 0)
			return false;
		key[i] = (unsigned char)(hi << 4 | lo);
	}
	return true;
}

/* The records of f after its header, until one does not read. */
static void read_records(struct text_cache *c, FILE *f)
{
	char line[128];

	while (fgets(line, sizeof(line), f)) {
		unsigned char key[KEY_LEN];
		unsigned long len;
		unsigned long long sum;
		unsigned age;
		char *text;

		if (strlen(line) < 2 * KEY_LEN + 3 || line[2 * KEY_LEN] != ' ' || !read_key(line, key) ||
		    sscanf(line + 2 * KEY_LEN + 1, "%lu %llx %u", &len, &sum, &age) != 3 ||
		    len > TEXT_MAX)
			return;
		text = xmalloc(len + 1);
		if (fread(text, 1, len, f) != len || fgetc(f) != '\n' || find(c, key) ||
		    checksum(text, len) != sum) {
			free(text);
			return;
		}
		text[len] = '\0';
		insert(c, key, text, false, age);
	}
}

struct text_cache *text_cache_load(const char *path, const char *kind, const char *version,
				   unsigned keep_unused)
{
	struct text_cache *c = xcalloc(1, sizeof(*c));
	char got[256];
	size_t len = strlen(kind) + strlen(version) + 16;
	FILE *f;

	c->path = xstrdup(path);
	c->keep_unused = keep_unused;
	c->header = xmalloc(len);
	snprintf(c->header, len, "sluice %s " FORMAT " %s\n", kind, version);
	c->cap = 256;
	c->slots = xcalloc(c->cap, sizeof(*c->slots));
	f = fopen(path, "rb");
	if (!f)
		return c;
	if (fgets(got, sizeof(got), f) && strcmp(got, c->header) == 0)
		read_records(c, f);
	fclose(f);
	return c;
}

const char *text_cache_get(struct text_cache *c, const unsigned char *key)
{
	struct entry *e = find(c, key);

	if (!e)
		return NULL;
	e->used = true;
	return e->text;
}

void text_cache_put(struct text_cache *c, const unsigned char *key, const char *text)
{
	struct entry *e = find(c, key);

	if (e && strcmp(e->text, text) == 0)
		return;
	if (e) {
		/* what the key's text was worked out from changed since */
		free(e->text);
		e->text = xstrdup(text);
		e->used = true;
		e->age = 0;
	} else {
		insert(c, key, xstrdup(text), true, 0);
	}
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

static void write_all(struct text_cache *c)
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
	ok = fputs(c->header, f) >= 0;
	for (size_t i = 0; ok && i < c->cap; i++) {
		const struct entry *e = &c->slots[i];
		unsigned age = e->used ? 0 : e->age + 1;

		if (!e->text || age > c->keep_unused)
			continue;
		for (size_t k = 0; k < KEY_LEN; k++)
			fprintf(f, "%02x", e->key[k]);
		ok = fprintf(f, " %zu %llx %u\n", strlen(e->text),
			     checksum(e->text, strlen(e->text)), age) > 0 &&
		     fwrite(e->text, 1, strlen(e->text), f) == strlen(e->text) && fputc('\n', f) != EOF;
	}
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, c->path) != 0)
		unlink(tmp);
	free(tmp);
}

void text_cache_save(struct text_cache *c)
{
	bool unused = false, used = false;

	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++) {
		unused |= c->slots[i].text && !c->slots[i].used;
		used |= c->slots[i].text && c->slots[i].used;
	}
	/* a process that used nothing leaves the file as it is */
	if (c->changed || (unused && used))
		write_all(c);
	for (size_t i = 0; i < c->cap; i++)
		free(c->slots[i].text);
	free(c->slots);
	free(c->path);
	free(c->header);
	free(c);
}
