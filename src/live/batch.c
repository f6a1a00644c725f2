/*
 * The batch run with what it needs from the live layer. A plan or a test
 * writes nothing, so it reads the bookkeeping only where a run has left
 * some.
 */
#include "live/batch.h"

#include "core/arena.h"
#include "core/err.h"
#include "exec/anomaly.h"
#include "live/advance.h"
#include "live/alert.h"
#include "live/watermark.h"
#include "project/dag.h"
#include "state/profiles.h"
#include "state/state.h"

#include <stdbool.h>

/* A model_anomaly alert per anomaly of the run's profiles, in build
 * order; those that failed their build too. */
static void alert_anomalies(struct arena *a, const struct project *p,
			    const struct run_report *report, FILE *out)
{
	for (size_t i = 0; i < report->n; i++) {
		const struct state_profile *prof = report->items[i].profile;

		for (size_t k = 0; prof && k < prof->nanomalies; k++)
			live_alert_anomaly(p->cfg.alerts.command, p->root, out, prof->model,
					   prof->env, prof->run_id, &prof->anomalies[k],
					   anomaly_describe(a, &prof->anomalies[k]));
	}
	if (out)
		fflush(out);
}

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
	if (!rc)
		alert_anomalies(a, p, report, opts->alerts_out);
	return rc;
}
