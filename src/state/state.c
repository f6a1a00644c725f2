/*
 * The `_sluice` schema: creation, version check, and the rows the build
 * writes. Must never commit or roll back: transactions belong to callers.
 */
#include "state/state.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The layouts of the state schema, in order: migrations[k] brings a
 * warehouse from version k to k + 1. Only ever appended. */
static const char *const migrations[] = {
	/* 1: batch builds */
	"CREATE TABLE _sluice.models (name VARCHAR NOT NULL, env VARCHAR NOT NULL, hash "
	"VARCHAR, materialized VARCHAR, inputs VARCHAR, last_built_at TIMESTAMP, build_count "
	"BIGINT, data_version BIGINT, PRIMARY KEY (name, env));\n"
	"CREATE TABLE _sluice.run_log (run_id BIGINT, model VARCHAR, env VARCHAR, run_type "
	"VARCHAR, status VARCHAR, started_at TIMESTAMP, finished_at TIMESTAMP, rows BIGINT, "
	"duration_ms BIGINT, message VARCHAR);\n"
	"CREATE SEQUENCE _sluice.run_ids START 1;\n",
	/* 2: live models: one warehouse-wide sequence for landing batches,
	 * sources and their advances, what each model consumed and published */
	"CREATE SEQUENCE _sluice.seq START 1;\n"
	"CREATE TABLE _sluice.live_sources (source VARCHAR PRIMARY KEY, watermark BIGINT NOT "
	"NULL, rows BIGINT NOT NULL, advanced_at TIMESTAMP);\n"
	"CREATE TABLE _sluice.live_advances (source VARCHAR NOT NULL, seq BIGINT NOT NULL, rows "
	"BIGINT NOT NULL, arrived_at TIMESTAMP NOT NULL, PRIMARY KEY (source, seq));\n"
	"CREATE TABLE _sluice.live_consumed (model VARCHAR NOT NULL, input VARCHAR NOT NULL, "
	"watermark BIGINT NOT NULL, PRIMARY KEY (model, input));\n"
	"CREATE TABLE _sluice.live_state (model VARCHAR PRIMARY KEY, published BIGINT NOT NULL, "
	"covered BIGINT NOT NULL, refresh_count BIGINT NOT NULL, events BIGINT NOT NULL, "
	"events_per_s DOUBLE PRECISION NOT NULL, status "
	"VARCHAR NOT NULL, paused BOOLEAN NOT NULL, failures INTEGER NOT NULL, last_error "
	"VARCHAR, last_refresh_at TIMESTAMP, next_retry_at TIMESTAMP);\n"
	"CREATE TABLE _sluice.live_covered (model VARCHAR NOT NULL, source VARCHAR NOT NULL, seq "
	"BIGINT NOT NULL, PRIMARY KEY (model, source));\n"
	"CREATE TABLE _sluice.profiles (model VARCHAR NOT NULL, profiled_at TIMESTAMP NOT NULL, "
	"column_name VARCHAR NOT NULL, rows BIGINT, nulls BIGINT, min_value VARCHAR, max_value "
	"VARCHAR);\n",
	/* 3: webhook deliveries already landed, so a retried one lands nothing */
	"CREATE TABLE _sluice.deliveries (source VARCHAR NOT NULL, id VARCHAR NOT NULL, seq "
	"BIGINT NOT NULL, rows BIGINT NOT NULL, received_at TIMESTAMP NOT NULL, PRIMARY KEY "
	"(source, id));\n",
	/* 4: the cursor of a source that follows a high-watermark column (the
	 * highest value landed), stored with the rows that raised it */
	"ALTER TABLE _sluice.live_sources ADD COLUMN cursor VARCHAR;\n",
	/* 5: the checks a model last passed, so a new or edited check runs
	 * without a rebuild (NULL for rows from before: checked once more) */
	"ALTER TABLE _sluice.models ADD COLUMN checks VARCHAR;\n",
	/* 6: runners sharing the live models: who is alive, who refreshes
	 * which group of them, each until its lease ends (ms of the
	 * warehouse's clock) */
	"CREATE TABLE _sluice.live_runners (runner VARCHAR PRIMARY KEY, until_ms BIGINT NOT "
	"NULL);\n"
	"CREATE TABLE _sluice.live_claims (grp VARCHAR PRIMARY KEY, runner VARCHAR NOT NULL, "
	"until_ms BIGINT NOT NULL);\n",
	/* 7: a postgres_cdc slot's commit LSN landed last (stored with the
	 * rows of its transaction) and the LSN confirmed to the server (stored
	 * before it is sent) */
	"CREATE TABLE _sluice.cdc_slots (slot VARCHAR PRIMARY KEY, landed_lsn BIGINT NOT NULL, "
	"confirmed_lsn BIGINT NOT NULL);\n",
	/* 8: a postgres_cdc slot's initial snapshot: 'pending' from just
	 * before the slot is made until its rows landed, then 'done'; NULL
	 * for a slot streamed without one */
	"ALTER TABLE _sluice.cdc_slots ADD COLUMN snapshot VARCHAR;\n",
	/* 9: the columns of each table a postgres_cdc slot follows, from the
	 * change they took effect at (commit LSN, place in the transaction),
	 * stored with the rows of that transaction */
	"CREATE TABLE _sluice.cdc_relations (slot VARCHAR NOT NULL, relation VARCHAR NOT NULL, "
	"lsn BIGINT NOT NULL, pos BIGINT NOT NULL, columns VARCHAR NOT NULL, PRIMARY KEY (slot, "
	"relation, lsn, pos));\n",
	/* 10: windows: per temporal model one row per grid window (or, for a
	 * flexible one, per coverage island), per other model one existence
	 * row (since and until NULL); times are UTC */
	"CREATE TABLE _sluice.windows (model VARCHAR NOT NULL, env VARCHAR NOT NULL, since "
	"TIMESTAMP, until TIMESTAMP, status VARCHAR NOT NULL, applied_at TIMESTAMP, oldest_at "
	"TIMESTAMP, blocked_reason VARCHAR, attempts INTEGER NOT NULL, error VARCHAR, grain "
	"VARCHAR);\n"
	/* the models built before stand as their existence rows, so that a
	 * contract on one that is up to date is met without a rebuild */
	"INSERT INTO _sluice.windows (model, env, status, applied_at, attempts) SELECT name, env, "
	"'applied', last_built_at, 1 FROM _sluice.models WHERE last_built_at IS NOT NULL;\n",
	/* 11: per model the columns of the relation its last build made, as
	 * the warehouse names their types; a model built before gets its rows
	 * when a build makes its relation again */
	"CREATE TABLE _sluice.model_columns (model VARCHAR NOT NULL, env VARCHAR NOT NULL, "
	"position INTEGER NOT NULL, column_name VARCHAR NOT NULL, column_type VARCHAR NOT "
	"NULL);\n",
	/* 12: per model the shape of the query its last build ran (which of
	 * its columns a later change touches) and, after a build that changed
	 * some columns only, the version each of them changed at */
	"ALTER TABLE _sluice.models ADD COLUMN shape VARCHAR;\n"
	"ALTER TABLE _sluice.models ADD COLUMN column_versions VARCHAR;\n",
	/* 13: the files a files source landed, by name and content (SHA-256
	 * in hex), each recorded with its rows so that none lands twice */
	"CREATE TABLE _sluice.landed_files (source VARCHAR NOT NULL, path VARCHAR NOT NULL, "
	"sha256 VARCHAR NOT NULL, size BIGINT NOT NULL, rows BIGINT NOT NULL, seq BIGINT NOT "
	"NULL, landed_at TIMESTAMP NOT NULL, PRIMARY KEY (source, path, sha256));\n",
	/* 14: replays: per model and source what its last build from history
	 * read (per part of the source's boundary: lowest and highest value
	 * and sequence, rows, the sequence the source stood at, the start
	 * time it read from), and the landing rows retention pruned
	 * (state/replay.c) */
	"CREATE TABLE _sluice.replay_boundaries (run_id BIGINT NOT NULL, model VARCHAR NOT NULL, "
	"env VARCHAR NOT NULL, source VARCHAR NOT NULL, mode VARCHAR NOT NULL, part VARCHAR NOT "
	"NULL, low VARCHAR, high VARCHAR, low_seq BIGINT, high_seq BIGINT, rows BIGINT NOT NULL, "
	"through_seq BIGINT NOT NULL, start_time TIMESTAMP, built_at TIMESTAMP NOT NULL);\n"
	"CREATE TABLE _sluice.replay_pruned (source VARCHAR NOT NULL, part VARCHAR NOT NULL, "
	"through VARCHAR, through_seq BIGINT NOT NULL, through_time TIMESTAMP, rows BIGINT NOT "
	"NULL, pruned_at TIMESTAMP NOT NULL);\n",
	/* 15: an adopted source's boundary (the highest cursor a build took,
	 * as live/adopted.h codes it; its rows up to there in rows) and the
	 * rows that turned up below it afterwards */
	"ALTER TABLE _sluice.live_sources ADD COLUMN boundary BIGINT;\n"
	"ALTER TABLE _sluice.live_sources ADD COLUMN late_rows BIGINT;\n",
	/* 16: profiles of batch builds beside the live ones (state/profiles.h):
	 * per profile an id, its environment, who took it (a batch run, with
	 * its id, or the live runner, with the model's refresh count), whether
	 * the data it describes committed and its row count; per column its
	 * place, type and distinct count too; and the anomalies a batch
	 * profile was judged to hold. The live profiles taken before keep
	 * their rows. */
	"CREATE SEQUENCE _sluice.profile_ids START 1;\n"
	"CREATE TABLE _sluice.profile_ids_v15 AS SELECT model, profiled_at, "
	"nextval('_sluice.profile_ids') AS profile_id FROM (SELECT DISTINCT model, profiled_at "
	"FROM _sluice.profiles) AS d;\n"
	"ALTER TABLE _sluice.profiles RENAME TO profiles_v15;\n"
	"CREATE TABLE _sluice.profiles (profile_id BIGINT NOT NULL, model VARCHAR NOT NULL, env "
	"VARCHAR NOT NULL, taken_at TIMESTAMP NOT NULL, kind VARCHAR NOT NULL, run_id BIGINT, "
	"refresh_count BIGINT, kept BOOLEAN NOT NULL, row_count BIGINT NOT NULL, column_name "
	"VARCHAR NOT NULL, column_position INTEGER, column_type VARCHAR, nulls BIGINT NOT NULL, "
	"min_value VARCHAR, max_value VARCHAR, distinct_count BIGINT);\n"
	"INSERT INTO _sluice.profiles SELECT i.profile_id, p.model, '', p.profiled_at, 'live', "
	"NULL, NULL, true, coalesce(p.rows, 0), p.column_name, NULL, NULL, coalesce(p.nulls, 0), "
	"p.min_value, p.max_value, NULL FROM _sluice.profiles_v15 AS p JOIN "
	"_sluice.profile_ids_v15 AS i ON i.model = p.model AND i.profiled_at = p.profiled_at;\n"
	"DROP TABLE _sluice.profiles_v15;\n"
	"DROP TABLE _sluice.profile_ids_v15;\n"
	"CREATE TABLE _sluice.profile_anomalies (profile_id BIGINT NOT NULL, model VARCHAR NOT "
	"NULL, env VARCHAR NOT NULL, column_name VARCHAR, metric VARCHAR NOT NULL, "
	"observed DOUBLE PRECISION NOT NULL, band_median DOUBLE PRECISION NOT NULL, "
	"band_low DOUBLE PRECISION NOT NULL, band_high DOUBLE PRECISION NOT NULL, "
	"history INTEGER NOT NULL, level VARCHAR NOT NULL);\n",
};

