/*
 * Judging a batch build's profile against the model's earlier ones: per
 * metric (the row count, each column's NULL rate) a robust band, the
 * median of the last profiles plus and minus `width` times their median
 * absolute deviation scaled to a standard deviation, widened to a floor so
 * that a metric that never moved does not flag every small change. A
 * metric with fewer than `min_history` earlier values is not judged.
 * Pure: no warehouse, no state.
 */
#ifndef SL_EXEC_ANOMALY_H
#define SL_EXEC_ANOMALY_H

#include "project/model.h"

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct state_anomaly;
struct state_profile;

/* The MAD of normal data times this is their standard deviation. */
#define ANOMALY_MAD_SCALE 1.4826
/* The least spread a band assumes, the larger of a share of its median
 * and a least value: of a row count 5% of the median and one row; of a
 * NULL rate (from 0 to 1) one hundredth. */
struct anomaly_floor {
	double share, least;
};
#define ANOMALY_ROWS_FLOOR { 0.05, 1 }
#define ANOMALY_NULL_RATE_FLOOR { 0, 0.01 }

struct anomaly_band {
	double median;
	double spread; /* the scaled MAD, or the floor when that is larger */
	double low, high;
};

/* The band of the n values v (n > 0; their order does not matter): their
 * median plus and minus width times the larger of their scaled MAD and
 * the floor base gives. */
void anomaly_band_of(const double *v, size_t n, const struct anomaly_floor *base, double width,
		     struct anomaly_band *out);

/* The level of m's metric on column (NULL: the row count): the column's
 * anomaly_columns item, else the model's anomaly, else the project's. */
enum model_anomaly anomaly_level(const struct model *m, const struct anomaly_cfg *cfg,
				 const char *column);
/* Whether any metric of m is judged, so that its batch builds take a
 * profile: its level or a column's is not off. */
bool anomaly_wanted(const struct model *m, const struct anomaly_cfg *cfg);

/* Judges now against hist, the model's earlier judged profiles newest
 * first (at most cfg->history of them are read), and puts what lies
 * outside its band into now->anomalies (in a). Returns how many of them
 * are at level error. */
size_t anomaly_judge(struct arena *a, const struct model *m, const struct anomaly_cfg *cfg,
		     struct state_profile *now, const struct state_profile *hist, size_t nhist);

/* One anomaly as a line of text: "row_count 1000 outside [85, 115]
 * (median 100 of the last 5 profiles)". In a. */
const char *anomaly_describe(struct arena *a, const struct state_anomaly *an);

#endif
