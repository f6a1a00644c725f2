/*
 * Landing tables and advances. An advance is the only place a landing row
 * gets its sequence; it never stamps a row twice and never leaves a stamp
 * without its advance row. Which tables may be advanced is decided here
 * too, from the project, before anything touches the warehouse.
 */
#include "live/advance.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/units.h"
#include "live/adopted.h"
#include "project/inputs.h"
#include "project/model.h"
#include "state/live.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* sluice's own state: an advance there would alter the tables every later
 * advance and build writes to. */
static bool is_state_table(const char *fqn)
{
	return strncmp(fqn, STATE_SCHEMA ".", strlen(STATE_SCHEMA ".")) == 0;
}

/* What every refusal of live_advance_target points to. */
static const char target_hint[] = "advance a source declared under sources: in sluice.yml, or "
				  "a landing table a live model reads";

struct target {
	const char *name; /* as it may be given, lowercase */
	const char *fqn;  /* the table it stands for */
};

struct targets {
	struct target *items;
	size_t n, cap;
};

static char *lower_dup(struct arena *a, const char *s)
{
	char *out = arena_strdup(a, s);

	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

static void target_add(struct arena *a, struct targets *t, const char *name, const char *fqn)
{
	struct target *e = ARENA_PUSH(a, &t->items, &t->n, &t->cap);

	e->name = name;
	e->fqn = fqn;
}

/* Every name an advance accepts, short and full. Declared sources come
 * first, so that a bare name means the source: an adopted one's table need
 * not be in landing. */
static void targets_find(struct arena *a, const struct project *p, struct targets *t)
{
	for (size_t i = 0; i < p->cfg.nsources; i++) {
		char table[256];
		const char *fqn;

		inputs_source_table(&p->cfg.sources[i], table, sizeof(table));
		fqn = arena_strdup(a, table);
		target_add(a, t, lower_dup(a, p->cfg.sources[i].name), fqn);
		target_add(a, t, fqn, fqn);
	}
	for (size_t i = 0; i < p->nmodels; i++) {
		struct model_inputs in;

		if (!inputs_tracks(p->models[i]))
			continue;
		inputs_find(a, p->models[i], &in);
		for (size_t k = 0; k < in.nsources; k++) {
			const char *fqn = lower_dup(a, in.sources[k]);

			if (strncmp(fqn, "landing.", 8) == 0)
				target_add(a, t, fqn + strlen("landing."), fqn);
			target_add(a, t, fqn, fqn);
		}
	}
}

/* A model's table is written by its builds; what it reads is what to
 * advance instead. */
static int refuse_model(struct arena *a, const struct model *m, const char *name,
			struct sl_err *err)
{
	struct model_inputs in;
	const char *hint = target_hint;

	inputs_find(a, m, &in);
	for (size_t i = 0; i < in.nsources; i++)
		hint = arena_sprintf(a, "%s%s'%s'", i ? hint : "advance what it reads: ",
				     i ? ", " : "", in.sources[i]);
	return sl_err_set(err, SL_E_USAGE,
			  "'%s' is not a source of this project: it is a model, written by its "
			  "builds\n  hint: %s",
			  name, hint);
}

static int refuse_unknown(struct arena *a, const struct targets *t, const char *want,
			  const char *name, struct sl_err *err)
{
	const char **names = arena_alloc(a, (t->n + 1) * sizeof(*names));
	const char *near;

	for (size_t i = 0; i < t->n; i++)
		names[i] = t->items[i].name;
	near = suggest_nearest(want, names);
	return sl_err_set(err, SL_E_NOTFOUND, "unknown source '%s'%s%s%s\n  hint: %s", name,
			  near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
			  target_hint);
}

int live_advance_target(struct arena *parent, const struct project *p, const char *name,
			char *fqn, size_t n, struct sl_err *err)
{
	struct arena *a = arena_new(parent);
	struct targets t = { 0 };
	const char *want = lower_dup(a, name), *found = NULL, *full;
	const struct model *m;
	int rc = 0;

	targets_find(a, p, &t);
	for (size_t i = 0; !found && i < t.n; i++)
		if (strcmp(t.items[i].name, want) == 0)
			found = t.items[i].fqn;
	full = found ? found : strchr(want, '.') ? want : arena_sprintf(a, "landing.%s", want);
	/* refused even when declared: an adopted source's table may be one */
	if (is_state_table(full))
		rc = sl_err_set(err, SL_E_USAGE,
				"'%s' is not a source of this project: the _sluice schema holds "
				"sluice's own state\n  hint: %s",
				name, target_hint);
	else if ((m = project_find_model(p, full)))
		rc = refuse_model(a, m, name, err);
	else if (!found)
		rc = refuse_unknown(a, &t, want, name, err);
	else if ((size_t)snprintf(fqn, n, "%s", found) >= n)
		rc = sl_err_set(err, SL_E_USAGE, "source name '%s' is too long", name);
	arena_free(a);
	return rc;
}

/* The columns every landing table of a kind has, after its typed ones. */
static const char *kind_columns(const char *kind)
{
	if (strcmp(kind, "postgres_cdc") == 0)
		return "op VARCHAR, lsn BIGINT, xid BIGINT, received_at TIMESTAMP, payload JSON";
	if (strcmp(kind, "kafka") == 0)
		return "payload JSON, _sluice_op VARCHAR, _sluice_key VARCHAR, _sluice_headers JSON, "
		       "_sluice_topic VARCHAR, _sluice_partition INTEGER, _sluice_offset BIGINT, "
		       "_sluice_event_ts TIMESTAMP, _sluice_landed_at TIMESTAMP";
	if (strcmp(kind, "files") == 0)
		return "payload JSON, _sluice_file VARCHAR, _sluice_landed_at TIMESTAMP";
	return "payload JSON, _sluice_landed_at TIMESTAMP";
}

/* Live models read landing rows by sequence: an advance that stamps finds
 * its rows by it too (IS NULL). */
static int index_landing(struct wh *w, const struct project *p, struct sl_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];

		if (s->kind && strcmp(s->kind, "adopted") != 0)
			rc = wh_ensure_index(w, "landing", s->name,
					     (const char *const[]){ "_sluice_seq" }, 1, false, err);
	}
	return rc;
}