#define STATE_MIGRATIONS (sizeof(migrations) / sizeof(*migrations))
_Static_assert(STATE_MIGRATIONS == STATE_VERSION, "one migration per state version");

/* The indexes a version's tables are read by, where the warehouse wants
 * indexes (PostgreSQL: a table is scanned whole without one; DuckDB reads
 * by its min/max statistics and would checkpoint at the commit of each
 * insert into a table with an index). Made in the version's upgrade. */
static const struct {
	int version;
	const char *table;
	const char *cols[3];
} state_indexes[] = {
	{ 16, "profiles", { "model", "env", "profile_id" } },
	{ 16, "profile_anomalies", { "model", "env", "profile_id" } },
};

static int ensure(struct wh *w, struct sl_err *err)
{
	int64_t have = 0;
	struct buf sql = BUF_INIT;
	int rc;

	rc = wh_exec(w,
		     "CREATE SCHEMA IF NOT EXISTS _sluice;\n"
		     "CREATE TABLE IF NOT EXISTS _sluice.version (version INTEGER NOT NULL, "
		     "written_by VARCHAR, updated_at TIMESTAMP)",
		     err);
	if (!rc)
		rc = wh_query_int(w, "SELECT coalesce(max(version), 0) FROM _sluice.version", &have,
				  err);
	if (rc)
		return rc;
	if (have > STATE_VERSION)
		return sl_err_set(err, SL_E_VERSION,
				  "the warehouse's state was written by a newer sluice (state "
				  "version %lld, this sluice knows %d)\n"
				  "  hint: upgrade sluice; an older one must not change it",
				  (long long)have, STATE_VERSION);
	if (have == STATE_VERSION)
		return 0;
	/* every step up to now in one transaction: a crash leaves the old
	 * version, never half of a new one */
	buf_adds(&sql, "BEGIN TRANSACTION;\n");
	for (size_t v = (size_t)have; v < STATE_MIGRATIONS; v++)
		buf_adds(&sql, migrations[v]);
	buf_addf(&sql,
		 "DELETE FROM _sluice.version;\n"
		 "INSERT INTO _sluice.version VALUES (%d, 'sluice " SLUICE_VERSION "', "
		 "now()::TIMESTAMP)",
		 STATE_VERSION);
	rc = wh_exec(w, sql.buf, err);
	for (size_t i = 0; !rc && i < sizeof(state_indexes) / sizeof(*state_indexes); i++)
		if (state_indexes[i].version > have)
			rc = wh_ensure_index(w, STATE_SCHEMA, state_indexes[i].table,
					     state_indexes[i].cols, 3, true, err);
	if (!rc)
		rc = wh_commit(w, err);
	if (rc)
		wh_rollback(w);
	buf_release(&sql);
	return rc;
}

