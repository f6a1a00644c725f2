/*
 * Adopted sources: tables someone else writes (`kind: adopted`), followed
 * by their cursor column. sluice never writes to them and never adds a
 * column: live models find what is new by the cursor, the bookkeeping
 * keeps cursor values where it keeps landing sequences (as places,
 * below), and rows that turn up below a boundary a build has taken, which
 * the live models reading the table skipped, are counted.
 */
#ifndef SL_LIVE_ADOPTED_H
#define SL_LIVE_ADOPTED_H

#include "live/ledger.h"
#include "warehouse/wh.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;
struct buf;
struct project;
struct sl_err;
struct source_cfg;

/* A cursor value's place: the value (an integer, or a timestamp's
 * microseconds since 1970-01-01 UTC) plus ADOPTED_ORIGIN. The BIGINT
 * columns and the ledger that hold landing sequences hold places too,
 * every place is above 0, and 0 keeps meaning "nothing read yet". A value
 * must lie within 2^62 either side of 0 (a timestamp within about 146,000
 * years of 1970); the warehouse refuses one outside with an overflow. */
#define ADOPTED_ORIGIN ((int64_t)1 << 62)

/* The SQL place stands for, a literal of the cursor's kind: an integer,
 * or a TIMESTAMP (TIMESTAMPTZ, in UTC) literal; place 0 gives one below
 * every value of the kind, so that a first build reads every row. */
void live_adopted_literal(enum wh_cursor_kind kind, int64_t place, struct buf *out);
/* The value of place as people read it ("42", "2026-03-01 10:00:00.25",
 * "2026-03-01 10:00:00+00" of a TIMESTAMPTZ), into out; "" for place 0. */
void live_adopted_text(enum wh_cursor_kind kind, int64_t place, char *out, size_t n);

/* The late-row books of a source (struct ledger_adopted). A build that
 * counted above rows past boundary from and took target: when from is
 * still the boundary and target lies beyond it, target becomes the
 * boundary and the rows up to it grow by above. */
void live_adopted_take(struct ledger_adopted *a, int64_t from, int64_t target, int64_t above);
/* A count of the rows at or below the boundary now: what it has more than
 * the books are rows that turned up below the boundary after it was
 * taken. Returns them (0 when none, also when rows went away), adds them
 * to a->late, and keeps counted as the rows up to the boundary. */
int64_t live_adopted_recount(struct ledger_adopted *a, int64_t counted);

/* The kind of s's cursor, from l (looked up in w's catalog the first
 * time, its scratch a child of a). A missing table, a table without the
 * column, or a column of another type is SL_E_CONFIG naming them. */
int live_adopted_kind(struct live_ledger *l, struct wh *w, struct arena *a,
		      const struct source_cfg *s, enum wh_cursor_kind *kind, struct sl_err *err);

/* Appends the query of the row a build reads of s, to stand in a UNION
 * ALL with state_live_sql_marks' rows: 'd', its table, the place of its
 * highest cursor (0: none), and how many rows lie beyond boundary. */
void live_adopted_sql_mark(struct wh *w, struct buf *sql, const struct source_cfg *s,
			   enum wh_cursor_kind kind, int64_t boundary);

/* Each adopted source a model keeping watermarks reads, one query each:
 * its highest place, noted in l as an arrival when it moved (*moved set
 * then); with count, also its rows at or below its boundary, late ones
 * said on log, once per increase. A source whose table or cursor is not
 * (yet) usable is left to the builds, which say why. */
int live_adopted_poll(struct live_ledger *l, struct wh *w, struct arena *a,
		      const struct project *p, bool count, FILE *log, bool *moved,
		      struct sl_err *err);

/* Writes, in one transaction, the row in _sluice.live_sources of each
 * adopted source whose books or highest place changed since. */
int live_adopted_checkpoint(struct live_ledger *l, struct wh *w, const struct project *p,
			    struct sl_err *err);

/* What an advance of an adopted source does: reads its highest place
 * (out->seq, 0 for an empty table) and its text (out->cursor); rows 0.
 * It writes nothing, the table least of all: the caller notes the place
 * as an arrival. */
int live_adopted_advance(struct wh *w, struct arena *a, const struct source_cfg *s,
			 struct live_advance *out, struct sl_err *err);

/* The adopted source whose table fqn is ("schema.name", lowercase), or
 * NULL. */
const struct source_cfg *live_adopted_source(const struct project *p, const char *fqn);

#endif
