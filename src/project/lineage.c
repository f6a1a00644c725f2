/*
 * This file implements column lineage over a query's parse tree (DuckDB's
 * JSON, read with tree.h as the maintenance classifier reads it). A query
 * is walked from its FROM outwards: each relation in scope (a table, a
 * WITH name, a subquery, a join's sides, a table function) is a list of
 * columns, each with the inputs it comes from; an expression collects the
 * inputs of the columns it names, their kind composed with how the
 * expression uses them; WHERE, JOIN, GROUP BY and ORDER BY add their
 * inputs to every output column, indirectly. What cannot be seen through
 * is recorded with its reason, never dropped. The same walk types each
 * relation read by how its rows reach the output: the role of what is
 * being walked (row, then agg inside an aggregating SELECT, side inside a
 * join's other side or a subquery of an expression) only grows on the way
 * in. It must never look at the warehouse: the caller says what each table
 * holds.
 */
#include "project/lineage.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/hash.h"
#include "project/refs.h"
#include "project/tree.h"

#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* A relation in scope: its name in the query, its columns and the inputs
 * of each; a table whose columns are not known has base instead, and
 * every column named through it is the table's. */
struct rel {
	const char *name;
	struct lineage_column *cols;
	size_t ncols, cols_cap;
	bool known;
	const char *base;
	/* the columns a join's USING or NATURAL merged into the other side's:
	 * a * shows them once */
	const char **merged;
	size_t nmerged, merged_cap;
};

struct scope {
	struct rel *rels;
	size_t nrels, rels_cap;
	const struct scope *outer; /* the enclosing query's, for correlated names */
	/* the inputs that decide which rows every output column has */
	struct lineage_column rows;
	/* the select list, for GROUP BY and ORDER BY by alias or position */
	const struct lineage *items;
};

struct cte {
	const char *name;
	json_t *query;
	struct lineage *done;
	bool busy;
};

/* How what is being walked reaches the output, and why. */
struct role {
	enum lineage_edge_type type;
	const char *why;
};

struct walk {
	struct arena *a;
	struct tree_text t;
	lineage_columns_fn columns;
	void *ctx;
	struct lineage *out;
	struct cte *ctes;
	size_t nctes, ctes_cap;
	struct role role;
	/* where the relations read are typed: the query's lineage, or a WITH
	 * query's own (typed again where it is read) */
	struct lineage *edges;
};

static void query_node(struct walk *w, json_t *node, const struct scope *outer,
		       struct lineage *q);
const char *lineage_kind_name(enum lineage_kind k)
{
	static const char *const names[] = { "IDENTITY", "TRANSFORMATION", "AGGREGATION",
					     "JOIN",	 "FILTER",	   "GROUP_BY",
					     "SORT",	 "WINDOW",	   "CONDITIONAL" };

	return names[k];
}

bool lineage_kind_direct(enum lineage_kind k)
{
	return k <= LINEAGE_AGGREGATION;
}

const char *lineage_edge_name(enum lineage_edge_type t)
{
	static const char *const names[] = { "row", "agg", "side", "unknown" };

	return names[t];
}

/* Makes the role at least type, for why; returns the role it was. */
static struct role enter(struct walk *w, enum lineage_edge_type type, const char *why)
{
	struct role was = w->role;

	if (type > w->role.type)
		w->role = (struct role){ type, why };
	return was;
}

static void add_edge(struct arena *a, struct lineage *l, const char *relation, struct role r)
{
	struct lineage_edge *e;

	for (size_t i = 0; i < l->nedges; i++) {
		e = &l->edges[i];
		if (strcmp(e->relation, relation) != 0)
			continue;
		if (r.type > e->type) {
			e->type = r.type;
			e->why = r.why;
		}
		return;
	}
	e = ARENA_PUSH(a, &l->edges, &l->nedges, &l->edges_cap);
	e->relation = relation;
	e->type = r.type;
	e->why = r.why;
}

