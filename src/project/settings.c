/*
 * This file implements the checks of a model's settings: it merges the
 * folder defaults of pipeline.yml under the keys a model's @config sets
 * (tags add up), checks every key, every value and every combination of
 * values, and fills the typed fields of struct model. Every problem becomes
 * a diagnostic at the line of the file that set the value, so that a single
 * pass reports them all. It must never read the model file's text (that is
 * header.c's, before it), stop at the first problem, allocate outside the
 * caller's arena, or look at the warehouse.
 */
#include "project/settings.h"

#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/units.h"
#include "project/config.h"
#include "project/directive.h"
#include "project/header.h"
#include "project/model.h"
#include "windows/grid.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const header_config_keys[] = {
	"materialized", "incremental_strategy", "unique_key", "incremental_filter",
	"live", "live_interval", "cdc_op", "cdc_seq", "cdc_deletes", "temporality",
	"time_column", "grain", "start", "end", "lookback", "flexibility", "replay_anchor",
	"replay_on_change",
	"bounded_replay_fallback", "tags", "description", "check_cols", "ivm", "on_schema_change",
	"anomaly", "anomaly_columns", NULL,
};

static const char *const mat_names[] = { "view", "table", "incremental", "ephemeral",
					 "snapshot", NULL };
/* in the order of enum model_strategy, after STRAT_NONE */
static const char *const strategy_names[] = { "append", "merge", "delete+insert", "microbatch",
					      NULL };
static const char *const deletes_names[] = { "hard", "soft", NULL };
static const char *const temporality_names[] = { "timeless", "temporal", NULL };
static const char *const grain_names[] = { "1h", "1d", "1w", "1mo", NULL };
static const char *const flexibility_names[] = { "fix", "flex", NULL };
static const char *const anchor_names[] = { "auto", "never", NULL };
static const char *const fallback_names[] = { "full", "bounded_without_history", NULL };
/* in the order of enum model_ivm */
static const char *const ivm_names[] = { "auto", "required", "off", NULL };
/* in the order of enum model_anomaly, after MODEL_ANOMALY_UNSET */
static const char *const anomaly_names[] = { "off", "warn", "error", NULL };
/* in the order of enum model_schema_change */
static const char *const schema_change_names[] = { "append_new_columns", "sync_all_columns",
						   "fail", "full_refresh", NULL };

/* State of one header_apply_settings call. */
struct apply {
	struct arena *a;
	struct model *m;
	struct diag_list *diags;
	const char *pipeline_path;
};

