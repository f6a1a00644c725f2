/*
 * This file implements the loaders of sluice.yml and pipeline.yml. The YAML
 * is parsed with libyaml's document API; each mapping is then checked
 * against a table of the keys valid at its level, and every problem becomes
 * a diagnostic with its file:line:col, so one run shows all of them. It must
 * never stop at the first problem, never read the environment or touch the
 * warehouse, and never hand out memory that is not in the caller's arena.
 */
#include "project/config.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/units.h"
#include "project/files.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#define CFG_MAX_KEYS 32
#define CFG_HINT_MAX 256

struct cfg_loader {
	struct arena *a;
	struct diag_list *diags;
	const char *display;
	yaml_document_t doc; /* owned by the loader once cfg_doc_load succeeded */
};

/* libyaml marks are 0-based; diagnostics are 1-based. */
#define cfg_error(ld, node, hint, ...)                                                   \
	diag_add((ld)->diags, DIAG_ERROR, (ld)->display, (int)(node)->start_mark.line + 1, \
		 (int)(node)->start_mark.column + 1, hint, __VA_ARGS__)

enum cfg_kind {
	CFG_STR,
	CFG_CHOICE,   /* one of field->choices */
	CFG_DURATION, /* int64_t milliseconds */
	CFG_SIZE,     /* int64_t bytes */
	CFG_COUNT,    /* int64_t, positive */
	CFG_BOOL,
	CFG_POLICY,   /* full | bounded-DURATION */
	CFG_SECTION,  /* a mapping described by field->sub, same base */
	CFG_SOURCES,  /* base is a struct project_cfg */
	CFG_COLUMNS,  /* base is a struct source_cfg */
	CFG_HEADERS,  /* base is a struct source_cfg */
};

/* One valid key of a mapping; off is where its value goes, counted from the
 * base pointer the table is walked with. A duration or size whose 0 means
 * nothing useful (a runner that never sleeps, a retry without a pause)
 * says why in zero, the hint that refuses it; the others take 0 as "none"
 * or "at once", as docs/project.md lists. */
struct cfg_field {
	const char *key;
	enum cfg_kind kind;
	size_t off;
	const char *const *choices;
	const struct cfg_field *sub;
	const char *zero;
};

#define PF(member) offsetof(struct project_cfg, member)
#define SF(member) offsetof(struct source_cfg, member)

static const char *const warehouse_types[] = { "duckdb", "postgres", NULL };
static const char *const source_kinds[] = { "webhook", "postgres_cdc", "poll", "kafka",
					    "adopted", NULL };
static const char *const boundary_modes[] = { "offsets", "timestamp", "landed_at", "cursor",
					      NULL };
static const char *const snapshot_modes[] = { "initial", "never", NULL };
static const char *const replica_identities[] = { "full", NULL };
static const char *const replay_fallbacks[] = { "full", "bounded_without_history", NULL };

static const struct cfg_field warehouse_fields[] = {
	{ "type", CFG_CHOICE, PF(warehouse.type), warehouse_types },
	{ "path", CFG_STR, PF(warehouse.path) },
	{ "dsn_env", CFG_STR, PF(warehouse.dsn_env) },
	{ NULL },
};

static const struct cfg_field source_fields[] = {
	{ "kind", CFG_CHOICE, SF(kind), source_kinds },
	{ "columns", CFG_COLUMNS },
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
	{ "headers", CFG_HEADERS },
	{ "timeout", CFG_DURATION, SF(timeout_ms), NULL, NULL,
	  "a request needs time to be answered: write e.g. 10s" },
	{ "brokers", CFG_STR, SF(brokers) },
	{ "topic", CFG_STR, SF(topic) },
	{ "boundary", CFG_CHOICE, SF(boundary), boundary_modes },
	{ "table", CFG_STR, SF(table) },
	{ "create", CFG_BOOL, SF(create) },
	{ "snapshot", CFG_CHOICE, SF(snapshot), snapshot_modes },
	{ "status_interval", CFG_DURATION, SF(status_interval_ms), NULL, NULL,
	  "the consumer tells the server it is alive this often: write e.g. 10s" },
	{ "replica_identity", CFG_CHOICE, SF(replica_identity), replica_identities },
	{ NULL },
};

