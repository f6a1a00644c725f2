/*
 * This file implements the replay closure. An anchor is judged by its
 * typed lineage edges: every edge from the source up to it carries rows
 * one for one (row), it looks up no input that changes (side edges only
 * to inputs that do not), it passes the source's boundary columns
 * through unchanged (identity, and the time too for a start time), and
 * it does not set replay_anchor=never. A model the closure reads that is
 * no anchor is rebuilt, and the walk goes on from what it reads.
 */
#include "replay/closure.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "project/bounds.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "project/lineage.h"
#include "project/project.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Deep enough for any real chain; bounds a walk over a broken graph. */
#define WALK_DEPTH 64

/* The declared source whose table is relation ("schema.name"), or NULL. */
static const struct source_cfg *source_at(const struct project *p, const char *relation)
{
	for (size_t i = 0; i < p->cfg.nsources; i++) {
		char table[256];

		inputs_source_table(&p->cfg.sources[i], table, sizeof(table));
		if (strcasecmp(table, relation) == 0)
			return &p->cfg.sources[i];
	}
	return NULL;
}

static const char *ref_relation(struct arena *a, const struct model_ref *r)
{
	return arena_sprintf(a, "%s.%s", r->schema, r->name);
}

/* Calls fn for each relation m reads, an ephemeral's own reads in its
 * place (its query is inlined into m's). */
typedef void (*read_fn)(void *ctx, const struct model *m, const struct model_ref *r,
			const char *relation);
static void each_read(struct arena *a, const struct model *m, const struct model *reader,
		      read_fn fn, void *ctx, int depth)
{
	for (size_t i = 0; i < m->nrefs && depth < WALK_DEPTH; i++) {
		const struct model_ref *r = &m->refs[i];

		if (r->changes_of)
			continue;
		if (r->target && r->target->mat == MAT_EPHEMERAL)
			each_read(a, r->target, reader, fn, ctx, depth + 1);
		else
			fn(ctx, reader, r, ref_relation(a, r));
	}
}

/* The sources whose rows reach relation, through the models it reads. */
struct behind {
	const struct project *p;
	struct arena *a;
	const struct source_cfg **v;
	size_t n, cap;
	int depth;
};

static void behind_add(struct behind *b, const char *relation);

static void behind_read(void *ctx, const struct model *m, const struct model_ref *r,
			const char *relation)
{
	(void)m;
	(void)r;
	behind_add(ctx, relation);
}

static void behind_add(struct behind *b, const char *relation)
{
	const struct source_cfg *s = source_at(b->p, relation);
	const struct model *m;

	if (s) {
		for (size_t i = 0; i < b->n; i++)
			if (b->v[i] == s)
				return;
		*ARENA_PUSH(b->a, &b->v, &b->n, &b->cap) = s;
		return;
	}
	m = project_find_model(b->p, relation);
	if (!m || b->depth >= WALK_DEPTH)
		return;
	b->depth++;
	each_read(b->a, m, m, behind_read, b, 0);
	b->depth--;
}

/* Whether column of relation is, one for one, column want of source
 * table src: through identity steps of the models between. */
static bool traces_to(const struct lineage_graph *g, const char *relation, const char *column,
		      const char *src, const char *want, int depth)
{
	const struct model *m;
	const struct lineage_column *c;

	if (strcasecmp(relation, src) == 0)
		return strcasecmp(column, want) == 0;
	m = lineage_graph_model(g, relation);
	if (!m || depth >= WALK_DEPTH || !(c = lineage_graph_column(g, m, column)))
		return false;
	for (size_t i = 0; i < c->ninputs; i++)
		if (c->inputs[i].kind == LINEAGE_IDENTITY &&
		    traces_to(g, c->inputs[i].relation, c->inputs[i].column, src, want, depth + 1))
			return true;
	return false;
}

