/*
 * This file implements lineage kept between processes (lineage_kept.h).
 * A kept text is the columns each relation was said to have when the
 * lineage was found (in the order asked), then the lineage: its edges,
 * its columns with their inputs, its rows' inputs and what it could not
 * see through.
 */
#include "project/lineage_kept.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/lenstr.h"
#include "warehouse/sqlparse.h"

#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

/* A lineage_columns_fn that writes down what it answers. */
struct recorder {
	lineage_columns_fn columns;
	void *ctx;
	struct buf asked;
	size_t nasked;
};

static void num_add(struct buf *out, long v)
{
	buf_addf(out, "%ld ", v);
}

static bool num_take(const char **s, long *v)
{
	char *end;

	*v = strtol(*s, &end, 10);
	if (end == *s || *end != ' ')
		return false;
	*s = end + 1;
	return true;
}

static void ask_write(struct buf *out, const char *schema, const char *table, bool known,
		      const char *const *cols, size_t n)
{
	lenstr_add(out, schema);
	lenstr_add(out, table);
	num_add(out, known ? (long)n : -1);
	for (size_t i = 0; known && i < n; i++)
		lenstr_add(out, cols[i]);
}

static bool record(void *ctx, const char *schema, const char *table, const char *const **cols,
		   size_t *n)
{
	struct recorder *r = ctx;
	bool known = r->columns && r->columns(r->ctx, schema, table, cols, n);

	ask_write(&r->asked, schema, table, known, known ? *cols : NULL, known ? *n : 0);
	r->nasked++;
	return known;
}

static void input_write(struct buf *out, const struct lineage_input *in)
{
	lenstr_add(out, in->relation);
	lenstr_add(out, in->column);
	num_add(out, in->kind);
}

static void inputs_write(struct buf *out, const struct lineage_column *c)
{
	num_add(out, (long)c->ninputs);
	for (size_t i = 0; i < c->ninputs; i++)
		input_write(out, &c->inputs[i]);
}

static void lineage_write(struct buf *out, const struct lineage *l)
{
	num_add(out, (long)l->nedges);
	for (size_t i = 0; i < l->nedges; i++) {
		lenstr_add(out, l->edges[i].relation);
		num_add(out, l->edges[i].type);
		lenstr_add(out, l->edges[i].why ? l->edges[i].why : "");
	}
	num_add(out, (long)l->ncols);
	for (size_t i = 0; i < l->ncols; i++) {
		lenstr_add(out, l->cols[i].name);
		inputs_write(out, &l->cols[i]);
	}
	inputs_write(out, &l->rows);
	num_add(out, (long)l->nunknown);
	for (size_t i = 0; i < l->nunknown; i++) {
		lenstr_add(out, l->unknown[i].why);
		num_add(out, l->unknown[i].offset);
	}
}

/* Whether each relation asked about when s was kept has the same columns
 * now; *s past the asks. */
static bool asks_hold(struct arena *a, const char **s, lineage_columns_fn columns, void *ctx)
{
	long nasked, n;

	if (!num_take(s, &nasked))
		return false;
	for (long i = 0; i < nasked; i++) {
		const char *schema = lenstr_take(a, s), *table = schema ? lenstr_take(a, s) : NULL;
		const char *const *cols = NULL;
		size_t now = 0;
		bool known;

		if (!table || !num_take(s, &n))
			return false;
		known = columns && columns(ctx, schema, table, &cols, &now);
		if (known != (n >= 0) || (known && (size_t)n != now))
			return false;
		for (long k = 0; k < n; k++) {
			const char *name = lenstr_take(a, s);

			if (!name || strcmp(name, cols[k]) != 0)
				return false;
		}
	}
	return true;
}

static bool inputs_read(struct arena *a, const char **s, struct lineage_column *c)
{
	long n, kind;

	if (!num_take(s, &n))
		return false;
	for (long i = 0; i < n; i++) {
		const char *relation = lenstr_take(a, s), *column = relation ? lenstr_take(a, s) : NULL;

		if (!column || !num_take(s, &kind) || kind < LINEAGE_IDENTITY ||
		    kind > LINEAGE_CONDITIONAL)
			return false;
		lineage_column_add(a, c, relation, column, (enum lineage_kind)kind);
	}
	return true;
}

static bool lineage_read(struct arena *a, const char **s, struct lineage *l)
{
	long n, v;

	memset(l, 0, sizeof(*l));
	if (!num_take(s, &n))
		return false;
	for (long i = 0; i < n; i++) {
		struct lineage_edge *e = ARENA_PUSH(a, &l->edges, &l->nedges, &l->edges_cap);

		if (!(e->relation = lenstr_take(a, s)) || !num_take(s, &v) ||
		    v < LINEAGE_EDGE_ROW || v > LINEAGE_EDGE_UNKNOWN || !(e->why = lenstr_take(a, s)))
			return false;
		e->type = (enum lineage_edge_type)v;
		if (!*e->why)
			e->why = NULL;
	}
	if (!num_take(s, &n))
		return false;
	for (long i = 0; i < n; i++) {
		struct lineage_column *c = ARENA_PUSH(a, &l->cols, &l->ncols, &l->cols_cap);

		memset(c, 0, sizeof(*c));
		if (!(c->name = lenstr_take(a, s)) || !inputs_read(a, s, c))
			return false;
	}
	if (!inputs_read(a, s, &l->rows) || !num_take(s, &n))
		return false;
	for (long i = 0; i < n; i++) {
		struct lineage_unknown *u = ARENA_PUSH(a, &l->unknown, &l->nunknown, &l->unknown_cap);

		if (!(u->why = lenstr_take(a, s)) || !num_take(s, &u->offset))
			return false;
	}
	return **s == '\0';
}

static void key_of(const char *text, bool unwrap, unsigned char *key)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "lineage");
	buf_add(&b, "", 1);
	buf_add(&b, text, strlen(text) + 1);
	buf_addch(&b, unwrap ? 'u' : 'w');
	SHA256((const unsigned char *)b.buf, b.len, key);
	buf_release(&b);
}

int lineage_query_kept(struct sqlparse *kept, struct arena *a, const char *tree, const char *text,
		       bool unwrap, lineage_columns_fn columns, void *ctx, struct lineage *out)
{
	struct recorder r = { .columns = columns, .ctx = ctx, .asked = BUF_INIT };
	unsigned char key[SHA256_DIGEST_LENGTH];
	const char *s;
	int rc;

	if (!kept)
		return lineage_query(a, tree, text, unwrap, columns, ctx, out);
	key_of(text, unwrap, key);
	s = sqlparse_derived_get(kept, key);
	if (s) {
		struct arena *scratch = arena_new(NULL);
		bool held = asks_hold(scratch, &s, columns, ctx);

		arena_free(scratch);
		if (held && lineage_read(a, &s, out))
			return 0;
	}
	rc = lineage_query(a, tree, text, unwrap, record, &r, out);
	if (!rc) {
		struct buf text_kept = BUF_INIT;

		num_add(&text_kept, (long)r.nasked);
		buf_add(&text_kept, r.asked.buf, r.asked.len);
		lineage_write(&text_kept, out);
		sqlparse_derived_put(kept, key, text_kept.buf);
		buf_release(&text_kept);
	}
	buf_release(&r.asked);
	return rc;
}