int state_ensure(struct wh *w, struct sl_err *err)
{
	/* processes sharing the warehouse make and upgrade it one at a time:
	 * CREATE ... IF NOT EXISTS is no guard against one made meanwhile */
	int rc = wh_lock(w, STATE_CATALOG_LOCK, WH_LOCK_WAIT, NULL, err);
	int unlocked;

	if (rc)
		return rc;
	rc = ensure(w, err);
	unlocked = wh_unlock(w, STATE_CATALOG_LOCK, rc ? NULL : err);
	return rc ? rc : unlocked;
}

/* The model rows of env, or only name's when name is not NULL. */
static int rows_load(struct wh *w, struct arena *a, const char *env, const char *name,
		     struct state_model **rows, size_t *n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_adds(&sql, "SELECT name, hash, materialized, inputs, "
		       "CAST(date_trunc('second', last_built_at) AS VARCHAR), build_count, "
		       "data_version, checks, shape, column_versions FROM _sluice.models WHERE env = ");
	buf_add_sql_str(&sql, env);
	if (name) {
		buf_adds(&sql, " AND name = ");
		buf_add_sql_str(&sql, name);
	}
	buf_adds(&sql, " ORDER BY name");
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	*n = wh_result_nrows(r);
	*rows = arena_alloc(a, (*n + 1) * sizeof(**rows));
	for (size_t i = 0; i < *n; i++) {
		struct state_model *s = &(*rows)[i];
		const char *bc = wh_result_value(r, i, 5), *dv = wh_result_value(r, i, 6);

		s->name = arena_strdup(a, wh_result_value(r, i, 0));
		s->hash = arena_strdup(a, wh_result_value(r, i, 1));
		s->materialized = arena_strdup(a, wh_result_value(r, i, 2));
		s->inputs = arena_strdup(a, wh_result_value(r, i, 3));
		s->last_built_at = arena_strdup(a, wh_result_value(r, i, 4));
		s->build_count = bc ? strtoll(bc, NULL, 10) : 0;
		s->data_version = dv ? strtoll(dv, NULL, 10) : 0;
		s->checks = arena_strdup(a, wh_result_value(r, i, 7));
		s->shape = arena_strdup(a, wh_result_value(r, i, 8));
		s->column_versions = arena_strdup(a, wh_result_value(r, i, 9));
	}
	wh_result_free(r);
	return 0;
}

