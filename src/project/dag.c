/*
 * Dependency graph: resolution, ordering (Kahn's algorithm with a name-
 * ordered ready set, so the order is the same on every machine), cycle
 * paths and selectors. Works on the loaded project only.
 */
#include "project/dag.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/xalloc.h"
#include "project/inputs.h"
#include "project/declared.h"
#include "project/maintain.h"
#include "state/changes.h"
#include "state/state.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool dag_relation_exists(const char *const *relations, size_t n, const char *fqn)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(relations[mid], fqn);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void add_edge(struct project *p, struct model *from, struct model *to)
{
	for (size_t i = 0; i < from->ndeps; i++)
		if (from->deps[i] == to)
			return;
	*ARENA_PUSH(p->arena, &from->deps, &from->ndeps, &from->deps_cap) = to;
	*ARENA_PUSH(p->arena, &to->children, &to->nchildren, &to->children_cap) = from;
}

/* The models named name in any schema, as "'a.name' or 'b.name'", or NULL
 * when there is none. */
static const char *schemas_with(struct project *p, const char *name)
{
	struct buf b = BUF_INIT;
	const char *s = NULL;

	for (size_t i = 0; i < p->nmodels; i++)
		if (strcasecmp(p->models[i]->name, name) == 0)
			buf_addf(&b, "%s'%s'", b.len ? " or " : "", p->models[i]->fqn);
	if (b.len)
		s = arena_strdup(p->arena, b.buf);
	buf_release(&b);
	return s;
}

/* The model whose change log r names (state/changes.c), by the schema
 * names of the project, or NULL: the log is made with the model's first
 * build, so reading it waits for that. */
static struct model *changes_of(const struct project *p, const struct model_ref *r)
{
	char table[512];

	if (strcasecmp(r->schema, STATE_SCHEMA) != 0)
		return NULL;
	for (size_t i = 0; i < p->nmodels; i++) {
		struct model *u = p->models[i];

		state_changes_table(table, sizeof(table), u->home_schema, u->name);
		if (model_keeps_changes(u) && strcasecmp(r->name, table) == 0)
			return u;
	}
	return NULL;
}

/* The adopted source whose table fqn is, or NULL. */
static const struct source_cfg *adopted_at(const struct project *p, const char *fqn)
{
	const char *relation;
	const struct source_cfg *s = dag_source_named(p, fqn, &relation);

	return s && s->kind && strcmp(s->kind, "adopted") == 0 && strcasecmp(relation, fqn) == 0
		       ? s
		       : NULL;
}

static void resolve_refs(struct project *p, struct model *m, const char *const *relations,
			 size_t nrelations, const char **names)
{
	for (size_t i = 0; i < m->nrefs; i++) {
		struct model_ref *r = &m->refs[i];
		char *fqn = arena_sprintf(p->arena, "%s.%s", r->schema, r->name);
		int line, col;

		r->target = project_find_model(p, fqn);
		r->adopted = r->target ? NULL : adopted_at(p, fqn);
		if (r->target) {
			add_edge(p, m, r->target);
			continue;
		}
		r->changes_of = changes_of(p, r);
		if (r->changes_of) {
			add_edge(p, m, r->changes_of);
			continue;
		}
		/* a hardcoded input's table sluice writes before the model */
		if (!relations || dag_relation_exists(relations, nrelations, fqn) ||
		    declared_hardcoded_named(m, r->schema, r->name))
			continue;
		model_span_position(m, r->span.part, r->span.offset, &line, &col);
		const char *near = suggest_nearest(fqn, names);
		const char *hint = !r->schema_given ? schemas_with(p, r->name) : NULL;

		if (hint)
			hint = arena_sprintf(p->arena,
					     "a name without a schema reads schema 'main'; did you "
					     "mean %s?",
					     hint);
		else if (near)
			hint = arena_sprintf(p->arena, "did you mean '%s'?", near);
		diag_add(&p->diags, DIAG_ERROR, m->path, line, col,
			 hint ? hint
			      : "create it in the warehouse, or add a model or seed that produces it",
			 "model '%s' reads '%s', which is neither a model nor a table in the "
			 "warehouse",
			 m->fqn, fqn);
	}
	for (size_t i = 0; i < m->nasserts; i++) {
		const struct model_assert *as = &m->asserts[i];
		char *fqn;
		struct model *t;

		if (as->kind != ASSERT_RELATIONSHIPS)
			continue;
		fqn = arena_sprintf(p->arena, "%s.%s", as->ref_schema, as->ref_name);
		t = project_find_model(p, fqn);
		if (t && t != m)
			add_edge(p, m, t);
		else if (!t && relations && !dag_relation_exists(relations, nrelations, fqn))
			diag_add(&p->diags, DIAG_ERROR, m->path, as->line, 0, NULL,
				 "@assert relationships target '%s' is neither a model nor a table",
				 fqn);
	}
}

