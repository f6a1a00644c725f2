/*
 * This file implements the checks of sluice.yml's sources: section: each
 * source's keys for its kind, its typed columns, a poll source's headers
 * and URL parts, a postgres_cdc source's names and the slots its sources
 * share. Like config.c, it says every problem and stops at none, never
 * reads the environment and never touches the warehouse.
 */
#include "project/config_int.h"

#include "core/arena.h"
#include "core/envref.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define SF(member) offsetof(struct source_cfg, member)

static const char *const source_kinds[] = { "webhook", "postgres_cdc", "poll", "kafka",
					    "adopted", NULL };
static const char *const boundary_modes[] = { "offsets", "timestamp", "landed_at", "cursor",
					      NULL };
static const char *const snapshot_modes[] = { "initial", "never", NULL };
static const char *const replica_identities[] = { "full", NULL };
static const char *const kafka_formats[] = { "json", "debezium", NULL };

static const struct cfg_field source_fields[] = {
	{ "kind", CFG_CHOICE, SF(kind), source_kinds },
	{ "columns", CFG_MAP, 0, NULL, NULL, NULL, cfg_columns_load },
	{ "secret_env", CFG_STR, SF(secret_env) },
	{ "event_time", CFG_STR, SF(event_time) },
	{ "lateness", CFG_DURATION, SF(lateness_ms) },
	{ "dsn_env", CFG_STR, SF(dsn_env) },
	{ "publication", CFG_STR, SF(publication) },
	{ "slot", CFG_STR, SF(slot) },
	{ "url", CFG_STR, SF(url) },
	{ "interval", CFG_DURATION, SF(interval_ms), NULL, NULL,
	  "a poll source asks its API this often: write e.g. 30s" },
	{ "cursor", CFG_STR, SF(cursor) },
	{ "cursor_param", CFG_STR, SF(cursor_param) },
	{ "json_path", CFG_STR, SF(json_path) },
	{ "headers", CFG_MAP, 0, NULL, NULL, NULL, cfg_headers_load },
	{ "timeout", CFG_DURATION, SF(timeout_ms), NULL, NULL,
	  "a request needs time to be answered: write e.g. 10s" },
	{ "brokers", CFG_STR, SF(brokers) },
	{ "topic", CFG_NODE, SF(topics), NULL, NULL, NULL, cfg_topics_load },
	{ "properties", CFG_MAP, 0, NULL, NULL, NULL, cfg_properties_load },
	{ "boundary", CFG_CHOICE, SF(boundary), boundary_modes },
	{ "format", CFG_CHOICE, SF(format), kafka_formats },
	{ "table", CFG_STR, SF(table) },
	{ "create", CFG_BOOL, SF(create) },
	{ "snapshot", CFG_CHOICE, SF(snapshot), snapshot_modes },
	{ "status_interval", CFG_DURATION, SF(status_interval_ms), NULL, NULL,
	  "the consumer tells the server it is alive this often: write e.g. 10s" },
	{ "replica_identity", CFG_CHOICE, SF(replica_identity), replica_identities },
	{ NULL },
};

/* The fields each source kind cannot work without. */
#define NEEDS_MAX 3
static const struct {
	const char *kind;
	const char *needs[NEEDS_MAX];
} source_needs[] = {
	{ "poll", { "url" } },
	{ "kafka", { "brokers", "topic" } },
	{ "postgres_cdc", { "dsn_env", "slot", "publication" } },
	{ "adopted", { "table", "cursor" } },
};

void cfg_columns_load(struct cfg_loader *ld, yaml_node_t *map, const char *path, void *base)
{
	struct source_cfg *src = base;

	src->columns = arena_alloc(ld->a, cfg_map_len(map) * sizeof(*src->columns));
	src->ncolumns = 0;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *name = cfg_pair_key(ld, map, p, path);
		yaml_node_t *val = cfg_node(ld, p->value);
		struct cfg_column *col;
		const char *type;

		if (!name)
			continue;
		if (cfg_is_null(val)) {
			cfg_error(ld, cfg_node(ld, p->key), "write e.g. amount: DECIMAL(12, 2)",
				  "missing type for column '%s'", cfg_path(ld, path, name));
			continue;
		}
		type = cfg_scalar(ld, val, cfg_path(ld, path, name));
		if (!type)
			continue;
		col = &src->columns[src->ncolumns++];
		col->name = arena_strdup(ld->a, name);
		col->type = arena_strdup(ld->a, type);
	}
}