static const struct cfg_field live_fields[] = {
	{ "enabled", CFG_BOOL, PF(live.enabled) },
	{ "min_interval", CFG_DURATION, PF(live.min_interval_ms) },
	{ "debounce", CFG_DURATION, PF(live.debounce_ms) },
	{ "max_latency", CFG_DURATION, PF(live.max_latency_ms) },
	{ "poll_interval", CFG_DURATION, PF(live.poll_interval_ms), NULL, NULL,
	  "the runner would look for new rows without a pause, busy all the time: write e.g. 5s" },
	{ "log_interval", CFG_DURATION, PF(live.log_interval_ms) },
	{ "backoff_base", CFG_DURATION, PF(live.backoff_base_ms), NULL, NULL,
	  "a failing model would be retried at once, over and over: write e.g. 2s" },
	{ "backoff_max", CFG_DURATION, PF(live.backoff_max_ms), NULL, NULL,
	  "a failing model would be retried at once, over and over: write e.g. 300s" },
	{ "assertion_interval", CFG_DURATION, PF(live.assertion_interval_ms) },
	{ "profile_interval", CFG_DURATION, PF(live.profile_interval_ms) },
	{ "max_lag", CFG_DURATION, PF(live.max_lag_ms), NULL, NULL,
	  "every live model lags a little, so each would count as stale: write e.g. 300s" },
	{ NULL },
};

static const struct cfg_field server_fields[] = {
	{ "listen", CFG_STR, PF(server.listen) },
	{ "token_env", CFG_STR, PF(server.token_env) },
	{ "max_body", CFG_SIZE, PF(server.max_body), NULL, NULL,
	  "no request with a body could be read: write e.g. 8MiB" },
	{ "header_timeout", CFG_DURATION, PF(server.header_timeout_ms), NULL, NULL,
	  "a request needs time to send its header: write e.g. 10s" },
	{ "idle_timeout", CFG_DURATION, PF(server.idle_timeout_ms), NULL, NULL,
	  "a connection needs time between requests: write e.g. 60s" },
	{ "min_body_rate", CFG_SIZE, PF(server.min_body_rate), NULL, NULL,
	  "a body that arrives at 0 bytes a second never arrives: write e.g. 4KiB" },
	{ "max_client_connections", CFG_COUNT, PF(server.max_client_connections) },
	{ NULL },
};

static const struct cfg_field ingest_fields[] = {
	{ "flush_interval", CFG_DURATION, PF(ingest.flush_interval_ms) },
	{ "flush_rows", CFG_COUNT, PF(ingest.flush_rows) },
	{ NULL },
};

static const struct cfg_field alerts_fields[] = {
	{ "command", CFG_STR, PF(alerts.command) },
	{ NULL },
};

static const struct cfg_field on_change_fields[] = {
	{ "breaking", CFG_POLICY, PF(replay.on_change_breaking) },
	{ "non_breaking", CFG_POLICY, PF(replay.on_change_non_breaking) },
	{ NULL },
};

static const struct cfg_field replay_fields[] = {
	{ "bounded_replay_fallback", CFG_CHOICE, PF(replay.bounded_replay_fallback),
	  replay_fallbacks },
	{ "replay_on_change", CFG_SECTION, 0, NULL, on_change_fields },
	{ NULL },
};