static char *lower(struct arena *a, const char *s)
{
	char *p = arena_strdup(a, s);

	for (char *q = p; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return p;
}

static void unknown(struct walk *w, const char *why, long offset)
{
	struct lineage_unknown *u;

	for (size_t i = 0; i < w->out->nunknown; i++)
		if (strcmp(w->out->unknown[i].why, why) == 0)
			return;
	u = ARENA_PUSH(w->a, &w->out->unknown, &w->out->nunknown, &w->out->unknown_cap);
	u->why = why;
	u->offset = offset;
}

/* Inputs up to this many are looked through; past it, up by hash. */
#define INDEX_FROM 16

static size_t input_hash(const char *relation, const char *column, enum lineage_kind kind)
{
	uint64_t h = hash_bytes(hash_byte(HASH_INIT, (unsigned char)kind), relation,
				strlen(relation));

	return (size_t)hash_bytes(hash_byte(h, '.'), column, strlen(column));
}

static bool same_input(const struct lineage_input *in, const char *relation, const char *column,
		       enum lineage_kind kind)
{
	return in->kind == kind && strcmp(in->relation, relation) == 0 &&
	       strcmp(in->column, column) == 0;
}

static void index_put(size_t *index, size_t cap, const struct lineage_input *in, size_t place)
{
	size_t i = input_hash(in->relation, in->column, in->kind) & (cap - 1);

	while (index[i])
		i = (i + 1) & (cap - 1);
	index[i] = place + 1;
}

/* c's index made anew for at least n inputs, over those it has. */
static void index_grow(struct arena *a, struct lineage_column *c, size_t n)
{
	size_t cap = 64;

	while (cap < 2 * n)
		cap *= 2;
	c->index = arena_alloc(a, cap * sizeof(*c->index));
	c->index_cap = cap;
	for (size_t k = 0; k < c->ninputs; k++)
		index_put(c->index, cap, &c->inputs[k], k);
}

void lineage_column_add(struct arena *a, struct lineage_column *c, const char *relation,
			const char *column, enum lineage_kind kind)
{
	struct lineage_input *in;

	if (c->ninputs < INDEX_FROM) {
		for (size_t i = 0; i < c->ninputs; i++)
			if (same_input(&c->inputs[i], relation, column, kind))
				return;
	} else {
		if (2 * (c->ninputs + 1) > c->index_cap)
			index_grow(a, c, c->ninputs + 1);
		for (size_t i = input_hash(relation, column, kind) & (c->index_cap - 1); c->index[i];
		     i = (i + 1) & (c->index_cap - 1))
			if (same_input(&c->inputs[c->index[i] - 1], relation, column, kind))
				return;
	}
	in = ARENA_PUSH(a, &c->inputs, &c->ninputs, &c->inputs_cap);
	in->relation = relation;
	in->column = column;
	in->kind = kind;
	if (c->index)
		index_put(c->index, c->index_cap, in, c->ninputs - 1);
}

/* How an input reaches the output when an expression used as outer uses
 * a column that reached it as inner: an indirect input stays what it was;
 * a direct one takes the indirect use, or the stronger of two direct. */
static enum lineage_kind compose(enum lineage_kind outer, enum lineage_kind inner)
{
	if (!lineage_kind_direct(inner))
		return inner;
	if (!lineage_kind_direct(outer))
		return outer;
	return outer > inner ? outer : inner;
}

/* Every input of src into dst, as used by kind. */
static void add_from(struct arena *a, struct lineage_column *dst, const struct lineage_column *src,
		     enum lineage_kind kind)
{
	for (size_t i = 0; i < src->ninputs; i++)
		lineage_column_add(a, dst, src->inputs[i].relation, src->inputs[i].column,
			  compose(kind, src->inputs[i].kind));
}

static struct lineage_column *find_col(struct lineage_column *cols, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(cols[i].name, name) == 0)
			return &cols[i];
	return NULL;
}

/* Whether rel r has columns it cannot list: it is a table whose columns
 * are not known, or a query's * of one. */
static bool rel_open(const struct rel *r)
{
	return !r->known || find_col(r->cols, r->ncols, "*");
}

/* The column name in rel r, through its columns, the * of a table whose
 * columns are not known (that table's column name), or its base table. */
static bool rel_column(struct walk *w, const struct rel *r, const char *name, enum lineage_kind kind,
		       struct lineage_column *out)
{
	struct lineage_column *c = find_col(r->cols, r->ncols, name);

	if (c) {
		add_from(w->a, out, c, kind);
		return true;
	}
	if (!r->known) {
		lineage_column_add(w->a, out, r->base, lower(w->a, name), kind);
		return true;
	}
	if (!(c = find_col(r->cols, r->ncols, "*")))
		return false;
	for (size_t i = 0; i < c->ninputs; i++) {
		const struct lineage_input *in = &c->inputs[i];

		lineage_column_add(w->a, out, in->relation,
			  strcmp(in->column, "*") == 0 ? lower(w->a, name) : in->column,
			  compose(kind, in->kind));
	}
	return true;
}

static bool rel_named(const struct rel *r, const char *name)
{
	return strcasecmp(r->name, name) == 0;
}

/* A column reference: qualified by a relation in scope, or the first
 * relation (innermost scope first) that has the column; a struct field
 * (col.field) is its column's. Names the query gives nothing for (an
 * alias of the select list, a lambda's parameter) are left to the
 * caller. */
static bool column_ref(struct walk *w, const struct scope *s, json_t *e, enum lineage_kind kind,
		       struct lineage_column *out)
{
	json_t *parts = json_object_get(e, "column_names");
	size_t n = json_array_size(parts);
	const char *col = json_string_value(json_array_get(parts, n - 1));
	const char *qual = n >= 2 ? json_string_value(json_array_get(parts, n - 2)) : NULL;
	const char *first = json_string_value(json_array_get(parts, 0));

	if (!col || tree_is_volatile_keyword(e))
		return true;
	for (const struct scope *sc = s; sc; sc = sc->outer) {
		for (size_t i = 0; qual && i < sc->nrels; i++)
			if (rel_named(&sc->rels[i], qual) && rel_column(w, &sc->rels[i], col, kind, out))
				return true;
		for (size_t i = 0; !qual && i < sc->nrels; i++)
			if (find_col(sc->rels[i].cols, sc->rels[i].ncols, col))
				return rel_column(w, &sc->rels[i], col, kind, out);
		/* t.field of a struct column t, or a name of a table whose
		 * columns are not known */
		for (size_t i = 0; n >= 2 && i < sc->nrels; i++)
			if (find_col(sc->rels[i].cols, sc->rels[i].ncols, first))
				return rel_column(w, &sc->rels[i], first, kind, out);
		for (size_t i = 0; !qual && i < sc->nrels; i++)
			if (rel_open(&sc->rels[i]))
				return rel_column(w, &sc->rels[i], col, kind, out);
	}
	return false;
}

