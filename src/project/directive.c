/*
 * This file implements the lexer of model headers: it cuts a model file
 * into its directives (the '@' lines and their continuations) and its
 * query, and scans a directive's text: quotes, brackets, comma-separated
 * items, lists and the literals in them. It must never give a directive a
 * meaning or report a problem: it says where text ends and what shape it
 * has, and header.c and settings.c decide what is wrong. It allocates only
 * in the caller's arena.
 */
#include "project/directive.h"

#include "core/arena.h"

#include <ctype.h>
#include <string.h>

bool directive_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

size_t directive_skip_ws(const char *s, size_t i)
{
	while (s[i] && directive_is_space(s[i]))
		i++;
	return i;
}

size_t directive_scan_quoted(const char *s, size_t i)
{
	char q = s[i];

	for (i++; s[i]; i++) {
		if (s[i] != q)
			continue;
		if (s[i + 1] != q)
			return i + 1;
		i++;
	}
	return 0;
}

size_t directive_scan_until(const char *s, size_t i, const char *stops)
{
	int depth = 0;

	while (s[i]) {
		char c = s[i];

		if (c == '\'' || c == '"') {
			size_t end = directive_scan_quoted(s, i);

			/* a quote with no partner is an apostrophe (it's) */
			i = end ? end : i + 1;
			continue;
		}
		if (depth == 0 && strchr(stops, c))
			return i;
		if (c == '(' || c == '[')
			depth++;
		else if ((c == ')' || c == ']') && depth > 0)
			depth--;
		i++;
	}
	return i;
}

size_t directive_scan_close(const char *s, size_t open)
{
	char want = s[open] == '(' ? ')' : ']';
	char stops[2] = { want, 0 };
	size_t i = directive_scan_until(s, open + 1, stops);

	return s[i] == want ? i : 0;
}

char *directive_dup_trimmed(struct arena *a, const char *s, size_t from, size_t to)
{
	while (from < to && directive_is_space(s[from]))
		from++;
	while (to > from && directive_is_space(s[to - 1]))
		to--;
	return arena_strndup(a, s + from, to - from);
}

char *directive_unquote(struct arena *a, const char *s, size_t len)
{
	char *out = arena_alloc(a, len + 1), *o = out;

	for (size_t i = 1; i + 1 < len; i++) {
		*o++ = s[i];
		if (s[i] == s[0])
			i++;
	}
	*o = '\0';
	return out;
}

bool directive_is_quoted(const char *item)
{
	return item[0] == '\'' && directive_scan_quoted(item, 0) == strlen(item);
}

static bool is_number(const char *s)
{
	bool digits = false;

	if (*s == '+' || *s == '-')
		s++;
	while (isdigit((unsigned char)*s)) {
		s++;
		digits = true;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			s++;
			digits = true;
		}
	}
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

/* A SQL literal for an accepted_values item: numbers and quoted strings stay
 * as written, a bare word becomes a string. */