/* An HTTP header name is a token (RFC 9110): no spaces, colons or quotes. */
static bool cfg_header_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s))
			return false;
	}
	return true;
}

/* A header value: no line breaks, and its ${NAME} references well
 * written. Returns NULL when fine, else what is wrong. */
static const char *cfg_header_value_problem(const char *s)
{
	if (strpbrk(s, "\r\n"))
		return "a header value cannot hold a line break";
	return envref_problem(s);
}

void cfg_headers_load(struct cfg_loader *ld, yaml_node_t *map, const char *path, void *base)
{
	struct source_cfg *src = base;

	src->headers = arena_alloc(ld->a, cfg_map_len(map) * sizeof(*src->headers));
	src->nheaders = 0;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *name = cfg_pair_key(ld, map, p, path);
		yaml_node_t *val = cfg_node(ld, p->value);
		const char *value, *problem;
		struct cfg_header *h;

		if (!name)
			continue;
		if (!cfg_header_name_ok(name)) {
			cfg_error(ld, cfg_node(ld, p->key), "use letters, digits and '-', e.g. X-Api-Key",
				  "invalid header name '%s' in '%s'", name, path);
			continue;
		}
		if (cfg_is_null(val)) {
			cfg_error(ld, cfg_node(ld, p->key),
				  "write e.g. Authorization: \"Bearer ${API_TOKEN}\"",
				  "missing value for header '%s'", cfg_path(ld, path, name));
			continue;
		}
		value = cfg_scalar(ld, val, cfg_path(ld, path, name));
		if (!value)
			continue;
		problem = cfg_header_value_problem(value);
		if (problem) {
			cfg_error(ld, val, problem, "invalid value for header '%s'",
				  cfg_path(ld, path, name));
			continue;
		}
		h = &src->headers[src->nheaders++];
		h->name = arena_strdup(ld->a, name);
		h->value = arena_strdup(ld->a, value);
	}
}

/* A Kafka topic's name, as Kafka takes it: 1 to 249 letters, digits,
 * '.', '_' and '-' (so never the ':' and ',' of stored offsets). */
static bool cfg_topic_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 249)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

/* One topic's name into src's list, unless it is bad or there already. */
static void cfg_topic_add(struct cfg_loader *ld, yaml_node_t *val, const char *path,
			  struct source_cfg *src)
{
	const char *name = cfg_scalar(ld, val, path);

	if (!name)
		return;
	if (!cfg_topic_ok(name)) {
		cfg_error(ld, val, "use letters, digits, '.', '_' and '-', at most 249",
			  "invalid topic '%s' for '%s'", name, path);
		return;
	}
	for (size_t i = 0; i < src->ntopics; i++)
		if (strcmp(src->topics[i], name) == 0) {
			cfg_error(ld, val, "name each topic once", "topic '%s' twice in '%s'", name,
				  path);
			return;
		}
	src->topics[src->ntopics++] = arena_strdup(ld->a, name);
}

void cfg_topics_load(struct cfg_loader *ld, yaml_node_t *val, const char *path, void *base)
{
	struct source_cfg *src = base;
	yaml_node_item_t *items = NULL, *top = NULL;

	if (val->type == YAML_SEQUENCE_NODE) {
		items = val->data.sequence.items.start;
		top = val->data.sequence.items.top;
	}
	src->topics = arena_alloc(ld->a, ((size_t)(top - items) + 1) * sizeof(*src->topics));
	src->ntopics = 0;
	if (val->type != YAML_SEQUENCE_NODE) {
		cfg_topic_add(ld, val, path, src);
		return;
	}
	if (items == top)
		cfg_error(ld, val, "write topic: clicks, or topic: [clicks, views]",
			  "no topic in '%s'", path);
	for (yaml_node_item_t *it = items; it < top; it++)
		cfg_topic_add(ld, cfg_node(ld, *it), path, src);
}

/* A librdkafka property's name: lowercase words joined by dots or '_'. */
static bool cfg_property_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && !strchr("._", *s))
			return false;
	return true;
}

