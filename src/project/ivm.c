/*
 * This file implements the maintenance classifier: one walk over a query's
 * parse tree (DuckDB's JSON, read as refs.c reads it) that notes each
 * construct keeping the query from a cheaper refresh and keeps the worst
 * one, the earliest of its rank. The tree decides; the text serves only for
 * an aggregate's argument as written and for the keyword of a clause the
 * tree gives no place of its own. It must never look at the warehouse or
 * report anything: the caller says what a class means for the model.
 */
#include "project/ivm.h"

#include "core/arena.h"
#include "core/err.h"
#include "project/refs.h"
#include "project/sqltext.h"
#include "project/tree.h"

#include <ctype.h>
#include <jansson.h>
#include <string.h>
#include <strings.h>

/* How far a construct sets the query back. */
enum rank { RANK_BEST, RANK_REGROUP, RANK_FULL };

struct cte {
	const char *name;
	json_t *query;
};

struct walk {
	struct arena *a;
	const char *text;
	size_t len;
	struct tree_text t;
	bool append_only;
	struct ivm_result *out;
	enum rank rank;
	bool grouped; /* the outer query aggregates, groups or is DISTINCT */
	/* the WITH names in scope, innermost last */
	struct cte *ctes;
	size_t nctes, ctes_cap;
};

/* What an expression's aggregates mean where it stands. */
enum agg_use {
	AGG_COLLECT, /* an item of the outer select list: one to maintain */
	AGG_IGNORE,  /* WHERE, GROUP BY, HAVING: the binder's, or regroup already */
	AGG_NESTED,  /* a query under FROM: an aggregate over an aggregate */
};

struct expr_ctx {
	enum agg_use use;
	size_t item;      /* AGG_COLLECT: the select item walked */
	json_t *item_node;
	bool has_agg;
};

static void query_node(struct walk *w, json_t *node, bool outer);






/* Where the nearest of kws starts among the up to max words before off
 * (white space and parentheses between them passed over), or off itself:
 * the tree places a clause's expression, not its keyword. */
static long keyword_back(const struct walk *w, long off, const char *const *kws, int max)
{
	const char *s = w->text;
	long i = off;

	for (int n = 0; n < max && i > 0; n++) {
		long end;

		while (i > 0 && (isspace((unsigned char)s[i - 1]) || s[i - 1] == '(' || s[i - 1] == ')'))
			i--;
		end = i;
		while (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))
			i--;
		if (i == end)
			break;
		for (size_t k = 0; kws[k]; k++)
			if ((size_t)(end - i) == strlen(kws[k]) && strncasecmp(s + i, kws[k], strlen(kws[k])) == 0)
				return i;
	}
	return off;
}

static long keyword_at(const struct walk *w, json_t *expr, const char *kw, int max)
{
	const char *const kws[] = { kw, NULL };

	return keyword_back(w, tree_first_location(&w->t, expr), kws, max);
}

/* Records a construct; the worst rank wins, then the earliest place. */
static void block(struct walk *w, enum rank rank, const char *what, long offset)
{
	struct ivm_result *o = w->out;

	if (rank < w->rank)
		return;
	if (rank == w->rank && o->blocker && (offset < 0 || (o->offset >= 0 && o->offset <= offset)))
		return;
	w->rank = rank;
	o->blocker = what;
	o->offset = offset;
}

static char *upper(struct arena *a, const char *s)
{
	char *p = arena_strdup(a, s);

	for (char *q = p; *q; q++)
		*q = (char)toupper((unsigned char)*q);
	return p;
}

