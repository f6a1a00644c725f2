/*
 * The lexer of model headers: cuts a model file into its directives and its
 * query, and scans a directive's text (quotes, brackets, lists, literals).
 * Knows no directive's meaning and reports nothing: header.c and
 * settings.c say what is wrong. Everything it returns lives in the
 * caller's arena and must not be freed.
 */
#ifndef SL_PROJECT_DIRECTIVE_H
#define SL_PROJECT_DIRECTIVE_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

/*
 * One directive: its name (after the '@') and its text after the name, with
 * `--` comments cut off and continuation lines joined by '\n'. Comment lines
 * inside a directive stay as empty lines so that counting '\n' maps an
 * offset back to its file line.
 */
struct directive {
	const char *name;
	const char *s;
	int line; /* file line of the '@', and of s[0] */
	int col;  /* file column of s[0] */
};

/* A model file cut into its header and its query. */
struct directive_file {
	struct directive *dirs; /* in file order */
	size_t ndirs;
	/* the text from the first line that is not part of a directive, nor
	 * blank, nor a `--` comment, without trailing whitespace and
	 * semicolons; NULL when there is none */
	const char *body;
	int body_line;
};

/* Cuts a model file's text into its directives and its query. */
void directive_split_file(struct arena *a, const char *text, struct directive_file *f);

/* The file line and column of d->s[off]. */
void directive_pos(const struct directive *d, size_t off, int *line, int *col);

bool directive_is_space(char c);
size_t directive_skip_ws(const char *s, size_t i);

/* The index just past the quote that closes the one at s[i], or 0 when the
 * text ends first (0 can never be past a closing quote). A doubled quote is
 * an escaped one, as in SQL. */
size_t directive_scan_quoted(const char *s, size_t i);

/* The index of the first character of `stops` outside quotes and brackets,
 * or of the terminating NUL. */
size_t directive_scan_until(const char *s, size_t i, const char *stops);

/* The index of the bracket that closes the one at s[open], or 0 when there
 * is none. */
size_t directive_scan_close(const char *s, size_t open);

/* Copies s[from, to) without surrounding whitespace. */
char *directive_dup_trimmed(struct arena *a, const char *s, size_t from, size_t to);

/* The text of a quoted token without its quotes, doubled quotes made single. */
char *directive_unquote(struct arena *a, const char *s, size_t len);

/* Whether item (trimmed) is one complete single-quoted string. */
bool directive_is_quoted(const char *item);

/*
 * Splits s[from, to) at top-level commas into trimmed items. Text that is
 * only whitespace has no items; an empty item between commas is reported by
 * returning false (with the items found so far).
 */
bool directive_split_items(struct arena *a, const char *s, size_t from, size_t to,
			   const char ***items, size_t *n);

enum directive_list_status { LIST_OK, LIST_UNCLOSED, LIST_EMPTY_ITEM };

/*
 * Reads the list whose '[' is at s[open]. Items are unquoted, or with
 * `literals` turned into SQL literals (numbers and quoted strings as
 * written, a bare word quoted). *end is set past the ']'.
 */
enum directive_list_status directive_parse_list(struct arena *a, const char *s, size_t open,
						bool literals, size_t *end, const char ***items,
						size_t *n);

/* A list as a setting's value shows it: "[a, b]". */
const char *directive_list_text(struct arena *a, const char *const *items, size_t n);

#endif