/* The column a postgres_cdc landing table got after its first version:
 * the order of the changes of one source transaction. */
#define CDC_POS_COLUMN "_sluice_pos BIGINT"

/* The columns of a landing table that one made by an earlier version (or
 * by hand, to the convention) may lack, by kind: the consumers write each
 * column by its name and would leave these out. */
static const char *const later_columns[][3] = {
	{ "postgres_cdc", "xid", "xid BIGINT" },
	{ "postgres_cdc", "_sluice_pos", CDC_POS_COLUMN },
	{ "kafka", "_sluice_op", "_sluice_op VARCHAR" },
	{ "kafka", "_sluice_key", "_sluice_key VARCHAR" },
	{ "kafka", "_sluice_headers", "_sluice_headers JSON" },
	{ "kafka", "_sluice_topic", "_sluice_topic VARCHAR" },
};

/* Landing tables made before their kind had a column get it. */
static int add_later_columns(struct wh *w, const struct project *p, struct sl_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];

		for (size_t c = 0; !rc && c < sizeof(later_columns) / sizeof(*later_columns); c++) {
			struct buf sql = BUF_INIT;
			bool have = false;

			if (!s->kind || strcmp(s->kind, later_columns[c][0]) != 0)
				continue;
			rc = wh_has_column(w, "landing", s->name, later_columns[c][1], &have, err);
			if (rc || have)
				continue;
			buf_adds(&sql, "ALTER TABLE ");
			wh_sql_qualified(&sql, "landing", s->name);
			buf_addf(&sql, " ADD COLUMN %s", later_columns[c][2]);
			rc = wh_exec(w, sql.buf, err);
			buf_release(&sql);
		}
	}
	return rc;
}