static char *lower(struct arena *a, const char *s)
{
	char *p = arena_strdup(a, s);

	for (char *q = p; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return p;
}




static bool agg_kind(const char *function, size_t nargs, enum ivm_agg_kind *kind)
{
	static const struct {
		const char *name;
		size_t nargs;
		enum ivm_agg_kind kind;
	} kinds[] = {
		{ "count_star", 0, IVM_COUNT_STAR }, { "count", 0, IVM_COUNT_STAR },
		{ "count", 1, IVM_COUNT },	     { "sum", 1, IVM_SUM },
		{ "avg", 1, IVM_AVG },		     { "mean", 1, IVM_AVG },
		{ "min", 1, IVM_MIN },		     { "max", 1, IVM_MAX },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcasecmp(function, kinds[i].name) == 0 && nargs == kinds[i].nargs) {
			*kind = kinds[i].kind;
			return true;
		}
	return false;
}

/* The text between an aggregate's parentheses, trimmed, or NULL when the
 * text does not show them where the tree places the call; *end: just past
 * the closing parenthesis. */
static const char *agg_arg(struct walk *w, json_t *fn, size_t *end)
{
	const char *s = w->text;
	long at = tree_location(&w->t, fn);
	size_t open, close;

	if (at < 0)
		return NULL;
	open = sqltext_skip_space(s, (size_t)at + sqltext_name_len(s, (size_t)at));
	if (s[open] != '(' || !(close = sqltext_close_paren(s, open)))
		return NULL;
	*end = close + 1;
	open = sqltext_skip_space(s, open + 1);
	if (strncasecmp(s + open, "all", 3) == 0 && isspace((unsigned char)s[open + 3]))
		open = sqltext_skip_space(s, open + 3);
	while (close > open && isspace((unsigned char)s[close - 1]))
		close--;
	return close > open ? arena_strndup(w->a, s + open, close - open) : "";
}

/* An aggregate of the outer select list: one counting can keep, or what
 * makes its groups be computed again. */
static void aggregate(struct walk *w, json_t *fn, const struct expr_ctx *ctx)
{
	const char *function = tree_str(fn, "function_name");
	const char *name = refs_aggregate_name(function);
	size_t nargs = json_array_size(json_object_get(fn, "children"));
	json_t *orders = json_object_get(json_object_get(fn, "order_bys"), "orders");
	long at = tree_location(&w->t, fn);
	enum ivm_agg_kind kind;
	struct ivm_agg *agg;
	const char *arg;
	size_t end = 0;

	if (json_is_true(json_object_get(fn, "distinct"))) {
		block(w, RANK_REGROUP, arena_sprintf(w->a, "%s(DISTINCT)", upper(w->a, name)), at);
		return;
	}
	if (tree_present(fn, "filter")) {
		block(w, RANK_REGROUP, "FILTER", keyword_at(w, json_object_get(fn, "filter"), "FILTER", 2));
		return;
	}
	if (json_array_size(orders) > 0) {
		block(w, RANK_REGROUP, arena_sprintf(w->a, "%s(... ORDER BY)", name), at);
		return;
	}
	if (!agg_kind(function, nargs, &kind)) {
		block(w, RANK_REGROUP, arena_sprintf(w->a, "%s()", name), at);
		return;
	}
	if ((kind == IVM_MIN || kind == IVM_MAX) && !w->append_only) {
		block(w, RANK_REGROUP,
		      arena_sprintf(w->a, "%s() over input that updates or deletes rows", name), at);
		return;
	}
	arg = agg_arg(w, fn, &end);
	if (!arg || (kind != IVM_COUNT_STAR && !*arg)) {
		block(w, RANK_REGROUP, arena_sprintf(w->a, "%s() written as sluice cannot read", name),
		      at);
		return;
	}
	agg = ARENA_PUSH(w->a, &w->out->aggs, &w->out->naggs, &w->out->aggs_cap);
	agg->kind = kind;
	agg->arg = kind == IVM_COUNT_STAR ? NULL : arg;
	agg->item = ctx->item;
	agg->bare = fn == ctx->item_node;
	agg->start = (size_t)at;
	agg->end = end;
}

static const char *subquery_name(json_t *sub)
{
	if (tree_is(sub, "subquery_type", "EXISTS") || tree_is(sub, "subquery_type", "NOT_EXISTS"))
		return "EXISTS (subquery)";
	if (tree_is(sub, "subquery_type", "ANY"))
		return "IN (subquery)";
	return "a scalar subquery";
}

/* Walks an expression for what makes it nondeterministic or not a plain
 * function of one row, and for its aggregates. */
static void walk_expr(struct walk *w, json_t *j, struct expr_ctx *ctx)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			walk_expr(w, v, ctx);
		return;
	}
	if (!json_is_object(j))
		return;
	if (tree_is(j, "class", "SUBQUERY")) {
		block(w, RANK_FULL, subquery_name(j), tree_location(&w->t, j));
		return;
	}
	if (tree_is(j, "class", "WINDOW")) {
		block(w, RANK_FULL,
		      arena_sprintf(w->a, "a window function (%s)", lower(w->a, tree_str(j, "function_name"))),
		      tree_location(&w->t, j));
		return;
	}
	if (tree_is(j, "class", "COLUMN_REF") && tree_is_volatile_keyword(j))
		block(w, RANK_FULL, lower(w->a, tree_column_name(j)), tree_location(&w->t, j));
	if (tree_is(j, "class", "FUNCTION")) {
		const char *function = tree_str(j, "function_name");
		const char *agg = refs_aggregate_name(function);

		if (tree_is_volatile(function))
			block(w, RANK_FULL, arena_sprintf(w->a, "%s()", lower(w->a, function)),
			      tree_location(&w->t, j));
		if (agg) {
			ctx->has_agg = true;
			if (ctx->use == AGG_COLLECT)
				aggregate(w, j, ctx);
			else if (ctx->use == AGG_NESTED)
				block(w, RANK_FULL, arena_sprintf(w->a, "%s() in a subquery", agg),
				      tree_location(&w->t, j));
		}
	}
	json_object_foreach(j, key, v)
		walk_expr(w, v, ctx);
}