static void expr(struct walk *w, const struct scope *s, json_t *e, enum lineage_kind kind,
		 struct lineage_column *out);

/* A select item named by alias or position: its inputs. */
static bool item_ref(struct walk *w, const struct scope *s, json_t *e, enum lineage_kind kind,
		     struct lineage_column *out)
{
	const struct lineage *items = s->items;
	json_t *parts = json_object_get(e, "column_names");

	if (!items)
		return false;
	if (tree_is(e, "class", "CONSTANT")) {
		json_t *v = json_object_get(json_object_get(e, "value"), "value");
		double k = json_is_number(v) ? json_number_value(v) : 0;

		if (k < 1 || k > (double)items->ncols || k != (double)(size_t)k)
			return false;
		add_from(w->a, out, &items->cols[(size_t)k - 1], kind);
		return true;
	}
	if (json_array_size(parts) != 1)
		return false;
	for (size_t i = 0; i < items->ncols; i++)
		if (strcasecmp(items->cols[i].name, json_string_value(json_array_get(parts, 0))) == 0) {
			add_from(w->a, out, &items->cols[i], kind);
			return true;
		}
	return false;
}

/* The inputs of a subquery in an expression: a scalar one's value, the
 * rows an EXISTS or IN finds. */
static void subquery(struct walk *w, const struct scope *s, json_t *e, enum lineage_kind kind,
		     struct lineage_column *out)
{
	struct lineage q = { 0 };
	bool scalar = tree_is(e, "subquery_type", "SCALAR");
	enum lineage_kind use = scalar ? compose(kind, LINEAGE_TRANSFORMATION)
				       : lineage_kind_direct(kind) ? LINEAGE_CONDITIONAL
								   : kind;

	struct role was = enter(w, LINEAGE_EDGE_SIDE, "a subquery of an expression");

	query_node(w, json_object_get(json_object_get(e, "subquery"), "node"), s, &q);
	w->role = was;
	for (size_t i = 0; i < q.ncols && (!scalar || i == 0); i++)
		add_from(w->a, out, &q.cols[i], use);
	expr(w, s, json_object_get(e, "child"), use, out);
}

static void function(struct walk *w, const struct scope *s, json_t *e, enum lineage_kind kind,
		     struct lineage_column *out)
{
	const char *name = tree_str(e, "function_name");
	bool agg = refs_aggregate_name(name) != NULL;

	if (tree_is_volatile(name))
		unknown(w, arena_sprintf(w->a, "%s() gives other values on each run", lower(w->a, name)),
			tree_location(&w->t, e));
	expr(w, s, json_object_get(e, "children"),
	     compose(kind, agg ? LINEAGE_AGGREGATION : LINEAGE_TRANSFORMATION), out);
	expr(w, s, json_object_get(e, "filter"), compose(kind, LINEAGE_FILTER), out);
	expr(w, s, json_object_get(json_object_get(e, "order_bys"), "orders"),
	     compose(kind, LINEAGE_SORT), out);
}

static void window(struct walk *w, const struct scope *s, json_t *e, enum lineage_kind kind,
		   struct lineage_column *out)
{
	static const char *const values[] = { "children", "start_expr", "end_expr", "offset_expr",
					      "default_expr", NULL };

	for (size_t i = 0; values[i]; i++)
		expr(w, s, json_object_get(e, values[i]), compose(kind, LINEAGE_AGGREGATION), out);
	expr(w, s, json_object_get(e, "partitions"), compose(kind, LINEAGE_WINDOW), out);
	expr(w, s, json_object_get(e, "orders"), compose(kind, LINEAGE_WINDOW), out);
	expr(w, s, json_object_get(e, "filter_expr"), compose(kind, LINEAGE_FILTER), out);
}

static void case_expr(struct walk *w, const struct scope *s, json_t *e, enum lineage_kind kind,
		      struct lineage_column *out)
{
	json_t *check;
	size_t i;

	json_array_foreach(json_object_get(e, "case_checks"), i, check) {
		expr(w, s, json_object_get(check, "when_expr"), compose(kind, LINEAGE_CONDITIONAL),
		     out);
		expr(w, s, json_object_get(check, "then_expr"), compose(kind, LINEAGE_TRANSFORMATION),
		     out);
	}
	expr(w, s, json_object_get(e, "else_expr"), compose(kind, LINEAGE_TRANSFORMATION), out);
}

