/*
 * Writing JSON values as text. Strings need only the escapes JSON
 * requires (quote, backslash, control characters): jansson has already
 * checked that they are valid UTF-8 without NUL.
 */
#include "ingest/jsontext.h"

#include "core/buf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jsontext_real(double x, char out[JSONTEXT_REAL_MAX])
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(out, JSONTEXT_REAL_MAX, "%.*g", digits, x);
		if (strtod(out, NULL) == x)
			break;
	}
	if (!strpbrk(out, ".e"))
		strcat(out, ".0");
}

size_t jsontext_integer(json_int_t v, char out[JSONTEXT_INT_MAX])
{
	char rev[JSONTEXT_INT_MAX];
	/* the magnitude as unsigned, so that the most negative value has one */
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	size_t n = 0, len = 0;

	do {
		rev[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		out[len++] = '-';
	while (n)
		out[len++] = rev[--n];
	out[len] = '\0';
	return len;
}

/* Whether one of the eight bytes at s needs an escape: a control
 * character, a quote or a backslash. Each test is exact for the word as a
 * whole (a byte of 0x80 or more never passes for one of them). */
static bool word_needs_escape(const char *s)
{
	const uint64_t ones = 0x0101010101010101ULL, high = ones << 7;
	uint64_t x, quote, backslash;

	memcpy(&x, s, sizeof(x));
	quote = x ^ (ones * '"');
	backslash = x ^ (ones * '\\');
	return (((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) |
		((backslash - ones) & ~backslash)) &
	       high;
}

int jsontext_escape(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0, i = 0;
	int rc = 0;

	while (i < len && !rc) {
		unsigned char c;
		char esc[6] = { '\\', 'u', '0', '0' };
		size_t n = 2;

		/* text is mostly plain: eight bytes a step until one is not */
		if (len - i >= 8 && !word_needs_escape(s + i)) {
			i += 8;
			continue;
		}
		c = (unsigned char)s[i++];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		rc = buf_add(b, s + run, i - 1 - run);
		run = i;
		switch (c) {
		case '"':
		case '\\':
			esc[1] = (char)c;
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default:
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		}
		if (!rc)
			rc = buf_add(b, esc, n);
	}
	return rc ? rc : buf_add(b, s + run, len - run);
}

static void write_string(struct buf *b, const char *s, size_t len)
{
	buf_addch(b, '"');
	jsontext_escape(b, s, len);
	buf_addch(b, '"');
}

void jsontext_write(struct buf *b, const json_t *v)
{
	char real[JSONTEXT_REAL_MAX], digits[JSONTEXT_INT_MAX];
	const char *key;
	json_t *item;
	size_t i;
	bool first = true;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		buf_addch(b, '{');
		json_object_foreach((json_t *)v, key, item) {
			if (!first)
				buf_addch(b, ',');
			first = false;
			write_string(b, key, strlen(key));
			buf_addch(b, ':');
			jsontext_write(b, item);
		}
		buf_addch(b, '}');
		break;
	case JSON_ARRAY:
		buf_addch(b, '[');
		json_array_foreach(v, i, item) {
			if (i)
				buf_addch(b, ',');
			jsontext_write(b, item);
		}
		buf_addch(b, ']');
		break;
	case JSON_STRING:
		write_string(b, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		buf_add(b, digits, jsontext_integer(json_integer_value(v), digits));
		break;
	case JSON_REAL:
		jsontext_real(json_real_value(v), real);
		buf_adds(b, real);
		break;
	case JSON_TRUE:
		buf_adds(b, "true");
		break;
	case JSON_FALSE:
		buf_adds(b, "false");
		break;
	case JSON_NULL:
		buf_adds(b, "null");
		break;
	}
}

const char *jsontext_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		break;
	}
	return "null";
}

bool jsontext_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	return true;
}

