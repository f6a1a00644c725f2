/*
 * This file implements the documents of the model page and the Runs and
 * alerts page (pagedoc.h). The HTTP thread checks the request and does
 * what needs only the project in memory; the history thread does every
 * read of the warehouse and the folder. It never writes.
 */
#include "server/pagedoc.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "exec/modeldoc.h"
#include "live/alertlog.h"
#include "project/dag.h"
#include "project/model.h"
#include "server/history.h"
#include "server/http.h"
#include "state/runlog.h"
#include "state/state.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A model's document waiting for its history. */
struct model_job {
	struct history_job base;
	json_t *doc;
	char *root, *name;
};

static int model_read(struct history_job *job, struct wh *w, struct sl_err *err)
{
	struct model_job *mj = (struct model_job *)job;
	int rc = model_doc_history(w, http_call_arena(job->c), mj->root, mj->name, mj->doc, err);

	/* a query the state refused (a warehouse that never ran a build,
	 * say) leaves the project's part to show; anything else is the
	 * warehouse's trouble */
	if (rc && rc != SL_E_SQL)
		return rc;
	if (rc)
		json_object_set_new(mj->doc, "history_error", json_string(err->msg));
	http_reply_json(job->c, 200, mj->doc);
	mj->doc = NULL;
	return 0;
}

static void model_free(struct history_job *job)
{
	struct model_job *mj = (struct model_job *)job;

	json_decref(mj->doc);
	free(mj->root);
	free(mj->name);
	free(mj);
}

/* The 404 or 400 for a name that is no one model. */
static void no_model(struct http_call *c, const struct project *p, const char *name,
		     const struct sl_err *err)
{
	const char *near;
	char detail[600];

	if (err->code == SL_E_USAGE) {
		http_reply_error(c, 400, "ambiguous model", err->msg);
		return;
	}
	near = suggest_nearest(name, project_model_names(p));
	snprintf(detail, sizeof(detail), "no model '%s'%s%s%s", name, near ? " (did you mean '" : "",
		 near ? near : "", near ? "'?)" : "");
	http_reply_error(c, 404, "unknown model", detail);
}

void page_doc_model(struct server_history *h, struct http_call *c, const struct project *p,
		    const char *name)
{
	struct sl_err err = SL_ERR_INIT;
	const struct model *m;
	struct model_job *mj;

	if (strlen(name) > PAGE_NAME_MAX) {
		http_reply_error(c, 400, "bad name", "a model name is at most 255 bytes");
		return;
	}
	m = dag_model_named(p, name, &err);
	if (!m) {
		no_model(c, p, name, &err);
		return;
	}
	mj = xcalloc(1, sizeof(*mj));
	mj->base = (struct history_job){ c, model_read, model_free };
	mj->doc = model_doc_project(http_call_arena(c), p, m);
	mj->root = xstrdup(p->root ? p->root : "");
	mj->name = xstrdup(m->fqn);
	history_submit(h, &mj->base);
}

/* What GET /api/runs asks for. */
struct runs_job {
	struct history_job base;
	char *root;
	long long runs, before, live, alerts;
};

static json_t *timestamp(int64_t ms)
{
	char at[32];

	if (!ms)
		return json_null();
	units_format_ts(ms, at, sizeof(at));
	return json_string(at);
}

/* A row as a run's model or a live row shows it. */
static json_t *row_json(const struct state_run_row *r)
{
	return json_pack("{s:s?, s:s?, s:I, s:o, s:o, s:I, s:s?}", "model", r->model, "status",
			 r->status, "rows", (json_int_t)r->rows, "started_at",
			 timestamp(r->started_ms), "finished_at", timestamp(r->finished_ms),
			 "duration_ms", (json_int_t)(r->finished_ms - r->started_ms), "message",
			 r->message);
}

/* The worst of a run's statuses: failed, then warn, else ok. */
static const char *worse(const char *have, const char *status)
{
	if (status && strcmp(status, "failed") == 0)
		return "failed";
	if (strcmp(have, "failed") && status && strcmp(status, "warn") == 0)
		return "warn";
	return have;
}

