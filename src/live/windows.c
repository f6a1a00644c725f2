#include "live/windows.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "exec/run.h"
#include "live/ledger.h"
#include "project/inputs.h"
#include "project/model.h"

#include <stdlib.h>
#include <string.h>

struct live_windows {
	const struct project *p;
	/* per model order: the streams' marks when its windows were last
	 * looked at (-1: never); due this pass */
	int64_t *mark;
	bool *due;
};

/* Whether m is a temporal model with a contract on a stream. */
static bool streamed(const struct model *m)
{
	for (size_t i = 0; m->temporal && !m->live && i < m->nupstreams; i++)
		if (model_upstream_streams(&m->upstreams[i]))
			return true;
	return false;
}

bool live_windows_any(const struct project *p)
{
	for (size_t i = 0; i < p->nmodels; i++)
		if (streamed(p->models[i]))
			return true;
	return false;
}

struct live_windows *live_windows_new(const struct project *p)
{
	struct live_windows *lw;

	if (!live_windows_any(p))
		return NULL;
	lw = xcalloc(1, sizeof(*lw));
	lw->p = p;
	lw->mark = xcalloc(p->nmodels + 1, sizeof(*lw->mark));
	lw->due = xcalloc(p->nmodels + 1, sizeof(*lw->due));
	/* the first pass builds what landed before */
	for (size_t i = 0; i < p->nmodels; i++)
		lw->mark[i] = -1;
	return lw;
}

void live_windows_free(struct live_windows *lw)
{
	if (!lw)
		return;
	free(lw->mark);
	free(lw->due);
	free(lw);
}

/* The sum of the landing watermarks of the streams m gates on: it moves
 * whenever one of them lands more. */
static int64_t streams_mark(struct live_ledger *ledger, const struct model *m)
{
	int64_t sum = 0;

	for (size_t i = 0; i < m->nupstreams; i++) {
		const struct model_upstream *u = &m->upstreams[i];
		struct model_input in = { .kind = INPUT_SOURCE, .name = u->source_relation };

		if (model_upstream_streams(u))
			sum += live_ledger_input_mark(ledger, &in);
	}
	return sum;
}

static bool pick_due(void *ctx, const struct model *m)
{
	const struct live_windows *lw = ctx;

	return lw->due[m->order];
}

/* A line per model that built or failed windows; the quiet passes (all
 * still waiting) say nothing. */
static void report(FILE *out, const struct run_report *rep)
{
	for (size_t i = 0; out && i < rep->n; i++) {
		const struct run_item *it = &rep->items[i];

		if (it->status == RUN_FAILED)
			fprintf(out, "windows of %s failed: %s\n", it->m->fqn,
				it->message ? it->message : "");
		else if (it->windows)
			fprintf(out, "built %lld window%s of %s: %lld row%s%s%s\n",
				(long long)it->windows, it->windows == 1 ? "" : "s", it->m->fqn,
				(long long)it->rows, it->rows == 1 ? "" : "s", it->waits ? "; " : "",
				it->waits ? it->waits : "");
	}
	if (out)
		fflush(out);
}

int live_windows_pass(struct live_windows *lw, struct live_ledger *ledger,
		      const struct run_book *book, struct arena *a, struct wh *w, FILE *out,
		      bool *built, size_t *held, struct sl_err *err)
{
	const struct project *p = lw->p;
	struct run_opts opts = { .env = "", .state_ready = true, .no_wait = true, .book = book,
				 .pick = pick_due, .ctx = lw, .windows = { .mode = WIN_DISCOVER } };
	struct run_report rep;
	int64_t *marks;
	bool any = false;
	int rc;

	*built = false;
	*held = 0;
	marks = arena_alloc(a, (p->nmodels + 1) * sizeof(*marks));
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];

		lw->due[i] = false;
		if (!streamed(m))
			continue;
		marks[i] = streams_mark(ledger, m);
		lw->due[i] = marks[i] != lw->mark[i];
		any |= lw->due[i];
	}
	if (!any)
		return 0;
	rc = build_run(a, (struct project *)p, w, NULL, 0, &opts, &rep, err);
	if (rc)
		return rc;
	report(out, &rep);
	/* a model that failed is looked at again with the stream's next rows,
	 * one held by another build next pass */
	for (size_t i = 0; i < rep.n; i++) {
		const struct run_item *it = &rep.items[i];

		*built |= it->windows > 0;
		if (it->status != RUN_HELD)
			lw->mark[it->m->order] = marks[it->m->order];
		*held += it->status == RUN_HELD;
	}
	run_report_free(&rep);
	return 0;
}
