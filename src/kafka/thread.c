/*
 * This file implements a Kafka source's consumer thread (thread.h): the
 * source's lock taken, or a stand-by until it is free; one landing after
 * another, a short rest when one landed nothing, a backoff while they
 * fail, and the status the server lists.
 */
#include "kafka/thread.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "ingest/status_time.h"
#include "kafka/consumer.h"
#include "project/config.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

/* The rest after a landing that found nothing new. */
#define IDLE_MS 250
/* The backoff while landings fail: doubling from the first, up to the
 * last. */
#define BACKOFF_FIRST_MS 1000
#define BACKOFF_MAX_MS 30000
/* How often a consumer whose warehouse connection is lost tries it. */
#define RECONNECT_MS 100
/* How often a consumer standing by tries the source's lock: how soon it
 * takes over from one that died. */
#define STANDBY_MS 1000

struct kafka_thread {
	const struct source_cfg *src;
	struct kafka_consumer *c;
	struct wh *r;
	struct ingest_writer *wr;
	FILE *log;
	bool running;

	struct worker wk; /* its mu guards everything below */
	int64_t batches, messages;
	int64_t last_ok_ms, last_error_ms; /* wall clock; 0: never */
	char last_error[512], offsets[512];
	int failures;
	bool landed; /* a landing went through */
	bool standby; /* another process holds the source's lock */
};

static int64_t backoff_ms(int failures)
{
	int64_t wait = BACKOFF_FIRST_MS;

	for (int i = 1; i < failures && wait < BACKOFF_MAX_MS; i++)
		wait *= 2;
	return wait < BACKOFF_MAX_MS ? wait : BACKOFF_MAX_MS;
}

/* One landing's outcome into the status, under mu. */
static void record(struct kafka_thread *t, int rc, const struct kafka_result *res,
		   const struct sl_err *err)
{
	if (rc) {
		t->failures++;
		t->last_error_ms = units_now_ms();
		snprintf(t->last_error, sizeof(t->last_error), "%.*s", (int)sizeof(t->last_error) - 1,
			 err->msg);
		return;
	}
	t->failures = 0;
	t->landed = true;
	t->last_ok_ms = units_now_ms();
	t->messages += res->messages;
	t->batches += res->batches;
	snprintf(t->offsets, sizeof(t->offsets), "%s", res->offsets);
}

/* Whether the thread holds the source's lock, taking it when free; a
 * failure to ask is recorded as a landing's would be. Under mu. */
static bool holds_lock(struct kafka_thread *t)
{
	struct sl_err err = SL_ERR_INIT;
	bool got = false;
	int rc;

	if (kafka_consumer_locked(t->c, t->r))
		return true;
	pthread_mutex_unlock(&t->wk.mu);
	rc = kafka_consumer_lock(t->c, t->r, &got, &err);
	pthread_mutex_lock(&t->wk.mu);
	if (rc) {
		record(t, rc, NULL, &err);
		return false;
	}
	if (got && t->standby && t->log)
		fprintf(t->log, "sluice serve: kafka %s: taking over from the process that "
				"consumed it\n",
			t->src->name);
	t->standby = !got;
	return got;
}