static void walk_plain(struct walk *w, json_t *j)
{
	struct expr_ctx ctx = { .use = AGG_IGNORE };

	walk_expr(w, j, &ctx);
}

/* Two expressions that are the same but for where they are written and
 * what they are called; a column is the same column however qualified. */
static bool same_expr(json_t *x, json_t *y)
{
	const char *key;
	json_t *v;
	size_t i, n = 0;

	if (json_is_array(x)) {
		if (!json_is_array(y) || json_array_size(x) != json_array_size(y))
			return false;
		json_array_foreach(x, i, v)
			if (!same_expr(v, json_array_get(y, i)))
				return false;
		return true;
	}
	if (!json_is_object(x) || !json_is_object(y))
		return json_equal(x, y);
	if (tree_is(x, "class", "COLUMN_REF") && tree_is(y, "class", "COLUMN_REF"))
		return strcasecmp(tree_column_name(x), tree_column_name(y)) == 0;
	json_object_foreach(x, key, v) {
		if (strcmp(key, "query_location") == 0 || strcmp(key, "alias") == 0)
			continue;
		if (!json_object_get(y, key) || !same_expr(v, json_object_get(y, key)))
			return false;
		n++;
	}
	return n + !!json_object_get(y, "query_location") + !!json_object_get(y, "alias") ==
	       json_object_size(y);
}

static enum tree_seen column_named(json_t *node, const void *name)
{
	return tree_is(node, "class", "COLUMN_REF") &&
			       strcasecmp(tree_column_name(node), (const char *)name) == 0
		       ? TREE_FOUND
		       : TREE_GO_ON;
}

/* Whether a column of that name appears in the expression. */
static bool mentions(json_t *j, const char *name)
{
	return tree_holds(j, column_named, name);
}

/* The select item a GROUP BY expression is shown by, or -1: its position
 * (GROUP BY 1), the same expression, or an alias that is no column of the
 * input (DuckDB groups by the input's column first). */
static long key_item(json_t *g, json_t *items)
{
	size_t n = json_array_size(items), i;
	json_t *it;

	if (tree_is(g, "class", "CONSTANT")) {
		json_t *value = json_object_get(json_object_get(g, "value"), "value");
		double k = json_is_number(value) ? json_number_value(value) : 0;

		return k >= 1 && k <= (double)n && k == (double)(size_t)k ? (long)k - 1 : -1;
	}
	json_array_foreach(items, i, it)
		if (same_expr(it, g))
			return (long)i;
	if (!tree_is(g, "class", "COLUMN_REF") || json_array_size(json_object_get(g, "column_names")) != 1)
		return -1;
	json_array_foreach(items, i, it)
		if (strcasecmp(tree_str(it, "alias"), tree_column_name(g)) == 0 && !mentions(it, tree_column_name(g)))
			return (long)i;
	return -1;
}

