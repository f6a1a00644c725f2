/*
 * Unit tests for the grid of windows (src/windows/grid.c): every grain's
 * floor, sum and count, month ends and leap years, weeks across a year
 * end, instants before 1970, daylight saving days (irrelevant: UTC), and
 * the text of an instant, accepted and refused. The expected instants were
 * computed apart from this code (Python's calendar.timegm), so a slip in
 * the calendar arithmetic cannot agree with itself here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "windows/grid.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define H 3600LL
#define D 86400LL

/* 2026-01-01 00:00:00 UTC, and the others the tests lean on */
#define Y2026 1767225600LL
#define MAR29_2026 1774742400LL  /* a Sunday: Europe's clocks go forward */
#define NOV01_2026 1793491200LL  /* a Sunday: America's clocks go back */
#define MON_2025_12_22 1766361600LL
#define MON_2025_12_29 1766966400LL
#define MON_2026_01_05 1767571200LL
#define MON_2026_01_12 1768176000LL
#define FEB01_2024 1706745600LL
#define MAR01_2024 1709251200LL
#define FEB01_2100 4105123200LL
#define MAR01_2100 4107542400LL
#define FEB01_2000 949363200LL
#define MAR01_2000 951868800LL
#define FEB01_2026 1769904000LL
#define MAR01_2026 1772323200LL
#define DEC01_2025 1764547200LL
#define DEC01_1969 (-2678400LL)
#define FEB28_1900 (-2203977600LL)
#define MAR01_1900 (-2203891200LL)
#define NOV01_9999 253397030400LL
#define LAST_SECOND 253402300799LL /* 9999-12-31 23:59:59 */

static int64_t when(const char *s)
{
	int64_t t = -12345;
	int rc = win_time_parse(s, &t);

	if (rc)
		fail_msg("'%s' is not an instant (%d)", s, rc);
	return t;
}

/* s must be refused, leaving the output untouched. */
static void refused(const char *s)
{
	int64_t t = 777;

	if (win_time_parse(s, &t) != SL_E_PARSE)
		fail_msg("'%s' was accepted as an instant (%lld)", s, (long long)t);
	assert_int_equal(t, 777);
}

static void assert_text(int64_t t, const char *want)
{
	char out[WIN_TIME_MAX];

	win_time_format(t, out);
	assert_string_equal(out, want);
}

static void test_grain_names(void **state)
{
	static const char *const bad[] = { "", "1H", "2h", "1m", "1month", "1mo ", " 1d", "d",
					   "1", "1y", NULL };
	enum win_grain g = WIN_WEEK;

	(void)state;
	assert_int_equal(win_grain_parse("1h", &g), 0);
	assert_int_equal(g, WIN_HOUR);
	assert_int_equal(win_grain_parse("1d", &g), 0);
	assert_int_equal(g, WIN_DAY);
	assert_int_equal(win_grain_parse("1w", &g), 0);
	assert_int_equal(g, WIN_WEEK);
	assert_int_equal(win_grain_parse("1mo", &g), 0);
	assert_int_equal(g, WIN_MONTH);
	for (size_t i = 0; bad[i]; i++) {
		g = WIN_DAY;
		if (win_grain_parse(bad[i], &g) != SL_E_PARSE)
			fail_msg("'%s' was accepted as a grain", bad[i]);
		assert_int_equal(g, WIN_DAY);
	}
	assert_string_equal(win_grain_name(WIN_HOUR), "1h");
	assert_string_equal(win_grain_name(WIN_DAY), "1d");
	assert_string_equal(win_grain_name(WIN_WEEK), "1w");
	assert_string_equal(win_grain_name(WIN_MONTH), "1mo");
}

