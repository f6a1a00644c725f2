/*
 * This file implements a model's declared inputs (declared.h): content
 * hashes, the checks of what they say, and a hardcoded input's rows as a
 * query. Rows are a YAML flow list of mappings, each mapping one row:
 * [{id: 1, code: SE}, {id: 2, code: NO}]. Only standard SQL is written
 * (VALUES, quoted names and literals), which every warehouse reads.
 */
#include "project/declared.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/xalloc.h"
#include "project/header.h"
#include "project/project.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

bool declared_hardcoded(const struct model_upstream *u)
{
	return u->type && strcmp(u->type, "hardcoded") == 0;
}

static void hex(const unsigned char *md, char *out)
{
	for (size_t i = 0; i < SHA256_DIGEST_LENGTH; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* A plain YAML scalar as SQL: a number as written, true, false and null
 * as themselves, anything else (and anything quoted) as a string. */
static void add_literal(struct buf *b, const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;
	size_t len = n->data.scalar.length;
	bool plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	char *end = NULL;

	if (plain && len && (isdigit((unsigned char)v[0]) || v[0] == '-' || v[0] == '.')) {
		strtod(v, &end);
		if (end == v + len) {
			buf_add(b, v, len);
			return;
		}
	}
	if (plain && (strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0))
		buf_adds(b, strcasecmp(v, "true") == 0 ? "TRUE" : "FALSE");
	else if (plain && (!len || strcmp(v, "~") == 0 || strcasecmp(v, "null") == 0))
		buf_adds(b, "NULL");
	else
		buf_add_sql_str(b, v);
}

static void add_name(struct buf *b, const char *name)
{
	buf_addch(b, '"');
	for (; *name; name++) {
		if (*name == '"')
			buf_addch(b, '"');
		buf_addch(b, *name);
	}
	buf_addch(b, '"');
}

static const char *key_of(yaml_document_t *doc, const yaml_node_pair_t *pair)
{
	yaml_node_t *k = yaml_document_get_node(doc, pair->key);

	return k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
}

/* rows (one YAML flow list of mappings) as VALUES rows into out and their
 * column names into cols; the first row's keys name the columns, and every
 * row has those keys in that order. NULL, or what is wrong. */
static const char *rows_values(struct arena *a, yaml_document_t *doc, struct buf *out,
			       struct buf *cols)
{
	yaml_node_t *root = yaml_document_get_root_node(doc), *first;
	size_t nrows, ncols;

	if (!root || root->type != YAML_SEQUENCE_NODE ||
	    !(nrows = (size_t)(root->data.sequence.items.top - root->data.sequence.items.start)))
		return "rows is a list of rows, such as [{id: 1, code: SE}]";
	first = yaml_document_get_node(doc, root->data.sequence.items.start[0]);
	if (!first || first->type != YAML_MAPPING_NODE ||
	    !(ncols = (size_t)(first->data.mapping.pairs.top - first->data.mapping.pairs.start)))
		return "each row is a mapping of columns to values, such as {id: 1, code: SE}";
	buf_adds(out, "SELECT * FROM (VALUES ");
	for (size_t r = 0; r < nrows; r++) {
		yaml_node_t *row = yaml_document_get_node(doc, root->data.sequence.items.start[r]);

		if (!row || row->type != YAML_MAPPING_NODE ||
		    (size_t)(row->data.mapping.pairs.top - row->data.mapping.pairs.start) != ncols)
			return arena_sprintf(a, "row %zu has not the %zu columns of row 1", r + 1, ncols);
		buf_adds(out, r ? ", (" : "(");
		for (size_t c = 0; c < ncols; c++) {
			const yaml_node_pair_t *pair = &row->data.mapping.pairs.start[c];
			const char *key = key_of(doc, pair);
			yaml_node_t *v = yaml_document_get_node(doc, pair->value);

			if (!key || strcmp(key, key_of(doc, &first->data.mapping.pairs.start[c])) != 0)
				return arena_sprintf(a, "row %zu names its columns otherwise than row 1",
						     r + 1);
			if (!v || v->type != YAML_SCALAR_NODE)
				return arena_sprintf(a, "row %zu: the value of %s is no single value",
						     r + 1, key);
			if (!r && !header_is_column_name(key))
				return arena_sprintf(a, "'%s' is not a column name", key);
			if (!r) {
				buf_adds(cols, c ? ", " : "");
				add_name(cols, key);
			}
			buf_adds(out, c ? ", " : "");
			add_literal(out, v);
		}
		buf_addch(out, ')');
	}
	return NULL;
}

/* rows as a VALUES query into out; NULL, or what is wrong. */
static const char *rows_query(struct arena *a, yaml_document_t *doc, struct buf *out)
{
	struct buf cols = BUF_INIT;
	const char *why = rows_values(a, doc, out, &cols);

	if (!why)
		buf_addf(out, ") AS _sluice_rows(%s)", cols.buf);
	buf_release(&cols);
	return why;
}

const char *declared_query(struct arena *a, const struct model_upstream *u, const char **why)
{
	const char *rows = model_upstream_option(u, "rows"), *sql = model_upstream_option(u, "sql");
	yaml_parser_t parser;
	yaml_document_t doc;
	struct buf out = BUF_INIT;
	const char *q = NULL;

	*why = NULL;
	if (!rows == !sql) {
		*why = "a hardcoded input has rows=[...] or sql=..., one of them";
		return NULL;
	}
	if (sql)
		return sql;
	if (!yaml_parser_initialize(&parser)) {
		*why = "out of memory";
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)rows, strlen(rows));
	if (!yaml_parser_load(&parser, &doc)) {
		*why = arena_sprintf(a, "rows do not read as a list: %s",
				     parser.problem ? parser.problem : "malformed");
		yaml_parser_delete(&parser);
		return NULL;
	}
	*why = rows_query(a, &doc, &out);
	if (!*why)
		q = arena_strdup(a, out.buf);
	buf_release(&out);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return q;
}

/* The hex SHA-256 of the file at path into out; false (errno) when it
 * cannot be read. */
static bool file_hash(const char *path, char *out)
{
	FILE *f = fopen(path, "rb");
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	EVP_MD_CTX *ctx;
	size_t n;
	bool ok;

	if (!f)
		return false;
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		xalloc_die();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		EVP_DigestUpdate(ctx, buf, n);
	ok = !ferror(f);
	fclose(f);
	EVP_DigestFinal_ex(ctx, md, NULL);
	EVP_MD_CTX_free(ctx);
	if (ok)
		hex(md, out);
	return ok;
}

/* A hardcoded input: its hash, and what is wrong with it. */
static void load_hardcoded(struct project *p, const struct model *m, struct model_upstream *u)
{
	const char *text = model_upstream_option(u, "rows") ? model_upstream_option(u, "rows") : model_upstream_option(u, "sql");
	const char *why = NULL;
	unsigned char md[SHA256_DIGEST_LENGTH];
	const char *dot = strchr(u->name, '.');

	if (!dot || dot == u->name || !dot[1] || strchr(dot + 1, '.'))
		diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
			 "sluice writes it as that table, which the model reads by name",
			 "hardcoded input '%s' is not named schema.table", u->name);
	else if (project_find_model(p, u->name))
		diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
			 "give the hardcoded table a name of its own",
			 "hardcoded input '%s' is the name of a model", u->name);
	if (!declared_query(p->arena, u, &why))
		diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0, NULL, "hardcoded input '%s': %s",
			 u->name, why);
	if (why || !text)
		return;
	SHA256((const unsigned char *)text, strlen(text), md);
	hex(md, u->content_hash);
}