void cfg_properties_load(struct cfg_loader *ld, yaml_node_t *map, const char *path, void *base)
{
	struct source_cfg *src = base;

	src->properties = arena_alloc(ld->a, (cfg_map_len(map) + 1) * sizeof(*src->properties));
	src->nproperties = 0;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *name = cfg_pair_key(ld, map, p, path);
		yaml_node_t *key = cfg_node(ld, p->key);
		yaml_node_t *val = cfg_node(ld, p->value);
		const char *value, *problem;
		struct cfg_setting *set;

		if (!name)
			continue;
		if (!cfg_property_name_ok(name)) {
			cfg_error(ld, key, "name a librdkafka property, e.g. fetch.wait.max.ms",
				  "invalid property name '%s' in '%s'", name, path);
			continue;
		}
		if (cfg_is_null(val)) {
			cfg_error(ld, key, "write e.g. sasl.password: \"${KAFKA_PASSWORD}\"",
				  "missing value for property '%s'", cfg_path(ld, path, name));
			continue;
		}
		value = cfg_scalar(ld, val, cfg_path(ld, path, name));
		if (!value)
			continue;
		problem = envref_problem(value);
		if (problem) {
			cfg_error(ld, val, problem, "invalid value for property '%s'",
				  cfg_path(ld, path, name));
			continue;
		}
		set = &src->properties[src->nproperties++];
		set->name = arena_strdup(ld->a, name);
		set->value = arena_strdup(ld->a, value);
		set->line = (int)key->start_mark.line + 1;
	}
}

/* A source name becomes the table landing.NAME, so it must be a plain SQL
 * identifier that needs no quoting. */
static bool cfg_ident_ok(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++) {
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	}
	return true;
}

/* The node of a source's key (or of its value), or NULL. */
static yaml_node_t *cfg_source_node(struct cfg_loader *ld, yaml_node_t *map, const char *name,
				    bool value)
{
	yaml_node_pair_t *p = cfg_map_pair(ld, map, name);

	return p ? cfg_node(ld, value ? p->value : p->key) : NULL;
}

/* The keys only a poll source reads. */
static const char *const poll_only[] = { "url",	      "interval", "cursor_param",
					 "json_path", "headers",  "timeout",
					 NULL };
static const char *const cdc_only[] = { "create", "snapshot", "status_interval",
					"replica_identity", NULL };
static const char *const kafka_only[] = { "format", "properties", NULL };

/* The keys of list that src, of another kind than kind, has. */
static void only_for(struct cfg_loader *ld, yaml_node_t *map, const struct source_cfg *src,
		     const char *kind, const char *const *list)
{
	if (!src->kind || strcmp(src->kind, kind) == 0)
		return;
	for (size_t i = 0; list[i]; i++) {
		yaml_node_t *n = cfg_source_node(ld, map, list[i], false);

		if (n && cfg_map_has(ld, map, list[i]))
			cfg_error(ld, n, NULL, "'%s' applies to %s sources only, not to %s source "
				  "'%s'", list[i], kind, src->kind, src->name);
	}
}

/* A dot path: keys separated by single dots, none empty. */
static bool cfg_dot_path_ok(const char *s)
{
	if (!*s || *s == '.' || s[strlen(s) - 1] == '.')
		return false;
	return !strstr(s, "..");
}

static bool cfg_query_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isalnum((unsigned char)*s) && !strchr("-._~", *s))
			return false;
	}
	return true;
}

static void cfg_poll_check(struct cfg_loader *ld, yaml_node_t *map, struct source_cfg *src)
{
	const char *path = cfg_path(ld, "sources", src->name);

	if (src->url && strncasecmp(src->url, "http://", 7) != 0 &&
	    strncasecmp(src->url, "https://", 8) != 0)
		cfg_error(ld, cfg_source_node(ld, map, "url", true),
			  "write e.g. https://api.example.com/v1/rates",
			  "invalid url '%s' for '%s.url' (http or https only)", src->url, path);
	if (src->cursor_param && !cfg_query_name_ok(src->cursor_param))
		cfg_error(ld, cfg_source_node(ld, map, "cursor_param", true),
			  "use letters, digits, '-', '.', '_' or '~'",
			  "invalid query parameter '%s' for '%s.cursor_param'", src->cursor_param,
			  path);
	else if (src->cursor_param && !src->cursor)
		cfg_error(ld, cfg_source_node(ld, map, "cursor_param", false),
			  "add cursor: COLUMN, the field whose highest value is sent",
			  "'%s.cursor_param' needs a cursor", path);
	if (src->json_path && !cfg_dot_path_ok(src->json_path))
		cfg_error(ld, cfg_source_node(ld, map, "json_path", true),
			  "write the keys from the top of the response, separated by dots, e.g. "
			  "data.items",
			  "invalid json_path '%s' for '%s'", src->json_path, path);
	if (src->cursor && !cfg_dot_path_ok(src->cursor))
		cfg_error(ld, cfg_source_node(ld, map, "cursor", true),
			  "name a field of the rows, e.g. updated_at or meta.version",
			  "invalid cursor '%s' for '%s'", src->cursor, path);
}