/* The inputs of expression e, each used as kind. */
static void expr(struct walk *w, const struct scope *s, json_t *e, enum lineage_kind kind,
		 struct lineage_column *out)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_array(e)) {
		json_array_foreach(e, i, v)
			expr(w, s, v, kind, out);
		return;
	}
	if (!json_is_object(e))
		return;
	if (tree_is(e, "class", "COLUMN_REF")) {
		if (!column_ref(w, s, e, kind, out))
			item_ref(w, s, e, kind, out);
	} else if (tree_is(e, "class", "FUNCTION")) {
		function(w, s, e, kind, out);
	} else if (tree_is(e, "class", "WINDOW")) {
		window(w, s, e, kind, out);
	} else if (tree_is(e, "class", "CASE")) {
		case_expr(w, s, e, kind, out);
	} else if (tree_is(e, "class", "SUBQUERY")) {
		subquery(w, s, e, kind, out);
	} else if (tree_is(e, "class", "STAR")) {
		unknown(w, "COLUMNS(...) or * inside an expression", tree_location(&w->t, e));
	} else if (!tree_is(e, "class", "CONSTANT")) {
		json_object_foreach(e, key, v)
			if (strcmp(key, "alias") != 0)
				expr(w, s, v, compose(kind, LINEAGE_TRANSFORMATION), out);
	}
}

/* An expression of GROUP BY or ORDER BY: a column of the input, else a
 * select item by alias or position. */
static void clause_expr(struct walk *w, const struct scope *s, json_t *e, enum lineage_kind kind,
			struct lineage_column *out)
{
	if (!item_ref(w, s, e, kind, out) || !tree_is(e, "class", "CONSTANT"))
		expr(w, s, e, kind, out);
}

static struct rel *push_rel(struct walk *w, struct scope *s, const char *name)
{
	struct rel *r = ARENA_PUSH(w->a, &s->rels, &s->nrels, &s->rels_cap);

	memset(r, 0, sizeof(*r));
	r->name = lower(w->a, name);
	r->known = true;
	return r;
}

static struct lineage_column *push_col(struct arena *a, struct lineage_column **cols, size_t *n,
				       size_t *cap, const char *name)
{
	struct lineage_column *c = ARENA_PUSH(a, cols, n, cap);

	memset(c, 0, sizeof(*c));
	c->name = name;
	return c;
}

/* A relation made of a query's output columns, renamed by an alias list
 * (t(a, b)) when there is one; the rows it has decide those of s, even
 * for an output column that names none of its columns (count(*)). */
static void rel_of_query(struct walk *w, struct scope *s, const char *name,
			 const struct lineage *q, json_t *aliases)
{
	struct rel *r = push_rel(w, s, name);

	add_from(w->a, &s->rows, &q->rows, LINEAGE_IDENTITY);
	for (size_t i = 0; i < q->ncols; i++) {
		json_t *alias = json_array_get(aliases, i);
		struct lineage_column *c = push_col(w->a, &r->cols, &r->ncols, &r->cols_cap,
						    json_is_string(alias)
							    ? lower(w->a, json_string_value(alias))
							    : q->cols[i].name);

		add_from(w->a, c, &q->cols[i], LINEAGE_IDENTITY);
	}
}

/* The WITH name, innermost first, that a table name without a schema
 * reads, computed on first use. */
static struct lineage *cte_named(struct walk *w, const char *name)
{
	for (size_t k = w->nctes; k > 0; k--) {
		struct cte *c = &w->ctes[k - 1];

		if (strcasecmp(c->name, name) != 0 || c->busy)
			continue;
		if (!c->done) {
			struct role was = w->role;
			struct lineage *edges = w->edges;

			c->busy = true;
			c->done = arena_alloc(w->a, sizeof(*c->done));
			memset(c->done, 0, sizeof(*c->done));
			w->role = (struct role){ LINEAGE_EDGE_ROW, NULL };
			w->edges = c->done;
			query_node(w, c->query, NULL, c->done);
			w->role = was;
			w->edges = edges;
			c->busy = false;
		}
		for (size_t i = 0; i < c->done->nedges; i++) {
			const struct lineage_edge *e = &c->done->edges[i];

			add_edge(w->a, w->edges, e->relation,
				 e->type > w->role.type ? (struct role){ e->type, e->why } : w->role);
		}
		return c->done;
	}
	return NULL;
}

/* Whether name is a WITH query's that is being walked: read from itself. */
static bool recursion(const struct walk *w, const char *name)
{
	for (size_t k = 0; k < w->nctes; k++)
		if (w->ctes[k].busy && strcasecmp(w->ctes[k].name, name) == 0)
			return true;
	return false;
}

static void base_table(struct walk *w, struct scope *s, json_t *f)
{
	const char *schema = tree_str(f, "schema_name"), *table = tree_str(f, "table_name");
	const char *alias = *tree_str(f, "alias") ? tree_str(f, "alias") : table;
	const char *const *cols;
	struct lineage *cte = *schema ? NULL : cte_named(w, table);
	const char *fqn;
	struct rel *r;
	size_t n;

	if (cte) {
		rel_of_query(w, s, alias, cte, json_object_get(f, "column_name_alias"));
		return;
	}
	schema = lower(w->a, *schema ? schema : "main");
	table = lower(w->a, table);
	fqn = arena_sprintf(w->a, "%s.%s", schema, table);
	/* a WITH RECURSIVE query reading itself reads no table */
	if (!recursion(w, table))
		add_edge(w->a, w->edges, fqn, w->role);
	r = push_rel(w, s, alias);
	if (!w->columns || !w->columns(w->ctx, schema, table, &cols, &n)) {
		r->known = false;
		r->base = fqn;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *col = lower(w->a, cols[i]);

		lineage_column_add(w->a, push_col(w->a, &r->cols, &r->ncols, &r->cols_cap, col), fqn, col,
			  LINEAGE_IDENTITY);
	}
}