static void *run(void *arg)
{
	struct kafka_thread *t = arg;

	pthread_mutex_lock(&t->wk.mu);
	while (!t->wk.stop) {
		struct sl_err err = SL_ERR_INIT;
		struct kafka_result res;
		int failures = t->failures, rc;

		/* a lost warehouse connection is opened again before landing */
		if (wh_lost(t->r)) {
			pthread_mutex_unlock(&t->wk.mu);
			wh_reconnect(t->r, NULL);
			pthread_mutex_lock(&t->wk.mu);
			if (wh_lost(t->r))
				worker_wait_until(&t->wk, units_mono_ms() + RECONNECT_MS);
			continue;
		}
		if (!holds_lock(t)) {
			worker_wait_until(&t->wk, units_mono_ms() + (t->standby ? STANDBY_MS
									  : backoff_ms(t->failures)));
			continue;
		}
		pthread_mutex_unlock(&t->wk.mu);
		rc = kafka_land(t->c, t->r, t->wr, &res, &err);
		if (t->log && rc && rc != SL_E_BUSY)
			fprintf(t->log, "sluice serve: kafka %s failed: %s\n", t->src->name, err.msg);
		else if (t->log && !rc && failures)
			fprintf(t->log, "sluice serve: kafka %s recovered\n", t->src->name);
		if (t->log)
			fflush(t->log);
		pthread_mutex_lock(&t->wk.mu);
		if (rc == SL_E_BUSY && t->wk.stop)
			break;
		record(t, rc, &res, &err);
		if (rc)
			worker_wait_until(&t->wk, units_mono_ms() + backoff_ms(t->failures));
		else if (!res.messages)
			worker_wait_until(&t->wk, units_mono_ms() + IDLE_MS);
	}
	pthread_mutex_unlock(&t->wk.mu);
	return NULL;
}

int kafka_thread_start(struct arena *parent, const struct source_cfg *src, struct wh *r,
		       struct ingest_writer *wr, int64_t batch_rows, FILE *log,
		       struct kafka_thread **out, struct sl_err *err)
{
	struct kafka_thread *t = xcalloc(1, sizeof(*t));
	int rc = kafka_consumer_new(parent, src, batch_rows, &t->c, err);

	if (rc) {
		free(t);
		return rc;
	}
	t->src = src;
	t->r = r;
	t->wr = wr;
	t->log = log;
	worker_init(&t->wk);
	if (worker_run(&t->wk, run, t, "kafka", NULL)) {
		kafka_consumer_free(t->c);
		worker_destroy(&t->wk);
		free(t);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the consumer of '%s'",
				  src->name);
	}
	t->running = true;
	*out = t;
	return 0;
}

void kafka_thread_stop(struct kafka_thread *t)
{
	if (!t->running)
		return;
	kafka_consumer_cancel(t->c);
	worker_stop(&t->wk);
	t->running = false;
	pthread_mutex_lock(&t->wk.mu);
	wh_close(t->r);
	t->r = NULL;
	pthread_mutex_unlock(&t->wk.mu);
}

void kafka_thread_free(struct kafka_thread *t)
{
	if (!t)
		return;
	kafka_thread_stop(t);
	kafka_consumer_free(t->c);
	worker_destroy(&t->wk);
	free(t);
}

json_t *kafka_thread_status(struct kafka_thread *t)
{
	json_t *o = json_object(), *topics = json_array();

	pthread_mutex_lock(&t->wk.mu);
	json_object_set_new(o, "source", json_string(t->src->name));
	for (size_t i = 0; i < t->src->ntopics; i++)
		json_array_append_new(topics, json_string(t->src->topics[i]));
	json_object_set_new(o, "topics", topics);
	json_object_set_new(o, "brokers", json_string(t->src->brokers));
	json_object_set_new(o, "state", json_string(t->standby	 ? "standby"
						     : t->failures ? "failing"
						     : t->landed   ? "ok"
								   : "new"));
	json_object_set_new(o, "standby", t->standby ? json_string("another process consumes "
								     "this source")
						     : json_null());
	json_object_set_new(o, "batches", json_integer(t->batches));
	json_object_set_new(o, "messages", json_integer(t->messages));
	json_object_set_new(o, "last_ok", ingest_status_time(t->last_ok_ms));
	json_object_set_new(o, "last_error",
			    t->last_error_ms ? json_string(t->last_error) : json_null());
	json_object_set_new(o, "last_error_at", ingest_status_time(t->last_error_ms));
	json_object_set_new(o, "failures", json_integer(t->failures));
	json_object_set_new(o, "offsets", t->landed ? json_string(t->offsets) : json_null());
	pthread_mutex_unlock(&t->wk.mu);
	return o;
}

bool kafka_thread_down(struct kafka_thread *t)
{
	bool down;

	pthread_mutex_lock(&t->wk.mu);
	down = t->r && wh_lost(t->r);
	pthread_mutex_unlock(&t->wk.mu);
	return down;
}
