/*
 * The server: connections, threads (the writer, the runner, one per
 * poller), routes. Handlers run on the HTTP
 * module's thread; a write is handed to the writer's queue or to the
 * runner's thread, the status document is built on a thread of its own,
 * and the call is answered when it is done.
 */
#include "server/server.h"

#include "build/state.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/units.h"
#include "ingest/poll.h"
#include "ingest/writer.h"
#include "live/advance.h"
#include "live/inputs.h"
#include "live/runner.h"
#include "live/status.h"
#include "live/thread.h"
#include "project/model.h"
#include "project/project.h"
#include "server/http.h"
#include "server/ingest.h"
#include "warehouse/wh.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct server {
	struct project *p;
	struct wh *w; /* the first connection: reads open connections from it */
	const struct server_opts *opts;
	struct ingest_writer *writer;
	struct server_ingest *ingest;
	pthread_rwlock_t lock; /* live: read to use it, write to start or stop it */
	pthread_mutex_t watch_mu; /* guards watchers */
	struct watcher *watchers;
	struct live_thread *live;
	struct poller **pollers; /* one per poll source, each on its own thread */
	size_t npollers;
	pthread_mutex_t readers_mu;
	pthread_cond_t readers_idle;
	int readers; /* status documents being built on threads of their own */
	char state_file[4096];
};

/* A client of GET /api/live/events. */
struct watcher {
	struct http_stream *stream;
	struct watcher *next;
};

/* Sends an event to every watcher; a watcher that went away is dropped. */
static void emit(struct server *s, const char *event, json_t *data)
{
	char *text = json_dumps(data, JSON_COMPACT);

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

static bool has_live_models(const struct project *p)
{
	for (size_t i = 0; i < p->nmodels; i++)
		if (live_model_refreshes(p->models[i]))
			return true;
	return false;
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
	pthread_rwlock_unlock(&s->lock);
	if (t)
		live_thread_stop(t);
}

/* ---- pollers: one thread per poll source, landing through the writer ---- */

static int start_pollers(struct server *s, struct sl_err *err)
{
	const struct project_cfg *cfg = &s->p->cfg;
	int rc = 0;

	s->pollers = calloc(cfg->nsources + 1, sizeof(*s->pollers));
	if (!s->pollers)
		abort();
	for (size_t i = 0; !rc && i < cfg->nsources; i++) {
		const struct source_cfg *src = &cfg->sources[i];
		struct poller *pl;
		struct wh *r;

		if (!src->kind || strcmp(src->kind, "poll") != 0)
			continue;
		rc = poller_new(src, &pl, err);
		if (rc)
			break;
		s->pollers[s->npollers++] = pl;
		rc = wh_connect(s->w, &r, err);
		if (!rc && (rc = poller_start(pl, r, s->writer, s->opts->log, err)))
			wh_close(r);
	}
	return rc;
}

/* Before the writer stops: a poll in progress still gets its answer. Their
 * status stays readable until the front door is closed. */
static void stop_pollers(struct server *s)
{
	for (size_t i = 0; i < s->npollers; i++)
		poller_stop(s->pollers[i]);
}

static void free_pollers(struct server *s)
{
	for (size_t i = 0; i < s->npollers; i++)
		poller_free(s->pollers[i]);
	free(s->pollers);
	s->pollers = NULL;
	s->npollers = 0;
}

static json_t *pollers_status(struct server *s)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < s->npollers; i++)
		json_array_append_new(arr, poller_status(s->pollers[i]));
	return arr;
}

/* ---- routes ---- */

/* The path's segments after /api/: "live", "models", "m", "pause". */
struct route {
	const char *seg[6];
	size_t n;
	char buf[1024];
};

static void split(const char *path, struct route *r)
{
	char *save = NULL;

	r->n = 0;
	snprintf(r->buf, sizeof(r->buf), "%s", path);
	for (char *tok = strtok_r(r->buf, "/", &save); tok && r->n < 6;
	     tok = strtok_r(NULL, "/", &save))
		r->seg[r->n++] = tok;
}

