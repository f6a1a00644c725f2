/*
 * This file implements a files source's lander thread (thread.h): a look
 * every interval, a backoff while looks fail, and the status the server
 * lists.
 */
#include "files/thread.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "files/lander.h"
#include "ingest/status_time.h"
#include "project/config.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

/* The backoff while looks fail: doubling from the first, up to the last. */
#define BACKOFF_FIRST_MS 1000
#define BACKOFF_MAX_MS 30000
/* How often a lander whose warehouse connection is lost tries it. */
#define RECONNECT_MS 100

struct files_thread {
	const struct source_cfg *src;
	struct arena *a; /* a look's, reset after each */
	struct files_lander *l;
	struct wh *r;
	struct ingest_writer *wr;
	FILE *log;
	bool running;

	struct worker wk; /* its mu guards everything below */
	int64_t files, rows, waiting;
	int64_t last_ok_ms, last_error_ms; /* wall clock; 0: never */
	char last_error[512], last_file[512];
	int failed_looks;  /* in a row */
	int failed_files;  /* since a file last landed */
	bool looked; /* a look went through */
};

static int64_t backoff_ms(int failures)
{
	int64_t wait = BACKOFF_FIRST_MS;

	for (int i = 1; i < failures && wait < BACKOFF_MAX_MS; i++)
		wait *= 2;
	return wait < BACKOFF_MAX_MS ? wait : BACKOFF_MAX_MS;
}

static void set_error(struct files_thread *t, const char *msg)
{
	t->last_error_ms = units_now_ms();
	snprintf(t->last_error, sizeof(t->last_error), "%.*s", (int)sizeof(t->last_error) - 1, msg);
}

/* One look's outcome into the status and the log, under mu. */
static void record(struct files_thread *t, int rc, const struct files_result *res,
		   const struct sl_err *err)
{
	if (rc) {
		t->failed_looks++;
		set_error(t, err->msg);
		return;
	}
	t->looked = true;
	t->failed_looks = 0;
	t->last_ok_ms = units_now_ms();
	if (res->files)
		t->failed_files = 0;
	t->failed_files += (int)res->failed;
	t->files += res->files;
	t->rows += res->rows;
	t->waiting = res->waiting;
	if (res->last)
		snprintf(t->last_file, sizeof(t->last_file), "%s", res->last);
	for (size_t i = 0; i < res->n; i++) {
		const struct files_event *ev = &res->events[i];

		if (ev->what == FILES_OUT_FAILED)
			set_error(t, ev->detail);
		if (t->log && ev->what != FILES_OUT_WAITING)
			fprintf(t->log, "sluice serve: %s\n", files_event_text(t->a, t->src->name, ev));
	}
	if (t->log)
		fflush(t->log);
}

static void *run(void *arg)
{
	struct files_thread *t = arg;

	pthread_mutex_lock(&t->wk.mu);
	while (!t->wk.stop) {
		struct sl_err err = SL_ERR_INIT;
		struct files_result res;
		int rc;

		/* a lost warehouse connection is opened again before a look */
		if (wh_lost(t->r)) {
			pthread_mutex_unlock(&t->wk.mu);
			wh_reconnect(t->r, NULL);
			pthread_mutex_lock(&t->wk.mu);
			if (wh_lost(t->r))
				worker_wait_until(&t->wk, units_mono_ms() + RECONNECT_MS);
			continue;
		}
		pthread_mutex_unlock(&t->wk.mu);
		rc = files_land(t->l, t->a, t->r, t->wr, &res, &err);
		if (t->log && rc && rc != SL_E_BUSY)
			fprintf(t->log, "sluice serve: files %s failed: %s\n", t->src->name, err.msg);
		pthread_mutex_lock(&t->wk.mu);
		if (rc == SL_E_BUSY && t->wk.stop)
			break;
		record(t, rc, &res, &err);
		arena_reset(t->a);
		worker_wait_until(&t->wk, units_mono_ms() +
						  (rc ? backoff_ms(t->failed_looks)
						   : res.waiting && res.wait_ms < t->src->interval_ms
							   ? res.wait_ms
							   : t->src->interval_ms));
	}
	pthread_mutex_unlock(&t->wk.mu);
	return NULL;
}

int files_thread_start(struct arena *parent, const struct source_cfg *src, const char *root,
		       struct wh *r, struct ingest_writer *wr, FILE *log,
		       struct files_thread **out, struct sl_err *err)
{
	struct files_thread *t = xcalloc(1, sizeof(*t));
	int rc = files_lander_new(parent, src, root, &t->l, err);

	if (rc) {
		free(t);
		return rc;
	}
	t->src = src;
	t->a = arena_new(parent);
	t->r = r;
	t->wr = wr;
	t->log = log;
	worker_init(&t->wk);
	if (worker_run(&t->wk, run, t, "files", NULL)) {
		files_lander_free(t->l);
		arena_free(t->a);
		worker_destroy(&t->wk);
		free(t);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the lander of '%s'", src->name);
	}
	t->running = true;
	*out = t;
	return 0;
}

void files_thread_stop(struct files_thread *t)
{
	if (!t->running)
		return;
	files_lander_cancel(t->l);
	worker_stop(&t->wk);
	t->running = false;
	pthread_mutex_lock(&t->wk.mu);
	wh_close(t->r);
	t->r = NULL;
	pthread_mutex_unlock(&t->wk.mu);
}

void files_thread_free(struct files_thread *t)
{
	if (!t)
		return;
	files_thread_stop(t);
	files_lander_free(t->l);
	arena_free(t->a);
	worker_destroy(&t->wk);
	free(t);
}

json_t *files_thread_status(struct files_thread *t)
{
	json_t *o = json_object();

	pthread_mutex_lock(&t->wk.mu);
	json_object_set_new(o, "source", json_string(t->src->name));
	json_object_set_new(o, "path", json_string(t->src->path));
	json_object_set_new(o, "state", json_string(t->failed_looks || t->failed_files ? "failing"
						     : t->looked  ? "ok"
								  : "new"));
	json_object_set_new(o, "files", json_integer(t->files));
	json_object_set_new(o, "rows", json_integer(t->rows));
	json_object_set_new(o, "waiting", json_integer(t->waiting));
	json_object_set_new(o, "last_file", *t->last_file ? json_string(t->last_file) : json_null());
	json_object_set_new(o, "last_ok", ingest_status_time(t->last_ok_ms));
	json_object_set_new(o, "last_error",
			    t->last_error_ms ? json_string(t->last_error) : json_null());
	json_object_set_new(o, "last_error_at", ingest_status_time(t->last_error_ms));
	json_object_set_new(o, "failures", json_integer(t->failed_looks + t->failed_files));
	pthread_mutex_unlock(&t->wk.mu);
	return o;
}

bool files_thread_down(struct files_thread *t)
{
	bool down;

	pthread_mutex_lock(&t->wk.mu);
	down = t->r && wh_lost(t->r);
	pthread_mutex_unlock(&t->wk.mu);
	return down;
}
