/*
 * Placeholders and table references of a model. References come from the
 * parser's tree (BASE_TABLE nodes and their query_location), never from
 * searching the text, so a name in a string, a comment or a column is never
 * mistaken for a table.
 */
#include "project/refs.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/lenstr.h"
#include "core/suggest.h"
#include "core/xalloc.h"
#include "project/canon.h"
#include "project/sqltext.h"
#include "warehouse/sqlparse.h"

#include <ctype.h>
#include <jansson.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const placeholder_names[] = { "this", "watermark", "since", "until", "env",
						 NULL };

static const char *part_text(const struct model *m, enum model_part part)
{
	return part == PART_BODY ? m->body : m->filter;
}

static void scan_part(struct arena *a, struct model *m, enum model_part part,
		      struct diag_list *diags)
{
	const char *s = part_text(m, part);

	if (!s)
		return;
	for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
		const char *close = strchr(p, '}');
		size_t wlen = 0;
		char word[64];
		const char *arg = NULL;
		struct model_placeholder *ph;
		int kind;

		while (isalpha((unsigned char)p[1 + wlen]) || p[1 + wlen] == '_')
			wlen++;
		if (!close || wlen == 0 || wlen >= sizeof(word))
			continue;
		memcpy(word, p + 1, wlen);
		word[wlen] = '\0';
		if (p[1 + wlen] == ':' && strcmp(word, "watermark") == 0 && close > p + wlen + 2)
			arg = arena_strndup(a, p + wlen + 2, (size_t)(close - p - wlen - 2));
		else if (p + 1 + wlen != close)
			continue;
		for (kind = 0; placeholder_names[kind]; kind++)
			if (strcmp(word, placeholder_names[kind]) == 0)
				break;
		if (!placeholder_names[kind]) {
			const char *near = suggest_nearest(word, placeholder_names);
			int line, col;

			if (near) {
				model_span_position(m, part, (size_t)(p - s), &line, &col);
				diag_add(diags, DIAG_ERROR, m->path, line, col,
					 arena_sprintf(a, "did you mean '{%s}'?", near),
					 "unknown placeholder '{%s}'", word);
			}
			continue;
		}
		ph = ARENA_PUSH(a, &m->placeholders, &m->nplaceholders, &m->placeholders_cap);
		ph->kind = (enum placeholder_kind)kind;
		ph->arg = arg;
		ph->span.part = part;
		ph->span.offset = (size_t)(p - s);
		ph->span.len = (size_t)(close - p) + 1;
	}
}

int refs_scan_placeholders(struct arena *a, struct model *m, struct diag_list *diags)
{
	size_t before = diag_count(diags, DIAG_ERROR);

	scan_part(a, m, PART_BODY, diags);
	scan_part(a, m, PART_FILTER, diags);
	return diag_count(diags, DIAG_ERROR) > before ? SL_E_PARSE : 0;
}

/* Overwrites a placeholder with a stand-in of the same length the parser
 * accepts where the real value will go. */
static void mask(char *text, size_t len, const struct model_placeholder *ph, bool in_string)
{
	char *p = text + ph->span.offset;
	size_t n = ph->span.len;

	if (ph->span.offset + n > len)
		return;
	if (in_string) {
		memset(p, '_', n);
		return;
	}
	switch (ph->kind) {
	case PH_WATERMARK:
		memset(p, '0', n);
		break;
	case PH_SINCE:
	case PH_UNTIL:
		memset(p, '_', n);
		p[0] = '\'';
		p[n - 1] = '\'';
		break;
	case PH_THIS:
	case PH_ENV:
		memset(p, '_', n);
		p[1] = 'x';
		break;
	}
}

static char *masked_part(const struct model *m, enum model_part part)
{
	const char *src = part_text(m, part);
	size_t len = strlen(src);
	char *text = xstrdup(src);
	bool *in_string = xmalloc(len + 1);

	sqltext_string_map(text, len, in_string);
	for (size_t i = 0; i < m->nplaceholders; i++) {
		const struct model_placeholder *ph = &m->placeholders[i];

		if (ph->span.part == part)
			mask(text, len, ph, in_string[ph->span.offset]);
	}
	free(in_string);
	return text;
}

#define WRAP_HEAD "SELECT * FROM (\n"
#define WRAP_MID "\n) AS _sluice_src\n"

