/*
 * This file implements the JSON array to PostgreSQL array text conversion
 * of pg_array.h: a scanner over the JSON text that writes the literal as
 * it goes. It keeps numbers as their digits (never through a C number), and
 * an object as its text for the column's type to read; it must never make
 * a literal of text that is not a JSON array.
 */
#include "warehouse/pg_array.h"

#include "core/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Arrays nested deeper than this are not read (PostgreSQL takes 6). */
#define DEPTH_MAX 64

struct scan {
	const char *p;
	struct buf *out;
};

static void skip_space(struct scan *s)
{
	while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')
		s->p++;
}

static int hex4(const char *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static void add_utf8(struct buf *b, uint32_t cp)
{
	if (cp < 0x80) {
		buf_addch(b, (char)cp);
	} else if (cp < 0x800) {
		buf_addch(b, (char)(0xC0 | cp >> 6));
		buf_addch(b, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		buf_addch(b, (char)(0xE0 | cp >> 12));
		buf_addch(b, (char)(0x80 | (cp >> 6 & 0x3F)));
		buf_addch(b, (char)(0x80 | (cp & 0x3F)));
	} else {
		buf_addch(b, (char)(0xF0 | cp >> 18));
		buf_addch(b, (char)(0x80 | (cp >> 12 & 0x3F)));
		buf_addch(b, (char)(0x80 | (cp >> 6 & 0x3F)));
		buf_addch(b, (char)(0x80 | (cp & 0x3F)));
	}
}

/* A character of an element, quoted as the array literal quotes it. */
static void add_quoted_char(struct buf *b, char c)
{
	if (c == '"' || c == '\\')
		buf_addch(b, '\\');
	buf_addch(b, c);
}

/* The \u escape at p (after the backslash and u), a surrogate pair read
 * whole; 0 when it is not one character or is NUL. */
static uint32_t unicode_escape(const char **p)
{
	int hi = hex4(*p), lo;

	if (hi <= 0)
		return 0;
	*p += 4;
	if (hi >= 0xDC00 && hi <= 0xDFFF)
		return 0;
	if (hi < 0xD800 || hi > 0xDBFF)
		return (uint32_t)hi;
	if ((*p)[0] != '\\' || (*p)[1] != 'u' || (lo = hex4(*p + 2)) < 0xDC00 || lo > 0xDFFF)
		return 0;
	*p += 6;
	return 0x10000 + ((uint32_t)(hi - 0xD800) << 10) + (uint32_t)(lo - 0xDC00);
}

/* A JSON string at s->p, its value written quoted. */
static bool scan_string(struct scan *s)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *p = s->p + 1;

	buf_addch(s->out, '"');
	for (;;) {
		unsigned char c = (unsigned char)*p;

		if (c == '"')
			break;
		if (c < 0x20)
			return false;
		if (c != '\\') {
			add_quoted_char(s->out, (char)c);
			p++;
			continue;
		}
		p++;
		if (*p == 'u') {
			struct buf ch = BUF_INIT;
			uint32_t cp;

			p++;
			if (!(cp = unicode_escape(&p)))
				return false;
			add_utf8(&ch, cp);
			buf_add(s->out, ch.buf, ch.len);
			buf_release(&ch);
			continue;
		}
		if (!*p || !strchr(from, *p))
			return false;
		add_quoted_char(s->out, to[strchr(from, *p) - from]);
		p++;
	}
	buf_addch(s->out, '"');
	s->p = p + 1;
	return true;
}

/* The JSON object at s->p, written quoted as its text. */
static bool scan_object(struct scan *s)
{
	const char *p = s->p;
	int depth = 0;
	bool in_string = false;

	for (; *p; p++) {
		if (in_string) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_string = false;
		} else if (*p == '"') {
			in_string = true;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if ((*p == '}' || *p == ']') && --depth == 0) {
			break;
		}
	}
	if (!*p)
		return false;
	buf_addch(s->out, '"');
	for (const char *q = s->p; q <= p; q++)
		add_quoted_char(s->out, *q);
	buf_addch(s->out, '"');
	s->p = p + 1;
	return true;
}

static bool digits(const char **p)
{
	const char *start = *p;

	while (**p >= '0' && **p <= '9')
		(*p)++;
	return *p > start;
}

/* A number, true, false or null, as the literal writes it. */
static bool scan_word(struct scan *s)
{
	static const char *const words[] = { "true", "false", "null" };
	const char *p = s->p;

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);

		if (strncmp(p, words[i], n) == 0) {
			buf_adds(s->out, i == 2 ? "NULL" : words[i]);
			s->p += n;
			return true;
		}
	}
	/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (!digits(&p))
		return false;
	if (*p == '.' && (p++, !digits(&p)))
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!digits(&p))
			return false;
	}
	buf_add(s->out, s->p, (size_t)(p - s->p));
	s->p = p;
	return true;
}

static bool scan_array(struct scan *s, int depth)
{
	if (depth > DEPTH_MAX)
		return false;
	s->p++;
	buf_addch(s->out, '{');
	skip_space(s);
	if (*s->p == ']') {
		s->p++;
		buf_addch(s->out, '}');
		return true;
	}
	for (;;) {
		bool ok;

		skip_space(s);
		if (*s->p == '[')
			ok = scan_array(s, depth + 1);
		else if (*s->p == '"')
			ok = scan_string(s);
		else if (*s->p == '{')
			ok = scan_object(s);
		else
			ok = scan_word(s);
		if (!ok)
			return false;
		skip_space(s);
		if (*s->p == ']')
			break;
		if (*s->p != ',')
			return false;
		s->p++;
		buf_addch(s->out, ',');
	}
	s->p++;
	buf_addch(s->out, '}');
	return true;
}

bool pg_array_from_json(const char *json, struct buf *out)
{
	struct scan s = { json, out };
	size_t len = out->len;

	skip_space(&s);
	if (*s.p == '[' && scan_array(&s, 1)) {
		skip_space(&s);
		if (!*s.p)
			return true;
	}
	buf_setlen(out, len);
	return false;
}
