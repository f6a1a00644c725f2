/*
 * This file implements the grid of windows: the grains, their floor, sum
 * and count on UTC seconds, and the text of an instant. It must never call
 * timegm, mktime, gmtime or anything else that reads the process's time
 * zone, nor read a clock: a window's bounds are the same on every machine
 * and in every season, or two runs would cut the same hour differently.
 */
#include "windows/grid.h"

#include "core/civil.h"
#include "core/err.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define HOUR_SECS 3600
#define DAY_SECS 86400
#define WEEK_SECS (7 * DAY_SECS)
/* Monday 1969-12-29 00:00 UTC: 1970-01-01 was a Thursday, and weeks are
 * counted from a Monday so that every week boundary is a multiple away */
#define WEEK_EPOCH (-3 * DAY_SECS)
/* 9999-12-31 23:59:59, the last second a four-digit year writes */
#define TIME_TOP 253402300799LL
/* an offset beyond 15 hours is no zone's (they span -12 to +14), and
 * DuckDB refuses one */
#define OFFSET_HOURS_MAX 15

static const char *const grain_names[] = {
	[WIN_HOUR] = "1h",
	[WIN_DAY] = "1d",
	[WIN_WEEK] = "1w",
	[WIN_MONTH] = "1mo",
};

int win_grain_parse(const char *s, enum win_grain *g)
{
	for (int i = WIN_HOUR; i <= WIN_MONTH; i++) {
		if (!strcmp(s, grain_names[i])) {
			*g = (enum win_grain)i;
			return 0;
		}
	}
	return SL_E_PARSE;
}

const char *win_grain_name(enum win_grain g)
{
	return (unsigned)g <= WIN_MONTH ? grain_names[g] : "?";
}

/* Division rounding toward minus infinity (b > 0): C's rounds toward zero,
 * which would floor an instant before 1970 into the window after it. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return q - (a % b < 0);
}

/* Months since 0000-01, so that adding months is adding integers. */
static int64_t month_index(int64_t t)
{
	int64_t y;
	int m, d;

	civil_date(floor_div(t, DAY_SECS), &y, &m, &d);
	return y * 12 + (m - 1);
}

static int64_t month_start(int64_t index)
{
	int64_t y = floor_div(index, 12);

	return civil_days(y, (int)(index - y * 12) + 1, 1) * DAY_SECS;
}

/* The length of a grain that has one; a month has none. */
static int64_t grain_secs(enum win_grain g)
{
	switch (g) {
	case WIN_HOUR:
		return HOUR_SECS;
	case WIN_DAY:
		return DAY_SECS;
	case WIN_WEEK:
		return WEEK_SECS;
	default:
		return 0;
	}
}

int64_t win_floor(enum win_grain g, int64_t t)
{
	int64_t len = grain_secs(g);

	if (g == WIN_MONTH)
		return month_start(month_index(t));
	if (g == WIN_WEEK)
		return WEEK_EPOCH + floor_div(t - WEEK_EPOCH, len) * len;
	return floor_div(t, len) * len;
}

int64_t win_add(enum win_grain g, int64_t t, int64_t k)
{
	if (g == WIN_MONTH)
		return month_start(month_index(t) + k);
	return t + k * grain_secs(g);
}

int64_t win_count(enum win_grain g, int64_t a, int64_t b)
{
	if (g == WIN_MONTH)
		return month_index(b) - month_index(a);
	return (b - a) / grain_secs(g);
}

/*
 * Matches text against a picture in which each run of '#' is a field of
 * exactly that many digits and any other character stands for itself;
 * the fields go to *f in order. Returns where the text goes on, or NULL.
 * Fixed widths are why "2026-1-5" and "24:0" are refused: the text users
 * write is the text sluice writes back.
 */
static const char *match(const char *p, const char *pic, int *f)
{
	size_t k = 0;

	for (size_t i = 0; pic[i]; i++, p++) {
		if (pic[i] != '#') {
			if (*p != pic[i])
				return NULL;
			continue;
		}
		if (*p < '0' || *p > '9')
			return NULL;
		if (i == 0 || pic[i - 1] != '#')
			f[k++] = 0;
		f[k - 1] = f[k - 1] * 10 + (*p - '0');
	}
	return p;
}

/* An optional 'Z', or a sign and HH, HHMM or HH:MM, as minutes east of
 * UTC in *off. Returns where the text goes on, or NULL. */
static const char *match_offset(const char *p, int *off)
{
	int f[2] = { 0, 0 };
	int sign;
	const char *q;

	*off = 0;
	if (*p == 'Z')
		return p + 1;
	if (*p != '+' && *p != '-')
		return p;
	sign = *p == '-' ? -1 : 1;
	p = match(p + 1, "##", f);
	if (!p)
		return NULL;
	if ((q = match(p, ":##", f + 1)) || (q = match(p, "##", f + 1)))
		p = q;
	if (f[0] > OFFSET_HOURS_MAX || f[1] > 59)
		return NULL;
	*off = sign * (f[0] * 60 + f[1]);
	return p;
}

int win_time_parse(const char *s, int64_t *t)
{
	/* year, month, day, hour, minute, second */
	int f[6] = { 0, 0, 0, 0, 0, 0 };
	int off = 0;
	const char *p = match(s, "####-##-##", f), *q;
	int64_t v;

	if (!p)
		return SL_E_PARSE;
	if (*p == ' ' || *p == 'T') {
		p = match(p + 1, "##:##", f + 3);
		if (p && (q = match(p, ":##", f + 5)))
			p = q;
		if (p)
			p = match_offset(p, &off);
	}
	if (!p || *p)
		return SL_E_PARSE;
	if (f[0] < 1 || f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > civil_month_days(f[0], f[1]) ||
	    f[3] > 23 || f[4] > 59 || f[5] > 59)
		return SL_E_PARSE;
	v = civil_days(f[0], f[1], f[2]) * DAY_SECS + f[3] * HOUR_SECS + f[4] * 60 + f[5] -
	    (int64_t)off * 60;
	/* an offset can carry 0001-01-01 or 9999-12-31 past what the text
	 * form can write back */
	if (v < WIN_TIME_MIN || v > TIME_TOP)
		return SL_E_PARSE;
	*t = v;
	return 0;
}

void win_time_format(int64_t t, char out[WIN_TIME_MAX])
{
	int64_t days, rem, y;
	int m, d;

	/* clamped so that the text always has four digits of year and fits:
	 * no valid bound lies outside */
	if (t < WIN_TIME_MIN)
		t = WIN_TIME_MIN;
	if (t > TIME_TOP)
		t = TIME_TOP;
	days = floor_div(t, DAY_SECS);
	rem = t - days * DAY_SECS;
	civil_date(days, &y, &m, &d);
	/* the remainders change no value: they tell the compiler each
	 * field's width, so that it sees the text fits */
	snprintf(out, WIN_TIME_MAX, "%04u-%02u-%02u %02u:%02u:%02u", (unsigned)y % 10000u,
		 (unsigned)m % 100u, (unsigned)d % 100u, (unsigned)(rem / HOUR_SECS) % 100u,
		 (unsigned)(rem / 60 % 60), (unsigned)(rem % 60));
}
