/*
 * The rows of `_sluice.windows`: per temporal model and environment one
 * row per window of its grid (a flexible model: per coverage island), per
 * other model one existence row. In memory a grid row may stand for a run
 * of consecutive windows in the same state (same status, times, attempts,
 * reason and error): since and until are the run's bounds and its grain
 * cuts it. Rows are read so and written back one per window. A row's status is pending, applied,
 * blocked (blocked_reason names what it waits for) or failed (error, and
 * attempts counts the tries). Writes go into the caller's transaction, so
 * a window's data and its row commit together.
 */
#ifndef SL_STATE_WINDOWS_H
#define SL_STATE_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct sl_err;
struct wh;

enum state_win_status { WINDOW_PENDING, WINDOW_APPLIED, WINDOW_BLOCKED, WINDOW_FAILED };

struct state_window {
	const char *model; /* "schema.name" */
	/* UTC seconds; an existence row has neither (timeless) */
	int64_t since, until;
	int64_t applied_at, oldest_at; /* UTC seconds, 0: never applied */
	const char *reason;            /* blocked: what it waits for, or NULL */
	const char *error;             /* failed: the last error, or NULL */
	int32_t attempts;
	enum state_win_status status;
	bool timeless;
	const char *grain; /* the grid's grain ("1h"), NULL for islands and existence rows */
};

const char *state_win_status_name(enum state_win_status s);

/* Whether a and b are in the same state, their bounds aside. */
bool state_window_same(const struct state_window *a, const struct state_window *b);
/* Whether b continues grid row a: the same grid and state, and b starts
 * where a ends, so that one row can stand for both. */
bool state_window_joins(const struct state_window *a, const struct state_window *b);
/* "applied" -> WINDOW_APPLIED; -1 for an unknown name. */
int state_win_status_parse(const char *s);

/* The rows of env, of the models named (all when models is NULL), ordered
 * by model and since, strings in a; consecutive grid windows in the same
 * state come as one row (aggregated by the warehouse, so that a grid of a
 * million applied windows costs a few rows). */
int state_windows_load(struct wh *w, struct arena *a, const char *env, const char *const *models,
		       size_t nmodels, struct state_window **rows, size_t *n, struct sl_err *err);

/* Appends the statements that make row the one row of its model at its
 * since (for an existence row: the model's one row); a grid row standing
 * for a run of windows makes one row per window of it. */
void state_sql_window(struct buf *sql, const char *env, const struct state_window *row);
/* Appends the statements that make row, a window that did not build
 * (blocked, or failed by the caller's attempt), the row at its since in
 * place of old, the row the caller read there (NULL: none). A row another
 * process applied since is left as it is: work done elsewhere is never
 * marked undone. */
void state_sql_window_unbuilt(struct buf *sql, const char *env, const struct state_window *row,
			      const struct state_window *old);
/* Which rows of a model state_sql_windows_drop reaches within [since,
 * until): those wholly inside it (a window's own rows, which no other
 * window of a run shares), those that overlap it, or those and the
 * applied ones that only touch it (a flexible model's islands coalesce
 * so). */
enum state_drop { STATE_DROP_INSIDE, STATE_DROP_OVERLAPPING, STATE_DROP_TOUCHING };

/* Appends the statement that deletes env's rows of model that reach
 * [since, until); every row of the model when since >= until. */
void state_sql_windows_drop(struct buf *sql, const char *env, const char *model, int64_t since,
			    int64_t until, enum state_drop reach);

#endif
