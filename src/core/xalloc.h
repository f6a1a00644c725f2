/*
 * Heap memory that is never NULL: running out of memory prints one line
 * and aborts (see README: a half-built statement is worse than a crash),
 * so callers hold no "if (!p) abort();" of their own. Memory with the
 * lifetime of a unit of work belongs in an arena (arena.h) instead; these
 * are for what outlives every arena or is handed to another thread.
 */
#ifndef SL_CORE_XALLOC_H
#define SL_CORE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
/* Zeroed; nmemb * size is checked for overflow. */
void *xcalloc(size_t nmemb, size_t size);
/* realloc(p, nmemb * size), overflow checked; p may be NULL. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
/* At most n bytes of s, stopping at its end, always terminated. */
char *xstrndup(const char *s, size_t n);
/* printf into a new string; must be freed with free(). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Says so on stderr and aborts: the one place out of memory ends in. */
void xalloc_die(void) __attribute__((noreturn));

#endif
