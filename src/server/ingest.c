/*
 * The webhook route. Everything that can refuse a request happens before
 * it is queued, on the HTTP thread; what is queued only fails when the
 * warehouse does.
 */
#include "server/ingest.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "ingest/seen.h"
#include "ingest/webhook.h"
#include "ingest/writer.h"
#include "project/project.h"
#include "server/http.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct hook {
	const struct source_cfg *src;
	char fqn[256];
	const char *secret;       /* NULL: unsigned */
	char *missing;            /* why it cannot take requests (NULL: it can) */
	const char **names;       /* its typed columns, then payload */
};

/* A delivery id is kept for a day per request: a sender's retry key, not
 * a place for data. */
#define DELIVERY_MAX 256

struct server_ingest {
	struct hook *hooks;
	size_t n;
	const char **hook_names;  /* for suggestions */
	struct ingest_writer *writer;
	struct seen *seen;      /* NULL: no signed source */
	atomic_bool closed;
};

/* One queued request, in the call's arena with its rows: both go with the
 * call once it is answered. */
struct pending_call {
	struct http_call *call;
	struct ingest_batch batch;
	struct seen *seen;      /* set while it holds a claim: settle it */
	uint32_t ticket;
};

/* Signed requests remembered at once: with the 300 s tolerance, a steady
 * 870 a second; about 20 MiB. */
#define SEEN_CAPACITY 262144

int server_ingest_open(const struct project *p, struct server_ingest **out, struct sl_err *err)
{
	struct server_ingest *si = xcalloc(1, sizeof(*si));
	const struct project_cfg *cfg = &p->cfg;

	si->hooks = xcalloc(cfg->nsources + 1, sizeof(*si->hooks));
	si->hook_names = xcalloc(cfg->nsources + 1, sizeof(char *));
	for (size_t i = 0; i < cfg->nsources; i++) {
		const struct source_cfg *src = &cfg->sources[i];
		struct hook *h = &si->hooks[si->n];

		if (!src->kind || strcmp(src->kind, "webhook") != 0)
			continue;
		h->src = src;
		snprintf(h->fqn, sizeof(h->fqn), "landing.%s", src->name);
		/* a source whose secret is not there refuses its requests;
		 * the server serves the others */
		if (src->secret_env) {
			h->secret = getenv(src->secret_env);
			if (!h->secret || !*h->secret)
				h->missing = xasprintf("source '%s' is signed with the secret in "
						       "$%s, which is not set (hint: export "
						       "%s=... and start sluice serve again)",
						       src->name, src->secret_env, src->secret_env);
		}
		h->names = xcalloc(src->ncolumns + 2, sizeof(char *));
		for (size_t c = 0; c < src->ncolumns; c++)
			h->names[c] = src->columns[c].name;
		h->names[src->ncolumns] = "payload";
		si->hook_names[si->n++] = src->name;
	}
	for (size_t i = 0; i < si->n; i++) {
		int rc;

		if (!si->hooks[i].secret)
			continue;
		rc = seen_new(SEEN_CAPACITY, WEBHOOK_TOLERANCE_S, (int64_t)time(NULL), &si->seen,
			      err);
		if (rc) {
			server_ingest_free(si);
			return rc;
		}
		break;
	}
	*out = si;
	return 0;
}

void server_ingest_attach(struct server_ingest *si, struct ingest_writer *writer)
{
	si->writer = writer;
}

void server_ingest_close(struct server_ingest *si)
{
	atomic_store(&si->closed, true);
}

void server_ingest_free(struct server_ingest *si)
{
	if (!si)
		return;
	for (size_t i = 0; i < si->n; i++) {
		free(si->hooks[i].names);
		free(si->hooks[i].missing);
	}
	free(si->hooks);
	free(si->hook_names);
	seen_free(si->seen);
	free(si);
}

size_t server_ingest_unavailable(const struct server_ingest *si, const char **names,
				 const char **whys, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < si->n && k < max; i++)
		if (si->hooks[i].missing) {
			names[k] = si->hooks[i].src->name;
			whys[k++] = si->hooks[i].missing;
		}
	return k;
}

static const struct hook *find(struct server_ingest *si, struct http_call *c, const char *name)
{
	const char *near;
	char detail[512];

	for (size_t i = 0; i < si->n; i++)
		if (strcmp(si->hooks[i].src->name, name) == 0)
			return &si->hooks[i];
	near = suggest_nearest(name, si->hook_names);
	snprintf(detail, sizeof(detail), "no webhook source '%s' in sluice.yml%s%s%s", name,
		 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	http_reply_error(c, 404, "unknown source", detail);
	return NULL;
}

static void answered(void *ctx, const struct ingest_result *res)
{
	struct pending_call *pc = ctx;

	/* before the answer: a copy sent on hearing it must find it settled */
	if (pc->seen && res->code)
		seen_settle_failed(pc->seen, pc->ticket);
	else if (pc->seen)
		seen_settle_landed(pc->seen, pc->ticket, res->seq, res->rows);
	if (res->code) {
		bool again = !res->bad_input && (res->code == SL_E_BUSY || res->code == SL_E_CONN);

		/* not landed, and a retry may land it: the warehouse was busy
		 * or its connection lost, and is being opened again */
		if (again)
			http_call_add_header(pc->call, "Retry-After", "1");
		http_reply_error(pc->call, res->bad_input ? 400 : again ? 503 : 500,
				 res->bad_input ? "rows refused" : "not landed", res->error);
	} else {
		json_t *o = json_object();

		json_object_set_new(o, "seq", json_integer(res->seq));
		json_object_set_new(o, "rows", json_integer(res->rows));
		if (res->duplicate)
			json_object_set_new(o, "duplicate", json_true());
		http_reply_json(pc->call, res->duplicate ? 200 : 202, o);
	}
}

/* now_s: when the signature was checked, which the replay memory's
 * expiry must agree with */
static bool signed_ok(const struct hook *h, struct http_call *c, const char *body, size_t len,
		      int64_t now_s, struct webhook_signature *sig)
{
	struct sl_err err = SL_ERR_INIT;

	if (!h->secret)
		return true;
	if (webhook_verify_signature(h->secret, http_call_header(c, WEBHOOK_TIMESTAMP_HEADER),
				     http_call_header(c, WEBHOOK_SIGNATURE_HEADER), body, len, now_s,
				     sig, &err) == 0)
		return true;
	http_reply_error(c, 401, "bad signature", err.msg);
	return false;
}

/* NULL when the request's delivery id (if any) can be kept, else why not. */
static const char *delivery_refusal(const char *id)
{
	size_t len = id ? strlen(id) : 0;

	if (!id)
		return NULL;
	if (!len || len > DELIVERY_MAX)
		return "X-Sluice-Delivery must be 1 to 256 bytes";
	if (!utf8_valid(id, len))
		return "X-Sluice-Delivery is not valid UTF-8";
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)id[i] < 0x20 || id[i] == 0x7f)
			return "X-Sluice-Delivery has a control character";
	return NULL;
}

