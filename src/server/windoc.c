/*
 * This file implements GET /api/windows and GET /api/windows/NAME
 * (windoc.h). The HTTP thread checks the request against the project and
 * queues it; the windows thread reads the rows (or a source's coverage)
 * on its own connection, cuts them into runs and writes the answer as
 * text (100,000 runs as jansson values would cost more than reading
 * them). It only ever reads the warehouse.
 */
#include "server/windoc.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "exec/windows.h"
#include "ingest/jsontext.h"
#include "project/dag.h"
#include "project/model.h"
#include "project/project.h"
#include "server/http.h"
#include "server/winruns.h"
#include "warehouse/wh.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A source's coverage is listed over the week before until, unless since
 * says otherwise: it has no start of its own. */
#define SOURCE_SPAN_SECS (7 * 86400)

struct win_doc {
	struct wh *w;    /* the first connection: the thread's is opened from it */
	struct wh *conn; /* the thread's */
	const struct project *p;
	/* SLUICE_NOW as the server started with it, read once: the runner's
	 * alerts set variables while this thread runs */
	char *fixed_now;
	struct worker_queue *queue;
	atomic_int waiting;
	atomic_bool stopping; /* what is still queued is not read */
};

/* A call waiting for the thread: what it asks for, checked. */
struct win_call {
	struct win_doc *d;
	struct http_call *c;
	const struct model *m;     /* a model's windows, or */
	const struct source_cfg *src; /* a source's coverage */
	const char *relation;      /* the source's table */
	int64_t since, until;      /* INT64_MIN, INT64_MAX: not asked */
	size_t max_runs;
	char env[64];
};

int win_doc_start(struct wh *w, const struct project *p, struct win_doc **out,
		  struct sl_err *err)
{
	struct win_doc *d = xcalloc(1, sizeof(*d));
	int rc = worker_queue_start(&d->queue, "windows reader", err);

	if (rc) {
		free(d);
		return rc;
	}
	d->w = w;
	d->p = p;
	d->fixed_now = getenv("SLUICE_NOW") ? xstrdup(getenv("SLUICE_NOW")) : NULL;
	*out = d;
	return 0;
}

void win_doc_stop(struct win_doc *d)
{
	if (!d)
		return;
	atomic_store(&d->stopping, true);
	worker_queue_stop(d->queue);
	if (d->conn)
		wh_close(d->conn);
	free(d->fixed_now);
	free(d);
}

static void add_int(struct buf *b, int64_t v)
{
	char t[JSONTEXT_INT_MAX];

	buf_add(b, t, jsontext_integer(v, t));
}

static void add_string(struct buf *b, const char *s)
{
	if (!s) {
		buf_adds(b, "null");
		return;
	}
	buf_addch(b, '"');
	jsontext_escape(b, s, strlen(s));
	buf_addch(b, '"');
}

/* "key":v, or "key":null when v is the unset value none. */
static void add_field(struct buf *b, const char *key, int64_t v, int64_t none)
{
	buf_addf(b, ",\"%s\":", key);
	if (v == none)
		buf_adds(b, "null");
	else
		add_int(b, v);
}

void win_doc_answer_list(struct win_doc *d, struct http_call *c)
{
	json_t *models = json_array(), *sources = json_array();
	const struct project *p = d->p;

	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		json_t *o;

		if (!m->temporal)
			continue;
		o = json_pack("{s:s, s:s, s:b, s:I}", "name", m->fqn, "grain",
			      win_grain_name(m->grain), "flexible", m->flex, "start",
			      (json_int_t)m->start);
		json_object_set_new(o, "end", m->end == INT64_MAX ? json_null()
								 : json_integer(m->end));
		json_array_append_new(models, o);
	}
	for (size_t i = 0; i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];

		if (s->event_time)
			json_array_append_new(sources,
					      json_pack("{s:s, s:I}", "name", s->name, "lateness_ms",
							(json_int_t)s->lateness_ms));
	}
	http_reply_json(c, 200, json_pack("{s:o, s:o}", "models", models, "sources", sources));
}

/* The time the windows are listed at: SLUICE_NOW when the server was
 * started with it (as every command reads it), else now. */
static int clock_now(const char *fixed, int64_t *now, struct sl_err *err)
{
	if (!fixed || !*fixed) {
		*now = units_now_ms() / 1000;
		return 0;
	}
	if (win_time_parse(fixed, now) == 0)
		return 0;
	return sl_err_set(err, SL_E_CONFIG,
			  "invalid SLUICE_NOW '%s'\n"
			  "  hint: a UTC time such as '2026-01-01 06:00', or unset it",
			  fixed);
}