static const char *sql_literal(struct arena *a, const char *item)
{
	size_t len = strlen(item);
	char *out, *o;

	if (is_number(item) || directive_is_quoted(item))
		return item;
	out = arena_alloc(a, 2 * len + 3);
	o = out;
	*o++ = '\'';
	for (size_t i = 0; i < len; i++) {
		if (item[i] == '\'')
			*o++ = '\'';
		*o++ = item[i];
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

bool directive_split_items(struct arena *a, const char *s, size_t from, size_t to,
			   const char ***items, size_t *n)
{
	size_t cap = 0;
	char *part = arena_strndup(a, s + from, to - from);
	size_t i = 0;

	*items = NULL;
	*n = 0;
	if (part[directive_skip_ws(part, 0)] == '\0')
		return true;
	for (;;) {
		size_t end = directive_scan_until(part, i, ",");
		const char *item = directive_dup_trimmed(a, part, i, end);

		if (!*item)
			return false;
		*ARENA_PUSH(a, items, n, &cap) = item;
		if (!part[end])
			return true;
		i = end + 1;
	}
}

enum directive_list_status directive_parse_list(struct arena *a, const char *s, size_t open,
						bool literals, size_t *end, const char ***items,
						size_t *n)
{
	size_t close = directive_scan_close(s, open);
	bool ok;

	if (!close) {
		*items = NULL;
		*n = 0;
		*end = open + strlen(s + open);
		return LIST_UNCLOSED;
	}
	*end = close + 1;
	ok = directive_split_items(a, s, open + 1, close, items, n);
	for (size_t i = 0; i < *n; i++) {
		const char *it = (*items)[i];

		if (literals)
			(*items)[i] = sql_literal(a, it);
		else if (directive_is_quoted(it))
			(*items)[i] = directive_unquote(a, it, strlen(it));
	}
	return ok ? LIST_OK : LIST_EMPTY_ITEM;
}

const char *directive_list_text(struct arena *a, const char *const *items, size_t n)
{
	char *out = arena_strdup(a, "[");

	for (size_t i = 0; i < n; i++)
		out = arena_sprintf(a, "%s%s%s", out, i ? ", " : "", items[i]);
	return arena_sprintf(a, "%s]", out);
}

void directive_pos(const struct directive *d, size_t off, int *line, int *col)
{
	size_t start = 0;

	*line = d->line;
	for (size_t i = 0; i < off && d->s[i]; i++) {
		if (d->s[i] == '\n') {
			(*line)++;
			start = i + 1;
		}
	}
	*col = (int)(off - start) + 1 + (start == 0 ? d->col - 1 : 0);
}

/*
 * Adds the directive whose line starts at `line_start`: its name, and its
 * text from the end of its name to `end` (the end of its last continuation
 * line).
 */
static void add_directive(struct arena *a, struct directive_file *f, size_t *cap,
			  const char *line_start, const char *end, int line)
{
	const char *name = line_start + 1, *p;
	size_t name_len = 0;
	struct directive *d;
	char *out, *o;

	while (name + name_len < end && !directive_is_space(name[name_len]))
		name_len++;
	p = name + name_len;
	o = out = arena_alloc(a, (size_t)(end - p) + 1);
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *stop = eol ? eol : end, *q = p;

		/* cut a trailing `--` comment, unless it sits inside quotes */
		while (q < stop) {
			if (*q == '\'' || *q == '"') {
				const char *c = memchr(q + 1, *q, (size_t)(stop - q - 1));

				q = c ? c + 1 : q + 1;
			} else if (q[0] == '-' && q + 1 < stop && q[1] == '-') {
				break;
			} else {
				q++;
			}
		}
		for (; p < q; p++)
			if (*p != '\r')
				*o++ = *p;
		if (!eol)
			break;
		*o++ = '\n';
		p = eol + 1;
	}
	*o = '\0';
	d = ARENA_PUSH(a, &f->dirs, &f->ndirs, cap);
	d->name = arena_strndup(a, name, name_len);
	d->s = out;
	d->line = line;
	d->col = (int)(name + name_len - line_start) + 1;
}

static bool line_is_blank(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!directive_is_space(p[i]))
			return false;
	return true;
}

static bool line_is_comment(const char *p, size_t len)
{
	size_t i = 0;

	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i + 1 < len && p[i] == '-' && p[i + 1] == '-';
}

void directive_split_file(struct arena *a, const char *text, struct directive_file *f)
{
	const char *p = text;
	const char *dir = NULL, *dir_end = NULL;
	int line = 1, dir_line = 0;
	size_t cap = 0;

	memset(f, 0, sizeof(*f));
	for (; *p; line++) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (p[0] == '@') {
			if (dir)
				add_directive(a, f, &cap, dir, dir_end, dir_line);
			dir = p;
			dir_end = p + len;
			dir_line = line;
		} else if (line_is_blank(p, len)) {
			if (dir)
				add_directive(a, f, &cap, dir, dir_end, dir_line);
			dir = NULL;
		} else if (line_is_comment(p, len)) {
			/* skipped; a comment does not end a directive */
		} else if (dir && (p[0] == ' ' || p[0] == '\t')) {
			dir_end = p + len;
		} else {
			size_t n = strlen(p);

			while (n > 0 && (directive_is_space(p[n - 1]) || p[n - 1] == ';'))
				n--;
			if (n > 0) {
				f->body = arena_strndup(a, p, n);
				f->body_line = line;
			}
			break;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	if (dir)
		add_directive(a, f, &cap, dir, dir_end, dir_line);
}