static void test_hours(void **state)
{
	(void)state;
	assert_int_equal(win_floor(WIN_HOUR, MAR29_2026 + H + 1815), MAR29_2026 + H);
	assert_int_equal(win_floor(WIN_HOUR, MAR29_2026 + H), MAR29_2026 + H);
	assert_int_equal(win_floor(WIN_HOUR, MAR29_2026 + H - 1), MAR29_2026);
	assert_int_equal(win_add(WIN_HOUR, MAR29_2026, 3), MAR29_2026 + 3 * H);
	assert_int_equal(win_add(WIN_HOUR, MAR29_2026, -25), MAR29_2026 - 25 * H);
	assert_int_equal(win_add(WIN_HOUR, MAR29_2026, 0), MAR29_2026);
	assert_int_equal(win_count(WIN_HOUR, MAR29_2026, MAR29_2026 + 5 * H), 5);
	assert_int_equal(win_count(WIN_HOUR, MAR29_2026, MAR29_2026), 0);
	/* before 1970: toward the past, not toward zero */
	assert_int_equal(win_floor(WIN_HOUR, -1), -H);
	assert_int_equal(win_floor(WIN_HOUR, -H), -H);
	assert_int_equal(win_floor(WIN_HOUR, -H - 1), -2 * H);
	assert_int_equal(win_floor(WIN_HOUR, 0), 0);
	assert_int_equal(win_count(WIN_HOUR, -2 * H, H), 3);
}

static void test_days(void **state)
{
	(void)state;
	assert_int_equal(win_floor(WIN_DAY, Y2026 + 23 * H + 3599), Y2026);
	assert_int_equal(win_floor(WIN_DAY, Y2026 + D), Y2026 + D);
	assert_int_equal(win_floor(WIN_DAY, -43200), -D); /* 1969-12-31 12:00 */
	assert_int_equal(win_floor(WIN_DAY, -1), -D);
	assert_int_equal(win_floor(WIN_DAY, -D), -D);
	assert_int_equal(win_add(WIN_DAY, Y2026, -1), Y2026 - D);
	assert_int_equal(win_add(WIN_DAY, FEB28_1900, 1), MAR01_1900); /* 1900: no Feb 29 */
	assert_int_equal(win_count(WIN_DAY, when("2024-01-01"), when("2025-01-01")), 366);
	assert_int_equal(win_count(WIN_DAY, when("2100-01-01"), when("2101-01-01")), 365);
	assert_int_equal(win_count(WIN_DAY, when("2000-01-01"), when("2001-01-01")), 366);
	assert_int_equal(win_count(WIN_DAY, when("1900-01-01"), when("1901-01-01")), 365);
	assert_int_equal(win_count(WIN_DAY, -10 * D, 10 * D), 20);
}

static void test_weeks(void **state)
{
	(void)state;
	/* 2026-01-01 is a Thursday: its week began on Monday 2025-12-29 */
	assert_int_equal(win_floor(WIN_WEEK, Y2026), MON_2025_12_29);
	assert_int_equal(win_floor(WIN_WEEK, Y2026 + 4 * D - 1), MON_2025_12_29); /* Sun 23:59:59 */
	assert_int_equal(win_floor(WIN_WEEK, MON_2026_01_05), MON_2026_01_05);
	assert_int_equal(win_floor(WIN_WEEK, MON_2025_12_29 - 1), MON_2025_12_22);
	assert_int_equal(win_add(WIN_WEEK, MON_2025_12_22, 1), MON_2025_12_29);
	assert_int_equal(win_add(WIN_WEEK, MON_2025_12_29, 1), MON_2026_01_05);
	assert_int_equal(win_add(WIN_WEEK, MON_2026_01_12, -3), MON_2025_12_22);
	assert_int_equal(win_count(WIN_WEEK, MON_2025_12_22, MON_2026_01_12), 3);
	/* 1970-01-01 is a Thursday too: its week began in 1969 */
	assert_int_equal(win_floor(WIN_WEEK, 0), -3 * D);
	assert_int_equal(win_floor(WIN_WEEK, -3 * D), -3 * D);
	assert_int_equal(win_floor(WIN_WEEK, -3 * D - 1), -10 * D);
	assert_int_equal(win_floor(WIN_WEEK, 4 * D), 4 * D); /* Monday 1970-01-05 */
	assert_int_equal(win_count(WIN_WEEK, -10 * D, 4 * D), 2);
}