/* The column of model m that is src's column want, or NULL. */
static const char *passed_as(const struct lineage_graph *g, const struct model *m,
			     const char *src, const char *want)
{
	const char *const *names;
	size_t n;
	bool open;

	if (traces_to(g, m->fqn, want, src, want, 0))
		return want;
	if (!lineage_graph_names(g, m, &names, &n, &open))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], "*") != 0 && traces_to(g, m->fqn, names[i], src, want, 0))
			return names[i];
	return NULL;
}

/* Whether every row of m is one row of what it reads, all the way down,
 * and it looks up nothing that changes; *why says what breaks it. */
static bool rows_one_for_one(struct arena *a, const struct lineage_graph *g,
			     const struct model *m, const char **why, int depth)
{
	const struct lineage *l = g->of[m->order];

	if (m->mat == MAT_SEED)
		return true;
	if (!l || depth >= WALK_DEPTH) {
		*why = arena_sprintf(a, "the lineage of %s is not known", m->fqn);
		return false;
	}
	for (size_t i = 0; i < l->nedges; i++) {
		const struct lineage_edge *e = &l->edges[i];
		const struct model *u = lineage_graph_model(g, e->relation);

		/* a seed changes with the project, not with the stream */
		if (e->type == LINEAGE_EDGE_SIDE &&
		    ((u && u->mat == MAT_SEED) || !lineage_graph_mutable(g, e->relation)))
			continue;
		if (e->type == LINEAGE_EDGE_SIDE) {
			*why = arena_sprintf(a, "%s looks up %s, which changes", m->fqn, e->relation);
			return false;
		}
		if (e->type != LINEAGE_EDGE_ROW) {
			*why = arena_sprintf(a, "%s reads %s as %s (%s)", m->fqn, e->relation,
					     lineage_edge_name(e->type), e->why ? e->why : "?");
			return false;
		}
		if (u && !rows_one_for_one(a, g, u, why, depth + 1))
			return false;
	}
	return true;
}

struct walk {
	struct arena *a;
	struct project *p;
	const struct lineage_graph *g;
	const char *start;
	struct replay_closure *c;
	bool changed;
	struct sl_err *err;
	int rc;
};

/* Whether m may be an anchor of the sources behind it; the column a start
 * time cuts on into *time, else *why says why not. */
static bool anchor_ok(struct walk *w, const struct model *m, const struct behind *b,
		      const char **time, const char **why)
{
	const struct model_setting *never = model_setting_get(m, "replay_anchor");

	*time = NULL;
	if (never && strcmp(never->value, "never") == 0) {
		*why = arena_sprintf(w->a, "%s sets replay_anchor=never", m->fqn);
		return false;
	}
	if (m->temporal) {
		*why = arena_sprintf(w->a, "%s is built window by window", m->fqn);
		return false;
	}
	if (!rows_one_for_one(w->a, w->g, m, why, 0))
		return false;
	for (size_t i = 0; i < b->n; i++) {
		struct source_bounds sb;
		char src[256];
		const char *need[4], *t;

		if (source_bounds_of(b->v[i], &sb))
			continue;
		inputs_source_table(b->v[i], src, sizeof(src));
		need[0] = sb.value;
		need[1] = sb.part;
		need[2] = sb.part_of;
		need[3] = w->start ? sb.time : NULL;
		for (size_t k = 0; k < 4; k++) {
			if (!need[k] || passed_as(w->g, m, src, need[k]))
				continue;
			*why = arena_sprintf(w->a, "%s does not pass %s's %s through", m->fqn,
					     b->v[i]->name, need[k]);
			return false;
		}
		t = w->start && sb.time ? passed_as(w->g, m, src, sb.time) : NULL;
		if (t && *time && strcasecmp(t, *time) != 0) {
			*why = arena_sprintf(w->a, "%s passes its sources' times as two columns",
					     m->fqn);
			return false;
		}
		*time = t ? t : *time;
	}
	return true;
}

static void rebuild(struct walk *w, const struct model *m, const char *why)
{
	if (w->c->rebuild[m->order])
		return;
	w->c->rebuild[m->order] = true;
	w->c->why[m->order] = why;
	w->c->nrebuild++;
	w->changed = true;
}

