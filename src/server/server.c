/*
 * The server: connections, threads (the writer, the runner, one per
 * poller, the control queue, the status document), each started and
 * stopped in its order; the routes are routes.c's. Handlers run on the
 * HTTP module's thread and never wait there: a write is handed to the
 * writer's queue, a control call to the control queue (which waits for the
 * runner or the warehouse in its stead), a status request to the shared
 * status document, and the call is answered when it is done.
 */
#include "server/server_int.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "ingest/poll.h"
#include "files/thread.h"
#include "kafka/thread.h"
#include "ingest/writer.h"
#include "live/advance.h"
#include "live/status.h"
#include "live/windows.h"
#include "pgcdc/pgcdc.h"
#include "pgcdc/pgcdc_thread.h"
#include "project/inputs.h"
#include "project/model.h"
#include "project/project.h"
#include "server/eventlog.h"
#include "server/http.h"
#include "server/ingest.h"
#include "server/read.h"
#include "server/dagdoc.h"
#include "server/history.h"
#include "server/session.h"
#include "server/statusdoc.h"
#include "server/windoc.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <openssl/rand.h>

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

/* How long an unchanged status document is kept: however many read it, an
 * idle server builds it at most once per this long, and a busy one once per
 * build at most. */
#define STATUS_MAX_AGE_MS 100

/* Live models to refresh, or windows to build as streams pass them. */
static bool has_live_models(const struct project *p)
{
	for (size_t i = 0; i < p->nmodels; i++)
		if (inputs_refreshes(p->models[i]))
			return true;
	return live_windows_any(p);
}

/* ---- the sources' threads: a poller per poll source, a consumer per
 * kafka source and a lander per files source (landing through the
 * writer), a consumer per postgres_cdc slot (landing on its own), each on
 * a warehouse connection it owns once started ---- */

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

static int start_kafka(struct server *s, const struct source_cfg *src, struct wh *c,
		       struct sl_err *err)
{
	int rc = kafka_thread_start(s->a, src, c, s->writer, s->p->cfg.ingest.flush_rows,
				    s->opts->log, &s->kafkas[s->nkafkas], err);

	s->nkafkas += !rc;
	return rc;
}

static int start_lander(struct server *s, const struct source_cfg *src, struct wh *c,
			struct sl_err *err)
{
	int rc = files_thread_start(s->a, src, s->opts->root, c, s->writer, s->opts->log,
				    &s->landers[s->nlanders], err);

	s->nlanders += !rc;
	return rc;
}

