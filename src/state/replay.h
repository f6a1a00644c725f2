/*
 * The replay tables of the `_sluice` schema: what each model's last build
 * from history read of each source (`_sluice.replay_boundaries`), and
 * what retention has pruned from landing tables since
 * (`_sluice.replay_pruned`), which a replay compares before it tears a
 * model down.
 */
#ifndef SL_STATE_REPLAY_H
#define SL_STATE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct sl_err;
struct wh;

/* What a source's replay boundary is made of (project/bounds.h decides it
 * from the source's declaration): columns of its landing table. */
struct source_bounds {
	const char *mode; /* offsets | timestamp | landed_at | cursor */
	/* offsets: the column a position is counted within (a Kafka
	 * partition), NULL for one sequence of positions (an LSN) */
	const char *part;
	/* offsets: the column the part belongs to (a Kafka topic), or NULL */
	const char *part_of;
	/* the column whose highest value (per part) is the boundary */
	const char *value;
	/* the time a start time and the retention cut on, NULL: none */
	const char *time;
	/* the column that orders the rows as they landed (_sluice_seq), NULL
	 * for a table sluice does not stamp (an adopted one): its rows are
	 * all there is, with no sequence to record */
	const char *seq;
};

/* The rows a build read of a source, in one statement: per part of the
 * source's boundary, its lowest and highest value and sequence and how
 * many rows, and the highest sequence the source held, recorded for each
 * of models (replacing what they had for that source). relation is the source's table; start ("YYYY-MM-DD
 * HH:MM:SS[.ffffff]", UTC) the time rows were read from, or NULL; now the
 * build's time in the same form. Only the rows sequenced by then count:
 * the rows the build's snapshot shows. */
void state_sql_boundaries(struct buf *sql, int64_t run_id, const char *env,
			  const char *const *models, size_t nmodels, const char *source,
			  const char *schema, const char *table, const struct source_bounds *b,
			  const char *start, const char *now);

/* What a model's last build from history read of a source. */
struct state_read {
	bool found;       /* a build recorded it */
	bool any;         /* it read some rows */
	int64_t low_seq;  /* the lowest sequence it read */
	/* the highest sequence the source held then: what the model holds
	 * beyond comes from its refreshes since */
	int64_t through_seq;
	const char *built_at, *start;
};
int state_read_load(struct wh *w, struct arena *a, const char *env, const char *model,
		    const char *source, struct state_read *out, struct sl_err *err);

/* Landing rows pruned by retention, of one source, in sum. */
struct state_pruned {
	int64_t rows;        /* 0: none ever */
	int64_t through_seq; /* the highest sequence pruned */
	const char *through_time, *last_at; /* the latest time pruned; when */
	/* per part, its highest value pruned: "partition 0 through 99, ..."
	 * (offsets), NULL for a source of one part; for messages */
	const char *values;
};
int state_pruned_load(struct wh *w, struct arena *a, const char *source, const char *part_word,
		      struct state_pruned *out, struct sl_err *err);

/* Prunes table's rows whose time is before cutoff and whose sequence is
 * at most upto (every live reader has them), recording them first. */
void state_sql_prune(struct buf *sql, const char *source, const char *schema, const char *table,
		     const struct source_bounds *b, const char *cutoff, int64_t upto,
		     const char *now);

#endif