int state_env_models_load(struct wh *w, struct arena *a, struct state_env_model **rows,
			  size_t *n, struct sl_err *err)
{
	struct wh_result *r;
	int rc = wh_query(w, "SELECT env, name FROM _sluice.models WHERE env <> '' ORDER BY env, name",
			  &r, err);

	if (rc)
		return rc;
	*n = wh_result_nrows(r);
	*rows = arena_alloc(a, (*n + 1) * sizeof(**rows));
	for (size_t i = 0; i < *n; i++) {
		(*rows)[i].env = arena_strdup(a, wh_result_value(r, i, 0));
		(*rows)[i].name = arena_strdup(a, wh_result_value(r, i, 1));
	}
	wh_result_free(r);
	return 0;
}

int state_models_load(struct wh *w, struct arena *a, const char *env, struct state_model **rows,
		      size_t *n, struct sl_err *err)
{
	return rows_load(w, a, env, NULL, rows, n, err);
}

int state_model_load(struct wh *w, struct arena *a, const char *env, const char *name,
		     struct state_model *out, bool *found, struct sl_err *err)
{
	struct state_model *rows;
	size_t n;
	int rc = rows_load(w, a, env, name, &rows, &n, err);

	*found = !rc && n > 0;
	if (*found)
		*out = rows[0];
	return rc;
}

