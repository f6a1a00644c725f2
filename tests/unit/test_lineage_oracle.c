/*
 * Column lineage (src/project/lineage.c, lineage_graph.c) against an
 * oracle that does not read queries: projects generated from a seed (a
 * few source tables of seeded rows, layers of table models whose queries
 * combine projections and expressions, WHERE (IN subqueries among them),
 * inner, outer and NATURAL joins ON and USING, GROUP BY and HAVING,
 * aggregates over all rows, window functions and QUALIFY, CASE, scalar
 * subqueries, UNION (ALL, BY NAME), EXCEPT, INTERSECT, DISTINCT, ORDER BY
 * with LIMIT, *, t.* and * EXCLUDE, CTEs and subqueries in FROM) are
 * built on DuckDB, then rebuilt once per source column and way of
 * changing its values; lineage is read twice, with the sources' columns
 * told and without. Sound: an output column whose values changed, or
 * whose rows changed together with the columns lineage says do not
 * depend on that source column, is a column lineage must name it for
 * (upstream through the models, directly or indirectly). IDENTITY: a
 * column lineage says is a copy of one source column holds only that
 * column's values (all of them when nothing picks rows on the way).
 * Seeds 1-6 by default; SLUICE_SLOW=1 runs 1-300, SLUICE_LINEAGE_SEED=N
 * seed N alone (a failure names its seed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_rng.h"
#include "fixture_project_wh.h"
#include "fixture_wh.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "exec/run.h"
#include "live/batch.h"
#include "project/lineage.h"
#include "project/lineage_graph.h"
#include "project/project.h"
#include "warehouse/wh.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 24
#define MAX_RELS 24
#define MAX_SOURCES 4

enum ty { T_INT, T_STR };

struct gcol {
	const char *name;
	enum ty ty;
};

/* A relation the generator knows: a source table, a model, a CTE or a
 * FROM item, with its columns. */
struct shape {
	struct gcol cols[MAX_COLS];
	size_t n;
};

struct grel {
	const char *name; /* "raw.s0", "gen.m03" */
	struct shape s;
	size_t nrows; /* a source's */
};

struct gen {
	struct arena *a;
	struct rng rng;
	unsigned fresh;
	struct grel rels[MAX_RELS];
	size_t nrels, nsources;
	/* the WITH list of the model being generated */
	struct buf with;
	unsigned nctes;
};

/* A FROM item: its text, the alias its columns are named through, and
 * its columns. */
struct item {
	const char *sql;
	const char *alias;
	struct shape s;
};

/* A SELECT being written: its items and the columns they make. */
struct sel {
	struct buf list;
	struct shape out;
};

static unsigned pick(struct gen *g, unsigned n)
{
	return (unsigned)rng_below(&g->rng, n);
}

static bool chance(struct gen *g, unsigned percent)
{
	return pick(g, 100) < percent;
}

static const char *fresh(struct gen *g, const char *prefix)
{
	return arena_sprintf(g->a, "%s%u", prefix, g->fresh++);
}

static bool has_col(const struct shape *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->cols[i].name, name) == 0)
			return true;
	return false;
}

static void shape_add(struct shape *s, const char *name, enum ty ty)
{
	assert_true(s->n < MAX_COLS);
	s->cols[s->n].name = name;
	s->cols[s->n].ty = ty;
	s->n++;
}

/* Adds "expr AS name" to the select list, name taken as wanted unless
 * the list (or taken) has it already; returns the name. */
static const char *sel_add(struct gen *g, struct sel *q, const char *expr, const char *want,
			   enum ty ty, const struct shape *taken)
{
	const char *name = want && !has_col(&q->out, want) && !(taken && has_col(taken, want))
				   ? want
				   : fresh(g, ty == T_INT ? "n" : "s");

	if (q->out.n >= MAX_COLS)
		return NULL;
	buf_addf(&q->list, "%s%s AS %s", q->out.n ? ", " : "", expr, name);
	shape_add(&q->out, name, ty);
	return name;
}

static const struct gcol *any_col(struct gen *g, const struct shape *s, int ty)
{
	size_t k = 0, idx[MAX_COLS];

	for (size_t i = 0; i < s->n; i++)
		if (ty < 0 || s->cols[i].ty == (enum ty)ty)
			idx[k++] = i;
	return k ? &s->cols[idx[pick(g, (unsigned)k)]] : NULL;
}

static const char *qual(struct gen *g, const struct item *it, const struct gcol *c)
{
	return arena_sprintf(g->a, "%s.%s", it->alias, c->name);
}

/* A subquery in an expression, over a source of its own (alias q...):
 * the biggest value of one of its integer columns among the rows whose
 * other one matches the row at hand (correlated), or the values of one
 * among its rows that pass a filter. The generator draws one value at a
 * time, so that a seed makes the same project whatever the compiler. */
static const char *scalar_subquery(struct gen *g, const char *key)
{
	const struct grel *r = &g->rels[pick(g, (unsigned)g->nsources)];
	const char *q = fresh(g, "q");
	const struct gcol *v = any_col(g, &r->s, T_INT), *k = any_col(g, &r->s, T_INT);

	return arena_sprintf(g->a, "(SELECT max(%s.%s) FROM %s AS %s WHERE %s.%s = %s)", q,
			     v->name, r->name, q, q, k->name, key);
}

static const char *in_subquery(struct gen *g, const char *value)
{
	const struct grel *r = &g->rels[pick(g, (unsigned)g->nsources)];
	const char *q = fresh(g, "q");
	const struct gcol *v = any_col(g, &r->s, T_INT), *f = any_col(g, &r->s, T_INT);

	return arena_sprintf(g->a, "%s IN (SELECT %s.%s FROM %s AS %s WHERE %s.%s > %u)", value, q,
			     v->name, r->name, q, q, f->name, pick(g, 15));
}

