/*
 * Landing tables and their sequence. Every batch that lands in a landing
 * table is stamped with the next value of the warehouse-wide sequence
 * `_sluice.seq` in the transaction that announces it, so sequence order is
 * commit order and a row is visible to `_sluice_seq > {watermark}` exactly
 * once, after it is announced.
 */
#ifndef SL_LIVE_ADVANCE_H
#define SL_LIVE_ADVANCE_H

#include <stddef.h>
#include <stdint.h>

struct arena;
struct project;
struct sl_err;
struct source_cfg;
struct wh;

/* Creates the landing tables of the sources declared in sluice.yml that do
 * not exist yet, each with `_sluice_seq BIGINT`; its scratch is a child of
 * a. */
int live_sources_ensure(struct wh *w, struct arena *a, const struct project *p,
			struct sl_err *err);

struct live_advance {
	int64_t seq;  /* the sequence given to the batch; 0 when nothing was new */
	int64_t rows; /* rows stamped */
	/* of an adopted source, which is never stamped: seq is its highest
	 * cursor's place (live/adopted.h), rows 0, and this the cursor as
	 * text; "" otherwise */
	char cursor[64];
};

/* What `advance` may be pointed at, decided from the project alone: an
 * advance of a landing table adds a column to it and writes to it, so only
 * tables that the project lands or follows qualify. name is a source
 * declared in sluice.yml (any kind), by its name or its table's, or a
 * landing table that a model keeping watermarks reads ("events" or
 * "landing.events"), views and ephemerals in between looked through, which
 * needs p's references resolved (dag_build). The table's full lowercase
 * name goes to fqn. A `_sluice` table or a model's own is refused with
 * SL_E_USAGE ("'x' is not a source of this project"), any other name with
 * SL_E_NOTFOUND and the nearest accepted name. Never touches the
 * warehouse; its scratch is a child of a. */
int live_advance_target(struct arena *a, const struct project *p, const char *name, char *fqn,
			size_t n, struct sl_err *err);

/* The advance of fqn, a name live_advance_target gave: an adopted
 * source's table is read for its highest cursor (live/adopted.h), never
 * written; any other is stamped by live_advance_source. Its scratch is a
 * child of a. */
int live_advance_any(struct wh *w, struct arena *a, const struct project *p, const char *fqn,
		     struct live_advance *out, struct sl_err *err);

/* Stamps every unstamped row (NULL `_sluice_seq`) of a landing table with
 * the next sequence and records the advance (rows, arrival time), in one
 * transaction of its own. source is "landing.NAME" or "NAME"; which names
 * are acceptable is live_advance_target's to say, but a `_sluice` table is
 * refused here too (SL_E_USAGE). A landing table without the column gets it
 * first; a table of another schema without it is refused (SL_E_USAGE),
 * never altered.
 * out may be NULL. */
int live_advance_source(struct wh *w, const char *source, struct live_advance *out,
			struct sl_err *err);

/* Takes fqn's advance lock for the open transaction: processes sharing
 * the warehouse advance a source one at a time, from taking its sequence
 * to committing, so that a source's sequence order stays its commit order
 * (a reader that saw seq 11 must never find 10 later). A transaction that
 * advances several sources locks them in name order. */
int live_advance_lock(struct wh *w, const char *fqn, struct sl_err *err);
/* The next value of the warehouse-wide sequence. */
int live_next_seq(struct wh *w, int64_t *seq, struct sl_err *err);
/* Records that adv->rows rows of fqn ("landing.NAME") were stamped adv->seq
 * at now_ms, in the caller's transaction: for writers that stamp rows as
 * they append them. */
int live_advance_record(struct wh *w, const char *fqn, const struct live_advance *adv,
			int64_t now_ms, struct sl_err *err);

/* The cursor of a source that follows a high-watermark column: the
 * highest value landed so far, as text, in _sluice.live_sources. Set in the
 * caller's transaction, after live_advance_record made the source's row
 * (SL_E_NOTFOUND without one). get gives NULL for a source without a
 * cursor yet; the string goes to a. */
int live_cursor_set(struct wh *w, const char *fqn, const char *cursor, struct sl_err *err);
int live_cursor_get(struct wh *w, struct arena *a, const char *fqn, const char **out,
		    struct sl_err *err);
/* Whether the cursor rows were read after (from, "" for none) is still
 * the one in force: now, the cursor the caller's transaction stores
 * already, or when NULL the one stored, which the caller reads under
 * fqn's advance lock (live_advance_lock: whoever moves a cursor holds it
 * until its commit). SL_E_BUSY naming fqn when it moved: another process
 * landed the source meanwhile. Its scratch is a child of a. */
int live_cursor_unmoved(struct wh *w, struct arena *a, const char *fqn, const char *from,
			const char *now, struct sl_err *err);

#endif
