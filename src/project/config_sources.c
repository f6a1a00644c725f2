/*
 * This file implements the checks of sluice.yml's sources: section: each
 * source's keys for its kind, its typed columns, a poll source's headers
 * and URL parts, a postgres_cdc source's names and the slots its sources
 * share, a files source's path and reader options. Like config.c, it says every problem and stops at none, never
 * reads the environment and never touches the warehouse.
 */
#include "project/config_int.h"

#include "core/arena.h"
#include "core/envref.h"
#include "project/bounds.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define SF(member) offsetof(struct source_cfg, member)

static const char *const source_kinds[] = { "webhook", "postgres_cdc", "poll", "kafka",
					    "files", "adopted", NULL };
static const char *const boundary_modes[] = { "offsets", "timestamp", "landed_at", "cursor",
					      NULL };
static const char *const snapshot_modes[] = { "initial", "never", NULL };
static const char *const replica_identities[] = { "full", NULL };
static const char *const kafka_formats[] = { "json", "debezium", NULL };
static const char *const file_endings[] = { "csv", "tsv", "txt", "json", "ndjson", "jsonl",
					    "parquet", NULL };

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
	{ "retention", CFG_DURATION, SF(retention_ms), NULL, NULL,
	  "landing rows older than this are pruned: write e.g. 30d" },
	{ "format", CFG_CHOICE, SF(format), kafka_formats },
	{ "table", CFG_STR, SF(table) },
	{ "partition_column", CFG_STR, SF(partition_column) },
	{ "offset_column", CFG_STR, SF(offset_column) },
	{ "create", CFG_BOOL, SF(create) },
	{ "snapshot", CFG_CHOICE, SF(snapshot), snapshot_modes },
	{ "status_interval", CFG_DURATION, SF(status_interval_ms), NULL, NULL,
	  "the consumer tells the server it is alive this often: write e.g. 10s" },
	{ "replica_identity", CFG_CHOICE, SF(replica_identity), replica_identities },
	{ "path", CFG_STR, SF(path) },
	{ "separator", CFG_STR, SF(separator) },
	{ "encoding", CFG_STR, SF(encoding) },
	{ "remove_top_rows", CFG_NATURAL, SF(remove_top_rows) },
	{ "dateformat", CFG_STR, SF(dateformat) },
	{ "file_ending", CFG_CHOICE, SF(file_ending), file_endings },
	{ "archive_folder", CFG_STR, SF(archive_folder) },
	{ "settle", CFG_DURATION, SF(settle_ms) },
	{ "max_file_size", CFG_SIZE, SF(max_file_size), NULL, NULL,
	  "a file of 0 bytes has no header: write e.g. 256MiB" },
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
	{ "files", { "path" } },
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

/* The keys only sources of some kinds read. */
static const char *const poll_only[] = { "url", "cursor_param", "json_path", "headers", "timeout",
					 NULL };
static const char *const cdc_only[] = { "create", "snapshot", "status_interval",
					"replica_identity", NULL };
static const char *const kafka_only[] = { "format", "properties", NULL };
static const char *const files_only[] = { "path",	 "separator",	   "encoding",
					  "remove_top_rows", "dateformat",  "file_ending",
					  "archive_folder", "settle",	   "max_file_size",
					  NULL };
static const char *const watched_only[] = { "interval", NULL };
static const char *const adopted_only[] = { "partition_column", "offset_column", NULL };

static bool kind_in(const char *kind, const char *const *kinds)
{
	for (size_t i = 0; kinds[i]; i++)
		if (strcmp(kinds[i], kind) == 0)
			return true;
	return false;
}