static void add_key(struct walk *w, json_t *items, size_t item)
{
	json_t *it = json_array_get(items, item);
	struct ivm_key *k;

	for (size_t i = 0; i < w->out->nkeys; i++)
		if (w->out->keys[i].item == item)
			return;
	k = ARENA_PUSH(w->a, &w->out->keys, &w->out->nkeys, &w->out->keys_cap);
	k->item = item;
	if (*tree_str(it, "alias"))
		k->name = arena_strdup(w->a, tree_str(it, "alias"));
	else if (tree_is(it, "class", "COLUMN_REF"))
		k->name = arena_strdup(w->a, tree_column_name(it));
}

/* The output keys: GROUP BY's expressions as the select list shows them,
 * GROUP BY ALL's items without aggregates, SELECT DISTINCT's every item. */
static void find_keys(struct walk *w, json_t *node, const bool *agg_items, bool distinct)
{
	static const char *const sets_kws[] = { "ROLLUP", "CUBE", "GROUPING", NULL };
	json_t *items = json_object_get(node, "select_list");
	json_t *groups = json_object_get(node, "group_expressions");
	json_t *g;
	size_t i;

	if (json_array_size(json_object_get(node, "group_sets")) > 1)
		block(w, RANK_FULL, "GROUPING SETS, ROLLUP or CUBE",
		      keyword_back(w, tree_first_location(&w->t, groups), sets_kws, 3));
	for (i = 0; i < json_array_size(items); i++)
		if (distinct || (tree_is(node, "aggregate_handling", "FORCE_AGGREGATES") && !agg_items[i]))
			add_key(w, items, i);
	json_array_foreach(groups, i, g) {
		long item = key_item(g, items);

		walk_plain(w, g);
		if (item < 0)
			block(w, RANK_REGROUP, "a GROUP BY key that is not selected",
			      tree_first_location(&w->t, g));
		else
			add_key(w, items, (size_t)item);
	}
}

/* LIMIT, OFFSET and DISTINCT ON pick rows by what the other rows are; an
 * ORDER BY alone means nothing to a table. Returns whether the query is a
 * plain SELECT DISTINCT. */
static bool modifiers(struct walk *w, json_t *node)
{
	static const char *const limit_kws[] = { "LIMIT", "OFFSET", NULL };
	bool distinct = false;
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(node, "modifiers"), i, m) {
		json_t *targets = json_object_get(m, "distinct_on_targets");

		if (tree_is(m, "type", "LIMIT_MODIFIER") || tree_is(m, "type", "LIMIT_PERCENT_MODIFIER")) {
			json_t *at = tree_present(m, "limit") ? json_object_get(m, "limit")
							 : json_object_get(m, "offset");

			block(w, RANK_FULL, tree_present(m, "limit") ? "LIMIT" : "OFFSET",
			      keyword_back(w, tree_first_location(&w->t, at), limit_kws, 1));
		} else if (tree_is(m, "type", "DISTINCT_MODIFIER") && json_array_size(targets) > 0) {
			block(w, RANK_FULL, "DISTINCT ON", keyword_at(w, targets, "DISTINCT", 2));
		} else if (tree_is(m, "type", "DISTINCT_MODIFIER")) {
			distinct = true;
		}
	}
	return distinct;
}

/* A set operation; the first one written is the leftmost of the tree. */
static void set_operation(struct walk *w, json_t *node)
{
	static const char *const kws[] = { "UNION", "EXCEPT", "INTERSECT", NULL };
	char *what;

	while (tree_is(json_object_get(node, "left"), "type", "SET_OPERATION_NODE"))
		node = json_object_get(node, "left");
	/* UNION_BY_NAME is written UNION BY NAME */
	what = arena_sprintf(w->a, "%s%s", tree_str(node, "setop_type"),
			     json_is_true(json_object_get(node, "setop_all")) ? " ALL" : "");
	for (char *p = what; *p; p++)
		*p = *p == '_' ? ' ' : *p;
	block(w, RANK_FULL, what,
	      keyword_back(w, tree_first_location(&w->t, json_object_get(node, "right")), kws, 4));
}