char *refs_masked_body(const struct model *m)
{
	return masked_part(m, PART_BODY);
}

char *refs_parse_text(const struct model *m, size_t *filter_start)
{
	struct buf b = BUF_INIT;
	char *body = masked_part(m, PART_BODY);

	*filter_start = 0;
	if (!m->filter)
		return body;
	buf_adds(&b, WRAP_HEAD);
	buf_adds(&b, body);
	buf_adds(&b, WRAP_MID);
	*filter_start = b.len;
	free(body);
	body = masked_part(m, PART_FILTER);
	buf_adds(&b, body);
	free(body);
	return buf_detach(&b, NULL);
}

/* Maps an offset of the parse text to a part and an offset in it; false
 * when it points into the wrapper itself. */
static bool to_span(const struct model *m, size_t filter_start, size_t off,
		    enum model_part *part, size_t *part_off)
{
	size_t head = strlen(WRAP_HEAD);

	if (!m->filter) {
		*part = PART_BODY;
		*part_off = off;
		return true;
	}
	if (off >= filter_start) {
		*part = PART_FILTER;
		*part_off = off - filter_start;
		return true;
	}
	if (off >= head && off < head + strlen(m->body)) {
		*part = PART_BODY;
		*part_off = off - head;
		return true;
	}
	return false;
}

struct walk {
	struct arena *a;
	struct model *m;
	const char *text;
	size_t filter_start;
	const char **ctes;
	size_t nctes, ctes_cap;
};

static const struct model_placeholder *placeholder_at(const struct model *m,
						     enum model_part part, size_t off)
{
	for (size_t i = 0; i < m->nplaceholders; i++) {
		const struct model_span *s = &m->placeholders[i].span;

		if (s->part == part && off >= s->offset && off < s->offset + s->len)
			return &m->placeholders[i];
	}
	return NULL;
}

static bool is_cte(const struct walk *w, const char *name)
{
	for (size_t i = w->nctes; i > 0; i--)
		if (strcasecmp(w->ctes[i - 1], name) == 0)
			return true;
	return false;
}

static const char *jstr(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? json_string_value(v) : "";
}

static char *lower(struct arena *a, const char *s)
{
	char *p = arena_strdup(a, s);

	for (char *q = p; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return p;
}

static void add_base_table(struct walk *w, json_t *node)
{
	const char *schema = jstr(node, "schema_name");
	const char *name = jstr(node, "table_name");
	json_t *loc = json_object_get(node, "query_location");
	struct model_ref *r;
	enum model_part part;
	size_t off, part_off;

	if (!*schema && !*jstr(node, "catalog_name") && is_cte(w, name))
		return;
	if (!json_is_number(loc) || json_number_value(loc) < 0 ||
	    json_number_value(loc) > (double)strlen(w->text))
		return;
	off = (size_t)json_number_value(loc);
	if (!to_span(w->m, w->filter_start, off, &part, &part_off) ||
	    placeholder_at(w->m, part, part_off))
		return;
	/* FROM 'file.csv' reads a file, not a table */
	if (sqltext_name_len(w->text, off) == 0)
		return;
	r = ARENA_PUSH(w->a, &w->m->refs, &w->m->nrefs, &w->m->refs_cap);
	r->schema_given = *schema != '\0';
	r->schema = lower(w->a, *schema ? schema : "main");
	r->name = lower(w->a, name);
	r->alias = arena_strdup(w->a, jstr(node, "alias"));
	r->span.part = part;
	r->span.offset = part_off;
	r->span.len = sqltext_name_len(w->text, off);
}

static void walk_json(struct walk *w, json_t *j);

/* The parser does not tell aggregates from other functions, so they go by
 * name. */
static const char *const aggregate_names[] = {
	"count", "sum", "avg", "mean", "min", "max", "any_value", "first", "last",
	"arg_min", "arg_max", "argmin", "argmax", "min_by", "max_by", "string_agg",
	"group_concat", "listagg", "list", "array_agg", "median", "mode", "quantile",
	"quantile_cont", "quantile_disc", "percentile_cont", "percentile_disc",
	"approx_count_distinct", "approx_quantile", "stddev", "stddev_pop",
	"stddev_samp", "variance", "var_pop", "var_samp", "corr", "covar_pop",
	"covar_samp", "bool_and", "bool_or", "bit_and", "bit_or", "bit_xor",
	"histogram", "entropy", "kurtosis", "skewness", "product", "fsum", "sumkahan",
	"favg", "every", "json_group_array", "json_group_object",
	"regr_slope", "regr_intercept", "regr_count", "regr_r2", NULL,
};

const char *refs_aggregate_name(const char *function_name)
{
	if (strcasecmp(function_name, "count_star") == 0)
		return "count"; /* count(*) as the parser names it */
	for (size_t i = 0; aggregate_names[i]; i++)
		if (strcasecmp(function_name, aggregate_names[i]) == 0)
			return aggregate_names[i];
	/* the rest of the warehouse's catalog: arg_max, histogram, ... */
	return sqlparse_aggregate(function_name);
}

/* Whether a node makes the query's result depend on how its rows are cut
 * into windows: a GROUP BY, an aggregate or a window function. */
static const char *aggregation(json_t *j)
{
	json_t *groups = json_object_get(j, "group_expressions");

	if (json_is_array(groups) && json_array_size(groups) > 0)
		return "GROUP BY";
	if (strcmp(jstr(j, "class"), "WINDOW") == 0)
		return "a window function";
	if (strcmp(jstr(j, "class"), "FUNCTION") != 0)
		return NULL;
	return refs_aggregate_name(jstr(j, "function_name"));
}

/* The first aggregation anywhere in the query but inside a subquery
 * expression (WHERE x IN (SELECT ... GROUP BY ...) filters rows, it does
 * not aggregate them); FROM subqueries and CTEs count. */
static const char *find_aggregation(json_t *j)
{
	const char *found = NULL, *key;
	json_t *v;
	size_t i;

	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if ((found = find_aggregation(v)))
				return found;
		return NULL;
	}
	if (!json_is_object(j) || strcmp(jstr(j, "class"), "SUBQUERY") == 0)
		return NULL;
	if ((found = aggregation(j)))
		return found;
	json_object_foreach(j, key, v)
		if ((found = find_aggregation(v)))
			return found;
	return NULL;
}

