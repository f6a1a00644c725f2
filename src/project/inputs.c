/*
 * Tracked inputs of live models: a walk over references that looks through
 * views and ephemerals. Reads the loaded project only.
 */
#include "project/inputs.h"

#include "core/arena.h"
#include "project/config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void inputs_source_name(const char *source, char *out, size_t len)
{
	snprintf(out, len, "%s%s", strchr(source, '.') ? "" : "landing.", source);
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

void inputs_source_table(const struct source_cfg *s, char *out, size_t len)
{
	bool adopted = s->kind && strcmp(s->kind, "adopted") == 0 && s->table;

	inputs_source_name(adopted ? s->table : s->name, out, len);
}

bool inputs_refreshes(const struct model *m)
{
	return m->live && m->mat == MAT_INCREMENTAL;
}

bool inputs_tracks(const struct model *m)
{
	if (inputs_refreshes(m))
		return true;
	if (m->mat != MAT_INCREMENTAL)
		return false;
	for (size_t i = 0; i < m->nplaceholders; i++)
		if (m->placeholders[i].kind == PH_WATERMARK)
			return true;
	return false;
}

static void add_source(struct arena *a, struct model_inputs *out, const char *name)
{
	for (size_t i = 0; i < out->nsources; i++)
		if (strcmp(out->sources[i], name) == 0)
			return;
	*ARENA_PUSH(a, &out->sources, &out->nsources, &out->sources_cap) = name;
}

static struct model_input *add_input(struct arena *a, struct model_inputs *out,
				     enum input_kind kind, const char *name, struct model *model)
{
	struct model_input *in;

	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->items[i].name, name) == 0)
			return &out->items[i];
	in = ARENA_PUSH(a, &out->items, &out->n, &out->cap);
	*in = (struct model_input){ .kind = kind, .name = name, .model = model };
	return in;
}

static void walk(struct arena *a, const struct model *m, struct model_inputs *out, int depth)
{
	if (depth > 64)
		return;
	for (size_t i = 0; i < m->nrefs; i++) {
		const struct model_ref *r = &m->refs[i];
		struct model *t = r->target;

		if (!t && r->adopted) {
			char table[256];
			const char *name;

			inputs_source_table(r->adopted, table, sizeof(table));
			name = arena_strdup(a, table);
			add_input(a, out, INPUT_SOURCE, name, NULL)->adopted = r->adopted;
			add_source(a, out, name);
		} else if (!t) {
			if (strcmp(r->schema, "landing") == 0) {
				const char *name = arena_sprintf(a, "landing.%s", r->name);

				add_input(a, out, INPUT_SOURCE, name, NULL);
				add_source(a, out, name);
			}
		} else if (t->mat == MAT_VIEW || t->mat == MAT_EPHEMERAL) {
			walk(a, t, out, depth + 1);
		} else if (inputs_refreshes(t)) {
			struct model_inputs up = { 0 };

			add_input(a, out, INPUT_MODEL, t->fqn, t);
			inputs_find(a, t, &up);
			for (size_t k = 0; k < up.nsources; k++)
				add_source(a, out, up.sources[k]);
		} else {
			bool seen = false;

			for (size_t k = 0; k < out->nbatch; k++)
				seen |= out->batch[k] == t;
			if (!seen)
				*ARENA_PUSH(a, &out->batch, &out->nbatch, &out->batch_cap) = t;
		}
	}
}

void inputs_find(struct arena *a, const struct model *m, struct model_inputs *out)
{
	memset(out, 0, sizeof(*out));
	walk(a, m, out, 0);
}

const struct model_input *inputs_get(const struct model_inputs *in, const char *name)
{
	char source[256];

	inputs_source_name(name, source, sizeof(source));
	for (size_t i = 0; i < in->n; i++)
		if (strcmp(in->items[i].name, name) == 0 || strcmp(in->items[i].name, source) == 0 ||
		    (in->items[i].adopted && strcasecmp(in->items[i].adopted->name, name) == 0))
			return &in->items[i];
	return NULL;
}
