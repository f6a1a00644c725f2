/*
 * Project settings: sluice.yml (the project file) and pipeline.yml (per
 * folder defaults for models). Parsing only: a loader fills the structs and
 * reports every problem it finds as a diagnostic with file:line:col; it never
 * touches the warehouse. Unset durations and sizes get the documented
 * defaults; unset strings are NULL.
 */
#ifndef SL_PROJECT_CONFIG_H
#define SL_PROJECT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct diag_list;

struct cfg_column {
	const char *name, *type;
};

/* An HTTP header a poll source sends; the value may hold ${VAR} references,
 * which are read from the environment when the request is made. */
struct cfg_header {
	const char *name, *value;
};

/* A client library's setting passed through as written (a kafka source's
 * properties:); ${NAME} in its value is read from the environment only
 * where the setting is used. line: where it is in sluice.yml. */
struct cfg_setting {
	const char *name, *value;
	int line;
};

struct source_cfg {
	const char *name;
	int line; /* where the source's key is in sluice.yml */
	const char *kind; /* webhook | postgres_cdc | poll | kafka | files | adopted */
	struct cfg_column *columns;
	size_t ncolumns;
	const char *secret_env, *event_time;
	int64_t lateness_ms;
	const char *dsn_env, *publication, *slot;
	const char *url, *cursor;
	int64_t interval_ms;
	/* poll: the query parameter carrying the cursor (default since), the
	 * dot path to the rows in a response, the headers sent, and the limit
	 * of one request (default 30s) */
	const char *cursor_param, *json_path;
	struct cfg_header *headers;
	size_t nheaders;
	int64_t timeout_ms;
	const char *brokers;
	/* kafka: the topics read (topic: one name or a list), each once */
	const char **topics;
	size_t ntopics;
	/* kafka: librdkafka's settings for the consumer (properties:) */
	struct cfg_setting *properties;
	size_t nproperties;
	/* the replay boundary mode (project/bounds.h), NULL: the kind's own */
	const char *boundary;
	/* landing rows whose time (bounds.h) is older than this are pruned,
	 * 0: kept for ever */
	int64_t retention_ms;
	/* kafka: json (NULL) | debezium: each value a Debezium change event */
	const char *format;
	/* adopted: the table followed. postgres_cdc: the source table
	 * ("schema.name", default public.NAME) */
	const char *table;
	/* adopted, boundary offsets: the columns of a position (a partition
	 * and an offset within it), as a connector that copies a topic into
	 * the table writes them */
	const char *partition_column, *offset_column;
	/* postgres_cdc: make the publication and the slot when missing */
	bool create;
	/* postgres_cdc: initial (default: the rows there when sluice makes
	 * the slot land first, from its exported snapshot) | never */
	const char *snapshot;
	/* postgres_cdc: how often a quiet consumer sends the server a status
	 * update (default 10s) */
	int64_t status_interval_ms;
	/* postgres_cdc: "full": create makes the table's REPLICA IDENTITY
	 * FULL (NULL: a table without a key is refused) */
	const char *replica_identity;
	/* files: the folder, or the folder and a pattern of file names, where
	 * files are dropped (relative to the project folder; no '..'); how
	 * they are read: separator (one character, a tab written \t),
	 * encoding (utf-8, utf-16 or latin-1, as DuckDB names them),
	 * remove_top_rows (lines above the header), dateformat (strftime),
	 * file_ending (the format of every file, NULL: each file's own
	 * ending); where a landed file is moved (NULL: it stays); how long a
	 * file must rest unchanged before it lands (default 1s); the largest
	 * file taken (default 256MiB). interval_ms: how often the folder is
	 * looked at (default 5s). */
	const char *path, *separator, *encoding, *dateformat, *file_ending, *archive_folder;
	int64_t remove_top_rows, settle_ms, max_file_size;
};

struct live_cfg {
	bool enabled;
	int64_t min_interval_ms, debounce_ms, max_latency_ms, poll_interval_ms, log_interval_ms,
		backoff_base_ms, backoff_max_ms, assertion_interval_ms, profile_interval_ms,
		max_lag_ms;
};

struct project_cfg {
	const char *path; /* the sluice.yml file, as given */
	const char *name;
	struct {
		const char *type; /* duckdb (default) | postgres */
		const char *path; /* duckdb: relative to the project root; default warehouse.duckdb */
		const char *dsn_env;
	} warehouse;
	struct source_cfg *sources;
	size_t nsources;
	struct live_cfg live;
	struct server_cfg {
		const char *listen, *token_env;
		int64_t max_body;
		/* slow clients: see http_config in server/http.h */
		int64_t header_timeout_ms, idle_timeout_ms, min_body_rate;
		int64_t max_client_connections;
	} server;
	struct {
		int64_t flush_interval_ms, flush_rows;
	} ingest;
	struct {
		const char *command;
	} alerts;
	struct {
		const char *bounded_replay_fallback; /* full | bounded_without_history */
		const char *on_change_breaking, *on_change_non_breaking;
	} replay;
	/* profiles and their judgment (src/exec/anomaly.h): the level of a
	 * model that sets none (warn | error | off), how many earlier
	 * profiles make the band and how many it needs at least, and its
	 * half-width in scaled MADs */
	struct anomaly_cfg {
		const char *level;
		int64_t history, min_history, width;
	} anomaly;
};

/* One `key: value` of a pipeline.yml; a list value is rendered "[a, b]". */
struct cfg_kv {
	const char *key, *value;
	int line;
};

struct kv_list {
	struct cfg_kv *items;
	size_t n, cap;
};

/* Loads sluice.yml from path; strings live in arena a. Problems go to diags
 * (display name `display`, e.g. "sluice.yml"). Returns 0 when the file was
 * read and parsed, SL_E_IO when it could not be read, SL_E_CONFIG when a
 * problem was recorded in diags (the struct is then partly filled). */
int project_cfg_load(struct arena *a, const char *path, const char *display,
		     struct project_cfg *out, struct diag_list *diags);

/* A replay policy as written: "full" (*bound_ms 0), or
 * "bounded-DURATION" (*bound_ms the duration); false for anything else. */
bool config_policy_parse(const char *s, int64_t *bound_ms);

/* Fills the defaults into a zeroed struct (what an empty file yields). */
void project_cfg_defaults(struct project_cfg *cfg);

/* Loads a pipeline.yml: a flat mapping of @config keys to scalars or lists.
 * Key names are not checked here (the model header parser knows them).
 * Same return convention as project_cfg_load. */
int pipeline_cfg_load(struct arena *a, const char *path, const char *display,
		      struct kv_list *out, struct diag_list *diags);

#endif
