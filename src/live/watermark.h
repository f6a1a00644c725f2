/*
 * Watermark bookkeeping of one build of a tracking model, inside the
 * build's transaction: what it had consumed from each input (the values of
 * its {watermark} placeholders), what each input holds now (what it will
 * have consumed when the transaction commits), and what it publishes.
 */
#ifndef SL_LIVE_WATERMARK_H
#define SL_LIVE_WATERMARK_H

#include "live/inputs.h"

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct render_ctx;
struct sl_err;
struct wh;

struct live_book {
	struct live_inputs inputs;
	const char **names;
	int64_t *consumed; /* per input: applied before this build */
	int64_t *target;   /* per input: its watermark in this transaction */
	int64_t *covered;  /* per input: landing sequence covered through it */
	struct live_inputs *upstream; /* per model input: its own inputs */
	int64_t published, refresh_count, events;
	bool had_state;
};

/* Reads what m consumed and what its inputs hold, in the open transaction,
 * and points ctx's watermarks at the consumed values. A full build starts
 * over from 0. */
int live_book_open(struct wh *w, struct arena *a, const struct model *m, bool full,
		   struct live_book *book, struct render_ctx *ctx, struct sl_err *err);

/* Records the consumed watermarks, the published watermark and the model's
 * live state, in the same transaction as the build's rows. */
int live_book_close(struct wh *w, struct model *m, struct live_book *book, int64_t rows,
		    bool full, struct sl_err *err);

/* How many of the models have an input holding more than they consumed,
 * in one query. */
int live_count_behind(struct wh *w, struct arena *a, const struct model *const *models,
		      size_t n, size_t *behind, struct sl_err *err);
/* Whether any input of m holds more than m consumed. */
int live_book_behind(struct wh *w, struct arena *a, const struct model *m, bool *behind,
		     struct sl_err *err);

#endif