static int start_consumer(struct server *s, const struct source_cfg *src, struct wh *c,
			  struct sl_err *err)
{
	int rc = pgcdc_thread_start(s->a, s->p, src, c, s->opts->log, server_cdc_landed, s,
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
	s->kafkas = xcalloc(cfg->nsources + 1, sizeof(*s->kafkas));
	s->landers = xcalloc(cfg->nsources + 1, sizeof(*s->landers));
	s->unavailable = xcalloc(cfg->nsources + 1, sizeof(*s->unavailable));
	for (size_t i = 0; !rc && i < cfg->nsources; i++) {
		const struct source_cfg *src = &cfg->sources[i];
		bool poll = src->kind && strcmp(src->kind, "poll") == 0;
		bool kafka = src->kind && strcmp(src->kind, "kafka") == 0;
		bool files = src->kind && strcmp(src->kind, "files") == 0;
		struct wh *c;

		/* one consumer per slot, whichever of its sources names it first */
		if (!poll && !kafka && !files && !pgcdc_first_of_slot(cfg, i))
			continue;
		rc = wh_connect(s->w, &c, err);
		if (rc)
			break;
		rc = poll    ? start_poller(s, src, c, err)
		     : kafka ? start_kafka(s, src, c, err)
		     : files ? start_lander(s, src, c, err)
			     : start_consumer(s, src, c, err);
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
	for (size_t i = 0; i < s->nkafkas; i++)
		kafka_thread_stop(s->kafkas[i]);
	for (size_t i = 0; i < s->nlanders; i++)
		files_thread_stop(s->landers[i]);
}

static void free_source_threads(struct server *s)
{
	for (size_t i = 0; i < s->npollers; i++)
		poller_free(s->pollers[i]);
	for (size_t i = 0; i < s->nconsumers; i++)
		pgcdc_thread_free(s->consumers[i]);
	for (size_t i = 0; i < s->nkafkas; i++)
		kafka_thread_free(s->kafkas[i]);
	for (size_t i = 0; i < s->nlanders; i++)
		files_thread_free(s->landers[i]);
	free(s->landers);
	s->landers = NULL;
	s->nlanders = 0;
	free(s->pollers);
	free(s->consumers);
	free(s->kafkas);
	s->kafkas = NULL;
	s->nkafkas = 0;
	free(s->unavailable);
	s->unavailable = NULL;
	s->nunavailable = 0;
	s->pollers = NULL;
	s->consumers = NULL;
	s->npollers = s->nconsumers = 0;
}

/* The pollers under "pollers", the Kafka consumers under "kafka", the
 * files sources' landers under "files" and the slots under "cdc" when
 * there are, and
 * the sources that cannot start under "unavailable" when there are. */
static void source_threads_status(struct server *s, json_t *doc)
{
	json_t *pollers = json_array(), *slots = json_array(), *down = server_unavailable_sources(s);

	if (json_array_size(down))
		json_object_set_new(doc, "unavailable", down);
	else
		json_decref(down);

	for (size_t i = 0; i < s->npollers; i++)
		json_array_append_new(pollers, poller_status(s->pollers[i]));
	for (size_t i = 0; i < s->nconsumers; i++)
		json_array_append_new(slots, pgcdc_thread_status(s->consumers[i]));
	json_object_set_new(doc, "pollers", pollers);
	if (s->nkafkas) {
		json_t *kafkas = json_array();

		for (size_t i = 0; i < s->nkafkas; i++)
			json_array_append_new(kafkas, kafka_thread_status(s->kafkas[i]));
		json_object_set_new(doc, "kafka", kafkas);
	}
	if (s->nlanders) {
		json_t *landers = json_array();

		for (size_t i = 0; i < s->nlanders; i++)
			json_array_append_new(landers, files_thread_status(s->landers[i]));
		json_object_set_new(doc, "files", landers);
	}
	if (s->nconsumers)
		json_object_set_new(doc, "cdc", slots);
	else
		json_decref(slots);
}
/* On the status thread, which keeps one connection for its builds. */
static json_t *status_build(void *ctx, struct sl_err *err)
{
	struct server *s = ctx;
	json_t *doc;

	if (!s->status_conn && wh_connect(s->w, &s->status_conn, err))
		return NULL;
	if (live_status_doc(s->a, s->p, s->status_conn, &doc, err)) {
		/* a connection that failed may be broken: the next build
		 * opens another */
		wh_close(s->status_conn);
		s->status_conn = NULL;
		return NULL;
	}
	source_threads_status(s, doc);
	return doc;
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

static void log_started(struct server *s, int port)
{
	FILE *log = s->opts->log;

	fprintf(log, "sluice serve: %s on http://127.0.0.1:%d (live runner %s",
		s->p->cfg.name ? s->p->cfg.name : "", port, s->live ? "on" : "off");
	if (s->npollers)
		fprintf(log, ", %zu poller%s", s->npollers, s->npollers == 1 ? "" : "s");
	if (s->nconsumers)
		fprintf(log, ", %zu postgres_cdc slot%s", s->nconsumers,
			s->nconsumers == 1 ? "" : "s");
	fprintf(log, ")\n");
	fflush(log);
}

/* A random epoch for the events' ids, so that an id a client kept from
 * the server before this one is not taken for one of this one's. */
static uint32_t event_epoch(void)
{
	uint32_t epoch;

	if (RAND_bytes((unsigned char *)&epoch, sizeof(epoch)) != 1)
		epoch = (uint32_t)time(NULL) ^ (uint32_t)getpid();
	return epoch;
}

/* Whatever of the server started, in the order that answers every
 * accepted call; then the first connection (w) too. */
static void stop_parts(struct server *s, struct http_server *http)
{
	/* accepted batches commit and are answered before the front door closes */
	stop_source_threads(s);
	if (s->ingest)
		server_ingest_close(s->ingest);
	if (s->writer)
		ingest_writer_stop(s->writer);
	/* control calls still queued may start the runner: they go first */
	if (s->control)
		worker_queue_stop(s->control);
	server_live_stop(s);
	server_watchers_close(s);
	if (http)
		http_server_stop(http);
	/* no call comes in any more; the status thread still uses w and p */
	if (s->reader)
		server_reader_stop(s->reader);
	history_stop(s->history);
	if (s->status)
		status_doc_stop(s->status);
	win_doc_stop(s->windows);
	dag_doc_free(s->dag);
	if (s->status_conn)
		wh_close(s->status_conn);
	free_source_threads(s);
	if (s->state_file[0])
		unlink(s->state_file);
	if (s->ingest)
		server_ingest_free(s->ingest);
	event_log_free(s->events);
	session_store_free(s->sessions);
	pthread_rwlock_destroy(&s->lock);
	pthread_mutex_destroy(&s->watch_mu);
	if (s->folder_lock >= 0)
		close(s->folder_lock);
	arena_free(s->a);
	wh_close(s->w);
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
		.advanced = server_advanced,
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
	s.events = event_log_new(event_epoch(), 0, 0);
	guard_token_init(&s.token, hc.token);
	s.sessions = session_store_new(NULL);
	hc.sessions = s.sessions;
	s.dag = dag_doc_new();
	rc = hold_folder(&s, err);
	if (!rc)
		rc = state_ensure(w, err);
	if (!rc)
		rc = live_sources_ensure(w, s.a, p, err);
	/* before anything that emits events: each one touches the status */
	if (!rc)
		rc = worker_queue_start(&s.control, "server control", err);
	if (!rc)
		rc = server_reader_start(w, &s.reader, err);
	if (!rc)
		rc = win_doc_start(w, p, &s.windows, err);
	if (!rc)
		rc = status_doc_start(status_build, &s, STATUS_MAX_AGE_MS, &s.status, err);
	if (!rc)
		rc = history_start(w, &s.history, err);
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
		rc = server_live_start(&s, err);
	if (!rc)
		rc = http_server_start(&hc, server_route, &s, &http, err);
	if (!rc)
		rc = write_state_file(&s, http_server_port(http), err);
	if (!rc && opts->log)
		log_started(&s, http_server_port(http));
	for (;;) {
		/* the start, the runner, a reader or a route met the failure */
		if (wh_suspect(w, err))
			warehouse_failed(&s, err);
		if (rc || *opts->stop)
			break;
		nanosleep(&(struct timespec){ 0, 50000000L }, NULL);
	}
	stop_parts(&s, http);
	if (!rc && opts->log)
		fprintf(opts->log, "sluice serve: stopped\n");
	return rc;
}
