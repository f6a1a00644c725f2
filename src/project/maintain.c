/*
 * This file implements the maintenance plan of maintained models: the
 * classifier's verdict on the query (ivm.c), set against what the input
 * gives (new rows of a table that only gains them, or the change log of a
 * model that rewrites them), and the keys a refresh finds output rows by.
 * It must never look at the warehouse: a refresh finds what is only known
 * there (whether an append model passes _sluice_seq through) itself.
 */
#include "project/maintain.h"

#include "core/arena.h"
#include "project/inputs.h"
#include "project/refs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void set_full(struct maint *mt, const char *why, long offset)
{
	if (mt->cls == IVM_FULL)
		return;
	mt->cls = IVM_FULL;
	mt->blocker = why;
	mt->offset = offset;
}

/* The reference the classifier found the input at. */
static const struct model_ref *input_ref(const struct model *m, const struct ivm_result *q)
{
	for (size_t i = 0; q->table && i < m->nrefs; i++)
		if (m->refs[i].span.part == PART_BODY && (long)m->refs[i].span.offset == q->table_at)
			return &m->refs[i];
	return NULL;
}

/* What the input gives, or why it gives nothing to follow. */
static enum maint_input input_kind(struct arena *a, const struct model *m,
				   const struct model_ref *r, const char **why)
{
	const struct model *t = r->target;
	struct model_inputs in;
	const char *fqn = arena_sprintf(a, "%s.%s", r->schema, r->name);

	if (!t && r->adopted) {
		*why = arena_sprintf(a, "%s, an adopted table, whose rows carry no sequence", fqn);
		return MAINT_NONE;
	}
	if (!t) {
		inputs_find(a, m, &in);
		for (size_t i = 0; i < in.n; i++)
			if (in.items[i].kind == INPUT_SOURCE && strcmp(in.items[i].name, fqn) == 0)
				return MAINT_APPENDS;
		*why = arena_sprintf(a, "%s, which is not a landing table", fqn);
		return MAINT_NONE;
	}
	if (inputs_refreshes(t))
		return model_keeps_changes(t) ? MAINT_REWRITES : MAINT_APPENDS;
	if (t->mat == MAT_VIEW || t->mat == MAT_EPHEMERAL)
		*why = arena_sprintf(a, "%s, a%s %s", t->fqn, t->mat == MAT_VIEW ? "" : "n",
				     model_mat_name(t->mat));
	else
		*why = arena_sprintf(a, "%s, which is not live", t->fqn);
	return MAINT_NONE;
}

/* s[start, end) without the white space around it, in a. */
static const char *trimmed(struct arena *a, const char *s, size_t start, size_t end)
{
	while (start < end && isspace((unsigned char)s[start]))
		start++;
	while (end > start && isspace((unsigned char)s[end - 1]))
		end--;
	return arena_strndup(a, s + start, end - start);
}

/* Whether an item written as text shows the input's column col as it is:
 * col itself, qualified, or a star. */
static bool shows_column(const char *text, const char *col)
{
	size_t n = strlen(text), c = strlen(col);
	const char *dot = strrchr(text, '.');
	const char *last = dot ? dot + 1 : text;

	if (strcmp(last, "*") == 0)
		return true;
	return n >= c && strcasecmp(last, col) == 0;
}

/* The keys of a counted or regroup query: its GROUP BY keys, each found
 * in an input row by its item's expression when FROM names the input. */
static void group_keys(struct arena *a, const char *text, struct maint *mt)
{
	const struct ivm_result *q = &mt->q;

	mt->nkeys = q->nkeys;
	mt->keys = arena_alloc(a, (q->nkeys + 1) * sizeof(char *));
	mt->key_exprs = arena_alloc(a, (q->nkeys + 1) * sizeof(char *));
	for (size_t k = 0; k < q->nkeys; k++) {
		const struct ivm_item *it = &q->items[q->keys[k].item];

		mt->keys[k] = q->keys[k].name;
		mt->key_exprs[k] = q->direct && it->expr_end
					   ? trimmed(a, text, it->start, it->expr_end)
					   : NULL;
	}
}