/* An expression over the columns of it, of type ty (a column of that type is
 * there, or one of the other to convert). */
static const char *expr_of(struct gen *g, const struct item *it, enum ty ty)
{
	const struct gcol *i1 = any_col(g, &it->s, T_INT), *i2 = any_col(g, &it->s, T_INT);
	const struct gcol *s1 = any_col(g, &it->s, T_STR);

	if (ty == T_INT) {
		if (!i1)
			return arena_sprintf(g->a, "length(%s)", qual(g, it, s1));
		switch (pick(g, 7)) {
		case 0:
			return arena_sprintf(g->a, "%s + %u", qual(g, it, i1), pick(g, 5) + 1);
		case 1:
			return arena_sprintf(g->a, "%s * 2 - %s", qual(g, it, i1), qual(g, it, i2));
		case 2:
			return arena_sprintf(g->a, "coalesce(%s, 0) + 1", qual(g, it, i1));
		case 3: {
			const struct gcol *i3 = any_col(g, &it->s, T_INT);

			return arena_sprintf(g->a, "CASE WHEN %s > %u THEN %s ELSE %s END",
					     qual(g, it, i1), pick(g, 10), qual(g, it, i2),
					     qual(g, it, i3));
		}
		case 4:
			return s1 ? arena_sprintf(g->a, "length(%s)", qual(g, it, s1))
				  : arena_sprintf(g->a, "abs(%s)", qual(g, it, i1));
		case 5:
			return scalar_subquery(g, qual(g, it, i1));
		default:
			return arena_sprintf(g->a, "abs(%s)", qual(g, it, i1));
		}
	}
	if (!s1)
		return arena_sprintf(g->a, "CAST(%s AS VARCHAR)", qual(g, it, i1));
	switch (pick(g, 5)) {
	case 0:
		return arena_sprintf(g->a, "upper(%s)", qual(g, it, s1));
	case 1:
		return i1 ? arena_sprintf(g->a, "%s || '-' || CAST(%s AS VARCHAR)", qual(g, it, s1),
					  qual(g, it, i1))
			  : arena_sprintf(g->a, "%s || '!'", qual(g, it, s1));
	case 2:
		return arena_sprintf(g->a, "coalesce(%s, 'none')", qual(g, it, s1));
	case 3:
		return i1 ? arena_sprintf(g->a, "CASE WHEN %s %% 2 = 0 THEN %s ELSE 'odd' END",
					  qual(g, it, i1), qual(g, it, s1))
			  : arena_sprintf(g->a, "CASE WHEN %s < 'b' THEN %s ELSE 'late' END",
					  qual(g, it, s1), qual(g, it, any_col(g, &it->s, T_STR)));
	default:
		return arena_sprintf(g->a, "lower(%s)", qual(g, it, s1));
	}
}

/* A condition on the columns of it; with a subquery (IN) only where
 * DuckDB takes one: not in an outer join's ON. */
static const char *predicate(struct gen *g, const struct item *it, bool subquery)
{
	const struct gcol *i1 = any_col(g, &it->s, T_INT), *s1 = any_col(g, &it->s, T_STR);

	if (s1 && (!i1 || chance(g, 30)))
		return chance(g, 50) ? arena_sprintf(g->a, "%s LIKE '%%a%%'", qual(g, it, s1))
				     : arena_sprintf(g->a, "%s IS NOT NULL", qual(g, it, s1));
	switch (pick(g, 4)) {
	case 0:
		return arena_sprintf(g->a, "%s > %u", qual(g, it, i1), pick(g, 12));
	case 1:
		return arena_sprintf(g->a, "%s %% 3 <> 0", qual(g, it, i1));
	case 2:
		if (subquery)
			return in_subquery(g, qual(g, it, i1));
		return arena_sprintf(g->a, "%s <> %u", qual(g, it, i1), pick(g, 5));
	default:
		return arena_sprintf(g->a, "%s IS NOT NULL AND %s < %u", qual(g, it, i1),
				     qual(g, it, i1), 5 + pick(g, 20));
	}
}

static void query(struct gen *g, unsigned depth, struct buf *sql, struct shape *out);

/* A relation to read: a source or a model made before, or (depth
 * allowing) a query of its own as a subquery or a WITH name. */
static void from_item(struct gen *g, unsigned depth, struct item *it)
{
	it->alias = fresh(g, "r");
	if (depth && chance(g, 30)) {
		struct buf sub = BUF_INIT;

		query(g, depth - 1, &sub, &it->s);
		if (chance(g, 50)) {
			const char *cte = fresh(g, "w");

			buf_addf(&g->with, "%s%s AS (%s)", g->nctes++ ? ", " : "", cte, sub.buf);
			it->sql = arena_sprintf(g->a, "%s AS %s", cte, it->alias);
		} else {
			it->sql = arena_sprintf(g->a, "(%s) AS %s", sub.buf, it->alias);
		}
		buf_release(&sub);
		return;
	}
	/* the newest relations most often, so that models stack in layers */
	{
		size_t k = g->nrels - 1 - (chance(g, 60) ? pick(g, (unsigned)(g->nrels < 4 ? g->nrels : 4))
							   : pick(g, (unsigned)g->nrels));
		const struct grel *r = &g->rels[k];

		it->sql = arena_sprintf(g->a, "%s AS %s", r->name, it->alias);
		it->s = r->s;
	}
}

/* A join's other side: a source, so that rows do not multiply from
 * layer to layer. */
