/*
 * This file implements the walk of a YAML mapping against a table of the
 * keys valid at its level: each key found or said unknown (with the
 * nearest), each value checked for its kind and stored at its field's
 * offset, a section walked in turn, a mapping of its own handed to its
 * field's loader. It knows no key of sluice.yml: the tables are config.c's
 * and config_sources.c's.
 */
#include "project/config_int.h"

#include "core/arena.h"
#include "core/suggest.h"
#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *cfg_path(struct cfg_loader *ld, const char *parent, const char *key)
{
	return parent ? arena_sprintf(ld->a, "%s.%s", parent, key) : key;
}

const char *cfg_node_what(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a list";
	default:
		return "a scalar";
	}
}

/* YAML's null (an empty value, ~ or null) means "not set", as in dbt. */
bool cfg_is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

yaml_node_t *cfg_node(struct cfg_loader *ld, int index)
{
	return yaml_document_get_node(&ld->doc, index);
}

/* The pair of map whose key is name, or NULL (also when map is no mapping). */
yaml_node_pair_t *cfg_map_pair(struct cfg_loader *ld, yaml_node_t *map, const char *name)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *key = cfg_node(ld, p->key);

		if (key->type == YAML_SCALAR_NODE &&
		    !strcmp((const char *)key->data.scalar.value, name))
			return p;
	}
	return NULL;
}

bool cfg_map_has(struct cfg_loader *ld, yaml_node_t *map, const char *name)
{
	yaml_node_pair_t *p = cfg_map_pair(ld, map, name);

	return p && !cfg_is_null(cfg_node(ld, p->value));
}

/* The key of pair as text, or NULL once reported: a key must be a plain
 * name, and only the first of two equal keys counts. */
const char *cfg_pair_key(struct cfg_loader *ld, yaml_node_t *map, yaml_node_pair_t *pair,
			 const char *parent)
{
	yaml_node_t *key = cfg_node(ld, pair->key);
	const char *name;

	if (key->type != YAML_SCALAR_NODE) {
		cfg_error(ld, key, NULL, "expected a key name in %s, not %s", ld->display,
			  cfg_node_what(key));
		return NULL;
	}
	name = (const char *)key->data.scalar.value;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < pair; p++) {
		yaml_node_t *prev = cfg_node(ld, p->key);
		char hint[CFG_HINT_MAX];

		if (prev->type != YAML_SCALAR_NODE ||
		    strcmp((const char *)prev->data.scalar.value, name))
			continue;
		snprintf(hint, sizeof(hint), "first set on line %d",
			 (int)prev->start_mark.line + 1);
		cfg_error(ld, key, hint, "duplicate key '%s' in %s", cfg_path(ld, parent, name),
			  ld->display);
		return NULL;
	}
	return name;
}

const char *cfg_scalar(struct cfg_loader *ld, yaml_node_t *val, const char *path)
{
	if (val->type != YAML_SCALAR_NODE) {
		cfg_error(ld, val, NULL, "expected a scalar for '%s', not %s", path,
			  cfg_node_what(val));
		return NULL;
	}
	return (const char *)val->data.scalar.value;
}

bool cfg_want_map(struct cfg_loader *ld, yaml_node_t *val, const char *path)
{
	if (val->type == YAML_MAPPING_NODE)
		return true;
	cfg_error(ld, val, NULL, "expected a mapping for '%s', not %s", path, cfg_node_what(val));
	return false;
}

const struct cfg_field *cfg_field_find(const struct cfg_field *fields, const char *key)
{
	for (; fields->key; fields++) {
		if (!strcmp(fields->key, key))
			return fields;
	}
	return NULL;
}

static void cfg_unknown_key(struct cfg_loader *ld, yaml_node_t *key, const char *parent,
			    const struct cfg_field *fields)
{
	const char *keys[CFG_MAX_KEYS + 1];
	const char *name = (const char *)key->data.scalar.value;
	const char *near;
	char hint[CFG_HINT_MAX];
	size_t n = 0;

	for (; fields->key && n < CFG_MAX_KEYS; fields++)
		keys[n++] = fields->key;
	keys[n] = NULL;
	near = suggest_nearest(name, keys);
	if (near)
		snprintf(hint, sizeof(hint), "did you mean '%s'?", near);
	cfg_error(ld, key, near ? hint : NULL, "unknown key '%s' in %s",
		  cfg_path(ld, parent, name), ld->display);
}

static void cfg_choice_set(struct cfg_loader *ld, const struct cfg_field *f, yaml_node_t *val,
			   const char *s, const char *path, const char **dst)
{
	const char *near;
	char hint[CFG_HINT_MAX];
	size_t len;

	for (size_t i = 0; f->choices[i]; i++) {
		if (!strcmp(f->choices[i], s)) {
			*dst = arena_strdup(ld->a, s);
			return;
		}
	}
	near = suggest_nearest(s, f->choices);
	if (near) {
		snprintf(hint, sizeof(hint), "did you mean '%s'?", near);
	} else {
		len = (size_t)snprintf(hint, sizeof(hint), "expected one of");
		for (size_t i = 0; f->choices[i] && len < sizeof(hint); i++)
			len += (size_t)snprintf(hint + len, sizeof(hint) - len, "%s %s",
						i ? "," : "", f->choices[i]);
	}
	cfg_error(ld, val, hint, "unknown value '%s' for '%s'", s, path);
}