static const struct cfg_field project_fields[] = {
	{ "name", CFG_STR, PF(name) },
	{ "warehouse", CFG_SECTION, 0, NULL, warehouse_fields },
	{ "sources", CFG_SOURCES },
	{ "live", CFG_SECTION, 0, NULL, live_fields },
	{ "server", CFG_SECTION, 0, NULL, server_fields },
	{ "ingest", CFG_SECTION, 0, NULL, ingest_fields },
	{ "alerts", CFG_SECTION, 0, NULL, alerts_fields },
	{ "replay", CFG_SECTION, 0, NULL, replay_fields },
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

void project_cfg_defaults(struct project_cfg *cfg)
{
	cfg->warehouse.type = "duckdb";
	cfg->warehouse.path = "warehouse.duckdb";
	cfg->live.enabled = true;
	cfg->live.min_interval_ms = 1000;
	cfg->live.debounce_ms = 200;
	cfg->live.max_latency_ms = 5000;
	cfg->live.poll_interval_ms = 5000;
	cfg->live.log_interval_ms = 60000;
	cfg->live.backoff_base_ms = 2000;
	cfg->live.backoff_max_ms = 300000;
	cfg->live.assertion_interval_ms = 0;
	cfg->live.profile_interval_ms = 300000;
	cfg->live.max_lag_ms = 300000;
	cfg->server.listen = "127.0.0.1:8080";
	cfg->server.max_body = 8 * 1024 * 1024;
	cfg->server.header_timeout_ms = 10 * 1000;
	cfg->server.idle_timeout_ms = 60 * 1000;
	cfg->server.min_body_rate = 4 * 1024;
	cfg->server.max_client_connections = 256;
	cfg->ingest.flush_interval_ms = 0;
	cfg->ingest.flush_rows = 50000;
	cfg->replay.bounded_replay_fallback = "full";
	cfg->replay.on_change_breaking = "full";
	cfg->replay.on_change_non_breaking = "bounded-7d";
}

static const char *cfg_path(struct cfg_loader *ld, const char *parent, const char *key)
{
	return parent ? arena_sprintf(ld->a, "%s.%s", parent, key) : key;
}

static const char *cfg_node_what(const yaml_node_t *n)
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
static bool cfg_is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

static yaml_node_t *cfg_node(struct cfg_loader *ld, int index)
{
	return yaml_document_get_node(&ld->doc, index);
}

/* The pair of map whose key is name, or NULL (also when map is no mapping). */
static yaml_node_pair_t *cfg_map_pair(struct cfg_loader *ld, yaml_node_t *map, const char *name)
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

static bool cfg_map_has(struct cfg_loader *ld, yaml_node_t *map, const char *name)
{
	yaml_node_pair_t *p = cfg_map_pair(ld, map, name);

	return p && !cfg_is_null(cfg_node(ld, p->value));
}

/* The key of pair as text, or NULL once reported: a key must be a plain
 * name, and only the first of two equal keys counts. */
static const char *cfg_pair_key(struct cfg_loader *ld, yaml_node_t *map, yaml_node_pair_t *pair,
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

static const char *cfg_scalar(struct cfg_loader *ld, yaml_node_t *val, const char *path)
{
	if (val->type != YAML_SCALAR_NODE) {
		cfg_error(ld, val, NULL, "expected a scalar for '%s', not %s", path,
			  cfg_node_what(val));
		return NULL;
	}
	return (const char *)val->data.scalar.value;
}

static bool cfg_want_map(struct cfg_loader *ld, yaml_node_t *val, const char *path)
{
	if (val->type == YAML_MAPPING_NODE)
		return true;
	cfg_error(ld, val, NULL, "expected a mapping for '%s', not %s", path, cfg_node_what(val));
	return false;
}

static const struct cfg_field *cfg_field_find(const struct cfg_field *fields, const char *key)
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

static bool cfg_count_parse(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v <= 0)
		return false;
	*out = v;
	return true;
}

static bool cfg_policy_ok(const char *s)
{
	int64_t ms;

	if (!strcmp(s, "full"))
		return true;
	return !strncmp(s, "bounded-", 8) && !units_parse_duration(s + 8, &ms) && ms > 0;
}

static void cfg_map_walk(struct cfg_loader *ld, yaml_node_t *map, const char *parent,
			 const struct cfg_field *fields, void *base);
static void cfg_sources_load(struct cfg_loader *ld, yaml_node_t *map, struct project_cfg *cfg);
static void cfg_columns_load(struct cfg_loader *ld, yaml_node_t *map, const char *path,
			     struct source_cfg *src);
static void cfg_headers_load(struct cfg_loader *ld, yaml_node_t *map, const char *path,
			     struct source_cfg *src);

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
		if (!cfg_count_parse(s, (int64_t *)dst))
			cfg_error(ld, val, "write a whole number above 0, e.g. 50000",
				  "invalid number '%s' for '%s'", s, path);
		break;
	case CFG_BOOL:
		if (!cfg_bool_parse(s, (bool *)dst))
			cfg_error(ld, val, "write true or false", "invalid boolean '%s' for '%s'",
				  s, path);
		break;
	case CFG_POLICY:
		if (cfg_policy_ok(s))
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
	case CFG_SOURCES:
		if (cfg_want_map(ld, val, path))
			cfg_sources_load(ld, val, base);
		break;
	case CFG_COLUMNS:
		if (cfg_want_map(ld, val, path))
			cfg_columns_load(ld, val, path, base);
		break;
	case CFG_HEADERS:
		if (cfg_want_map(ld, val, path))
			cfg_headers_load(ld, val, path, base);
		break;
	default:
		cfg_scalar_set(ld, f, val, path, (char *)base + f->off);
		break;
	}
}