/* The head of the answer, up to "runs". */
static void add_head(struct buf *b, const struct win_call *wc, const char *kind, int64_t now,
		     const struct win_span *span)
{
	const struct model *m = wc->m;

	buf_adds(b, "{\"name\":");
	add_string(b, m ? m->fqn : wc->src->name);
	buf_adds(b, ",\"kind\":");
	add_string(b, kind);
	buf_adds(b, ",\"grain\":");
	add_string(b, m && m->temporal && !m->flex ? win_grain_name(m->grain) : NULL);
	add_field(b, "start", m && m->temporal ? m->start : INT64_MIN, INT64_MIN);
	add_field(b, "end", m && m->temporal ? m->end : INT64_MAX, INT64_MAX);
	add_field(b, "now", now, INT64_MIN);
	add_field(b, "since", span ? span->lo : INT64_MIN, INT64_MIN);
	add_field(b, "until", span ? span->hi : INT64_MIN, INT64_MIN);
}

/* The runs and the end of the answer. */
static void add_runs(struct buf *b, const struct win_runs *runs)
{
	add_field(b, "windows", runs->windows, INT64_MIN);
	buf_adds(b, runs->truncated ? ",\"truncated\":true" : ",\"truncated\":false");
	add_field(b, "next", runs->truncated ? runs->next : INT64_MIN, INT64_MIN);
	buf_adds(b, ",\"runs\":[");
	for (size_t i = 0; i < runs->n; i++) {
		const struct win_run *r = &runs->r[i];

		buf_adds(b, i ? ",[" : "[");
		add_int(b, r->since);
		buf_addch(b, ',');
		add_int(b, r->until);
		buf_adds(b, ",\"");
		buf_adds(b, state_win_status_name(r->status));
		buf_adds(b, "\",");
		add_int(b, r->count);
		buf_addch(b, ',');
		add_string(b, r->why);
		buf_addch(b, ']');
	}
	buf_adds(b, "]}");
}

/* A model that is not temporal: its one existence row, when it has one. */
static void existence_doc(struct buf *b, const struct win_call *wc, int64_t now,
			  const struct state_window *rows, size_t n)
{
	const struct state_window *row = n && rows[n - 1].timeless ? &rows[n - 1] : NULL;

	add_head(b, wc, "model", now, NULL);
	buf_adds(b, row ? ",\"windows\":1" : ",\"windows\":0");
	buf_adds(b, ",\"truncated\":false,\"next\":null,\"runs\":[");
	if (row) {
		buf_adds(b, "[null,null,\"");
		buf_adds(b, state_win_status_name(row->status));
		buf_adds(b, "\",1,");
		add_string(b, win_run_why(row));
		buf_addch(b, ']');
	}
	buf_adds(b, "]}");
}

/* A temporal model's windows, or another model's existence row. */
static int model_doc(struct win_call *wc, int64_t now, struct buf *b, struct sl_err *err)
{
	const struct model *m = wc->m;
	struct win_runs runs = { .max = wc->max_runs };
	struct win_grid grid = run_windows_grid(m);
	struct win_span span;
	struct state_window *rows;
	size_t n;
	int rc = state_windows_load(wc->d->conn, http_call_arena(wc->c), wc->env, &m->fqn, 1, &rows,
				    &n, err);

	if (rc)
		return rc;
	if (!m->temporal) {
		existence_doc(b, wc, now, rows, n);
		return 0;
	}
	/* the existence row a model had before it was temporal sorts last */
	while (n && rows[n - 1].timeless)
		n--;
	span = win_runs_span(m->start, win_grid_closed(&grid, now), rows, n, wc->since, wc->until);
	if (m->flex)
		win_runs_cover(&runs, &span, rows, n);
	else
		win_runs_grid(&runs, m->grain, &span, rows, n);
	add_head(b, wc, m->flex ? "flexible" : "grid", now, &span);
	add_runs(b, &runs);
	win_runs_free(&runs);
	return 0;
}

/* A source's coverage: before its newest event less its lateness. */
static int source_doc(struct win_call *wc, int64_t now, struct buf *b, struct sl_err *err)
{
	struct source_cover cover;
	struct win_runs runs = { .max = wc->max_runs };
	struct win_span span;
	struct state_window row = { .status = WINDOW_APPLIED };
	int rc = run_windows_source_cover(wc->d->conn, http_call_arena(wc->c), wc->src,
					  wc->relation, &cover, err);

	if (rc)
		return rc;
	span.hi = wc->until != INT64_MAX ? wc->until : now;
	span.lo = wc->since != INT64_MIN ? wc->since : span.hi - SOURCE_SPAN_SECS;
	span.closed = now;
	row.since = span.lo;
	row.until = cover.until;
	win_runs_cover(&runs, &span, &row, cover.known ? 1 : 0);
	add_head(b, wc, "source", now, &span);
	add_field(b, "covered_until", cover.known ? cover.until : INT64_MIN, INT64_MIN);
	add_runs(b, &runs);
	win_runs_free(&runs);
	return 0;
}

