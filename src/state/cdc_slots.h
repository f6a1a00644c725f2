/*
 * The rows of `_sluice.cdc_slots` and `_sluice.cdc_relations`: per
 * postgres_cdc replication slot the LSNs its consumer stored (landed: the
 * commit LSN of the last transaction landed; confirmed: what the server
 * may be told is flushed) and whether an initial snapshot is pending or
 * done; per table of a slot the shapes its columns took, each from the
 * change (LSN, place) it took effect at. Every write goes into the
 * caller's transaction: a slot's LSNs commit with the rows they account
 * for.
 */
#ifndef SL_STATE_CDC_SLOTS_H
#define SL_STATE_CDC_SLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct wh;

/* What _sluice.cdc_slots holds for a slot (zeros when it has no row). */
struct state_cdc_slot {
	bool stored; /* the slot has a row */
	uint64_t landed, confirmed;
	/* 'p' pending: the slot is being made for a snapshot that has not
	 * landed; 'd' done: it landed; 0: the slot streams without one */
	char snapshot;
};

int state_cdc_slot_read(struct wh *w, const char *slot, struct state_cdc_slot *out,
			struct sl_err *err);
/* The slot's row: landed set (unless 0, kept) and confirmed raised to at
 * least confirmed; a slot without a row gets one. */
int state_cdc_slot_store(struct wh *w, const char *slot, uint64_t landed, uint64_t confirmed,
			 struct sl_err *err);
/* The slot's row replaced by one whose LSNs are both lsn, its snapshot
 * "pending" or "done". */
int state_cdc_slot_replace(struct wh *w, const char *slot, uint64_t lsn, const char *snapshot,
			   struct sl_err *err);

/* A table's latest shape ("public.orders" and its columns' JSON). */
struct state_cdc_shape {
	const char *relation, *columns;
};

/* The latest shape of each table of the slot, into a. */
int state_cdc_shapes_read(struct wh *w, struct arena *a, const char *slot,
			  struct state_cdc_shape **out, size_t *n, struct sl_err *err);
/* Records relation's columns as taking effect at (lsn, pos). */
int state_cdc_shape_store(struct wh *w, const char *slot, const char *relation, uint64_t lsn,
			  int64_t pos, const char *columns, struct sl_err *err);

#endif
