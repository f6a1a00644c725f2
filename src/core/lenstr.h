/*
 * Strings one after another in a text, each as its length in decimal, a
 * colon and its bytes, so that any byte may be in them: the form the
 * caches of .sluice/ keep lists of names in.
 */
#ifndef SL_CORE_LENSTR_H
#define SL_CORE_LENSTR_H

#include "core/arena.h"
#include "core/buf.h"

/* Appends s. */
void lenstr_add(struct buf *out, const char *s);

/* The string at *s, in a, and *s past it; NULL when *s does not start
 * with one (a text lenstr_add did not write). */
const char *lenstr_take(struct arena *a, const char **s);

#endif