static void push_cte(struct walk *w, const char *name)
{
	*ARENA_PUSH(w->a, &w->ctes, &w->nctes, &w->ctes_cap) = name;
}

/* A WITH clause's names are visible to the CTEs after them and to the main
 * query; a CTE sees its own name only when it is recursive. Any other
 * table of the same name is a real table, as DuckDB reads it. */
static void walk_ctes(struct walk *w, json_t *map)
{
	size_t i;
	json_t *e;

	json_array_foreach(map, i, e) {
		json_t *query = json_object_get(json_object_get(e, "value"), "query");
		const char *type = jstr(json_object_get(query, "node"), "type");
		size_t saved = w->nctes;

		if (strcmp(type, "RECURSIVE_CTE_NODE") == 0)
			push_cte(w, jstr(e, "key"));
		walk_json(w, json_object_get(e, "value"));
		w->nctes = saved;
		push_cte(w, jstr(e, "key"));
	}
}

static void walk_json(struct walk *w, json_t *j)
{
	size_t saved = w->nctes;
	const char *key;
	json_t *v, *map;

	if (json_is_array(j)) {
		size_t i;

		json_array_foreach(j, i, v)
			walk_json(w, v);
		return;
	}
	if (!json_is_object(j))
		return;
	if (strcmp(jstr(j, "type"), "BASE_TABLE") == 0) {
		add_base_table(w, j);
		return;
	}
	map = json_object_get(json_object_get(j, "cte_map"), "map");
	if (json_is_array(map))
		walk_ctes(w, map);
	json_object_foreach(j, key, v)
		if (strcmp(key, "cte_map") != 0)
			walk_json(w, v);
	w->nctes = saved;
}

/* canon_mark_fn: a node written where a placeholder is stands for the
 * placeholder as written, not for the stand-in the parser saw. */
static const char *placeholder_text(void *ctx, size_t location, size_t *len)
{
	const struct walk *w = ctx;
	const struct model_placeholder *ph;
	enum model_part part;
	size_t off;

	/* a location past the text (the parser's "none" too) is in no span */
	if (!to_span(w->m, w->filter_start, location, &part, &off))
		return NULL;
	ph = placeholder_at(w->m, part, off);
	if (!ph)
		return NULL;
	*len = ph->span.len;
	return part_text(w->m, part) + ph->span.offset;
}

