/*
 * Inside src/exec/ only: one change-event apply as cdc.c and
 * cdc_events.c share it. cdc_events.c knows what an event is in SQL (its
 * key, its op, its sequence read from text) and checks a batch of them;
 * cdc.c decides which apply and writes them.
 */
#ifndef SL_EXEC_CDC_EVENTS_H
#define SL_EXEC_CDC_EVENTS_H

#include "project/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct sl_err;
struct wh;
struct wh_column;
struct wh_result;

/* The temporary tables of the events and of their winners. */
#define EVENTS "_sluice_cdc_events"
#define WINNERS "_sluice_cdc_winners"

#define SEQ_HINT                                                                            \
	"\n  hint: cdc_seq orders the changes of a key: an integer (an LSN, a sequence) or " \
	"an ISO-8601 timestamp, one kind for every event"

/* One apply: the model, where it goes, and what the events look like. */
struct cdc_run {
	struct wh *w;
	const struct model *m;
	struct arena *a;
	const char *table; /* in m->schema */
	bool full;
	struct wh_column *cols; /* the events' columns */
	size_t ncols;
	const char *op, *seq; /* the events' columns named by cdc_op, cdc_seq */
	const char **keys;    /* ... and by unique_key */
	bool text_seq;        /* cdc_seq is text, read as integers or timestamps */
	const char *kind;     /* for text: "integer" or "timestamp", this batch's */
	bool landing_seq;     /* the events have _sluice_seq, their landing order */
	/* the events' _sluice_pos, the order of the changes of one source
	 * transaction (which share their commit LSN), or NULL */
	const char *pos;
	bool truncates; /* some event is a truncate */
	/* the apply table says per key whether it applies and whether a row
	 * is stored (else every winner applies, replacing a row or not) */
	bool decided;
	const char *apply; /* the apply table: APPLY, or WINNERS when not decided */
	const struct changes *log; /* the model's change log, or NULL */
	const char *temps[7]; /* the temporary tables made, to drop at the end */
	size_t ntemps;
};

/* What the table WINNERS holds: how many, and the oldest one's cdc_seq as
 * text (NULL when none). */
struct cdc_winners {
	int64_t n;
	const char *oldest;
};

/* alias.column, or the column alone when alias is NULL. */
void cdc_sql_col(struct buf *sql, const char *alias, const char *col);
/* The key columns, and the events' columns, comma-separated. */
void cdc_sql_keys(const struct cdc_run *c, struct buf *sql, const char *alias);
void cdc_sql_columns(const struct cdc_run *c, struct buf *sql);
/* l's key equals r's. */
void cdc_sql_key_match(const struct cdc_run *c, struct buf *sql, const char *l, const char *r);
/* "id=42, region=eu", for messages. */
void cdc_sql_key_text(const struct cdc_run *c, struct buf *sql, const char *alias);
/* Whether an event is a truncate of the whole table; a delete (a truncate
 * is a delete of every key), once cdc_events_check has passed. */
void cdc_sql_is_truncate(const struct cdc_run *c, struct buf *sql, const char *alias);
void cdc_sql_is_delete(const struct cdc_run *c, struct buf *sql, const char *alias);
/* A value of cdc_seq (or of a column of its type) as it compares: as is,
 * or read from text as this batch's kind (NULL when it is of another). */
void cdc_sql_seq_value(const struct cdc_run *c, struct buf *sql, const char *alias,
		       const char *col);
/* The winners' count and the oldest winner's sequence, as two columns,
 * and those two taken from column col of r. */
void cdc_sql_winners_read(const struct cdc_run *c, struct buf *sql);
void cdc_winners_take(struct cdc_run *c, struct wh_result *r, size_t col, struct cdc_winners *wn);

/* 'v' in c->a, or NULL as text. */
const char *cdc_quoted(struct arena *a, const char *v);
/* The name of the events' column `name` (any case), or NULL; its type in
 * *type when type is not NULL. */
const char *cdc_event_column(const struct cdc_run *c, const char *name, const char **type);
/* Finds the configured columns among those of the events (the rows of
 * the subquery from) and how cdc_seq compares. */
int cdc_events_columns(struct cdc_run *c, const char *from, struct sl_err *err);
/* Whether an event of rel may be bad (*bad), a quick look before the
 * search; finds c->truncates and, given wn, the winners' count. */
int cdc_events_maybe_bad(struct cdc_run *c, const char *rel, bool *bad, struct cdc_winners *wn,
			 struct sl_err *err);
/* The first bad event of EVENTS, as an error (SL_E_INVALID); 0 when every
 * event can be applied. */
int cdc_events_check(struct cdc_run *c, struct sl_err *err);

#endif
