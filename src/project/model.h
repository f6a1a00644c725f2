/*
 * A project in memory: its settings, its models (SQL files and seeds) with
 * their parsed headers and table references, and the diagnostics found while
 * loading. Everything lives in the project's arena.
 */
#ifndef SL_PROJECT_MODEL_H
#define SL_PROJECT_MODEL_H

#include "core/diag.h"
#include "project/config.h"
#include "windows/grid.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;

enum model_mat { MAT_VIEW, MAT_TABLE, MAT_INCREMENTAL, MAT_EPHEMERAL, MAT_SNAPSHOT, MAT_SEED };
enum model_strategy { STRAT_NONE, STRAT_APPEND, STRAT_MERGE, STRAT_DELETE_INSERT, STRAT_MICROBATCH };
/* @config ivm: whether a live model's refresh is derived from its query
 * (auto), must be (required: a query that can only be rebuilt whole is an
 * error), or is not (off) */
enum model_ivm { MODEL_IVM_AUTO, MODEL_IVM_REQUIRED, MODEL_IVM_OFF };
/* @config on_schema_change: what an incremental model's build does when
 * its query changed since its table was made (see plan/columns.h):
 * columns added are added (append), columns added and removed are made so
 * and changed ones keep their old rows' values (sync), the build refuses
 * (fail), or the table is built anew (full) */
enum model_schema_change { MODEL_OSC_APPEND, MODEL_OSC_SYNC, MODEL_OSC_FAIL, MODEL_OSC_FULL };

/* @config anomaly: how a batch build's profile is judged against the
 * model's earlier ones (src/exec/anomaly.h). UNSET: as the project's
 * anomaly.level says; OFF: no profile is taken. */
enum model_anomaly { MODEL_ANOMALY_UNSET, MODEL_ANOMALY_OFF, MODEL_ANOMALY_WARN,
		     MODEL_ANOMALY_ERROR };

/* One item of @config anomaly_columns: a column's own level, for its
 * metrics (the row count keeps the model's). */
struct model_anomaly_column {
	const char *name; /* as written */
	enum model_anomaly level;
};

/* Which text of a model a position refers to. */
enum model_part { PART_BODY, PART_FILTER };

/* A place in a model's SQL where a placeholder or a table reference sits. */
struct model_span {
	enum model_part part;
	size_t offset, len; /* bytes, in the part's text */
};

/* A table named in a model's SQL, as the parser found it. */
struct model_ref {
	const char *schema; /* "main" when the SQL left it out */
	const char *name;
	const char *alias;  /* the alias the SQL gave it, or "" */
	struct model_span span; /* the reference text, e.g. `silver . "orders"` */
	bool schema_given;
	struct model *target; /* the model that produces it, or NULL (external) */
	/* the adopted source whose table it is (followed by its cursor), or
	 * NULL */
	const struct source_cfg *adopted;
	/* the model whose change log it names (_sluice.changes__SCHEMA__NAME,
	 * in the project's schema names), or NULL */
	struct model *changes_of;
};

enum placeholder_kind { PH_THIS, PH_WATERMARK, PH_SINCE, PH_UNTIL, PH_ENV };

struct model_placeholder {
	enum placeholder_kind kind;
	const char *arg; /* {watermark:SOURCE} -> "SOURCE", else NULL */
	struct model_span span;
};

enum assert_kind {
	ASSERT_NOT_NULL,
	ASSERT_UNIQUE,
	ASSERT_ACCEPTED_VALUES,
	ASSERT_RELATIONSHIPS,
	ASSERT_EXPRESSION,
	ASSERT_ROWS,
};

