/*
 * Duration and size parsing and formatting, and clocks.
 */
#include "core/units.h"

#include "core/err.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct unit {
	const char *suffix;
	int64_t factor;
};

static int parse_with_units(const char *s, const struct unit *units, int64_t *out)
{
	const char *end = s;
	double v;

	while (isspace((unsigned char)*s))
		s++;
	/* digits with an optional fraction: no signs, exponents or hex */
	end = s;
	while (isdigit((unsigned char)*end))
		end++;
	if (end == s)
		return SL_E_PARSE;
	if (*end == '.' && isdigit((unsigned char)end[1]))
		for (end++; isdigit((unsigned char)*end);)
			end++;
	v = strtod(s, NULL);
	while (isspace((unsigned char)*end))
		end++;
	if (*end == '\0') {
		if (v != 0)
			return SL_E_PARSE; /* a bare number is ambiguous, except 0 */
		*out = 0;
		return 0;
	}
	for (size_t i = 0; units[i].suffix; i++) {
		size_t n = strlen(units[i].suffix);

		if (strncmp(end, units[i].suffix, n) == 0) {
			const char *rest = end + n;

			while (isspace((unsigned char)*rest))
				rest++;
			if (*rest)
				continue;
			if (v * (double)units[i].factor >= 9.2e18)
				return SL_E_PARSE;
			*out = (int64_t)(v * (double)units[i].factor + 0.5);
			return 0;
		}
	}
	return SL_E_PARSE;
}

int units_parse_duration(const char *s, int64_t *ms)
{
	/* longer suffixes first so "ms" is not read as "m" */
	static const struct unit units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "min", 60000 }, { "m", 60000 },
		{ "h", 3600000 }, { "d", 86400000 }, { "w", 604800000 }, { NULL, 0 },
	};
	return parse_with_units(s, units, ms);
}

int units_parse_size(const char *s, int64_t *bytes)
{
	static const struct unit units[] = {
		{ "KiB", 1024 }, { "MiB", 1024 * 1024 }, { "GiB", 1024LL * 1024 * 1024 },
		{ "KB", 1000 }, { "MB", 1000000 }, { "GB", 1000000000 },
		{ "B", 1 }, { NULL, 0 },
	};
	return parse_with_units(s, units, bytes);
}

void units_format_duration(int64_t ms, char *out, int outlen)
{
	if (ms < 1000)
		snprintf(out, (size_t)outlen, "%lldms", (long long)ms);
	else if (ms < 60000)
		snprintf(out, (size_t)outlen, "%.2fs", (double)ms / 1000.0);
	else if (ms < 3600000)
		snprintf(out, (size_t)outlen, "%lldm%02llds", (long long)(ms / 60000),
			 (long long)(ms % 60000 / 1000));
	else
		snprintf(out, (size_t)outlen, "%lldh%02lldm", (long long)(ms / 3600000),
			 (long long)(ms % 3600000 / 60000));
}

int64_t units_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t units_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t units_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void units_format_ts(int64_t ms, char *out, size_t outlen)
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&s, &tm);
	snprintf(out, outlen, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}
