/*
 * SQL lexical helpers: identifier extents, string-literal maps and comment
 * skipping, following DuckDB's (PostgreSQL's) lexical rules.
 */
#include "project/sqltext.h"

#include "core/buf.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static bool ident_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* Length of one identifier (bare or "quoted") at s, or 0. */
static size_t ident_len(const char *s)
{
	size_t i = 0;

	if (s[0] == '"') {
		for (i = 1; s[i]; i++) {
			if (s[i] == '"') {
				if (s[i + 1] == '"') {
					i++;
					continue;
				}
				return i + 1;
			}
		}
		return 0;
	}
	while (s[i] && ident_char((unsigned char)s[i]))
		i++;
	return i;
}

size_t sqltext_name_len(const char *sql, size_t offset)
{
	const char *s = sql + offset;
	size_t end = ident_len(s);
	size_t parts = 1;

	if (!end)
		return 0;
	while (parts < 3) {
		size_t i = end;
		size_t n;

		while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
			i++;
		if (s[i] != '.')
			break;
		i++;
		while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
			i++;
		n = ident_len(s + i);
		if (!n)
			break;
		end = i + n;
		parts++;
	}
	return end;
}

void sqltext_string_map(const char *sql, size_t len, bool *in_string)
{
	size_t i = 0;

	memset(in_string, 0, len);
	while (i < len) {
		if (sql[i] == '\'') {
			in_string[i++] = true;
			while (i < len) {
				in_string[i] = true;
				if (sql[i] == '\'') {
					if (i + 1 < len && sql[i + 1] == '\'') {
						in_string[++i] = true;
						i++;
						continue;
					}
					break;
				}
				i++;
			}
			i++;
		} else if (sql[i] == '"') {
			i += ident_len(sql + i) ? ident_len(sql + i) : len - i;
		} else if (sql[i] == '-' && i + 1 < len && sql[i + 1] == '-') {
			while (i < len && sql[i] != '\n')
				i++;
		} else if (sql[i] == '/' && i + 1 < len && sql[i + 1] == '*') {
			const char *end = strstr(sql + i + 2, "*/");

			i = end ? (size_t)(end - sql) + 2 : len;
		} else {
			i++;
		}
	}
}

size_t sqltext_skip_space(const char *sql, size_t offset)
{
	size_t i = offset;

	for (;;) {
		while (sql[i] && isspace((unsigned char)sql[i]))
			i++;
		if (sql[i] == '-' && sql[i + 1] == '-') {
			while (sql[i] && sql[i] != '\n')
				i++;
		} else if (sql[i] == '/' && sql[i + 1] == '*') {
			const char *end = strstr(sql + i + 2, "*/");

			i = end ? (size_t)(end - sql) + 2 : strlen(sql);
		} else {
			return i;
		}
	}
}

/* Offset just past the string literal that opens at sql[i]. */
static size_t skip_string(const char *sql, size_t i)
{
	for (i++; sql[i]; i++) {
		if (sql[i] != '\'')
			continue;
		if (sql[i + 1] != '\'')
			return i + 1;
		i++;
	}
	return i;
}

/* Whether a space between two tokens must stay: it keeps words, and
 * quoted tokens ('a' 'b' is not 'a''b'), apart. */
static bool joins(unsigned char c)
{
	return ident_char(c) || c == '\'' || c == '"';
}

void sqltext_tokens(const char *sql, struct buf *out)
{
	size_t i = 0;

	for (;;) {
		size_t next = sqltext_skip_space(sql, i), len;
		unsigned char c = (unsigned char)sql[next];

		if (!c)
			return;
		if (next > i && out->len && joins((unsigned char)out->buf[out->len - 1]) && joins(c))
			buf_addch(out, ' ');
		i = next;
		if (c == '\'') {
			len = skip_string(sql, i) - i;
		} else {
			len = ident_len(sql + i);
			if (!len)
				len = c == '"' ? strlen(sql + i) : 1;
		}
		if (ident_char(c))
			for (size_t k = 0; k < len; k++)
				buf_addch(out, (char)tolower((unsigned char)sql[i + k]));
		else
			buf_add(out, sql + i, len);
		i += len;
	}
}

size_t sqltext_close_paren(const char *sql, size_t open)
{
	size_t depth = 0, i = open;

	while (sql[i]) {
		if (sql[i] == '\'') {
			for (i++; sql[i] && !(sql[i] == '\'' && sql[i + 1] != '\''); i++)
				if (sql[i] == '\'')
					i++;
			if (!sql[i])
				return 0;
			i++;
		} else if (sql[i] == '"') {
			size_t n = ident_len(sql + i);

			if (!n)
				return 0;
			i += n;
		} else if ((sql[i] == '-' && sql[i + 1] == '-') || (sql[i] == '/' && sql[i + 1] == '*')) {
			i = sqltext_skip_space(sql, i);
		} else if (sql[i] == '(') {
			depth++;
			i++;
		} else if (sql[i] == ')') {
			if (depth <= 1)
				return depth ? i : 0;
			depth--;
			i++;
		} else {
			i++;
		}
	}
	return 0;
}

/* Walks the text from start to the word kw outside parentheses (or the
 * end), noting the commas outside them in ends (up to max); returns where
 * it stopped, and in *n how many commas it met. */
static size_t scan_list(const char *sql, size_t start, const char *kw, size_t *ends, size_t max,
			size_t *count)
{
	size_t depth = 0, n = 0, i = start, kwlen = strlen(kw);

	while (sql[i]) {
		unsigned char c = (unsigned char)sql[i];

		if (c == '\'') {
			i = skip_string(sql, i);
		} else if (c == '"') {
			size_t len = ident_len(sql + i);

			i += len ? len : strlen(sql + i);
		} else if ((c == '-' && sql[i + 1] == '-') || (c == '/' && sql[i + 1] == '*')) {
			i = sqltext_skip_space(sql, i);
		} else if (c == '(' || c == '[' || c == '{') {
			depth++;
			i++;
		} else if (c == ')' || c == ']' || c == '}') {
			depth -= depth > 0;
			i++;
		} else if (c == ',' && !depth) {
			if (n < max)
				ends[n] = i;
			n++;
			i++;
		} else if (ident_char(c) && !isdigit(c) && (i == start || !ident_char((unsigned char)sql[i - 1]))) {
			size_t len = ident_len(sql + i);

			if (!depth && len == kwlen && strncasecmp(sql + i, kw, kwlen) == 0)
				break;
			i += len;
		} else {
			i++;
		}
	}
	*count = n;
	return i;
}

size_t sqltext_split_list(const char *sql, size_t start, const char *kw, size_t *ends, size_t max)
{
	size_t n, end = scan_list(sql, start, kw, ends, max, &n);

	if (n < max)
		ends[n] = end;
	return n + 1;
}

long sqltext_find_word(const char *sql, size_t start, const char *kw)
{
	size_t n, end = scan_list(sql, start, kw, NULL, 0, &n);

	return sql[end] ? (long)end : -1;
}