static void source_item(struct gen *g, struct item *it)
{
	const struct grel *r = &g->rels[pick(g, (unsigned)g->nsources)];

	it->alias = fresh(g, "r");
	it->sql = arena_sprintf(g->a, "%s AS %s", r->name, it->alias);
	it->s = r->s;
}

/* Some columns of it copied, some computed. */
static void some_columns(struct gen *g, const struct item *it, struct sel *q, const struct shape *taken)
{
	unsigned copies = 1 + pick(g, 3), exprs = pick(g, 3);

	for (unsigned i = 0; i < copies; i++) {
		const struct gcol *c = any_col(g, &it->s, -1);

		sel_add(g, q, qual(g, it, c), c->name, c->ty, taken);
	}
	for (unsigned i = 0; i < exprs; i++) {
		enum ty ty = chance(g, 50) ? T_INT : T_STR;

		sel_add(g, q, expr_of(g, it, ty), NULL, ty, taken);
	}
	if (chance(g, 10))
		sel_add(g, q, "7", NULL, T_INT, taken);
}

static void where(struct gen *g, struct buf *sql, const struct item *it, unsigned percent)
{
	if (chance(g, percent))
		buf_addf(sql, " WHERE %s", predicate(g, it, true));
}

/* SELECT [DISTINCT] some columns FROM one item, WHERE in percent of them. */
static void plain_select(struct gen *g, unsigned depth, const char *distinct, unsigned percent,
			 struct buf *sql, struct shape *out)
{
	struct item it;
	struct sel q = { BUF_INIT };

	from_item(g, depth, &it);
	some_columns(g, &it, &q, NULL);
	buf_addf(sql, "SELECT %s%s FROM %s", distinct, q.list.buf, it.sql);
	where(g, sql, &it, percent);
	*out = q.out;
	buf_release(&q.list);
}

static void q_projection(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	plain_select(g, depth, "", 50, sql, out);
}

/* SELECT *, t.*, * EXCLUDE (...), and a computed column beside. */
static void q_star(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	struct item it;
	struct buf list = BUF_INIT;
	const char *dropped = NULL;

	from_item(g, depth, &it);
	*out = (struct shape){ 0 };
	if (it.s.n > 1 && chance(g, 40)) {
		dropped = any_col(g, &it.s, -1)->name;
		buf_addf(&list, "* EXCLUDE (%s)", dropped);
	} else {
		buf_addf(&list, chance(g, 50) ? "*" : "%s.*", it.alias);
	}
	for (size_t i = 0; i < it.s.n; i++)
		if (!dropped || strcmp(it.s.cols[i].name, dropped) != 0)
			shape_add(out, it.s.cols[i].name, it.s.cols[i].ty);
	if (chance(g, 60) && out->n < MAX_COLS) {
		enum ty ty = chance(g, 50) ? T_INT : T_STR;
		const char *name = fresh(g, "e");

		buf_addf(&list, ", %s AS %s", expr_of(g, &it, ty), name);
		shape_add(out, name, ty);
	}
	buf_addf(sql, "SELECT %s FROM %s", list.buf, it.sql);
	where(g, sql, &it, 40);
	buf_release(&list);
}

static const char *const joins[] = { "JOIN", "JOIN", "LEFT JOIN", "LEFT JOIN", "RIGHT JOIN",
				     "FULL JOIN" };

/* A join's two sides and an integer column of each to join on; false
 * when the left side has none. */
static bool join_sides(struct gen *g, unsigned depth, struct item *l, struct item *r,
		       const struct gcol **lk, const struct gcol **rk)
{
	from_item(g, depth, l);
	source_item(g, r);
	if (!(*lk = any_col(g, &l->s, T_INT)))
		return false;
	*rk = any_col(g, &r->s, T_INT);
	return true;
}

static void q_join(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	struct item l, r;
	struct sel q = { BUF_INIT };
	const struct gcol *lk, *rk;

	if (!join_sides(g, depth, &l, &r, &lk, &rk)) {
		q_projection(g, depth, sql, out);
		return;
	}
	some_columns(g, &l, &q, NULL);
	some_columns(g, &r, &q, NULL);
	buf_addf(sql, "SELECT %s FROM %s %s %s ON %s = %s", q.list.buf, l.sql,
		 joins[pick(g, sizeof(joins) / sizeof(joins[0]))], r.sql, qual(g, &l, lk),
		 qual(g, &r, rk));
	if (chance(g, 30))
		buf_addf(sql, " AND %s", predicate(g, &r, false));
	where(g, sql, &l, 30);
	*out = q.out;
	buf_release(&q.list);
}

/* Both sides renamed in subqueries so that they share the join column
 * only, then joined USING it or NATURAL; * shows it once. */
static void q_using(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	struct item l, r;
	struct sel lq = { BUF_INIT }, rq = { BUF_INIT };
	const char *jk = fresh(g, "k"), *la = fresh(g, "r"), *ra = fresh(g, "r");
	const struct gcol *lk, *rk;
	bool natural;

	if (!join_sides(g, depth, &l, &r, &lk, &rk)) {
		q_projection(g, depth, sql, out);
		return;
	}
	sel_add(g, &lq, qual(g, &l, lk), jk, T_INT, NULL);
	some_columns(g, &l, &lq, NULL);
	sel_add(g, &rq, qual(g, &r, rk), jk, T_INT, NULL);
	some_columns(g, &r, &rq, &lq.out);
	natural = chance(g, 30);
	buf_addf(sql, "SELECT * FROM (SELECT %s FROM %s) AS %s %s%s (SELECT %s FROM %s",
		 lq.list.buf, l.sql, la, natural ? "NATURAL " : "",
		 chance(g, 50) ? "LEFT JOIN" : "JOIN", rq.list.buf, r.sql);
	where(g, sql, &r, 30);
	buf_addf(sql, ") AS %s", ra);
	if (!natural)
		buf_addf(sql, " USING (%s)", jk);
	*out = lq.out;
	for (size_t i = 1; i < rq.out.n; i++)
		shape_add(out, rq.out.cols[i].name, rq.out.cols[i].ty);
	buf_release(&lq.list);
	buf_release(&rq.list);
}

