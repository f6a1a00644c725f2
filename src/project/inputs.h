/*
 * What a live model listens to. Walking its references: a landing table is
 * a tracked input, and so is an adopted source's table (followed by its
 * cursor); a live incremental model is a tracked input (it publishes a
 * watermark), views and ephemerals are looked through, and any other
 * model is read without triggering refreshes.
 */
#ifndef SL_PROJECT_INPUTS_H
#define SL_PROJECT_INPUTS_H

#include "project/model.h"

#include <stdbool.h>

struct arena;
struct source_cfg;

enum input_kind { INPUT_SOURCE, INPUT_MODEL };

struct model_input {
	enum input_kind kind;
	/* "landing.orders", an adopted source's table ("raw.events"), or the
	 * model's "schema.name", lowercase */
	const char *name;
	struct model *model; /* for INPUT_MODEL */
	/* for an adopted source's table, the source: its rows carry no
	 * sequence, the source's cursor orders them */
	const struct source_cfg *adopted;
};

struct model_inputs {
	struct model_input *items; /* distinct, in the order first met */
	size_t n, cap;
	struct model **batch;     /* models read that do not trigger refreshes */
	size_t nbatch, batch_cap;
	const char **sources;     /* every landing (or adopted) table behind the
				   * model, through its live inputs too (for lag) */
	size_t nsources, sources_cap;
};

/* Whether m refreshes live: a live incremental model. */
bool inputs_refreshes(const struct model *m);
/* Whether m keeps watermark bookkeeping: it refreshes live, or its SQL
 * uses {watermark}. */
bool inputs_tracks(const struct model *m);

/* The inputs of m, in arena a. */
void inputs_find(struct arena *a, const struct model *m, struct model_inputs *out);
/* The input a {watermark:NAME} names ("orders", "landing.orders", an
 * adopted source by its name or its table, or a model), or NULL. */
const struct model_input *inputs_get(const struct model_inputs *in, const char *name);

/* "landing.NAME" for "NAME" or "landing.NAME", lowercase, into out. */
void inputs_source_name(const char *source, char *out, size_t len);
/* The table a declared source lands in, as inputs_source_name gives it:
 * landing.NAME, or an adopted source's own table. */
void inputs_source_table(const struct source_cfg *s, char *out, size_t len);

#endif
