/*
 * This file implements the server's routes: the path's segments as the
 * HTTP module made them into the answer, or into a call handed to the
 * thread that answers it (the writer, the control queue, the reader, the
 * status document). A route never waits on the HTTP thread.
 */
#include "server/server_int.h"

#include "core/err.h"
#include "core/suggest.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "ingest/poll.h"
#include "files/thread.h"
#include "kafka/thread.h"
#include "ingest/writer.h"
#include "live/advance.h"
#include "live/runner.h"
#include "live/thread.h"
#include "pgcdc/pgcdc_thread.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "project/model.h"
#include "server/commands.h"
#include "server/dagdoc.h"
#include "server/http.h"
#include "server/ingest.h"
#include "server/pagedoc.h"
#include "server/read.h"
#include "server/statusdoc.h"
#include "server/windoc.h"
#include "warehouse/wh.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The path is /api/SEG1/SEG2...: true when it has n segments in all and
 * the first ones after "api" are a (and b). */
static bool is(struct http_call *c, size_t n, const char *a, const char *b)
{
	return http_call_nsegments(c) == n && strcmp(http_call_segment(c, 0), "api") == 0 &&
	       strcmp(http_call_segment(c, 1), a) == 0 &&
	       (!b || strcmp(http_call_segment(c, 2), b) == 0);
}

static bool method(struct http_call *c, const char *want)
{
	if (strcmp(http_call_method(c), want) == 0)
		return true;
	http_call_add_header(c, "Allow", want);
	http_reply_error(c, 405, "method not allowed",
			 strcmp(want, "GET") == 0 ? "use GET" : "use POST");
	return false;
}

/* Every source that cannot take data for its settings, with why: the
 * webhook sources and those left out at the start. */
json_t *server_unavailable_sources(struct server *s)
{
	const struct project_cfg *cfg = &s->p->cfg;
	const char **names = xcalloc(cfg->nsources + 1, sizeof(char *));
	const char **whys = xcalloc(cfg->nsources + 1, sizeof(char *));
	json_t *a = json_array();
	size_t n;

	n = server_ingest_unavailable(s->ingest, names, whys, cfg->nsources);
	for (size_t i = 0; i < s->nunavailable; i++) {
		names[n] = s->unavailable[i].source;
		whys[n++] = s->unavailable[i].why;
	}
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "source", names[i], "state",
						   "unavailable", "error", whys[i]));
	free(names);
	free(whys);
	return a;
}

/* A part of the server as the health check says it: ok, unreachable
 * (its warehouse connection is lost: the whole answer is 503) or failing
 * (it is up, but cannot do its work: the answer is 200, degraded). */
enum part { PART_OK, PART_FAILING, PART_UNREACHABLE };

static void add_part(json_t *parts, const char *name, enum part state, const char *error,
		     enum part *worst)
{
	static const char *const names[] = { "ok", "failing", "unreachable" };
	json_t *o = json_pack("{s:s}", "status", names[state]);

	if (error)
		json_object_set_new(o, "error", json_string(error));
	json_object_set_new(parts, name, o);
	if (state > *worst)
		*worst = state;
}

/* A source's thread (a slot, a poller, a Kafka consumer) as a part: unreachable while its
 * warehouse connection is down, failing (with st's last error) while
 * failing. */
static void add_source_part(json_t *parts, const char *source, bool down, bool failing,
			    const json_t *st, enum part *worst)
{
	char name[256];

	snprintf(name, sizeof(name), "source %s", source);
	add_part(parts, name, down ? PART_UNREACHABLE : failing ? PART_FAILING : PART_OK,
		 failing ? json_string_value(json_object_get(st, "last_error")) : NULL, worst);
}

/* The writer, the runner and each source whose work is its own thread's
 * (a postgres_cdc slot, a poller, a Kafka consumer, a files lander), or
 * that cannot start. */
static enum part health_parts(struct server *s, json_t *parts)
{
	enum part worst = PART_OK;
	json_t *down = server_unavailable_sources(s);
	char why[256], name[300];
	size_t i;
	json_t *u;