/* Every model that reads one the closure rebuilds is rebuilt too. */
static void add_readers(struct walk *w)
{
	for (size_t i = 0; i < w->p->nmodels; i++) {
		const struct model *m = w->p->models[i];

		for (size_t k = 0; k < m->ndeps && !w->c->rebuild[i]; k++)
			if (m->deps[k]->mat != MAT_EPHEMERAL && w->c->rebuild[m->deps[k]->order])
				rebuild(w, m, arena_sprintf(w->a, "reads %s", m->deps[k]->fqn));
	}
}

/* A model the closure reads: rebuilt when it carries history but is no
 * anchor. */
static void judge_read(void *ctx, const struct model *reader, const struct model_ref *r,
		       const char *relation)
{
	struct walk *w = ctx;
	struct behind b = { .p = w->p, .a = w->a };
	const struct model *m = r->target;
	const char *time, *why;

	if (!m || w->c->rebuild[m->order])
		return;
	behind_add(&b, relation);
	if (b.n && !anchor_ok(w, m, &b, &time, &why))
		rebuild(w, m, arena_sprintf(w->a, "between %s and its anchor: %s", reader->fqn, why));
}

static void anchor_add(struct walk *w, const char *relation, const struct model *m,
		       const struct source_cfg *s, const char *time)
{
	struct replay_closure *c = w->c;
	struct replay_anchor *an;
	struct render_read *rd;
	struct buf q = BUF_INIT;
	const char *dot = strchr(relation, '.');

	for (size_t i = 0; i < c->nanchors; i++)
		if (strcasecmp(c->anchors[i].relation, relation) == 0)
			return;
	an = ARENA_PUSH(w->a, &c->anchors, &c->nanchors, &c->anchors_cap);
	*an = (struct replay_anchor){ .relation = relation, .model = m, .source = s, .time = time };
	if (!w->start || w->rc)
		return;
	if (!time || !dot) {
		w->rc = sl_err_set(w->err, SL_E_USAGE,
				   "--start-time needs a time on %s, and %s has none%s", relation,
				   s ? s->name : relation,
				   s ? "\n  hint: declare the source's event_time, or replay without "
				       "--start-time"
				     : "\n  hint: declare it as a source with its times, or replay "
				       "without --start-time");
		return;
	}
	buf_adds(&q, "SELECT * FROM ");
	wh_sql_qualified(&q, arena_strndup(w->a, relation, (size_t)(dot - relation)), dot + 1);
	buf_adds(&q, " WHERE ");
	wh_sql_ident(&q, time);
	buf_addf(&q, " >= TIMESTAMP '%s'", w->start);
	rd = ARENA_PUSH(w->a, &c->reads, &c->nreads, &c->reads_cap);
	*rd = (struct render_read){ .relation = relation, .query = arena_strdup(w->a, q.buf) };
	buf_release(&q);
}

/* What the closure reads, once it is whole: its anchors, and the
 * sources its models read themselves. */
static void collect_read(void *ctx, const struct model *reader, const struct model_ref *r,
			 const char *relation)
{
	struct walk *w = ctx;
	const struct source_cfg *s = source_at(w->p, relation);
	struct behind b = { .p = w->p, .a = w->a };
	const struct model *m = r->target;
	const char *time = NULL, *why;
	struct replay_direct *d;

	if (s) {
		struct source_bounds sb;

		anchor_add(w, relation, NULL, s, source_bounds_of(s, &sb) ? NULL : sb.time);
		d = ARENA_PUSH(w->a, &w->c->direct, &w->c->ndirect, &w->c->direct_cap);
		*d = (struct replay_direct){ .m = reader, .source = s };
		return;
	}
	if (!m && strncasecmp(relation, "landing.", 8) == 0) {
		anchor_add(w, relation, NULL, NULL, NULL);
		return;
	}
	if (!m || w->c->rebuild[m->order])
		return;
	behind_add(&b, relation);
	if (b.n && anchor_ok(w, m, &b, &time, &why))
		anchor_add(w, relation, m, b.v[0], time);
}

