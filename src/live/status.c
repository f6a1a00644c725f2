/*
 * The live status document, from the state tables and a ledger read from
 * them (lag, coverage and "behind" are the runner's own definitions).
 */
#include "live/status.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "live/adopted.h"
#include "live/claims.h"
#include "live/ledger.h"
#include "project/inputs.h"
#include "project/model.h"
#include "state/claims.h"
#include "state/live.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static int64_t num(const struct wh_result *r, size_t row, size_t col)
{
	const char *v = wh_result_value(r, row, col);

	return v ? strtoll(v, NULL, 10) : 0;
}

static const char *runner_of(const struct wh_result *claims, const char *group)
{
	for (size_t k = 0; claims && group && k < wh_result_nrows(claims); k++)
		if (strcmp(wh_result_value(claims, k, 0), group) == 0)
			return wh_result_value(claims, k, 1);
	return NULL;
}

/* The model's row of live_state (state_live_rows), into o; the state it
 * names. */
static void model_row(const struct wh_result *r, const struct model *m, json_t *o,
		      const char **state)
{
	int64_t now = units_now_ms(), retry;
	size_t k;

	for (k = 0; k < wh_result_nrows(r); k++)
		if (strcmp(wh_result_value(r, k, 9), m->fqn) == 0)
			break;
	if (k == wh_result_nrows(r))
		return;
	*state = num(r, k, 1) ? "paused"
		 : strcmp(wh_result_value(r, k, 0), "failing") == 0 ? "failing"
								     : "live";
	retry = num(r, k, 7);
	json_object_set_new(o, "events_per_s", json_real(strtod(wh_result_value(r, k, 4), NULL)));
	json_object_set_new(o, "last_refresh", str_or_null(wh_result_value(r, k, 5)));
	json_object_set_new(o, "refreshes", json_integer(num(r, k, 2)));
	json_object_set_new(o, "events", json_integer(num(r, k, 3)));
	json_object_set_new(o, "last_error", str_or_null(wh_result_value(r, k, 6)));
	json_object_set_new(o, "retry_in_ms", json_integer(retry > now ? retry - now : 0));
	json_object_set_new(o, "covered", json_integer(num(r, k, 8)));
}

/* The inputs whose advances refresh m, by name: "landing.NAME", an
 * adopted table, or a live model. */
static json_t *tracked_inputs(struct arena *a, const struct model *m)
{
	struct model_inputs in;
	json_t *arr = json_array();

	inputs_find(a, m, &in);
	for (size_t k = 0; k < in.n; k++)
		json_array_append_new(arr, json_string(in.items[k].name));
	return arr;
}

/* What the project says of m, after what the warehouse does. */
static void project_facts(struct arena *a, const struct model *m, json_t *o)
{
	json_object_set_new(o, "description", str_or_null(m->description));
	json_object_set_new(o, "inputs", tracked_inputs(a, m));
}

static json_t *new_model(const struct model *m)
{
	json_t *o = json_object();

	json_object_set_new(o, "model", json_string(m->fqn));
	json_object_set_new(o, "state", json_string("new"));
	json_object_set_new(o, "lag_ms", json_integer(0));
	json_object_set_new(o, "events_per_s", json_real(0));
	json_object_set_new(o, "last_refresh", json_null());
	json_object_set_new(o, "refreshes", json_integer(0));
	json_object_set_new(o, "events", json_integer(0));
	json_object_set_new(o, "last_error", json_null());
	json_object_set_new(o, "retry_in_ms", json_integer(0));
	json_object_set_new(o, "covered", json_integer(0));
	return o;
}

/* What sluice.yml says of the source a landing table belongs to: its
 * kind and its typed columns (a landing table no source declares has
 * neither). */