static void test_months(void **state)
{
	(void)state;
	/* a window of Jan 31 is January; the next ones are whole months */
	assert_int_equal(win_floor(WIN_MONTH, when("2026-01-31 12:00")), Y2026);
	assert_int_equal(win_add(WIN_MONTH, Y2026, 1), FEB01_2026);
	assert_int_equal(win_add(WIN_MONTH, Y2026, 2), MAR01_2026);
	assert_int_equal(win_add(WIN_MONTH, FEB01_2026, 1), MAR01_2026);
	assert_int_equal(win_add(WIN_MONTH, Y2026, -1), DEC01_2025);
	assert_int_equal(win_add(WIN_MONTH, Y2026, 12), when("2027-01-01"));
	assert_int_equal(win_add(WIN_MONTH, Y2026, -13), when("2024-12-01"));
	assert_int_equal(win_add(WIN_MONTH, 0, -1), DEC01_1969);
	assert_int_equal(win_add(WIN_MONTH, DEC01_1969, 1), 0);
	/* month ends: February by the leap rules */
	assert_int_equal(win_floor(WIN_MONTH, when("2024-02-29 13:00")), FEB01_2024);
	assert_int_equal(win_add(WIN_MONTH, FEB01_2024, 1) - FEB01_2024, 29 * D);
	assert_int_equal(win_add(WIN_MONTH, FEB01_2024, 1), MAR01_2024);
	assert_int_equal(win_add(WIN_MONTH, FEB01_2100, 1) - FEB01_2100, 28 * D);
	assert_int_equal(win_add(WIN_MONTH, FEB01_2100, 1), MAR01_2100);
	assert_int_equal(win_add(WIN_MONTH, FEB01_2000, 1) - FEB01_2000, 29 * D);
	assert_int_equal(win_add(WIN_MONTH, FEB01_2000, 1), MAR01_2000);
	assert_int_equal(win_add(WIN_MONTH, FEB01_2026, 1) - FEB01_2026, 28 * D);
	assert_int_equal(win_floor(WIN_MONTH, MAR01_2024 - 1), FEB01_2024);
	assert_int_equal(win_floor(WIN_MONTH, MAR01_2024), MAR01_2024);
	/* before 1970 */
	assert_int_equal(win_floor(WIN_MONTH, -1468800), DEC01_1969); /* 1969-12-15 */
	assert_int_equal(win_floor(WIN_MONTH, -1), DEC01_1969);
	assert_int_equal(win_floor(WIN_MONTH, FEB28_1900), when("1900-02-01"));
	/* counts */
	assert_int_equal(win_count(WIN_MONTH, when("2024-01-01"), MAR01_2026), 26);
	assert_int_equal(win_count(WIN_MONTH, DEC01_1969, MAR01_2024), 651);
	assert_int_equal(win_count(WIN_MONTH, Y2026, Y2026), 0);
	/* the edges of the range */
	assert_int_equal(win_floor(WIN_MONTH, WIN_TIME_MIN), WIN_TIME_MIN);
	assert_int_equal(win_floor(WIN_MONTH, WIN_TIME_LAST + 5 * D), WIN_TIME_LAST);
	assert_int_equal(win_add(WIN_MONTH, WIN_TIME_LAST, -1), NOV01_9999);
	assert_int_equal(win_count(WIN_MONTH, WIN_TIME_MIN, WIN_TIME_LAST), 9999 * 12 - 1);
	assert_int_equal(when("0001-01-01"), WIN_TIME_MIN);
	assert_int_equal(when("9999-12-01"), WIN_TIME_LAST);
}

/* Boundaries are UTC: a process in a zone with daylight saving sees the
 * same 24 hours on the days its clocks move. */
static void test_dst_days(void **state)
{
	(void)state;
	setenv("TZ", "Europe/Stockholm", 1);
	tzset();
	assert_int_equal(win_count(WIN_HOUR, MAR29_2026, win_add(WIN_DAY, MAR29_2026, 1)), 24);
	assert_int_equal(win_count(WIN_HOUR, NOV01_2026, win_add(WIN_DAY, NOV01_2026, 1)), 24);
	assert_int_equal(win_floor(WIN_DAY, MAR29_2026 + 2 * H + 30 * 60), MAR29_2026);
	assert_int_equal(win_add(WIN_HOUR, MAR29_2026 + H, 1), MAR29_2026 + 2 * H);
	assert_int_equal(when("2026-03-29 02:30"), MAR29_2026 + 2 * H + 30 * 60);
	assert_int_equal(when("2026-10-25 02:30"), when("2026-10-25") + 2 * H + 30 * 60);
	assert_text(MAR29_2026 + 2 * H, "2026-03-29 02:00:00");
	setenv("TZ", "America/New_York", 1);
	tzset();
	assert_int_equal(win_count(WIN_HOUR, NOV01_2026, win_add(WIN_DAY, NOV01_2026, 1)), 24);
	assert_int_equal(win_floor(WIN_WEEK, Y2026), MON_2025_12_29);
	unsetenv("TZ");
	tzset();
}