static bool cfg_bool_parse(const char *s, bool *out)
{
	/* libyaml reads YAML 1.1, whose booleans include yes/no and on/off */
	static const char *const yes[] = { "true", "yes", "on", NULL };
	static const char *const no[] = { "false", "no", "off", NULL };

	for (size_t i = 0; yes[i]; i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return true;
		}
	}
	return false;
}

static bool cfg_count_parse(const char *s, int64_t min, int64_t *out)
{
	char *end;
	long long v;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min)
		return false;
	*out = v;
	return true;
}

bool config_policy_parse(const char *s, int64_t *bound_ms)
{
	*bound_ms = 0;
	if (!strcmp(s, "full"))
		return true;
	return !strncmp(s, "bounded-", 8) && !units_parse_duration(s + 8, bound_ms) &&
	       *bound_ms > 0;
}

static void cfg_scalar_set(struct cfg_loader *ld, const struct cfg_field *f, yaml_node_t *val,
			   const char *path, char *dst)
{
	const char *s = cfg_scalar(ld, val, path);

	if (!s)
		return;
	switch (f->kind) {
	case CFG_STR:
		*(const char **)dst = arena_strdup(ld->a, s);
		break;
	case CFG_CHOICE:
		cfg_choice_set(ld, f, val, s, path, (const char **)dst);
		break;
	case CFG_DURATION:
		if (units_parse_duration(s, (int64_t *)dst))
			cfg_error(ld, val, "write e.g. 200ms, 10s, 5m, 1h, 7d",
				  "invalid duration '%s' for '%s'", s, path);
		else if (*(int64_t *)dst > UNITS_DURATION_MAX_MS)
			cfg_error(ld, val, "write at most 365d",
				  "invalid duration '%s' for '%s' (more than a year)", s, path);
		else if (!*(int64_t *)dst && f->zero)
			cfg_error(ld, val, f->zero, "invalid duration 0 for '%s'", path);
		break;
	case CFG_SIZE:
		if (units_parse_size(s, (int64_t *)dst))
			cfg_error(ld, val, "write e.g. 512KiB, 8MiB", "invalid size '%s' for '%s'",
				  s, path);
		else if (!*(int64_t *)dst && f->zero)
			cfg_error(ld, val, f->zero, "invalid size 0 for '%s'", path);
		break;
	case CFG_COUNT:
		if (!cfg_count_parse(s, 1, (int64_t *)dst))
			cfg_error(ld, val, "write a whole number above 0, e.g. 50000",
				  "invalid number '%s' for '%s'", s, path);
		break;
	case CFG_NATURAL:
		if (!cfg_count_parse(s, 0, (int64_t *)dst))
			cfg_error(ld, val, "write a whole number, 0 or more, e.g. 2",
				  "invalid number '%s' for '%s'", s, path);
		break;
	case CFG_BOOL:
		if (!cfg_bool_parse(s, (bool *)dst))
			cfg_error(ld, val, "write true or false", "invalid boolean '%s' for '%s'",
				  s, path);
		break;
	case CFG_POLICY:
		if (config_policy_parse(s, &(int64_t){ 0 }))
			*(const char **)dst = arena_strdup(ld->a, s);
		else
			cfg_error(ld, val, "write full or bounded-DURATION, e.g. bounded-7d",
				  "invalid replay policy '%s' for '%s'", s, path);
		break;
	default: /* mappings are cfg_value_set's business */
		break;
	}
}

static void cfg_value_set(struct cfg_loader *ld, const struct cfg_field *f, yaml_node_t *val,
			  const char *path, void *base)
{
	switch (f->kind) {
	case CFG_SECTION:
		if (cfg_want_map(ld, val, path))
			cfg_map_walk(ld, val, path, f->sub, base);
		break;
	case CFG_MAP:
		if (cfg_want_map(ld, val, path))
			f->load(ld, val, path, base);
		break;
	case CFG_NODE:
		f->load(ld, val, path, base);
		break;
	default:
		cfg_scalar_set(ld, f, val, path, (char *)base + f->off);
		break;
	}
}

void cfg_map_walk(struct cfg_loader *ld, yaml_node_t *map, const char *parent,
		  const struct cfg_field *fields, void *base)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *name = cfg_pair_key(ld, map, p, parent);
		yaml_node_t *val = cfg_node(ld, p->value);
		const struct cfg_field *f;

		if (!name)
			continue;
		f = cfg_field_find(fields, name);
		if (!f) {
			cfg_unknown_key(ld, cfg_node(ld, p->key), parent, fields);
			continue;
		}
		if (!cfg_is_null(val))
			cfg_value_set(ld, f, val, cfg_path(ld, parent, name), base);
	}
}

size_t cfg_map_len(const yaml_node_t *map)
{
	return (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
}
