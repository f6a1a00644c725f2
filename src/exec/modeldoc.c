/*
 * This file implements a model's document (modeldoc.h): the project's
 * part from the model in memory, the history part from the state schema
 * and the folder's check results, the lineage part from a lineage graph.
 * It only ever reads, and never begins a transaction.
 */
#include "exec/modeldoc.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "exec/checklog.h"
#include "exec/compile.h"
#include "exec/profile_json.h"
#include "project/inputs.h"
#include "project/lineage_graph.h"
#include "project/model.h"
#include "state/columns.h"
#include "state/profiles.h"
#include "state/runlog.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <jansson.h>
#include <string.h>
#include <strings.h>

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *strings(const char *const *items, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(items[i]));
	return a;
}

static json_t *config_json(const struct model *m)
{
	json_t *a = json_array();

	for (size_t i = 0; i < m->nsettings; i++) {
		const struct model_setting *st = &m->settings[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:b}", "key", st->key, "value",
						   st->value ? st->value : "", "line", st->line,
						   "pipeline", st->from_pipeline));
	}
	return a;
}

static json_t *columns_json(const struct model *m)
{
	json_t *a = json_array();

	for (size_t i = 0; i < m->ncolumn_docs; i++)
		json_array_append_new(a, json_pack("{s:s, s:n, s:s}", "name", m->column_docs[i].name,
						   "type", "description", m->column_docs[i].text));
	return a;
}

static json_t *checks_json(const struct model *m)
{
	json_t *a = json_array();

	for (size_t i = 0; i < m->nasserts; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:n, s:n}", "check",
						   m->asserts[i].text, "severity",
						   m->asserts[i].warn ? "warn" : "error", "line",
						   m->asserts[i].line, "failures", "sample"));
	return a;
}

/* Appends {"name", "kind"} to list unless a member of that name is there. */
static void add_node(json_t *list, const char *name, const char *kind)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
	{
		if (strcmp(json_string_value(json_object_get(v, "name")), name) == 0)
			return;
	}
	json_array_append_new(list, json_pack("{s:s, s:s}", "name", name, "kind", kind));
}

static const char *model_kind(const struct model *m)
{
	return m->mat == MAT_SEED ? "seed" : "model";
}

/* The source of p whose table schema.name is, or NULL. */
static const struct source_cfg *source_of(const struct project *p, const char *schema,
					  const char *name)
{
	char table[512], want[512];

	snprintf(want, sizeof(want), "%s.%s", schema, name);
	for (size_t i = 0; i < p->cfg.nsources; i++) {
		inputs_source_table(&p->cfg.sources[i], table, sizeof(table));
		if (strcasecmp(table, want) == 0)
			return &p->cfg.sources[i];
	}
	return NULL;
}

/* What m reads: the models and seeds it depends on, the sources whose
 * tables it names or whose coverage it waits on, and the tables outside
 * the project it names. */
static json_t *inputs_json(struct arena *a, const struct project *p, const struct model *m)
{
	json_t *list = json_array();

	for (size_t i = 0; i < m->ndeps; i++)
		add_node(list, m->deps[i]->fqn, model_kind(m->deps[i]));
	for (size_t i = 0; i < m->nrefs; i++) {
		const struct model_ref *r = &m->refs[i];
		const struct source_cfg *src;

		if (r->target || r->changes_of)
			continue;
		src = source_of(p, r->schema, r->name);
		if (src)
			add_node(list, src->name, "source");
		else
			add_node(list, arena_sprintf(a, "%s.%s", r->schema, r->name), "table");
	}
	for (size_t i = 0; i < m->nupstreams; i++)
		if (m->upstreams[i].source)
			add_node(list, m->upstreams[i].source->name, "source");
	return list;
}

static json_t *readers_json(const struct model *m)
{
	json_t *list = json_array();

	for (size_t i = 0; i < m->nchildren; i++)
		add_node(list, m->children[i]->fqn, model_kind(m->children[i]));
	return list;
}

static json_t *declared_json(const struct model *m)
{
	json_t *list = json_array();

	for (size_t i = 0; i < m->nupstreams; i++) {
		const char *where = lineage_graph_declared(&m->upstreams[i]);

		if (where)
			json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "name",
							      m->upstreams[i].name, "type",
							      m->upstreams[i].type, "where", where));
	}
	return list;
}

