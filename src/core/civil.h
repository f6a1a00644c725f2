/*
 * The proleptic Gregorian calendar as day numbers: days since 1970-01-01
 * from a civil date and back, for every year a 64-bit count of days holds.
 * Pure arithmetic (Howard Hinnant's days_from_civil and civil_from_days),
 * so no conversion of a date ever goes through the C library's time zone.
 */
#ifndef SL_CORE_CIVIL_H
#define SL_CORE_CIVIL_H

#include <stdbool.h>
#include <stdint.h>

bool civil_leap(int64_t y);
/* The days of month m (1-12) of year y. */
int civil_month_days(int64_t y, int m);
/* Days since 1970-01-01 of y-m-d (m 1-12, d 1-31; d is not checked
 * against the month: the 0th or 32nd day counts on from the month). */
int64_t civil_days(int64_t y, int m, int d);
/* The date of day z since 1970-01-01. */
void civil_date(int64_t z, int64_t *y, int *m, int *d);

#endif