	if (s->writer && ingest_writer_down(s->writer, why, sizeof(why)))
		add_part(parts, "writer", PART_UNREACHABLE, why, &worst);
	else
		add_part(parts, "writer", PART_OK, NULL, &worst);
	pthread_rwlock_rdlock(&s->lock);
	if (s->live)
		add_part(parts, "runner", live_thread_down(s->live) ? PART_UNREACHABLE : PART_OK,
			 NULL, &worst);
	pthread_rwlock_unlock(&s->lock);
	for (i = 0; i < s->nconsumers; i++) {
		json_t *st = pgcdc_thread_status(s->consumers[i]);
		bool failing = strcmp(json_string_value(json_object_get(st, "state")), "streaming") &&
			       json_integer_value(json_object_get(st, "failures"));

		add_source_part(parts, pgcdc_thread_sources(s->consumers[i]),
				pgcdc_thread_down(s->consumers[i]), failing, st, &worst);
		json_decref(st);
	}
	for (i = 0; i < s->npollers; i++) {
		json_t *st = poller_status(s->pollers[i]);
		bool failing = json_integer_value(json_object_get(st, "failures")) > 0;

		add_source_part(parts, json_string_value(json_object_get(st, "source")),
				poller_down(s->pollers[i]), failing, st, &worst);
		json_decref(st);
	}
	for (i = 0; i < s->nkafkas; i++) {
		json_t *st = kafka_thread_status(s->kafkas[i]);
		bool failing = json_integer_value(json_object_get(st, "failures")) > 0;

		add_source_part(parts, json_string_value(json_object_get(st, "source")),
				kafka_thread_down(s->kafkas[i]), failing, st, &worst);
		json_decref(st);
	}
	for (i = 0; i < s->nlanders; i++) {
		json_t *st = files_thread_status(s->landers[i]);
		bool failing = json_integer_value(json_object_get(st, "failures")) > 0;

		add_source_part(parts, json_string_value(json_object_get(st, "source")),
				files_thread_down(s->landers[i]), failing, st, &worst);
		json_decref(st);
	}
	json_array_foreach(down, i, u)
	{
		snprintf(name, sizeof(name), "source %s",
			 json_string_value(json_object_get(u, "source")));
		add_part(parts, name, PART_FAILING,
			 json_string_value(json_object_get(u, "error")), &worst);
	}
	json_decref(down);
	return worst;
}

/* 200 "ok" when every part is, 200 "degraded" when some source cannot do
 * its work while the server can, 503 "unavailable" while a part's
 * warehouse connection is lost: what a supervisor restarts on. */
static void health(struct server *s, struct http_call *c)
{
	json_t *o = json_object(), *parts = json_object();
	enum part worst = health_parts(s, parts);

	json_object_set_new(o, "live", json_boolean(atomic_load(&s->live_on)));
	json_object_set_new(o, "status", json_string(worst == PART_UNREACHABLE ? "unavailable"
						     : worst == PART_FAILING   ? "degraded"
									       : "ok"));
	json_object_set_new(o, "project", json_string(s->p->cfg.name ? s->p->cfg.name : ""));
	json_object_set_new(o, "components", parts);
	if (worst == PART_UNREACHABLE)
		http_call_add_header(c, "Retry-After", "1");
	http_reply_json(c, worst == PART_UNREACHABLE ? 503 : 200, o);
}

static void status(struct server *s, struct http_call *c)
{
	status_doc_answer(s->status, c);
}

static void list_models(struct server *s, struct http_call *c)
{
	dag_doc_answer_models(c, s->p);
}

static void dag(struct server *s, struct http_call *c)
{
	dag_doc_answer(s->dag, c, s->p);
}

/* /api/windows lists what has windows, /api/windows/NAME reads them. */
static void windows(struct server *s, struct http_call *c)
{
	if (http_call_nsegments(c) == 2)
		win_doc_answer_list(s->windows, c);
	else
		win_doc_answer(s->windows, c, http_call_segment(c, 2));
}