static void q_group(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	struct item it;
	struct sel q = { BUF_INIT };
	const struct gcol *key, *v;
	const char *name;

	from_item(g, depth, &it);
	key = any_col(g, &it.s, -1);
	name = sel_add(g, &q, qual(g, &it, key), key->name, key->ty, NULL);
	if ((v = any_col(g, &it.s, T_INT))) {
		sel_add(g, &q, arena_sprintf(g->a, "sum(%s)", qual(g, &it, v)), NULL, T_INT, NULL);
		sel_add(g, &q, arena_sprintf(g->a, "max(%s)", qual(g, &it, any_col(g, &it.s, T_INT))),
			NULL, T_INT, NULL);
	}
	sel_add(g, &q, "count(*)", NULL, T_INT, NULL);
	v = any_col(g, &it.s, -1);
	sel_add(g, &q, arena_sprintf(g->a, "count(%s)", qual(g, &it, v)), NULL, T_INT, NULL);
	v = any_col(g, &it.s, -1);
	sel_add(g, &q, arena_sprintf(g->a, "min(%s)", qual(g, &it, v)), NULL, v->ty, NULL);
	buf_addf(sql, "SELECT %s FROM %s", q.list.buf, it.sql);
	where(g, sql, &it, 40);
	switch (pick(g, 3)) {
	case 0:
		buf_addf(sql, " GROUP BY %s", qual(g, &it, key));
		break;
	case 1:
		buf_addf(sql, " GROUP BY 1");
		break;
	default:
		buf_addf(sql, " GROUP BY %s", name);
	}
	if (chance(g, 30))
		buf_addf(sql, " HAVING count(*) > 1");
	*out = q.out;
	buf_release(&q.list);
}

/* Window functions over a total order: the chosen column, then every
 * column of the rows (rows equal in all of them are alike anyway). */
static void q_window(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	struct item it;
	struct sel q = { BUF_INIT };
	struct buf order = BUF_INIT;
	const struct gcol *part, *o, *v;

	from_item(g, depth, &it);
	part = any_col(g, &it.s, -1);
	o = any_col(g, &it.s, -1);
	buf_addf(&order, "%s DESC", qual(g, &it, o));
	for (size_t i = 0; i < it.s.n; i++)
		buf_addf(&order, ", %s", qual(g, &it, &it.s.cols[i]));
	some_columns(g, &it, &q, NULL);
	sel_add(g, &q,
		arena_sprintf(g->a, "row_number() OVER (PARTITION BY %s ORDER BY %s)",
			      qual(g, &it, part), order.buf),
		NULL, T_INT, NULL);
	if ((v = any_col(g, &it.s, T_INT)))
		sel_add(g, &q,
			arena_sprintf(g->a, "sum(%s) OVER (PARTITION BY %s ORDER BY %s)",
				      qual(g, &it, v), qual(g, &it, part), order.buf),
			NULL, T_INT, NULL);
	buf_addf(sql, "SELECT %s FROM %s", q.list.buf, it.sql);
	where(g, sql, &it, 30);
	if (chance(g, 25))
		buf_addf(sql, " QUALIFY row_number() OVER (PARTITION BY %s ORDER BY %s) <= 2",
			 qual(g, &it, part), order.buf);
	*out = q.out;
	buf_release(&q.list);
	buf_release(&order);
}

/* UNION, EXCEPT or INTERSECT, ALL or not, by position, or UNION BY NAME
 * (the right side's columns in the other order): the right side's
 * columns of the left's types, converted when it has none. */
static void q_setop(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	static const char *const ops[] = { "UNION ALL", "UNION ALL",	    "UNION",
					   "EXCEPT",	"EXCEPT ALL",	    "INTERSECT",
					   "INTERSECT ALL", "UNION ALL BY NAME", "UNION BY NAME" };
	const char *op = ops[pick(g, sizeof(ops) / sizeof(ops[0]))];
	bool by_name = strstr(op, "BY NAME") != NULL;
	struct item l, r;
	struct sel lq = { BUF_INIT };
	struct buf rl = BUF_INIT;

	from_item(g, depth, &l);
	from_item(g, depth, &r);
	some_columns(g, &l, &lq, NULL);
	for (size_t i = 0; i < lq.out.n; i++) {
		size_t k = by_name ? lq.out.n - 1 - i : i;
		const struct gcol *c = any_col(g, &r.s, lq.out.cols[k].ty);
		const char *e = c && chance(g, 70) ? qual(g, &r, c) : expr_of(g, &r, lq.out.cols[k].ty);

		buf_addf(&rl, "%s%s", i ? ", " : "", e);
		if (by_name)
			buf_addf(&rl, " AS %s", lq.out.cols[k].name);
	}
	buf_addf(sql, "SELECT %s FROM %s", lq.list.buf, l.sql);
	where(g, sql, &l, 30);
	buf_addf(sql, " %s SELECT %s FROM %s", op, rl.buf, r.sql);
	where(g, sql, &r, 30);
	*out = lq.out;
	buf_release(&lq.list);
	buf_release(&rl);
}

/* The first rows in a total order: the chosen column, then every column
 * of the rows. */