static void source_settings(const struct project *p, const char *table, json_t *o)
{
	char name[300];

	for (size_t i = 0; i < p->cfg.nsources; i++) {
		const struct source_cfg *src = &p->cfg.sources[i];
		json_t *cols;

		inputs_source_table(src, name, sizeof(name));
		if (strcmp(name, table) && strcmp(src->name, table))
			continue;
		cols = json_array();
		for (size_t k = 0; k < src->ncolumns; k++)
			json_array_append_new(cols, json_pack("{s:s, s:s}", "name",
							      src->columns[k].name, "type",
							      src->columns[k].type));
		json_object_set_new(o, "kind", str_or_null(src->kind));
		json_object_set_new(o, "columns", cols);
		return;
	}
}

/* An adopted source shows its cursor and its late rows, not the place
 * the bookkeeping keeps its cursor as (live/adopted.h); its rows are
 * those up to the boundary builds took. */
static int sources(const struct project *p, struct wh *w, json_t *arr, struct sl_err *err)
{
	struct wh_result *r;
	int rc = state_live_sources(w, &r, err);

	for (size_t i = 0; !rc && i < wh_result_nrows(r); i++) {
		const struct source_cfg *adopted = live_adopted_source(p, wh_result_value(r, i, 0));
		json_t *o = json_object();

		json_object_set_new(o, "source", json_string(wh_result_value(r, i, 0)));
		if (adopted) {
			json_object_set_new(o, "adopted", json_string(adopted->name));
			json_object_set_new(o, "late_rows", json_integer(num(r, i, 5)));
		} else {
			json_object_set_new(o, "watermark", json_integer(num(r, i, 1)));
		}
		json_object_set_new(o, "rows", json_integer(num(r, i, 2)));
		json_object_set_new(o, "last_advance", str_or_null(wh_result_value(r, i, 3)));
		/* only sources that follow a cursor column have one */
		if (wh_result_value(r, i, 4))
			json_object_set_new(o, "cursor", json_string(wh_result_value(r, i, 4)));
		source_settings(p, wh_result_value(r, i, 0), o);
		json_array_append_new(arr, o);
	}
	if (!rc)
		wh_result_free(r);
	return rc;
}

/* How much an input is to blame for the lag of a model that reads it:
 * failing or paused stops everything after it (3), waiting passes a
 * failure further up on (2), behind or lagging holds its readers back
 * (1), live and current holds nobody back (0). */
static int blame_rank(const json_t *o)
{
	const char *state = json_string_value(json_object_get(o, "state"));

	if (!strcmp(state, "failing") || !strcmp(state, "paused"))
		return 3;
	if (!strcmp(state, "waiting"))
		return 2;
	if (!strcmp(state, "behind") || json_integer_value(json_object_get(o, "lag_ms")) > 0)
		return 1;
	return 0;
}

static json_t *model_named(json_t *models, const char *name)
{
	size_t i;
	json_t *o;

	json_array_foreach(models, i, o)
		if (!strcmp(json_string_value(json_object_get(o, "model")), name))
			return o;
	return NULL;
}

/* The live model among o's inputs most to blame for its lag (the highest
 * rank, then the largest lag, then the first), or NULL when none is. */
static json_t *most_to_blame(json_t *models, const json_t *o)
{
	json_t *best = NULL, *name;
	int best_rank = 0;
	size_t k;

	json_array_foreach(json_object_get(o, "inputs"), k, name) {
		json_t *in = model_named(models, json_string_value(name));
		int rank = in ? blame_rank(in) : 0;

		if (rank > best_rank ||
		    (rank && rank == best_rank &&
		     json_integer_value(json_object_get(in, "lag_ms")) >
			     json_integer_value(json_object_get(best, "lag_ms")))) {
			best = in;
			best_rank = rank;
		}
	}
	return best;
}

