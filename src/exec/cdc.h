/*
 * Change-event apply: an incremental merge or delete+insert model with
 * cdc_op and cdc_seq takes its query's rows as inserts, updates and deletes
 * of its unique_key, and keeps per key the newest event it has seen. See
 * cdc.c for the rules and the statements.
 */
#ifndef SL_EXEC_CDC_H
#define SL_EXEC_CDC_H

#include "project/model.h"

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct changes;
struct sl_err;
struct wh;

/* Whether m applies change events (it sets cdc_op and cdc_seq). */
bool cdc_model(const struct model *m);

/*
 * Applies the change events that the query `events` returns to the table
 * m->schema.table, inside the caller's transaction, which must be of one
 * snapshot (wh_begin_snapshot): the query may be read more than once, and
 * every read must see the same events. With `full` the table
 * must not exist: it is created from the events alone (and m's tombstones
 * table is recreated empty); otherwise the events are applied to the
 * table and tombstones the previous builds left, and with log (NULL for
 * none) the rows of the keys that change go to the model's change log as
 * they were and as they become. *changed gets the number
 * of keys whose row changed. A bad event (unknown op, missing or unreadable
 * sequence, NULL key) fails with SL_E_INVALID before anything is written.
 * Its memory is an arena child of parent (may be NULL), freed on return.
 */
int cdc_apply(struct wh *w, struct arena *parent, const struct model *m, const char *events,
	      const char *table, bool full, const struct changes *log, int64_t *changed,
	      struct sl_err *err);

#endif