/* unnest(), range() and their kind give one column named by the alias
 * list; any other table function's columns are unknown. */
static void table_function(struct walk *w, struct scope *s, json_t *f)
{
	static const char *const one_column[] = { "unnest", "range", "generate_series", NULL };
	json_t *fn = json_object_get(f, "function");
	const char *name = lower(w->a, tree_str(fn, "function_name"));
	json_t *aliases = json_object_get(f, "column_name_alias");
	struct rel *r = push_rel(w, s, *tree_str(f, "alias") ? tree_str(f, "alias") : name);
	struct lineage_column *c;
	bool known = false;

	for (size_t i = 0; one_column[i]; i++)
		known |= strcmp(name, one_column[i]) == 0;
	if (!known) {
		r->known = false;
		r->base = arena_sprintf(w->a, "%s()", name);
		unknown(w, arena_sprintf(w->a, "a table function (%s)", name), tree_location(&w->t, f));
		return;
	}
	c = push_col(w->a, &r->cols, &r->ncols, &r->cols_cap,
		     json_array_size(aliases) ? lower(w->a, json_string_value(json_array_get(aliases, 0)))
					      : name);
	expr(w, s, json_object_get(fn, "children"), LINEAGE_TRANSFORMATION, c);
}

static void from(struct walk *w, struct scope *s, json_t *f);

/* The columns both sides of a join have (NATURAL), or those it names
 * (USING), join them; the right side's are shown once by a *. */
static void join_columns(struct walk *w, struct scope *s, size_t left_end, json_t *using_cols,
			 bool natural)
{
	for (size_t r = left_end; r < s->nrels; r++) {
		struct rel *right = &s->rels[r];

		for (size_t c = 0; c < right->ncols; c++) {
			const char *name = right->cols[c].name;
			bool named = natural;
			json_t *u;
			size_t i;

			json_array_foreach(using_cols, i, u)
				named |= strcasecmp(json_string_value(u), name) == 0;
			for (size_t l = 0; named && l < left_end; l++) {
				struct lineage_column *left = find_col(s->rels[l].cols, s->rels[l].ncols, name);

				if (!left)
					continue;
				add_from(w->a, &s->rows, left, LINEAGE_JOIN);
				add_from(w->a, &s->rows, &right->cols[c], LINEAGE_JOIN);
				*ARENA_PUSH(w->a, &right->merged, &right->nmerged, &right->merged_cap) = name;
				break;
			}
		}
	}
}

/* The driving side of a join keeps the role; each row of the output is
 * one of its rows (or two of them, for the other side's: looked up). */
static void join(struct walk *w, struct scope *s, json_t *f)
{
	static const char *const why = "a join's other side";
	bool right_drives = tree_is(f, "join_type", "RIGHT");
	struct role was = right_drives ? enter(w, LINEAGE_EDGE_SIDE, why) : w->role;
	size_t left_end;

	from(w, s, json_object_get(f, "left"));
	w->role = was;
	left_end = s->nrels;
	if (!right_drives)
		enter(w, LINEAGE_EDGE_SIDE, why);
	from(w, s, json_object_get(f, "right"));
	w->role = was;
	expr(w, s, json_object_get(f, "condition"), LINEAGE_JOIN, &s->rows);
	join_columns(w, s, left_end, json_object_get(f, "using_columns"),
		     tree_is(f, "ref_type", "NATURAL"));
}

/* VALUES: columns named by the alias list, or col0, col1, ... */
static void values(struct walk *w, struct scope *s, json_t *f)
{
	json_t *rows = json_object_get(f, "values");
	json_t *aliases = json_object_get(f, "column_name_alias");
	struct rel *r = push_rel(w, s, *tree_str(f, "alias") ? tree_str(f, "alias") : "valueslist");
	size_t n = json_array_size(json_array_get(rows, 0));

	for (size_t i = 0; i < n; i++) {
		json_t *alias = json_array_get(aliases, i);

		push_col(w->a, &r->cols, &r->ncols, &r->cols_cap,
			 json_is_string(alias) ? lower(w->a, json_string_value(alias))
					       : arena_sprintf(w->a, "col%zu", i));
	}
}