void live_status_blame(json_t *models)
{
	size_t i, n = json_array_size(models);
	json_t *o;

	json_array_foreach(models, i, o) {
		json_t *path = json_array(), *at = o, *up;

		if (!blame_rank(o)) {
			json_decref(path);
			continue;
		}
		/* the graph has no cycle; the bound keeps a document that
		 * says otherwise from looping */
		while (json_array_size(path) < n && (up = most_to_blame(models, at))) {
			json_array_append_new(path, json_string(json_string_value(
							    json_object_get(up, "model"))));
			at = up;
			if (blame_rank(up) == 3)
				break;
		}
		if (!json_array_size(path)) {
			json_decref(path);
			continue;
		}
		/* named apart from the model's own keys, which readers of
		 * the document look for line by line */
		json_object_set_new(o, "cause",
				    json_pack("{s:O, s:O, s:O, s:o}", "upstream",
					      json_object_get(at, "model"), "upstream_state",
					      json_object_get(at, "state"), "upstream_lag_ms",
					      json_object_get(at, "lag_ms"), "path", path));
	}
}

/* A live model with a failing live input waits for it. */
static bool waits(const struct model *m, json_t *models, struct arena *a)
{
	struct model_inputs in;
	size_t i;
	json_t *o;

	inputs_find(a, m, &in);
	for (size_t k = 0; k < in.n; k++)
		json_array_foreach(models, i, o)
			if (in.items[k].model &&
			    strcmp(json_string_value(json_object_get(o, "model")),
				   in.items[k].model->fqn) == 0 &&
			    strcmp(json_string_value(json_object_get(o, "state")), "failing") == 0)
				return true;
	return false;
}

int live_status_doc(struct arena *parent, struct project *p, struct wh *w, json_t **out,
		    struct sl_err *err)
{
	json_t *root = json_object(), *models = json_array(), *srcs = json_array();
	struct arena *a = arena_new(parent);
	struct live_ledger *ledger = NULL;
	struct wh_result *rows = NULL, *claims = NULL;
	struct live_claims *groups = NULL;
	bool present = false;
	int64_t now = units_now_ms();
	int rc = 0;

	/* the state tables, once there, stay: asked once per process */
	if (w && wh_memo_has(w, "table:" STATE_LIVE_TABLE))
		present = true;
	else if (w)
		rc = state_live_present(w, a, &present, err);
	if (!rc && present) {
		wh_memo_add(w, "table:" STATE_LIVE_TABLE);
		ledger = live_ledger_new(a, p);
		rc = live_ledger_load(ledger, w, err);
	}
	if (!rc && ledger)
		rc = state_live_rows(w, &rows, err);
	if (!rc && ledger)
		rc = state_claims_current(w, a, &claims, err);
	if (!rc && claims && wh_result_nrows(claims))
		groups = live_claims_new(a, p, NULL);
	for (size_t i = 0; !rc && i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		const char *state = "new";
		json_t *o;
		int64_t lag;

		if (!inputs_refreshes(m))
			continue;
		o = new_model(m);
		json_array_append_new(models, o);
		if (!ledger)
			continue;
		model_row(rows, m, o, &state);
		if (strcmp(state, "new") != 0 && live_ledger_covers(ledger, m, NULL) > 0)
			json_object_set_new(o, "covered",
					    json_integer(live_ledger_covers(ledger, m, NULL)));
		lag = live_ledger_lag_ms(ledger, m, now);
		if (strcmp(state, "live") == 0 && (live_ledger_behind(ledger, m) || lag > 0))
			state = waits(m, models, a) ? "waiting" : "behind";
		json_object_set_new(o, "state", json_string(state));
		json_object_set_new(o, "lag_ms", json_integer(lag));
		if (groups)
			json_object_set_new(
				o, "runner",
				str_or_null(runner_of(claims, live_claims_group(groups, m))));
	}
	if (!rc && ledger)
		rc = sources(p, w, srcs, err);
	for (size_t i = 0, k = 0; !rc && i < p->nmodels; i++)
		if (inputs_refreshes(p->models[i]))
			project_facts(a, p->models[i], json_array_get(models, k++));
	wh_result_free(rows);
	wh_result_free(claims);
	live_claims_free(groups);
	live_ledger_free(ledger);
	arena_free(a);
	live_status_blame(models);
	json_object_set_new(root, "models", models);
	json_object_set_new(root, "sources", srcs);
	if (rc) {
		json_decref(root);
		return rc;
	}
	*out = root;
	return 0;
}

