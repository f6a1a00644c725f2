/*
 * This file implements the loaders of sluice.yml and pipeline.yml. The YAML
 * is parsed with libyaml's document API; each mapping is then checked
 * against a table of the keys valid at its level, and every problem becomes
 * a diagnostic with its file:line:col, so one run shows all of them. It must
 * never stop at the first problem, never read the environment or touch the
 * warehouse, and never hand out memory that is not in the caller's arena.
 */
#include "project/config_int.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/units.h"
#include "project/files.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#define PF(member) offsetof(struct project_cfg, member)

static const char *const warehouse_types[] = { "duckdb", "postgres", NULL };
static const char *const replay_fallbacks[] = { "full", "bounded_without_history", NULL };

static const struct cfg_field warehouse_fields[] = {
	{ "type", CFG_CHOICE, PF(warehouse.type), warehouse_types },
	{ "path", CFG_STR, PF(warehouse.path) },
	{ "dsn_env", CFG_STR, PF(warehouse.dsn_env) },
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

static const char *const anomaly_levels[] = { "warn", "error", "off", NULL };

static const struct cfg_field anomaly_fields[] = {
	{ "level", CFG_CHOICE, PF(anomaly.level), anomaly_levels },
	{ "history", CFG_COUNT, PF(anomaly.history) },
	{ "min_history", CFG_COUNT, PF(anomaly.min_history) },
	{ "width", CFG_COUNT, PF(anomaly.width) },
	{ NULL },
};

static const struct cfg_field project_fields[] = {
	{ "name", CFG_STR, PF(name) },
	{ "warehouse", CFG_SECTION, 0, NULL, warehouse_fields },
	{ "sources", CFG_MAP, 0, NULL, NULL, NULL, cfg_sources_load },
	{ "live", CFG_SECTION, 0, NULL, live_fields },
	{ "server", CFG_SECTION, 0, NULL, server_fields },
	{ "ingest", CFG_SECTION, 0, NULL, ingest_fields },
	{ "alerts", CFG_SECTION, 0, NULL, alerts_fields },
	{ "replay", CFG_SECTION, 0, NULL, replay_fields },
	{ "anomaly", CFG_SECTION, 0, NULL, anomaly_fields },
	{ NULL },
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
	cfg->anomaly.level = "warn";
	cfg->anomaly.history = 14;
	cfg->anomaly.min_history = 5;
	cfg->anomaly.width = 3;
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

/* A band is made of at most history profiles: one that needs more
 * would never judge anything. */
static void cfg_anomaly_check(struct cfg_loader *ld, yaml_node_t *root,
			      const struct anomaly_cfg *an)
{
	yaml_node_pair_t *p = cfg_map_pair(ld, root, "anomaly");
	yaml_node_t *map = p ? cfg_node(ld, p->value) : NULL;
	yaml_node_pair_t *min = cfg_map_pair(ld, map, "min_history");
	yaml_node_pair_t *max = cfg_map_pair(ld, map, "history");

	if (an->min_history <= an->history || (!min && !max))
		return;
	cfg_error(ld, cfg_node(ld, (min ? min : max)->key),
		  "the band is made of the last 'history' profiles: make history the larger",
		  "'anomaly.min_history' (%lld) is more than 'anomaly.history' (%lld)",
		  (long long)an->min_history, (long long)an->history);
}

static void cfg_project_check(struct cfg_loader *ld, yaml_node_t *root, struct project_cfg *cfg)
{
	yaml_node_pair_t *p;

	cfg_backoff_check(ld, root, &cfg->live);
	cfg_anomaly_check(ld, root, &cfg->anomaly);

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