/* A PostgreSQL name sluice writes into its commands unquoted: a
 * replication slot's name is lowercase letters, digits and '_' only. */
static bool cfg_pg_name_ok(const char *s, bool lower)
{
	if (strlen(s) > 63 || !cfg_ident_ok(s))
		return false;
	for (; lower && *s; s++)
		if (isupper((unsigned char)*s))
			return false;
	return true;
}

/* "schema.name" or "name", each a plain identifier. */
static bool cfg_pg_table_ok(const char *s)
{
	const char *dot = strchr(s, '.');
	char schema[64];

	if (!dot)
		return cfg_pg_name_ok(s, false);
	if ((size_t)(dot - s) >= sizeof(schema))
		return false;
	snprintf(schema, sizeof(schema), "%.*s", (int)(dot - s), s);
	return cfg_pg_name_ok(schema, false) && cfg_pg_name_ok(dot + 1, false);
}

static void cfg_cdc_check(struct cfg_loader *ld, yaml_node_t *map, struct source_cfg *src)
{
	const char *path = cfg_path(ld, "sources", src->name);

	if (src->slot && !cfg_pg_name_ok(src->slot, true))
		cfg_error(ld, cfg_source_node(ld, map, "slot", true),
			  "use lowercase letters, digits and '_', at most 63",
			  "invalid slot '%s' for '%s.slot'", src->slot, path);
	if (src->publication && !cfg_pg_name_ok(src->publication, false))
		cfg_error(ld, cfg_source_node(ld, map, "publication", true),
			  "use letters, digits and '_', at most 63",
			  "invalid publication '%s' for '%s.publication'", src->publication, path);
	if (src->table && !cfg_pg_table_ok(src->table))
		cfg_error(ld, cfg_source_node(ld, map, "table", true),
			  "write the source table as schema.name, e.g. public.orders",
			  "invalid table '%s' for '%s.table'", src->table, path);
	else if (!src->table)
		src->table = arena_sprintf(ld->a, "public.%s", src->name);
	else if (!strchr(src->table, '.'))
		src->table = arena_sprintf(ld->a, "public.%s", src->table);
	if (!src->snapshot)
		src->snapshot = "initial";
	if (src->status_interval_ms < 0)
		src->status_interval_ms = 10000;
	if (src->ncolumns)
		cfg_error(ld, cfg_source_node(ld, map, "columns", false),
			  "read the values from payload in a model",
			  "'columns' does not apply to postgres_cdc source '%s': each change lands "
			  "as its row's payload JSON", src->name);
}

/* Sources that share a slot are one consumer: one server, one publication. */
static void cfg_slots_check(struct cfg_loader *ld, yaml_node_t *map, struct project_cfg *cfg)
{
	for (size_t i = 0; i < cfg->nsources; i++) {
		const struct source_cfg *s = &cfg->sources[i];

		if (!s->kind || strcmp(s->kind, "postgres_cdc") || !s->slot)
			continue;
		for (size_t k = 0; k < i; k++) {
			const struct source_cfg *o = &cfg->sources[k];
			yaml_node_t *at = cfg_source_node(ld, map, s->name, false);
			const char *what = NULL;

			if (!o->kind || strcmp(o->kind, "postgres_cdc") || !o->slot ||
			    strcmp(o->slot, s->slot))
				continue;
			if (!o->dsn_env || !s->dsn_env || strcmp(o->dsn_env, s->dsn_env))
				what = "dsn_env";
			else if (!o->publication || !s->publication ||
				 strcmp(o->publication, s->publication))
				what = "publication";
			else if (o->create != s->create)
				what = "create";
			else if (o->snapshot && s->snapshot && strcmp(o->snapshot, s->snapshot))
				what = "snapshot";
			else if (o->status_interval_ms != s->status_interval_ms)
				what = "status_interval";
			else if (o->table && s->table && !strcmp(o->table, s->table))
				what = "table";
			if (!what)
				continue;
			if (strcmp(what, "table") == 0)
				cfg_error(ld, at, "give each source of the slot a table of its own",
					  "sources '%s' and '%s' share slot '%s' and table '%s'",
					  o->name, s->name, s->slot, s->table);
			else
				cfg_error(ld, at, "sources of one slot are read by one consumer",
					  "source '%s' shares slot '%s' with '%s' but not its '%s'",
					  s->name, s->slot, o->name, what);
			break;
		}
	}
}