int live_sources_ensure(struct wh *w, struct arena *parent, const struct project *p,
			struct sl_err *err)
{
	struct arena *a = arena_new(parent);
	struct buf sql = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];

		/* an adopted source is someone else's table */
		if (!s->kind || strcmp(s->kind, "adopted") == 0)
			continue;
		if (!sql.len)
			buf_adds(&sql, "CREATE SCHEMA IF NOT EXISTS landing;\n");
		buf_adds(&sql, "CREATE TABLE IF NOT EXISTS landing.");
		buf_add_sql_ident(&sql, s->name);
		buf_adds(&sql, " (");
		for (size_t c = 0; c < s->ncolumns; c++) {
			buf_add_sql_ident(&sql, s->columns[c].name);
			buf_addf(&sql, " %s, ", wh_sql_declared_type(w, a, s->columns[c].type));
		}
		buf_addf(&sql, "%s, _sluice_seq BIGINT%s);\n", kind_columns(s->kind),
			 strcmp(s->kind, "postgres_cdc") == 0 ? ", " CDC_POS_COLUMN : "");
	}
	if (sql.len)
		rc = wh_lock(w, STATE_CATALOG_LOCK, WH_LOCK_WAIT, NULL, err);
	if (sql.len && !rc) {
		int unlocked;

		rc = wh_exec(w, sql.buf, err);
		rc = rc ? rc : add_later_columns(w, p, err);
		rc = rc ? rc : index_landing(w, p, err);
		unlocked = wh_unlock(w, STATE_CATALOG_LOCK, rc ? NULL : err);
		rc = rc ? rc : unlocked;
	}
	buf_release(&sql);
	arena_free(a);
	return rc;
}

static int split_name(const char *fqn, char *schema, char *name, size_t len)
{
	const char *table;

	if (!wh_split_qualified(fqn, schema, len, &table) || strlen(table) >= len)
		return SL_E_USAGE;
	strcpy(name, table);
	return 0;
}

/* A landing table written by someone else gets the column on its first
 * advance. Only then: altering a table other connections are reading
 * would make them conflict. A table outside the landing schema is never
 * altered: it is someone else's, followed by its cursor if anything. */
static int add_seq_column(struct wh *w, struct arena *a, const char *schema, const char *name,
			  struct sl_err *err)
{
	struct wh_column *cols;
	struct buf sql = BUF_INIT;
	size_t n;
	int rc = wh_table_columns(w, a, schema, name, &cols, &n, err);