static void from(struct walk *w, struct scope *s, json_t *f)
{
	if (!json_is_object(f) || tree_is(f, "type", "EMPTY"))
		return;
	if (tree_is(f, "type", "BASE_TABLE")) {
		base_table(w, s, f);
	} else if (tree_is(f, "type", "SUBQUERY")) {
		struct lineage q = { 0 };

		query_node(w, json_object_get(json_object_get(f, "subquery"), "node"), s, &q);
		rel_of_query(w, s, *tree_str(f, "alias") ? tree_str(f, "alias") : "unnamed_subquery",
			     &q, json_object_get(f, "column_name_alias"));
	} else if (tree_is(f, "type", "JOIN")) {
		join(w, s, f);
	} else if (tree_is(f, "type", "TABLE_FUNCTION")) {
		table_function(w, s, f);
	} else if (tree_is(f, "type", "EXPRESSION_LIST")) {
		values(w, s, f);
	} else {
		struct rel *r = push_rel(w, s, tree_str(f, "alias"));

		r->known = false;
		r->base = lower(w->a, tree_str(f, "type"));
		unknown(w, arena_sprintf(w->a, "FROM %s", tree_str(f, "type")),
			tree_first_location(&w->t, f));
	}
}

static bool excluded(json_t *list, const char *name)
{
	json_t *x;
	size_t i;

	json_array_foreach(list, i, x) {
		/* a qualified name is a list of its parts */
		json_t *last = json_is_array(x) ? json_array_get(x, json_array_size(x) - 1) : x;

		if (json_is_string(last) && strcasecmp(json_string_value(last), name) == 0)
			return true;
	}
	return false;
}

static bool merged(const struct rel *r, const char *name)
{
	for (size_t i = 0; i < r->nmerged; i++)
		if (strcasecmp(r->merged[i], name) == 0)
			return true;
	return false;
}

/* * and t.*: every column of the relations in scope (or of t), EXCLUDE
 * and REPLACE applied; a table whose columns are not known gives one
 * column "*". */
static void star(struct walk *w, const struct scope *s, json_t *e, struct lineage *q)
{
	const char *only = tree_str(e, "relation_name");
	json_t *replace = json_object_get(e, "replace_list");

	if (json_is_true(json_object_get(e, "columns"))) {
		unknown(w, "COLUMNS(...)", tree_location(&w->t, e));
		return;
	}
	for (size_t i = 0; i < s->nrels; i++) {
		const struct rel *r = &s->rels[i];

		if (*only && !rel_named(r, only))
			continue;
		if (!r->known) {
			struct lineage_column *c =
				push_col(w->a, &q->cols, &q->ncols, &q->cols_cap, "*");

			lineage_column_add(w->a, c, r->base, "*", LINEAGE_IDENTITY);
			unknown(w, arena_sprintf(w->a, "* of %s, whose columns are not known", r->base),
				tree_location(&w->t, e));
			continue;
		}
		for (size_t k = 0; k < r->ncols; k++) {
			const char *name = r->cols[k].name;
			struct lineage_column *c;
			json_t *with = NULL, *entry;
			size_t j;

			if (excluded(json_object_get(e, "exclude_list"), name) || (!*only && merged(r, name)))
				continue;
			json_array_foreach(replace, j, entry)
				if (strcasecmp(tree_str(entry, "key"), name) == 0)
					with = json_object_get(entry, "value");
			c = push_col(w->a, &q->cols, &q->ncols, &q->cols_cap, name);
			if (with)
				expr(w, s, with, LINEAGE_TRANSFORMATION, c);
			else
				add_from(w->a, c, &r->cols[k], LINEAGE_IDENTITY);
		}
	}
}

static void select_list(struct walk *w, const struct scope *s, json_t *items, struct lineage *q)
{
	json_t *e;
	size_t i;

	json_array_foreach(items, i, e) {
		struct lineage_column *c;

		if (tree_is(e, "class", "STAR")) {
			star(w, s, e, q);
			continue;
		}
		c = push_col(w->a, &q->cols, &q->ncols, &q->cols_cap, lower(w->a, tree_output_name(e)));
		expr(w, s, e,
		     tree_is(e, "class", "COLUMN_REF") ? LINEAGE_IDENTITY : LINEAGE_TRANSFORMATION, c);
	}
}

static void modifiers(struct walk *w, struct scope *s, json_t *node)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(node, "modifiers"), i, m) {
		json_t *on = json_object_get(m, "distinct_on_targets"), *o;
		size_t k;

		json_array_foreach(json_object_get(m, "orders"), k, o)
			clause_expr(w, s, json_object_get(o, "expression"), LINEAGE_SORT, &s->rows);
		json_array_foreach(on, k, o)
			clause_expr(w, s, o, LINEAGE_GROUP_BY, &s->rows);
		/* plain DISTINCT keeps one of the rows alike in every column */
		if (tree_is(m, "type", "DISTINCT_MODIFIER") && !json_array_size(on))
			for (k = 0; k < s->items->ncols; k++)
				add_from(w->a, &s->rows, &s->items->cols[k], LINEAGE_GROUP_BY);
	}
}

/* A node of the query itself that hit says, a subquery's not looked at. */
static enum tree_seen outside_subqueries(json_t *node, const void *hit)
{
	bool (*const *is)(json_t *) = hit;

	if (tree_is(node, "class", "SUBQUERY"))
		return TREE_SKIP;
	return (*is)(node) ? TREE_FOUND : TREE_GO_ON;
}

/* Whether e, outside the subqueries in it, holds a node that hit says. */
static bool holds(json_t *e, bool (*hit)(json_t *node))
{
	return tree_holds(e, outside_subqueries, &hit);
}

