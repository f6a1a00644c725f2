/*
 * `_sluice.profiles` and `_sluice.profile_anomalies`: what a profile of a
 * model's table found (its rows; per column the NULLs, the least and
 * greatest value as text and the distinct values), one row per column and
 * profile, and the anomalies a batch run judged it to hold. Which models
 * are profiled, when, and how a profile is judged is decided above this
 * layer (src/exec/profile.c, src/exec/anomaly.c, src/live/).
 */
#ifndef SL_STATE_PROFILES_H
#define SL_STATE_PROFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct sl_err;
struct wh;

struct state_profile_column {
	const char *name;
	const char *type; /* as wh_table_columns names it; NULL: not known */
	int64_t nulls;
	/* the least and greatest value as text; NULL when every value is
	 * NULL, or the warehouse orders no values of the type */
	const char *min, *max;
	int64_t distinct; /* distinct values (wh_sql_distinct_estimate); -1: not known */
};

enum state_profile_kind { PROFILE_BATCH, PROFILE_LIVE };

/* A metric of a profile outside the band its history makes. */
struct state_anomaly {
	const char *column; /* NULL: the table's (the row count) */
	const char *metric; /* "row_count" or "null_rate" */
	double observed, median, low, high;
	int history; /* how many earlier profiles the band was made of */
	bool error;  /* the level is error (it failed the build), else warn */
};

struct state_profile {
	int64_t id;
	const char *model, *env;
	int64_t taken_ms; /* ms since the epoch, UTC */
	enum state_profile_kind kind;
	int64_t run_id;        /* a batch profile's run; 0 for a live one */
	int64_t refresh_count; /* a live profile: the model's refreshes so far; -1: none */
	/* the data it describes committed; false when an error-level anomaly
	 * failed the build, whose profile is kept for the record alone */
	bool kept;
	int64_t rows;
	struct state_profile_column *cols;
	size_t ncols;
	struct state_anomaly *anomalies;
	size_t nanomalies;
};

/* The id of a new profile, from the sequence `_sluice.profile_ids`. */
int state_profile_id_next(struct wh *w, int64_t *id, struct sl_err *err);

/* Appends the statements that write profile p (whose id is set) and its
 * anomalies, for the caller's transaction; nothing for a table without
 * columns, which has no row to hold its row count. */
void state_sql_profile(struct buf *sql, const struct state_profile *p);

/* Which profiles state_profiles_read reads: a model's in an environment,
 * taken in [since_ms, until_ms) (0: no bound), newest first, at most limit
 * of them (0: all). judged: only those a batch run judges a new profile
 * against (taken by batch runs, their data committed), read without their
 * anomalies. */
struct state_profile_ask {
	const char *model, *env;
	int64_t since_ms, until_ms;
	size_t limit;
	bool judged;
};

/* The profiles ask selects, newest first, each with its columns in their
 * table's order and its anomalies; everything in a. */
int state_profiles_read(struct wh *w, struct arena *a, const struct state_profile_ask *ask,
			struct state_profile **out, size_t *n, struct sl_err *err);

/* When the live runner last profiled model (ms since the epoch), 0 when
 * never. */
int state_profile_last_ms(struct wh *w, const char *model, int64_t *ms, struct sl_err *err);

const char *state_profile_kind_name(enum state_profile_kind k);

#endif
