/*
 * The `_sluice` state schema in the warehouse: a version row, one row per
 * model (hash, materialization, last build, data version) and the run log.
 * Writes that belong to a build go through the caller's open transaction, so
 * a model's data and its state commit together.
 */
#ifndef SL_STATE_STATE_H
#define SL_STATE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct sl_err;
struct wh;

#define STATE_VERSION 16

/* The schema of the state tables, and the names of those a caller may look
 * for in a listing of the warehouse's relations (schema.table). */
#define STATE_SCHEMA "_sluice"
#define STATE_MODELS_TABLE STATE_SCHEMA ".models"
#define STATE_LIVE_TABLE STATE_SCHEMA ".live_state"
#define STATE_WINDOWS_TABLE STATE_SCHEMA ".windows"
#define STATE_PROFILES_TABLE STATE_SCHEMA ".profiles"
#define STATE_COLUMNS_TABLE STATE_SCHEMA ".model_columns"

/* A table of the state schema that belongs to one model (its tombstones,
 * its change log): "KIND__SCHEMA__NAME". */
void state_model_table(char *out, size_t size, const char *kind, const char *schema,
		       const char *name);
/* Appends that table's qualified name. */
void state_sql_model_table(struct buf *sql, const char *kind, const char *schema,
			   const char *name);
/* Drops that table, when there is one. */
int state_model_table_drop(struct wh *w, const char *kind, const char *schema, const char *name,
			   struct sl_err *err);

/* The lock (wh_lock) under which the processes that share a warehouse
 * change its catalog: the state schema, landing tables. */
#define STATE_CATALOG_LOCK "catalog"

struct state_model {
	const char *name;
	const char *hash;
	const char *materialized;
	const char *inputs;     /* signature of the input versions it was built from */
	const char *last_built_at;
	int64_t build_count;
	int64_t data_version;   /* run id of the last build that changed its data */
	const char *checks;     /* checks_hash of the checks that last held, NULL: unknown */
	/* the query's shape at that build (shape_format), NULL: not known */
	const char *shape;
	/* after a build that changed only some columns (its rows as they
	 * were): "rows@V;c=NAME@V;..." the version its rows last changed at
	 * and each column changed since; NULL: every column at data_version */
	const char *column_versions;
};

struct state_run_row {
	int64_t run_id;
	const char *model, *env, *run_type, *status, *message;
	int64_t started_ms, finished_ms, rows;
};

/* Creates the schema on first use; refuses a warehouse written by a newer
 * sluice (SL_E_VERSION) and upgrades one written by an older one. */
int state_ensure(struct wh *w, struct sl_err *err);

/* Every model row of env; strings in a. */
int state_models_load(struct wh *w, struct arena *a, const char *env, struct state_model **rows,
		      size_t *n, struct sl_err *err);
/* name's row of env, as another process may just have written it; *found
 * says whether there is one. Strings in a. */
int state_model_load(struct wh *w, struct arena *a, const char *env, const char *name,
		     struct state_model *out, bool *found, struct sl_err *err);
const struct state_model *state_models_find(const struct state_model *rows, size_t n,
					    const char *name);

/* The model rows of one env, kept by a long-lived caller (the live
 * runner) across runs and updated by the builds it runs, so a run need not
 * read them again. Zero-initialize; the strings are the cache's own. */
struct state_cache {
	struct state_model *rows;
	size_t n, cap;
	bool loaded;
};

/* Its scratch is a child of a. */
int state_cache_load(struct state_cache *c, struct wh *w, struct arena *a, const char *env,
		     struct sl_err *err);
void state_cache_put(struct state_cache *c, const struct state_model *row);
void state_cache_free(struct state_cache *c);

/* A new run id (increasing across runs and processes). */
int state_run_begin(struct wh *w, int64_t *run_id, struct sl_err *err);

/* Appends the statement that records the model's row (an update when the
 * caller knows it exists), for the build's transaction. */
void state_sql_model(struct buf *sql, const char *env, const struct state_model *row,
		     bool exists);
/* Appends the statement that sets the hash of name's row to to, only
 * while it still holds from: a build of another process that wrote the
 * row since wins. */
void state_sql_model_hash(struct buf *sql, const char *env, const char *name, const char *from,
			  const char *to);
int state_run_log(struct wh *w, const struct state_run_row *row, struct sl_err *err);

/* A model an environment has built: its copy is in SCHEMA_ENV. */
struct state_env_model {
	const char *env, *name;
};
/* Every model row of an environment (not the main one), from a warehouse
 * whose _sluice.models exists; strings in a. */
int state_env_models_load(struct wh *w, struct arena *a, struct state_env_model **rows,
			  size_t *n, struct sl_err *err);


#endif
