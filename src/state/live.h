/*
 * The tables of live models: the warehouse-wide sequence `_sluice.seq`,
 * `_sluice.live_sources` (per source its watermark, rows, last advance and
 * cursor), `_sluice.live_advances` (each advance not yet pruned),
 * `_sluice.live_consumed` and `_sluice.live_covered` (per model and input
 * or source, what it consumed and covered) and `_sluice.live_state` (per
 * model what it published, its figures, pause and failure). What goes into
 * them is decided by src/live/; the statements are here. The state_live_sql_*
 * functions append statements (each ending ";\n" where noted) for the
 * caller's transaction; the others run their statement themselves.
 */
#ifndef SL_STATE_LIVE_H
#define SL_STATE_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct sl_err;
struct wh;
struct wh_result;

/* Whether the live tables exist, as the catalog says now; its scratch is
 * a child of a. */
int state_live_present(struct wh *w, struct arena *a, bool *present, struct sl_err *err);

/* The next number of the warehouse-wide sequence of advances. */
int state_live_seq_next(struct wh *w, int64_t *seq, struct sl_err *err);

/* Records an advance of source (seq, rows, at now_ms) and moves its
 * watermark, making its row on the first advance. The statements are kept
 * prepared, one set per source. */
int state_live_advance_record(struct wh *w, const char *source, int64_t seq, int64_t rows,
			      int64_t now_ms, struct sl_err *err);

/* Sets the cursor of source; SL_E_NOTFOUND when the source has no row (no
 * advance recorded). */
int state_live_cursor_set(struct wh *w, const char *source, const char *cursor,
			  struct sl_err *err);
/* The cursor of source, in a; NULL when it has none. */
int state_live_cursor_get(struct wh *w, struct arena *a, const char *source, const char **out,
			  struct sl_err *err);

/* The query that reads every live table at once (with model, only that
 * model's rows of live_consumed, live_covered and live_state), ordered by
 * the first and fourth columns. Twelve columns; the first says which table:
 *   's' source, NULL, watermark, rows, boundary, late rows (these two 0
 *       but for an adopted source), last advance (ms, 0: never)
 *   'a' source, NULL, seq, arrived_at (ms)
 *   'c' model, input, watermark
 *   'v' model, source, seq
 *   'z' model, events_per_s (text), published, covered, refresh_count,
 *       events, failures, last_refresh_at (ms, 0: never), next_retry_at
 *       (ms, 0: none), paused (0/1), failing (0/1)
 * and the columns a kind leaves unnamed are 0. */
void state_live_sql_load(struct wh *w, struct buf *sql, const char *model);

/* The query of the advances after seq, in sequence order: source, seq,
 * arrived_at (ms). */
void state_live_sql_advances_after(struct wh *w, struct buf *sql, int64_t seq);
/* The same, each of the n sources after its own watermark, and every
 * advance of any other source. */
void state_live_sql_advances_per_source(struct wh *w, struct buf *sql,
					const char *const *sources, const int64_t *watermarks,
					size_t n);

/* Drops the advances of source up to seq (";\n" ended). */
void state_live_sql_prune(struct buf *sql, const char *source, int64_t seq);

/* What model consumed of input, and covered of source: an UPDATE when the
 * row exists, else an INSERT (";\n" ended). */
void state_live_sql_consumed(struct buf *sql, const char *model, const char *input,
			     int64_t watermark, bool exists);
void state_live_sql_covered(struct buf *sql, const char *model, const char *source, int64_t seq,
			    bool exists);

/* A model's row of live_state as a refresh leaves it. */
struct state_live_row {
	int64_t published, covered, refresh_count, events;
	double events_per_s;
	int64_t last_refresh_ms; /* 0: never */
	bool failing;            /* a failure is on record, and stays */
};
/* Writes it: an UPDATE when the row exists (ending a failure on record
 * unless row->failing), else an INSERT of a live row (";\n" ended). */
void state_live_sql_state(struct buf *sql, const char *model, const struct state_live_row *row,
			  bool exists);
/* Records model failing for the failures-th time with message, retried
 * from retry_ms. */
void state_live_sql_failing(struct buf *sql, const char *model, int failures,
			    const char *message, int64_t retry_ms);
/* Pauses or resumes model, and logs it in the run log at now_ms; resuming
 * also ends what is left of a failure's backoff. */
void state_live_sql_pause(struct buf *sql, const char *model, bool pause, int64_t now_ms);

/* The query of the marks a build checks its inputs against, or nothing
 * when there is none to read: the watermark of each of the sources ('s',
 * source, watermark), what each of the models published ('p', model,
 * published), and with consumer, what it consumed ('c', input,
 * watermark); a fourth column, 0, lines the rows up with those of an
 * adopted table's (live/adopted.h). */
void state_live_sql_marks(struct buf *sql, const char *const *sources, size_t nsources,
			  const char *const *models, size_t nmodels, const char *consumer);

/* Every row of live_state: status, paused (0/1), refresh_count, events,
 * events_per_s, last_refresh_at (to the second, text), last_error,
 * next_retry_at (ms, 0: none), covered, model. */
int state_live_rows(struct wh *w, struct wh_result **out, struct sl_err *err);
/* An adopted source's row as the runner keeps it (live/adopted.h): the
 * highest cursor seen (as coded, and as text), when it last moved (ms, 0:
 * never), the boundary builds took with the rows up to it, and the rows
 * that turned up below a boundary after it was taken. */
struct state_adopted_row {
	int64_t top;
	const char *cursor; /* NULL: none seen */
	int64_t moved_ms;
	int64_t boundary, rows, late;
};
/* Writes it, making the row when missing (";\n" ended). */
void state_live_sql_adopted(struct buf *sql, const char *source,
			    const struct state_adopted_row *row);

/* Every source, by name: source, watermark, rows, last advance (to the
 * second, text), cursor (NULL when it has none), late rows (0 but for an
 * adopted source). */
int state_live_sources(struct wh *w, struct wh_result **out, struct sl_err *err);

#endif
