/*
 * JSON text of parsed values, written the way they most likely arrived:
 * compact, keys in the order received, UTF-8 as it is, and each real in
 * the shortest form that reads back as the same double (0.1, where
 * jansson's own writer gives 0.10000000000000001).
 */
#ifndef SL_INGEST_JSONTEXT_H
#define SL_INGEST_JSONTEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct buf;

/* Room for any real's text, with its NUL. */
#define JSONTEXT_REAL_MAX 32

/* x (finite, as every JSON real is) in its shortest round-trip form, with
 * ".0" added when it would otherwise read as an integer. */
void jsontext_real(double x, char out[JSONTEXT_REAL_MAX]);

/* Room for any integer's decimal text, with its sign and NUL. */
#define JSONTEXT_INT_MAX 24

/* v in decimal, as printf's %lld writes it, without printf's cost (every
 * integer of every landed event passes here twice); returns its length. */
size_t jsontext_integer(json_int_t v, char out[JSONTEXT_INT_MAX]);

/* Appends s[0..len) as the inside of a JSON string: escaped as JSON
 * requires, a control character by its short escape when it has one. */
int jsontext_escape(struct buf *b, const char *s, size_t len);

/* Appends v to b. Recurses once per level: jansson parses at most 2048. */
void jsontext_write(struct buf *b, const json_t *v);

/* "an object", "a string", ...: what v is, for error messages. */
const char *jsontext_kind(const json_t *v);
/* Whether s[0..len) is only JSON whitespace. */
bool jsontext_blank(const char *s, size_t len);
/* Scanning JSON text, RFC 8259, without building it. Each gives where
 * what starts at s[i] ends: white space (is_space, skip_space), digits,
 * a number or a string (its opening quote at s[i]); 0 when there is no
 * number or string there. */
bool jsontext_is_space(char c);
size_t jsontext_skip_space(const char *s, size_t len, size_t i);
size_t jsontext_skip_digits(const char *s, size_t len, size_t i);
size_t jsontext_number_end(const char *s, size_t len, size_t i);
size_t jsontext_string_end(const char *s, size_t len, size_t i);
/* Scans the JSON value at s[*pos] (no white space before it) and appends
 * it to out without white space between its tokens (out may be NULL: a
 * scan only; its first failure is kept in *out_rc, and nothing more is
 * appended). Containers are kept on a stack of their own, not the C
 * stack. Returns 0 with *pos after the value, or -1 with *pos where it is
 * wrong. */
int jsontext_scan(struct buf *out, int *out_rc, const char *s, size_t len, size_t *pos);
/* Whether s[0..len) is one JSON value, white space around it allowed:
 * for text that is kept as it is. Its UTF-8 is not checked. */
bool jsontext_valid(const char *s, size_t len);

#endif
