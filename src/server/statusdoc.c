/*
 * The status document's cache and its builder thread. The text is kept
 * encoded: answering from it is a copy, never a walk of the JSON.
 */
#include "server/statusdoc.h"

#include "core/err.h"
#include "core/units.h"
#include "core/worker.h"
#include "core/xalloc.h"
#include "server/http.h"

#include <stdlib.h>
#include <string.h>

struct waiter {
	struct http_call *call;
	struct waiter *next;
};

struct status_doc {
	struct worker wk;
	status_build_fn build;
	void *ctx;
	int64_t max_age_ms;
	char *text;        /* the last document built, or NULL */
	size_t len;
	int64_t built_ms;  /* when its build started (monotonic) */
	bool changed;      /* since that build started */
	struct waiter *waiting;
};

static void answer_all(struct waiter *w, const char *text, size_t len,
		       const struct sl_err *err)
{
	while (w) {
		struct waiter *next = w->next;

		if (text) {
			http_reply(w->call, 200, "application/json", text, len);
		} else if (err->code == SL_E_CONN) {
			/* the warehouse is being reached again: ask again shortly */
			http_call_add_header(w->call, "Retry-After", "1");
			http_reply_error(w->call, 503, sl_code_text(err->code), err->msg);
		} else {
			http_reply_error(w->call, 500, sl_code_text(err->code), err->msg);
		}
		free(w);
		w = next;
	}
}

static void *run(void *arg)
{
	struct status_doc *d = arg;

	pthread_mutex_lock(&d->wk.mu);
	for (;;) {
		struct sl_err err = SL_ERR_INIT;
		struct waiter *w;
		json_t *doc;
		char *text;
		int64_t started;

		while (!d->waiting && !d->wk.stop)
			pthread_cond_wait(&d->wk.cv, &d->wk.mu);
		if (!d->waiting)
			break;
		/* a build answers every request that came before it started:
		 * what came later waits for the next one */
		w = d->waiting;
		d->waiting = NULL;
		d->changed = false;
		started = units_mono_ms();
		pthread_mutex_unlock(&d->wk.mu);
		doc = d->build(d->ctx, &err);
		text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
		json_decref(doc);
		if (doc && !text)
			sl_err_set(&err, SL_E_INTERNAL, "the status could not be encoded as JSON");
		answer_all(w, text, text ? strlen(text) : 0, &err);
		pthread_mutex_lock(&d->wk.mu);
		if (text) {
			free(d->text);
			d->text = text;
			d->len = strlen(text);
			d->built_ms = started;
		}
	}
	pthread_mutex_unlock(&d->wk.mu);
	return NULL;
}

int status_doc_start(status_build_fn build, void *ctx, int64_t max_age_ms,
		     struct status_doc **out, struct sl_err *err)
{
	struct status_doc *d = xcalloc(1, sizeof(*d));

	d->build = build;
	d->ctx = ctx;
	d->max_age_ms = max_age_ms;
	if (worker_start(&d->wk, run, d, "status", err)) {
		free(d);
		return err ? err->code : SL_E_INTERNAL;
	}
	*out = d;
	return 0;
}

void status_doc_answer(struct status_doc *d, struct http_call *c)
{
	struct waiter *w;

	pthread_mutex_lock(&d->wk.mu);
	/* http_reply copies the text and takes only the HTTP server's lock,
	 * which nobody holds while waiting for this one */
	if (d->text && !d->changed && units_mono_ms() - d->built_ms <= d->max_age_ms) {
		http_reply(c, 200, "application/json", d->text, d->len);
	} else {
		w = xmalloc(sizeof(*w));
		*w = (struct waiter){ .call = c, .next = d->waiting };
		d->waiting = w;
		pthread_cond_signal(&d->wk.cv);
	}
	pthread_mutex_unlock(&d->wk.mu);
}

void status_doc_touch(struct status_doc *d)
{
	pthread_mutex_lock(&d->wk.mu);
	d->changed = true;
	pthread_mutex_unlock(&d->wk.mu);
}

void status_doc_stop(struct status_doc *d)
{
	/* the loop builds once more for whoever still waits */
	worker_stop(&d->wk);
	worker_destroy(&d->wk);
	free(d->text);
	free(d);
}