static void q_limit(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	struct item it;
	struct sel q = { BUF_INIT };

	from_item(g, depth, &it);
	some_columns(g, &it, &q, NULL);
	buf_addf(sql, "SELECT %s FROM %s", q.list.buf, it.sql);
	where(g, sql, &it, 30);
	buf_addf(sql, " ORDER BY %s DESC", qual(g, &it, any_col(g, &it.s, -1)));
	for (size_t i = 0; i < it.s.n; i++)
		buf_addf(sql, ", %s", qual(g, &it, &it.s.cols[i]));
	buf_addf(sql, " LIMIT %u", 2 + pick(g, 6));
	*out = q.out;
	buf_release(&q.list);
}

/* Aggregates over all the rows, and a constant. */
static void q_global(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	struct item it;
	struct sel q = { BUF_INIT };
	const struct gcol *v;

	from_item(g, depth, &it);
	sel_add(g, &q, "count(*)", NULL, T_INT, NULL);
	if ((v = any_col(g, &it.s, T_INT)))
		sel_add(g, &q, arena_sprintf(g->a, "sum(%s)", qual(g, &it, v)), NULL, T_INT, NULL);
	if (chance(g, 50))
		sel_add(g, &q, "'k'", NULL, T_STR, NULL);
	buf_addf(sql, "SELECT %s FROM %s", q.list.buf, it.sql);
	where(g, sql, &it, 30);
	*out = q.out;
	buf_release(&q.list);
}

static void q_distinct(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	plain_select(g, depth, "DISTINCT ", 30, sql, out);
}

static void query(struct gen *g, unsigned depth, struct buf *sql, struct shape *out)
{
	static void (*const kinds[])(struct gen *, unsigned, struct buf *, struct shape *) = {
		q_projection, q_star,  q_join,	   q_using, q_group,
		q_window,     q_setop, q_distinct, q_limit, q_global,
	};

	kinds[pick(g, sizeof(kinds) / sizeof(kinds[0]))](g, depth, sql, out);
}

/* The sources: s<i>(id, k, v, t[, w, u]) with rows drawn from the seed,
 * made in schema orig with each row's number _r. */
static void gen_sources(struct gen *g, struct wh *w)
{
	static const char *const words[] = { "a", "b", "ab", "ba", "c", "abc", "bb" };
	size_t n = 2 + pick(g, 2);

	exec(w, "CREATE SCHEMA IF NOT EXISTS orig; CREATE SCHEMA IF NOT EXISTS raw");
	for (size_t i = 0; i < n; i++) {
		struct grel *r = &g->rels[g->nrels++];
		struct buf sql = BUF_INIT;
		size_t ncols = 4 + pick(g, 3);
		static const char *const names[] = { "id", "k", "v", "t", "w", "u" };
		static const enum ty tys[] = { T_INT, T_INT, T_INT, T_STR, T_INT, T_STR };

		r->name = arena_sprintf(g->a, "raw.s%zu", i);
		r->nrows = 6 + pick(g, 8);
		r->s = (struct shape){ 0 };
		buf_addf(&sql, "CREATE TABLE orig.s%zu (_r INTEGER", i);
		for (size_t c = 0; c < ncols; c++) {
			shape_add(&r->s, arena_sprintf(g->a, "s%zu_%s", i, names[c]), tys[c]);
			buf_addf(&sql, ", %s %s", r->s.cols[c].name,
				 tys[c] == T_INT ? "INTEGER" : "VARCHAR");
		}
		buf_addf(&sql, "); INSERT INTO orig.s%zu VALUES ", i);
		for (size_t row = 0; row < r->nrows; row++) {
			buf_addf(&sql, "%s(%zu", row ? ", " : "", row);
			for (size_t c = 0; c < ncols; c++) {
				if (c == 0)
					buf_addf(&sql, ", %zu", row + 1);
				else if (chance(g, 12))
					buf_addf(&sql, ", NULL");
				else if (tys[c] == T_STR)
					buf_addf(&sql, ", '%s'", words[pick(g, 7)]);
				else
					buf_addf(&sql, ", %u", c == 1 ? pick(g, 5) : pick(g, 20));
			}
			buf_addch(&sql, ')');
		}
		exec(w, sql.buf);
		buf_release(&sql);
	}
	g->nsources = n;
}

/* The models gen.m00 ... each a table. */
static void gen_models(struct gen *g, struct fx *f, size_t n)
{
	/* random rebuilds move every profile: the oracle judges the rows */
	fixture_put(f->root, "sluice.yml", "name: oracle\nanomaly: {level: off}\n");
	for (size_t i = 0; i < n; i++) {
		struct grel *r = &g->rels[g->nrels];
		struct buf body = BUF_INIT;

		buf_reset(&g->with);
		g->nctes = 0;
		query(g, 1 + pick(g, 2), &body, &r->s);
		r->name = arena_sprintf(g->a, "gen.m%02zu", i);
		fixture_put(f->root, arena_sprintf(g->a, "models/gen/m%02zu.sql", i),
			    arena_sprintf(g->a, "@config materialized=table\n%s%s%s%s\n",
					  g->nctes ? "WITH " : "", g->nctes ? g->with.buf : "",
					  g->nctes ? " " : "", body.buf));
		g->nrels++;
		buf_release(&body);
	}
}

/* What one seed's checks found and counted, over all seeds. */
struct tally {
	size_t seeds, models, rebuilds, columns, identities, violations;
	struct buf report; /* the first violations in full */
};

/* A seed's project with its lineage: each source column one bit. */
struct oracle {
	struct gen g;
	struct fx *f;
	uint64_t seed;
	/* the project's lineage with the sources' columns told, and without
	 * (as before the warehouse has them: their * not known); checks use
	 * lg[view] */
	struct lineage_graph lg[2];
	int view;
	/* the source columns each model column ("view:fqn.column") depends on */
	struct memo {
		const char *key;
		uint32_t deps;
	} *memo;
	size_t nmemo, memo_cap;
	struct tally *t;
};

