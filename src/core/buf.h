/*
 * Growable string buffer. Invariants (after git's strbuf): `buf` is never
 * NULL and always NUL-terminated, so a fresh BUF_INIT buffer reads as "".
 * An optional `cap` bounds the length (request bodies, row batches): an
 * append that would pass it fails with SL_E_TOOBIG and leaves the buffer as
 * it was. Running out of memory aborts the process: there is no sane way to
 * carry on, and every caller would otherwise need a branch it cannot test.
 */
#ifndef SL_CORE_BUF_H
#define SL_CORE_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *buf;
	size_t len;
	size_t alloc;
	size_t cap; /* 0: unbounded */
};

extern char buf_empty[];
#define BUF_INIT { buf_empty, 0, 0, 0 }

void buf_init(struct buf *b, size_t hint);
/* Frees the storage; the buffer is empty again and keeps its cap. */
void buf_release(struct buf *b);
/* Hands the string to the caller, who must free() it; the buffer is reset. */
char *buf_detach(struct buf *b, size_t *len);
void buf_reset(struct buf *b);
void buf_setlen(struct buf *b, size_t len);

int buf_add(struct buf *b, const void *data, size_t len);
int buf_adds(struct buf *b, const char *s);
int buf_addch(struct buf *b, char c);
int buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vaddf(struct buf *b, const char *fmt, va_list ap);
/* Appends s as a SQL string literal: quoted, with embedded quotes doubled. */
int buf_add_sql_str(struct buf *b, const char *s);
/* Appends s as a SQL identifier: double-quoted, embedded quotes doubled. */
int buf_add_sql_ident(struct buf *b, const char *s);

#endif