const struct source_cfg *dag_source_named(const struct project *p, const char *name,
					  const char **relation)
{
	for (size_t i = 0; i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];
		char table[512];

		/* the name every other part of sluice gives the table */
		inputs_source_table(s, table, sizeof(table));
		if (strcasecmp(name, s->name) == 0 || strcasecmp(name, table) == 0) {
			*relation = arena_strdup(p->arena, table);
			return s;
		}
	}
	return NULL;
}

/* An @upstream that names a model of the project orders the build after
 * it, whether it gates or not; one that names a declared source is that
 * source. A name that could be either, or several models, is refused: the
 * choice decides what gates the model. What a contract may name is
 * validate.c's to check. */
static void resolve_upstreams(struct project *p, struct model *m)
{
	for (size_t i = 0; i < m->nupstreams; i++) {
		struct model_upstream *u = &m->upstreams[i];
		struct sl_err err = SL_ERR_INIT;
		const char *relation;
		const struct source_cfg *s;

		u->target = NULL;
		u->source = NULL;
		if (!*u->name || strcmp(u->type, "model") != 0)
			continue;
		u->target = dag_model_named(p, u->name, &err);
		s = dag_source_named(p, u->name, &relation);
		if (!u->target && err.code == SL_E_USAGE)
			diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
				 "write the schema too, as schema.name",
				 "@upstream '%s' names several models: %s", u->name,
				 schemas_with(p, u->name));
		else if (u->target && s) {
			diag_add(&p->diags, DIAG_ERROR, m->path, u->line, 0,
				 arena_sprintf(p->arena,
					       "write '%s' for the model or '%s' for the source",
					       u->target->fqn, relation),
				 "@upstream '%s' names both model '%s' and source '%s'", u->name,
				 u->target->fqn, s->name);
		} else if (!u->target) {
			u->source = s;
			u->source_relation = s ? relation : NULL;
		}
		if (u->target && u->target != m)
			add_edge(p, m, u->target);
	}
}

static int cmp_model_name(const void *x, const void *y)
{
	return strcmp((*(struct model *const *)x)->fqn, (*(struct model *const *)y)->fqn);
}

/* Finds a cycle among the models left unordered and reports its path. */
static void report_cycle(struct project *p, struct model **left, size_t nleft)
{
	struct model *start = left[0], *cur = start;
	struct model **path = arena_alloc(p->arena, (nleft + 1) * sizeof(*path));
	size_t n = 0;
	struct buf msg = BUF_INIT;

	for (size_t i = 0; i < nleft; i++)
		left[i]->mark = 1;
	/* walk unordered deps until a model repeats: that closes the cycle */
	while (cur->mark != 2) {
		cur->mark = 2;
		path[n++] = cur;
		for (size_t i = 0; i < cur->ndeps; i++) {
			if (cur->deps[i]->mark) {
				cur = cur->deps[i];
				break;
			}
		}
	}
	size_t first = 0;
	while (path[first] != cur)
		first++;
	for (size_t i = first; i < n; i++)
		buf_addf(&msg, "%s -> ", path[i]->fqn);
	buf_adds(&msg, cur->fqn);
	diag_add(&p->diags, DIAG_ERROR, cur->path, 0, 0,
		 "a model cannot read itself, directly or through others (use {this} in an "
		 "incremental model)",
		 "dependency cycle: %s", msg.buf);
	buf_release(&msg);
	for (size_t i = 0; i < nleft; i++)
		left[i]->mark = 0;
}

