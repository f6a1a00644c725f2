/*
 * ISO-8601 dates and times and unix seconds, normalized for DuckDB. Shapes
 * are matched exactly (no locale, no guessing of field order); every field
 * is range-checked, so "2024-02-30" or "25:00" never reach the warehouse.
 * Only the years 0001 to 9999 are taken: four-digit years are what senders
 * write, and it keeps every instant inside DuckDB's TIMESTAMP range.
 */
#include "ingest/isotime.h"

#include "core/civil.h"
#include "core/err.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0001-01-01 00:00:00 and 9999-12-31 23:59:59 in unix seconds */
#define FIRST_SECOND (-62135596800LL)
#define LAST_SECOND 253402300799LL
/* DuckDB keeps TIMETZ offsets below 16 hours; real zones stay within 14 */
#define MAX_OFFSET_HOURS 15

struct stamp {
	int year, month, day;
	int hour, minute, second;
	const char *frac; /* the fraction's digits as written, nfrac of them */
	int nfrac;
	int offset_min; /* east of UTC */
	bool offset_bad;
};

static const char *const shapes[] = {
	[ISOTIME_DATE] = "expected YYYY-MM-DD",
	[ISOTIME_TIME] = "expected HH:MM[:SS[.fraction]]",
	[ISOTIME_TIMETZ] = "expected HH:MM[:SS[.fraction]] and an optional Z or +HH:MM",
	[ISOTIME_TIMESTAMP] = "expected YYYY-MM-DD[THH:MM[:SS[.fraction]]] and an optional Z or "
			      "+HH:MM, or unix seconds",
	[ISOTIME_TIMESTAMPTZ] = "expected YYYY-MM-DD[THH:MM[:SS[.fraction]]] and an optional Z "
				"or +HH:MM, or unix seconds",
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Exactly n digits. */
static bool read_number(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!is_digit((*p)[i]))
			return false;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return true;
}

static bool read_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

static bool read_date(const char **p, struct stamp *t)
{
	return read_number(p, 4, &t->year) && read_char(p, '-') && read_number(p, 2, &t->month) &&
	       read_char(p, '-') && read_number(p, 2, &t->day);
}

/* HH:MM[:SS[.f]], with one to nine digits of fraction (nanoseconds, the
 * finest DuckDB keeps). */
static bool read_clock(const char **p, struct stamp *t)
{
	if (!read_number(p, 2, &t->hour) || !read_char(p, ':') || !read_number(p, 2, &t->minute))
		return false;
	if (!read_char(p, ':'))
		return true;
	if (!read_number(p, 2, &t->second))
		return false;
	if (!read_char(p, '.'))
		return true;
	t->frac = *p;
	while (is_digit(**p))
		(*p)++;
	t->nfrac = (int)(*p - t->frac);
	return t->nfrac >= 1 && t->nfrac <= 9;
}

/* An optional Z, +HH, +HHMM or +HH:MM (or with '-'). */
static bool read_zone(const char **p, struct stamp *t)
{
	int sign, hours, minutes = 0;

	if (**p == 'Z' || **p == 'z') {
		(*p)++;
		return true;
	}
	if (**p != '+' && **p != '-')
		return true;
	sign = **p == '-' ? -1 : 1;
	(*p)++;
	if (!read_number(p, 2, &hours))
		return false;
	if (read_char(p, ':')) {
		if (!read_number(p, 2, &minutes))
			return false;
	} else if (is_digit(**p) && !read_number(p, 2, &minutes)) {
		return false;
	}
	/* the shape is right: check_fields reports the range */
	t->offset_bad = hours > MAX_OFFSET_HOURS || minutes > 59;
	t->offset_min = sign * (hours * 60 + minutes);
	return true;
}

static bool read_timestamp(const char **p, struct stamp *t)
{
	if (!read_date(p, t))
		return false;
	if (!**p)
		return true;
	if (**p != 'T' && **p != 't' && **p != ' ')
		return false;
	(*p)++;
	return read_clock(p, t) && read_zone(p, t);
}

