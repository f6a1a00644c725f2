/*
 * UTF-8 checks for text that arrives from outside (header values) before
 * it reaches the warehouse, which refuses invalid UTF-8 with an error that
 * would blame the server.
 */
#ifndef SL_CORE_UTF8_H
#define SL_CORE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Whether s[0..len) is well-formed UTF-8: no overlong forms, no surrogates,
 * nothing past U+10FFFF. NUL is a valid character here. */
bool utf8_valid(const char *s, size_t len);

#endif
