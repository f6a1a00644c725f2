/*
 * This file implements the direct replay's one transaction: locks,
 * snapshot, coverage check, the builds (a run in the transaction, exec
 * doing each model's work), the boundaries, the commit. It never renders
 * a model itself, and holds no lock past its end.
 */
#include "replay/replay.h"

#include "core/arena.h"
#include "core/err.h"
#include "exec/lock.h"
#include "live/advance.h"
#include "live/watermark.h"
#include "project/bounds.h"
#include "project/project.h"
#include "replay/boundaries.h"
#include "state/replay.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <string.h>

/* Whether the closure holds m under a lock: it has a relation of its own. */
static bool locks(const struct replay_closure *c, const struct model *m)
{
	return c->rebuild[m->order] && m->mat != MAT_EPHEMERAL;
}

/* Lets go of the locks of the first n models. */
static int unlock_first(const struct project *p, struct wh *w, const struct replay_closure *c,
			size_t n, struct sl_err *err)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		int unlocked;

		if (!locks(c, p->models[i]))
			continue;
		unlocked = build_unlock(w, model_relation(p->models[i]), rc ? NULL : err);
		rc = rc ? rc : unlocked;
	}
	return rc;
}

/* Every lock, in the models' order: two replays never wait for each
 * other in a cycle, and a batch run takes one lock at a time. */
static int lock_all(const struct project *p, struct wh *w, const struct replay_closure *c,
		    struct sl_err *err)
{
	for (size_t i = 0; i < p->nmodels; i++) {
		bool waited;
		int rc;

		if (!locks(c, p->models[i]))
			continue;
		rc = build_lock(w, model_relation(p->models[i]), &waited, err);
		if (rc) {
			unlock_first(p, w, c, i, NULL);
			return rc;
		}
	}
	return 0;
}

/* The gap between what retention pruned of s and what m needs of it, or
 * 0. */
static int check_one(struct wh *w, struct arena *a, const struct model *m,
		     const struct source_cfg *s, const char *start, struct sl_err *err)
{
	struct source_bounds b;
	struct state_pruned pr;
	struct state_read rd;
	const char *part_word;
	int rc;

	source_bounds_of(s, &b);
	part_word = b.part ? "partition" : "";
	rc = state_pruned_load(w, a, s->name, part_word, &pr, err);
	if (!rc && pr.rows)
		rc = state_read_load(w, a, "", m->fqn, s->name, &rd, err);
	if (rc || !pr.rows)
		return rc;
	if (start && pr.through_time && strcmp(pr.through_time, start) >= 0)
		return sl_err_set(err, SL_E_INVALID,
				  "source %s no longer holds the rows %s needs from %s on: retention "
				  "pruned %lld rows (%s%stimes through %s, the last pruned at %s)\n"
				  "  hint: replay from a --start-time after %s",
				  s->name, m->fqn, start, (long long)pr.rows, pr.values ? pr.values : "",
				  pr.values ? ", " : "", pr.through_time, pr.last_at, pr.through_time);
	/* the model holds the rows its build read, and what its refreshes
	 * added since, above what the source held then */
	if (start || (rd.found && pr.through_seq < (rd.any ? rd.low_seq : rd.through_seq + 1)) ||
	    (!rd.found && !replay_keeps_history(m)))
		return 0;
	return sl_err_set(err, SL_E_INVALID,
			  "source %s no longer holds rows %s was built with: retention pruned %lld "
			  "rows (%s%ssequences through %lld, times through %s, the last pruned at "
			  "%s), and %s\n  hint: replay with --start-time after %s, leaving out what "
			  "is gone",
			  s->name, m->fqn, (long long)pr.rows, pr.values ? pr.values : "",
			  pr.values ? ", " : "", (long long)pr.through_seq,
			  pr.through_time ? pr.through_time : "?", pr.last_at,
			  !rd.found ? "it holds rows from before any recorded build"
			  : rd.any  ? arena_sprintf(a, "its last build read from sequence %lld on, at %s",
						    (long long)rd.low_seq, rd.built_at)
				    : arena_sprintf(a, "it holds what its refreshes applied after "
						       "sequence %lld, since its build at %s",
						    (long long)rd.through_seq, rd.built_at),
			  pr.through_time ? pr.through_time : "the pruned rows' times");
}

static int check_coverage(struct wh *w, struct arena *a, const struct replay_closure *c,
			  const char *start, struct sl_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < c->ndirect; i++)
		rc = check_one(w, a, c->direct[i].m, c->direct[i].source, start, err);
	return rc;
}

/* The builds, in the open transaction; 0 with out->run.failed when one
 * failed. */
static int rebuild(struct arena *a, struct project *p, struct wh *w,
		   const char *const *relations, size_t nrelations, const struct replay_closure *c,
		   const struct replay_opts *o, const struct live_books *books,
		   struct run_report *out, struct sl_err *err)
{
	struct replay_record rec = { .p = p, .start = o->start };
	struct run_opts ro = {
		.chosen = c->rebuild,
		.full_refresh = true,
		.state_ready = true,
		.in_txn = true,
		.reads = c->reads,
		.nreads = c->nreads,
		.env = "",
		.book = live_books_hooks(books),
		.on_start = o->on_start,
		.on_done = o->on_done,
		.ctx = o->ctx,
		.on_full_build = replay_record_build,
		.record_ctx = &rec,
	};
	int rc = check_coverage(w, a, c, o->start, err);

	if (!rc)
		rc = replay_closure_reads(a, w, c, &ro.reads, &ro.nreads, err);
	return rc ? rc : build_run(a, p, w, relations, nrelations, &ro, out, err);
}

int replay_run(struct arena *a, struct project *p, struct wh *w, const char *const *relations,
	       size_t nrelations, const struct replay_closure *c, const struct replay_opts *o,
	       struct run_report *out, struct sl_err *err)
{
	struct live_books books = { 0 };
	int rc, unlocked;

	memset(out, 0, sizeof(*out));
	rc = state_ensure(w, err);
	if (!rc)
		rc = live_sources_ensure(w, a, p, err);
	if (!rc)
		rc = live_books_open(&books, a, p, NULL, w, err);
	if (!rc)
		rc = lock_all(p, w, c, err);
	if (rc) {
		live_books_close(&books);
		return rc;
	}
	rc = wh_begin_snapshot(w, err);
	if (!rc)
		rc = rebuild(a, p, w, relations, nrelations, c, o, &books, out, err);
	if (!rc && !out->failed)
		rc = wh_commit(w, err);
	else if (!wh_suspect(w, NULL))
		wh_rollback(w);
	if (rc && wh_suspect(w, NULL))
		rc = SL_E_SUSPECT;
	unlocked = unlock_first(p, w, c, p->nmodels, rc ? NULL : err);
	live_books_close(&books);
	if (rc)
		run_report_free(out);
	return rc ? rc : unlocked;
}
