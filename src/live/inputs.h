/*
 * What a live model listens to. Walking its references: a landing table is
 * a tracked input, a live incremental model is a tracked input (it
 * publishes a watermark), views and ephemerals are looked through, and any
 * other model is read without triggering refreshes.
 */
#ifndef SL_LIVE_INPUTS_H
#define SL_LIVE_INPUTS_H

#include "project/model.h"

#include <stdbool.h>

struct arena;

enum live_input_kind { LIVE_INPUT_SOURCE, LIVE_INPUT_MODEL };

struct live_input {
	enum live_input_kind kind;
	const char *name;    /* "landing.orders" or the model's "schema.name" */
	struct model *model; /* for LIVE_INPUT_MODEL */
};

struct live_inputs {
	struct live_input *items; /* distinct, in the order first met */
	size_t n, cap;
	struct model **batch;     /* models read that do not trigger refreshes */
	size_t nbatch, batch_cap;
	const char **sources;     /* every landing table behind the model, through
				   * its live inputs too (for lag) */
	size_t nsources, sources_cap;
};

/* Whether m refreshes live: a live incremental model. */
bool live_model_refreshes(const struct model *m);
/* Whether m keeps watermark bookkeeping: it refreshes live, or its SQL
 * uses {watermark}. */
bool live_model_tracks(const struct model *m);

/* The inputs of m, in arena a. */
void live_inputs_find(struct arena *a, const struct model *m, struct live_inputs *out);
/* The input a {watermark:NAME} names ("orders", "landing.orders" or a
 * model), or NULL. */
const struct live_input *live_inputs_get(const struct live_inputs *in, const char *name);

#endif