static void cfg_source_check(struct cfg_loader *ld, yaml_node_t *key, yaml_node_t *map,
			     struct source_cfg *src)
{
	bool poll = src->kind && !strcmp(src->kind, "poll");
	bool cdc = src->kind && !strcmp(src->kind, "postgres_cdc");

	if (src->interval_ms < 0)
		src->interval_ms = poll ? 30000 : 0;
	if (src->timeout_ms < 0)
		src->timeout_ms = poll ? 30000 : 0;
	if (poll)
		cfg_poll_check(ld, map, src);
	if (cdc)
		cfg_cdc_check(ld, map, src);
	only_for(ld, map, src, "postgres_cdc", cdc_only);
	only_for(ld, map, src, "poll", poll_only);
	only_for(ld, map, src, "kafka", kafka_only);
	if (!src->kind) {
		/* a kind that was written but is unknown has been reported already */
		if (!cfg_map_has(ld, map, "kind"))
			cfg_error(ld, key,
				  "add kind: webhook, postgres_cdc, poll, kafka or adopted",
				  "missing 'kind' for source '%s'", src->name);
		return;
	}
	for (size_t i = 0; i < sizeof(source_needs) / sizeof(source_needs[0]); i++) {
		if (strcmp(source_needs[i].kind, src->kind))
			continue;
		for (size_t j = 0; j < NEEDS_MAX && source_needs[i].needs[j]; j++) {
			const char *need = source_needs[i].needs[j];
			const struct cfg_field *f = cfg_field_find(source_fields, need);

			if ((f->kind != CFG_NODE && *(const char **)((char *)src + f->off)) ||
			    cfg_map_has(ld, map, need))
				continue;
			cfg_error(ld, key, NULL, "missing '%s' for %s source '%s'", need, src->kind,
				  src->name);
		}
	}
	if (src->lateness_ms && !src->event_time)
		cfg_error(ld, key, "add event_time: COLUMN, the time lateness counts back from",
			  "lateness without event_time for source '%s'", src->name);
}

void cfg_sources_load(struct cfg_loader *ld, yaml_node_t *map, const char *path, void *base)
{
	struct project_cfg *cfg = base;

	cfg->sources = arena_alloc(ld->a, cfg_map_len(map) * sizeof(*cfg->sources));
	cfg->nsources = 0;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *name = cfg_pair_key(ld, map, p, path);
		yaml_node_t *key = cfg_node(ld, p->key);
		yaml_node_t *val = cfg_node(ld, p->value);
		const char *at;
		struct source_cfg *src;

		if (!name)
			continue;
		if (!cfg_ident_ok(name)) {
			cfg_error(ld, key, "use letters, digits and '_', not starting with a digit",
				  "invalid source name '%s'", name);
			continue;
		}
		at = cfg_path(ld, path, name);
		if (!cfg_is_null(val) && !cfg_want_map(ld, val, at))
			continue;
		src = &cfg->sources[cfg->nsources++];
		src->name = arena_strdup(ld->a, name);
		src->line = (int)key->start_mark.line + 1;
		/* -1 marks an interval or timeout nobody wrote: only poll sources
		 * default to 30s */
		src->interval_ms = -1;
		src->timeout_ms = -1;
		src->status_interval_ms = -1;
		if (val->type == YAML_MAPPING_NODE)
			cfg_map_walk(ld, val, at, source_fields, src);
		cfg_source_check(ld, key, val, src);
	}
	cfg_slots_check(ld, map, cfg);
}
