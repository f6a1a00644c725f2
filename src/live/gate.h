/*
 * The landing gate: a live runner's cycle and the commit of a source
 * transaction that lands in several landing tables at once exclude each
 * other, so that every model one cycle refreshes reads the same landed
 * transactions. Two live models over two tables of one postgres_cdc slot,
 * and a model joining them, then never show half of a source transaction.
 * Taken only where that can happen: a live model reading, through two of
 * its inputs, two tables of one slot.
 */
#ifndef SL_LIVE_GATE_H
#define SL_LIVE_GATE_H

#include <stdbool.h>

struct arena;
struct project;
struct sl_err;
struct wh;

/* Whether a live model of p reads, through two of its inputs, two of the
 * landing tables of slot's sources. Its scratch is a child of a. */
bool live_gate_wanted(struct arena *a, const struct project *p, const char *slot);
/* Whether that holds for any postgres_cdc slot of p: a runner's cycles
 * then take the gate. */
bool live_gate_any(struct arena *a, const struct project *p);

/* A cycle's side, shared by every runner: in the process, and on a
 * shared warehouse between processes too. */
int live_gate_enter(struct wh *w, struct sl_err *err);
int live_gate_leave(struct wh *w, struct sl_err *err);

/* A landing's side, around the writes that must be made under it: takes
 * the gate alone for the open transaction once no cycle holds it (wait),
 * or only when none holds it now (*got says whether it did; when not,
 * nothing changed and the transaction stays open). Rolls back on error. */
int live_gate_take(struct wh *w, bool wait, bool *got, struct sl_err *err);
/* Commits the open transaction and lets the taken gate go. Rolls back on
 * error. */
int live_gate_commit(struct wh *w, struct sl_err *err);
/* Rolls the open transaction back and lets the taken gate go. */
void live_gate_abandon(struct wh *w);

#endif