/* For random instants and every grain: the floor holds the instant, is its
 * own floor, and k windows on and back lead to the same bound. */
static void test_grid_laws(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	const int64_t lo = when("1000-01-01"), span = when("9000-01-01") - lo;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		int64_t t = lo + (int64_t)(x % (uint64_t)span);
		int64_t k = (int64_t)(x >> 40) % 1000 - 500;

		for (int g = WIN_HOUR; g <= WIN_MONTH; g++) {
			int64_t f = win_floor(g, t), next = win_add(g, f, 1), far = win_add(g, f, k);
			char text[WIN_TIME_MAX];

			assert_true(f <= t);
			assert_true(t < next);
			assert_int_equal(win_floor(g, f), f);
			assert_int_equal(win_floor(g, next - 1), f);
			assert_int_equal(win_floor(g, far), far);
			assert_int_equal(win_count(g, f, next), 1);
			assert_int_equal(win_count(g, f < far ? f : far, f < far ? far : f), k < 0 ? -k : k);
			assert_int_equal(win_add(g, far, -k), f);
			win_time_format(f, text);
			if (g == WIN_MONTH)
				assert_string_equal(text + 7, "-01 00:00:00");
			else if (g >= WIN_DAY)
				assert_string_equal(text + 10, " 00:00:00");
			else
				assert_string_equal(text + 13, ":00:00");
			/* Mondays: 1969-12-29 was one */
			if (g == WIN_WEEK)
				assert_int_equal(((f / D + 3) % 7 + 7) % 7, 0);
		}
	}
}

static void test_parse_forms(void **state)
{
	(void)state;
	assert_int_equal(when("2026-01-01"), Y2026);
	assert_int_equal(when("2026-01-01 00:00"), Y2026);
	assert_int_equal(when("2026-01-01T00:00"), Y2026);
	assert_int_equal(when("2026-01-01 00:00:00"), Y2026);
	assert_int_equal(when("2026-01-01T00:00:00Z"), Y2026);
	assert_int_equal(when("2026-01-01 00:00Z"), Y2026);
	assert_int_equal(when("2026-01-01 00:00:00+00:00"), Y2026);
	assert_int_equal(when("2026-01-01 00:00+00"), Y2026);
	assert_int_equal(when("2026-01-01 00:00+0000"), Y2026);
	assert_int_equal(when("2026-01-01 00:00-00:00"), Y2026);
	assert_int_equal(when("2026-01-01 01:02:03"), Y2026 + H + 2 * 60 + 3);
	assert_int_equal(when("1970-01-01"), 0);
	assert_int_equal(when("1969-12-31 23:59:59"), -1);
	assert_int_equal(when("9999-12-31 23:59:59"), LAST_SECOND);
	/* another offset names the same instant */
	assert_int_equal(when("2026-01-01 02:00+02:00"), Y2026);
	assert_int_equal(when("2026-01-01 02:00+02"), Y2026);
	assert_int_equal(when("2026-01-01 02:00+0200"), Y2026);
	assert_int_equal(when("2025-12-31 22:00-02:00"), Y2026);
	assert_int_equal(when("2026-01-01T05:30+05:30"), Y2026);
	assert_int_equal(when("2026-01-01 00:00:00+05:45"), Y2026 - 5 * H - 45 * 60);
	assert_int_equal(when("2026-01-01 00:00-15:00"), Y2026 + 15 * H);
}

