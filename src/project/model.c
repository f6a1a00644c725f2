/*
 * Small lookups on a loaded project and its models.
 */
#include "project/model.h"

#include "core/arena.h"
#include "core/hash.h"
#include "windows/contract.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* FNV-1a of the name's bytes, lowercase: names match in any case. */
static size_t name_hash(const char *s)
{
	uint64_t h = HASH_INIT;

	for (; *s; s++)
		h = hash_byte(h, (unsigned char)tolower((unsigned char)*s));
	return (size_t)h;
}

static void index_put(struct model **slots, size_t cap, struct model *m)
{
	size_t i = name_hash(m->fqn) & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = m;
}

void project_index_model(struct project *p, struct model *m)
{
	/* a project loaded by hand (the tests') has no index: looked through */
	if (p->nindexed + 1 != p->nmodels)
		return;
	if (2 * (p->nindexed + 1) > p->index_cap) {
		size_t cap = p->index_cap ? 2 * p->index_cap : 64;
		struct model **slots = arena_alloc(p->arena, cap * sizeof(*slots));

		memset(slots, 0, cap * sizeof(*slots));
		for (size_t i = 0; i < p->index_cap; i++)
			if (p->index[i])
				index_put(slots, cap, p->index[i]);
		p->index = slots;
		p->index_cap = cap;
	}
	index_put(p->index, p->index_cap, m);
	p->nindexed++;
}

struct model *project_find_model(const struct project *p, const char *fqn)
{
	if (p->index && p->nindexed == p->nmodels) {
		for (size_t i = name_hash(fqn) & (p->index_cap - 1); p->index[i];
		     i = (i + 1) & (p->index_cap - 1))
			if (strcasecmp(p->index[i]->fqn, fqn) == 0)
				return p->index[i];
		return NULL;
	}
	for (size_t i = 0; i < p->nmodels; i++)
		if (strcasecmp(p->models[i]->fqn, fqn) == 0)
			return p->models[i];
	return NULL;
}

const char **project_model_names(const struct project *p)
{
	const char **names = arena_alloc(p->arena, (p->nmodels + 1) * sizeof(char *));

	for (size_t i = 0; i < p->nmodels; i++)
		names[i] = p->models[i]->fqn;
	return names;
}

const char *model_relation(const struct model *m)
{
	return m->relation ? m->relation : m->fqn;
}

bool model_upstream_streams(const struct model_upstream *u)
{
	return u->level > WIN_EXISTS && u->source && u->source->event_time;
}

const struct model_setting *model_setting_get(const struct model *m, const char *key)
{
	for (size_t i = 0; i < m->nsettings; i++)
		if (strcmp(m->settings[i].key, key) == 0)
			return &m->settings[i];
	return NULL;
}

bool model_keeps_changes(const struct model *m)
{
	return m->live && m->mat == MAT_INCREMENTAL && !m->temporal &&
	       (m->strategy == STRAT_MERGE || m->strategy == STRAT_DELETE_INSERT);
}

void model_span_position(const struct model *m, enum model_part part, size_t offset, int *line,
			 int *col)
{
	const char *s = part == PART_BODY ? m->body : m->filter;
	int l = part == PART_BODY ? m->body_line : m->filter_line;
	int c = 1;

	if (!s) {
		*line = l;
		*col = 0;
		return;
	}
	for (size_t i = 0; i < offset && s[i]; i++) {
		if (s[i] == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	/* the filter starts mid-line, after `incremental_filter=`; its column
	 * is only known for the lines after the first */
	if (part == PART_FILTER && l == m->filter_line)
		c = 0;
	*line = l;
	*col = c;
}

const char *model_mat_name(enum model_mat mat)
{
	static const char *const names[] = { "view", "table", "incremental", "ephemeral",
					     "snapshot", "seed" };
	return names[mat];
}

const char *model_strategy_name(enum model_strategy s)
{
	static const char *const names[] = { "", "append", "merge", "delete+insert",
					     "microbatch" };
	return names[s];
}

const char *model_upstream_option(const struct model_upstream *u, const char *key)
{
	for (size_t i = 0; i < u->nopts; i++)
		if (strcmp(u->keys[i], key) == 0)
			return u->values[i];
	return NULL;
}