int dag_build(struct project *p, const char *const *relations, size_t nrelations)
{
	size_t before = diag_count(&p->diags, DIAG_ERROR);
	const char **names = project_model_names(p);
	size_t n = p->nmodels, done = 0;
	size_t *indeg = xcalloc(n + 1, sizeof(size_t));
	struct model **sorted = arena_alloc(p->arena, (n + 1) * sizeof(*sorted));
	struct model **ready = xcalloc(n + 1, sizeof(*ready));
	size_t nready = 0;

	if (n > 1)
		qsort(p->models, n, sizeof(*p->models), cmp_model_name);
	for (size_t i = 0; i < n; i++) {
		resolve_refs(p, p->models[i], relations, nrelations, names);
		resolve_upstreams(p, p->models[i]);
	}
	for (size_t i = 0; i < n; i++) {
		p->models[i]->order = i;
		indeg[i] = p->models[i]->ndeps;
		if (!indeg[i])
			ready[nready++] = p->models[i];
	}
	/* ready[] is kept sorted by name, descending, so a pop takes the smallest */
	for (size_t i = 0; i < nready / 2; i++) {
		struct model *t = ready[i];

		ready[i] = ready[nready - 1 - i];
		ready[nready - 1 - i] = t;
	}
	while (nready) {
		struct model *m = ready[--nready];

		sorted[done++] = m;
		for (size_t i = 0; i < m->nchildren; i++) {
			struct model *c = m->children[i];

			if (--indeg[c->order] == 0) {
				size_t j = nready++;

				while (j > 0 && strcmp(ready[j - 1]->fqn, c->fqn) < 0) {
					ready[j] = ready[j - 1];
					j--;
				}
				ready[j] = c;
			}
		}
	}
	if (done < n) {
		struct model **left = arena_alloc(p->arena, (n - done) * sizeof(*left));
		size_t nleft = 0;

		for (size_t i = 0; i < n; i++)
			if (indeg[i])
				left[nleft++] = p->models[i];
		report_cycle(p, left, nleft);
		for (size_t i = 0; i < nleft; i++)
			sorted[done++] = left[i];
	}
	if (n)
		memcpy(p->models, sorted, n * sizeof(*sorted));
	for (size_t i = 0; i < n; i++)
		p->models[i]->order = i;
	maintain_plan_all(p);
	declared_load(p);
	free(indeg);
	free(ready);
	return diag_count(&p->diags, DIAG_ERROR) > before ? SL_E_INVALID : 0;
}

static void mark_up(struct model *m, bool *sel)
{
	for (size_t i = 0; i < m->ndeps; i++) {
		if (!sel[m->deps[i]->order]) {
			sel[m->deps[i]->order] = true;
			mark_up(m->deps[i], sel);
		}
	}
}

static void mark_down(struct model *m, bool *sel)
{
	for (size_t i = 0; i < m->nchildren; i++) {
		if (!sel[m->children[i]->order]) {
			sel[m->children[i]->order] = true;
			mark_down(m->children[i], sel);
		}
	}
}

static bool has_tag(const struct model *m, const char *tag)
{
	for (size_t i = 0; i < m->ntags; i++)
		if (strcasecmp(m->tags[i], tag) == 0)
			return true;
	return false;
}

/* What a selector term of the same form could have meant: "tag:x" terms,
 * "schema.*" terms, "schema.name" or bare model names. NULL-terminated, in
 * a: a long-running server asks on every lookup that misses, and the
 * project's arena lives as long as the server. */
static const char **selector_words(const struct project *p, struct arena *a, const char *term)
{
	size_t n = 0, len = strlen(term), cap = p->nmodels + 1;
	const char **words;
	bool tag = strncmp(term, "tag:", 4) == 0;
	bool schema = len > 2 && strcmp(term + len - 2, ".*") == 0;

	for (size_t i = 0; i < p->nmodels; i++)
		cap += p->models[i]->ntags + 1;
	words = arena_alloc(a, cap * sizeof(char *));
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];

		if (schema)
			words[n++] = arena_sprintf(a, "%s.*", m->schema);
		else if (!tag)
			words[n++] = strchr(term, '.') ? m->fqn : m->name;
		for (size_t k = 0; tag && k < m->ntags; k++)
			words[n++] = arena_sprintf(a, "tag:%s", m->tags[k]);
	}
	words[n] = NULL;
	return words;
}

