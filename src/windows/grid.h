/*
 * Time as windows see it: UTC instants in whole seconds since the epoch,
 * and the grains a temporal model's grid is cut at (1h, 1d, 1w, 1mo).
 * Every boundary is a UTC instant, so a change of daylight saving time
 * never shifts or merges a window; weeks start on Monday 00:00 UTC (as
 * date_trunc('week') does), months are calendar months. Pure functions:
 * nothing here allocates, reads a clock or fails on a valid input.
 */
#ifndef SL_WINDOWS_GRID_H
#define SL_WINDOWS_GRID_H

#include <stddef.h>
#include <stdint.h>

enum win_grain { WIN_HOUR, WIN_DAY, WIN_WEEK, WIN_MONTH };

/* Room for "YYYY-MM-DD HH:MM:SS" and its NUL. */
#define WIN_TIME_MAX 20

/* The earliest and latest instants a window bound may take: 0001-01-01 and
 * 9999-12-01 (the start of the last month any grain can still close). */
#define WIN_TIME_MIN (-62135596800LL)
#define WIN_TIME_LAST (253399622400LL)

/* "1h", "1d", "1w", "1mo" -> *g. Returns 0, or SL_E_PARSE. */
int win_grain_parse(const char *s, enum win_grain *g);
/* The grain as written in @config ("1h", ...). */
const char *win_grain_name(enum win_grain g);

/* The since of the window of grain g that holds t. */
int64_t win_floor(enum win_grain g, int64_t t);
/* The bound k windows after the aligned instant t (k < 0: before). */
int64_t win_add(enum win_grain g, int64_t t, int64_t k);
/* How many windows of grain g lie in [a, b), both aligned, a <= b. */
int64_t win_count(enum win_grain g, int64_t a, int64_t b);

/* Parses a UTC instant as users write it: 'YYYY-MM-DD', optionally followed
 * by ' ' or 'T' and HH:MM or HH:MM:SS, optionally by 'Z' or '+00:00'
 * ('+00', '+0000'); another offset is applied (the instant is the same).
 * A fraction of a second, a date that does not exist (2026-02-30), a field
 * out of range or trailing text is refused. Returns 0, or SL_E_PARSE. */
int win_time_parse(const char *s, int64_t *t);
/* t as 'YYYY-MM-DD HH:MM:SS', the text both warehouses read as a
 * TIMESTAMP and write back unchanged. */
void win_time_format(int64_t t, char out[WIN_TIME_MAX]);

#endif
