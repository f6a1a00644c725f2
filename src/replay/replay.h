/*
 * A direct replay (`sluice replay`): the closure of the selected models
 * (closure.h) dropped and built again from the history their anchors
 * hold, in one transaction on one snapshot, under every closure model's
 * build lock. Its watermarks are the snapshot's, taken in that
 * transaction: every row up to them reaches the rebuilt models through
 * the replay, every row after them through the live runner, none twice.
 * Before anything is torn down it checks, in that transaction, that the
 * landing history still holds what the models' last builds read (their
 * recorded boundaries against what retention pruned), and refuses
 * naming the gap when not. What each model then read of each source is
 * recorded in `_sluice.replay_boundaries`. Killed at any point, the
 * replay leaves the old tables or the new ones, never a mix.
 */
#ifndef SL_REPLAY_REPLAY_H
#define SL_REPLAY_REPLAY_H

#include "exec/run.h"
#include "replay/closure.h"

#include <stdbool.h>
#include <stddef.h>

struct replay_opts {
	/* rows from this UTC time on ("YYYY-MM-DD HH:MM:SS[.ffffff]"), or NULL:
	 * the closure's own (replay_closure_make's start) */
	const char *start;
	/* called before and after each model's build; may be NULL */
	void (*on_start)(void *ctx, const struct run_item *item, size_t index, size_t total);
	void (*on_done)(void *ctx, const struct run_item *item, size_t index, size_t total);
	void *ctx;
};

/* The replay of closure c (made with o->start) of p's models on w, whose
 * relations the caller listed; the builds' report into *out. Returns 0
 * when the replay ran (see out->failed: then nothing changed),
 * SL_E_INVALID when the history no longer covers what a model needs
 * (nothing changed), SL_E_SUSPECT when the warehouse failed its commit in
 * doubt, or the error that stopped it before anything changed. */
int replay_run(struct arena *a, struct project *p, struct wh *w, const char *const *relations,
	       size_t nrelations, const struct replay_closure *c, const struct replay_opts *o,
	       struct run_report *out, struct sl_err *err);

#endif