/* m->tree_hash: the canonical tree, after every placeholder as written in
 * the order they come (one inside a string literal has no node of its own
 * to stand for). Left "" when the tree cannot be read. */
static void tree_digest(struct walk *w, const char *tree)
{
	struct model *m = w->m;
	struct buf b = BUF_INIT;
	unsigned char md[SHA256_DIGEST_LENGTH];

	for (size_t i = 0; i < m->nplaceholders; i++) {
		const struct model_span *s = &m->placeholders[i].span;

		buf_addf(&b, "%d:%.*s\n", (int)s->part, (int)s->len,
			 part_text(m, s->part) + s->offset);
	}
	if (canon_tree(tree, placeholder_text, w, &b) == 0) {
		SHA256((const unsigned char *)b.buf, b.len, md);
		for (size_t i = 0; i < SHA256_DIGEST_LENGTH; i++)
			snprintf(m->tree_hash + 2 * i, 3, "%02x", md[i]);
	}
	buf_release(&b);
}

/* What refs_find derives from a tree that reads, kept between processes
 * by the text it is derived from (the body and the filter, placeholders
 * as written): the tree's digest, the first aggregation and the tables. */
static void facts_key(const struct model *m, unsigned char *key)
{
	struct buf b = BUF_INIT;

	buf_add(&b, m->body, strlen(m->body) + 1);
	if (m->filter)
		buf_add(&b, m->filter, strlen(m->filter) + 1);
	SHA256((const unsigned char *)b.buf, b.len, key);
	buf_release(&b);
}

static void facts_write(const struct model *m, struct buf *out)
{
	lenstr_add(out, m->tree_hash);
	lenstr_add(out, m->aggregates ? m->aggregates : "");
	for (size_t i = 0; i < m->nrefs; i++) {
		const struct model_ref *r = &m->refs[i];

		buf_addf(out, "%d %d %zu %zu ", r->schema_given, (int)r->span.part, r->span.offset,
			 r->span.len);
		lenstr_add(out, r->schema);
		lenstr_add(out, r->name);
		lenstr_add(out, r->alias);
	}
}

/* false when s is not what facts_write wrote: nothing of it is taken */
static bool facts_read(struct arena *a, struct model *m, const char *s)
{
	const char *hash = lenstr_take(a, &s), *agg = lenstr_take(a, &s);
	struct model_ref *refs = NULL;
	size_t n = 0, cap = 0;

	if (!hash || !agg || strlen(hash) >= sizeof(m->tree_hash))
		return false;
	while (*s) {
		struct model_ref *r = ARENA_PUSH(a, &refs, &n, &cap);
		int given, part, used = 0;

		if (sscanf(s, "%d %d %zu %zu %n", &given, &part, &r->span.offset, &r->span.len,
			   &used) != 4 || !used || (part != PART_BODY && part != PART_FILTER))
			return false;
		s += used;
		r->schema_given = given != 0;
		r->span.part = (enum model_part)part;
		if (!(r->schema = lenstr_take(a, &s)) || !(r->name = lenstr_take(a, &s)) ||
		    !(r->alias = lenstr_take(a, &s)))
			return false;
	}
	strcpy(m->tree_hash, hash);
	m->aggregates = *agg ? agg : NULL;
	m->refs = refs;
	m->nrefs = n;
	m->refs_cap = cap;
	return true;
}

/* A model naming itself reads its own previous state, like {this}. */
static void drop_self(struct model *m)
{
	for (size_t i = 0; i < m->nrefs; i++) {
		char fqn[512];

		snprintf(fqn, sizeof(fqn), "%s.%s", m->refs[i].schema, m->refs[i].name);
		if (strcmp(fqn, m->fqn) == 0) {
			m->filter_reads_self |= m->refs[i].span.part == PART_FILTER;
			memmove(&m->refs[i], &m->refs[i + 1], (m->nrefs - i - 1) * sizeof(*m->refs));
			m->nrefs--;
			i--;
		}
	}
}

