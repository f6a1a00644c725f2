/*
 * Unit tests for durations and sizes (src/core/units.c): every unit, the
 * bare 0, what is refused, and the compact duration format.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "core/units.h"

#include <string.h>

static int64_t duration(const char *s)
{
	int64_t ms = -12345;
	int rc = units_parse_duration(s, &ms);

	if (rc)
		fail_msg("'%s' is not a duration (%d)", s, rc);
	return ms;
}

static int64_t size(const char *s)
{
	int64_t bytes = -12345;
	int rc = units_parse_size(s, &bytes);

	if (rc)
		fail_msg("'%s' is not a size (%d)", s, rc);
	return bytes;
}

/* s must be refused as a duration, leaving the output untouched. */
static void refused_duration(const char *s)
{
	int64_t ms = 777;

	if (units_parse_duration(s, &ms) != SL_E_PARSE)
		fail_msg("'%s' was accepted as a duration (%lld ms)", s, (long long)ms);
	assert_int_equal(ms, 777); /* untouched on failure */
}

/* s must be refused as a size, leaving the output untouched. */
static void refused_size(const char *s)
{
	int64_t bytes = 777;

	if (units_parse_size(s, &bytes) != SL_E_PARSE)
		fail_msg("'%s' was accepted as a size (%lld)", s, (long long)bytes);
	assert_int_equal(bytes, 777);
}

static void test_durations(void **state)
{
	(void)state;
	assert_int_equal(duration("200ms"), 200);
	assert_int_equal(duration("1ms"), 1);
	assert_int_equal(duration("10s"), 10000);
	assert_int_equal(duration("5m"), 300000);
	assert_int_equal(duration("5min"), 300000);
	assert_int_equal(duration("1h"), 3600000);
	assert_int_equal(duration("24h"), 86400000);
	assert_int_equal(duration("7d"), 7LL * 86400000);
	assert_int_equal(duration("1w"), 604800000);
	assert_int_equal(duration("52w"), 52LL * 604800000);
	assert_int_equal(duration("1.5s"), 1500);
	assert_int_equal(duration("0.25h"), 900000);
	assert_int_equal(duration(" 10s "), 10000);
	assert_int_equal(duration("10 s"), 10000);
	/* "ms" is milliseconds, not minutes */
	assert_int_equal(duration("3ms"), 3);
	assert_int_equal(duration("3m"), 180000);
}

static void test_duration_zero(void **state)
{
	(void)state;
	assert_int_equal(duration("0"), 0);
	assert_int_equal(duration(" 0 "), 0);
	assert_int_equal(duration("0s"), 0);
	assert_int_equal(duration("0ms"), 0);
	assert_int_equal(duration("0.0"), 0);
}

static void test_duration_invalid(void **state)
{
	static const char *const bad[] = {
		"", " ", "10", "1", "s", "ms", "-5s", "+5s", "10x", "10sec", "10 seconds", "1h30m",
		"5M", "5S", "10s10", "abc", "soon", ".5s", "1 0s", "5 ms x", NULL,
	};

	(void)state;
	for (size_t i = 0; bad[i]; i++)
		refused_duration(bad[i]);
}

static void test_duration_number_forms(void **state)
{
	(void)state;
	/* digits with an optional fraction: no hex, exponents or signs */
	refused_duration("0x10s");
	refused_duration("1e3s");
	refused_duration("1E3s");
	refused_duration("-1s");
	refused_duration("1.s");
	refused_duration("inf s");
	refused_duration("nan s");
	assert_int_equal(duration("1.5s"), 1500);
	assert_int_equal(duration("10.25s"), 10250);
	refused_size("0x10B");
	refused_size("1e3KiB");
	assert_int_equal(size("1.5KiB"), 1536);
}

static void test_duration_overflow(void **state)
{
	(void)state;
	/* too large for 64-bit milliseconds: refused, not wrapped or clamped */
	refused_duration("99999999999999999999d");
	refused_duration("99999999999999999999ms");
	refused_duration("1e30s");
	refused_duration("999999999999999w");
	assert_int_equal(duration("10000w"), 10000LL * 604800000);
}

static void test_sizes(void **state)
{
	(void)state;
	assert_int_equal(size("100B"), 100);
	assert_int_equal(size("1KiB"), 1024);
	assert_int_equal(size("512KiB"), 512 * 1024);
	assert_int_equal(size("8MiB"), 8 * 1024 * 1024);
	assert_int_equal(size("1GiB"), 1024LL * 1024 * 1024);
	assert_int_equal(size("4GiB"), 4LL * 1024 * 1024 * 1024);
	assert_int_equal(size("1KB"), 1000);
	assert_int_equal(size("2MB"), 2000000);
	assert_int_equal(size("3GB"), 3000000000LL);
	assert_int_equal(size("1.5KiB"), 1536);
	assert_int_equal(size("0"), 0);
	assert_int_equal(size("0B"), 0);
	assert_int_equal(size(" 64 KiB "), 65536);
}

static void test_size_invalid(void **state)
{
	static const char *const bad[] = {
		"", "10", "KiB", "-1KiB", "10kib", "10kb", "10K", "10Ki", "10 bytes", "lots",
		"1MiBB", "10s", NULL,
	};

	(void)state;
	for (size_t i = 0; bad[i]; i++)
		refused_size(bad[i]);
}

static void test_size_overflow(void **state)
{
	(void)state;
	refused_size("99999999999GiB");
	refused_size("99999999999999999999B");
	assert_int_equal(size("1000GiB"), 1000LL * 1024 * 1024 * 1024);
}

static void test_format(void **state)
{
	char out[32];

	(void)state;
	units_format_duration(0, out, sizeof(out));
	assert_string_equal(out, "0ms");
	units_format_duration(250, out, sizeof(out));
	assert_string_equal(out, "250ms");
	units_format_duration(999, out, sizeof(out));
	assert_string_equal(out, "999ms");
	units_format_duration(90000, out, sizeof(out));
	assert_string_equal(out, "1m30s");
	units_format_duration(605000, out, sizeof(out));
	assert_string_equal(out, "10m05s");
	units_format_duration(3600000 + 5 * 60000, out, sizeof(out));
	assert_string_equal(out, "1h05m");
	/* a small output buffer is cut, never overrun */
	units_format_duration(250, out, 3);
	assert_string_equal(out, "25");
}

static void test_format_documented(void **state)
{
	char out[32];

	(void)state;
	/* the examples units.h gives: seconds keep two decimals, and minutes
	 * and hours always show the next unit down */
	units_format_duration(250, out, sizeof(out));
	assert_string_equal(out, "250ms");
	units_format_duration(1500, out, sizeof(out));
	assert_string_equal(out, "1.50s");
	units_format_duration(125000, out, sizeof(out));
	assert_string_equal(out, "2m05s");
	units_format_duration(7200000, out, sizeof(out));
	assert_string_equal(out, "2h00m");
}

static void test_clocks(void **state)
{
	int64_t a = units_mono_ms(), b = units_mono_ms();
	int64_t now = units_now_ms();

	(void)state;
	assert_true(b >= a);
	/* after 2020-01-01 and before 2200-01-01 */
	assert_true(now > 1577836800000LL);
	assert_true(now < 7258118400000LL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_duration_zero),
		cmocka_unit_test(test_duration_invalid),
		cmocka_unit_test(test_duration_number_forms),
		cmocka_unit_test(test_duration_overflow),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_size_invalid),
		cmocka_unit_test(test_size_overflow),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_documented),
		cmocka_unit_test(test_clocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