/* A live model by name, or the 404 that says which exist. */
static const struct model *live_model(struct server *s, struct http_call *c, const char *name)
{
	struct sl_err err = SL_ERR_INIT;
	const struct model *m = dag_model_named(s->p, name, &err);
	const char **names;
	size_t n = 0;
	const char *near;
	char detail[512];

	if (m && inputs_refreshes(m))
		return m;
	if (!m && err.code == SL_E_USAGE) {
		/* a bare name several schemas have: the message lists them */
		http_reply_error(c, 400, "ambiguous model", err.msg);
		return NULL;
	}
	names = xcalloc(s->p->nmodels + 1, sizeof(char *));
	for (size_t i = 0; i < s->p->nmodels; i++)
		if (inputs_refreshes(s->p->models[i]))
			names[n++] = s->p->models[i]->fqn;
	near = suggest_nearest(name, names);
	snprintf(detail, sizeof(detail), "'%s' is not a live model%s%s%s", name,
		 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	http_reply_error(c, 404, "unknown model", detail);
	free(names);
	return NULL;
}

/* A control call waiting for its turn on the control queue. */
struct control {
	struct server *s;
	struct http_call *c;
	const struct model *m;
	char action[16];
	char source[256];
	struct live_cycle cycle;
};

static struct control *control_new(struct server *s, struct http_call *c)
{
	struct control *ct = xcalloc(1, sizeof(*ct));

	ct->s = s;
	ct->c = c;
	return ct;
}

static int model_job(struct live_runner *r, struct wh *w, void *arg, struct sl_err *err)
{
	struct control *ct = arg;

	if (strcmp(ct->action, "refresh") == 0)
		return live_runner_refresh(r, w, ct->m, &ct->cycle, err);
	return live_runner_pause(r, w, ct->m, strcmp(ct->action, "pause") == 0, err);
}

/* On the control thread: waits for the runner's turn. */
static void model_run(void *arg)
{
	struct control *ct = arg;
	struct server *s = ct->s;
	struct sl_err err = SL_ERR_INIT;
	json_t *o;
	int rc;

	pthread_rwlock_rdlock(&s->lock);
	rc = s->live ? live_thread_call(s->live, model_job, ct, &err)
		     : sl_err_set(&err, SL_E_BUSY, "the live runner is stopped (POST /api/live/start)");
	pthread_rwlock_unlock(&s->lock);
	if (rc) {
		http_reply_sl_err(ct->c, &err);
		free(ct);
		return;
	}
	o = json_object();
	json_object_set_new(o, "model", json_string(ct->m->fqn));
	json_object_set_new(o, "action", json_string(ct->action));
	if (strcmp(ct->action, "refresh") == 0) {
		json_object_set_new(o, "refreshed", json_integer((json_int_t)ct->cycle.refreshed));
		json_object_set_new(o, "failed", json_integer((json_int_t)ct->cycle.failed));
		json_object_set_new(o, "events", json_integer(ct->cycle.events));
	}
	http_reply_json(ct->c, 200, o);
	free(ct);
}

static void control(struct server *s, struct http_call *c)
{
	const char *action = http_call_segment(c, 4);
	const struct model *m;
	struct control *ct;

	if (strcmp(action, "pause") != 0 && strcmp(action, "resume") != 0 &&
	    strcmp(action, "refresh") != 0) {
		http_reply_error(c, 404, "not found", "use pause, resume or refresh");
		return;
	}
	if (!method(c, "POST") || !(m = live_model(s, c, http_call_segment(c, 3))))
		return;
	ct = control_new(s, c);
	ct->m = m;
	snprintf(ct->action, sizeof(ct->action), "%s", action);
	worker_queue_push(s->control, model_run, ct);
}

/* On the control thread: stamps rows written into a landing table by
 * someone else, or reads an adopted table's highest cursor; either wakes
 * the runner. */
static void advance_run(void *arg)
{
	struct control *ct = arg;
	struct sl_err err = SL_ERR_INIT;
	struct live_advance adv = { 0 };
	struct wh *w;
	json_t *o;
	int rc = wh_connect(ct->s->w, &w, &err);

	if (!rc) {
		rc = live_advance_any(w, http_call_arena(ct->c), ct->s->p, ct->source, &adv, &err);
		wh_close(w);
	}
	if (rc) {
		http_reply_sl_err(ct->c, &err);
		free(ct);
		return;
	}
	if (adv.rows || adv.cursor[0])
		server_advanced(ct->s, ct->source, &adv);
	o = json_object();
	json_object_set_new(o, "source", json_string(ct->source));
	/* an adopted table's place is the runner's own reckoning: its cursor
	 * says it */
	if (adv.cursor[0])
		json_object_set_new(o, "cursor", json_string(adv.cursor));
	else
		json_object_set_new(o, "seq", json_integer(adv.seq));
	json_object_set_new(o, "rows", json_integer(adv.rows));
	http_reply_json(ct->c, 200, o);
	free(ct);
}

static void advance(struct server *s, struct http_call *c)
{
	struct sl_err err = SL_ERR_INIT;
	struct control *ct;
	int rc;

	if (!method(c, "POST"))
		return;
	/* what may be advanced is the project's to say, before anything
	 * touches the warehouse */
	ct = control_new(s, c);
	rc = live_advance_target(http_call_arena(c), s->p, http_call_segment(c, 3), ct->source,
				 sizeof(ct->source), &err);
	if (rc) {
		http_reply_error(c, rc == SL_E_NOTFOUND ? 404 : 400,
				 rc == SL_E_NOTFOUND ? "unknown source" : "not a source", err.msg);
		free(ct);
		return;
	}
	worker_queue_push(s->control, advance_run, ct);
}

/* On the control thread: stopping waits for the refresh in progress. */
static void start_stop_run(void *arg)
{
	struct control *ct = arg;
	struct sl_err err = SL_ERR_INIT;
	bool start = strcmp(ct->action, "start") == 0;
	json_t *o;

	if (start && server_live_start(ct->s, &err)) {
		http_reply_sl_err(ct->c, &err);
		free(ct);
		return;
	}
	if (!start)
		server_live_stop(ct->s);
	o = json_object();
	json_object_set_new(o, "live", json_boolean(start));
	http_reply_json(ct->c, 200, o);
	free(ct);
}

static void start_stop(struct server *s, struct http_call *c)
{
	struct control *ct;

	if (!method(c, "POST"))
		return;
	ct = control_new(s, c);
	snprintf(ct->action, sizeof(ct->action), "%s", http_call_segment(c, 2));
	worker_queue_push(s->control, start_stop_run, ct);
}

/* Server-sent events until the client goes away or the server stops,
 * from where the client was: a browser that reconnects says so in
 * Last-Event-ID, a page that starts a new stream in ?last_event_id=. */
static void events(struct server *s, struct http_call *c)
{
	const char *last = http_call_header(c, "Last-Event-ID");

	server_watch(s, c, last ? last : http_call_query(c, "last_event_id"));
}

/* For a command a client asked for: on the runner's thread between its
 * cycles, or, with the runner stopped, on a connection of its own. */
static int on_warehouse(void *ctx, live_job_fn fn, void *arg, struct sl_err *err)
{
	struct server *s = ctx;
	struct wh *w;
	int rc;

	pthread_rwlock_rdlock(&s->lock);
	if (s->live) {
		rc = live_thread_call(s->live, fn, arg, err);
		pthread_rwlock_unlock(&s->lock);
		return rc;
	}
	rc = wh_connect(s->w, &w, err);
	if (!rc) {
		rc = fn(NULL, w, arg, err);
		wh_close(w);
	}
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

static void command(struct server *s, struct http_call *c)
{
	if (method(c, "POST"))
		server_command_answer(c, http_call_segment(c, 2), s->a, s->opts, s->control,
				      on_warehouse, s);
}

/* A query for the reader, which answers it. */
static void read_query(struct server *s, struct http_call *c)
{
	if (method(c, "POST"))
		server_reader_answer(s->reader, c);
}

/* A model's page: what the project says of it, and its history. */
static void model_page(struct server *s, struct http_call *c)
{
	page_doc_model(s->history, c, s->p, http_call_segment(c, 2));
}

/* The runs and the alerts sent. */
static void runs_page(struct server *s, struct http_call *c)
{
	page_doc_runs(s->history, c, s->p->root);
}

/* GET routes: a path, the answer. */
static bool get(struct server *s, struct http_call *c)
{
	void (*fn)(struct server *, struct http_call *) =
		is(c, 2, "health", NULL)	 ? health
		: is(c, 3, "live", "status") ? status
		: is(c, 3, "live", "events") ? events
		: is(c, 3, "models", NULL)	 ? model_page
		: is(c, 2, "runs", NULL)	 ? runs_page
		: is(c, 2, "models", NULL)	 ? list_models
		: is(c, 2, "dag", NULL)	 ? dag
		: is(c, 2, "windows", NULL) || is(c, 3, "windows", NULL) ? windows
					 : NULL;

	if (!fn)
		return false;
	if (method(c, "GET"))
		fn(s, c);
	return true;
}

/* Routes by the segments the HTTP module made of the path, the same ones
 * its token check read: there is no other reading of a path. */
void server_route(void *ctx, struct http_call *c)
{
	struct server *s = ctx;

	if (is(c, 4, "ingest", "webhook"))
		server_ingest_webhook(s->ingest, c, http_call_segment(c, 3));
	else if (server_webui_route(s, c) || get(s, c))
		return;
	else if (is(c, 5, "live", "models"))
		control(s, c);
	else if (is(c, 5, "live", "sources") && strcmp(http_call_segment(c, 4), "advance") == 0)
		advance(s, c);
	else if (is(c, 3, "live", "start") || is(c, 3, "live", "stop"))
		start_stop(s, c);
	else if (is(c, 2, "sql", NULL))
		read_query(s, c);
	else if (is(c, 3, "commands", NULL))
		command(s, c);
	else
		http_reply_error(c, 404, "not found", http_call_path(c));
}