static void cfg_map_walk(struct cfg_loader *ld, yaml_node_t *map, const char *parent,
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

static size_t cfg_map_len(const yaml_node_t *map)
{
	return (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
}

static void cfg_columns_load(struct cfg_loader *ld, yaml_node_t *map, const char *path,
			     struct source_cfg *src)
{
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

/* A header value: no line breaks, and every ${ closed by a variable name
 * and }. Returns NULL when fine, else what is wrong. */
static const char *cfg_header_value_problem(const char *s)
{
	if (strpbrk(s, "\r\n"))
		return "a header value cannot hold a line break";
	for (const char *p = strstr(s, "${"); p; p = strstr(p, "${")) {
		const char *q = p + 2;

		if (isalpha((unsigned char)*q) || *q == '_')
			while (isalnum((unsigned char)*q) || *q == '_')
				q++;
		if (q == p + 2 || (*q && *q != '}'))
			return "write ${NAME} with a variable name of letters, digits and '_'";
		if (!*q)
			return "close ${NAME} with '}'";
		p = q + 1;
	}
	return NULL;
}

static void cfg_headers_load(struct cfg_loader *ld, yaml_node_t *map, const char *path,
			     struct source_cfg *src)
{
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
	yaml_node_t *n;

	if (src->interval_ms < 0)
		src->interval_ms = poll ? 30000 : 0;
	if (src->timeout_ms < 0)
		src->timeout_ms = poll ? 30000 : 0;
	if (poll)
		cfg_poll_check(ld, map, src);
	if (cdc)
		cfg_cdc_check(ld, map, src);
	else
		for (size_t i = 0; src->kind && cdc_only[i]; i++)
			if ((n = cfg_source_node(ld, map, cdc_only[i], false)))
				cfg_error(ld, n, NULL, "'%s' applies to postgres_cdc sources only, "
					  "not to %s source '%s'", cdc_only[i], src->kind, src->name);
	for (size_t i = 0; src->kind && !poll && poll_only[i]; i++) {
		yaml_node_t *n = cfg_source_node(ld, map, poll_only[i], false);

		if (n && cfg_map_has(ld, map, poll_only[i]))
			cfg_error(ld, n, NULL, "'%s' applies to poll sources only, not to %s source "
				  "'%s'", poll_only[i], src->kind, src->name);
	}
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

			if (*(const char **)((char *)src + f->off) || cfg_map_has(ld, map, need))
				continue;
			cfg_error(ld, key, NULL, "missing '%s' for %s source '%s'", need, src->kind,
				  src->name);
		}
	}
	if (src->lateness_ms && !src->event_time)
		cfg_error(ld, key, "add event_time: COLUMN, the time lateness counts back from",
			  "lateness without event_time for source '%s'", src->name);
}

static void cfg_sources_load(struct cfg_loader *ld, yaml_node_t *map, struct project_cfg *cfg)
{
	cfg->sources = arena_alloc(ld->a, cfg_map_len(map) * sizeof(*cfg->sources));
	cfg->nsources = 0;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *name = cfg_pair_key(ld, map, p, "sources");
		yaml_node_t *key = cfg_node(ld, p->key);
		yaml_node_t *val = cfg_node(ld, p->value);
		const char *path;
		struct source_cfg *src;

		if (!name)
			continue;
		if (!cfg_ident_ok(name)) {
			cfg_error(ld, key, "use letters, digits and '_', not starting with a digit",
				  "invalid source name '%s'", name);
			continue;
		}
		path = cfg_path(ld, "sources", name);
		if (!cfg_is_null(val) && !cfg_want_map(ld, val, path))
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
			cfg_map_walk(ld, val, path, source_fields, src);
		cfg_source_check(ld, key, val, src);
	}
	cfg_slots_check(ld, map, cfg);
}

/* Retries back off from backoff_base, doubling up to backoff_max: a base
 * above the cap would make the first pause longer than every later one. */
static void cfg_backoff_check(struct cfg_loader *ld, yaml_node_t *root, const struct live_cfg *live)
{
	yaml_node_pair_t *p = cfg_map_pair(ld, root, "live");
	yaml_node_t *map = p ? cfg_node(ld, p->value) : NULL;
	yaml_node_pair_t *base = cfg_map_pair(ld, map, "backoff_base");
	yaml_node_pair_t *max = cfg_map_pair(ld, map, "backoff_max");
	char b[32], m[32];

	if (live->backoff_base_ms <= live->backoff_max_ms || (!base && !max))
		return;
	units_format_duration(live->backoff_base_ms, b, sizeof(b));
	units_format_duration(live->backoff_max_ms, m, sizeof(m));
	cfg_error(ld, cfg_node(ld, (base ? base : max)->key),
		  "retries start at backoff_base and double up to backoff_max: make backoff_max "
		  "the larger",
		  "'live.backoff_base' (%s) is more than 'live.backoff_max' (%s)", b, m);
}

