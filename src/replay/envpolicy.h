/*
 * How an environment builds a model that keeps watermarks from scratch:
 * by the change policy (`replay.replay_on_change` of sluice.yml, a
 * folder's pipeline.yml or the model's @config, the model's winning),
 * `full` replays all the history its inputs hold; `bounded-DURATION`
 * replays only what happened since then (its inputs read from that time
 * on) and takes the older rows from the main tables' copy, which must hold
 * them already: the model must carry its sources' rows one for one with
 * their event time, so that a row is older or newer, never both. A model
 * that cannot be split so (an aggregate, a lookup of what changes)
 * replays all history or, with `bounded_replay_fallback:
 * bounded_without_history`, the bounded range alone. The change is the
 * model's now against the main tables' build of it: breaking (what
 * decides the rows, a column changed or removed) or non-breaking (columns
 * added, or none). `--full-refresh` replays all; `--start-time` bounds
 * at that time whatever the change.
 */
#ifndef SL_REPLAY_ENVPOLICY_H
#define SL_REPLAY_ENVPOLICY_H

#include "exec/run.h"
#include "project/lineage_graph.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct env_policy {
	struct arena *a;
	struct project *p;
	const struct lineage_graph *g;
	const char *env;
	const char *start; /* --start-time ("YYYY-MM-DD HH:MM:SS[.ffffff]", UTC) or NULL */
	bool full_refresh;
	int64_t now_ms;
	/* the main tables' model rows, read on first use */
	struct state_model *main;
	size_t nmain;
	bool main_read;
};

/* The run_opts.scratch hook; ctx is a struct env_policy. */
int env_policy_scratch(void *ctx, struct wh *w, const struct model *m, struct run_scratch *out,
		       struct sl_err *err);

#endif
