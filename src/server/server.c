/*
 * The server: connections, threads (the writer, the runner, one per
 * poller, the control queue, the status document), routes. Handlers run on
 * the HTTP module's thread and never wait there: a write is handed to the
 * writer's queue, a control call to the control queue (which waits for the
 * runner or the warehouse in its stead), a status request to the shared
 * status document, and the call is answered when it is done.
 */
#include "server/server.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/units.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "ingest/pgcdc.h"
#include "ingest/pgcdc_thread.h"
#include "ingest/poll.h"
#include "ingest/writer.h"
#include "live/advance.h"
#include "live/runner.h"
#include "live/status.h"
#include "live/thread.h"
#include "live/windows.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "project/model.h"
#include "project/project.h"
#include "server/commands.h"
#include "server/http.h"
#include "server/ingest.h"
#include "server/read.h"
#include "server/statusdoc.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct server {
	struct arena *a; /* the writer's and the pollers' arenas hang under it */
	struct project *p;
	struct wh *w; /* the first connection: reads open connections from it */
	int folder_lock; /* .sluice/server.lock, held while the server runs */
	const struct server_opts *opts;
	struct ingest_writer *writer;
	struct server_ingest *ingest;
	pthread_rwlock_t lock; /* live: read to use it, write to start or stop it */
	atomic_bool live_on;   /* live != NULL, for whoever must not wait for the lock */
	pthread_mutex_t watch_mu; /* guards watchers */
	struct watcher *watchers;
	struct live_thread *live;
	struct poller **pollers; /* one per poll source, each on its own thread */
	size_t npollers;
	struct pgcdc_thread **consumers; /* one per postgres_cdc slot */
	size_t nconsumers;
	/* sources that could not start (what they need from the environment
	 * is not set): the server serves the others */
	struct unavailable *unavailable;
	size_t nunavailable;
	struct worker_queue *control; /* control calls, off the HTTP thread */
	struct server_reader *reader; /* POST /api/sql */
	struct status_doc *status;  /* GET /api/live/status */
	struct wh *status_conn;     /* the status thread's, opened at its first build */
	char state_file[4096];
};

struct unavailable {
	const char *source;
	char why[512];
};

/* How long an unchanged status document is kept: however many read it, an
 * idle server builds it at most once per this long, and a busy one once per
 * build at most. */
#define STATUS_MAX_AGE_MS 100

/* A client of GET /api/live/events. */
struct watcher {
	struct http_stream *stream;
	struct watcher *next;
};

/* Sends an event to every watcher; a watcher that went away is dropped. */
static void emit(struct server *s, const char *event, json_t *data)
{
	char *text = json_dumps(data, JSON_COMPACT);

	/* whatever is worth an event changes what the status shows */
	status_doc_touch(s->status);
	json_decref(data);
	if (!text)
		return;
	pthread_mutex_lock(&s->watch_mu);
	for (struct watcher **w = &s->watchers; *w;) {
		if (http_stream_send((*w)->stream, event, text) == 0) {
			w = &(*w)->next;
			continue;
		}
		struct watcher *gone = *w;

		*w = gone->next;
		http_stream_close(gone->stream);
		free(gone);
	}
	pthread_mutex_unlock(&s->watch_mu);
	free(text);
}

static void close_watchers(struct server *s)
{
	pthread_mutex_lock(&s->watch_mu);
	while (s->watchers) {
		struct watcher *w = s->watchers;

		s->watchers = w->next;
		http_stream_close(w->stream);
		free(w);
	}
	pthread_mutex_unlock(&s->watch_mu);
}

static void on_runner_event(void *ctx, const char *event, const char *model, const char *detail)
{
	json_t *o = json_object();

	json_object_set_new(o, "model", json_string(model));
	if (detail && strcmp(event, "refresh") == 0)
		json_object_set_new(o, "rows", json_integer(strtoll(detail, NULL, 10)));
	else if (detail)
		json_object_set_new(o, "error", json_string(detail));
	emit(ctx, event, o);
}

