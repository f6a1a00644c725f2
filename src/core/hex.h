/*
 * Hexadecimal digits, read and written: the one reading of them that
 * signatures, cache keys and the tests' tools share, and the writing of
 * digests.
 */
#ifndef SL_CORE_HEX_H
#define SL_CORE_HEX_H

#include <stddef.h>

/* The value of a hex digit (either case), or -1. */
static inline int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* n bytes as 2n lowercase hex digits and a NUL into out (2n + 1 bytes). */
static inline void hex_encode(const unsigned char *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

#endif