/* A mapped query over a model that rewrites rows finds its rows by that
 * model's key, which it must show. */
static void input_keys(struct arena *a, const char *text, struct maint *mt)
{
	const struct model *t = mt->input;

	if (!t->nunique_key) {
		set_full(mt, arena_sprintf(a, "%s keeps no key to find its rows by", t->fqn),
			 (long)mt->ref->span.offset);
		return;
	}
	mt->nkeys = t->nunique_key;
	mt->keys = t->unique_key;
	mt->key_exprs = arena_alloc(a, (t->nunique_key + 1) * sizeof(char *));
	for (size_t k = 0; k < t->nunique_key; k++) {
		bool shown = false;

		for (size_t i = 0; i < mt->q.nitems && !shown; i++)
			shown = shows_column(trimmed(a, text, mt->q.items[i].start, mt->q.items[i].end),
					     t->unique_key[k]);
		if (!shown) {
			set_full(mt, arena_sprintf(a, "a select list without %s's key %s", t->fqn,
						   t->unique_key[k]),
				 mt->q.items[0].start);
			return;
		}
		mt->key_exprs[k] = mt->q.direct ? t->unique_key[k] : NULL;
	}
}

static void plan_model(struct project *p, struct model *m)
{
	struct arena *a = p->arena;
	struct maint *mt = arena_alloc(a, sizeof(*mt));
	size_t filter_start;
	char *text = refs_parse_text(m, &filter_start);
	const char *why = NULL;

	memset(mt, 0, sizeof(*mt));
	m->maint = mt;
	mt->offset = -1;
	if (ivm_classify(a, m->tree, text, false, &mt->q)) {
		mt->cls = IVM_FULL;
		mt->blocker = "a text that is not one query";
		goto out;
	}
	mt->cls = mt->q.cls;
	mt->blocker = mt->q.blocker;
	mt->offset = mt->q.offset;
	mt->ref = input_ref(m, &mt->q);
	mt->in = mt->ref ? input_kind(a, m, mt->ref, &why) : MAINT_NONE;
	mt->input = mt->ref ? mt->ref->target : NULL;
	if (mt->in == MAINT_APPENDS && ivm_classify(a, m->tree, text, true, &mt->q) == 0) {
		mt->cls = mt->q.cls;
		mt->blocker = mt->q.blocker;
		mt->offset = mt->q.offset;
	}
	if (m->nplaceholders)
		set_full(mt, "a placeholder (a maintained model's query is written plain)",
			 (long)m->placeholders[0].span.offset);
	if (mt->in == MAINT_NONE && why)
		set_full(mt, arena_sprintf(a, "it reads %s", why), (long)mt->ref->span.offset);
	if (mt->cls == IVM_COUNTED || mt->cls == IVM_REGROUP)
		group_keys(a, text, mt);
	else if (mt->cls == IVM_MAPPED && mt->in == MAINT_REWRITES)
		input_keys(a, text, mt);
	if (mt->cls == IVM_FULL)
		mt->nkeys = 0;
	m->unique_key = mt->keys;
	m->nunique_key = mt->nkeys;
out:
	free(text);
}

const char *maintain_describe(struct arena *a, const struct model *m)
{
	const struct maint *mt = m->maint;
	int line = m->body_line, col = 0;

	if (!mt->blocker)
		return ivm_class_name(mt->cls);
	if (mt->offset < 0)
		return arena_sprintf(a, "%s: %s", ivm_class_name(mt->cls), mt->blocker);
	model_span_position(m, PART_BODY, (size_t)mt->offset, &line, &col);
	return arena_sprintf(a, "%s: %s at %s:%d:%d", ivm_class_name(mt->cls), mt->blocker, m->path,
			     line, col);
}

void maintain_plan_all(struct project *p)
{
	for (size_t i = 0; i < p->nmodels; i++)
		if (p->models[i]->maintained && p->models[i]->tree)
			plan_model(p, p->models[i]);
}