/* rows (by run id, newest first) grouped into runs. */
static json_t *runs_json(const struct state_run_row *rows, size_t n)
{
	json_t *runs = json_array();

	for (size_t i = 0; i < n;) {
		const struct state_run_row *first = &rows[i];
		int64_t started = first->started_ms, finished = first->finished_ms, sum = 0;
		const char *status = "ok";
		json_t *models = json_array();
		size_t k = i;

		for (; k < n && rows[k].run_id == first->run_id; k++) {
			const struct state_run_row *r = &rows[k];

			json_array_append_new(models, row_json(r));
			started = r->started_ms < started ? r->started_ms : started;
			finished = r->finished_ms > finished ? r->finished_ms : finished;
			sum += r->rows;
			status = worse(status, r->status);
		}
		json_array_append_new(
			runs, json_pack("{s:I, s:s?, s:s, s:s, s:o, s:o, s:I, s:I, s:o}", "run_id",
					(json_int_t)first->run_id, "run_type", first->run_type, "env",
					first->env ? first->env : "", "status", status, "started_at",
					timestamp(started), "finished_at", timestamp(finished),
					"duration_ms", (json_int_t)(finished - started), "rows",
					(json_int_t)sum, "models", models));
		i = k;
	}
	return runs;
}

/* The alerts of the folder, newest first; a line that is no object (a
 * write cut short) is left out. */
static int alerts_json(const char *root, struct arena *a, size_t max, json_t **out,
		       struct sl_err *err)
{
	const char **lines;
	size_t n;
	int rc = alert_log_read(root, a, max, &lines, &n, err);

	*out = json_array();
	for (size_t i = 0; !rc && i < n; i++) {
		json_t *o = json_loads(lines[i], 0, NULL);

		if (json_is_object(o))
			json_array_append_new(*out, o);
		else
			json_decref(o);
	}
	return rc;
}

static int runs_read(struct history_job *job, struct wh *w, struct sl_err *err)
{
	struct runs_job *rj = (struct runs_job *)job;
	struct arena *a = http_call_arena(job->c);
	struct state_run_row *rows = NULL, *live = NULL;
	size_t nrows = 0, nlive = 0, nruns = 0;
	json_t *alerts = NULL, *doc, *runs;
	int rc = state_run_log_runs(w, a, (size_t)rj->runs, rj->before, &rows, &nrows, err);

	if (!rc && rj->live)
		rc = state_run_log_live(w, a, (size_t)rj->live, &live, &nlive, err);
	if (!rc)
		rc = alerts_json(rj->root, a, (size_t)rj->alerts, &alerts, err);
	if (rc) {
		json_decref(alerts);
		return rc;
	}
	runs = runs_json(rows, nrows);
	nruns = json_array_size(runs);
	doc = json_pack("{s:o, s:o, s:o, s:o}", "runs", runs, "before",
			nruns == (size_t)rj->runs ? json_integer(rows[nrows - 1].run_id) : json_null(),
			"live", json_array(), "alerts", alerts);
	for (size_t i = 0; i < nlive; i++)
		json_array_append_new(json_object_get(doc, "live"), row_json(&live[i]));
	http_reply_json(job->c, 200, doc);
	return 0;
}

static void runs_free(struct history_job *job)
{
	struct runs_job *rj = (struct runs_job *)job;

	free(rj->root);
	free(rj);
}

void page_doc_runs(struct server_history *h, struct http_call *c, const char *root)
{
	struct runs_job *rj = xcalloc(1, sizeof(*rj));

	if (!http_call_query_number(c, "runs", PAGE_RUNS_DEFAULT, 1, PAGE_RUNS_MAX, &rj->runs) ||
	    !http_call_query_number(c, "before", 0, 1, INT64_MAX, &rj->before) ||
	    !http_call_query_number(c, "live", PAGE_LIVE_DEFAULT, 0, PAGE_LIVE_MAX, &rj->live) ||
	    !http_call_query_number(c, "alerts", PAGE_ALERTS_DEFAULT, 0, PAGE_ALERTS_MAX,
				    &rj->alerts)) {
		free(rj);
		return;
	}
	rj->base = (struct history_job){ c, runs_read, runs_free };
	rj->root = xstrdup(root ? root : "");
	history_submit(h, &rj->base);
}