/* The keys of list that src, of a kind not in kinds, has. */
static void only_for(struct cfg_loader *ld, yaml_node_t *map, const struct source_cfg *src,
		     const char *const *kinds, const char *const *list)
{
	const char *which;

	if (!src->kind || kind_in(src->kind, kinds))
		return;
	which = kinds[1] ? arena_sprintf(ld->a, "%s and %s", kinds[0], kinds[1]) : kinds[0];
	for (size_t i = 0; list[i]; i++) {
		yaml_node_t *n = cfg_source_node(ld, map, list[i], false);

		if (n && cfg_map_has(ld, map, list[i]))
			cfg_error(ld, n, NULL, "'%s' applies to %s sources only, not to %s source "
				  "'%s'", list[i], which, src->kind, src->name);
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

/* Whether a path has a part that is '..': a files source reads its folder
 * and nothing above it. */
static bool cfg_path_climbs(const char *s)
{
	for (const char *p = s; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == s || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return true;
	return false;
}

/* What is wrong with a files source's path, or NULL: the folder part holds
 * no wildcard (the pattern is of file names, in one folder), and each '['
 * of the pattern is closed, else it can match no file. */
static const char *cfg_files_path_problem(const char *s)
{
	const char *slash = strrchr(s, '/');
	const char *name = slash ? slash + 1 : s;

	if (!*s)
		return "the path is empty";
	if (cfg_path_climbs(s))
		return "a path with '..' would read outside its folder";
	if (strpbrk(s, "*?[") && strpbrk(s, "*?[") < name)
		return "only the last part of a path, the file names, may hold '*', '?' or '['";
	for (const char *p = strchr(name, '['); p; p = strchr(p + 1, '[')) {
		const char *q = p + 1;

		if (*q == '!' || *q == '^')
			q++;
		if (*q == ']')
			q++;
		if (!strchr(q, ']'))
			return "a '[' without its ']' can match no file";
	}
	return NULL;
}

/* The encodings DuckDB's CSV reader has without an extension, under the
 * names people write them with. */
static const char *const encodings[][2] = {
	{ "utf-8", "utf-8" },	    { "utf8", "utf-8" },      { "utf-16", "utf-16" },
	{ "utf16", "utf-16" },	    { "latin-1", "latin-1" }, { "latin1", "latin-1" },
	{ "iso-8859-1", "latin-1" },
};

/* The options of a files source checked, and a few normalized: the
 * encoding to DuckDB's name, a separator written \t to a tab. */
static void cfg_files_check(struct cfg_loader *ld, yaml_node_t *map, struct source_cfg *src)
{
	const char *path = cfg_path(ld, "sources", src->name), *problem;
	const char *fmt = src->file_ending;
	bool csv = !fmt || !strcmp(fmt, "csv") || !strcmp(fmt, "tsv") || !strcmp(fmt, "txt");
	const char *csv_keys[] = { "separator", "encoding", "remove_top_rows" };

	if (src->path && (problem = cfg_files_path_problem(src->path)))
		cfg_error(ld, cfg_source_node(ld, map, "path", true),
			  "write a folder (incoming/) or a folder and a pattern of names "
			  "(incoming/orders_*.csv)",
			  "invalid path '%s' for '%s': %s", src->path, path, problem);
	if (src->archive_folder &&
	    (cfg_path_climbs(src->archive_folder) || strpbrk(src->archive_folder, "*?[")))
		cfg_error(ld, cfg_source_node(ld, map, "archive_folder", true),
			  "write a folder without '..' or wildcards, e.g. archive/orders",
			  "invalid archive_folder '%s' for '%s'", src->archive_folder, path);
	if (src->separator && !strcmp(src->separator, "\\t"))
		src->separator = "\t";
	if (src->separator && (!*src->separator || strlen(src->separator) > 4 ||
			       strpbrk(src->separator, "\"\r\n")))
		cfg_error(ld, cfg_source_node(ld, map, "separator", true),
			  "write one character, e.g. ';' or \"\\t\" for a tab",
			  "invalid separator '%s' for '%s'", src->separator, path);
	if (src->encoding) {
		const char *found = NULL;

		for (size_t i = 0; !found && i < sizeof(encodings) / sizeof(*encodings); i++)
			if (!strcasecmp(src->encoding, encodings[i][0]))
				found = encodings[i][1];
		if (!found)
			cfg_error(ld, cfg_source_node(ld, map, "encoding", true),
				  "DuckDB's CSV reader reads utf-8, utf-16 and latin-1",
				  "unknown encoding '%s' for '%s'", src->encoding, path);
		src->encoding = found;
	}
	if (src->dateformat && !strchr(src->dateformat, '%'))
		cfg_error(ld, cfg_source_node(ld, map, "dateformat", true),
			  "write a strftime format, e.g. '%%d/%%m/%%Y'",
			  "invalid dateformat '%s' for '%s'", src->dateformat, path);
	for (size_t i = 0; !csv && i < sizeof(csv_keys) / sizeof(*csv_keys); i++)
		if (cfg_map_has(ld, map, csv_keys[i]))
			cfg_error(ld, cfg_source_node(ld, map, csv_keys[i], false), NULL,
				  "'%s' applies to CSV files, not to the %s files of '%s'",
				  csv_keys[i], fmt, path);
	if (fmt && !strcmp(fmt, "parquet") && src->dateformat)
		cfg_error(ld, cfg_source_node(ld, map, "dateformat", false),
			  "a Parquet file says each column's type itself",
			  "'dateformat' applies to CSV and JSON files, not to the parquet files of "
			  "'%s'", path);
	if (src->settle_ms < 0)
		src->settle_ms = 1000;
	if (src->max_file_size < 0)
		src->max_file_size = 256LL << 20;
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

/* The boundary mode the source can give, and a retention it can keep. */
static void cfg_bounds_check(struct cfg_loader *ld, yaml_node_t *key, yaml_node_t *map,
			     const struct source_cfg *src)
{
	struct source_bounds b;
	const char *why = source_bounds_of(src, &b);
	yaml_node_t *at = cfg_source_node(ld, map, "boundary", false);

	if (why)
		cfg_error(ld, at ? at : key, NULL, "boundary '%s' of source '%s': %s", b.mode,
			  src->name, why);
	at = cfg_source_node(ld, map, "retention", false);
	if (src->retention_ms && strcmp(src->kind, "adopted") == 0)
		cfg_error(ld, at ? at : key, NULL,
			  "retention of source '%s': an adopted table is someone else's, and "
			  "sluice prunes only landing tables it writes",
			  src->name);
	else if (src->retention_ms && !b.time)
		cfg_error(ld, at ? at : key, "add event_time: COLUMN, the time rows age by",
			  "retention of source '%s': its rows have no time to age by", src->name);
}

static void cfg_source_check(struct cfg_loader *ld, yaml_node_t *key, yaml_node_t *map,
			     struct source_cfg *src)
{
	bool poll = src->kind && !strcmp(src->kind, "poll");
	bool cdc = src->kind && !strcmp(src->kind, "postgres_cdc");
	bool files = src->kind && !strcmp(src->kind, "files");

	if (src->interval_ms < 0)
		src->interval_ms = poll ? 30000 : files ? 5000 : 0;
	if (src->timeout_ms < 0)
		src->timeout_ms = poll ? 30000 : 0;
	if (poll)
		cfg_poll_check(ld, map, src);
	if (cdc)
		cfg_cdc_check(ld, map, src);
	if (files)
		cfg_files_check(ld, map, src);
	only_for(ld, map, src, (const char *const[]){ "postgres_cdc", NULL }, cdc_only);
	only_for(ld, map, src, (const char *const[]){ "poll", NULL }, poll_only);
	only_for(ld, map, src, (const char *const[]){ "kafka", NULL }, kafka_only);
	only_for(ld, map, src, (const char *const[]){ "files", NULL }, files_only);
	only_for(ld, map, src, (const char *const[]){ "poll", "files", NULL }, watched_only);
	only_for(ld, map, src, (const char *const[]){ "adopted", NULL }, adopted_only);
	if (!src->kind) {
		/* a kind that was written but is unknown has been reported already */
		if (!cfg_map_has(ld, map, "kind"))
			cfg_error(ld, key,
				  "add kind: webhook, postgres_cdc, poll, kafka, files or adopted",
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
	cfg_bounds_check(ld, key, map, src);
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
		/* -1 marks a setting nobody wrote: the default is the kind's (an
		 * interval is 30s for a poll source, 5s for a files source) */
		src->interval_ms = -1;
		src->timeout_ms = -1;
		src->status_interval_ms = -1;
		src->settle_ms = -1;
		src->max_file_size = -1;
		if (val->type == YAML_MAPPING_NODE)
			cfg_map_walk(ld, val, at, source_fields, src);
		cfg_source_check(ld, key, val, src);
	}
	cfg_slots_check(ld, map, cfg);
}
