/*
 * This file implements column-level change (columns.h): a model's shape
 * now against the one its state row recorded, and what a reader reads of
 * it, from the reader's own lineage (its query alone: a column it names
 * through a table is that table's, a star takes every column). Nothing
 * here reads or writes the warehouse.
 */
#include "plan/columns.h"

#include "core/arena.h"
#include "core/buf.h"
#include "project/lineage.h"
#include "project/model.h"
#include "project/refs.h"
#include "state/state.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool plan_change_of(struct arena *a, const struct model *m, const struct state_model *st,
		    struct shape_diff *d)
{
	struct model_shape was, now;

	if (!st || !shape_parse(a, st->shape, &was) || !shape_of(a, m, &now))
		return false;
	shape_compare(a, &was, &now, d);
	return true;
}

bool plan_columns_only(const struct model *m, const struct state_model *st, const char *sig,
		       const struct shape_diff *d)
{
	return m->mat == MAT_TABLE && !m->temporal && !d->rows && !d->varies && st && st->inputs &&
	       strcmp(st->inputs, sig) == 0;
}

/* One "NAME@V" entry of column_versions, or the "rows@V" one (name NULL). */
struct versioned {
	const char *name;
	int64_t v;
};

/* st's column_versions, its rows' entry first; none when it has none. */
static size_t versions_of(struct arena *a, const struct state_model *st, struct versioned **out)
{
	const char *p = st ? st->column_versions : NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!p || strncmp(p, "rows@", 5) != 0)
		return 0;
	ARENA_PUSH(a, out, &n, &cap)->v = strtoll(p + 5, NULL, 10);
	(*out)[0].name = NULL;
	p += 5 + strcspn(p + 5, ";");
	while (strncmp(p, ";c=", 3) == 0) {
		const char *name = p + 3, *at = strchr(name, '@');
		struct versioned *e;

		if (!at)
			break;
		e = ARENA_PUSH(a, out, &n, &cap);
		e->name = shape_name(a, name, (size_t)(at - name));
		e->v = strtoll(at + 1, NULL, 10);
		p = at + 1 + strcspn(at + 1, ";");
	}
	return n;
}

const char *plan_column_versions(struct arena *a, const struct state_model *st,
				 const struct shape_diff *d, int64_t v)
{
	struct versioned *was;
	size_t n = versions_of(a, st, &was);
	const char *const *lists[] = { d->changed, d->removed, d->added };
	size_t counts[] = { d->nchanged, d->nremoved, d->nadded };
	struct buf b = BUF_INIT;
	const char *out;

	buf_addf(&b, "rows@%lld", (long long)(n ? was[0].v : st->data_version));
	/* a column changed before keeps its version unless changed again */
	for (size_t i = 1; i < n; i++) {
		if (shape_diff_touches(d, was[i].name))
			continue;
		buf_adds(&b, ";c=");
		shape_add_name(&b, was[i].name);
		buf_addf(&b, "@%lld", (long long)was[i].v);
	}
	/* a column gone is a change to whoever read it */
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < counts[l]; i++) {
			buf_adds(&b, ";c=");
			shape_add_name(&b, lists[l][i]);
			buf_addf(&b, "@%lld", (long long)v);
		}
	out = arena_strdup(a, b.buf);
	buf_release(&b);
	return out;
}

/* Whether m's query names model of itself (not only an @upstream). */
static bool names(const struct model *m, const struct model *of)
{
	for (size_t i = 0; i < m->nrefs; i++)
		if (m->refs[i].target == of)
			return true;
	return false;
}

/* What m reads of model of: the columns its query names of it; false
 * when it cannot be told (no tree, something the lineage cannot see
 * through, of read other than by name) or it takes every column (a
 * star). */
static bool columns_read(struct arena *a, const struct model *m, const struct model *of,
			 const char ***cols, size_t *n)
{
	struct lineage l;
	size_t filter_start, cap = 0;
	char *text;
	bool known;

	*cols = NULL;
	*n = 0;
	if (!m->tree || !names(m, of))
		return false;
	text = refs_parse_text(m, &filter_start);
	known = lineage_query(a, m->tree, text, m->filter != NULL, NULL, NULL, &l) == 0 &&
		!l.nunknown;
	free(text);
	for (size_t i = 0; known && i <= l.ncols; i++) {
		const struct lineage_column *c = i < l.ncols ? &l.cols[i] : &l.rows;

		for (size_t k = 0; known && k < c->ninputs; k++) {
			const struct lineage_input *in = &c->inputs[k];

			if (strcasecmp(in->relation, of->fqn) != 0)
				continue;
			known = strcmp(in->column, "*") != 0;
			*ARENA_PUSH(a, cols, n, &cap) = in->column;
		}
	}
	return known;
}

bool plan_reads_any(struct arena *a, const struct model *m, const struct model *of,
		    const struct shape_diff *d)
{
	const char **cols;
	size_t n;

	if (d->rows || !columns_read(a, m, of, &cols, &n))
		return true;
	for (size_t i = 0; i < n; i++)
		if (shape_diff_touches(d, cols[i]))
			return true;
	return false;
}

int64_t plan_seen_version(struct arena *a, const struct model *m, const struct model *of,
			  const struct state_model *st, int64_t version)
{
	struct versioned *v;
	size_t nv = versions_of(a, st, &v);
	const char **cols;
	size_t n;
	int64_t seen;

	if (!nv || !columns_read(a, m, of, &cols, &n))
		return version;
	seen = v[0].v;
	for (size_t i = 1; i < nv; i++)
		for (size_t k = 0; k < n; k++)
			if (strcasecmp(v[i].name, cols[k]) == 0 && v[i].v > seen)
				seen = v[i].v;
	return seen;
}