struct own_sources {
	const struct project *p;
	struct arena *a;
	const struct source_cfg **v;
	size_t n, cap;
};

static void own_source(void *ctx, const struct model *m, const struct model_ref *r,
		       const char *relation)
{
	struct own_sources *o = ctx;
	const struct source_cfg *s = source_at(o->p, relation);

	(void)m;
	(void)r;
	for (size_t i = 0; s && i < o->n; i++)
		if (o->v[i] == s)
			return;
	if (s)
		*ARENA_PUSH(o->a, &o->v, &o->n, &o->cap) = s;
}

size_t replay_sources_read(struct arena *a, const struct project *p, const struct model *m,
			   const struct source_cfg ***out)
{
	struct own_sources o = { .p = p, .a = a };

	each_read(a, m, m, own_source, &o, 0);
	*out = o.v;
	return o.n;
}

static void walk_reads(struct walk *w, read_fn fn)
{
	for (size_t i = 0; i < w->p->nmodels; i++)
		if (w->c->rebuild[i])
			each_read(w->a, w->p->models[i], w->p->models[i], fn, w, 0);
}

int replay_closure_make(struct arena *a, struct project *p, const struct lineage_graph *g,
			const char *selector, const char *start, struct replay_closure *out,
			struct sl_err *err)
{
	struct walk w = { .a = a, .p = p, .g = g, .start = start, .c = out, .err = err };
	int rc;

	*out = (struct replay_closure){ 0 };
	out->rebuild = arena_alloc(a, (p->nmodels + 1) * sizeof(bool));
	out->why = arena_alloc(a, (p->nmodels + 1) * sizeof(char *));
	memset(out->why, 0, (p->nmodels + 1) * sizeof(char *));
	rc = dag_select(p, selector, out->rebuild, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < p->nmodels; i++) {
		if (!out->rebuild[i])
			continue;
		out->why[i] = "selected";
		out->nrebuild++;
	}
	do {
		w.changed = false;
		add_readers(&w);
		walk_reads(&w, judge_read);
	} while (w.changed);
	walk_reads(&w, collect_read);
	return w.rc;
}

/* The query a replay reads an anchor through (its start-time read), or
 * NULL: the table itself. */
static const char *read_of(const struct render_read *reads, size_t n, const char *relation)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(reads[i].relation, relation) == 0)
			return reads[i].query;
	return NULL;
}

/* The rows an adopted table in mode offsets gives a replay: when, in the
 * open transaction, its rows outnumber its distinct (partition, offset)
 * pairs, one row per pair, else NULL (read as it is). from is what the
 * replay reads of it. */
static int one_per_offset(struct arena *a, struct wh *w, const struct replay_anchor *an,
			  const struct source_bounds *sb, const char *from, const char **out,
			  struct sl_err *err)
{
	struct buf keys = BUF_INIT, sql = BUF_INIT, rel = BUF_INIT;
	const char *dot = strchr(an->relation, '.');
	int64_t n[2];
	int rc;

	*out = NULL;
	if (from) {
		buf_addf(&rel, "(%s) AS ", from);
		wh_sql_ident(&rel, "_sluice_rows");
	} else {
		wh_sql_qualified(&rel, arena_strndup(a, an->relation, (size_t)(dot - an->relation)),
				 dot + 1);
	}
	wh_sql_ident(&keys, sb->part);
	buf_adds(&keys, ", ");
	wh_sql_ident(&keys, sb->value);
	buf_addf(&sql,
		 "SELECT (SELECT count(*) FROM %s), (SELECT count(*) FROM (SELECT DISTINCT %s "
		 "FROM %s) AS ",
		 rel.buf, keys.buf, rel.buf);
	wh_sql_ident(&sql, "_sluice_keys");
	buf_adds(&sql, ")");
	rc = wh_query_ints(w, sql.buf, n, 2, err);
	if (!rc && n[0] != n[1]) {
		buf_reset(&sql);
		wh_sql_first_per_key(w, &sql, rel.buf, keys.buf, keys.buf);
		*out = arena_strdup(a, sql.buf);
	}
	buf_release(&keys);
	buf_release(&sql);
	buf_release(&rel);
	return rc;
}

