/*
 * One shared status document for every reader. The document takes several
 * warehouse reads to build; one thread builds it, at most once per max_age,
 * and only when somebody asks: a request that finds it fresher than that
 * is answered at once from it, and every request that finds it older waits
 * for the next build, which answers them all with one document. However
 * many ask at once, it costs one thread and one connection.
 */
#ifndef SL_SERVER_STATUSDOC_H
#define SL_SERVER_STATUSDOC_H

#include <jansson.h>
#include <stdint.h>

struct http_call;
struct sl_err;
struct status_doc;

/* Builds the document on the status thread; fills err and returns NULL
 * when it cannot. */
typedef json_t *(*status_build_fn)(void *ctx, struct sl_err *err);

int status_doc_start(status_build_fn build, void *ctx, int64_t max_age_ms,
		     struct status_doc **out, struct sl_err *err);
/* Something the document shows changed (a refresh, an advance): the next
 * request waits for a build instead of taking the kept one. */
void status_doc_touch(struct status_doc *d);
/* Answers c with the document, now or after the next build; never
 * blocks. */
void status_doc_answer(struct status_doc *d, struct http_call *c);
/* Answers what still waits, joins the thread and frees d; no answer may
 * be asked for afterwards. */
void status_doc_stop(struct status_doc *d);

#endif