/* A hint for the first field out of range, or NULL. */
static const char *check_fields(const struct stamp *t)
{
	if (t->year < 1)
		return "out of range (years 0001 to 9999)";
	if (t->month < 1 || t->month > 12 || t->day < 1 ||
	    t->day > civil_month_days(t->year, t->month))
		return "no such date";
	if (t->hour > 23 || t->minute > 59 || t->second > 59)
		return "no such time";
	if (t->offset_bad)
		return "offset out of range";
	return NULL;
}

static int invalid(const char **why, const char *hint)
{
	*why = hint;
	return SL_E_INVALID;
}

/* "YYYY-MM-DD HH:MM:SS[.f]" in UTC, and "+00" for TIMESTAMPTZ. */
static int write_instant(enum isotime_kind kind, int64_t secs, const char *frac, int nfrac,
			 char out[ISOTIME_MAX], const char **why)
{
	int64_t days, rem, y;
	int m, d;

	if (secs < FIRST_SECOND || secs > LAST_SECOND)
		return invalid(why, "out of range (years 0001 to 9999)");
	days = secs / 86400;
	rem = secs % 86400;
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	civil_date(days, &y, &m, &d);
	snprintf(out, ISOTIME_MAX, "%04d-%02d-%02d %02d:%02d:%02d%s%.*s%s", (int)y, m, d,
		 (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60), nfrac ? "." : "", nfrac,
		 nfrac ? frac : "", kind == ISOTIME_TIMESTAMPTZ ? "+00" : "");
	return 0;
}

int isotime_parse(enum isotime_kind kind, const char *s, char out[ISOTIME_MAX], const char **why)
{
	struct stamp t = { .year = 1970, .month = 1, .day = 1 };
	const char *p = s, *hint;
	bool ok;
	int64_t secs;

	switch (kind) {
	case ISOTIME_DATE:
		ok = read_date(&p, &t);
		break;
	case ISOTIME_TIME:
		ok = read_clock(&p, &t);
		break;
	case ISOTIME_TIMETZ:
		ok = read_clock(&p, &t) && read_zone(&p, &t);
		break;
	default:
		ok = read_timestamp(&p, &t);
	}
	if (!ok || *p)
		return invalid(why, shapes[kind]);
	hint = check_fields(&t);
	if (hint)
		return invalid(why, hint);
	switch (kind) {
	case ISOTIME_DATE:
		snprintf(out, ISOTIME_MAX, "%04d-%02d-%02d", t.year, t.month, t.day);
		return 0;
	case ISOTIME_TIME:
	case ISOTIME_TIMETZ:
		snprintf(out, ISOTIME_MAX, "%02d:%02d:%02d%s%.*s", t.hour, t.minute, t.second,
			 t.nfrac ? "." : "", t.nfrac, t.nfrac ? t.frac : "");
		if (kind == ISOTIME_TIMETZ) {
			int off = abs(t.offset_min);
			size_t n = strlen(out);

			snprintf(out + n, ISOTIME_MAX - n, "%c%02d:%02d", t.offset_min < 0 ? '-' : '+',
				 off / 60, off % 60);
		}
		return 0;
	default:
		secs = civil_days(t.year, t.month, t.day) * 86400 + t.hour * 3600 +
		       t.minute * 60 + t.second - (int64_t)t.offset_min * 60;
		return write_instant(kind, secs, t.frac, t.nfrac, out, why);
	}
}

int isotime_from_unix(enum isotime_kind kind, double secs, char out[ISOTIME_MAX],
		      const char **why)
{
	double whole;
	long micros;
	char frac[8];
	int nfrac = 0;

	/* also refuses NaN, and keeps the conversions below in range */
	if (!(secs >= (double)FIRST_SECOND && secs < (double)LAST_SECOND + 1))
		return invalid(why, "out of range (years 0001 to 9999)");
	whole = floor(secs);
	micros = lround((secs - whole) * 1e6);
	if (micros == 1000000) {
		whole += 1;
		micros = 0;
	}
	if (micros) {
		/* six digits, trailing zeros dropped: 1.5 s is written .5 */
		snprintf(frac, sizeof(frac), "%06ld", micros);
		nfrac = 6;
		while (frac[nfrac - 1] == '0')
			nfrac--;
	}
	return write_instant(kind, (int64_t)whole, frac, nfrac, out, why);
}