static const char *text(const json_t *o, const char *key, const char *none)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : none;
}

/* A column of the table of a server's threads (pollers, postgres_cdc
 * slots): its heading, the document's key and width (negative: aligned
 * left), and how the value reads: text, an integer, a duration in ms;
 * none when it has none (null). */
enum cell_kind { CELL_TEXT, CELL_INT, CELL_DURATION };

struct column {
	const char *heading, *key;
	int width;
	enum cell_kind kind;
	const char *none;
};

static void cell_text(const json_t *o, const struct column *c, char *out, size_t outlen)
{
	const json_t *v = json_object_get(o, c->key);

	if (c->kind == CELL_TEXT)
		snprintf(out, outlen, "%s", text(o, c->key, c->none));
	else if (!json_is_integer(v))
		snprintf(out, outlen, "%s", c->none);
	else if (c->kind == CELL_INT)
		snprintf(out, outlen, "%lld", (long long)json_integer_value(v));
	else
		units_format_duration(json_integer_value(v), out, (int)outlen);
}

/* One row per thread of rows, the columns then, at the end, the last
 * error of one that is failing (or why one cannot start); nothing when
 * there is none. */
static void threads_print(const json_t *rows, const struct column *cols, size_t ncols, FILE *out)
{
	size_t i;
	json_t *o;

	if (!json_array_size(rows))
		return;
	fprintf(out, "\n");
	for (size_t k = 0; k < ncols; k++)
		fprintf(out, "%*s ", cols[k].width, cols[k].heading);
	fprintf(out, " LAST ERROR\n");
	json_array_foreach(rows, i, o) {
		const char *error;
		char cell[64];

		for (size_t k = 0; k < ncols; k++) {
			cell_text(o, &cols[k], cell, sizeof(cell));
			fprintf(out, "%*s ", cols[k].width, cell);
		}
		/* its first line: a hint below it would break the table */
		error = json_integer_value(json_object_get(o, "failures"))
				? text(o, "last_error", "")
				: text(o, "error", "");
		fprintf(out, " %.*s\n", (int)strcspn(error, "\n"), error);
	}
}

/* The sources a server could not start (an environment variable not
 * set), when the document has them. */
static const struct column unavailable_columns[] = {
	{ "UNAVAILABLE", "source", -24, CELL_TEXT, "" },
	{ "STATE", "state", -11, CELL_TEXT, "" },
};

/* The server's pollers, when the document has them. */
static const struct column poller_columns[] = {
	{ "POLLER", "source", -24, CELL_TEXT, "" },
	{ "STATE", "state", -8, CELL_TEXT, "" },
	{ "POLLS", "polls", 7, CELL_INT, "0" },
	{ "ROWS", "rows", 9, CELL_INT, "0" },
	{ "LAST OK", "last_ok", -19, CELL_TEXT, "-" },
	{ "FAILURES", "failures", 8, CELL_INT, "0" },
	{ "NEXT IN", "next_attempt_in_ms", 12, CELL_DURATION, "0ms" },
};

/* The server's postgres_cdc slots, when the document has them; a
 * safe_wal_size of null: no limit on the WAL the slot keeps, or unknown. */
static const struct column slot_columns[] = {
	{ "SLOT", "slot", -24, CELL_TEXT, "" },
	{ "STATE", "state", -10, CELL_TEXT, "" },
	{ "LANDED", "landed_lsn", -14, CELL_TEXT, "" },
	{ "SERVER", "server_lsn", -14, CELL_TEXT, "" },
	{ "LAG BYTES", "lag_bytes", 12, CELL_INT, "0" },
	{ "WAL", "wal_status", -10, CELL_TEXT, "-" },
	{ "SAFE WAL", "safe_wal_size", 12, CELL_INT, "-" },
	{ "TXNS", "transactions", 8, CELL_INT, "0" },
	{ "FAILURES", "failures", 8, CELL_INT, "0" },
};

