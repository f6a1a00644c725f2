/*
 * Growable string buffer. Never leaves `buf` NULL or unterminated, and never
 * grows past `cap` when one is set.
 */
#include "core/buf.h"

#include "core/err.h"
#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char buf_empty[1];

static int buf_grow(struct buf *b, size_t extra)
{
	size_t want;

	if (b->cap && b->len + extra > b->cap)
		return SL_E_TOOBIG;
	want = b->len + extra + 1;
	if (want <= b->alloc)
		return 0;
	if (want < b->alloc * 2)
		want = b->alloc * 2;
	if (want < 64)
		want = 64;
	if (b->alloc == 0) {
		b->buf = xmalloc(want);
		b->buf[0] = '\0';
	} else {
		b->buf = xreallocarray(b->buf, want, 1);
	}
	b->alloc = want;
	return 0;
}

void buf_init(struct buf *b, size_t hint)
{
	b->buf = buf_empty;
	b->len = 0;
	b->alloc = 0;
	b->cap = 0;
	if (hint)
		buf_grow(b, hint);
}

void buf_release(struct buf *b)
{
	size_t cap = b->cap;

	if (b->alloc)
		free(b->buf);
	buf_init(b, 0);
	b->cap = cap;
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *s;

	if (!b->alloc)
		buf_grow(b, 0);
	s = b->buf;
	if (len)
		*len = b->len;
	b->buf = buf_empty;
	b->len = 0;
	b->alloc = 0;
	return s;
}

void buf_reset(struct buf *b)
{
	buf_setlen(b, 0);
}

void buf_setlen(struct buf *b, size_t len)
{
	if (!b->alloc)
		return;
	b->len = len;
	b->buf[len] = '\0';
}

int buf_add(struct buf *b, const void *data, size_t len)
{
	int rc = buf_grow(b, len);

	if (rc)
		return rc;
	if (len)
		memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return 0;
}

int buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_addch(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	int rc;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return SL_E_INTERNAL;
	rc = buf_grow(b, (size_t)n);
	if (rc)
		return rc;
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return rc;
}

/* All or nothing: a quoted string cut short by the cap would be worse than
 * none, so a failed append leaves the buffer as it was. */
static int add_quoted(struct buf *b, const char *s, char q)
{
	size_t old = b->len;
	int rc = buf_addch(b, q);

	for (; !rc && *s; s++) {
		if (*s == q)
			rc = buf_addch(b, q);
		if (!rc)
			rc = buf_addch(b, *s);
	}
	if (!rc)
		rc = buf_addch(b, q);
	if (rc)
		buf_setlen(b, old);
	return rc;
}

int buf_add_sql_str(struct buf *b, const char *s)
{
	return add_quoted(b, s, '\'');
}

int buf_add_sql_ident(struct buf *b, const char *s)
{
	return add_quoted(b, s, '"');
}