static void push_ctes(struct walk *w, json_t *node)
{
	json_t *map = json_object_get(json_object_get(node, "cte_map"), "map"), *e;
	size_t i;

	json_array_foreach(map, i, e) {
		struct cte *c = ARENA_PUSH(w->a, &w->ctes, &w->nctes, &w->ctes_cap);

		c->name = tree_str(e, "key");
		c->query = json_object_get(json_object_get(json_object_get(e, "value"), "query"),
					   "node");
	}
}

/* Walks the query of the WITH name at index k, which sees the names
 * before its own (as DuckDB reads it), on a scope of its own. */
static void cte_query(struct walk *w, size_t k)
{
	struct cte *ctes = w->ctes;
	size_t n = w->nctes, cap = w->ctes_cap;

	w->ctes = arena_alloc(w->a, (k + 1) * sizeof(*w->ctes));
	memcpy(w->ctes, ctes, k * sizeof(*w->ctes));
	w->nctes = w->ctes_cap = k;
	query_node(w, ctes[k].query, false);
	w->ctes = ctes;
	w->nctes = n;
	w->ctes_cap = cap;
}

/* What FROM reads: one table, looked for through WITH names and subqueries
 * that map rows one by one; anything else is rebuilt whole. outer: the
 * FROM of the outer query. */
static void from_table(struct walk *w, json_t *from, bool outer)
{
	long at = tree_location(&w->t, from);

	if (tree_is(from, "type", "BASE_TABLE")) {
		const char *schema = tree_str(from, "schema_name"), *name = tree_str(from, "table_name");

		if (tree_present(from, "sample"))
			block(w, RANK_FULL, "TABLESAMPLE", at);
		/* FROM 'file.csv' reads a file, which has no changes to follow */
		if (at >= 0 && sqltext_name_len(w->text, (size_t)at) == 0)
			block(w, RANK_FULL, "a file in FROM", at);
		for (size_t k = w->nctes; !*schema && !*tree_str(from, "catalog_name") && k > 0; k--) {
			if (strcasecmp(w->ctes[k - 1].name, name) == 0) {
				cte_query(w, k - 1);
				return;
			}
		}
		w->out->schema = lower(w->a, *schema ? schema : "main");
		w->out->table = lower(w->a, name);
		w->out->table_at = at;
		w->out->direct = outer;
	} else if (tree_is(from, "type", "SUBQUERY")) {
		query_node(w, json_object_get(json_object_get(from, "subquery"), "node"), false);
	} else if (tree_is(from, "type", "JOIN")) {
		block(w, RANK_FULL, "a join",
		      at >= 0 ? at : tree_first_location(&w->t, json_object_get(from, "right")));
	} else if (tree_is(from, "type", "TABLE_FUNCTION")) {
		json_t *fn = json_object_get(from, "function");

		block(w, RANK_FULL,
		      arena_sprintf(w->a, "a table function (%s)", lower(w->a, tree_str(fn, "function_name"))),
		      at);
	} else if (tree_is(from, "type", "EMPTY")) {
		block(w, RANK_FULL, "no input table", -1);
	} else if (tree_is(from, "type", "EXPRESSION_LIST")) {
		block(w, RANK_FULL, "VALUES", keyword_at(w, from, "VALUES", 1));
	} else {
		block(w, RANK_FULL, upper(w->a, tree_str(from, "type")), tree_first_location(&w->t, from));
	}
}

static enum tree_seen column_not_aggregated(json_t *node, const void *ctx)
{
	(void)ctx;
	if (tree_is(node, "class", "COLUMN_REF") && !tree_is_volatile_keyword(node))
		return TREE_FOUND;
	if (tree_is(node, "class", "FUNCTION") && refs_aggregate_name(tree_str(node, "function_name")))
		return TREE_SKIP;
	return TREE_GO_ON;
}

