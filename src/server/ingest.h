/*
 * The webhook route: POST /api/ingest/webhook/NAME. Checks the source and
 * its signature, parses the body into rows on the HTTP thread, queues them
 * on the landing writer and answers when their batch is durable (202 with
 * the sequence), or at once when the request is refused (400, 401, 404,
 * 405, 409, 503). A refused request lands nothing, and so does a copy of a
 * signed request that landed before (200 with the first one's answer).
 */
#ifndef SL_SERVER_INGEST_H
#define SL_SERVER_INGEST_H

#include <stddef.h>

struct http_call;
struct ingest_writer;
struct project;
struct server_ingest;
struct sl_err;

/* Reads each webhook source's secret from the environment variable its
 * secret_env names: a source whose variable is unset refuses every request
 * (503, naming it), so a source meant to be signed is never open, and the
 * others are served. With a signed source, the replay memory starts
 * here: a signed request stamped before now is refused from now on. */
int server_ingest_open(const struct project *p, struct server_ingest **out, struct sl_err *err);
void server_ingest_attach(struct server_ingest *si, struct ingest_writer *writer);
void server_ingest_webhook(struct server_ingest *si, struct http_call *c, const char *source);
/* From now on requests are answered 503; the writer still answers those it
 * accepted. */
/* The webhook sources that refuse every request, because what they need
 * from the environment is not set (a secret_env): up to max of their
 * names, and why, owned by si; returns how many. */
size_t server_ingest_unavailable(const struct server_ingest *si, const char **names,
				 const char **whys, size_t max);
void server_ingest_close(struct server_ingest *si);
void server_ingest_free(struct server_ingest *si);

#endif