/* ---- scanning JSON text ---- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool jsontext_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

size_t jsontext_skip_space(const char *s, size_t len, size_t i)
{
	while (i < len && jsontext_is_space(s[i]))
		i++;
	return i;
}

size_t jsontext_skip_digits(const char *s, size_t len, size_t i)
{
	while (i < len && is_digit(s[i]))
		i++;
	return i;
}

size_t jsontext_number_end(const char *s, size_t len, size_t i)
{
	size_t j;

	if (i < len && s[i] == '-')
		i++;
	if (i < len && s[i] == '0')
		i++;
	else if ((j = jsontext_skip_digits(s, len, i)) > i)
		i = j;
	else
		return 0;
	if (i < len && s[i] == '.') {
		if ((j = jsontext_skip_digits(s, len, i + 1)) == i + 1)
			return 0;
		i = j;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if ((j = jsontext_skip_digits(s, len, i)) == i)
			return 0;
		i = j;
	}
	return i;
}

size_t jsontext_string_end(const char *s, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"')
			return i + 1;
		if (c < 0x20)
			return 0;
		if (c != '\\')
			continue;
		if (++i >= len)
			return 0;
		if (s[i] == 'u') {
			if (len - i < 5 || !is_hex(s[i + 1]) || !is_hex(s[i + 2]) || !is_hex(s[i + 3]) ||
			    !is_hex(s[i + 4]))
				return 0;
			i += 4;
		} else if (!s[i] || !strchr("\"\\/bfnrt", s[i])) {
			return 0;
		}
	}
	return 0;
}

static size_t literal_end(const char *s, size_t len, size_t i)
{
	static const char *const words[] = { "true", "false", "null" };

	for (size_t k = 0; k < 3; k++) {
		size_t n = strlen(words[k]);

		if (len - i >= n && !memcmp(s + i, words[k], n))
			return i + n;
	}
	return 0;
}

/* p[0..n) to out, unless out is NULL or its first failure is kept. */
static void out_add(struct buf *out, int *out_rc, const char *p, size_t n)
{
	if (out && !*out_rc && n)
		*out_rc = buf_add(out, p, n);
}

int jsontext_scan(struct buf *out, int *out_rc, const char *s, size_t len, size_t *pos)
{
	struct buf open = BUF_INIT; /* the containers open, '{' or '[' */
	enum { VALUE, KEY, AFTER } want = VALUE;
	size_t i = *pos, end;
	int rc = -1;

	for (;;) {
		char top = open.len ? open.buf[open.len - 1] : 0;

		if (want == AFTER && !top) {
			rc = 0;
			break;
		}
		if (want != VALUE || top)
			i = jsontext_skip_space(s, len, i);
		if (i >= len)
			break;
		if (want == AFTER) {
			if (s[i] == ',') {
				want = top == '{' ? KEY : VALUE;
			} else if (s[i] == (top == '{' ? '}' : ']')) {
				buf_setlen(&open, open.len - 1);
			} else {
				break;
			}
			out_add(out, out_rc, s + i++, 1);
			continue;
		}
		if (want == KEY) {
			if (s[i] != '"' || !(end = jsontext_string_end(s, len, i)))
				break;
			out_add(out, out_rc, s + i, end - i);
			i = jsontext_skip_space(s, len, end);
			if (i >= len || s[i] != ':')
				break;
			out_add(out, out_rc, s + i++, 1);
			want = VALUE;
			continue;
		}
		if (s[i] == '{' || s[i] == '[') {
			char close = s[i] == '{' ? '}' : ']';

			out_add(out, out_rc, s + i, 1);
			buf_addch(&open, s[i]);
			want = s[i] == '{' ? KEY : VALUE;
			i = jsontext_skip_space(s, len, i + 1);
			if (i < len && s[i] == close) {
				out_add(out, out_rc, s + i++, 1);
				buf_setlen(&open, open.len - 1);
				want = AFTER;
			}
			continue;
		}
		if (s[i] == '"')
			end = jsontext_string_end(s, len, i);
		else if (s[i] == '-' || is_digit(s[i]))
			end = jsontext_number_end(s, len, i);
		else
			end = literal_end(s, len, i);
		if (!end)
			break;
		out_add(out, out_rc, s + i, end - i);
		i = end;
		want = AFTER;
	}
	buf_release(&open);
	*pos = i;
	return rc;
}

bool jsontext_valid(const char *s, size_t len)
{
	size_t i = jsontext_skip_space(s, len, 0);

	return jsontext_scan(NULL, NULL, s, len, &i) == 0 && jsontext_skip_space(s, len, i) == len;
}
