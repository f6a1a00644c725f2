/*
 * This file implements the bands and the judgment of a profile against
 * the model's earlier ones. It must never read or write the warehouse:
 * the profiles come in, the anomalies go out.
 */
#include "exec/anomaly.h"

#include "core/arena.h"
#include "state/profiles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median of v, which it sorts. */
static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void anomaly_band_of(const double *v, size_t n, const struct anomaly_floor *base, double width,
		     struct anomaly_band *out)
{
	double *d = malloc((n + 1) * sizeof(*d));
	double median, spread;

	memcpy(d, v, n * sizeof(*d));
	median = median_of(d, n);
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(v[i] - median);
	spread = median_of(d, n) * ANOMALY_MAD_SCALE;
	free(d);
	if (spread < base->share * fabs(median))
		spread = base->share * fabs(median);
	if (spread < base->least)
		spread = base->least;
	out->median = median;
	out->spread = spread;
	out->low = median - width * spread;
	out->high = median + width * spread;
}

static enum model_anomaly level_named(const char *name)
{
	if (name && strcmp(name, "off") == 0)
		return MODEL_ANOMALY_OFF;
	return name && strcmp(name, "error") == 0 ? MODEL_ANOMALY_ERROR : MODEL_ANOMALY_WARN;
}

enum model_anomaly anomaly_level(const struct model *m, const struct anomaly_cfg *cfg,
				 const char *column)
{
	for (size_t i = 0; column && i < m->nanomaly_columns; i++)
		if (strcasecmp(m->anomaly_columns[i].name, column) == 0)
			return m->anomaly_columns[i].level;
	return m->anomaly != MODEL_ANOMALY_UNSET ? m->anomaly : level_named(cfg->level);
}

bool anomaly_wanted(const struct model *m, const struct anomaly_cfg *cfg)
{
	bool any = anomaly_level(m, cfg, NULL) != MODEL_ANOMALY_OFF;

	for (size_t i = 0; i < m->nanomaly_columns; i++)
		any |= m->anomaly_columns[i].level != MODEL_ANOMALY_OFF;
	return any;
}

/* What is judged of one metric: its value now and in the earlier
 * profiles that have it. */
struct metric {
	const char *column, *name;
	enum model_anomaly level;
	double now;
	double *hist;
	size_t n;
	struct anomaly_floor floor;
};

/* What a bound is off by from adding up doubles, as a share of it; the
 * places of a rate's bounds. */
#define ANOMALY_EPSILON 1e-9
#define ANOMALY_RATE_PLACES 1e9

/* A band's bounds without the last bits of rounding: a band of whole
 * numbers (a row count) reaches the whole numbers inside it, so that
 * 84.99999999999999 reads 85; a rate's bounds are rounded to nine
 * places. The judgment of a whole number or a rate is the same. */
static void bounds_settle(struct anomaly_band *band, bool whole)
{
	double lo = band->low, hi = band->high;

	if (whole) {
		band->low = ceil(lo - ANOMALY_EPSILON * fmax(1, fabs(lo)));
		band->high = floor(hi + ANOMALY_EPSILON * fmax(1, fabs(hi)));
	} else {
		band->low = round(lo * ANOMALY_RATE_PLACES) / ANOMALY_RATE_PLACES;
		band->high = round(hi * ANOMALY_RATE_PLACES) / ANOMALY_RATE_PLACES;
	}
}

/* The metric's anomaly into now's list when its value lies outside the
 * band. A band of a count or a rate never reaches below 0 (nor a rate
 * above 1), which changes no judgment. */
static bool judge(struct state_profile *now, const struct metric *mt, double width,
		  size_t min_history)
{
	struct anomaly_band band;
	struct state_anomaly *an;
	bool rate = strcmp(mt->name, "null_rate") == 0;

	if (mt->level == MODEL_ANOMALY_OFF || !mt->n || mt->n < min_history)
		return false;
	anomaly_band_of(mt->hist, mt->n, &mt->floor, width, &band);
	bounds_settle(&band, !rate);
	if (mt->now >= band.low && mt->now <= band.high)
		return false;
	an = &now->anomalies[now->nanomalies++];
	*an = (struct state_anomaly){
		.column = mt->column,
		.metric = mt->name,
		.observed = mt->now,
		.median = band.median,
		.low = band.low < 0 ? 0 : band.low,
		.high = rate && band.high > 1 ? 1 : band.high,
		.history = (int)mt->n,
		.error = mt->level == MODEL_ANOMALY_ERROR,
	};
	return an->error;
}

static const struct state_profile_column *column_named(const struct state_profile *p,
						       const char *name)
{
	for (size_t i = 0; i < p->ncols; i++)
		if (strcmp(p->cols[i].name, name) == 0)
			return &p->cols[i];
	return NULL;
}

size_t anomaly_judge(struct arena *a, const struct model *m, const struct anomaly_cfg *cfg,
		     struct state_profile *now, const struct state_profile *hist, size_t nhist)
{
	size_t errors = 0, min = (size_t)cfg->min_history;
	double width = (double)cfg->width;
	struct metric mt = {
		.name = "row_count",
		.level = anomaly_level(m, cfg, NULL),
		.now = (double)now->rows,
		.hist = arena_alloc(a, (nhist + 1) * sizeof(double)),
		.floor = ANOMALY_ROWS_FLOOR,
	};

	now->anomalies = arena_alloc(a, (now->ncols + 2) * sizeof(*now->anomalies));
	now->nanomalies = 0;
	for (size_t i = 0; i < nhist; i++)
		mt.hist[mt.n++] = (double)hist[i].rows;
	errors += judge(now, &mt, width, min);
	/* a NULL rate is judged where there are rows, now and before */
	for (size_t c = 0; c < now->ncols && now->rows > 0; c++) {
		const struct state_profile_column *col = &now->cols[c];

		mt = (struct metric){
			.column = col->name,
			.name = "null_rate",
			.level = anomaly_level(m, cfg, col->name),
			.now = (double)col->nulls / (double)now->rows,
			.hist = mt.hist,
			.floor = ANOMALY_NULL_RATE_FLOOR,
		};
		for (size_t i = 0; i < nhist; i++) {
			const struct state_profile_column *was = column_named(&hist[i], col->name);

			if (was && hist[i].rows > 0)
				mt.hist[mt.n++] = (double)was->nulls / (double)hist[i].rows;
		}
		errors += judge(now, &mt, width, min);
	}
	return errors;
}

/* A number as a person reads it: a whole one in full, else six digits. */
static const char *number(struct arena *a, double v)
{
	if (v == round(v) && fabs(v) < 1e15)
		return arena_sprintf(a, "%.0f", v);
	return arena_sprintf(a, "%.6g", v);
}

const char *anomaly_describe(struct arena *a, const struct state_anomaly *an)
{
	return arena_sprintf(a, "%s%s%s %s outside [%s, %s] (median %s of the last %d profiles)",
			     an->metric, an->column ? " of " : "", an->column ? an->column : "",
			     number(a, an->observed), number(a, an->low), number(a, an->high),
			     number(a, an->median), an->history);
}
