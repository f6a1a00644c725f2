#include "core/utf8.h"

#include <stdint.h>
#include <string.h>

#define HIGH_BITS 0x8080808080808080ULL

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		uint32_t cp;
		uint64_t word;
		size_t n;

		/* most text is ASCII: eight bytes a step while it is */
		if ((size_t)(end - p) >= sizeof(word)) {
			memcpy(&word, p, sizeof(word));
			if (!(word & HIGH_BITS)) {
				p += sizeof(word);
				continue;
			}
		}
		if (*p < 0x80) {
			p++;
			continue;
		}
		if (*p >= 0xc2 && *p <= 0xdf) {
			n = 1;
			cp = *p & 0x1f;
		} else if (*p >= 0xe0 && *p <= 0xef) {
			n = 2;
			cp = *p & 0x0f;
		} else if (*p >= 0xf0 && *p <= 0xf4) {
			n = 3;
			cp = *p & 0x07;
		} else {
			return false;
		}
		if ((size_t)(end - p) <= n)
			return false;
		for (size_t i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		/* the shortest form only, and no UTF-16 surrogates */
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		p += n + 1;
	}
	return true;
}