static char *dup_or_null(const char *v)
{
	return v ? xstrdup(v) : NULL;
}

static void free_row(struct state_model *row)
{
	free((char *)row->name);
	free((char *)row->hash);
	free((char *)row->materialized);
	free((char *)row->inputs);
	free((char *)row->last_built_at);
	free((char *)row->checks);
	free((char *)row->shape);
	free((char *)row->column_versions);
}

void state_cache_put(struct state_cache *c, const struct state_model *row)
{
	struct state_model copy = {
		.name = dup_or_null(row->name),
		.hash = dup_or_null(row->hash),
		.materialized = dup_or_null(row->materialized),
		.inputs = dup_or_null(row->inputs),
		.last_built_at = dup_or_null(row->last_built_at),
		.build_count = row->build_count,
		.data_version = row->data_version,
		.checks = dup_or_null(row->checks),
		.shape = dup_or_null(row->shape),
		.column_versions = dup_or_null(row->column_versions),
	};
	struct state_model *at = (struct state_model *)state_models_find(c->rows, c->n, row->name);

	if (at) {
		free_row(at);
		*at = copy;
		return;
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->rows = xreallocarray(c->rows, c->cap, sizeof(*c->rows));
	}
	c->rows[c->n++] = copy;
}

int state_cache_load(struct state_cache *c, struct wh *w, struct arena *parent, const char *env,
		     struct sl_err *err)
{
	struct arena *a = arena_new(parent);
	struct state_model *rows;
	size_t n;
	int rc = state_models_load(w, a, env, &rows, &n, err);

	state_cache_free(c);
	for (size_t i = 0; !rc && i < n; i++)
		state_cache_put(c, &rows[i]);
	c->loaded = rc == 0;
	arena_free(a);
	return rc;
}