	for (size_t i = 0; !rc && i < n; i++)
		if (strcmp(cols[i].name, "_sluice_seq") == 0)
			return 0;
	if (rc)
		return rc;
	if (strcmp(schema, "landing") != 0)
		return sl_err_set(err, SL_E_USAGE,
				  "'%s.%s' has no _sluice_seq column, and sluice adds one only to a "
				  "table of the landing schema\n  hint: declare it as an adopted source "
				  "with its cursor, which is followed without being changed",
				  schema, name);
	buf_adds(&sql, "ALTER TABLE ");
	wh_sql_qualified(&sql, schema, name);
	buf_adds(&sql, " ADD COLUMN _sluice_seq BIGINT");
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

/* What an advance relies on: the state schema, the landing table, its
 * sequence column; whether it has a landing time, which the advance
 * gives the rows written without one (the time sluice took them in,
 * which replays and retention cut on). Checked once per source and
 * process, so its scratch is a root rather than an arena every caller of
 * live_advance_source would have to pass. */
static int make_ready(struct wh *w, const char *fqn, const char *schema, const char *name,
		      bool *landed_at, struct sl_err *err)
{
	struct arena *a = arena_new(NULL);
	const char *kind = NULL;
	char fact[300], timed[310];
	int rc;

	snprintf(fact, sizeof(fact), "advance:%s", fqn);
	snprintf(timed, sizeof(timed), "advance-timed:%s", fqn);
	*landed_at = wh_memo_has(w, timed);
	if (wh_memo_has(w, fact)) {
		arena_free(a);
		return 0;
	}
	rc = state_ensure(w, err);
	if (!rc)
		rc = wh_relation_kind(w, a, schema, name, &kind, err);
	if (!rc && (!kind || strcmp(kind, "table") != 0))
		rc = sl_err_set(err, SL_E_NOTFOUND,
				"no landing table '%s'\n"
				"  hint: declare the source in sluice.yml, or create the table", fqn);
	if (!rc)
		rc = add_seq_column(w, a, schema, name, err);
	if (!rc)
		rc = wh_has_column(w, schema, name, "_sluice_landed_at", landed_at, err);
	if (!rc && *landed_at)
		wh_memo_add(w, timed);
	if (!rc)
		wh_memo_add(w, fact);
	arena_free(a);
	return rc;
}

int live_advance_lock(struct wh *w, const char *fqn, struct sl_err *err)
{
	char key[300];

	snprintf(key, sizeof(key), "advance:%s", fqn);
	return wh_lock(w, key, WH_LOCK_TXN, NULL, err);
}

int live_next_seq(struct wh *w, int64_t *seq, struct sl_err *err)
{
	return state_live_seq_next(w, seq, err);
}

int live_advance_record(struct wh *w, const char *fqn, const struct live_advance *adv,
			int64_t now_ms, struct sl_err *err)
{
	return state_live_advance_record(w, fqn, adv->seq, adv->rows, now_ms, err);
}

int live_cursor_set(struct wh *w, const char *fqn, const char *cursor, struct sl_err *err)
{
	return state_live_cursor_set(w, fqn, cursor, err);
}

int live_cursor_get(struct wh *w, struct arena *a, const char *fqn, const char **out,
		    struct sl_err *err)
{
	return state_live_cursor_get(w, a, fqn, out, err);
}

int live_cursor_unmoved(struct wh *w, struct arena *parent, const char *fqn, const char *from,
			const char *now, struct sl_err *err)
{
	struct arena *a = now ? NULL : arena_new(parent);
	const char *stored = now;
	int rc = now ? 0 : live_cursor_get(w, a, fqn, &stored, err);

	if (!rc && strcmp(from, stored ? stored : "") != 0)
		rc = sl_err_set(err, SL_E_BUSY,
				"the stored cursor of %s moved since its rows were read (another "
				"process lands this source): nothing of them landed",
				fqn);
	arena_free(a);
	return rc;
}

/* Stamps and records, in one transaction. */
static int stamp(struct wh *w, const char *fqn, const char *schema, const char *name,
		 bool landed_at, struct live_advance *adv, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc = wh_begin(w, err);

	if (!rc)
		rc = live_advance_lock(w, fqn, err);
	if (!rc)
		rc = live_next_seq(w, &adv->seq, err);
	if (!rc) {
		buf_adds(&sql, "UPDATE ");
		wh_sql_qualified(&sql, schema, name);
		buf_addf(&sql, " SET _sluice_seq = %lld", (long long)adv->seq);
		if (landed_at) {
			char now[40];

			units_format_ts(units_now_ms(), now, sizeof(now));
			buf_addf(&sql, ", _sluice_landed_at = coalesce(_sluice_landed_at, "
				       "TIMESTAMP '%s')",
				 now);
		}
		buf_adds(&sql, " WHERE _sluice_seq IS NULL");
		rc = wh_exec_count(w, sql.buf, &adv->rows, err);
	}
	if (!rc && adv->rows)
		rc = live_advance_record(w, fqn, adv, units_now_ms(), err);
	if (!rc)
		rc = wh_commit(w, err);
	if (rc)
		wh_rollback(w);
	buf_release(&sql);
	return rc;
}

int live_advance_any(struct wh *w, struct arena *a, const struct project *p, const char *fqn,
		     struct live_advance *out, struct sl_err *err)
{
	const struct source_cfg *s = live_adopted_source(p, fqn);

	return s ? live_adopted_advance(w, a, s, out, err) : live_advance_source(w, fqn, out, err);
}

int live_advance_source(struct wh *w, const char *source, struct live_advance *out,
			struct sl_err *err)
{
	char fqn[256], schema[128], name[128];
	struct live_advance adv = { 0 };
	bool landed_at;
	int rc;

	inputs_source_name(source, fqn, sizeof(fqn));
	if (split_name(fqn, schema, name, sizeof(schema)))
		return sl_err_set(err, SL_E_USAGE, "invalid source name '%s'", source);
	if (is_state_table(fqn))
		return sl_err_set(err, SL_E_USAGE,
				  "'%s' is not a source: the _sluice schema holds sluice's own "
				  "state\n  hint: advance a landing table",
				  source);
	rc = make_ready(w, fqn, schema, name, &landed_at, err);
	if (!rc && stamp(w, fqn, schema, name, landed_at, &adv, err)) {
		/* the table may have changed since it was checked: check again */
		wh_memo_forget(w);
		sl_err_clear(err);
		adv = (struct live_advance){ 0 };
		rc = make_ready(w, fqn, schema, name, &landed_at, err);
		if (!rc)
			rc = stamp(w, fqn, schema, name, landed_at, &adv, err);
	}
	if (!rc && out)
		*out = adv.rows ? adv : (struct live_advance){ 0 };
	return rc;
}
