/*
 * The ledger: the live bookkeeping of a warehouse held in memory. It is
 * read from the `_sluice.live_*` tables in one query, then kept current by
 * the advances and builds of the process that holds it, so deciding what is
 * behind, measuring lag and writing a refresh's bookkeeping cost no
 * queries. It is valid while its holder keeps the warehouse: a process that
 * lets go of the file (the foreground runner between cycles) reads it anew.
 *
 * Advances can be noted from any thread; everything else belongs to the
 * thread that builds.
 */
#ifndef SL_LIVE_LEDGER_H
#define SL_LIVE_LEDGER_H

#include "live/advance.h"
#include "project/inputs.h"

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct buf;
struct project;
struct sl_err;
struct wh;

/* What the ledger knows of one model that keeps watermarks. */
struct ledger_model {
	struct model_inputs in;
	bool known;           /* has a live_state row */
	int64_t *consumed;    /* per input (in.items): applied so far */
	bool *consumed_saved; /* per input: has a live_consumed row */
	int64_t *covered_by;  /* per landing table behind it (in.sources) */
	bool *covered_saved;  /* per landing table: has a live_covered row */
	int64_t published, covered, refresh_count, events;
	double events_per_s;
	int64_t last_refresh_ms; /* wall clock; 0: never */
	bool paused, failing;
	int failures;
	int64_t next_retry_ms; /* wall clock; 0: none */
	/* the last refreshes changed nothing and were not written yet */
	bool dirty;
	int64_t saved_mono_ms; /* when its rows were last written */
};

struct live_ledger;

/* An empty ledger for p's models, its arena a child of a (may be NULL);
 * fill it with live_ledger_load. */
struct live_ledger *live_ledger_new(struct arena *a, const struct project *p);
void live_ledger_free(struct live_ledger *l);

/* Makes l environment env's ("" or NULL: the main one's), before it is
 * loaded: its models' rows are read and written under live_ledger_key. */
void live_ledger_in_env(struct live_ledger *l, const char *env);
/* The key model fqn's state rows stand under: its name, or in an
 * environment "name@env" (written into buf). */
#define LIVE_KEY_MAX 512
const char *live_ledger_key(const struct live_ledger *l, const char *fqn, char *buf, size_t size);

/* Reads every live state table (one query). Without the state schema the
 * ledger is empty: nothing consumed, nothing landed. */
int live_ledger_load(struct live_ledger *l, struct wh *w, struct sl_err *err);
bool live_ledger_loaded(const struct live_ledger *l);

/* Reads m's entry anew (its consumed, covered and live_state rows), for
 * when another process may have written them: on a shared warehouse,
 * inside the build's transaction. */
int live_ledger_reload_model(struct live_ledger *l, struct wh *w, const struct model *m,
			     struct sl_err *err);
/* Reads the advances made since the ledger last looked, by any connection;
 * *moved says whether there were any. */
int live_ledger_poll(struct live_ledger *l, struct wh *w, bool *moved, struct sl_err *err);
/* An advance this process made (any thread), so the next cycle need not
 * ask the warehouse. source is "landing.NAME". */
void live_ledger_note(struct live_ledger *l, const char *source, const struct live_advance *adv,
		      int64_t arrived_ms);

/* What the ledger keeps of an adopted source (live/adopted.h) beside its
 * watermark, the highest cursor place seen. */
struct ledger_adopted {
	int kind;         /* its cursor's enum wh_cursor_kind; -1: not looked up */
	int64_t boundary; /* the highest place a build took; 0: none */
	int64_t rows;     /* its rows at or below boundary, as last counted */
	int64_t late;     /* rows that turned up below a boundary after it was taken */
	int64_t written;  /* the watermark its row holds */
	bool dirty;       /* boundary, rows or late changed since its row was written */
};
/* A copy of source's entry, with its watermark and when that last moved
 * (ms, 0: never) into *watermark and *moved_ms (each may be NULL). */
struct ledger_adopted live_ledger_adopted(struct live_ledger *l, const char *source,
					  int64_t *watermark, int64_t *moved_ms);
void live_ledger_adopted_set(struct live_ledger *l, const char *source,
			     const struct ledger_adopted *a);

/* The ledger's entry for m, or NULL for a model that keeps no watermarks. */
struct ledger_model *live_ledger_model(struct live_ledger *l, const struct model *m);
/* What an input (a landing table or a live model) holds now. */
int64_t live_ledger_input_mark(struct live_ledger *l, const struct model_input *in);
/* The landing sequence up to which every arrival on source (NULL: on each
 * landing table behind m, the least) has reached m: applied, or passed by
 * an input that published nothing m has not consumed. -1 when m keeps no
 * watermarks or does not read source. */
int64_t live_ledger_covers(struct live_ledger *l, const struct model *m, const char *source);
/* The same of an input: -1 for a landing table. */
int64_t live_ledger_input_covers(struct live_ledger *l, const struct model_input *in,
				 const char *source);
/* The least that the models reading m (live, or keeping watermarks) have
 * consumed of it; -1 when none reads it. */
int64_t live_ledger_readers_consumed(struct live_ledger *l, const struct model *m);
/* Whether an input of m holds more than m consumed. */
bool live_ledger_behind(struct live_ledger *l, const struct model *m);
/* Age of the oldest arrival behind m it has not covered; 0 when caught up. */
int64_t live_ledger_lag_ms(struct live_ledger *l, const struct model *m, int64_t now_ms);

/* Appends the statements that write lm as the ledger holds it (consumed,
 * covered and live_state rows), for the caller's transaction. */
void live_ledger_sql_model(struct live_ledger *l, const struct model *m, struct buf *sql);
/* After that transaction committed: the rows exist and are current. */
void live_ledger_saved(struct live_ledger *l, const struct model *m);

/* Writes the rows of every model whose last refreshes were not written,
 * in one transaction. */
int live_ledger_checkpoint(struct live_ledger *l, struct wh *w, struct sl_err *err);

/* Forgets the advances every reader of their landing table has covered,
 * here and in `_sluice.live_advances`. */
int live_ledger_prune(struct live_ledger *l, struct wh *w, struct sl_err *err);

#endif