struct model_assert {
	enum assert_kind kind;
	bool warn;        /* warn: severity; error otherwise */
	const char *text; /* the check as written, for reports */
	int line;
	/* not_null, unique, accepted_values, relationships: the column(s), as
	 * SQL: quoted identifiers ("order") */
	const char **cols;
	size_t ncols;
	const char **values; /* accepted_values: SQL literals ('a', 1) */
	size_t nvalues;
	/* relationships target: the model's schema and name as written, its
	 * column quoted like cols */
	const char *ref_schema, *ref_name, *ref_col;
	const char *sql; /* expression or rows: query text */
};

/* One `k=v` of @config (or of the folder's pipeline.yml). */
struct model_setting {
	const char *key;
	const char *value; /* as written, quotes removed; lists as "[a, b]" */
	const char **list; /* the items when the value is a list */
	size_t nlist;
	bool is_list;
	int line;
	bool from_pipeline;
};

struct model_upstream {
	const char *name;
	const char **keys, **values; /* key=value options, in order */
	size_t nopts;
	int line;
	/* typed options: the contract (an enum win_level, or -1: ungated),
	 * freshness in seconds (0: none) and its scope, the input's type
	 * ("model" unless set) */
	int level;
	int64_t fresh_s;
	bool fresh_all;
	bool deactivate_for_dev;
	const char *type;
	struct model *target; /* the project's model of that name, or NULL */
	/* else the declared source of that name (its own, or its landing
	 * table's "landing.NAME"; an adopted source's table), whose coverage
	 * its event_time publishes, with the relation that names it */
	const struct source_cfg *source;
	const char *source_relation;
	/* a file's or hardcoded input's version: hex SHA-256 of the file's
	 * bytes, or of its rows or sql as written; "" for any other */
	char content_hash[65];
};

/* @column NAME TEXT: what a column holds, in words, for the model page
 * and `sluice docs`. The name as written (a quoted one unquoted). */
struct model_column_doc {
	const char *name;
	const char *text;
	int line;
};

struct model {
	const char *schema, *name;
	const char *fqn;   /* "schema.name", lowercase */
	/* where its table lives: fqn, or in an environment its copy's
	 * "schema_env.name" (schema then names the copy's schema, home_schema
	 * the one the project gives it) */
	const char *relation;
	const char *home_schema;
	const char *path;  /* relative to the project root */
	const char *abspath;

	const char *text;  /* the whole file */
	const char *body;  /* the query, header removed, trailing ';' removed */
	int body_line;     /* line of the file where body starts */
	const char *filter; /* incremental_filter, or NULL */
	int filter_line;

	struct model_setting *settings;
	size_t nsettings, settings_cap;
	struct model_assert *asserts;
	size_t nasserts, asserts_cap;
	struct model_upstream *upstreams;
	size_t nupstreams, upstreams_cap;
	struct model_column_doc *column_docs;
	size_t ncolumn_docs, column_docs_cap;

	/* typed settings */
	enum model_mat mat;
	enum model_strategy strategy;
	/* column names here and in cdc_op, cdc_seq are as written (letters,
	 * digits, underscores); whoever writes them into SQL quotes them */
	const char **unique_key;
	size_t nunique_key;
	const char **check_cols;
	size_t ncheck_cols;
	const char **tags;
	size_t ntags;
	const char *description;
	bool live;
	int64_t live_interval_ms;
	enum model_ivm ivm;
	enum model_schema_change on_schema_change;
	enum model_anomaly anomaly;
	struct model_anomaly_column *anomaly_columns;
	size_t nanomaly_columns;
	/* a live incremental model written as its plain query (no filter, key
	 * or strategy; ivm not off): sluice derives its refreshes, as maint
	 * says once dag_build planned them (project/maintain.h) */
	bool maintained;
	const struct maint *maint;
	/* change events: the columns holding each event's operation and its
	 * order among the events of one key (both NULL for other models), and
	 * whether a delete keeps the row, flagged _sluice_deleted */
	const char *cdc_op, *cdc_seq;
	bool cdc_soft;
	/* a temporal model's grid: built window by window at grain from start
	 * (a UTC instant on the grid) up to end (INT64_MAX: open), the newest
	 * lookback windows again on every run; flex keeps coverage islands
	 * instead of grid rows */
	bool temporal;
	bool flex;
	enum win_grain grain;
	int64_t start, end;
	int lookback;
	const char *time_column;