static bool outside(void *ctx, const char *schema, const char *table, const char *const **cols,
		    size_t *n)
{
	struct oracle *o = ctx;
	const char *name = arena_sprintf(o->g.a, "%s.%s", schema, table);

	for (size_t i = 0; i < o->g.nsources; i++) {
		const struct grel *r = &o->g.rels[i];
		const char **v;

		if (strcmp(r->name, name) != 0)
			continue;
		v = arena_alloc(o->g.a, (r->s.n + 1) * sizeof(*v));
		for (size_t c = 0; c < r->s.n; c++)
			v[c] = r->s.cols[c].name;
		*cols = v;
		*n = r->s.n;
		return true;
	}
	return false;
}

/* The bit of source column relation.column, or -1. */
static int source_bit(const struct oracle *o, const char *relation, const char *column)
{
	int bit = 0;

	for (size_t i = 0; i < o->g.nsources; i++)
		for (size_t c = 0; c < o->g.rels[i].s.n; c++, bit++)
			if (strcmp(o->g.rels[i].name, relation) == 0 &&
			    strcmp(o->g.rels[i].s.cols[c].name, column) == 0)
				return bit;
	return -1;
}

static const char *bit_name(const struct oracle *o, int bit)
{
	for (size_t i = 0; i < o->g.nsources; i++) {
		if ((size_t)bit < o->g.rels[i].s.n)
			return arena_sprintf(o->g.a, "%s.%s", o->g.rels[i].name,
					     o->g.rels[i].s.cols[bit].name);
		bit -= (int)o->g.rels[i].s.n;
	}
	return "?";
}

/* The source columns relation.column depends on by lineage, directly or
 * indirectly, upstream through the models. */
static uint32_t deps(struct oracle *o, const char *relation, const char *column)
{
	const struct model *m = lineage_graph_model(&o->lg[o->view], relation);
	const struct lineage_column *c;
	const char *key;
	uint32_t mask = 0;
	int bit;

	if (!m)
		return (bit = source_bit(o, relation, column)) < 0 ? 0 : 1u << bit;
	key = arena_sprintf(o->g.a, "%d:%s.%s", o->view, m->fqn, column);
	for (size_t i = 0; i < o->nmemo; i++)
		if (strcmp(o->memo[i].key, key) == 0)
			return o->memo[i].deps;
	if ((c = lineage_graph_column(&o->lg[o->view], m, column)))
		for (size_t i = 0; i < c->ninputs; i++)
			mask |= deps(o, c->inputs[i].relation, c->inputs[i].column);
	*ARENA_PUSH(o->g.a, &o->memo, &o->nmemo, &o->memo_cap) = (struct memo){ key, mask };
	return mask;
}

/* The source column relation.column is a copy of through IDENTITY steps
 * alone (its bit), else -1; *picks whether a step on the way also has
 * inputs that pick its rows. */
static int identity_of(struct oracle *o, const char *relation, const char *column, bool *picks)
{
	const struct model *m = lineage_graph_model(&o->lg[o->view], relation);
	const struct lineage_column *c;
	const struct lineage_input *direct = NULL;

	if (!m)
		return source_bit(o, relation, column);
	if (!(c = lineage_graph_column(&o->lg[o->view], m, column)))
		return -1;
	for (size_t i = 0; i < c->ninputs; i++) {
		if (!lineage_kind_direct(c->inputs[i].kind)) {
			*picks = true;
			continue;
		}
		if (direct || c->inputs[i].kind != LINEAGE_IDENTITY)
			return -1;
		direct = &c->inputs[i];
	}
	return direct ? identity_of(o, direct->relation, direct->column, picks) : -1;
}

/* Column col of model m as lineage gives it: its inputs, then the source
 * columns it depends on. */
static const char *lineage_text(struct oracle *o, const struct model *m, const char *col)
{
	const struct lineage_column *c = lineage_graph_column(&o->lg[o->view], m, col);
	uint32_t mask = deps(o, m->fqn, col);
	struct buf b = BUF_INIT;
	const char *s;

	if (!c)
		buf_adds(&b, "(no such column)");
	for (size_t i = 0; c && i < c->ninputs; i++)
		buf_addf(&b, "%s%s %s.%s", i ? ", " : "", lineage_kind_name(c->inputs[i].kind),
			 c->inputs[i].relation, c->inputs[i].column);
	buf_adds(&b, "; sources:");
	for (int bit = 0; bit < 32; bit++)
		if (mask & (1u << bit))
			buf_addf(&b, " %s", bit_name(o, bit));
	s = arena_strdup(o->g.a, b.buf);
	buf_release(&b);
	return s;
}

static void violation(struct oracle *o, const struct model *m, const char *what)
{
	struct tally *t = o->t;

	if (t->violations++ < 12)
		buf_addf(&t->report, "seed %llu%s: %s\n  query of %s: %s\n",
			 (unsigned long long)o->seed,
			 o->view ? " (the sources' columns not known)" : "", what, m->fqn, m->body);
}

/* The ways a source column's values change: all of them, or some rows'
 * (NULLs among them). */
static const char *perturbed(struct oracle *o, const struct gcol *c, int way)
{
	if (way == 0)
		return c->ty == T_INT ? arena_sprintf(o->g.a, "%s + 1", c->name)
				      : arena_sprintf(o->g.a, "%s || 'x'", c->name);
	return c->ty == T_INT
		       ? arena_sprintf(o->g.a,
				       "CASE WHEN _r %% 3 <> 1 THEN %s WHEN %s IS NULL THEN 7 "
				       "WHEN %s %% 2 = 0 THEN NULL ELSE %s * 3 - 4 END",
				       c->name, c->name, c->name, c->name)
		       : arena_sprintf(o->g.a,
				       "CASE WHEN _r %% 3 <> 1 THEN %s WHEN %s IS NULL THEN 'n' "
				       "ELSE 'z' || %s END",
				       c->name, c->name, c->name);
}