static bool is(const struct route *r, size_t n, const char *a, const char *b)
{
	return r->n == n && strcmp(r->seg[0], "api") == 0 && strcmp(r->seg[1], a) == 0 &&
	       (!b || strcmp(r->seg[2], b) == 0);
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

static void reply_sl_err(struct http_call *c, const struct sl_err *err)
{
	int status = err->code == SL_E_NOTFOUND ? 404 : err->code == SL_E_BUSY ? 503 : 500;

	if (status == 503)
		http_call_add_header(c, "Retry-After", "1");
	http_reply_error(c, status, sl_code_text(err->code), err->msg);
}

static void health(struct server *s, struct http_call *c)
{
	json_t *o = json_object();

	pthread_rwlock_rdlock(&s->lock);
	json_object_set_new(o, "live", json_boolean(s->live != NULL));
	pthread_rwlock_unlock(&s->lock);
	json_object_set_new(o, "status", json_string("ok"));
	json_object_set_new(o, "project", json_string(s->p->cfg.name ? s->p->cfg.name : ""));
	http_reply_json(c, 200, o);
}

static void status_answer(struct server *s, struct http_call *c)
{
	struct sl_err err = SL_ERR_INIT;
	struct wh *r;
	json_t *doc;
	int rc = wh_connect(s->w, &r, &err);

	if (!rc) {
		rc = live_status_doc(s->p, r, &doc, &err);
		wh_close(r);
	}
	if (rc) {
		reply_sl_err(c, &err);
		return;
	}
	json_object_set_new(doc, "pollers", pollers_status(s));
	http_reply_json(c, 200, doc);
}

struct status_call {
	struct server *s;
	struct http_call *c;
};

static void *status_run(void *arg)
{
	struct status_call *sc = arg;
	struct server *s = sc->s;

	status_answer(s, sc->c);
	free(sc);
	pthread_mutex_lock(&s->readers_mu);
	if (--s->readers == 0)
		pthread_cond_broadcast(&s->readers_idle);
	pthread_mutex_unlock(&s->readers_mu);
	return NULL;
}

/* The status document takes several warehouse reads (tens of ms under
 * load): a thread of its own builds it, so that the HTTP thread goes on
 * serving ingest meanwhile. The server waits for these threads when it
 * stops. */
static void status(struct server *s, struct http_call *c)
{
	struct status_call *sc = malloc(sizeof(*sc));
	pthread_attr_t attr;
	pthread_t tid;
	int rc;

	if (!sc)
		abort();
	*sc = (struct status_call){ .s = s, .c = c };
	pthread_mutex_lock(&s->readers_mu);
	s->readers++;
	pthread_mutex_unlock(&s->readers_mu);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&tid, &attr, status_run, sc);
	pthread_attr_destroy(&attr);
	if (rc) /* no thread to spare: answer here */
		status_run(sc);
}