static void test_parse_refused(void **state)
{
	static const char *const bad[] = {
		"", " ", "2026", "2026-01", "26-01-01", "2026-1-01", "2026-01-1", "2026/01/01",
		"20260101", "+2026-01-01", " 2026-01-01", "2026-01-01 ", "2026-01-01T",
		"2026-01-01x", "2026-01-01 00", "2026-01-01 0:00", "2026-01-01 00:0",
		"2026-01-01 00:00:0", "2026-01-01t00:00", "2026-01-01 00:00z", "2026-01-01Z",
		/* a fraction of a second */
		"2026-01-01 00:00:00.5", "2026-01-01 00:00:00.000", "2026-01-01 00:00:00,5",
		/* no such date */
		"2026-02-30", "2026-02-29", "2100-02-29", "2026-04-31", "2026-13-01",
		"2026-00-10", "2026-01-00", "2026-01-32", "0000-01-01",
		/* no such time */
		"2026-01-01 24:00", "2026-01-01 23:60", "2026-01-01 23:59:60",
		/* trailing text */
		"2026-01-01 00:00:00 UTC", "2026-01-01 00:00x", "2026-01-01 00:00:00Z!",
		"2026-01-01 00:00:00+00:00 ", "2026-01-01 00:00:00:00",
		/* bad offsets */
		"2026-01-01 00:00+2", "2026-01-01 00:00+020", "2026-01-01 00:00+02:0",
		"2026-01-01 00:00+02:60", "2026-01-01 00:00+25:00", "2026-01-01 00:00+16:00",
		"2026-01-01 00:00 +00:00", "2026-01-01 00:00+00:00:00", "2026-01-01 00:00+",
		"2026-01-01 00:00+ab", "2026-01-01 00:00UTC", "2026-01-01 00:00+02:00Z",
		/* carried out of the years 0001 to 9999 by the offset */
		"0001-01-01 00:00+01:00", "9999-12-31 23:00-01:00", NULL,
	};

	(void)state;
	for (size_t i = 0; bad[i]; i++)
		refused(bad[i]);
	/* the day before a refused one is fine: the check is the calendar's */
	assert_int_equal(when("2024-02-29"), FEB01_2024 + 28 * D);
	assert_int_equal(when("2000-02-29"), FEB01_2000 + 28 * D);
	assert_int_equal(when("0001-01-01 01:00+01:00"), WIN_TIME_MIN);
}

static void test_format(void **state)
{
	(void)state;
	assert_text(0, "1970-01-01 00:00:00");
	assert_text(-1, "1969-12-31 23:59:59");
	assert_text(Y2026 + H + 2 * 60 + 3, "2026-01-01 01:02:03");
	assert_text(FEB01_2024 + 28 * D + 13 * H, "2024-02-29 13:00:00");
	assert_text(MAR01_1900 - 1, "1900-02-28 23:59:59");
	assert_text(WIN_TIME_MIN, "0001-01-01 00:00:00");
	assert_text(WIN_TIME_LAST, "9999-12-01 00:00:00");
	assert_text(LAST_SECOND, "9999-12-31 23:59:59");
	/* out of the range: the nearest instant the text can hold */
	assert_text(WIN_TIME_MIN - 1, "0001-01-01 00:00:00");
	assert_text(LAST_SECOND + D, "9999-12-31 23:59:59");
}

/* format then parse gives the instant back; parse then format gives the
 * canonical text. */
static void test_round_trips(void **state)
{
	static const char *const texts[] = {
		"1970-01-01 00:00:00", "1969-07-20 20:17:40", "0001-01-01 00:00:00",
		"9999-12-31 23:59:59", "2024-02-29 12:34:56", "2000-02-29 00:00:01",
		"1600-03-01 00:00:00", "1899-12-31 23:59:59", NULL,
	};
	uint64_t x = 88172645463325252ULL;
	char out[WIN_TIME_MAX];

	(void)state;
	for (size_t i = 0; texts[i]; i++) {
		win_time_format(when(texts[i]), out);
		assert_string_equal(out, texts[i]);
	}
	for (int i = 0; i < 50000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int64_t t = WIN_TIME_MIN + (int64_t)(x % (uint64_t)(LAST_SECOND - WIN_TIME_MIN + 1));

		win_time_format(t, out);
		assert_int_equal(strlen(out), WIN_TIME_MAX - 1);
		assert_int_equal(when(out), t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grain_names),
		cmocka_unit_test(test_hours),
		cmocka_unit_test(test_days),
		cmocka_unit_test(test_weeks),
		cmocka_unit_test(test_months),
		cmocka_unit_test(test_dst_days),
		cmocka_unit_test(test_grid_laws),
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_round_trips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