int replay_closure_reads(struct arena *a, struct wh *w, const struct replay_closure *c,
			 const struct render_read **reads, size_t *nreads, struct sl_err *err)
{
	struct render_read *v = arena_alloc(a, (c->nreads + c->nanchors + 1) * sizeof(*v));
	size_t n = c->nreads;
	int rc = 0;

	if (c->nreads)
		memcpy(v, c->reads, c->nreads * sizeof(*v));
	for (size_t i = 0; !rc && i < c->nanchors; i++) {
		const struct replay_anchor *an = &c->anchors[i];
		const char *from, *once = NULL;
		struct source_bounds sb;
		size_t k;

		if (an->model || !an->source || !an->source->kind ||
		    strcmp(an->source->kind, "adopted") != 0 || source_bounds_of(an->source, &sb) ||
		    !sb.part || !strchr(an->relation, '.'))
			continue;
		from = read_of(c->reads, c->nreads, an->relation);
		rc = one_per_offset(a, w, an, &sb, from, &once, err);
		if (rc || !once)
			continue;
		for (k = 0; k < n && strcasecmp(v[k].relation, an->relation) != 0; k++)
			;
		v[k] = (struct render_read){ .relation = an->relation, .query = once };
		n += k == n;
	}
	*reads = v;
	*nreads = n;
	return rc;
}

bool replay_one_for_one(struct arena *a, const struct lineage_graph *g, const struct model *m,
			const char **why)
{
	return rows_one_for_one(a, g, m, why, 0);
}

/* The relations model m reads (through its ephemerals), as read_fn sees
 * them. */
struct reads_list {
	struct arena *a;
	struct replay_read *v;
	size_t n, cap;
};

static void list_read(void *ctx, const struct model *m, const struct model_ref *r,
		      const char *relation)
{
	struct reads_list *l = ctx;

	(void)m;
	for (size_t i = 0; i < l->n; i++)
		if (strcasecmp(l->v[i].relation, relation) == 0)
			return;
	*ARENA_PUSH(l->a, &l->v, &l->n, &l->cap) =
		(struct replay_read){ .relation = relation, .target = r->target };
}

/* What relation (model target, or NULL) holds of the sources' history,
 * into rd->carries and rd->time. */
static void history_of(struct arena *a, const struct project *p, const struct lineage_graph *g,
		       struct replay_read *rd)
{
	const struct source_cfg *s = source_at(p, rd->relation);
	struct behind b = { .p = p, .a = a };
	struct source_bounds sb;

	rd->time = NULL;
	if (s) {
		rd->carries = true;
		rd->time = source_bounds_of(s, &sb) ? NULL : sb.time;
		return;
	}
	behind_add(&b, rd->relation);
	rd->carries = b.n > 0 || strncasecmp(rd->relation, "landing.", 8) == 0;
	for (size_t k = 0; rd->target && k < b.n; k++) {
		char src[256];
		const char *t;

		if (source_bounds_of(b.v[k], &sb) || !sb.time)
			break;
		inputs_source_table(b.v[k], src, sizeof(src));
		t = passed_as(g, rd->target, src, sb.time);
		if (!t || (k && (!rd->time || strcasecmp(t, rd->time) != 0))) {
			rd->time = NULL;
			break;
		}
		rd->time = t;
	}
}

size_t replay_reads_of(struct arena *a, const struct project *p, const struct lineage_graph *g,
		       const struct model *m, struct replay_read **out)
{
	struct reads_list l = { .a = a };

	each_read(a, m, m, list_read, &l, 0);
	for (size_t i = 0; i < l.n; i++)
		history_of(a, p, g, &l.v[i]);
	*out = l.v;
	return l.n;
}

struct replay_read replay_history_of(struct arena *a, const struct project *p,
				     const struct lineage_graph *g, const struct model *m)
{
	struct replay_read rd = { .relation = m->fqn, .target = m };

	history_of(a, p, g, &rd);
	return rd;
}