/* Whether a column is named in j other than inside an aggregate's call. */
static bool column_outside_aggregates(json_t *j)
{
	return tree_holds(j, column_not_aggregated, NULL);
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

/* Where the expression of the item s[start, end) ends before its alias,
 * or 0 when the text does not end with it. */
static size_t expr_end(const char *s, size_t start, size_t end, const char *alias)
{
	size_t e = end, n = strlen(alias);

	if (!n)
		return end;
	while (e > start && isspace((unsigned char)s[e - 1]))
		e--;
	if (e >= start + n + 2 && s[e - 1] == '"' && s[e - n - 2] == '"' &&
	    strncmp(s + e - n - 1, alias, n) == 0)
		e -= n + 2;
	else if (e >= start + n && strncasecmp(s + e - n, alias, n) == 0 &&
		 (e - n == start || !ident_char(s[e - n - 1])))
		e -= n;
	else
		return 0;
	while (e > start && isspace((unsigned char)s[e - 1]))
		e--;
	if (e >= start + 2 && strncasecmp(s + e - 2, "as", 2) == 0 &&
	    (e - 2 == start || !ident_char(s[e - 3])))
		e -= 2;
	return e > start ? e : 0;
}

/* The outer select list, item by item, where the text shows it: from its
 * SELECT (the first outside parentheses, past any WITH) and DISTINCT to
 * FROM, split at its commas. */
static void split_items(struct walk *w, json_t *node, bool distinct)
{
	json_t *items = json_object_get(node, "select_list");
	size_t n = json_array_size(items), *ends, start, k;
	long first = tree_first_location(&w->t, json_array_get(items, 0));
	long kw = sqltext_find_word(w->text, 0, "select");

	if (kw < 0 || (first >= 0 && kw > first)) {
		block(w, RANK_FULL, "a select list sluice cannot split", first);
		return;
	}
	start = sqltext_skip_space(w->text, (size_t)kw + 6);
	if (distinct && strncasecmp(w->text + start, "distinct", 8) == 0 &&
	    !ident_char(w->text[start + 8])) {
		w->out->distinct_at = (long)start;
		start += 8;
	} else if (distinct) {
		block(w, RANK_FULL, "a DISTINCT sluice cannot place", first);
	} else {
		start = (size_t)kw + 6;
	}
	ends = arena_alloc(w->a, (n + 1) * sizeof(*ends));
	if (sqltext_split_list(w->text, start, "from", ends, n + 1) != n) {
		block(w, RANK_FULL, "a select list sluice cannot split", first);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct ivm_item *it = ARENA_PUSH(w->a, &w->out->items, &w->out->nitems,
						 &w->out->items_cap);

		it->start = i ? ends[i - 1] + 1 : start;
		it->end = ends[i];
		it->expr_end = expr_end(w->text, it->start, it->end, tree_str(json_array_get(items, i), "alias"));
		for (k = 0; k < w->out->nkeys; k++)
			it->key |= w->out->keys[k].item == i;
	}
}

/* The select list, GROUP BY and HAVING of the outer query. */
static void outer_select(struct walk *w, json_t *node, bool distinct)
{
	json_t *items = json_object_get(node, "select_list"), *it;
	bool *agg_items = arena_alloc(w->a, json_array_size(items) + 1);
	bool grouping = json_array_size(json_object_get(node, "group_expressions")) > 0 ||
			tree_is(node, "aggregate_handling", "FORCE_AGGREGATES");
	bool any = false;
	size_t i;

	json_array_foreach(items, i, it) {
		struct expr_ctx ctx = { .use = AGG_COLLECT, .item = i, .item_node = it };

		walk_expr(w, it, &ctx);
		agg_items[i] = ctx.has_agg;
		any |= ctx.has_agg;
	}
	w->grouped = distinct || any || grouping;
	if (distinct && (any || grouping))
		block(w, RANK_FULL, "DISTINCT over groups", keyword_at(w, items, "DISTINCT", 1));
	find_keys(w, node, agg_items, distinct);
	if (tree_present(node, "having")) {
		long at = keyword_at(w, json_object_get(node, "having"), "HAVING", 1);

		walk_plain(w, json_object_get(node, "having"));
		block(w, RANK_REGROUP, "HAVING", at);
		if (at >= 0 && strncasecmp(w->text + at, "having", 6) == 0)
			w->out->having_end = at + 6;
		else
			block(w, RANK_FULL, "a HAVING sluice cannot place", at);
	}
	split_items(w, node, distinct);
	for (i = 0; i < w->out->nitems; i++)
		if (w->grouped && !distinct && !w->out->items[i].key &&
		    column_outside_aggregates(json_array_get(items, i)))
			block(w, RANK_REGROUP, "a selected expression that is not a GROUP BY key",
			      tree_first_location(&w->t, json_array_get(items, i)));
	for (i = 0; i < w->out->nkeys; i++)
		if (!w->out->keys[i].name)
			block(w, RANK_FULL, "a key without a name (give it an alias)",
			      tree_first_location(&w->t, json_array_get(items, w->out->keys[i].item)));
}

/* A query under FROM must map each row to at most one row. */
static void inner_select(struct walk *w, json_t *node, bool distinct)
{
	struct expr_ctx ctx = { .use = AGG_NESTED };
	json_t *items = json_object_get(node, "select_list");
	json_t *groups = json_object_get(node, "group_expressions");

	walk_expr(w, items, &ctx);
	if (json_array_size(groups) || tree_is(node, "aggregate_handling", "FORCE_AGGREGATES"))
		block(w, RANK_FULL, "GROUP BY in a subquery",
		      json_array_size(groups) ? keyword_at(w, groups, "GROUP", 2) : -1);
	if (tree_present(node, "having"))
		block(w, RANK_FULL, "HAVING in a subquery",
		      keyword_at(w, json_object_get(node, "having"), "HAVING", 1));
	if (distinct)
		block(w, RANK_FULL, "DISTINCT in a subquery", keyword_at(w, items, "DISTINCT", 1));
}

static void query_node(struct walk *w, json_t *node, bool outer)
{
	size_t saved = w->nctes;
	bool distinct;

	if (tree_is(node, "type", "SET_OPERATION_NODE")) {
		set_operation(w, node);
		return;
	}
	if (tree_is(node, "type", "RECURSIVE_CTE_NODE")) {
		block(w, RANK_FULL, "WITH RECURSIVE", keyword_at(w, node, "RECURSIVE", 8));
		return;
	}
	if (!tree_is(node, "type", "SELECT_NODE")) {
		block(w, RANK_FULL, upper(w->a, tree_str(node, "type")), tree_first_location(&w->t, node));
		return;
	}
	push_ctes(w, node);
	distinct = modifiers(w, node);
	if (tree_present(node, "sample"))
		block(w, RANK_FULL, "USING SAMPLE", -1);
	from_table(w, json_object_get(node, "from_table"), outer);
	walk_plain(w, json_object_get(node, "where_clause"));
	walk_plain(w, json_object_get(node, "qualify"));
	if (outer)
		outer_select(w, node, distinct);
	else
		inner_select(w, node, distinct);
	w->nctes = saved;
}

int ivm_classify(struct arena *a, const char *tree, const char *text, bool append_only,
		 struct ivm_result *out)
{
	struct walk w = { .a = a, .text = text, .len = strlen(text), .append_only = append_only,
			  .out = out };
	json_t *root, *stmts;

	tree_text_init(&w.t, text);
	memset(out, 0, sizeof(*out));
	out->offset = out->table_at = out->distinct_at = out->having_end = -1;
	/* "no location" is 2^64-1, which jansson's integers cannot hold */
	root = json_loads(tree, JSON_DECODE_INT_AS_REAL, NULL);
	stmts = json_object_get(root, "statements");
	if (json_array_size(stmts) != 1) {
		json_decref(root);
		return SL_E_PARSE;
	}
	query_node(&w, json_object_get(json_array_get(stmts, 0), "node"), true);
	json_decref(root);
	out->cls = w.rank == RANK_FULL	  ? IVM_FULL
		   : w.rank == RANK_REGROUP ? IVM_REGROUP
		   : w.grouped		    ? IVM_COUNTED
					    : IVM_MAPPED;
	if (out->cls != IVM_COUNTED)
		out->naggs = 0;
	if (out->cls == IVM_FULL || out->cls == IVM_MAPPED)
		out->nkeys = 0;
	if (out->cls == IVM_FULL)
		out->nitems = 0;
	return 0;
}

const char *ivm_class_name(enum ivm_class c)
{
	static const char *const names[] = { "mapped", "counted", "regroup", "full" };

	return names[c];
}