void state_cache_free(struct state_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free_row(&c->rows[i]);
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

const struct state_model *state_models_find(const struct state_model *rows, size_t n,
					    const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

int state_run_begin(struct wh *w, int64_t *run_id, struct sl_err *err)
{
	return wh_query_int(w, "SELECT nextval('_sluice.run_ids')", run_id, err);
}

static void add_str_or_null(struct buf *b, const char *s)
{
	if (s)
		buf_add_sql_str(b, s);
	else
		buf_adds(b, "NULL");
}

void state_sql_model_hash(struct buf *sql, const char *env, const char *name, const char *from,
			  const char *to)
{
	buf_adds(sql, "UPDATE _sluice.models SET hash = ");
	buf_add_sql_str(sql, to);
	buf_adds(sql, " WHERE name = ");
	buf_add_sql_str(sql, name);
	buf_adds(sql, " AND env = ");
	buf_add_sql_str(sql, env);
	buf_adds(sql, " AND hash = ");
	buf_add_sql_str(sql, from);
	buf_adds(sql, ";\n");
}

void state_sql_model(struct buf *sql, const char *env, const struct state_model *row,
		     bool exists)
{
	static const char *const cols[] = { "hash",   "materialized", "inputs",	      "last_built_at",
					    "checks", "shape",	      "column_versions" };
	const char *vals[] = { row->hash,   row->materialized, row->inputs,	     row->last_built_at,
			       row->checks, row->shape,	       row->column_versions };
	const size_t ncols = sizeof(cols) / sizeof(*cols);

	/* an UPDATE of a known row costs DuckDB a fraction of a replace */
	if (exists) {
		buf_adds(sql, "UPDATE _sluice.models SET ");
		for (size_t i = 0; i < ncols; i++) {
			buf_addf(sql, "%s = ", cols[i]);
			add_str_or_null(sql, vals[i]);
			buf_adds(sql, ", ");
		}
		buf_addf(sql, "build_count = %lld, data_version = %lld WHERE name = ",
			 (long long)row->build_count, (long long)row->data_version);
		buf_add_sql_str(sql, row->name);
		buf_adds(sql, " AND env = ");
		buf_add_sql_str(sql, env);
		buf_adds(sql, ";\n");
		return;
	}
	buf_adds(sql, "INSERT INTO _sluice.models (name, env, build_count, data_version");
	for (size_t i = 0; i < ncols; i++)
		buf_addf(sql, ", %s", cols[i]);
	buf_adds(sql, ") VALUES (");
	buf_add_sql_str(sql, row->name);
	buf_adds(sql, ", ");
	buf_add_sql_str(sql, env);
	buf_addf(sql, ", %lld, %lld", (long long)row->build_count, (long long)row->data_version);
	for (size_t i = 0; i < ncols; i++) {
		buf_adds(sql, ", ");
		add_str_or_null(sql, vals[i]);
	}
	/* a row the caller did not know of may still be there (another
	 * process built the model): it is replaced */
	buf_adds(sql, ") ON CONFLICT (name, env) DO UPDATE SET build_count = "
		      "excluded.build_count, data_version = excluded.data_version");
	for (size_t i = 0; i < ncols; i++)
		buf_addf(sql, ", %s = excluded.%s", cols[i], cols[i]);
	buf_adds(sql, ";\n");
}

int state_run_log(struct wh *w, const struct state_run_row *row, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	char started[32], finished[32];
	int rc;

	units_format_ts(row->started_ms, started, sizeof(started));
	units_format_ts(row->finished_ms, finished, sizeof(finished));
	buf_addf(&sql, "INSERT INTO _sluice.run_log VALUES (%lld, ", (long long)row->run_id);
	add_str_or_null(&sql, row->model);
	buf_adds(&sql, ", ");
	add_str_or_null(&sql, row->env ? row->env : "");
	buf_adds(&sql, ", ");
	add_str_or_null(&sql, row->run_type);
	buf_adds(&sql, ", ");
	add_str_or_null(&sql, row->status);
	buf_addf(&sql, ", '%s', '%s', %lld, %lld, ", started, finished, (long long)row->rows,
		 (long long)(row->finished_ms - row->started_ms));
	add_str_or_null(&sql, row->message);
	buf_adds(&sql, ")");
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

void state_model_table(char *out, size_t size, const char *kind, const char *schema,
		       const char *name)
{
	snprintf(out, size, "%s__%s__%s", kind, schema, name);
}

void state_sql_model_table(struct buf *sql, const char *kind, const char *schema,
			   const char *name)
{
	char table[512];

	state_model_table(table, sizeof(table), kind, schema, name);
	wh_sql_qualified(sql, STATE_SCHEMA, table);
}

int state_model_table_drop(struct wh *w, const char *kind, const char *schema, const char *name,
			   struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "DROP TABLE IF EXISTS ");
	state_sql_model_table(&sql, kind, schema, name);
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}
