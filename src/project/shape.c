/*
 * This file implements a model's query shape (shape.h) over its parse
 * tree: the tree without its locations, the outer select list taken out
 * and each of its items digested on its own, the rest digested with the
 * model's other definition (project_model_hash_with), so that a part
 * nobody digested cannot change unseen. It must never look at the
 * warehouse.
 */
#include "project/shape.h"

#include "core/arena.h"
#include "core/buf.h"
#include "project/project.h"
#include "project/tree.h"

#include <ctype.h>
#include <jansson.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The hex SHA-256 of text, its first n digits (n <= 64). */
static void digest(const char *text, size_t len, char *out, size_t n)
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	char hex[65];

	SHA256((const unsigned char *)text, len, md);
	for (size_t i = 0; i < SHA256_DIGEST_LENGTH; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	memcpy(out, hex, n);
	out[n] = '\0';
}

static void drop_locations(json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;
	void *tmp;

	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			drop_locations(v);
		return;
	}
	json_object_foreach_safe(j, tmp, key, v) {
		if (strcmp(key, "query_location") == 0)
			json_object_del(j, key);
		else
			drop_locations(v);
	}
}

/* The text of a node, its layout the parser's: the same for the same
 * tree, keys in the order the parser writes them. */
static void add_node(struct buf *b, json_t *node)
{
	char *text = json_dumps(node, JSON_COMPACT | JSON_ENCODE_ANY);

	buf_adds(b, text ? text : "null");
	free(text);
}

static char *item_name(struct arena *a, json_t *e)
{
	char *low = arena_strdup(a, tree_output_name(e));

	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return low;
}

static enum tree_seen volatile_node(json_t *node, const void *ctx)
{
	(void)ctx;
	if ((tree_is(node, "class", "FUNCTION") && tree_is_volatile(tree_str(node, "function_name"))) ||
	    (tree_is(node, "class", "COLUMN_REF") && tree_is_volatile_keyword(node)))
		return TREE_FOUND;
	return TREE_GO_ON;
}

/* The select items, the items of one name digested together: a query may
 * name two columns alike. */
static void add_columns(struct arena *a, json_t *items, struct model_shape *out)
{
	size_t n = json_array_size(items);
	bool *done = arena_alloc(a, n + 1);

	memset(done, 0, n + 1);
	for (size_t i = 0; i < n; i++) {
		const char *name = item_name(a, json_array_get(items, i));
		struct buf b = BUF_INIT;
		struct shape_col *c;
		char hash[17];

		if (done[i])
			continue;
		for (size_t k = i; k < n; k++) {
			json_t *e = json_array_get(items, k);

			if (!done[k] && strcmp(item_name(a, e), name) == 0) {
				done[k] = true;
				add_node(&b, e);
				buf_addch(&b, '\n');
			}
		}
		digest(b.buf, b.len, hash, 16);
		buf_release(&b);
		c = ARENA_PUSH(a, &out->cols, &out->ncols, &out->cols_cap);
		c->name = name;
		c->hash = arena_strdup(a, hash);
	}
}

bool shape_of(struct arena *a, const struct model *m, struct model_shape *out)
{
	json_t *root, *top, *node;
	struct buf rows = BUF_INIT;
	char tree_hash[65];

	memset(out, 0, sizeof(*out));
	if (!m->tree)
		return false;
	/* "no location" is 2^64-1, which jansson's integers cannot hold */
	root = json_loads(m->tree, JSON_DECODE_INT_AS_REAL, NULL);
	top = node = json_object_get(json_array_get(json_object_get(root, "statements"), 0), "node");
	/* the query inside the incremental filter's wrapper has the columns;
	 * the filter decides rows too */
	if (m->filter)
		node = json_object_get(
			json_object_get(json_object_get(node, "from_table"), "subquery"), "node");
	if (!json_is_object(node)) {
		json_decref(root);
		return false;
	}
	drop_locations(top);
	out->varies = tree_holds(top, volatile_node, NULL);
	if (tree_is(node, "type", "SELECT_NODE")) {
		add_columns(a, json_object_get(node, "select_list"), out);
		json_object_del(node, "select_list");
	}
	add_node(&rows, top);
	for (size_t i = 0; i < m->nplaceholders; i++) {
		const struct model_span *s = &m->placeholders[i].span;

		buf_addf(&rows, "\n%d:%.*s", (int)s->part, (int)s->len,
			 (s->part == PART_FILTER ? m->filter : m->body) + s->offset);
	}
	digest(rows.buf, rows.len, tree_hash, 64);
	project_model_hash_with(m, tree_hash, out->rows);
	buf_release(&rows);
	json_decref(root);
	return true;
}

