/*
 * This file implements the model header parser: it reads each directive
 * that directive.c cut from a model file (@config, @upstream, @assert,
 * @column) into
 * struct model, checking the forms it can check alone: @upstream options
 * and their values, @assert checks and their column names, duplicate
 * @config keys. It also holds the word lists and the column-name rule that
 * settings.c checks @config with. Every problem becomes a diagnostic with
 * file:line:col so that a single pass reports them all. It must never stop
 * at the first problem, allocate outside the caller's arena, or look at the
 * warehouse; what a @config value means is settings.c's to check, and the
 * rules that need other models (contracts, references) belong to later
 * passes.
 */
#include "project/header.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/units.h"
#include "core/utf8.h"
#include "project/directive.h"
#include "warehouse/wh.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

const char *const header_bool_names[] = { "false", "true", NULL };

static const char *const directive_names[] = { "config", "upstream", "assert", "column",
					       NULL };

static const char *const upstream_keys[] = {
	"contract", "freshness", "freshness_scope", "deactivate_for_dev", "type", "path", "url",
	"rows", "sql", NULL,
};

static const char *const contract_names[] = { "exists", "exact", "encapsulate", "through",
					      "whole", NULL };
static const char *const scope_names[] = { "latest", "all", NULL };
static const char *const type_names[] = { "model", "file", "api", "hardcoded", NULL };

/* Parsing state shared by the directive parsers. */
struct hdr {
	struct arena *a;
	struct model *m;
	struct diag_list *diags;
};

bool header_is_column_name(const char *name)
{
	size_t len = strlen(name);

	if (!len || isdigit((unsigned char)name[0]) || !utf8_valid(name, len))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (ch < 0x80 && !isalnum(ch) && ch != '_')
			return false;
	}
	return true;
}

const char *header_column_name_hint(struct arena *a, const char *name)
{
	size_t len = strlen(name);
	const char *dot = strrchr(name, '.');

	if (len > 2 && name[0] == '"' && name[len - 1] == '"') {
		char *inner = arena_strndup(a, name + 1, len - 2);

		if (header_is_column_name(inner))
			return arena_sprintf(a, "write %s without quotes: sluice quotes column names itself",
					     inner);
	}
	if (dot && header_is_column_name(dot + 1) &&
	    header_is_column_name(arena_strndup(a, name, (size_t)(dot - name))))
		return arena_sprintf(a, "write %s alone, without its table", dot + 1);
	return "a column name is letters, digits and underscores, not starting with a digit; "
	       "give the column such a name in the query (... AS name)";
}

int header_choice_index(const char *const *choices, const char *word)
{
	for (int i = 0; choices[i]; i++)
		if (strcmp(choices[i], word) == 0)
			return i;
	return -1;
}

