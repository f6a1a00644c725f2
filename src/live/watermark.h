/*
 * Watermark bookkeeping of one build of a tracking model, inside the
 * build's transaction: what it had consumed from each input (the values of
 * its {watermark} placeholders), what each input holds now (what it will
 * have consumed when the transaction commits), and what it publishes. The
 * values come from and go to the ledger; the rows written are the ledger's
 * entry for the model.
 */
#ifndef SL_LIVE_WATERMARK_H
#define SL_LIVE_WATERMARK_H

#include "exec/run.h"
#include "live/ledger.h"

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct project;
struct render_ctx;
struct sl_err;
struct wh;

struct live_book {
	struct ledger_model *lm;
	struct live_ledger *ledger;
	const char **names; /* per input, for {watermark:NAME} */
	int64_t *from;      /* per input: applied before this build */
	int64_t *target;    /* per input: what it holds in this transaction */
	/* per adopted input (NULL or 0 for others): the literal its
	 * {watermark} renders, the source's name, which names it too, and its
	 * rows beyond the boundary they were counted from (live/adopted.h) */
	const char **literals, **aliases;
	int64_t *above, *counted_from;
	/* the entry as it was, put back when the build rolls back */
	struct ledger_model before;
	int64_t *before_consumed, *before_covered_by;
	struct ledger_adopted *before_adopted; /* per adopted input */
};

/* Reads what m's landing inputs hold in the open transaction (one query
 * when it reads any) and points ctx's watermarks at what m consumed. A full
 * build starts over from 0. */
int live_book_open(struct wh *w, struct arena *a, struct live_ledger *l, const struct model *m,
		   bool full, struct live_book *book, struct render_ctx *ctx, struct sl_err *err);

/* Takes the build's outcome into the ledger: consumed, covered and
 * published watermarks and the model's live state. With sql, appends the
 * statements that write them, for the build's transaction; without, the
 * entry is marked as not written yet (a refresh that changed nothing). */
int live_book_close(struct wh *w, struct live_ledger *l, struct model *m, struct live_book *book,
		    int64_t rows, bool full, struct buf *sql, struct sl_err *err);

/* The build rolled back: the ledger entry is put back as it was. */
void live_book_abort(struct live_book *book);

/* The bookkeeping a run is handed (run_opts.book): over the caller's
 * ledger, or one read for the run. */
struct live_books {
	struct run_book hooks;
	struct live_ledger *ledger;
	int64_t poll_interval_ms;
	bool own;
	bool open;
};

/* Over the caller's ledger l, which the caller loads and keeps current
 * (the runner); when no model of p keeps watermarks there is nothing to
 * keep, and live_books_hooks gives NULL. */
void live_books_over(struct live_books *b, const struct project *p, struct live_ledger *l);
/* The same over a ledger of its own, read from w for one run in
 * environment env ("" or NULL: the main one), its arena a child of a (the
 * run's). */
int live_books_open(struct live_books *b, struct arena *a, const struct project *p,
		    const char *env, struct wh *w, struct sl_err *err);
const struct run_book *live_books_hooks(const struct live_books *b);
void live_books_close(struct live_books *b);

#endif