/* The sources: a cursor column when one has a cursor, a late one when
 * one is adopted. */
static void sources_print(const json_t *srcs, FILE *out)
{
	bool cursors = false, late = false;
	size_t i;
	json_t *o;

	json_array_foreach(srcs, i, o) {
		cursors = cursors || json_object_get(o, "cursor");
		late = late || json_object_get(o, "late_rows");
	}
	fprintf(out, "\n%-32s %9s %9s  %s%s%s\n", "SOURCE", "WATERMARK", "ROWS",
		cursors || late ? "LAST ADVANCE         " : "LAST ADVANCE",
		cursors ? (late ? "CURSOR               " : "CURSOR") : "", late ? "LATE" : "");
	json_array_foreach(srcs, i, o) {
		const json_t *wm = json_object_get(o, "watermark");
		char mark[24] = "-";

		if (wm)
			snprintf(mark, sizeof(mark), "%lld", (long long)json_integer_value(wm));
		fprintf(out, "%-32s %9s %9lld  ", text(o, "source", ""), mark,
			(long long)json_integer_value(json_object_get(o, "rows")));
		if (!cursors && !late) {
			fprintf(out, "%s\n", text(o, "last_advance", ""));
			continue;
		}
		fprintf(out, "%-19s  ", text(o, "last_advance", ""));
		if (cursors && late)
			fprintf(out, "%-19s  ", text(o, "cursor", "-"));
		else if (cursors)
			fprintf(out, "%s", text(o, "cursor", "-"));
		if (late && json_object_get(o, "late_rows"))
			fprintf(out, "%lld",
				(long long)json_integer_value(json_object_get(o, "late_rows")));
		else if (late)
			fprintf(out, "-");
		fprintf(out, "\n");
	}
}

void live_status_print(const json_t *doc, FILE *out)
{
	const json_t *models = json_object_get(doc, "models"), *srcs = json_object_get(doc, "sources");
	size_t i;
	json_t *o;

	bool runners = false;

	json_array_foreach(models, i, o)
		runners = runners || json_object_get(o, "runner");
	fprintf(out, "%-32s %-8s %9s %9s %-19s %9s  ", "MODEL", "STATE", "LAG", "EVENTS/S",
		"LAST REFRESH", "REFRESHES");
	if (runners)
		fprintf(out, "%-24s ", "RUNNER");
	fprintf(out, "%s\n", "LAST ERROR");
	json_array_foreach(models, i, o) {
		int64_t retry = json_integer_value(json_object_get(o, "retry_in_ms"));
		char lag[32], wait[48] = "";

		units_format_duration(json_integer_value(json_object_get(o, "lag_ms")), lag,
				      sizeof(lag));
		if (retry && strcmp(text(o, "state", ""), "failing") == 0) {
			char d[32];

			units_format_duration(retry, d, sizeof(d));
			snprintf(wait, sizeof(wait), " (retry in %s)", d);
		}
		fprintf(out, "%-32s %-8s %9s %9.1f %-19s %9lld  ", text(o, "model", ""),
			text(o, "state", ""), lag,
			json_real_value(json_object_get(o, "events_per_s")),
			text(o, "last_refresh", "-"),
			(long long)json_integer_value(json_object_get(o, "refreshes")));
		if (runners)
			fprintf(out, "%-24s ", text(o, "runner", "-"));
		fprintf(out, "%s%s\n", text(o, "last_error", ""), wait);
	}
	if (json_array_size(srcs))
		sources_print(srcs, out);
	threads_print(json_object_get(doc, "pollers"), poller_columns,
		      sizeof(poller_columns) / sizeof(*poller_columns), out);
	threads_print(json_object_get(doc, "cdc"), slot_columns,
		      sizeof(slot_columns) / sizeof(*slot_columns), out);
	threads_print(json_object_get(doc, "unavailable"), unavailable_columns,
		      sizeof(unavailable_columns) / sizeof(*unavailable_columns), out);
}