static int no_match(const char *term, const char *near, struct sl_err *err)
{
	return sl_err_set(err, SL_E_NOTFOUND, "selector '%s' matches no model%s%s%s", term,
			  near ? "\n  hint: did you mean '" : "", near ? near : "", near ? "'?" : "");
}

/* The miss of a selector term, with the nearest word it could have meant. */
static int no_match_near(const struct project *p, const char *term, struct sl_err *err)
{
	struct arena *scratch = arena_new(p->arena);
	int rc = no_match(term, suggest_nearest(term, selector_words(p, scratch, term)), err);

	arena_free(scratch);
	return rc;
}

/* dag_model_named, worded for a selector term or for a model name. */
static struct model *named(const struct project *p, const char *name, bool term,
			   struct sl_err *err)
{
	struct model *m = strchr(name, '.') ? project_find_model(p, name) : NULL;
	struct buf all = BUF_INIT;
	struct arena *scratch;
	const char *near;
	size_t hits = 0;

	if (m)
		return m;
	for (size_t i = 0; !strchr(name, '.') && i < p->nmodels; i++) {
		if (strcasecmp(p->models[i]->name, name) != 0)
			continue;
		m = p->models[i];
		buf_addf(&all, "%s%s", hits++ ? ", " : "", m->fqn);
	}
	if (hits == 1) {
		buf_release(&all);
		return m;
	}
	if (hits) {
		sl_err_set(err, SL_E_USAGE,
			   "'%s' names %zu models: %s\n  hint: write the schema too, e.g. '%s'", name,
			   hits, all.buf, m->fqn);
		buf_release(&all);
		return NULL;
	}
	buf_release(&all);
	if (term) {
		no_match_near(p, name, err);
		return NULL;
	}
	scratch = arena_new(p->arena);
	near = suggest_nearest(name, selector_words(p, scratch, name));
	if (near)
		sl_err_set(err, SL_E_NOTFOUND, "no model '%s'\n  hint: did you mean '%s'?", name, near);
	else
		sl_err_set(err, SL_E_NOTFOUND, "no model '%s'\n  hint: 'sluice ls' lists the models",
			   name);
	arena_free(scratch);
	return NULL;
}

struct model *dag_model_named(const struct project *p, const char *name, struct sl_err *err)
{
	return named(p, name, false, err);
}

static void mark(struct model *m, bool *selected, bool up, bool down)
{
	selected[m->order] = true;
	if (up)
		mark_up(m, selected);
	if (down)
		mark_down(m, selected);
}

static int select_one(const struct project *p, char *term, bool *selected, struct sl_err *err)
{
	bool up = false, down = false, found = false;
	size_t len;

	if (*term == '+') {
		up = true;
		term++;
	}
	len = strlen(term);
	if (len && term[len - 1] == '+') {
		down = true;
		term[--len] = '\0';
	}
	if (strncmp(term, "tag:", 4) != 0 && !(len > 2 && strcmp(term + len - 2, ".*") == 0)) {
		struct model *m = named(p, term, true, err);

		if (!m)
			return err ? err->code : SL_E_NOTFOUND;
		mark(m, selected, up, down);
		return 0;
	}
	for (size_t i = 0; i < p->nmodels; i++) {
		struct model *m = p->models[i];
		bool hit;

		if (strncmp(term, "tag:", 4) == 0)
			hit = has_tag(m, term + 4);
		else
			hit = strncasecmp(m->fqn, term, len - 1) == 0;
		if (!hit)
			continue;
		found = true;
		mark(m, selected, up, down);
	}
	return found ? 0 : no_match_near(p, term, err);
}

int dag_select(const struct project *p, const char *selector, bool *selected,
	       struct sl_err *err)
{
	char *copy, *save = NULL;
	int rc = 0;

	size_t terms = 0;

	memset(selected, 0, p->nmodels * sizeof(bool));
	if (!selector) {
		memset(selected, 1, p->nmodels * sizeof(bool));
		return 0;
	}
	copy = xstrdup(selector);
	for (char *t = strtok_r(copy, ", ", &save); t && !rc; t = strtok_r(NULL, ", ", &save)) {
		rc = select_one(p, t, selected, err);
		terms++;
	}
	free(copy);
	if (!rc && !terms)
		rc = sl_err_set(err, SL_E_USAGE,
				"empty selector\n  hint: name models, e.g. -s silver.orders or -s 'gold.*'");
	return rc;
}