static void apply_error(struct apply *c, const struct model_setting *st, const char *hint,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Reports at the setting's line in the file that set it, or at line 1 of
 * the model when no setting is to blame. */
static void apply_error(struct apply *c, const struct model_setting *st, const char *hint,
			const char *fmt, ...)
{
	const char *file = c->m->path;
	int line = 1;
	va_list ap;
	char *msg;

	if (st) {
		line = st->line;
		if (st->from_pipeline && c->pipeline_path)
			file = c->pipeline_path;
	}
	va_start(ap, fmt);
	msg = arena_vsprintf(c->a, fmt, ap);
	va_end(ap);
	diag_add(c->diags, DIAG_ERROR, file, line, 0, hint, "%s", msg);
}

/* A pipeline.yml value as a setting; its lists arrive rendered "[a, b]". */
static void setting_from_text(struct arena *a, struct model_setting *st, const char *value)
{
	size_t len = strlen(value), end;

	st->value = value;
	if (len < 2 || value[0] != '[' || value[len - 1] != ']')
		return;
	if (directive_parse_list(a, value, 0, false, &end, &st->list, &st->nlist) == LIST_OK &&
	    value[end] == '\0')
		st->is_list = true;
}

/* Tags add up: a model keeps its folder's tags beside its own. */
static void add_folder_tags(struct arena *a, struct model_setting *own, const char *value)
{
	struct model_setting folder = { 0 };
	const char **items;
	size_t n = 0;

	setting_from_text(a, &folder, value);
	if (!folder.is_list) {
		folder.list = &folder.value;
		folder.nlist = *folder.value != '\0';
	}
	items = arena_alloc(a, (own->nlist + folder.nlist + 2) * sizeof(char *));
	if (own->is_list)
		for (size_t i = 0; i < own->nlist; i++)
			items[n++] = own->list[i];
	else
		items[n++] = own->value;
	for (size_t i = 0; i < folder.nlist; i++) {
		bool dup = false;

		for (size_t k = 0; k < n; k++)
			dup |= strcmp(items[k], folder.list[i]) == 0;
		if (!dup)
			items[n++] = folder.list[i];
	}
	own->value = directive_list_text(a, items, n);
	own->list = items;
	own->nlist = n;
	own->is_list = true;
}

static void apply_defaults(struct apply *c, const struct kv_list *defaults)
{
	for (size_t i = 0; defaults && i < defaults->n; i++) {
		const struct cfg_kv *kv = &defaults->items[i];
		struct model_setting st = { 0 };
		const struct model_setting *got;

		if (header_choice_index(header_config_keys, kv->key) < 0) {
			diag_add(c->diags, DIAG_ERROR, c->pipeline_path, kv->line, 0,
				 header_mean_hint(c->a, header_config_keys, kv->key, ""),
				 "unknown @config key '%s'", kv->key);
			continue;
		}
		got = model_setting_get(c->m, kv->key);
		if (got && strcmp(kv->key, "tags") == 0) {
			/* the model's own entry, writable: folder tags add to it */
			add_folder_tags(c->a, &c->m->settings[got - c->m->settings],
					kv->value ? kv->value : "");
			continue;
		}
		if (got)
			continue;
		st.key = kv->key;
		st.line = kv->line;
		st.from_pipeline = true;
		setting_from_text(c->a, &st, kv->value ? kv->value : "");
		if (strcmp(st.key, "incremental_filter") == 0) {
			/* the filter's text lives in pipeline.yml: no model line */
			c->m->filter = st.value;
			c->m->filter_line = 0;
		}
		*ARENA_PUSH(c->a, &c->m->settings, &c->m->nsettings, &c->m->settings_cap) = st;
	}
}

/*
 * The index of the setting's value among choices; -1 when it is unset, or
 * after reporting a value that is not one of them.
 * *guess gets the index of the nearest choice, left alone when none is near,
 * so callers keep a best guess for the typed fields.
 */
static int check_choice(struct apply *c, const struct model_setting *st,
			const char *const *choices, int *guess)
{
	const char *near;
	const char *hint;
	int i;

	if (!st)
		return -1;
	if (st->is_list) {
		apply_error(c, st, "write a single value", "'%s' takes one value, not a list",
			    st->key);
		return -1;
	}
	i = header_choice_index(choices, st->value);
	if (i >= 0) {
		*guess = i;
		return i;
	}
	hint = header_choice_hint(c->a, choices, st->value, &near);
	if (near)
		*guess = header_choice_index(choices, near);
	apply_error(c, st, hint, "invalid %s '%s'", st->key, st->value);
	return -1;
}

/* Checks keys that take a closed set of values and only feed later passes. */
static void check_plain_choices(struct apply *c)
{
	static const struct {
		const char *key;
		const char *const *choices;
	} rules[] = {
		{ "cdc_deletes", deletes_names },
		{ "temporality", temporality_names },
		{ "grain", grain_names },
		{ "flexibility", flexibility_names },
		{ "replay_anchor", anchor_names },
		{ "bounded_replay_fallback", fallback_names },
	};
	int unused = 0;

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		check_choice(c, model_setting_get(c->m, rules[i].key), rules[i].choices, &unused);
}

/* One word or a list of words, as unique_key, check_cols and tags take. */
static void setting_words(struct apply *c, const char *key, const char ***out, size_t *n)
{
	const struct model_setting *st = model_setting_get(c->m, key);

	if (!st)
		return;
	if (st->is_list) {
		*out = st->list;
		*n = st->nlist;
		return;
	}
	*out = arena_alloc(c->a, sizeof(**out));
	(*out)[0] = st->value;
	*n = 1;
}

/* replay_on_change: one policy for every change, or a list of
 * breaking:POLICY and non_breaking:POLICY. */
static void check_replay_policy(struct apply *c)
{
	const struct model_setting *st = model_setting_get(c->m, "replay_on_change");
	static const char hint[] = "write full or bounded-DURATION (bounded-7d), or a list such as "
				   "[breaking:full, non_breaking:bounded-3d]";
	int64_t ms;

	if (st && !st->is_list && !config_policy_parse(st->value, &ms))
		apply_error(c, st, hint, "replay_on_change '%s' is no policy", st->value);
	for (size_t i = 0; st && st->is_list && i < st->nlist; i++) {
		const char *item = st->list[i], *colon = strchr(item, ':');
		size_t n = colon ? (size_t)(colon - item) : 0;
		bool named = (n == 8 && !strncmp(item, "breaking", 8)) ||
			     (n == 12 && !strncmp(item, "non_breaking", 12));

		if (!named || !config_policy_parse(colon + 1, &ms))
			apply_error(c, st, hint, "replay_on_change '%s' is no CHANGE:POLICY", item);
	}
}

static void check_single_values(struct apply *c)
{
	/* free-form keys that still take one value */
	static const char *const single[] = { "live_interval", "cdc_op", "cdc_seq", "time_column",
					      "start", "end", "lookback", "description", NULL };

	for (size_t i = 0; single[i]; i++) {
		const struct model_setting *st = model_setting_get(c->m, single[i]);

		if (st && st->is_list)
			apply_error(c, st, "write a single value", "'%s' takes one value, not a list",
				    st->key);
	}
}

/* An empty name was reported when the header was read. */
static void check_column_name(struct apply *c, const struct model_setting *st, const char *name)
{
	if (*name && !header_is_column_name(name))
		apply_error(c, st, header_column_name_hint(c->a, name),
			    "%s '%s' is not a column name", st->key, name);
}

/* The keys that name columns of the query. */
static void check_column_names(struct apply *c)
{
	static const char *const keys[] = { "unique_key", "check_cols", "cdc_op", "cdc_seq",
					    "time_column", NULL };

	for (size_t i = 0; keys[i]; i++) {
		const struct model_setting *st = model_setting_get(c->m, keys[i]);

		if (st && !st->is_list)
			check_column_name(c, st, st->value);
		for (size_t k = 0; st && st->is_list && k < st->nlist; k++)
			check_column_name(c, st, st->list[k]);
	}
}

/* Rules that tie several keys together; only keys whose own values were
 * valid take part, so that one typo does not cascade into more errors. */
static void check_combinations(struct apply *c, bool mat_ok, enum model_strategy strat,
			       bool strat_ok, bool live_ok)
{
	struct model *m = c->m;
	const struct model_setting *s_mat = model_setting_get(m, "materialized");
	const struct model_setting *s_strat = model_setting_get(m, "incremental_strategy");
	const struct model_setting *s_cc = model_setting_get(m, "check_cols");
	const struct model_setting *s_filter = model_setting_get(m, "incremental_filter");
	const struct model_setting *s_live = model_setting_get(m, "live");
	const struct model_setting *s_temp = model_setting_get(m, "temporality");
	const struct model_setting *s_time = model_setting_get(m, "time_column");
	const char *mat = model_mat_name(m->mat);
	bool has_uk = m->nunique_key > 0;

	if (mat_ok && s_strat && m->mat != MAT_INCREMENTAL)
		apply_error(c, s_strat,
			    "only incremental models have a strategy: set materialized=incremental or remove it",
			    "incremental_strategy '%s' on a %s model", s_strat->value, mat);
	if (mat_ok && strat_ok && m->mat == MAT_INCREMENTAL && !has_uk &&
	    (strat == STRAT_MERGE || strat == STRAT_DELETE_INSERT))
		apply_error(c, s_strat, "unique_key names the column(s) that identify a row",
			    "incremental_strategy '%s' needs unique_key", s_strat->value);
	if (mat_ok && m->mat == MAT_SNAPSHOT && !has_uk)
		apply_error(c, s_mat, "a snapshot tracks the history of each row by its unique_key",
			    "materialized 'snapshot' needs unique_key");
	if (mat_ok && s_cc && m->mat != MAT_SNAPSHOT)
		apply_error(c, s_cc,
			    "only snapshots compare check_cols: set materialized=snapshot or remove it",
			    "check_cols on a %s model", mat);
	if (mat_ok && s_filter && m->mat != MAT_INCREMENTAL)
		apply_error(c, s_filter,
			    "only incremental models use a filter: set materialized=incremental or remove it",
			    "incremental_filter on a %s model", mat);
	if (mat_ok && live_ok && m->live && m->mat != MAT_INCREMENTAL && m->mat != MAT_VIEW)
		apply_error(c, s_live, arena_sprintf(c->a, "this model is materialized as %s", mat),
			    "a live model must be incremental or a view");
	if (mat_ok && strat_ok && live_ok && m->live && m->mat == MAT_INCREMENTAL) {
		if (strat == STRAT_APPEND && !s_filter && !m->maintained)
			apply_error(c, s_live,
				    "without it each refresh appends the whole query again, e.g. incremental_filter=WHERE _sluice_seq > {watermark}",
				    "a live append model needs incremental_filter");
		if (strat == STRAT_MICROBATCH)
			apply_error(c, s_live,
				    "microbatch runs one statement per window in batch runs: use append or merge",
				    "a live model cannot use incremental_strategy 'microbatch'");
	}
	if (mat_ok && strat_ok && m->mat == MAT_INCREMENTAL && strat == STRAT_MICROBATCH) {
		/* a temporality that is not a valid value was reported already */
		bool temporal =
			s_temp && header_choice_index(temporality_names, s_temp->value) != 0;
		const char *missing = NULL;

		if (!temporal && !s_time)
			missing = "temporality=temporal and time_column";
		else if (!temporal)
			missing = "temporality=temporal";
		else if (!s_time)
			missing = "time_column";
		if (missing)
			apply_error(c, s_strat, "microbatch builds one window of time_column at a time",
				    "incremental_strategy 'microbatch' needs %s", missing);
	}
}

/* Change events apply to an incremental merge or delete+insert model with a
 * unique_key, through two columns of their own: one names the operation,
 * the other orders the events of a key. */
static void check_cdc(struct apply *c, bool mat_ok, enum model_strategy strat, bool strat_ok)
{
	struct model *m = c->m;
	const struct model_setting *s_op = model_setting_get(m, "cdc_op");
	const struct model_setting *s_seq = model_setting_get(m, "cdc_seq");
	const struct model_setting *s_del = model_setting_get(m, "cdc_deletes");
	const struct model_setting *at = s_op ? s_op : s_seq;

	if (s_op && !s_op->is_list)
		m->cdc_op = s_op->value;
	if (s_seq && !s_seq->is_list)
		m->cdc_seq = s_seq->value;
	m->cdc_soft = s_del && strcmp(s_del->value, "soft") == 0;
	if (!at) {
		if (s_del && header_choice_index(deletes_names, s_del->value) >= 0)
			apply_error(c, s_del, "set cdc_op and cdc_seq, or remove cdc_deletes",
				    "cdc_deletes without cdc_op and cdc_seq");
		return;
	}
	if (!s_seq)
		apply_error(c, s_op,
			    "cdc_seq names the column that orders the changes of one key: an LSN, a "
			    "sequence number or a timestamp",
			    "cdc_op needs cdc_seq");
	if (!s_op)
		apply_error(c, s_seq,
			    "cdc_op names the column holding each change's operation: I/U/D, "
			    "insert/update/delete or Debezium's c/r/u/d",
			    "cdc_seq needs cdc_op");
	if (!mat_ok || !strat_ok)
		return;
	if (m->mat != MAT_INCREMENTAL) {
		apply_error(c, at,
			    "change events apply to an incremental model: set materialized=incremental, "
			    "incremental_strategy=merge and unique_key",
			    "%s on a %s model", at->key, model_mat_name(m->mat));
		return;
	}
	if (strat != STRAT_MERGE && strat != STRAT_DELETE_INSERT) {
		if (model_setting_get(m, "incremental_strategy"))
			apply_error(c, at, "a change event replaces its key's row; append would keep every event",
				    "%s needs incremental_strategy merge or delete+insert, not '%s'",
				    at->key, model_strategy_name(strat));
		else
			apply_error(c, at, "unique_key names the column(s) each change event applies to",
				    "%s needs unique_key", at->key);
		return;
	}
	if (m->cdc_op && m->cdc_seq && strcasecmp(m->cdc_op, m->cdc_seq) == 0)
		apply_error(c, at, "one column holds the operation, another orders the changes",
			    "cdc_op and cdc_seq name the same column '%s'", m->cdc_op);
	for (size_t i = 0; i < m->nunique_key; i++) {
		const char *k = m->unique_key[i];
		const struct model_setting *own =
			m->cdc_op && strcasecmp(k, m->cdc_op) == 0	    ? s_op
			: m->cdc_seq && strcasecmp(k, m->cdc_seq) == 0 ? s_seq
								       : NULL;

		if (own)
			apply_error(c, own,
				    "the key names a row; cdc_op and cdc_seq describe each change to it",
				    "%s '%s' is a unique_key column", own->key, k);
	}
}

/* A bound of a temporal model's grid: a UTC instant on the grid of grain g
 * (when g is known). Returns false after reporting one that is not. */
static bool grid_bound(struct apply *c, const struct model_setting *st, const enum win_grain *g,
		       int64_t *t)
{
	char on[WIN_TIME_MAX];

	if (win_time_parse(st->value, t) != 0) {
		apply_error(c, st, "a UTC date or time such as 2026-01-01 or '2026-01-01 06:00'",
			    "invalid %s '%s'", st->key, st->value);
		return false;
	}
	if (!g || win_floor(*g, *t) == *t)
		return true;
	win_time_format(win_floor(*g, *t), on);
	apply_error(c, st, arena_sprintf(c->a, "windows of %s start at %s", win_grain_name(*g), on),
		    "%s '%s' is not on the %s grid", st->key, st->value, win_grain_name(*g));
	return false;
}

/* A temporal model is built window by window: the grid comes from grain
 * and start (and end), each window's rows from time_column. The keys of
 * the grid mean nothing on a timeless model. */
static void check_temporal(struct apply *c, bool mat_ok)
{
	static const char *const grid_keys[] = { "grain", "start", "end", "lookback",
						 "flexibility", NULL };
	struct model *m = c->m;
	const struct model_setting *s_temp = model_setting_get(m, "temporality");
	const struct model_setting *s_grain = model_setting_get(m, "grain");
	const struct model_setting *s_start = model_setting_get(m, "start");
	const struct model_setting *s_end = model_setting_get(m, "end");
	const struct model_setting *s_look = model_setting_get(m, "lookback");
	const struct model_setting *s_flex = model_setting_get(m, "flexibility");
	const struct model_setting *s_time = model_setting_get(m, "time_column");
	bool grain_ok;
	char *endp;

	m->temporal = s_temp && !s_temp->is_list && strcmp(s_temp->value, "temporal") == 0;
	m->end = INT64_MAX;
	if (!m->temporal) {
		/* an invalid temporality was reported: its grid keys may be meant */
		bool invalid = s_temp && (s_temp->is_list ||
					  header_choice_index(temporality_names, s_temp->value) < 0);

		for (size_t i = 0; grid_keys[i] && !invalid; i++) {
			const struct model_setting *st = model_setting_get(m, grid_keys[i]);

			if (st)
				apply_error(c, st, "set temporality=temporal, or remove it",
					    "%s on a timeless model", st->key);
		}
		return;
	}
	m->flex = s_flex && !s_flex->is_list && strcmp(s_flex->value, "flex") == 0;
	m->time_column = s_time && !s_time->is_list ? s_time->value : NULL;
	if (mat_ok && m->mat != MAT_INCREMENTAL)
		apply_error(c, s_temp,
			    "a temporal model replaces one window of its table at a time: set "
			    "materialized=incremental",
			    "a temporal model cannot be materialized as %s", model_mat_name(m->mat));
	if (!s_time)
		apply_error(c, s_temp, "time_column names the column each row's window is taken from",
			    "a temporal model needs time_column");
	if (!s_grain || !s_start)
		apply_error(c, s_temp, "e.g. grain=1d, start='2026-01-01'",
			    "a temporal model needs %s", !s_grain && !s_start ? "grain and start"
							 : !s_grain		? "grain"
										: "start");
	grain_ok = s_grain && !s_grain->is_list && win_grain_parse(s_grain->value, &m->grain) == 0;
	if (s_start && !s_start->is_list)
		grid_bound(c, s_start, grain_ok ? &m->grain : NULL, &m->start);
	if (s_end && !s_end->is_list && grid_bound(c, s_end, grain_ok ? &m->grain : NULL, &m->end) &&
	    s_start && m->end <= m->start)
		apply_error(c, s_end, "end is the until of the last window, after start",
			    "end '%s' is not after start '%s'", s_end->value, s_start->value);
	if (s_look && !s_look->is_list) {
		long v = strtol(s_look->value, &endp, 10);

		if (!*s_look->value || *endp || v < 0 || v > 10000)
			apply_error(c, s_look, "a number of windows from 0 to 10000",
				    "invalid lookback '%s'", s_look->value);
		else
			m->lookback = (int)v;
	}
	if (m->live)
		apply_error(c, model_setting_get(m, "live"),
			    "a temporal model builds its windows in batch runs; read it from a live model instead",
			    "a live model cannot be temporal");
}

/* One item of anomaly_columns, "COLUMN:LEVEL", into *out; false after
 * reporting one that is not. */
static bool anomaly_column(struct apply *c, const struct model_setting *st, const char *item,
			   struct model_anomaly_column *out)
{
	const char *colon = strchr(item, ':');
	const char *hint;
	int level;

	if (!colon) {
		apply_error(c, st,
			    arena_sprintf(c->a, "write %s:off, %s:warn or %s:error", item, item, item),
			    "anomaly_columns item '%s' has no level", item);
		return false;
	}
	out->name = arena_strndup(c->a, item, (size_t)(colon - item));
	if (!header_is_column_name(out->name)) {
		apply_error(c, st, header_column_name_hint(c->a, out->name),
			    "anomaly_columns item '%s': '%s' is not a column name", item, out->name);
		return false;
	}
	level = header_choice_index(anomaly_names, colon + 1);
	if (level < 0) {
		hint = header_choice_hint(c->a, anomaly_names, colon + 1, NULL);
		apply_error(c, st, hint, "invalid level '%s' in anomaly_columns item '%s'", colon + 1,
			    item);
		return false;
	}
	out->level = (enum model_anomaly)(MODEL_ANOMALY_OFF + level);
	return true;
}

/* How the model's profiles are judged: anomaly, the model's level, and
 * anomaly_columns, a level per column. Set in the model's own header, they
 * must be on a model whose batch builds are profiled: one with a table of
 * its own, built whole or by its strategy (a folder's default reaches
 * every kind of model, and means nothing on the others). */
static void check_anomaly(struct apply *c, bool mat_ok)
{
	struct model *m = c->m;
	const struct model_setting *st = model_setting_get(m, "anomaly");
	const struct model_setting *cols = model_setting_get(m, "anomaly_columns");
	const char **items = NULL;
	size_t n = 0;
	int level = 0;

	if (st && check_choice(c, st, anomaly_names, &level) >= 0)
		m->anomaly = (enum model_anomaly)(MODEL_ANOMALY_OFF + level);
	setting_words(c, "anomaly_columns", &items, &n);
	m->anomaly_columns = arena_alloc(c->a, (n + 1) * sizeof(*m->anomaly_columns));
	for (size_t i = 0; i < n; i++) {
		struct model_anomaly_column col;
		bool twice = false;

		if (!anomaly_column(c, cols, items[i], &col))
			continue;
		for (size_t k = 0; k < m->nanomaly_columns; k++)
			twice |= strcasecmp(m->anomaly_columns[k].name, col.name) == 0;
		if (twice)
			apply_error(c, cols, "give each column one level",
				    "anomaly_columns names '%s' twice", col.name);
		else
			m->anomaly_columns[m->nanomaly_columns++] = col;
	}
	for (size_t i = 0; i < 2; i++) {
		const struct model_setting *at = i ? cols : st;

		if (!at || at->from_pipeline || !mat_ok)
			continue;
		if (m->mat == MAT_VIEW || m->mat == MAT_EPHEMERAL)
			apply_error(c, at,
				    "only a model with a table of its own is profiled: remove it, or "
				    "set materialized=table",
				    "%s on a %s model", at->key, model_mat_name(m->mat));
		else if (m->temporal)
			apply_error(c, at,
				    "a temporal model is built one window at a time and not profiled: "
				    "check each window with @assert instead",
				    "%s on a temporal model", at->key);
	}
}

int header_apply_settings(struct arena *a, struct model *m, const struct kv_list *defaults,
			  const char *pipeline_path, struct diag_list *diags)
{
	struct apply c = { a, m, diags, pipeline_path };
	size_t before = diag_count(diags, DIAG_ERROR);
	const struct model_setting *st;
	int mat = MAT_VIEW, strat_i = -1, live = 0, ivm = 0, osc = 0;
	enum model_strategy strat;
	bool mat_ok, strat_ok, live_ok;

	apply_defaults(&c, defaults);
	for (size_t i = 0; i < m->nsettings; i++) {
		const char *key = m->settings[i].key;

		if (header_choice_index(header_config_keys, key) < 0)
			apply_error(&c, &m->settings[i],
				    header_mean_hint(a, header_config_keys, key, ""),
				    "unknown @config key '%s'", key);
	}

	st = model_setting_get(m, "materialized");
	mat_ok = !st || check_choice(&c, st, mat_names, &mat) >= 0;
	m->mat = (enum model_mat)mat;

	setting_words(&c, "unique_key", &m->unique_key, &m->nunique_key);
	setting_words(&c, "check_cols", &m->check_cols, &m->ncheck_cols);
	setting_words(&c, "tags", &m->tags, &m->ntags);

	st = model_setting_get(m, "incremental_strategy");
	strat_ok = !st || check_choice(&c, st, strategy_names, &strat_i) >= 0;
	st = model_setting_get(m, "temporality");
	if (strat_i >= 0)
		strat = (enum model_strategy)(STRAT_APPEND + strat_i);
	else if (st && !st->is_list && strcmp(st->value, "temporal") == 0)
		strat = STRAT_MICROBATCH; /* a window is replaced whole */
	else
		strat = m->nunique_key ? STRAT_MERGE : STRAT_APPEND;
	m->strategy = m->mat == MAT_INCREMENTAL ? strat : STRAT_NONE;

	st = model_setting_get(m, "live");
	live_ok = !st || check_choice(&c, st, header_bool_names, &live) >= 0;
	m->live = live == 1;

	st = model_setting_get(m, "live_interval");
	if (st && !st->is_list && units_parse_duration(st->value, &m->live_interval_ms) != 0)
		apply_error(&c, st, "a duration such as 500ms, 10s or 5m",
			    "invalid live_interval '%s'", st->value);
	else if (st && m->live_interval_ms > UNITS_DURATION_MAX_MS)
		apply_error(&c, st, "write at most 365d", "invalid live_interval '%s' (more than a year)",
			    st->value);

	st = model_setting_get(m, "description");
	if (st)
		m->description = st->value;

	/* a misspelt ivm stays auto, so that validate adds no error over it */
	st = model_setting_get(m, "ivm");
	m->ivm = st && check_choice(&c, st, ivm_names, &ivm) >= 0 ? (enum model_ivm)ivm
								  : MODEL_IVM_AUTO;
	if (m->ivm == MODEL_IVM_REQUIRED && m->live && model_setting_get(m, "incremental_filter"))
		apply_error(&c, st, "remove incremental_filter, or ivm to keep writing it by hand",
			    "ivm 'required' derives the refresh from the query; incremental_filter "
			    "writes it by hand");
	/* its refreshes rewrite the rows of the keys they touch, as a
	 * delete+insert does, keyed by what maintain_plan_all finds */
	m->maintained = m->live && m->mat == MAT_INCREMENTAL && strat_i < 0 && !m->nunique_key &&
			strat == STRAT_APPEND && !model_setting_get(m, "incremental_filter") &&
			!model_setting_get(m, "cdc_op") && m->ivm != MODEL_IVM_OFF;
	if (m->maintained)
		m->strategy = STRAT_DELETE_INSERT;

	st = model_setting_get(m, "on_schema_change");
	if (st && check_choice(&c, st, schema_change_names, &osc) >= 0 && mat_ok &&
	    m->mat != MAT_INCREMENTAL)
		apply_error(&c, st, "remove it: a table or view is built whole on every change",
			    "on_schema_change applies to incremental models, and this one is %s",
			    mat_names[m->mat]);
	m->on_schema_change = (enum model_schema_change)osc;

	check_plain_choices(&c);
	check_single_values(&c);
	check_replay_policy(&c);
	check_column_names(&c);
	check_combinations(&c, mat_ok, strat, strat_ok, live_ok);
	check_cdc(&c, mat_ok, strat, strat_ok);
	check_temporal(&c, mat_ok);
	check_anomaly(&c, mat_ok);
	return diag_count(diags, DIAG_ERROR) > before ? SL_E_CONFIG : 0;
}