	struct model_ref *refs;
	size_t nrefs, refs_cap;
	bool filter_reads_self; /* the filter names the model itself, like {this} */
	/* what makes its result depend on how rows are cut into windows
	 * ("GROUP BY", "sum", "a window function"), or NULL */
	const char *aggregates;
	/* the model's parse tree as sqlparse_tree gives it (JSON of
	 * refs_parse_text), for the maintenance classifier and lineage;
	 * NULL when the query does not parse */
	const char *tree;
	/* whether the model's table has a _sluice_seq column: 0 not known yet,
	 * 1 yes, 2 yes and a _sluice_pos column too, -1 no; forgotten when the
	 * model is built from scratch */
	int seq_column;
	struct model_placeholder *placeholders;
	size_t nplaceholders, placeholders_cap;

	/* graph, filled by dag_build */
	struct model **deps;     /* distinct models this one reads (incl. assert targets) */
	size_t ndeps, deps_cap;
	struct model **children; /* distinct models reading this one */
	size_t nchildren, children_cap;
	size_t order;            /* position in dependency order */
	int mark;                /* scratch for graph walks */

	/* hex SHA-256 of the query's parse tree without its locations, and of
	 * its placeholders as written; "" when the query does not parse */
	char tree_hash[65];
	char hash[65];           /* change hash, hex SHA-256 */
	/* the change hash over the query's text, as versions before the tree
	 * hash computed it: a state row holding it is still current */
	char text_hash[65];
	/* what a build records in its state row: "hash:text_hash", so that
	 * either form matching later says the definition is the same (the
	 * text, when another parser's tree reads otherwise) */
	char recorded_hash[130];
	/* hex SHA-256 of its checks and those of the ephemerals it inlines;
	 * "" when there are none */
	char checks_hash[65];
};

struct project {
	struct arena *arena;
	const char *root;        /* absolute path of the project folder */
	struct project_cfg cfg;
	struct model **models;   /* in dependency order once dag_build succeeded */
	size_t nmodels, models_cap;
	/* the models by fqn (project_index_model), open addressing over
	 * index_cap slots; it covers them when nindexed == nmodels */
	struct model **index;
	size_t index_cap, nindexed;
	struct diag_list diags;
};

/* Finds a model by "schema.name" (case-insensitive); NULL when absent. */
struct model *project_find_model(const struct project *p, const char *fqn);
/* Adds m (just pushed on p->models) to the index project_find_model
 * looks it up in. */
void project_index_model(struct project *p, struct model *m);
/* Every model's "schema.name", NULL-terminated, in the project's arena. */
const char **project_model_names(const struct project *p);
/* The value of a setting, or NULL when the model does not set it. */
const struct model_setting *model_setting_get(const struct model *m, const char *key);
/* "schema.name" of the model's table where this run builds it (relation,
 * or fqn for a model made outside project_load). */
const char *model_relation(const struct model *m);
/* The value of an @upstream option (path=, rows=, ...), or NULL. */
const char *model_upstream_option(const struct model_upstream *u, const char *key);
/* Whether the upstream gates on a stream's coverage: a contract that looks
 * at rows (not exists, which only names it) on a source with event_time. */
bool model_upstream_streams(const struct model_upstream *u);
/* Whether the model keeps a change log (src/exec/changes.c): a live
 * merge or delete+insert model, which rewrites rows in place. */
bool model_keeps_changes(const struct model *m);
/* Converts a byte offset of a part into a 1-based file line and column. */
void model_span_position(const struct model *m, enum model_part part, size_t offset, int *line,
			 int *col);
const char *model_mat_name(enum model_mat mat);
const char *model_strategy_name(enum model_strategy s);

#endif