/* Reads and answers. */
static void win_answer(struct win_doc *d, struct win_call *wc)
{
	struct sl_err err = SL_ERR_INIT;
	struct buf body = BUF_INIT;
	int64_t now = 0;
	int rc = clock_now(d->fixed_now, &now, &err);

	if (!rc && !d->conn)
		rc = wh_connect(d->w, &d->conn, &err);
	if (!rc)
		rc = wc->m ? model_doc(wc, now, &body, &err) : source_doc(wc, now, &body, &err);
	if (rc && d->conn && rc != SL_E_CONFIG) {
		/* a failure may have broken the connection: the next call
		 * opens another */
		wh_close(d->conn);
		d->conn = NULL;
	}
	if (rc)
		http_reply_sl_err(wc->c, &err);
	else
		http_reply(wc->c, 200, "application/json", body.buf, body.len);
	buf_release(&body);
}

/* On the windows thread. */
static void win_run(void *arg)
{
	struct win_call *wc = arg;
	struct win_doc *d = wc->d;

	if (atomic_load(&d->stopping))
		http_reply_error(wc->c, 503, "stopping", "the server is stopping");
	else
		win_answer(d, wc);
	atomic_fetch_sub(&d->waiting, 1);
	free(wc);
}

/* A UTC time from the query parameter name into *t, left as it is when
 * absent; false (the call answered 400) when it does not parse. */
static bool time_param(struct http_call *c, const char *name, int64_t *t)
{
	const char *v = http_call_query(c, name);
	char detail[160];

	if (!v || win_time_parse(v, t) == 0)
		return true;
	snprintf(detail, sizeof(detail),
		 "%s must be a UTC date or time such as 2026-01-01 or '2026-01-01 06:00'", name);
	http_reply_error(c, 400, "bad parameter", detail);
	return false;
}

static bool params(struct http_call *c, struct win_call *wc)
{
	const char *max = http_call_query(c, "max_runs"), *env = http_call_query(c, "env");
	char *end, detail[160];
	long long n = WIN_RUNS_DEFAULT;

	wc->since = INT64_MIN;
	wc->until = INT64_MAX;
	if (!time_param(c, "since", &wc->since) || !time_param(c, "until", &wc->until))
		return false;
	if (wc->since != INT64_MIN && wc->until != INT64_MAX && wc->since >= wc->until) {
		http_reply_error(c, 400, "bad parameter", "since must be before until");
		return false;
	}
	if (max && ((n = strtoll(max, &end, 10)) < 1 || n > WIN_RUNS_MAX || end == max || *end)) {
		snprintf(detail, sizeof(detail), "max_runs must be a whole number from 1 to %d",
			 WIN_RUNS_MAX);
		http_reply_error(c, 400, "bad parameter", detail);
		return false;
	}
	wc->max_runs = (size_t)n;
	if (env && (strlen(env) >= sizeof(wc->env) || !project_env_name_valid(env))) {
		http_reply_error(c, 400, "bad parameter",
				 "env must be an environment's name: letters, digits and "
				 "underscores");
		return false;
	}
	snprintf(wc->env, sizeof(wc->env), "%s", env ? env : "");
	return true;
}

/* The model or source name names, with its windows; false (the call
 * answered) when there is none or it has none. */
static bool target(struct win_doc *d, struct http_call *c, const char *name, struct win_call *wc)
{
	struct sl_err err = SL_ERR_INIT;
	char detail[SL_ERR_MSG_MAX + 128];

	if (strlen(name) > WIN_DOC_NAME_MAX) {
		http_reply_error(c, 400, "bad name", "a model's or source's name is at most 255 bytes");
		return false;
	}
	wc->m = dag_model_named(d->p, name, NULL);
	if (!wc->m)
		wc->src = dag_source_named(d->p, name, &wc->relation);
	if (!wc->m && !wc->src) {
		dag_model_named(d->p, name, &err);
		http_reply_error(c, err.code == SL_E_USAGE ? 400 : 404,
				 err.code == SL_E_USAGE ? "ambiguous model" : "not found", err.msg);
		return false;
	}
	if (wc->m && wc->m->mat == MAT_EPHEMERAL) {
		snprintf(detail, sizeof(detail), "'%s' is ephemeral: it has no windows", wc->m->fqn);
		http_reply_error(c, 400, "no windows", detail);
		return false;
	}
	if (wc->src && !wc->src->event_time) {
		snprintf(detail, sizeof(detail),
			 "source '%s' has no event_time: it publishes no coverage", wc->src->name);
		http_reply_error(c, 400, "no windows", detail);
		return false;
	}
	return true;
}

void win_doc_answer(struct win_doc *d, struct http_call *c, const char *name)
{
	struct win_call *wc = xcalloc(1, sizeof(*wc));

	wc->d = d;
	wc->c = c;
	if (!target(d, c, name, wc) || !params(c, wc)) {
		free(wc);
		return;
	}
	if (atomic_fetch_add(&d->waiting, 1) >= WIN_DOC_MAX_WAITING) {
		atomic_fetch_sub(&d->waiting, 1);
		http_call_add_header(c, "Retry-After", "1");
		http_reply_error(c, 503, "busy", "too many window reads waiting; retry");
		free(wc);
		return;
	}
	worker_queue_push(d->queue, win_run, wc);
}
