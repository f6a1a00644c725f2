/*
 * This file implements ingest_submit_wait: a submission whose caller
 * sleeps until the writer answers it, for the senders that land one
 * batch at a time (the consumers of Kafka, files, CDC and polls). It only
 * waits: the writer (writer.c) lands and answers.
 */
#include "ingest/writer.h"

#include <pthread.h>
#include <stdbool.h>

struct waiter {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done;
	struct ingest_result *res;
};

static void wake(void *ctx, const struct ingest_result *res)
{
	struct waiter *wt = ctx;

	pthread_mutex_lock(&wt->mu);
	*wt->res = *res;
	wt->done = true;
	pthread_cond_signal(&wt->cv);
	pthread_mutex_unlock(&wt->mu);
}

int ingest_submit_wait(struct ingest_writer *wr, const struct ingest_batch *b,
		       struct ingest_result *res, struct sl_err *err)
{
	struct waiter wt = { .res = res };
	int rc;

	pthread_mutex_init(&wt.mu, NULL);
	pthread_cond_init(&wt.cv, NULL);
	rc = ingest_submit(wr, b, wake, &wt, err);
	pthread_mutex_lock(&wt.mu);
	while (!rc && !wt.done)
		pthread_cond_wait(&wt.cv, &wt.mu);
	pthread_mutex_unlock(&wt.mu);
	pthread_cond_destroy(&wt.cv);
	pthread_mutex_destroy(&wt.mu);
	return rc;
}
