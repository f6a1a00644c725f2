/*
 * A batch's commit on a thread of its own: the flush of its rows, its
 * bookkeeping, the gate and the warehouse's COMMIT (with whatever
 * checkpoint the warehouse makes of it) take as long as the stream takes
 * to decode the transactions that follow, and the stream goes on reading
 * meanwhile. One commit at a time; the warehouse connection is the
 * committer's from the submit until the caller has taken the result.
 */
#include "pgcdc/pgcdc_pg.h"

#include "core/err.h"
#include "pgcdc/pgcdc.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static void *run(void *arg)
{
	struct pgcdc_committer *k = arg;

	pthread_mutex_lock(&k->wk.mu);
	for (;;) {
		uint64_t one = 1;
		struct sl_err err = SL_ERR_INIT;
		bool done = false;
		int rc;

		while (!k->busy && !k->wk.stop)
			pthread_cond_wait(&k->wk.cv, &k->wk.mu);
		if (!k->busy)
			break;
		pthread_mutex_unlock(&k->wk.mu);
		rc = pgcdc_batch_commit(k->w, k->c, k->b, k->end_lsn, k->wait, &done, &err);
		pthread_mutex_lock(&k->wk.mu);
		k->rc = rc;
		k->done = done;
		k->err = err;
		/* seen ended before it is signalled: a poll woken by the signal
		 * always finds the result. Whoever takes it takes the signal
		 * too, as it takes the lock only once this has let go of it (a
		 * full counter is readable all the same). */
		k->busy = false;
		atomic_store(&k->ended, true);
		while (write(k->fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		pthread_cond_broadcast(&k->wk.cv);
	}
	pthread_mutex_unlock(&k->wk.mu);
	return NULL;
}

int pgcdc_committer_start(struct pgcdc_committer *k, struct sl_err *err)
{
	*k = (struct pgcdc_committer){ .fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC) };
	if (k->fd < 0)
		return sl_err_set(err, SL_E_IO, "cannot make the committer's signal: %s",
				  strerror(errno));
	if (worker_start(&k->wk, run, k, "cdc commit", err)) {
		close(k->fd);
		return err ? err->code : SL_E_INTERNAL;
	}
	return 0;
}

void pgcdc_committer_submit(struct pgcdc_committer *k, struct wh *w, const struct pgcdc_cfg *c,
			    struct pgcdc_batch *b, uint64_t end_lsn, bool wait)
{
	pthread_mutex_lock(&k->wk.mu);
	k->w = w;
	k->c = c;
	k->b = b;
	k->end_lsn = end_lsn;
	k->wait = wait;
	k->busy = true;
	atomic_store(&k->ended, false);
	pthread_cond_broadcast(&k->wk.cv);
	pthread_mutex_unlock(&k->wk.mu);
}

bool pgcdc_committer_ended(struct pgcdc_committer *k, bool block, int *rc, bool *done,
			   struct sl_err *err)
{
	uint64_t count;

	if (!block && !atomic_load(&k->ended))
		return false;
	pthread_mutex_lock(&k->wk.mu);
	while (k->busy)
		pthread_cond_wait(&k->wk.cv, &k->wk.mu);
	*rc = k->rc;
	*done = k->done;
	if (k->rc && err)
		*err = k->err;
	atomic_store(&k->ended, false);
	pthread_mutex_unlock(&k->wk.mu);
	while (read(k->fd, &count, sizeof(count)) < 0 && errno == EINTR)
		;
	return true;
}

void pgcdc_committer_stop(struct pgcdc_committer *k)
{
	/* a commit under way ends first: the loop only stops when idle */
	worker_stop(&k->wk);
	worker_destroy(&k->wk);
	close(k->fd);
}
