/*
 * Hexadecimal digits, read: the one reading of them that signatures,
 * cache keys and the tests' tools share.
 */
#ifndef SL_CORE_HEX_H
#define SL_CORE_HEX_H

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

#endif