static int watch_job(struct live_runner *r, struct wh *w, void *arg, struct sl_err *err)
{
	(void)w;
	(void)err;
	live_runner_watch(r, on_runner_event, arg);
	return 0;
}

/* Live models to refresh, or windows to build as streams pass them. */
static bool has_live_models(const struct project *p)
{
	for (size_t i = 0; i < p->nmodels; i++)
		if (inputs_refreshes(p->models[i]))
			return true;
	return live_windows_any(p);
}

static void on_advance(void *ctx, const char *source, const struct live_advance *adv)
{
	struct server *s = ctx;
	json_t *o = json_object();

	pthread_rwlock_rdlock(&s->lock);
	if (s->live)
		live_thread_advanced(s->live, source, adv);
	pthread_rwlock_unlock(&s->lock);
	json_object_set_new(o, "source", json_string(source));
	json_object_set_new(o, "seq", json_integer(adv->seq));
	json_object_set_new(o, "rows", json_integer(adv->rows));
	emit(s, "advance", o);
}

static int start_live(struct server *s, struct sl_err *err)
{
	struct wh *conn;
	int rc = 0;

	pthread_rwlock_wrlock(&s->lock);
	if (!s->live) {
		rc = wh_connect(s->w, &conn, err);
		if (!rc)
			rc = live_thread_start(s->p, conn, s->opts->log, &s->live, err);
		if (!rc)
			rc = live_thread_call(s->live, watch_job, s, err);
		atomic_store(&s->live_on, s->live != NULL);
	}
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

static void stop_live(struct server *s)
{
	struct live_thread *t;

	pthread_rwlock_wrlock(&s->lock);
	t = s->live;
	s->live = NULL;
	atomic_store(&s->live_on, false);
	pthread_rwlock_unlock(&s->lock);
	if (t)
		live_thread_stop(t);
}

/* ---- the sources' threads: a poller per poll source (landing through
 * the writer), a consumer per postgres_cdc slot (landing on its own), each
 * on a warehouse connection it owns once started ---- */

/* Source transactions landed: the runner reads the advances anew, and
 * the watchers hear of it. */
static void on_cdc_landed(void *ctx, const struct pgcdc_landed *landed)
{
	struct server *s = ctx;
	json_t *o = json_object();

	pthread_rwlock_rdlock(&s->lock);
	if (s->live)
		live_thread_notify(s->live);
	pthread_rwlock_unlock(&s->lock);
	json_object_set_new(o, "slot", json_string(landed->slot));
	json_object_set_new(o, "seq", json_integer(landed->seq));
	json_object_set_new(o, "transactions", json_integer(landed->txns));
	json_object_set_new(o, "changes", json_integer(landed->changes));
	emit(s, "landed", o);
}

/* Listed before it starts, so that one that fails to start is freed. */
static int start_poller(struct server *s, const struct source_cfg *src, struct wh *c,
			struct sl_err *err)
{
	struct poller *pl;
	int rc = poller_new(s->a, src, &pl, err);

	if (rc)
		return rc;
	s->pollers[s->npollers++] = pl;
	return poller_start(pl, c, s->writer, s->opts->log, err);
}

static int start_consumer(struct server *s, const struct source_cfg *src, struct wh *c,
			  struct sl_err *err)
{
	int rc = pgcdc_thread_start(s->p, src, c, s->opts->log, on_cdc_landed, s,
				    &s->consumers[s->nconsumers], err);

	s->nconsumers += !rc;
	return rc;
}

/* A source that cannot start for its settings (SL_E_CONFIG: a variable
 * of the environment it names is not set) is said and left out; the
 * server serves the others. */
static int left_out(struct server *s, const struct source_cfg *src, int rc, struct sl_err *err)
{
	struct unavailable *u;

	if (rc != SL_E_CONFIG)
		return rc;
	u = &s->unavailable[s->nunavailable++];
	u->source = src->name;
	snprintf(u->why, sizeof(u->why), "%.*s", (int)strcspn(err->msg, "\n"), err->msg);
	if (s->opts->log)
		fprintf(s->opts->log, "sluice serve: source '%s' is not served: %s\n", src->name,
			err->msg);
	sl_err_clear(err);
	return 0;
}

static void log_unserved_webhooks(struct server *s)
{
	size_t n = s->p->cfg.nsources, k;
	const char **names = xcalloc(n + 1, sizeof(char *)), **whys = xcalloc(n + 1, sizeof(char *));

	k = server_ingest_unavailable(s->ingest, names, whys, n);
	for (size_t i = 0; i < k; i++)
		fprintf(s->opts->log, "sluice serve: source '%s' is not served: %s\n", names[i],
			whys[i]);
	free(names);
	free(whys);
}

static int start_source_threads(struct server *s, struct sl_err *err)
{
	const struct project_cfg *cfg = &s->p->cfg;
	int rc = 0;

	s->pollers = xcalloc(cfg->nsources + 1, sizeof(*s->pollers));
	s->consumers = xcalloc(cfg->nsources + 1, sizeof(*s->consumers));
	s->unavailable = xcalloc(cfg->nsources + 1, sizeof(*s->unavailable));
	for (size_t i = 0; !rc && i < cfg->nsources; i++) {
		const struct source_cfg *src = &cfg->sources[i];
		bool poll = src->kind && strcmp(src->kind, "poll") == 0;
		struct wh *c;

		/* one consumer per slot, whichever of its sources names it first */
		if (!poll && !pgcdc_first_of_slot(cfg, i))
			continue;
		rc = wh_connect(s->w, &c, err);
		if (rc)
			break;
		rc = poll ? start_poller(s, src, c, err) : start_consumer(s, src, c, err);
		if (rc && !poll)
			wh_close(c);
		if (rc && !poll)
			rc = left_out(s, src, rc, err);
	}
	return rc;
}

/* Before the writer stops: a poll in progress still gets its answer. Their
 * status stays readable until the front door is closed. */
static void stop_source_threads(struct server *s)
{
	for (size_t i = 0; i < s->npollers; i++)
		poller_stop(s->pollers[i]);
	for (size_t i = 0; i < s->nconsumers; i++)
		pgcdc_thread_stop(s->consumers[i]);
}

static void free_source_threads(struct server *s)
{
	for (size_t i = 0; i < s->npollers; i++)
		poller_free(s->pollers[i]);
	for (size_t i = 0; i < s->nconsumers; i++)
		pgcdc_thread_free(s->consumers[i]);
	free(s->pollers);
	free(s->consumers);
	free(s->unavailable);
	s->unavailable = NULL;
	s->nunavailable = 0;
	s->pollers = NULL;
	s->consumers = NULL;
	s->npollers = s->nconsumers = 0;
}

/* Every source that cannot take data for its settings, with why: the
 * webhook sources and those left out at the start. */
static json_t *unavailable_sources(struct server *s)
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

/* The pollers under "pollers", the slots under "cdc" when there are, and
 * the sources that cannot start under "unavailable" when there are. */
static void source_threads_status(struct server *s, json_t *doc)
{
	json_t *pollers = json_array(), *slots = json_array(), *down = unavailable_sources(s);

	if (json_array_size(down))
		json_object_set_new(doc, "unavailable", down);
	else
		json_decref(down);

	for (size_t i = 0; i < s->npollers; i++)
		json_array_append_new(pollers, poller_status(s->pollers[i]));
	for (size_t i = 0; i < s->nconsumers; i++)
		json_array_append_new(slots, pgcdc_thread_status(s->consumers[i]));
	json_object_set_new(doc, "pollers", pollers);
	if (s->nconsumers)
		json_object_set_new(doc, "cdc", slots);
	else
		json_decref(slots);
}

/* ---- routes ---- */

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

/* A source's thread (a slot or a poller) as a part: unreachable while its
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
 * (a postgres_cdc slot, a poller), or that cannot start. */
static enum part health_parts(struct server *s, json_t *parts)
{
	enum part worst = PART_OK;
	json_t *down = unavailable_sources(s);
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

/* On the status thread, which keeps one connection for its builds. */
static json_t *status_build(void *ctx, struct sl_err *err)
{
	struct server *s = ctx;
	json_t *doc;

	if (!s->status_conn && wh_connect(s->w, &s->status_conn, err))
		return NULL;
	if (live_status_doc(s->p, s->status_conn, &doc, err)) {
		/* a connection that failed may be broken: the next build
		 * opens another */
		wh_close(s->status_conn);
		s->status_conn = NULL;
		return NULL;
	}
	source_threads_status(s, doc);
	return doc;
}

static void status(struct server *s, struct http_call *c)
{
	status_doc_answer(s->status, c);
}

static void models(struct server *s, struct http_call *c, bool edges)
{
	json_t *root = json_object(), *nodes = json_array(), *links = json_array();

	for (size_t i = 0; i < s->p->nmodels; i++) {
		const struct model *m = s->p->models[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(m->fqn));
		json_object_set_new(o, "materialized", json_string(model_mat_name(m->mat)));
		json_object_set_new(o, "live", json_boolean(inputs_refreshes(m)));
		json_object_set_new(o, "path", json_string(m->path ? m->path : ""));
		json_array_append_new(nodes, o);
		for (size_t k = 0; edges && k < m->ndeps; k++) {
			json_t *e = json_array();

			json_array_append_new(e, json_string(m->deps[k]->fqn));
			json_array_append_new(e, json_string(m->fqn));
			json_array_append_new(links, e);
		}
	}
	json_object_set_new(root, "models", nodes);
	if (edges)
		json_object_set_new(root, "edges", links);
	else
		json_decref(links);
	http_reply_json(c, 200, root);
}

static void list_models(struct server *s, struct http_call *c)
{
	models(s, c, false);
}

static void dag(struct server *s, struct http_call *c)
{
	models(s, c, true);
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
 * someone else. */
static void advance_run(void *arg)
{
	struct control *ct = arg;
	struct sl_err err = SL_ERR_INIT;
	struct live_advance adv = { 0 };
	struct wh *w;
	json_t *o;
	int rc = wh_connect(ct->s->w, &w, &err);

	if (!rc) {
		rc = live_advance_source(w, ct->source, &adv, &err);
		wh_close(w);
	}
	if (rc) {
		http_reply_sl_err(ct->c, &err);
		free(ct);
		return;
	}
	if (adv.rows)
		on_advance(ct->s, ct->source, &adv);
	o = json_object();
	json_object_set_new(o, "source", json_string(ct->source));
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
	rc = live_advance_target(s->p, http_call_segment(c, 3), ct->source, sizeof(ct->source),
				 &err);
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

	if (start && start_live(ct->s, &err)) {
		http_reply_sl_err(ct->c, &err);
		free(ct);
		return;
	}
	if (!start)
		stop_live(ct->s);
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

/* Server-sent events until the client goes away or the server stops. */
static void events(struct server *s, struct http_call *c)
{
	struct watcher *w = xcalloc(1, sizeof(*w));

	w->stream = http_stream_open(c, 15000);
	pthread_mutex_lock(&s->watch_mu);
	w->next = s->watchers;
	s->watchers = w;
	pthread_mutex_unlock(&s->watch_mu);
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
		server_command_answer(c, http_call_segment(c, 2), s->opts, s->control, on_warehouse,
				      s);
}

/* A query for the reader, which answers it. */
static void read_query(struct server *s, struct http_call *c)
{
	if (method(c, "POST"))
		server_reader_answer(s->reader, c);
}

/* GET routes: a path, the answer. */
static bool get(struct server *s, struct http_call *c)
{
	void (*fn)(struct server *, struct http_call *) =
		is(c, 2, "health", NULL)	 ? health
		: is(c, 3, "live", "status") ? status
		: is(c, 3, "live", "events") ? events
		: is(c, 2, "models", NULL)	 ? list_models
		: is(c, 2, "dag", NULL)	 ? dag
					 : NULL;

	if (!fn)
		return false;
	if (method(c, "GET"))
		fn(s, c);
	return true;
}

/* Routes by the segments the HTTP module made of the path, the same ones
 * its token check read: there is no other reading of a path. */
static void handle(void *ctx, struct http_call *c)
{
	struct server *s = ctx;

	if (is(c, 4, "ingest", "webhook"))
		server_ingest_webhook(s->ingest, c, http_call_segment(c, 3));
	else if (get(s, c))
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

/* ---- the server file: where a running server can be found ---- */

static int write_state_file(struct server *s, int port, struct sl_err *err)
{
	char dir[3900], tmp[4200];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/.sluice", s->opts->root);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return sl_err_set(err, SL_E_IO, "cannot create %s: %s", dir, strerror(errno));
	snprintf(s->state_file, sizeof(s->state_file), "%s/server.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", s->state_file);
	f = fopen(tmp, "w");
	if (!f)
		return sl_err_set(err, SL_E_IO, "cannot write %s: %s", tmp, strerror(errno));
	fprintf(f, "{\"pid\": %ld, \"port\": %d, \"url\": \"http://127.0.0.1:%d\"}\n",
		(long)getpid(), port, port);
	if (fclose(f) || rename(tmp, s->state_file))
		return sl_err_set(err, SL_E_IO, "cannot write %s: %s", s->state_file,
				  strerror(errno));
	return 0;
}

/* The warehouse failed a write and is in doubt: the server leaves at once,
 * as kill -9 would, answering nothing more and closing nothing (closing
 * would checkpoint what the process holds over what is on disk), so that
 * its supervisor starts it again on what is on disk. */
static void warehouse_failed(void *ctx, const struct sl_err *err)
{
	struct server *s = ctx;

	if (s->opts->log)
		fflush(s->opts->log);
	sl_exit_suspect("serve",
			"exiting so that it is reopened from what is on disk: every acknowledged "
			"batch is there",
			err);
}

/* One server per project folder: a second one would take
 * .sluice/server.json over, so that the CLI reached it instead, and remove
 * it when it stopped. A DuckDB file is one process's already; a shared
 * warehouse may have servers in other folders, on other machines, but not
 * two in this one. The lock is on .sluice/server.lock, held until the
 * process ends (however it ends: the system lets go of it). */
static int hold_folder(struct server *s, struct sl_err *err)
{
	char dir[3900], path[4000];
	long pid = 0;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/.sluice", s->opts->root);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return sl_err_set(err, SL_E_IO, "cannot create %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/server.lock", dir);
	s->folder_lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->folder_lock < 0)
		return sl_err_set(err, SL_E_IO, "cannot open %s: %s", path, strerror(errno));
	if (flock(s->folder_lock, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return sl_err_set(err, SL_E_IO, "cannot lock %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/server.json", dir);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "{\"pid\": %ld", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return sl_err_set(err, SL_E_LOCKED,
			  "project '%s' is served by another sluice serve already\n"
			  "  hint: stop the other server, then retry\n"
			  "  detail: %s names process %ld",
			  s->opts->root, path, pid);
}

int server_run(struct project *p, struct wh *w, const struct server_opts *opts,
	       struct sl_err *err)
{
	struct server s = { .a = arena_new(opts->arena), .p = p, .w = w, .opts = opts,
			    .folder_lock = -1 };
	const struct server_cfg *sc = &p->cfg.server;
	struct http_config hc = {
		.listen = opts->listen,
		.max_body = (size_t)sc->max_body,
		.auth_segment = "api",
		.header_timeout_ms = sc->header_timeout_ms,
		.idle_timeout_ms = sc->idle_timeout_ms,
		.min_body_rate = sc->min_body_rate,
		.max_client_connections = (unsigned)sc->max_client_connections,
	};
	struct ingest_opts io = {
		.arena = s.a,
		.flush_interval_ms = p->cfg.ingest.flush_interval_ms,
		.flush_rows = p->cfg.ingest.flush_rows,
		.max_rows = p->cfg.ingest.flush_rows * 10,
		.advanced = on_advance,
		.suspect = warehouse_failed,
		.ctx = &s,
	};
	struct http_server *http = NULL;
	struct wh *wconn = NULL;
	int rc;

	/* a token_env names the token the user meant to require: serving
	 * without one would open what was meant to be closed */
	if (sc->token_env) {
		hc.token = getenv(sc->token_env);
		if (!hc.token || !*hc.token) {
			arena_free(s.a);
			wh_close(w);
			return sl_err_set(err, SL_E_CONFIG,
					  "server.token_env names $%s, which is not set\n"
					  "  hint: export %s=... before sluice serve, or remove "
					  "server.token_env to serve without a token",
					  sc->token_env, sc->token_env);
		}
	}
	pthread_rwlock_init(&s.lock, NULL);
	pthread_mutex_init(&s.watch_mu, NULL);
	rc = hold_folder(&s, err);
	if (!rc)
		rc = state_ensure(w, err);
	if (!rc)
		rc = live_sources_ensure(w, p, err);
	/* before anything that emits events: each one touches the status */
	if (!rc)
		rc = worker_queue_start(&s.control, "server control", err);
	if (!rc)
		rc = server_reader_start(w, &s.reader, err);
	if (!rc)
		rc = status_doc_start(status_build, &s, STATUS_MAX_AGE_MS, &s.status, err);
	if (!rc)
		rc = server_ingest_open(p, &s.ingest, err);
	if (!rc && opts->log)
		log_unserved_webhooks(&s);
	if (!rc)
		rc = wh_connect(w, &wconn, err);
	if (!rc)
		rc = ingest_writer_start(wconn, &io, &s.writer, err);
	else
		wh_close(wconn);
	if (!rc)
		server_ingest_attach(s.ingest, s.writer);
	if (!rc)
		rc = start_source_threads(&s, err);
	if (!rc && has_live_models(p) && p->cfg.live.enabled)
		rc = start_live(&s, err);
	if (!rc)
		rc = http_server_start(&hc, handle, &s, &http, err);
	if (!rc)
		rc = write_state_file(&s, http_server_port(http), err);
	if (!rc && opts->log) {
		fprintf(opts->log, "sluice serve: %s on http://127.0.0.1:%d (live runner %s",
			p->cfg.name ? p->cfg.name : "", http_server_port(http),
			s.live ? "on" : "off");
		if (s.npollers)
			fprintf(opts->log, ", %zu poller%s", s.npollers, s.npollers == 1 ? "" : "s");
		if (s.nconsumers)
			fprintf(opts->log, ", %zu postgres_cdc slot%s", s.nconsumers,
				s.nconsumers == 1 ? "" : "s");
		fprintf(opts->log, ")\n");
		fflush(opts->log);
	}
	for (;;) {
		/* the start, the runner, a reader or a route met the failure */
		if (wh_suspect(w, err))
			warehouse_failed(&s, err);
		if (rc || *opts->stop)
			break;
		nanosleep(&(struct timespec){ 0, 50000000L }, NULL);
	}
	/* accepted batches commit and are answered before the front door closes */
	stop_source_threads(&s);
	if (s.ingest)
		server_ingest_close(s.ingest);
	if (s.writer)
		ingest_writer_stop(s.writer);
	/* control calls still queued may start the runner: they go first */
	if (s.control)
		worker_queue_stop(s.control);
	stop_live(&s);
	close_watchers(&s);
	if (http)
		http_server_stop(http);
	/* no call comes in any more; the status thread still uses w and p */
	if (s.reader)
		server_reader_stop(s.reader);
	if (s.status)
		status_doc_stop(s.status);
	if (s.status_conn)
		wh_close(s.status_conn);
	free_source_threads(&s);
	if (s.state_file[0])
		unlink(s.state_file);
	if (s.ingest)
		server_ingest_free(s.ingest);
	pthread_rwlock_destroy(&s.lock);
	pthread_mutex_destroy(&s.watch_mu);
	if (s.folder_lock >= 0)
		close(s.folder_lock);
	arena_free(s.a);
	wh_close(w);
	if (!rc && opts->log)
		fprintf(opts->log, "sluice serve: stopped\n");
	return rc;
}
