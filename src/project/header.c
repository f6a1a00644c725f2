/*
 * This file implements the model header: it parses each directive that
 * directive.c cut from a model file (@config, @upstream, @assert) into
 * struct model, merges a folder's pipeline.yml defaults and checks every
 * @config key, value and combination of values, and every name of a
 * column. Every problem becomes a diagnostic with file:line (and column
 * when known) so that a single pass reports them all. It must never stop at
 * the first problem, allocate outside the caller's arena, or look at the
 * warehouse; the rules that need other models (contracts, references)
 * belong to later passes.
 */
#include "project/header.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/units.h"
#include "core/utf8.h"
#include "project/config.h"
#include "project/directive.h"
#include "warehouse/wh.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

const char *const header_config_keys[] = {
	"materialized", "incremental_strategy", "unique_key", "incremental_filter",
	"live", "live_interval", "cdc_op", "cdc_seq", "cdc_deletes", "temporality",
	"time_column", "grain", "start", "flexibility", "replay_anchor", "replay_on_change",
	"bounded_replay_fallback", "tags", "description", "check_cols", NULL,
};

static const char *const directive_names[] = { "config", "upstream", "assert", NULL };

static const char *const upstream_keys[] = {
	"contract", "freshness", "freshness_scope", "deactivate_for_dev", "type", "path", "url",
	"rows", "sql", NULL,
};

static const char *const mat_names[] = { "view", "table", "incremental", "ephemeral",
					 "snapshot", NULL };
/* in the order of enum model_strategy, after STRAT_NONE */
static const char *const strategy_names[] = { "append", "merge", "delete+insert", "microbatch",
					      NULL };
static const char *const bool_names[] = { "false", "true", NULL };
static const char *const contract_names[] = { "exists", "exact", "encapsulate", "through",
					      "whole", NULL };
static const char *const scope_names[] = { "latest", "all", NULL };
static const char *const type_names[] = { "model", "file", "api", "hardcoded", NULL };
static const char *const deletes_names[] = { "hard", "soft", NULL };
static const char *const temporality_names[] = { "timeless", "temporal", NULL };
static const char *const grain_names[] = { "1h", "1d", "1w", "1mo", NULL };
static const char *const flexibility_names[] = { "fix", "flex", NULL };
static const char *const anchor_names[] = { "auto", "never", NULL };
static const char *const fallback_names[] = { "full", "bounded_without_history", NULL };

/* Parsing state shared by the directive parsers. */
struct hdr {
	struct arena *a;
	struct model *m;
	struct diag_list *diags;
};

