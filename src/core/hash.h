/*
 * FNV-1a, 64 bits: the one hash of names and texts that sluice keeps in
 * memory (indexes) or beside a file (checks against torn writes). Never
 * against someone who means to collide it.
 */
#ifndef SL_CORE_HASH_H
#define SL_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

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

#endif