static bool is_aggregate(json_t *e)
{
	return tree_is(e, "class", "FUNCTION") &&
	       refs_aggregate_name(tree_str(e, "function_name")) != NULL;
}

static bool is_window(json_t *e)
{
	return tree_is(e, "class", "WINDOW");
}

static bool is_volatile(json_t *e)
{
	return (tree_is(e, "class", "FUNCTION") && tree_is_volatile(tree_str(e, "function_name"))) ||
	       (tree_is(e, "class", "COLUMN_REF") && tree_is_volatile_keyword(e));
}

/* What a query's modifiers make of its rows: LIMIT picks some, DISTINCT
 * merges them; NULL when neither (ORDER BY alone keeps every row). */
static const char *modifiers_role(json_t *node)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(node, "modifiers"), i, m) {
		if (tree_is(m, "type", "DISTINCT_MODIFIER"))
			return "DISTINCT";
		if (tree_is(m, "type", "LIMIT_MODIFIER") || tree_is(m, "type", "LIMIT_PERCENT_MODIFIER"))
			return "LIMIT";
	}
	return NULL;
}

/* The role a SELECT gives the relations it reads: each output row is one
 * row of its FROM unless it aggregates; a WHERE that changes with each run
 * is judged by none. */
static struct role select_role(struct walk *w, json_t *node)
{
	json_t *items = json_object_get(node, "select_list");
	const char *mod = modifiers_role(node);

	if (holds(json_object_get(node, "where_clause"), is_volatile))
		return enter(w, LINEAGE_EDGE_UNKNOWN, "a WHERE that changes with each run");
	if (json_array_size(json_object_get(node, "group_expressions")))
		return enter(w, LINEAGE_EDGE_AGG, "GROUP BY");
	if (tree_is(node, "aggregate_handling", "FORCE_AGGREGATES"))
		return enter(w, LINEAGE_EDGE_AGG, "GROUP BY ALL");
	if (tree_present(node, "having"))
		return enter(w, LINEAGE_EDGE_AGG, "HAVING");
	if (tree_present(node, "qualify"))
		return enter(w, LINEAGE_EDGE_AGG, "a filter on window functions");
	if (holds(items, is_aggregate))
		return enter(w, LINEAGE_EDGE_AGG, "an aggregate");
	if (holds(items, is_window))
		return enter(w, LINEAGE_EDGE_AGG, "a window function");
	if (mod)
		return enter(w, LINEAGE_EDGE_AGG, mod);
	return w->role;
}

static void select_node(struct walk *w, json_t *node, const struct scope *outer,
			struct lineage *q)
{
	struct scope s = { .outer = outer, .items = q };
	struct role was = select_role(w, node);
	json_t *g;
	size_t i;

	from(w, &s, json_object_get(node, "from_table"));
	select_list(w, &s, json_object_get(node, "select_list"), q);
	expr(w, &s, json_object_get(node, "where_clause"), LINEAGE_FILTER, &s.rows);
	json_array_foreach(json_object_get(node, "group_expressions"), i, g)
		clause_expr(w, &s, g, LINEAGE_GROUP_BY, &s.rows);
	expr(w, &s, json_object_get(node, "having"), LINEAGE_FILTER, &s.rows);
	expr(w, &s, json_object_get(node, "qualify"), LINEAGE_FILTER, &s.rows);
	modifiers(w, &s, node);
	for (i = 0; i < q->ncols; i++)
		add_from(w->a, &q->cols[i], &s.rows, LINEAGE_IDENTITY);
	q->rows = s.rows;
	w->role = was;
}

static bool has_direct(const struct lineage_column *c)
{
	for (size_t i = 0; i < c->ninputs; i++)
		if (lineage_kind_direct(c->inputs[i].kind))
			return true;
	return false;
}

/* A UNION's column one side of which gives values of no column (a
 * constant, count(*)): it holds more than the other side's copies, which
 * are transformations. */
static void union_computed(struct arena *a, struct lineage_column *c)
{
	struct lineage_column was = *c;

	c->inputs = NULL;
	c->ninputs = c->inputs_cap = 0;
	c->index = NULL;
	c->index_cap = 0;
	add_from(a, c, &was, LINEAGE_TRANSFORMATION);
}

/* UNION, EXCEPT, INTERSECT: columns by position (or by name, UNION BY
 * NAME), named by the left side; EXCEPT and INTERSECT keep a left row by
 * all of its columns and the right side's, and without ALL each does
 * away with rows alike in every column; an ORDER BY orders the whole. */
static void set_operation(struct walk *w, json_t *node, const struct scope *outer,
			  struct lineage *q)
{
	struct lineage l = { 0 }, r = { 0 };
	struct scope s = { .items = q };
	bool by_name = tree_is(node, "setop_type", "UNION_BY_NAME");
	bool union_op = by_name || tree_is(node, "setop_type", "UNION");
	bool all = json_is_true(json_object_get(node, "setop_all"));
	const char *mod = modifiers_role(node);
	struct role was = union_op && all ? w->role
					  : enter(w, LINEAGE_EDGE_AGG,
						  arena_sprintf(w->a, "%s%s", tree_str(node, "setop_type"),
								all ? " ALL" : ""));
	bool *computed;