static void cfg_project_check(struct cfg_loader *ld, yaml_node_t *root, struct project_cfg *cfg)
{
	yaml_node_pair_t *p;

	cfg_backoff_check(ld, root, &cfg->live);

	if (!cfg->name) {
		p = cfg_map_pair(ld, root, "name");
		if (!p)
			diag_add(ld->diags, DIAG_ERROR, ld->display, 1, 1,
				 "add e.g. 'name: shop' at the top",
				 "missing required key 'name' in %s", ld->display);
		else if (cfg_is_null(cfg_node(ld, p->value)))
			cfg_error(ld, cfg_node(ld, p->key), "write e.g. 'name: shop'",
				  "missing value for 'name' in %s", ld->display);
	}
	if (!strcmp(cfg->warehouse.type, "postgres") && !cfg->warehouse.dsn_env) {
		p = cfg_map_pair(ld, root, "warehouse");
		cfg_error(ld, cfg_node(ld, p->key),
			  "set dsn_env to the variable that holds the connection string",
			  "missing 'warehouse.dsn_env' for a postgres warehouse");
	}
}

/* libyaml gives a line and column for scanner and parser errors, but only
 * a byte offset for reader errors (bad UTF-8, control characters). */
static void cfg_yaml_error(struct cfg_loader *ld, const yaml_parser_t *parser, const char *text,
			   size_t len)
{
	const char *problem = parser->problem ? parser->problem : "cannot parse";
	char hint[CFG_HINT_MAX];
	int line = 1, col = 1;

	if (parser->error == YAML_READER_ERROR) {
		for (size_t i = 0; i < parser->problem_offset && i < len; i++) {
			if (text[i] == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
	} else {
		line = (int)parser->problem_mark.line + 1;
		col = (int)parser->problem_mark.column + 1;
	}
	if (strstr(problem, "tab"))
		snprintf(hint, sizeof(hint), "indent with spaces, not tabs");
	else if (parser->context)
		snprintf(hint, sizeof(hint), "%s that starts on line %d", parser->context,
			 (int)parser->context_mark.line + 1);
	else if (strstr(problem, "cannot start any token"))
		snprintf(hint, sizeof(hint), "indent with spaces, not tabs, and quote a value "
					     "that starts with @, ` or %%");
	else if (strstr(problem, "mapping values are not allowed"))
		snprintf(hint, sizeof(hint), "check the indentation, and quote a value that "
					     "holds ': '");
	else
		hint[0] = '\0';
	diag_add(ld->diags, DIAG_ERROR, ld->display, line, col, hint[0] ? hint : NULL,
		 "invalid YAML: %s", problem);
}

/* Reads and parses path into ld->doc. On success the caller owns ld->doc
 * and must yaml_document_delete() it; on failure nothing is left to free. */
static int cfg_doc_load(struct cfg_loader *ld, const char *path)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	char *text;
	size_t len;
	int rc = project_file_read(ld->a, path, ld->display, PROJECT_TEXT_MAX, true, ld->diags,
				   &text, &len);

	if (rc)
		return rc == SL_E_IO ? SL_E_IO : SL_E_CONFIG;
	if (!yaml_parser_initialize(&parser))
		return SL_E_NOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	rc = SL_E_CONFIG;
	if (!yaml_parser_load(&parser, &ld->doc)) {
		cfg_yaml_error(ld, &parser, text, len);
	} else if (!yaml_parser_load(&parser, &extra)) {
		cfg_yaml_error(ld, &parser, text, len);
		yaml_document_delete(&ld->doc);
	} else {
		yaml_node_t *root = yaml_document_get_root_node(&extra);

		if (root) {
			cfg_error(ld, root, "keep one document per file and remove the '---' line",
				  "more than one YAML document in %s", ld->display);
			yaml_document_delete(&ld->doc);
		} else {
			rc = 0;
		}
		yaml_document_delete(&extra);
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* Sets *root to the root mapping, or to NULL when the file holds nothing.
 * Returns false, once reported, when the root is something else. */
static bool cfg_root(struct cfg_loader *ld, yaml_node_t **root)
{
	yaml_node_t *n = yaml_document_get_root_node(&ld->doc);

	*root = NULL;
	if (!n || cfg_is_null(n))
		return true;
	if (n->type != YAML_MAPPING_NODE) {
		cfg_error(ld, n, NULL, "expected a mapping at the top of %s, not %s", ld->display,
			  cfg_node_what(n));
		return false;
	}
	*root = n;
	return true;
}

int project_cfg_load(struct arena *a, const char *path, const char *display,
		     struct project_cfg *out, struct diag_list *diags)
{
	struct cfg_loader ld = { .a = a, .diags = diags, .display = display ? display : path };
	size_t errors = diag_count(diags, DIAG_ERROR);
	yaml_node_t *root;
	int rc;

	memset(out, 0, sizeof(*out));
	project_cfg_defaults(out);
	out->path = arena_strdup(a, path);
	rc = cfg_doc_load(&ld, path);
	if (rc)
		return rc;
	/* after a root that is no mapping, "missing name" would only be noise */
	if (cfg_root(&ld, &root)) {
		if (root)
			cfg_map_walk(&ld, root, NULL, project_fields, out);
		cfg_project_check(&ld, root, out);
	}
	yaml_document_delete(&ld.doc);
	return diag_count(diags, DIAG_ERROR) > errors ? SL_E_CONFIG : 0;
}

/* The value of a pipeline.yml key as one string, a list as "[a, b]"; NULL
 * once reported. */
static const char *cfg_kv_render(struct cfg_loader *ld, yaml_node_t *key, yaml_node_t *val,
				 const char *name)
{
	struct buf b = BUF_INIT;
	const char *s = NULL;
	bool ok = true;

	if (val->type == YAML_MAPPING_NODE) {
		cfg_error(ld, val, "pipeline.yml holds flat 'key: value' settings",
			  "expected a scalar or a list for '%s', not a mapping", name);
		return NULL;
	}
	if (cfg_is_null(val)) {
		cfg_error(ld, key, NULL, "missing value for '%s' in %s", name, ld->display);
		return NULL;
	}
	if (val->type == YAML_SCALAR_NODE)
		return arena_strdup(ld->a, (const char *)val->data.scalar.value);
	buf_addch(&b, '[');
	for (yaml_node_item_t *i = val->data.sequence.items.start; i < val->data.sequence.items.top;
	     i++) {
		yaml_node_t *item = cfg_node(ld, *i);

		if (item->type != YAML_SCALAR_NODE || cfg_is_null(item)) {
			cfg_error(ld, item, NULL, "expected a value in the list for '%s', not %s",
				  name, cfg_is_null(item) ? "nothing" : cfg_node_what(item));
			ok = false;
			continue;
		}
		if (b.len > 1)
			buf_adds(&b, ", ");
		buf_adds(&b, (const char *)item->data.scalar.value);
	}
	buf_addch(&b, ']');
	if (ok)
		s = arena_strndup(ld->a, b.buf, b.len);
	buf_release(&b);
	return s;
}

static void cfg_kv_walk(struct cfg_loader *ld, yaml_node_t *map, struct kv_list *out)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *name = cfg_pair_key(ld, map, p, NULL);
		yaml_node_t *key = cfg_node(ld, p->key);
		const char *value;
		struct cfg_kv *kv;

		if (!name)
			continue;
		value = cfg_kv_render(ld, key, cfg_node(ld, p->value), name);
		if (!value)
			continue;
		kv = ARENA_PUSH(ld->a, &out->items, &out->n, &out->cap);
		kv->key = arena_strdup(ld->a, name);
		kv->value = value;
		kv->line = (int)key->start_mark.line + 1;
	}
}

int pipeline_cfg_load(struct arena *a, const char *path, const char *display,
		      struct kv_list *out, struct diag_list *diags)
{
	struct cfg_loader ld = { .a = a, .diags = diags, .display = display ? display : path };
	size_t errors = diag_count(diags, DIAG_ERROR);
	yaml_node_t *root;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cfg_doc_load(&ld, path);
	if (rc)
		return rc;
	if (cfg_root(&ld, &root) && root)
		cfg_kv_walk(&ld, root, out);
	yaml_document_delete(&ld.doc);
	return diag_count(diags, DIAG_ERROR) > errors ? SL_E_CONFIG : 0;
}