/* "compiled", or null and "compile_error": the SQL without the
 * warehouse's watermarks. */
static void add_compiled(struct arena *a, const struct model *m, json_t *doc)
{
	struct sl_err err = SL_ERR_INIT;
	struct buf sql = BUF_INIT;

	if (compile_model(a, m, "", NULL, &sql, &err)) {
		json_object_set_new(doc, "compiled", json_null());
		json_object_set_new(doc, "compile_error", json_string(err.msg));
	} else {
		json_object_set_new(doc, "compiled", json_string(sql.buf));
	}
	buf_release(&sql);
}

json_t *model_doc_project(struct arena *a, const struct project *p, const struct model *m)
{
	json_t *doc = json_object();

	json_object_set_new(doc, "name", json_string(m->fqn));
	json_object_set_new(doc, "schema", json_string(m->home_schema ? m->home_schema : m->schema));
	json_object_set_new(doc, "kind", json_string(model_kind(m)));
	json_object_set_new(doc, "materialized", json_string(model_mat_name(m->mat)));
	json_object_set_new(doc, "strategy", m->strategy == STRAT_NONE
						     ? json_null()
						     : json_string(model_strategy_name(m->strategy)));
	json_object_set_new(doc, "live", json_boolean(inputs_refreshes(m)));
	json_object_set_new(doc, "temporal", json_boolean(m->temporal));
	json_object_set_new(doc, "path", str_or_null(m->path));
	json_object_set_new(doc, "description", str_or_null(m->description));
	json_object_set_new(doc, "tags", strings(m->tags, m->ntags));
	json_object_set_new(doc, "unique_key", strings(m->unique_key, m->nunique_key));
	json_object_set_new(doc, "config", config_json(m));
	json_object_set_new(doc, "text", str_or_null(m->text));
	json_object_set_new(doc, "sql", m->mat == MAT_SEED ? json_null() : str_or_null(m->body));
	json_object_set_new(doc, "sql_line", json_integer(m->body_line));
	add_compiled(a, m, doc);
	json_object_set_new(doc, "columns", columns_json(m));
	json_object_set_new(doc, "checks", checks_json(m));
	json_object_set_new(doc, "inputs", inputs_json(a, p, m));
	json_object_set_new(doc, "readers", readers_json(m));
	json_object_set_new(doc, "declared_inputs", declared_json(m));
	json_object_set_new(doc, "lineage", json_null());
	return doc;
}

static json_t *timestamp(int64_t ms)
{
	char at[32];

	if (!ms)
		return json_null();
	units_format_ts(ms, at, sizeof(at));
	return json_string(at);
}

/* The described column named name (any case), or NULL. */
static json_t *described(json_t *columns, const char *name)
{
	size_t i;
	json_t *c;

	json_array_foreach(columns, i, c)
	{
		if (strcasecmp(json_string_value(json_object_get(c, "name")), name) == 0)
			return c;
	}
	return NULL;
}

void model_doc_columns(json_t *doc, const struct state_model_columns *mc)
{
	json_t *declared = json_object_get(doc, "columns"), *out, *c;
	size_t i;

	if (!mc || !mc->n)
		return;
	out = json_array();
	for (i = 0; i < mc->n; i++) {
		json_t *d = described(declared, mc->cols[i].name);
		json_t *text = json_object_get(d, "description");

		json_array_append_new(out, json_pack("{s:s, s:s?, s:O}", "name", mc->cols[i].name,
						     "type", mc->cols[i].type, "description",
						     text ? text : json_null()));
	}
	json_array_foreach(declared, i, c)
	{
		if (!described(out, json_string_value(json_object_get(c, "name"))))
			json_array_append_new(out, json_pack("{s:O, s:n, s:O, s:b}", "name",
							     json_object_get(c, "name"), "type",
							     "description",
							     json_object_get(c, "description"),
							     "in_table", 0));
	}
	json_object_set_new(doc, "columns", out);
}

static int add_columns(struct wh *w, struct arena *a, const char *model, json_t *doc,
		       struct sl_err *err)
{
	struct state_model_columns mc;
	int rc = state_columns_read_model(w, a, "", model, &mc, err);

	if (!rc)
		model_doc_columns(doc, &mc);
	return rc;
}

static int add_runs(struct wh *w, struct arena *a, const char *model, json_t *doc,
		    struct sl_err *err)
{
	struct state_run_row *rows;
	json_t *runs;
	size_t n;
	int rc = state_run_log_model(w, a, model, MODEL_DOC_RUNS, &rows, &n, err);