static const char *way_name(int way)
{
	return way == 0 ? "every row's value changed" : "some rows' values changed";
}

/* The sources as generated, but for source column bit (-1: none)
 * changed the given way; then every model built anew. */
static void build(struct oracle *o, int bit, int way)
{
	struct run_opts opts = { .env = "", .full_refresh = true };
	struct run_report rep;
	const char **rel;
	size_t n;
	int b = 0;

	for (size_t i = 0; i < o->g.nsources; i++) {
		const struct grel *r = &o->g.rels[i];
		struct buf sql = BUF_INIT;

		buf_addf(&sql, "CREATE OR REPLACE TABLE %s AS SELECT * EXCLUDE (_r)", r->name);
		for (size_t c = 0; c < r->s.n; c++, b++)
			if (b == bit)
				buf_addf(&sql, " REPLACE (%s AS %s)", perturbed(o, &r->s.cols[c], way),
					 r->s.cols[c].name);
		buf_addf(&sql, " FROM orig.s%zu", i);
		exec(o->f->w, sql.buf);
		buf_release(&sql);
	}
	if (wh_relation_list(o->f->w, o->g.a, &rel, &n, &o->f->err))
		fail_msg("%s", o->f->err.msg);
	if (live_batch_run(o->g.a, o->f->p, o->f->w, rel, n, &opts, &rep, &o->f->err))
		fail_msg("seed %llu: run: %s", (unsigned long long)o->seed, o->f->err.msg);
	if (rep.failed || rep.ok != o->f->p->nmodels) {
		for (size_t i = 0; i < rep.n; i++)
			if (rep.items[i].message)
				fprintf(stderr, "%s: %s\n", rep.items[i].m->fqn, rep.items[i].message);
		fail_msg("seed %llu: %zu of %zu models built", (unsigned long long)o->seed, rep.ok,
			 o->f->p->nmodels);
	}
	run_report_free(&rep);
	o->t->rebuilds++;
}

/* A model's rows as the warehouse made them, each value as text (NULL
 * for SQL NULL). */
struct rows {
	const char **names;
	const char **v; /* row by row */
	size_t ncols, nrows;
};

