/*
 * Rendering: a list of (offset, length, replacement) edits per text part,
 * applied in one pass. Every edit point comes from the loader's placeholder
 * scan or the parser's table locations; this file never searches SQL text
 * for names.
 */
#include "exec/render.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "project/sqltext.h"
#include "state/changes.h"
#include "warehouse/wh.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct edit {
	size_t offset, len;
	struct buf with;
};

struct edits {
	struct edit *v;
	size_t n, cap;
};

static struct buf *edit_add(struct edits *e, size_t offset, size_t len)
{
	struct edit *x;

	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 8;
		e->v = xreallocarray(e->v, e->cap, sizeof(*e->v));
	}
	x = &e->v[e->n++];
	x->offset = offset;
	x->len = len;
	buf_init(&x->with, 0);
	return &x->with;
}

static void edits_free(struct edits *e)
{
	for (size_t i = 0; i < e->n; i++)
		buf_release(&e->v[i].with);
	free(e->v);
}

static int cmp_edit(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void apply_edits(const char *text, struct edits *e, struct buf *out)
{
	size_t pos = 0;

	if (e->n > 1)
		qsort(e->v, e->n, sizeof(*e->v), cmp_edit);
	for (size_t i = 0; i < e->n; i++) {
		if (e->v[i].offset < pos)
			continue; /* overlapping edits cannot come from one parse */
		buf_add(out, text + pos, e->v[i].offset - pos);
		buf_add(out, e->v[i].with.buf, e->v[i].with.len);
		pos = e->v[i].offset + e->v[i].len;
	}
	buf_adds(out, text + pos);
}

static void eph_cte_name(struct buf *b, const struct model *eph)
{
	struct buf name = BUF_INIT;

	buf_addf(&name, "__sluice_eph_%s_%s", eph->schema, eph->name);
	wh_sql_ident(b, name.buf);
	buf_release(&name);
}

/* What the i-th watermark of ctx stands for. */
static void watermark_value(const struct render_ctx *ctx, size_t i, struct buf *b)
{
	if (ctx->wm_literals && ctx->wm_literals[i])
		buf_adds(b, ctx->wm_literals[i]);
	else
		buf_addf(b, "%lld", (long long)ctx->wm_values[i]);
}

/* Whether {watermark:arg} names the i-th watermark of ctx: by its name,
 * its alias, or a landing table by the source's ("orders" for
 * "landing.orders"). */
static bool watermark_named(const struct render_ctx *ctx, size_t i, const char *arg)
{
	const char *n = ctx->wm_names[i];

	return strcmp(n, arg) == 0 || (strncmp(n, "landing.", 8) == 0 && strcmp(n + 8, arg) == 0) ||
	       (ctx->wm_aliases && ctx->wm_aliases[i] && strcasecmp(ctx->wm_aliases[i], arg) == 0);
}

static int placeholder_value(const struct model *m, const struct model_placeholder *ph,
			     const struct render_ctx *ctx, bool in_string, struct buf *b,
			     struct sl_err *err)
{
	switch (ph->kind) {
	case PH_THIS:
		if (ctx->this_relation)
			buf_adds(b, ctx->this_relation);
		else
			wh_sql_qualified(b, m->schema, m->name);
		return 0;
	case PH_WATERMARK:
		/* without bookkeeping (compile, a first build) every watermark is
		 * the same: nothing applied yet */
		if (!ctx->nwm) {
			buf_addf(b, "%lld", (long long)ctx->watermark);
			return 0;
		}
		/* a bare {watermark} is the single input's (validation says so) */
		for (size_t i = 0; i < ctx->nwm; i++) {
			if (!ph->arg || watermark_named(ctx, i, ph->arg)) {
				watermark_value(ctx, i, b);
				return 0;
			}
		}
		return sl_err_set(err, SL_E_INVALID,
				  "'{watermark:%s}' in model '%s' names no input it tracks", ph->arg,
				  m->fqn);
	case PH_SINCE:
	case PH_UNTIL: {
		const char *v = ph->kind == PH_SINCE ? ctx->since : ctx->until;

		if (!v)
			return sl_err_set(err, SL_E_INVALID,
					  "placeholder '{%s}' in model '%s' has no value: only a "
					  "temporal model's windows give it one",
					  ph->kind == PH_SINCE ? "since" : "until", m->fqn);
		if (in_string)
			buf_adds(b, v);
		else
			buf_addf(b, "TIMESTAMP '%s'", v);
		return 0;
	}
	case PH_ENV:
		buf_adds(b, ctx->env ? ctx->env : "");
		return 0;
	}
	return 0;
}

/* In an environment a reference to a managed model reads the env's copy,
 * unless an @upstream of m trusts the project's own table there
 * (deactivate_for_dev=true): then it stays as written. */
bool render_reads_env_copy(const struct model *m, const struct model *target,
			   const struct render_ctx *ctx)
{
	if (!ctx->env || !*ctx->env || !target->home_schema ||
	    strcmp(target->schema, target->home_schema) == 0)
		return false;
	for (size_t i = 0; i < m->nupstreams; i++)
		if (m->upstreams[i].target == target && m->upstreams[i].deactivate_for_dev)
			return false;
	return true;
}

const char *render_read_of(const struct render_ctx *ctx, const char *schema, const char *name)
{
	size_t slen = strlen(schema);

	for (size_t i = 0; i < ctx->nreads; i++) {
		const char *rel = ctx->reads[i].relation;

		if (strncasecmp(rel, schema, slen) == 0 && rel[slen] == '.' &&
		    strcasecmp(rel + slen + 1, name) == 0)
			return ctx->reads[i].query;
	}
	return NULL;
}

/* The query read in place of r, under r's own name when the text gives
 * it no alias. */
static void add_read_instead(struct buf *b, const struct model_ref *r, const char *query)
{
	buf_addf(b, "(%s)", query);
	if (!*r->alias) {
		buf_adds(b, " AS ");
		wh_sql_ident(b, r->name);
	}
}

/* Collects the edits of one part; records the ephemerals it reads. */
static int part_edits(const struct model *m, enum model_part part, const struct render_ctx *ctx,
		      struct edits *e, const struct model ***ephs, size_t *nephs,
		      struct sl_err *err)
{
	const char *text = part == PART_BODY ? m->body : m->filter;
	size_t len = strlen(text);
	bool *in_string = xmalloc(len + 1);
	int rc = 0;

	sqltext_string_map(text, len, in_string);
	for (size_t i = 0; i < m->nplaceholders && !rc; i++) {
		const struct model_placeholder *ph = &m->placeholders[i];

		if (ph->span.part != part)
			continue;
		rc = placeholder_value(m, ph, ctx, in_string[ph->span.offset],
				       edit_add(e, ph->span.offset, ph->span.len), err);
	}
	free(in_string);
	for (size_t i = 0; i < m->nrefs && !rc; i++) {
		const struct model_ref *r = &m->refs[i];
		const char *instead =
			r->span.part == part ? render_read_of(ctx, r->schema, r->name) : NULL;
		struct buf *b;
		size_t k;

		if (instead) {
			add_read_instead(edit_add(e, r->span.offset, r->span.len), r, instead);
			continue;
		}

		/* a change log read in an environment is its copy's */
		if (r->span.part == part && r->changes_of && render_reads_env_copy(m, r->changes_of, ctx)) {
			state_sql_changes(edit_add(e, r->span.offset, r->span.len),
					  r->changes_of->schema, r->changes_of->name);
			continue;
		}
		if (r->span.part == part && r->target && r->target->mat != MAT_EPHEMERAL &&
		    render_reads_env_copy(m, r->target, ctx)) {
			wh_sql_qualified(edit_add(e, r->span.offset, r->span.len), r->target->schema,
					 r->target->name);
			continue;
		}
		if (r->span.part != part || !r->target || r->target->mat != MAT_EPHEMERAL)
			continue;
		b = edit_add(e, r->span.offset, r->span.len);
		eph_cte_name(b, r->target);
		if (!*r->alias) {
			buf_adds(b, " AS ");
			wh_sql_ident(b, r->target->name);
		}
		for (k = 0; k < *nephs; k++)
			if ((*ephs)[k] == r->target)
				break;
		if (k == *nephs) {
			*ephs = xreallocarray(*ephs, *nephs + 1, sizeof(**ephs));
			(*ephs)[(*nephs)++] = r->target;
		}
	}
	return rc;
}

/* The caller's edits of the body, in place of rendering's own that they
 * cover. */
static void add_extra_edits(struct edits *e, const struct render_edit *extra, size_t nextra)
{
	size_t kept = 0;

	for (size_t i = 0; i < e->n; i++) {
		bool covered = false;

		for (size_t k = 0; k < nextra && !covered; k++)
			covered = extra[k].len && e->v[i].offset >= extra[k].offset &&
				  e->v[i].offset < extra[k].offset + extra[k].len;
		if (covered)
			buf_release(&e->v[i].with);
		else
			e->v[kept++] = e->v[i];
	}
	e->n = kept;
	for (size_t k = 0; k < nextra; k++)
		buf_adds(edit_add(e, extra[k].offset, extra[k].len), extra[k].with);
}

static int render_part(const struct model *m, enum model_part part, const struct render_ctx *ctx,
		       const struct render_edit *extra, size_t nextra, struct buf *out,
		       const struct model ***ephs, size_t *nephs, struct sl_err *err)
{
	struct edits e = { 0 };
	int rc = part_edits(m, part, ctx, &e, ephs, nephs, err);

	if (!rc && part == PART_BODY && nextra)
		add_extra_edits(&e, extra, nextra);
	if (!rc)
		apply_edits(part == PART_BODY ? m->body : m->filter, &e, out);
	edits_free(&e);
	return rc;
}

/* Where a CTE list can take one more entry: just past `WITH [RECURSIVE]`
 * when the query starts with one, else 0 (a new WITH goes in front). */
static size_t with_insert_point(const char *sql, bool *has_with)
{
	size_t i = sqltext_skip_space(sql, 0);

	*has_with = false;
	if (strncasecmp(sql + i, "with", 4) != 0 || isalnum((unsigned char)sql[i + 4]) ||
	    sql[i + 4] == '_')
		return 0;
	*has_with = true;
	i += 4;
	size_t next = sqltext_skip_space(sql, i);
	if (strncasecmp(sql + next, "recursive", 9) == 0 && !isalnum((unsigned char)sql[next + 9]))
		i = next + 9;
	return i;
}

static int render_ephemerals(const struct render_ctx *ctx, const struct model **ephs,
			     size_t nephs, struct buf *ctes, int depth, struct sl_err *err);

static int render_query(const struct model *m, const struct render_ctx *ctx, bool with_filter,
			const struct render_edit *extra, size_t nextra, struct buf *out, int depth,
			struct sl_err *err)
{
	const struct model **ephs = NULL;
	size_t nephs = 0;
	struct buf q = BUF_INIT, ctes = BUF_INIT;
	int rc;

	if (depth > 64)
		return sl_err_set(err, SL_E_CYCLE, "ephemeral models nest too deeply at '%s'",
				  m->fqn);
	if (with_filter && m->filter) {
		buf_adds(&q, "SELECT * FROM (\n");
		rc = render_part(m, PART_BODY, ctx, NULL, 0, &q, &ephs, &nephs, err);
		buf_adds(&q, "\n) AS _sluice_src\n");
		if (!rc)
			rc = render_part(m, PART_FILTER, ctx, NULL, 0, &q, &ephs, &nephs, err);
	} else {
		rc = render_part(m, PART_BODY, ctx, extra, nextra, &q, &ephs, &nephs, err);
	}
	if (!rc && nephs)
		rc = render_ephemerals(ctx, ephs, nephs, &ctes, depth, err);
	if (!rc) {
		bool has_with;
		size_t at = nephs ? with_insert_point(q.buf, &has_with) : 0;

		if (!nephs) {
			buf_add(out, q.buf, q.len);
		} else if (has_with) {
			buf_add(out, q.buf, at);
			buf_addf(out, " %s,\n", ctes.buf);
			buf_adds(out, q.buf + at);
		} else {
			buf_addf(out, "WITH %s\n", ctes.buf);
			buf_add(out, q.buf, q.len);
		}
	}
	free(ephs);
	buf_release(&q);
	buf_release(&ctes);
	return rc;
}

static int render_ephemerals(const struct render_ctx *ctx, const struct model **ephs,
			     size_t nephs, struct buf *ctes, int depth, struct sl_err *err)
{
	for (size_t i = 0; i < nephs; i++) {
		struct render_ctx inner = *ctx;
		int rc;

		inner.this_relation = NULL;
		if (i)
			buf_adds(ctes, ",\n");
		eph_cte_name(ctes, ephs[i]);
		buf_adds(ctes, " AS (\n");
		rc = render_query(ephs[i], &inner, false, NULL, 0, ctes, depth + 1, err);
		if (rc)
			return rc;
		buf_adds(ctes, "\n)");
	}
	return 0;
}

int render_model(const struct model *m, const struct render_ctx *ctx, bool with_filter,
		 struct buf *out, struct sl_err *err)
{
	int rc = render_query(m, ctx, with_filter, NULL, 0, out, 0, err);

	if (rc)
		sl_err_context(err, "in model %s (%s)", m->fqn, m->path);
	return rc;
}

int render_model_edited(const struct model *m, const struct render_ctx *ctx,
			const struct render_edit *edits, size_t n, struct buf *out,
			struct sl_err *err)
{
	int rc = render_query(m, ctx, false, edits, n, out, 0, err);

	if (rc)
		sl_err_context(err, "in model %s (%s)", m->fqn, m->path);
	return rc;
}

bool render_filter_reads_this(const struct model *m)
{
	if (m->filter_reads_self)
		return true;
	for (size_t i = 0; i < m->nplaceholders; i++)
		if (m->placeholders[i].kind == PH_THIS && m->placeholders[i].span.part == PART_FILTER)
			return true;
	return false;
}
