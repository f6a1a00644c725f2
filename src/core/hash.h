/*
 * FNV-1a, 64 bits: the one hash of names and texts that sluice keeps in
 * memory (indexes) or beside a file (checks against torn writes). Never
 * against someone who means to collide it.
 */
#ifndef SL_CORE_HASH_H
#define SL_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HASH_INIT 14695981039346656037ULL

/* h with one more byte. */
static inline uint64_t hash_byte(uint64_t h, unsigned char c)
{
	return (h ^ c) * 1099511628211ULL;
}

/* h with n more bytes. */
static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = hash_byte(h, s[i]);
	return h;
}

/* h with n more bytes, eight at a time: another value than hash_bytes
 * gives, about eight times as fast, for long texts. */
static inline uint64_t hash_words(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		h = (h ^ w) * 1099511628211ULL;
		h ^= h >> 29;
	}
	return hash_bytes(h, s + i, n - i);
}

#endif