/* Claims a signed request in the replay memory just before it is queued,
 * so that no refusal before needs to give the claim back. A copy of one
 * already accepted is answered here and lands nothing. */
static bool claimed(struct server_ingest *si, const struct hook *h, struct http_call *c,
		    const struct webhook_signature *sig, int64_t now_s, struct pending_call *pc)
{
	struct sl_err err = SL_ERR_INIT;
	struct seen_claim cl;
	json_t *o;

	if (!h->secret)
		return true;
	if (seen_claim(si->seen, (uint32_t)(h - si->hooks), sig->mac, sig->ts, now_s, &cl,
		       &err)) {
		http_call_add_header(c, "Retry-After", "1");
		http_reply_error(c, 503, "busy", err.msg);
		return false;
	}
	switch (cl.state) {
	case SEEN_FRESH:
		pc->seen = si->seen;
		pc->ticket = cl.ticket;
		return true;
	case SEEN_IN_FLIGHT:
		http_call_add_header(c, "Retry-After", "1");
		http_reply_error(c, 409, "in flight",
				 "the same signed request is being landed; send it again for its "
				 "answer");
		return false;
	case SEEN_LANDED:
		o = json_object();
		json_object_set_new(o, "seq", json_integer(cl.seq));
		json_object_set_new(o, "rows", json_integer(cl.rows));
		json_object_set_new(o, "duplicate", json_true());
		http_reply_json(c, 200, o);
		return false;
	case SEEN_TOO_OLD:
		break;
	}
	http_reply_error(c, 401, "bad signature",
			 "the timestamp is older than the server's replay memory; sign the request "
			 "again");
	return false;
}

void server_ingest_webhook(struct server_ingest *si, struct http_call *c, const char *source)
{
	const char *type = http_call_header(c, "Content-Type"), *body, *refusal;
	int64_t now_s = (int64_t)time(NULL);
	struct sl_err err = SL_ERR_INIT;
	struct webhook_signature sig;
	struct webhook_rows rows;
	struct pending_call *pc;
	const struct hook *h;
	struct arena *a;
	size_t len;

	if (strcmp(http_call_method(c), "POST") != 0) {
		http_call_add_header(c, "Allow", "POST");
		http_reply_error(c, 405, "method not allowed", "use POST");
		return;
	}
	if (!(h = find(si, c, source)))
		return;
	if ((refusal = delivery_refusal(http_call_header(c, "X-Sluice-Delivery")))) {
		http_reply_error(c, 400, "bad request", refusal);
		return;
	}
	if (h->missing) {
		http_reply_error(c, 503, "source unavailable", h->missing);
		return;
	}
	body = http_call_body(c, &len);
	if (!signed_ok(h, c, body, len, now_s, &sig))
		return;
	if (atomic_load(&si->closed)) {
		http_call_add_header(c, "Retry-After", "1");
		http_reply_error(c, 503, "stopping", "the server is stopping");
		return;
	}
	a = http_call_arena(c);
	pc = arena_alloc(a, sizeof(*pc));
	pc->call = c;
	if (webhook_parse(a, h->src, body, len,
			  type && strncasecmp(type, "application/x-ndjson", 20) == 0, &rows, &err)) {
		http_reply_error(c, err.code == SL_E_CONFIG ? 500 : 400,
				 err.code == SL_E_CONFIG ? "bad source" : "bad request", err.msg);
		return;
	}
	/* nothing to land takes no sequence and no commit: the same answer
	 * for an empty body, blank lines and [] */
	if (!rows.nrows) {
		http_reply_json(c, 200, json_pack("{s:i}", "rows", 0));
		return;
	}
	pc->batch = (struct ingest_batch){
		.source = h->fqn,
		.names = h->names,
		.ncols = rows.ncols,
		.nrows = rows.nrows,
		.cells = rows.cells,
		.delivery = http_call_header(c, "X-Sluice-Delivery"),
	};
	if (pc->batch.delivery)
		pc->batch.delivery = arena_strdup(a, pc->batch.delivery);
	if (!claimed(si, h, c, &sig, now_s, pc))
		return;
	if (ingest_submit(si->writer, &pc->batch, answered, pc, &err)) {
		if (pc->seen)
			seen_settle_failed(pc->seen, pc->ticket);
		http_call_add_header(c, "Retry-After", "1");
		http_reply_error(c, 503, err.code == SL_E_CONN ? "warehouse unreachable" : "busy",
				 err.msg);
	}
}