	if (rc)
		return rc;
	runs = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct state_run_row *r = &rows[i];

		json_array_append_new(
			runs, json_pack("{s:o, s:s, s:s?, s:s?, s:o, s:o, s:I, s:I, s:s?}", "run_id",
					r->run_id ? json_integer(r->run_id) : json_null(), "env",
					r->env ? r->env : "", "run_type", r->run_type, "status",
					r->status, "started_at", timestamp(r->started_ms),
					"finished_at", timestamp(r->finished_ms), "duration_ms",
					(json_int_t)(r->finished_ms - r->started_ms), "rows",
					(json_int_t)r->rows, "message", r->message));
	}
	json_object_set_new(doc, "runs", runs);
	return 0;
}

static int add_profiles(struct wh *w, struct arena *a, const char *model, json_t *doc,
			struct sl_err *err)
{
	struct state_profile_ask ask = { .model = model, .env = "", .limit = MODEL_DOC_PROFILES };
	struct state_profile *profiles;
	json_t *list;
	size_t n;
	int rc = state_profiles_read(w, a, &ask, &profiles, &n, err);

	if (rc)
		return rc;
	list = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, profile_json(&profiles[i]));
	json_object_set_new(doc, "profiles", list);
	return 0;
}

static int add_built(struct wh *w, struct arena *a, const char *model, json_t *doc,
		     struct sl_err *err)
{
	struct state_model row;
	bool found = false;
	int rc = state_model_load(w, a, "", model, &row, &found, err);

	if (!rc)
		json_object_set_new(doc, "built",
				    found ? json_pack("{s:s?, s:I}", "last_built_at",
						      row.last_built_at, "build_count",
						      (json_int_t)row.build_count)
					  : json_null());
	return rc;
}

void model_doc_checks(json_t *doc, const char *root, const char *model)
{
	json_t *last = checklog_read(root, "", model), *checks = json_object_get(doc, "checks"), *c;
	size_t i;

	json_object_set_new(doc, "checked", json_null());
	if (!last)
		return;
	json_object_set_new(doc, "checked",
			    json_pack("{s:O, s:O, s:O, s:O}", "checked_at",
				      json_object_get(last, "checked_at"), "run_id",
				      json_object_get(last, "run_id"), "window",
				      json_object_get(last, "window"), "in",
				      json_object_get(last, "in")));
	json_array_foreach(checks, i, c)
	{
		size_t k;
		json_t *r;

		json_array_foreach(json_object_get(last, "checks"), k, r)
		{
			if (json_equal(json_object_get(r, "check"), json_object_get(c, "check")) &&
			    json_equal(json_object_get(r, "severity"), json_object_get(c, "severity"))) {
				json_object_set(c, "failures", json_object_get(r, "failures"));
				json_object_set(c, "sample", json_object_get(r, "sample"));
				break;
			}
		}
	}
	json_decref(last);
}

int model_doc_history(struct wh *w, struct arena *a, const char *root, const char *model,
		      json_t *doc, struct sl_err *err)
{
	int rc = 0;

	model_doc_checks(doc, root, model);
	if (!w)
		return 0;
	rc = add_columns(w, a, model, doc, err);
	if (!rc)
		rc = add_built(w, a, model, doc, err);
	if (!rc)
		rc = add_runs(w, a, model, doc, err);
	if (!rc)
		rc = add_profiles(w, a, model, doc, err);
	return rc;
}

void model_doc_lineage(json_t *doc, const struct lineage_graph *g, const struct model *m)
{
	const struct lineage *l = g->of[m->order];
	json_t *cols;

	if (!l) {
		json_object_set_new(doc, "lineage", json_null());
		return;
	}
	cols = json_object();
	for (size_t i = 0; i < l->ncols; i++) {
		const struct lineage_column *c = &l->cols[i];
		json_t *inputs = json_array();

		for (size_t k = 0; k < c->ninputs; k++)
			json_array_append_new(inputs,
					      json_pack("{s:s, s:s, s:s}", "relation",
							c->inputs[k].relation, "column",
							c->inputs[k].column, "kind",
							lineage_kind_name(c->inputs[k].kind)));
		json_object_set_new(cols, c->name, inputs);
	}
	json_object_set_new(doc, "lineage", cols);
}