/* Two models that declare one hardcoded table must give it one content. */
static void check_alike(struct project *p, const struct model *m, const struct model_upstream *u)
{
	for (size_t i = 0; i < m->order && i < p->nmodels; i++) {
		const struct model *o = p->models[i];

		for (size_t k = 0; k < o->nupstreams; k++) {
			const struct model_upstream *v = &o->upstreams[k];

			if (declared_hardcoded(v) && *v->content_hash &&
			    strcasecmp(v->name, u->name) == 0 &&
			    strcmp(v->content_hash, u->content_hash) != 0) {
				diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
					 arena_sprintf(p->arena, "declare it alike in both, or name one otherwise (%s declares it)", o->path),
					 "hardcoded input '%s' has other rows than %s's", u->name, o->fqn);
				return;
			}
		}
	}
}

void declared_load(struct project *p)
{
	for (size_t i = 0; i < p->nmodels; i++) {
		struct model *m = p->models[i];

		for (size_t k = 0; k < m->nupstreams; k++) {
			struct model_upstream *u = &m->upstreams[k];
			const char *path = model_upstream_option(u, "path");

			u->content_hash[0] = '\0';
			if (!*u->name)
				continue;
			if (declared_hardcoded(u)) {
				load_hardcoded(p, m, u);
				if (*u->content_hash)
					check_alike(p, m, u);
			} else if (u->type && strcmp(u->type, "file") == 0 && path &&
				   !file_hash(*path == '/' ? path
							   : arena_sprintf(p->arena, "%s/%s", p->root,
									   path),
					      u->content_hash)) {
				diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
					 "its content versions the model: a changed file builds it again",
					 "cannot read file input '%s' (%s): %s", u->name, path,
					 strerror(errno));
			}
		}
	}
}

const struct model_upstream *declared_hardcoded_named(const struct model *m, const char *schema,
						      const char *name)
{
	size_t len = strlen(schema);

	for (size_t i = 0; i < m->nupstreams; i++) {
		const struct model_upstream *u = &m->upstreams[i];

		if (declared_hardcoded(u) && strncasecmp(u->name, schema, len) == 0 &&
		    u->name[len] == '.' && strcasecmp(u->name + len + 1, name) == 0)
			return u;
	}
	return NULL;
}

const char *declared_signature(struct arena *a, const struct model *m)
{
	struct buf b = BUF_INIT;
	const char *s;

	for (size_t i = 0; i < m->nupstreams; i++)
		if (*m->upstreams[i].content_hash)
			buf_addf(&b, ",%s#%.16s", m->upstreams[i].name, m->upstreams[i].content_hash);
	s = arena_strdup(a, b.buf ? b.buf : "");
	buf_release(&b);
	return s;
}