void shape_add_name(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == ';' || *s == '=' || *s == '%' || *s == '@')
			buf_addf(b, "%%%02X", (unsigned char)*s);
		else
			buf_addch(b, *s);
	}
}

const char *shape_format(struct arena *a, const struct model_shape *s)
{
	struct buf b = BUF_INIT;
	const char *out;

	buf_addf(&b, "rows=%s;varies=%d", s->rows, s->varies);
	for (size_t i = 0; i < s->ncols; i++) {
		buf_adds(&b, ";c=");
		shape_add_name(&b, s->cols[i].name);
		buf_addf(&b, "=%s", s->cols[i].hash);
	}
	out = arena_strdup(a, b.buf);
	buf_release(&b);
	return out;
}

char *shape_name(struct arena *a, const char *s, size_t len)
{
	char *out = arena_alloc(a, len + 1), *p = out;

	for (size_t i = 0; i < len; i++) {
		unsigned int c;

		if (s[i] == '%' && i + 2 < len + 1 && sscanf(s + i + 1, "%2X", &c) == 1) {
			*p++ = (char)c;
			i += 2;
		} else {
			*p++ = s[i];
		}
	}
	*p = '\0';
	return out;
}

bool shape_parse(struct arena *a, const char *text, struct model_shape *out)
{
	const char *p = text;

	memset(out, 0, sizeof(*out));
	if (!text || strncmp(p, "rows=", 5) != 0 || strlen(p + 5) < 64 || p[69] != ';' ||
	    strncmp(p + 70, "varies=", 7) != 0)
		return false;
	memcpy(out->rows, p + 5, 64);
	out->rows[64] = '\0';
	out->varies = p[77] == '1';
	p += 78;
	while (*p == ';') {
		const char *name = p + 3, *eq;
		size_t len;
		struct shape_col *c;

		if (strncmp(p, ";c=", 3) != 0 || !(eq = strchr(name, '=')))
			return false;
		len = strcspn(eq + 1, ";");
		c = ARENA_PUSH(a, &out->cols, &out->ncols, &out->cols_cap);
		c->name = shape_name(a, name, (size_t)(eq - name));
		c->hash = arena_strndup(a, eq + 1, len);
		p = eq + 1 + len;
	}
	return *p == '\0';
}

static const struct shape_col *col_named(const struct model_shape *s, const char *name)
{
	for (size_t i = 0; i < s->ncols; i++)
		if (strcmp(s->cols[i].name, name) == 0)
			return &s->cols[i];
	return NULL;
}

void shape_compare(struct arena *a, const struct model_shape *was, const struct model_shape *now,
		   struct shape_diff *d)
{
	size_t cap[3] = { 0, 0, 0 };

	const struct shape_col *star_was = col_named(was, "*"), *star_now = col_named(now, "*");

	memset(d, 0, sizeof(*d));
	d->varies = now->varies;
	/* the columns a star gives are its relations': a star changed may
	 * change any of them */
	d->rows = strcmp(was->rows, now->rows) != 0 || !star_was != !star_now ||
		  (star_was && strcmp(star_was->hash, star_now->hash) != 0);
	for (size_t i = 0; i < now->ncols; i++) {
		const struct shape_col *c = col_named(was, now->cols[i].name);

		if (!c)
			*ARENA_PUSH(a, &d->added, &d->nadded, &cap[2]) = now->cols[i].name;
		else if (strcmp(c->hash, now->cols[i].hash) != 0)
			*ARENA_PUSH(a, &d->changed, &d->nchanged, &cap[0]) = now->cols[i].name;
	}
	for (size_t i = 0; i < was->ncols; i++)
		if (!col_named(now, was->cols[i].name))
			*ARENA_PUSH(a, &d->removed, &d->nremoved, &cap[1]) = was->cols[i].name;
}

bool shape_diff_touches(const struct shape_diff *d, const char *name)
{
	const char *const *lists[] = { d->changed, d->removed, d->added };
	size_t counts[] = { d->nchanged, d->nremoved, d->nadded };

	if (d->rows)
		return true;
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < counts[l]; i++)
			if (strcasecmp(lists[l][i], name) == 0)
				return true;
	return false;
}
