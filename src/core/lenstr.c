/*
 * This file implements length-prefixed strings (lenstr.h).
 */
#include "core/lenstr.h"

#include <stdlib.h>
#include <string.h>

void lenstr_add(struct buf *out, const char *s)
{
	buf_addf(out, "%zu:%s", strlen(s), s);
}

const char *lenstr_take(struct arena *a, const char **s)
{
	char *end;
	unsigned long len;
	const char *v;

	if (**s < '0' || **s > '9')
		return NULL;
	len = strtoul(*s, &end, 10);
	if (*end != ':' || strnlen(end + 1, len) < len)
		return NULL;
	v = arena_strndup(a, end + 1, len);
	*s = end + 1 + len;
	return v;
}