static char *lowercase(struct arena *a, const char *s)
{
	char *out = arena_strdup(a, s);

	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

/*
 * Whether a header may name a column so: letters, digits and underscores,
 * not starting with a digit, as DuckDB and PostgreSQL read a name without
 * quotes (any non-ASCII character of well-formed UTF-8 counts as a letter,
 * as it does for them). Keywords and mixed case are fine: every name from a
 * header is quoted where it is used. Anything else (a dot, a space, a
 * quote, a call) would be SQL, not a name.
 */
static bool is_column_name(const char *name)
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

/* How to write the name that is_column_name refused: without quotes or
 * a table when that is all that is wrong, else as the query could name it. */
static const char *column_name_hint(struct arena *a, const char *name)
{
	size_t len = strlen(name);
	const char *dot = strrchr(name, '.');

	if (len > 2 && name[0] == '"' && name[len - 1] == '"') {
		char *inner = arena_strndup(a, name + 1, len - 2);

		if (is_column_name(inner))
			return arena_sprintf(a, "write %s without quotes: sluice quotes column names itself",
					     inner);
	}
	if (dot && is_column_name(dot + 1) &&
	    is_column_name(arena_strndup(a, name, (size_t)(dot - name))))
		return arena_sprintf(a, "write %s alone, without its table", dot + 1);
	return "a column name is letters, digits and underscores, not starting with a digit; "
	       "give the column such a name in the query (... AS name)";
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

static int choice_index(const char *const *choices, const char *word)
{
	for (int i = 0; choices[i]; i++)
		if (strcmp(choices[i], word) == 0)
			return i;
	return -1;
}

/* "did you mean 'x'? (one of a, b, c)", or the list alone when nothing is
 * close. Case is ignored when guessing so that EXACT suggests 'exact'. */
static const char *choice_hint(struct arena *a, const char *const *choices, const char *word,
			       const char **guess)
{
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

static const char *mean_hint(struct arena *a, const char *const *choices, const char *word,
			     const char *prefix)
{
	const char *near = suggest_nearest(word, choices);

	return near ? arena_sprintf(a, "did you mean '%s%s'?", prefix, near) : NULL;
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
		choices = bool_names;
	if (choices && choice_index(choices, value) < 0)
		report(h, d, off, choice_hint(h->a, choices, value, NULL), "invalid %s '%s'", key,
		       value);
	if (strcmp(key, "freshness") == 0 && units_parse_duration(value, &ms) != 0)
		report(h, d, off, "a duration such as 30m, 1h or 7d", "invalid freshness '%s'",
		       value);
}

/* The index just past the whitespace-separated token at s[i]; quoted parts
 * may hold spaces. */
static size_t upstream_token_end(const char *s, size_t i)
{
	while (s[i] && !directive_is_space(s[i])) {
		if (s[i] == '\'' || s[i] == '"') {
			size_t end = directive_scan_quoted(s, i);

			i = end ? end : i + 1;
		} else {
			i++;
		}
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
		if (choice_index(upstream_keys, key) < 0) {
			report(h, d, i, mean_hint(h->a, upstream_keys, key, ""),
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
		if (!is_column_name(as->cols[i]))
			return as->cols[i];
	if (as->ref_col && !is_column_name(as->ref_col))
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
			report(h, d, start, column_name_hint(h->a, bad),
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

/* Hands a directive to its parser. */
static void parse_directive(struct hdr *h, const struct directive *d)
{
	if (strcmp(d->name, "config") == 0)
		parse_config(h, d);
	else if (strcmp(d->name, "upstream") == 0)
		parse_upstream(h, d);
	else if (strcmp(d->name, "assert") == 0)
		parse_assert(h, d);
	else
		diag_add(h->diags, DIAG_ERROR, h->m->path, d->line, 1,
			 mean_hint(h->a, directive_names, d->name, "@"), "unknown directive '@%s'",
			 d->name);
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

/* State of one header_apply_settings call. */
struct apply {
	struct arena *a;
	struct model *m;
	struct diag_list *diags;
	const char *pipeline_path;
};

static void apply_error(struct apply *c, const struct model_setting *st, const char *hint,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Reports at the setting's line in the file that set it, or at line 1 of
 * the model when no setting is to blame. */
static void apply_error(struct apply *c, const struct model_setting *st, const char *hint,
			const char *fmt, ...)
{
	const char *file = c->m->path;
	int line = 1;
	va_list ap;
	char *msg;

	if (st) {
		line = st->line;
		if (st->from_pipeline && c->pipeline_path)
			file = c->pipeline_path;
	}
	va_start(ap, fmt);
	msg = arena_vsprintf(c->a, fmt, ap);
	va_end(ap);
	diag_add(c->diags, DIAG_ERROR, file, line, 0, hint, "%s", msg);
}

/* A pipeline.yml value as a setting; its lists arrive rendered "[a, b]". */
static void setting_from_text(struct arena *a, struct model_setting *st, const char *value)
{
	size_t len = strlen(value), end;

	st->value = value;
	if (len < 2 || value[0] != '[' || value[len - 1] != ']')
		return;
	if (directive_parse_list(a, value, 0, false, &end, &st->list, &st->nlist) == LIST_OK &&
	    value[end] == '\0')
		st->is_list = true;
}

/* Tags add up: a model keeps its folder's tags beside its own. */
static void add_folder_tags(struct arena *a, struct model_setting *own, const char *value)
{
	struct model_setting folder = { 0 };
	const char **items;
	size_t n = 0;

	setting_from_text(a, &folder, value);
	if (!folder.is_list) {
		folder.list = &folder.value;
		folder.nlist = *folder.value != '\0';
	}
	items = arena_alloc(a, (own->nlist + folder.nlist + 2) * sizeof(char *));
	if (own->is_list)
		for (size_t i = 0; i < own->nlist; i++)
			items[n++] = own->list[i];
	else
		items[n++] = own->value;
	for (size_t i = 0; i < folder.nlist; i++) {
		bool dup = false;

		for (size_t k = 0; k < n; k++)
			dup |= strcmp(items[k], folder.list[i]) == 0;
		if (!dup)
			items[n++] = folder.list[i];
	}
	own->value = directive_list_text(a, items, n);
	own->list = items;
	own->nlist = n;
	own->is_list = true;
}

static void apply_defaults(struct apply *c, const struct kv_list *defaults)
{
	for (size_t i = 0; defaults && i < defaults->n; i++) {
		const struct cfg_kv *kv = &defaults->items[i];
		struct model_setting st = { 0 };
		const struct model_setting *got;

		if (choice_index(header_config_keys, kv->key) < 0) {
			diag_add(c->diags, DIAG_ERROR, c->pipeline_path, kv->line, 0,
				 mean_hint(c->a, header_config_keys, kv->key, ""),
				 "unknown @config key '%s'", kv->key);
			continue;
		}
		got = model_setting_get(c->m, kv->key);
		if (got && strcmp(kv->key, "tags") == 0) {
			/* the model's own entry, writable: folder tags add to it */
			add_folder_tags(c->a, &c->m->settings[got - c->m->settings],
					kv->value ? kv->value : "");
			continue;
		}
		if (got)
			continue;
		st.key = kv->key;
		st.line = kv->line;
		st.from_pipeline = true;
		setting_from_text(c->a, &st, kv->value ? kv->value : "");
		if (strcmp(st.key, "incremental_filter") == 0) {
			/* the filter's text lives in pipeline.yml: no model line */
			c->m->filter = st.value;
			c->m->filter_line = 0;
		}
		*ARENA_PUSH(c->a, &c->m->settings, &c->m->nsettings, &c->m->settings_cap) = st;
	}
}

/*
 * The index of the setting's value among choices; -1 when it is unset, or
 * after reporting a value that is not one of them.
 * *guess gets the index of the nearest choice, left alone when none is near,
 * so callers keep a best guess for the typed fields.
 */
static int check_choice(struct apply *c, const struct model_setting *st,
			const char *const *choices, int *guess)
{
	const char *near;
	const char *hint;
	int i;

	if (!st)
		return -1;
	if (st->is_list) {
		apply_error(c, st, "write a single value", "'%s' takes one value, not a list",
			    st->key);
		return -1;
	}
	i = choice_index(choices, st->value);
	if (i >= 0) {
		*guess = i;
		return i;
	}
	hint = choice_hint(c->a, choices, st->value, &near);
	if (near)
		*guess = choice_index(choices, near);
	apply_error(c, st, hint, "invalid %s '%s'", st->key, st->value);
	return -1;
}

/* Checks keys that take a closed set of values and only feed later passes. */
static void check_plain_choices(struct apply *c)
{
	static const struct {
		const char *key;
		const char *const *choices;
	} rules[] = {
		{ "cdc_deletes", deletes_names },
		{ "temporality", temporality_names },
		{ "grain", grain_names },
		{ "flexibility", flexibility_names },
		{ "replay_anchor", anchor_names },
		{ "bounded_replay_fallback", fallback_names },
	};
	int unused = 0;

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		check_choice(c, model_setting_get(c->m, rules[i].key), rules[i].choices, &unused);
}

/* One word or a list of words, as unique_key, check_cols and tags take. */
static void setting_words(struct apply *c, const char *key, const char ***out, size_t *n)
{
	const struct model_setting *st = model_setting_get(c->m, key);

	if (!st)
		return;
	if (st->is_list) {
		*out = st->list;
		*n = st->nlist;
		return;
	}
	*out = arena_alloc(c->a, sizeof(**out));
	(*out)[0] = st->value;
	*n = 1;
}

static void check_single_values(struct apply *c)
{
	/* free-form keys that still take one value; replay_on_change is a
	 * policy that the replay module reads and checks */
	static const char *const single[] = { "live_interval", "cdc_op", "cdc_seq", "time_column",
					      "start", "description", NULL };

	for (size_t i = 0; single[i]; i++) {
		const struct model_setting *st = model_setting_get(c->m, single[i]);

		if (st && st->is_list)
			apply_error(c, st, "write a single value", "'%s' takes one value, not a list",
				    st->key);
	}
}

/* An empty name was reported when the header was read. */
static void check_column_name(struct apply *c, const struct model_setting *st, const char *name)
{
	if (*name && !is_column_name(name))
		apply_error(c, st, column_name_hint(c->a, name), "%s '%s' is not a column name",
			    st->key, name);
}

/* The keys that name columns of the query. */
static void check_column_names(struct apply *c)
{
	static const char *const keys[] = { "unique_key", "check_cols", "cdc_op", "cdc_seq",
					    "time_column", NULL };

	for (size_t i = 0; keys[i]; i++) {
		const struct model_setting *st = model_setting_get(c->m, keys[i]);

		if (st && !st->is_list)
			check_column_name(c, st, st->value);
		for (size_t k = 0; st && st->is_list && k < st->nlist; k++)
			check_column_name(c, st, st->list[k]);
	}
}

/* Rules that tie several keys together; only keys whose own values were
 * valid take part, so that one typo does not cascade into more errors. */
static void check_combinations(struct apply *c, bool mat_ok, enum model_strategy strat,
			       bool strat_ok, bool live_ok)
{
	struct model *m = c->m;
	const struct model_setting *s_mat = model_setting_get(m, "materialized");
	const struct model_setting *s_strat = model_setting_get(m, "incremental_strategy");
	const struct model_setting *s_cc = model_setting_get(m, "check_cols");
	const struct model_setting *s_filter = model_setting_get(m, "incremental_filter");
	const struct model_setting *s_live = model_setting_get(m, "live");
	const struct model_setting *s_temp = model_setting_get(m, "temporality");
	const struct model_setting *s_time = model_setting_get(m, "time_column");
	const char *mat = model_mat_name(m->mat);
	bool has_uk = m->nunique_key > 0;

	if (mat_ok && s_strat && m->mat != MAT_INCREMENTAL)
		apply_error(c, s_strat,
			    "only incremental models have a strategy: set materialized=incremental or remove it",
			    "incremental_strategy '%s' on a %s model", s_strat->value, mat);
	if (mat_ok && strat_ok && m->mat == MAT_INCREMENTAL && !has_uk &&
	    (strat == STRAT_MERGE || strat == STRAT_DELETE_INSERT))
		apply_error(c, s_strat, "unique_key names the column(s) that identify a row",
			    "incremental_strategy '%s' needs unique_key", s_strat->value);
	if (mat_ok && m->mat == MAT_SNAPSHOT && !has_uk)
		apply_error(c, s_mat, "a snapshot tracks the history of each row by its unique_key",
			    "materialized 'snapshot' needs unique_key");
	if (mat_ok && s_cc && m->mat != MAT_SNAPSHOT)
		apply_error(c, s_cc,
			    "only snapshots compare check_cols: set materialized=snapshot or remove it",
			    "check_cols on a %s model", mat);
	if (mat_ok && s_filter && m->mat != MAT_INCREMENTAL)
		apply_error(c, s_filter,
			    "only incremental models use a filter: set materialized=incremental or remove it",
			    "incremental_filter on a %s model", mat);
	if (mat_ok && live_ok && m->live && m->mat != MAT_INCREMENTAL && m->mat != MAT_VIEW)
		apply_error(c, s_live, arena_sprintf(c->a, "this model is materialized as %s", mat),
			    "a live model must be incremental or a view");
	if (mat_ok && strat_ok && live_ok && m->live && m->mat == MAT_INCREMENTAL) {
		if (strat == STRAT_APPEND && !s_filter)
			apply_error(c, s_live,
				    "without it each refresh appends the whole query again, e.g. incremental_filter=WHERE _sluice_seq > {watermark}",
				    "a live append model needs incremental_filter");
		if (strat == STRAT_MICROBATCH)
			apply_error(c, s_live,
				    "microbatch runs one statement per window in batch runs: use append or merge",
				    "a live model cannot use incremental_strategy 'microbatch'");
	}
	if (mat_ok && strat_ok && m->mat == MAT_INCREMENTAL && strat == STRAT_MICROBATCH) {
		/* a temporality that is not a valid value was reported already */
		bool temporal = s_temp && choice_index(temporality_names, s_temp->value) != 0;
		const char *missing = NULL;

		if (!temporal && !s_time)
			missing = "temporality=temporal and time_column";
		else if (!temporal)
			missing = "temporality=temporal";
		else if (!s_time)
			missing = "time_column";
		if (missing)
			apply_error(c, s_strat, "microbatch builds one window of time_column at a time",
				    "incremental_strategy 'microbatch' needs %s", missing);
	}
}

/* Change events apply to an incremental merge or delete+insert model with a
 * unique_key, through two columns of their own: one names the operation,
 * the other orders the events of a key. */
static void check_cdc(struct apply *c, bool mat_ok, enum model_strategy strat, bool strat_ok)
{
	struct model *m = c->m;
	const struct model_setting *s_op = model_setting_get(m, "cdc_op");
	const struct model_setting *s_seq = model_setting_get(m, "cdc_seq");
	const struct model_setting *s_del = model_setting_get(m, "cdc_deletes");
	const struct model_setting *at = s_op ? s_op : s_seq;

	if (s_op && !s_op->is_list)
		m->cdc_op = s_op->value;
	if (s_seq && !s_seq->is_list)
		m->cdc_seq = s_seq->value;
	m->cdc_soft = s_del && strcmp(s_del->value, "soft") == 0;
	if (!at) {
		if (s_del && choice_index(deletes_names, s_del->value) >= 0)
			apply_error(c, s_del, "set cdc_op and cdc_seq, or remove cdc_deletes",
				    "cdc_deletes without cdc_op and cdc_seq");
		return;
	}
	if (!s_seq)
		apply_error(c, s_op,
			    "cdc_seq names the column that orders the changes of one key: an LSN, a "
			    "sequence number or a timestamp",
			    "cdc_op needs cdc_seq");
	if (!s_op)
		apply_error(c, s_seq,
			    "cdc_op names the column holding each change's operation: I/U/D, "
			    "insert/update/delete or Debezium's c/r/u/d",
			    "cdc_seq needs cdc_op");
	if (!mat_ok || !strat_ok)
		return;
	if (m->mat != MAT_INCREMENTAL) {
		apply_error(c, at,
			    "change events apply to an incremental model: set materialized=incremental, "
			    "incremental_strategy=merge and unique_key",
			    "%s on a %s model", at->key, model_mat_name(m->mat));
		return;
	}
	if (strat != STRAT_MERGE && strat != STRAT_DELETE_INSERT) {
		if (model_setting_get(m, "incremental_strategy"))
			apply_error(c, at, "a change event replaces its key's row; append would keep every event",
				    "%s needs incremental_strategy merge or delete+insert, not '%s'",
				    at->key, model_strategy_name(strat));
		else
			apply_error(c, at, "unique_key names the column(s) each change event applies to",
				    "%s needs unique_key", at->key);
		return;
	}
	if (m->cdc_op && m->cdc_seq && strcasecmp(m->cdc_op, m->cdc_seq) == 0)
		apply_error(c, at, "one column holds the operation, another orders the changes",
			    "cdc_op and cdc_seq name the same column '%s'", m->cdc_op);
	for (size_t i = 0; i < m->nunique_key; i++) {
		const char *k = m->unique_key[i];
		const struct model_setting *own =
			m->cdc_op && strcasecmp(k, m->cdc_op) == 0	    ? s_op
			: m->cdc_seq && strcasecmp(k, m->cdc_seq) == 0 ? s_seq
								       : NULL;

		if (own)
			apply_error(c, own,
				    "the key names a row; cdc_op and cdc_seq describe each change to it",
				    "%s '%s' is a unique_key column", own->key, k);
	}
}

int header_apply_settings(struct arena *a, struct model *m, const struct kv_list *defaults,
			  const char *pipeline_path, struct diag_list *diags)
{
	struct apply c = { a, m, diags, pipeline_path };
	size_t before = diag_count(diags, DIAG_ERROR);
	const struct model_setting *st;
	int mat = MAT_VIEW, strat_i = -1, live = 0;
	enum model_strategy strat;
	bool mat_ok, strat_ok, live_ok;

	apply_defaults(&c, defaults);
	for (size_t i = 0; i < m->nsettings; i++) {
		const char *key = m->settings[i].key;

		if (choice_index(header_config_keys, key) < 0)
			apply_error(&c, &m->settings[i], mean_hint(a, header_config_keys, key, ""),
				    "unknown @config key '%s'", key);
	}

	st = model_setting_get(m, "materialized");
	mat_ok = !st || check_choice(&c, st, mat_names, &mat) >= 0;
	m->mat = (enum model_mat)mat;

	setting_words(&c, "unique_key", &m->unique_key, &m->nunique_key);
	setting_words(&c, "check_cols", &m->check_cols, &m->ncheck_cols);
	setting_words(&c, "tags", &m->tags, &m->ntags);

	st = model_setting_get(m, "incremental_strategy");
	strat_ok = !st || check_choice(&c, st, strategy_names, &strat_i) >= 0;
	if (strat_i >= 0)
		strat = (enum model_strategy)(STRAT_APPEND + strat_i);
	else
		strat = m->nunique_key ? STRAT_MERGE : STRAT_APPEND;
	m->strategy = m->mat == MAT_INCREMENTAL ? strat : STRAT_NONE;

	st = model_setting_get(m, "live");
	live_ok = !st || check_choice(&c, st, bool_names, &live) >= 0;
	m->live = live == 1;

	st = model_setting_get(m, "live_interval");
	if (st && !st->is_list && units_parse_duration(st->value, &m->live_interval_ms) != 0)
		apply_error(&c, st, "a duration such as 500ms, 10s or 5m",
			    "invalid live_interval '%s'", st->value);

	st = model_setting_get(m, "description");
	if (st)
		m->description = st->value;

	check_plain_choices(&c);
	check_single_values(&c);
	check_column_names(&c);
	check_combinations(&c, mat_ok, strat, strat_ok, live_ok);
	check_cdc(&c, mat_ok, strat, strat_ok);
	return diag_count(diags, DIAG_ERROR) > before ? SL_E_CONFIG : 0;
}