int refs_find(struct sqlparse *parser, struct arena *a, struct model *m,
	      struct diag_list *diags)
{
	struct sl_err err = SL_ERR_INIT;
	struct walk w = { .a = a, .m = m };
	char *text = refs_parse_text(m, &w.filter_start);
	unsigned char key[SHA256_DIGEST_LENGTH];
	const char *kept;
	char *tree = NULL;
	long err_off;
	json_t *root;
	int rc;

	rc = sqlparse_tree(parser, text, &tree, &err_off, &err);
	if (rc) {
		enum model_part part = PART_BODY;
		size_t part_off = 0;
		int line = m->body_line, col = 0;

		if (err_off >= 0 && to_span(m, w.filter_start, (size_t)err_off, &part, &part_off))
			model_span_position(m, part, part_off, &line, &col);
		if (strcmp(err.msg, SQLPARSE_NOT_A_QUERY) == 0)
			diag_add(diags, DIAG_ERROR, m->path, line, col,
				 "write only the query; sluice creates the table or view itself "
				 "(@config materialized=...)",
				 "model '%s' is not a query", m->fqn);
		else
			diag_add(diags, DIAG_ERROR, m->path, line, col, NULL, "SQL %s in model '%s'",
				 err.msg, m->fqn);
		free(text);
		return SL_E_PARSE;
	}
	m->tree = arena_strdup(a, tree);
	facts_key(m, key);
	if ((kept = sqlparse_derived_get(parser, key)) && facts_read(a, m, kept)) {
		free(tree);
		free(text);
		drop_self(m);
		return 0;
	}
	w.text = text;
	tree_digest(&w, tree);
	/* "no location" is 2^64-1, which jansson's integers cannot hold */
	root = json_loads(tree, JSON_DECODE_INT_AS_REAL, NULL);
	free(tree);
	if (!root) {
		free(text);
		diag_add(diags, DIAG_ERROR, m->path, m->body_line, 0, NULL,
			 "cannot read the parse tree of model '%s'", m->fqn);
		return SL_E_PARSE;
	}
	json_t *stmts = json_object_get(root, "statements");
	if (json_array_size(stmts) != 1) {
		diag_add(diags, DIAG_ERROR, m->path, m->body_line, 0,
			 "split it into one model per query",
			 "model '%s' holds %zu statements; a model is one query", m->fqn,
			 json_array_size(stmts));
		rc = SL_E_PARSE;
	} else {
		struct buf facts = BUF_INIT;

		walk_json(&w, stmts);
		m->aggregates = find_aggregation(stmts);
		facts_write(m, &facts);
		sqlparse_derived_put(parser, key, facts.buf);
		buf_release(&facts);
	}
	json_decref(root);
	free(text);
	drop_self(m);
	return rc;
}

/* The check's SQL with each {this} replaced by a same-length name, inside a
 * query the parser accepts. Must be freed by the caller. */
static char *assert_parse_text(const struct model_assert *as)
{
	struct buf b = BUF_INIT;
	size_t start;
	char *p;

	if (as->kind == ASSERT_EXPRESSION)
		buf_adds(&b, "SELECT 1 WHERE NOT (");
	start = b.len;
	buf_adds(&b, as->sql);
	while ((p = strstr(b.buf + start, "{this}")))
		memcpy(p, "_this_", 6);
	if (as->kind == ASSERT_EXPRESSION)
		buf_adds(&b, ")");
	return buf_detach(&b, NULL);
}

int refs_check_asserts(struct sqlparse *parser, struct model *m, struct diag_list *diags)
{
	int rc = 0;

	for (size_t i = 0; i < m->nasserts; i++) {
		const struct model_assert *as = &m->asserts[i];
		struct sl_err err = SL_ERR_INIT;
		char *text, *tree = NULL;
		long off;

		if (as->kind != ASSERT_EXPRESSION && as->kind != ASSERT_ROWS)
			continue;
		text = assert_parse_text(as);
		if (sqlparse_tree(parser, text, &tree, &off, &err)) {
			diag_add(diags, DIAG_ERROR, m->path, as->line, 0,
				 as->kind == ASSERT_ROWS
					 ? "write rows: SELECT ... returning the rows that break the rule"
					 : "write a boolean SQL expression that holds for every row",
				 "SQL %s in @assert %s", err.msg, as->text);
			rc = SL_E_PARSE;
		}
		free(tree);
		free(text);
	}
	return rc;
}