/* Model m's rows into out, its strings in a. */
static void fetch(struct oracle *o, struct arena *a, const struct model *m, struct rows *out)
{
	struct wh_result *r;

	if (wh_query(o->f->w, arena_sprintf(a, "SELECT * FROM %s", m->fqn), &r, &o->f->err))
		fail_msg("%s", o->f->err.msg);
	out->ncols = wh_result_ncols(r);
	out->nrows = wh_result_nrows(r);
	out->names = arena_alloc(a, (out->ncols + 1) * sizeof(*out->names));
	out->v = arena_alloc(a, (out->ncols * out->nrows + 1) * sizeof(*out->v));
	for (size_t c = 0; c < out->ncols; c++)
		out->names[c] = arena_strdup(a, wh_result_colname(r, c));
	for (size_t i = 0; i < out->nrows; i++)
		for (size_t c = 0; c < out->ncols; c++) {
			const char *v = wh_result_value(r, i, c);

			out->v[i * out->ncols + c] = v ? arena_strdup(a, v) : NULL;
		}
	wh_result_free(r);
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Whether the rows of t and u projected on the columns use marks differ
 * as multisets. */
static bool differ(struct arena *a, const struct rows *t, const struct rows *u, const bool *use)
{
	const struct rows *both[2] = { t, u };
	const char **keys[2];

	if (t->nrows != u->nrows)
		return true;
	for (size_t k = 0; k < 2; k++) {
		keys[k] = arena_alloc(a, (t->nrows + 1) * sizeof(*keys[k]));
		for (size_t i = 0; i < t->nrows; i++) {
			struct buf b = BUF_INIT;

			for (size_t c = 0; c < t->ncols; c++) {
				const char *v = both[k]->v[i * t->ncols + c];

				if (use[c])
					buf_addf(&b, "%s\x1f", v ? v : "\x01");
			}
			keys[k][i] = arena_strdup(a, b.len ? b.buf : "");
			buf_release(&b);
		}
		qsort(keys[k], t->nrows, sizeof(*keys[k]), cmp_str);
	}
	for (size_t i = 0; i < t->nrows; i++)
		if (strcmp(keys[0][i], keys[1][i]) != 0)
			return true;
	return false;
}

/* After source column bit changed: every column whose values changed,
 * and the rows of those lineage says do not depend on it, must be
 * unchanged unless lineage names it. */
static void check_sound(struct oracle *o, const struct rows *base, int bit, int way)
{
	struct arena *scratch = arena_new(NULL);

	for (size_t k = 0; k < o->f->p->nmodels; k++) {
		const struct model *m = o->f->p->models[k];
		struct rows now;
		struct buf free_cols = BUF_INIT;
		bool *use, *free_use;

		fetch(o, scratch, m, &now);
		assert_int_equal(now.ncols, base[k].ncols);
		use = arena_alloc(scratch, now.ncols + 1);
		free_use = arena_alloc(scratch, now.ncols + 1);
		for (size_t c = 0; c < now.ncols; c++) {
			bool named = deps(o, m->fqn, now.names[c]) & (1u << bit);

			memset(use, 0, now.ncols);
			use[c] = true;
			free_use[c] = !named;
			if (!named)
				buf_addf(&free_cols, "%s%s", free_cols.len ? ", " : "", now.names[c]);
			o->t->columns++;
			if (!named && differ(scratch, &base[k], &now, use))
				violation(o, m,
					  arena_sprintf(o->g.a,
							"%s.%s changed when %s did (%s), lineage: %s",
							m->fqn, now.names[c], bit_name(o, bit),
							way_name(way),
							lineage_text(o, m, now.names[c])));
		}
		if (free_cols.len && differ(scratch, &base[k], &now, free_use))
			violation(o, m,
				  arena_sprintf(o->g.a,
						"the rows of %s on (%s), which lineage says do not "
						"depend on %s, changed when it did (%s)",
						m->fqn, free_cols.buf, bit_name(o, bit), way_name(way)));
		buf_release(&free_cols);
		arena_reset(scratch);
	}
	arena_free(scratch);
}

/* On the baseline: a column lineage says is a copy of one source column
 * holds no other value (but NULL, which an outer join adds), and all of
 * its values when no step on the way picks rows. */
static void check_identity(struct oracle *o)
{
	for (size_t k = 0; k < o->f->p->nmodels; k++) {
		const struct model *m = o->f->p->models[k];
		struct rows t;

		fetch(o, o->g.a, m, &t);
		for (size_t i = 0; i < t.ncols; i++) {
			bool picks = false;
			int bit = identity_of(o, m->fqn, t.names[i], &picks);
			const char *src, *col;
			int64_t extra, missing = 0;

			if (bit < 0)
				continue;
			o->t->identities++;
			src = bit_name(o, bit);
			col = strrchr(src, '.') + 1;
			src = arena_strndup(o->g.a, src, (size_t)(col - 1 - src));
			extra = query_int(o->f->w,
					  arena_sprintf(o->g.a,
							"SELECT count(*) FROM (SELECT %s FROM %s WHERE %s "
							"IS NOT NULL EXCEPT SELECT %s FROM %s)",
							t.names[i], m->fqn, t.names[i], col, src));
			if (!picks)
				missing = query_int(
					o->f->w, arena_sprintf(o->g.a,
							       "SELECT count(*) FROM (SELECT %s FROM %s "
							       "EXCEPT SELECT %s FROM %s)",
							       col, src, t.names[i], m->fqn));
			if (extra || missing)
				violation(o, m,
					  arena_sprintf(o->g.a,
							"%s.%s is IDENTITY of %s.%s by lineage, but "
							"has %lld values it lacks and lacks %lld of "
							"its values; lineage: %s",
							m->fqn, t.names[i], src, col, (long long)extra,
							(long long)missing, lineage_text(o, m, t.names[i])));
		}
	}
}

static void run_seed(uint64_t seed, struct tally *t)
{
	struct oracle o = { .seed = seed, .t = t };
	struct rows *base;
	size_t nbits = 0;

	o.f = fx_new("lineage-oracle");
	o.g.a = o.f->a;
	o.g.rng.s = seed;
	buf_init(&o.g.with, 256);
	if (fixture_open_tiny(&o.f->w))
		fail_msg("seed %llu: no warehouse", (unsigned long long)seed);
	gen_sources(&o.g, o.f->w);
	gen_models(&o.g, o.f, 5 + pick(&o.g, 11));
	o.f->p = fixture_load(o.f->a, o.f->root);
	project_validate(o.f->p, NULL, 0);
	if (diag_has_errors(&o.f->p->diags)) {
		diag_print(&o.f->p->diags, stderr);
		fail_msg("seed %llu: the generated project has errors", (unsigned long long)seed);
	}
	lineage_graph_build(o.f->a, o.f->p, NULL, outside, &o, &o.lg[0]);
	lineage_graph_build(o.f->a, o.f->p, NULL, NULL, NULL, &o.lg[1]);

	build(&o, -1, 0);
	base = arena_alloc(o.f->a, (o.f->p->nmodels + 1) * sizeof(*base));
	for (size_t k = 0; k < o.f->p->nmodels; k++)
		fetch(&o, o.f->a, o.f->p->models[k], &base[k]);
	for (o.view = 0; o.view < 2; o.view++)
		check_identity(&o);
	for (size_t i = 0; i < o.g.nsources; i++)
		nbits += o.g.rels[i].s.n;
	for (int bit = 0; bit < (int)nbits; bit++)
		for (int way = 0; way < 2; way++) {
			build(&o, bit, way);
			for (o.view = 0; o.view < 2; o.view++)
				check_sound(&o, base, bit, way);
		}
	t->seeds++;
	t->models += o.f->p->nmodels;
	buf_release(&o.g.with);
	fx_free(o.f);
}

static void test_lineage_against_rebuilds(void **state)
{
	struct tally t = { .report = BUF_INIT };
	bool slow = getenv("SLUICE_SLOW") && *getenv("SLUICE_SLOW") == '1';
	const char *one = getenv("SLUICE_LINEAGE_SEED");
	uint64_t first = 1, last = slow ? 300 : 6;

	(void)state;
	if (one)
		first = last = strtoull(one, NULL, 10);
	for (uint64_t seed = first; seed <= last; seed++)
		run_seed(seed, &t);
	printf("lineage oracle: %zu seeds, %zu models, %zu builds, %zu column checks, "
	       "%zu identity checks, %zu violations\n",
	       t.seeds, t.models, t.rebuilds, t.columns, t.identities, t.violations);
	if (t.violations) {
		fputs(t.report.buf, stderr);
		fail_msg("%zu violations of lineage (the first above)", t.violations);
	}
	buf_release(&t.report);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lineage_against_rebuilds),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
