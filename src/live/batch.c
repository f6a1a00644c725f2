/*
 * The batch run with what it needs from the live layer. A plan or a test
 * writes nothing, so it reads the bookkeeping only where a run has left
 * some.
 */
#include "live/batch.h"

#include "core/err.h"
#include "live/advance.h"
#include "live/watermark.h"
#include "project/dag.h"
#include "state/state.h"

#include <stdbool.h>

int live_batch_run(struct arena *a, struct project *p, struct wh *w, const char *const *relations,
		   size_t nrelations, const struct run_opts *opts, struct run_report *report,
		   struct sl_err *err)
{
	struct run_opts o = *opts;
	struct live_books books = { 0 };
	bool writes = !opts->dry_run && !opts->test;
	int rc = 0;

	if (writes && !opts->state_ready) {
		rc = state_ensure(w, err);
		if (!rc)
			rc = live_sources_ensure(w, a, p, err);
		o.state_ready = true;
	}
	if (!rc && w &&
	    (writes || dag_relation_exists(relations, nrelations, STATE_LIVE_TABLE)))
		rc = live_books_open(&books, a, p, opts->env, w, err);
	o.book = live_books_hooks(&books);
	if (!rc)
		rc = build_run(a, p, w, relations, nrelations, &o, report, err);
	live_books_close(&books);
	return rc;
}