static void models(struct server *s, struct http_call *c, bool edges)
{
	json_t *root = json_object(), *nodes = json_array(), *links = json_array();

	for (size_t i = 0; i < s->p->nmodels; i++) {
		const struct model *m = s->p->models[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(m->fqn));
		json_object_set_new(o, "materialized", json_string(model_mat_name(m->mat)));
		json_object_set_new(o, "live", json_boolean(live_model_refreshes(m)));
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
	const struct model *m = project_find_model(s->p, name);
	const char **names;
	size_t n = 0;
	const char *near;
	char detail[512];

	if (m && live_model_refreshes(m))
		return m;
	names = calloc(s->p->nmodels + 1, sizeof(char *));
	if (!names)
		abort();
	for (size_t i = 0; i < s->p->nmodels; i++)
		if (live_model_refreshes(s->p->models[i]))
			names[n++] = s->p->models[i]->fqn;
	near = suggest_nearest(name, names);
	snprintf(detail, sizeof(detail), "'%s' is not a live model%s%s%s", name,
		 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	http_reply_error(c, 404, "unknown model", detail);
	free(names);
	return NULL;
}

struct control {
	const struct model *m;
	const char *action;
	struct live_cycle cycle;
};

static int control_job(struct live_runner *r, struct wh *w, void *arg, struct sl_err *err)
{
	struct control *ct = arg;

	if (strcmp(ct->action, "refresh") == 0)
		return live_runner_refresh(r, w, ct->m, &ct->cycle, err);
	return live_runner_pause(r, w, ct->m, strcmp(ct->action, "pause") == 0, err);
}

static void control(struct server *s, struct http_call *c, const struct route *r)
{
	struct control ct = { .action = r->seg[4] };
	struct sl_err err = SL_ERR_INIT;
	json_t *o;
	int rc;

	if (strcmp(ct.action, "pause") != 0 && strcmp(ct.action, "resume") != 0 &&
	    strcmp(ct.action, "refresh") != 0) {
		http_reply_error(c, 404, "not found", "use pause, resume or refresh");
		return;
	}
	if (!method(c, "POST") || !(ct.m = live_model(s, c, r->seg[3])))
		return;
	pthread_rwlock_rdlock(&s->lock);
	rc = s->live ? live_thread_call(s->live, control_job, &ct, &err)
		     : sl_err_set(&err, SL_E_BUSY, "the live runner is stopped (POST /api/live/start)");
	pthread_rwlock_unlock(&s->lock);
	if (rc) {
		reply_sl_err(c, &err);
		return;
	}
	o = json_object();
	json_object_set_new(o, "model", json_string(ct.m->fqn));
	json_object_set_new(o, "action", json_string(ct.action));
	if (strcmp(ct.action, "refresh") == 0) {
		json_object_set_new(o, "refreshed", json_integer((json_int_t)ct.cycle.refreshed));
		json_object_set_new(o, "failed", json_integer((json_int_t)ct.cycle.failed));
		json_object_set_new(o, "events", json_integer(ct.cycle.events));
	}
	http_reply_json(c, 200, o);
}

/* Stamps rows written into a landing table by someone else. */
static void advance(struct server *s, struct http_call *c, const char *source)
{
	struct sl_err err = SL_ERR_INIT;
	struct live_advance adv = { 0 };
	char fqn[256];
	struct wh *w;
	json_t *o;
	int rc;

	if (!method(c, "POST"))
		return;
	live_source_name(source, fqn, sizeof(fqn));
	rc = wh_connect(s->w, &w, &err);
	if (!rc) {
		rc = live_advance_source(w, fqn, &adv, &err);
		wh_close(w);
	}
	if (rc) {
		reply_sl_err(c, &err);
		return;
	}
	if (adv.rows)
		on_advance(s, fqn, &adv);
	o = json_object();
	json_object_set_new(o, "source", json_string(fqn));
	json_object_set_new(o, "seq", json_integer(adv.seq));
	json_object_set_new(o, "rows", json_integer(adv.rows));
	http_reply_json(c, 200, o);
}

static void start_stop(struct server *s, struct http_call *c, bool start)
{
	struct sl_err err = SL_ERR_INIT;
	json_t *o;

	if (!method(c, "POST"))
		return;
	if (start && start_live(s, &err)) {
		reply_sl_err(c, &err);
		return;
	}
	if (!start)
		stop_live(s);
	o = json_object();
	json_object_set_new(o, "live", json_boolean(start));
	http_reply_json(c, 200, o);
}

/* Server-sent events until the client goes away or the server stops. */
static void events(struct server *s, struct http_call *c)
{
	struct watcher *w = calloc(1, sizeof(*w));

	if (!w)
		abort();
	w->stream = http_stream_open(c, 15000);
	pthread_mutex_lock(&s->watch_mu);
	w->next = s->watchers;
	s->watchers = w;
	pthread_mutex_unlock(&s->watch_mu);
}

/* GET routes: a path, the answer. */
static bool get(struct server *s, struct http_call *c, const struct route *r)
{
	void (*fn)(struct server *, struct http_call *) =
		is(r, 2, "health", NULL)	 ? health
		: is(r, 3, "live", "status") ? status
		: is(r, 3, "live", "events") ? events
		: is(r, 2, "models", NULL)	 ? list_models
		: is(r, 2, "dag", NULL)	 ? dag
					 : NULL;

	if (!fn)
		return false;
	if (method(c, "GET"))
		fn(s, c);
	return true;
}

static void handle(void *ctx, struct http_call *c)
{
	struct server *s = ctx;
	struct route r;

	split(http_call_path(c), &r);
	if (is(&r, 4, "ingest", "webhook"))
		server_ingest_webhook(s->ingest, c, r.seg[3]);
	else if (get(s, c, &r))
		return;
	else if (is(&r, 5, "live", "models"))
		control(s, c, &r);
	else if (is(&r, 5, "live", "sources") && strcmp(r.seg[4], "advance") == 0)
		advance(s, c, r.seg[3]);
	else if (is(&r, 3, "live", "start") || is(&r, 3, "live", "stop"))
		start_stop(s, c, strcmp(r.seg[2], "start") == 0);
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
	fprintf(stderr,
		"sluice serve: the warehouse failed a write (%s); exiting so that it is reopened "
		"from what is on disk: every acknowledged batch is there\n",
		err->msg);
	fflush(stderr);
	_exit(SL_EXIT_SUSPECT);
}

int server_run(struct project *p, struct wh *w, const struct server_opts *opts,
	       struct sl_err *err)
{
	struct server s = { .p = p, .w = w, .opts = opts };
	const char *token_env = p->cfg.server.token_env;
	struct http_config hc = {
		.listen = opts->listen,
		.max_body = (size_t)p->cfg.server.max_body,
		.token = token_env && getenv(token_env) && *getenv(token_env) ? getenv(token_env)
									     : NULL,
		.auth_prefix = "/api/",
	};
	struct ingest_opts io = {
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

	pthread_rwlock_init(&s.lock, NULL);
	pthread_mutex_init(&s.watch_mu, NULL);
	pthread_mutex_init(&s.readers_mu, NULL);
	pthread_cond_init(&s.readers_idle, NULL);
	rc = state_ensure(w, err);
	if (!rc)
		rc = live_sources_ensure(w, p, err);
	if (!rc)
		rc = server_ingest_open(p, &s.ingest, err);
	if (!rc)
		rc = wh_connect(w, &wconn, err);
	if (!rc)
		rc = ingest_writer_start(wconn, &io, &s.writer, err);
	else
		wh_close(wconn);
	if (!rc)
		server_ingest_attach(s.ingest, s.writer);
	if (!rc)
		rc = start_pollers(&s, err);
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
	stop_pollers(&s);
	if (s.ingest)
		server_ingest_close(s.ingest);
	if (s.writer)
		ingest_writer_stop(s.writer);
	stop_live(&s);
	close_watchers(&s);
	if (http)
		http_server_stop(http);
	/* no call comes in any more; the status threads still use w and p */
	pthread_mutex_lock(&s.readers_mu);
	while (s.readers)
		pthread_cond_wait(&s.readers_idle, &s.readers_mu);
	pthread_mutex_unlock(&s.readers_mu);
	free_pollers(&s);
	if (s.state_file[0])
		unlink(s.state_file);
	if (s.ingest)
		server_ingest_free(s.ingest);
	pthread_rwlock_destroy(&s.lock);
	pthread_mutex_destroy(&s.watch_mu);
	pthread_cond_destroy(&s.readers_idle);
	pthread_mutex_destroy(&s.readers_mu);
	wh_close(w);
	if (!rc && opts->log)
		fprintf(opts->log, "sluice serve: stopped\n");
	return rc;
}