	if (mod)
		enter(w, LINEAGE_EDGE_AGG, mod);
	query_node(w, json_object_get(node, "left"), outer, &l);
	query_node(w, json_object_get(node, "right"), outer, &r);
	w->role = was;
	computed = arena_alloc(w->a, l.ncols + r.ncols + 1);
	memset(computed, 0, l.ncols + r.ncols + 1);
	for (size_t i = 0; i < l.ncols; i++) {
		computed[i] = !has_direct(&l.cols[i]);
		add_from(w->a, push_col(w->a, &q->cols, &q->ncols, &q->cols_cap, l.cols[i].name),
			 &l.cols[i], LINEAGE_IDENTITY);
		if (!union_op)
			add_from(w->a, &s.rows, &l.cols[i], LINEAGE_FILTER);
		if (!all)
			add_from(w->a, &s.rows, &l.cols[i], LINEAGE_GROUP_BY);
	}
	for (size_t i = 0; i < r.ncols; i++) {
		struct lineage_column *c = by_name ? find_col(q->cols, q->ncols, r.cols[i].name)
				      : i < q->ncols ? &q->cols[i]
						     : NULL;

		if (!union_op) {
			add_from(w->a, &s.rows, &r.cols[i], LINEAGE_FILTER);
			continue;
		}
		if (!c)
			c = push_col(w->a, &q->cols, &q->ncols, &q->cols_cap, r.cols[i].name);
		add_from(w->a, c, &r.cols[i], LINEAGE_IDENTITY);
		computed[c - q->cols] |= !has_direct(&r.cols[i]);
		if (!all)
			add_from(w->a, &s.rows, &r.cols[i], LINEAGE_GROUP_BY);
	}
	for (size_t i = 0; union_op && i < q->ncols; i++)
		if (computed[i])
			union_computed(w->a, &q->cols[i]);
	modifiers(w, &s, node);
	for (size_t i = 0; i < q->ncols; i++)
		add_from(w->a, &q->cols[i], &s.rows, LINEAGE_IDENTITY);
	add_from(w->a, &s.rows, &l.rows, LINEAGE_IDENTITY);
	add_from(w->a, &s.rows, &r.rows, LINEAGE_IDENTITY);
	q->rows = s.rows;
}

static void push_ctes(struct walk *w, json_t *node)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(node, "cte_map"), "map"), i, e) {
		struct cte *c = ARENA_PUSH(w->a, &w->ctes, &w->nctes, &w->ctes_cap);

		memset(c, 0, sizeof(*c));
		c->name = tree_str(e, "key");
		c->query = json_object_get(json_object_get(json_object_get(e, "value"), "query"),
					   "node");
	}
}

static void query_node(struct walk *w, json_t *node, const struct scope *outer,
		       struct lineage *q)
{
	size_t saved = w->nctes;

	push_ctes(w, node);
	if (tree_is(node, "type", "SELECT_NODE")) {
		select_node(w, node, outer, q);
	} else if (tree_is(node, "type", "SET_OPERATION_NODE")) {
		set_operation(w, node, outer, q);
	} else if (tree_is(node, "type", "RECURSIVE_CTE_NODE")) {
		struct role was = enter(w, LINEAGE_EDGE_UNKNOWN, "WITH RECURSIVE");

		unknown(w, "WITH RECURSIVE", tree_first_location(&w->t, node));
		set_operation(w, node, outer, q);
		w->role = was;
	} else {
		unknown(w, arena_sprintf(w->a, "a %s", tree_str(node, "type")),
			tree_first_location(&w->t, node));
	}
	w->nctes = saved;
}

void lineage_add_rows(struct arena *a, struct lineage *l, const char *relation,
		      const struct lineage_column *rows)
{
	for (size_t i = 0; i < l->ncols; i++) {
		struct lineage_column *c = &l->cols[i];
		bool named = false;

		for (size_t k = 0; k < c->ninputs && !named; k++)
			named = strcmp(c->inputs[k].relation, relation) == 0;
		if (!named)
			add_from(a, c, rows, LINEAGE_IDENTITY);
	}
	add_from(a, &l->rows, rows, LINEAGE_IDENTITY);
}

int lineage_query(struct arena *a, const char *tree, const char *text, bool unwrap,
		  lineage_columns_fn columns, void *ctx, struct lineage *out)
{
	struct walk w = { .a = a, .columns = columns, .ctx = ctx, .out = out, .edges = out };
	json_t *root, *stmts, *node;

	memset(out, 0, sizeof(*out));
	tree_text_init(&w.t, text);
	/* "no location" is 2^64-1, which jansson's integers cannot hold */
	root = json_loads(tree, JSON_DECODE_INT_AS_REAL, NULL);
	stmts = json_object_get(root, "statements");
	if (json_array_size(stmts) != 1) {
		json_decref(root);
		return SL_E_PARSE;
	}
	node = json_object_get(json_array_get(stmts, 0), "node");
	if (unwrap)
		node = json_object_get(
			json_object_get(json_object_get(node, "from_table"), "subquery"), "node");
	query_node(&w, node, NULL, out);
	json_decref(root);
	return 0;
}