static char *lowercase(struct arena *a, const char *s)
{
	char *out = arena_strdup(a, s);

	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

const char *header_choice_hint(struct arena *a, const char *const *choices, const char *word,
			       const char **guess)
{
	/* case is ignored when guessing so that EXACT suggests 'exact' */
	const char *near = suggest_nearest(lowercase(a, word), choices);
	char *list = arena_strdup(a, "");

	for (size_t i = 0; choices[i]; i++)
		list = arena_sprintf(a, "%s%s%s", list, i ? ", " : "", choices[i]);
	if (guess)
		*guess = near;
	if (near)
		return arena_sprintf(a, "did you mean '%s'? (one of %s)", near, list);
	return arena_sprintf(a, "one of %s", list);
}

const char *header_mean_hint(struct arena *a, const char *const *choices, const char *word,
			     const char *prefix)
{
	const char *near = suggest_nearest(word, choices);

	return near ? arena_sprintf(a, "did you mean '%s%s'?", prefix, near) : NULL;
}

/* name as a SQL identifier, in a. */
static const char *sql_ident(struct arena *a, const char *name)
{
	struct buf b = BUF_INIT;
	const char *out;

	wh_sql_ident(&b, name);
	out = arena_strdup(a, b.buf);
	buf_release(&b);
	return out;
}

static void report(struct hdr *h, const struct directive *d, size_t off, const char *hint,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void report(struct hdr *h, const struct directive *d, size_t off, const char *hint,
		   const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int line, col;

	va_start(ap, fmt);
	msg = arena_vsprintf(h->a, fmt, ap);
	va_end(ap);
	directive_pos(d, off, &line, &col);
	diag_add(h->diags, DIAG_ERROR, h->m->path, line, col, hint, "%s", msg);
}

/* Reads the value of `key` that starts at s[*i] into st and moves *i past
 * the comma that ends it. */
static void config_value(struct hdr *h, const struct directive *d, const char *key, size_t *i,
			 struct model_setting *st)
{
	const char *s = d->s;
	size_t j = directive_skip_ws(s, *i), start = j;

	if (s[j] == '[') {
		enum directive_list_status ls =
			directive_parse_list(h->a, s, j, false, &j, &st->list, &st->nlist);

		if (ls == LIST_UNCLOSED)
			report(h, d, start, "close the list with ']'",
			       "unclosed list in the value of '%s'", key);
		else if (ls == LIST_EMPTY_ITEM)
			report(h, d, start, "remove the extra comma",
			       "empty item in the list of '%s'", key);
		st->is_list = true;
		st->value = directive_list_text(h->a, st->list, st->nlist);
	} else if (s[j] == '\'') {
		size_t end = directive_scan_quoted(s, j);

		if (!end) {
			report(h, d, start, "end the value with a quote (write '' for a quote inside it)",
			       "unterminated quoted value of '%s'", key);
			st->value = arena_strdup(h->a, s + j + 1);
			*i = j + strlen(s + j);
			return;
		}
		st->value = directive_unquote(h->a, s + j, end - j);
		j = end;
	} else {
		size_t end = directive_scan_until(s, j, ",");

		st->value = directive_dup_trimmed(h->a, s, j, end);
		if (!*st->value)
			report(h, d, start, NULL, "@config key '%s' has no value", key);
		j = end;
	}
	j = directive_skip_ws(s, j);
	if (s[j] && s[j] != ',') {
		report(h, d, j, "separate settings with commas",
		       "unexpected text after the value of '%s'", key);
		j = directive_scan_until(s, j, ",");
	}
	*i = s[j] ? j + 1 : j;
}

static void parse_config(struct hdr *h, const struct directive *d)
{
	const char *s = d->s;
	size_t i = 0;

	for (;;) {
		size_t kstart, kend;
		struct model_setting st = { 0 };
		const struct model_setting *prev;
		const char *key;
		int line, col, filter_line = 0;

		i = directive_skip_ws(s, i);
		if (!s[i])
			return;
		if (s[i] == ',') {
			i++;
			continue;
		}
		kstart = i;
		kend = directive_scan_until(s, i, "=,");
		key = directive_dup_trimmed(h->a, s, kstart, kend);
		if (s[kend] != '=') {
			report(h, d, kstart, "write key=value", "missing '=' after @config key '%s'",
			       key);
			i = s[kend] ? kend + 1 : kend;
			continue;
		}
		if (!*key) {
			report(h, d, kstart, "write key=value", "missing @config key before '='");
			i = directive_scan_until(s, kend + 1, ",");
			continue;
		}
		directive_pos(d, kstart, &line, &col);
		st.key = key;
		st.line = line;
		i = kend + 1;
		if (strcmp(key, "incremental_filter") == 0) {
			/* a filter is SQL: its commas belong to it, so it takes
			 * everything up to the end of the directive */
			size_t vstart = directive_skip_ws(s, i);

			st.value = directive_dup_trimmed(h->a, s, vstart, strlen(s));
			if (!*st.value)
				report(h, d, kstart, "e.g. incremental_filter=WHERE _sluice_seq > {watermark}",
				       "@config key '%s' has no value", key);
			directive_pos(d, vstart, &filter_line, &col);
			i = strlen(s);
		} else {
			config_value(h, d, key, &i, &st);
		}
		prev = model_setting_get(h->m, key);
		if (prev) {
			report(h, d, kstart, arena_sprintf(h->a, "first set on line %d", prev->line),
			       "duplicate @config key '%s'", key);
			continue;
		}
		if (filter_line) {
			h->m->filter = st.value;
			h->m->filter_line = filter_line;
		}
		*ARENA_PUSH(h->a, &h->m->settings, &h->m->nsettings, &h->m->settings_cap) = st;
	}
}

/* Checks the value of a known @upstream option. */
static void upstream_check(struct hdr *h, const struct directive *d, size_t off, const char *key,
			   const char *value)
{
	const char *const *choices = NULL;
	int64_t ms;

	if (strcmp(key, "contract") == 0)
		choices = contract_names;
	else if (strcmp(key, "freshness_scope") == 0)
		choices = scope_names;
	else if (strcmp(key, "type") == 0)
		choices = type_names;
	else if (strcmp(key, "deactivate_for_dev") == 0)
		choices = header_bool_names;
	if (choices && header_choice_index(choices, value) < 0)
		report(h, d, off, header_choice_hint(h->a, choices, value, NULL), "invalid %s '%s'",
		       key, value);
	if (strcmp(key, "freshness") != 0)
		return;
	if (units_parse_duration(value, &ms) != 0)
		report(h, d, off, "a duration such as 30m, 1h or 7d", "invalid freshness '%s'",
		       value);
	else if (ms == 0)
		report(h, d, off, "0 checks nothing: give the age the upstream's rows may have, e.g. "
		       "1h, or remove freshness", "invalid freshness 0");
	else if (ms > UNITS_DURATION_MAX_MS)
		report(h, d, off, "write at most 365d", "invalid freshness '%s' (more than a year)",
		       value);
}

/* Fills u's typed field for a valid option; an invalid one was reported
 * and leaves the field as it was. */
static void upstream_type(struct model_upstream *u, const char *key, const char *value)
{
	int64_t ms;

	if (strcmp(key, "contract") == 0)
		u->level = header_choice_index(contract_names, value);
	else if (strcmp(key, "freshness_scope") == 0)
		u->fresh_all = strcmp(value, "all") == 0;
	else if (strcmp(key, "deactivate_for_dev") == 0)
		u->deactivate_for_dev = strcmp(value, "true") == 0;
	else if (strcmp(key, "type") == 0 && header_choice_index(type_names, value) >= 0)
		u->type = value;
	else if (strcmp(key, "freshness") == 0 && units_parse_duration(value, &ms) == 0)
		u->fresh_s = ms > 0 && ms < 1000 ? 1 : ms / 1000;
}

/* The index just past the whitespace-separated token at s[i]; quoted parts
 * and brackets (a hardcoded input's rows=[{...}, ...]) may hold spaces. */
static size_t upstream_token_end(const char *s, size_t i)
{
	int depth = 0;

	while (s[i] && (depth > 0 || !directive_is_space(s[i]))) {
		if (s[i] == '\'' || s[i] == '"') {
			size_t end = directive_scan_quoted(s, i);

			i = end ? end : i + 1;
			continue;
		}
		if (s[i] == '[' || s[i] == '{')
			depth++;
		else if ((s[i] == ']' || s[i] == '}') && depth > 0)
			depth--;
		i++;
	}
	return i;
}

static void parse_upstream(struct hdr *h, const struct directive *d)
{
	const char *s = d->s;
	struct model_upstream *u;
	size_t i = directive_skip_ws(s, 0), end = upstream_token_end(s, i);
	size_t nkeys = 0, keys_cap = 0, nvalues = 0, values_cap = 0;

	u = ARENA_PUSH(h->a, &h->m->upstreams, &h->m->nupstreams, &h->m->upstreams_cap);
	memset(u, 0, sizeof(*u));
	u->line = d->line;
	u->level = -1;
	u->type = "model";
	u->name = arena_strndup(h->a, s + i, end - i);
	if (!*u->name || strchr(u->name, '=')) {
		report(h, d, i, "write @upstream schema.name [key=value ...]",
		       "@upstream needs a name before its options");
		if (*u->name)
			end = i;
		u->name = "";
	}
	for (i = directive_skip_ws(s, end); s[i]; i = directive_skip_ws(s, end)) {
		size_t eq;
		const char *key, *value;

		end = upstream_token_end(s, i);
		eq = directive_scan_until(s, i, "=");
		if (eq >= end) {
			const char *tok = arena_strndup(h->a, s + i, end - i);

			report(h, d, i, arena_sprintf(h->a, "write %s=VALUE", tok),
			       "missing '=' in @upstream option '%s'", tok);
			continue;
		}
		key = arena_strndup(h->a, s + i, eq - i);
		value = arena_strndup(h->a, s + eq + 1, end - eq - 1);
		if (directive_is_quoted(value))
			value = directive_unquote(h->a, value, strlen(value));
		if (header_choice_index(upstream_keys, key) < 0) {
			report(h, d, i, header_mean_hint(h->a, upstream_keys, key, ""),
			       "unknown @upstream option '%s'", key);
			continue;
		}
		for (size_t k = 0; k < nkeys; k++) {
			if (strcmp(u->keys[k], key) == 0) {
				report(h, d, i, NULL, "duplicate @upstream option '%s'", key);
				break;
			}
		}
		if (!*value)
			report(h, d, i, NULL, "@upstream option '%s' has no value", key);
		else
			upstream_check(h, d, eq + 1, key, value);
		*ARENA_PUSH(h->a, &u->keys, &nkeys, &keys_cap) = key;
		*ARENA_PUSH(h->a, &u->values, &nvalues, &values_cap) = value;
		upstream_type(u, key, value);
	}
	u->nopts = nkeys;
}

/* Whether s starts with `word` followed by ':'; sets *after past the ':'. */
static bool has_label(const char *s, const char *word, size_t *after)
{
	size_t n = strlen(word);

	if (strncasecmp(s, word, n) != 0 || s[n] != ':')
		return false;
	*after = n + 1;
	return true;
}

/* Parses the arguments of not_null, unique, accepted_values and
 * relationships; returns the reason when they do not fit the form. */
static const char *assert_call(struct hdr *h, struct model_assert *as, const char **args,
			       size_t nargs)
{
	size_t cap = 0;

	switch (as->kind) {
	case ASSERT_NOT_NULL:
		if (nargs != 1)
			return "not_null takes one column";
		break;
	case ASSERT_UNIQUE:
		if (nargs < 1)
			return "unique takes one or more columns";
		break;
	case ASSERT_ACCEPTED_VALUES: {
		const char *list = nargs == 2 ? args[1] : "";
		enum directive_list_status ls;
		size_t end;

		if (list[0] != '[')
			return "accepted_values takes a column and a list of values";
		ls = directive_parse_list(h->a, list, 0, true, &end, &as->values, &as->nvalues);
		if (ls != LIST_OK || list[end] != '\0')
			return "accepted_values takes a column and a list of values";
		if (as->nvalues == 0)
			return "the list of accepted values is empty";
		nargs = 1;
		break;
	}
	case ASSERT_RELATIONSHIPS: {
		const char *target = nargs == 2 ? args[1] : "";
		const char *open = strchr(target, '('), *dot;
		size_t close;

		if (!open || !(close = directive_scan_close(target, (size_t)(open - target))) ||
		    target[close + 1] != '\0')
			return "relationships takes a column and a target schema.model(col)";
		dot = memchr(target, '.', (size_t)(open - target));
		as->ref_col =
			directive_dup_trimmed(h->a, target, (size_t)(open - target) + 1, close);
		if (!dot || dot == target)
			return "the relationships target needs a schema (schema.model(col))";
		as->ref_schema = directive_dup_trimmed(h->a, target, 0, (size_t)(dot - target));
		as->ref_name = directive_dup_trimmed(h->a, target, (size_t)(dot - target) + 1,
					   (size_t)(open - target));
		if (!*as->ref_name || !*as->ref_col)
			return "relationships takes a column and a target schema.model(col)";
		nargs = 1;
		break;
	}
	default:
		break;
	}
	for (size_t i = 0; i < nargs; i++)
		*ARENA_PUSH(h->a, &as->cols, &as->ncols, &cap) = args[i];
	return NULL;
}

/* The first name a check gives for a column that is not one, or NULL. */
static const char *assert_bad_column(const struct model_assert *as)
{
	for (size_t i = 0; i < as->ncols; i++)
		if (!header_is_column_name(as->cols[i]))
			return as->cols[i];
	if (as->ref_col && !header_is_column_name(as->ref_col))
		return as->ref_col;
	return NULL;
}

/* The check's columns become SQL, as its accepted values are literals. */
static void assert_quote_columns(struct hdr *h, struct model_assert *as)
{
	for (size_t i = 0; i < as->ncols; i++)
		as->cols[i] = sql_ident(h->a, as->cols[i]);
	if (as->ref_col)
		as->ref_col = sql_ident(h->a, as->ref_col);
}

static void parse_assert(struct hdr *h, const struct directive *d)
{
	static const struct {
		const char *name;
		enum assert_kind kind;
		const char *usage;
	} forms[] = {
		{ "not_null", ASSERT_NOT_NULL, "write not_null(col)" },
		{ "unique", ASSERT_UNIQUE, "write unique(col) or unique(col1, col2)" },
		{ "accepted_values", ASSERT_ACCEPTED_VALUES,
		  "write accepted_values(col, [a, b, 'c d'])" },
		{ "relationships", ASSERT_RELATIONSHIPS,
		  "write relationships(col, other_schema.model(col))" },
	};
	struct model_assert as = { 0 };
	const char *s = d->s, *check;
	size_t i = directive_skip_ws(s, 0), skip, start, name_end = 0;

	as.kind = ASSERT_EXPRESSION;
	if (has_label(s + i, "warn", &skip)) {
		as.warn = true;
		i = directive_skip_ws(s, i + skip);
	} else if (has_label(s + i, "error", &skip)) {
		i = directive_skip_ws(s, i + skip);
	}
	start = i;
	check = directive_dup_trimmed(h->a, s, start, strlen(s));
	as.text = check;
	as.line = d->line;
	if (!*check) {
		report(h, d, start, "e.g. @assert not_null(id)", "@assert needs a check");
		return;
	}
	if (has_label(check, "rows", &skip)) {
		as.kind = ASSERT_ROWS;
		as.sql = directive_dup_trimmed(h->a, check, skip, strlen(check));
		if (!*as.sql) {
			report(h, d, start, "write rows: SELECT ... (the rows that break the rule)",
			       "@assert 'rows:' needs a query");
			return;
		}
		*ARENA_PUSH(h->a, &h->m->asserts, &h->m->nasserts, &h->m->asserts_cap) = as;
		return;
	}
	while (isalnum((unsigned char)check[name_end]) || check[name_end] == '_')
		name_end++;
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		size_t open = directive_skip_ws(check, name_end), close;
		const char **args;
		const char *why, *bad;
		size_t nargs;

		if (strlen(forms[f].name) != name_end ||
		    strncmp(check, forms[f].name, name_end) != 0 || check[open] != '(')
			continue;
		as.kind = forms[f].kind;
		close = directive_scan_close(check, open);
		if (!close)
			why = "missing ')'";
		else if (check[close + 1])
			why = "unexpected text after ')'";
		else if (!directive_split_items(h->a, check, open + 1, close, &args, &nargs))
			why = "empty argument";
		else
			why = assert_call(h, &as, args, nargs);
		if (why) {
			report(h, d, start, forms[f].usage, "malformed @assert '%s': %s", check, why);
			return;
		}
		bad = assert_bad_column(&as);
		if (bad) {
			report(h, d, start, header_column_name_hint(h->a, bad),
			       "malformed @assert '%s': '%s' is not a column name", check, bad);
			return;
		}
		assert_quote_columns(h, &as);
		*ARENA_PUSH(h->a, &h->m->asserts, &h->m->nasserts, &h->m->asserts_cap) = as;
		return;
	}
	if (check[directive_skip_ws(check, name_end)] == '(') {
		static const char *const names[] = { "not_null", "unique", "accepted_values",
						     "relationships", NULL };
		char *word = arena_strndup(h->a, check, name_end);
		const char *near = suggest_nearest(word, names);

		/* a call spelled like a known check is a typo, not SQL */
		if (near) {
			report(h, d, start, arena_sprintf(h->a, "did you mean '%s'?", near),
			       "unknown @assert check '%s'", word);
			return;
		}
	}
	as.sql = check;
	*ARENA_PUSH(h->a, &h->m->asserts, &h->m->nasserts, &h->m->asserts_cap) = as;
}

/* A @column's text: whitespace runs (continuation lines among them)
 * made one space; a text in single quotes taken as it is quoted. */
static const char *column_text(struct arena *a, const char *s, size_t from)
{
	char *text = directive_dup_trimmed(a, s, from, strlen(s)), *o = text;

	if (directive_is_quoted(text))
		return directive_unquote(a, text, strlen(text));
	for (const char *p = text; *p; p++) {
		if (!directive_is_space(*p))
			*o++ = *p;
		else if (o > text && o[-1] != ' ')
			*o++ = ' ';
	}
	*o = '\0';
	return text;
}

/* @column NAME TEXT: NAME a column name, or any name in double quotes (a
 * column the query names so); one description per column. */
static void parse_column(struct hdr *h, const struct directive *d)
{
	const char *s = d->s;
	size_t start = directive_skip_ws(s, 0), end = start;
	struct model_column_doc doc = { .line = d->line };

	if (s[start] == '"') {
		end = directive_scan_quoted(s, start);
		if (!end) {
			report(h, d, start, "end the name with a double quote",
			       "unterminated column name in @column");
			return;
		}
		doc.name = directive_unquote(h->a, s + start, end - start);
	} else {
		while (s[end] && !directive_is_space(s[end]))
			end++;
		doc.name = arena_strndup(h->a, s + start, end - start);
		if (*doc.name && !header_is_column_name(doc.name)) {
			report(h, d, start, "write a column name, or the name in double quotes",
			       "malformed @column: '%s' is not a column name", doc.name);
			return;
		}
	}
	doc.text = column_text(h->a, s, end);
	if (!*doc.name || !*doc.text) {
		report(h, d, start, "write @column NAME and what the column holds",
		       *doc.name ? "@column '%s' has no description" : "@column has no column name%s",
		       doc.name);
		return;
	}
	for (size_t i = 0; i < h->m->ncolumn_docs; i++)
		if (strcasecmp(h->m->column_docs[i].name, doc.name) == 0) {
			report(h, d, start,
			       arena_sprintf(h->a, "it is described at line %d",
					     h->m->column_docs[i].line),
			       "column '%s' is described twice", doc.name);
			return;
		}
	*ARENA_PUSH(h->a, &h->m->column_docs, &h->m->ncolumn_docs, &h->m->column_docs_cap) = doc;
}

static void parse_directive(struct hdr *h, const struct directive *d)
{
	if (strcmp(d->name, "config") == 0)
		parse_config(h, d);
	else if (strcmp(d->name, "upstream") == 0)
		parse_upstream(h, d);
	else if (strcmp(d->name, "assert") == 0)
		parse_assert(h, d);
	else if (strcmp(d->name, "column") == 0)
		parse_column(h, d);
	else
		diag_add(h->diags, DIAG_ERROR, h->m->path, d->line, 1,
			 header_mean_hint(h->a, directive_names, d->name, "@"),
			 "unknown directive '@%s'", d->name);
}

int header_parse(struct arena *a, struct model *m, struct diag_list *diags)
{
	struct hdr h = { a, m, diags };
	size_t before = diag_count(diags, DIAG_ERROR);
	struct directive_file f;

	directive_split_file(a, m->text ? m->text : "", &f);
	for (size_t i = 0; i < f.ndirs; i++)
		parse_directive(&h, &f.dirs[i]);
	m->body = f.body;
	m->body_line = f.body_line;
	if (!m->body) {
		m->body = "";
		diag_add(diags, DIAG_ERROR, m->path, 1, 0, "write the SELECT below the directives",
			 "model '%s' has no query", m->fqn ? m->fqn : m->path);
	}
	return diag_count(diags, DIAG_ERROR) > before ? SL_E_PARSE : 0;
}
