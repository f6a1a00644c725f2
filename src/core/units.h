/*
 * Durations ("200ms", "10s", "5m", "1h", "7d") and sizes ("512KiB", "8MiB")
 * as written in sluice.yml and @config, and UTC timestamps.
 */
#ifndef SL_CORE_UNITS_H
#define SL_CORE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* The longest duration any setting takes: a year. Longer is a slip of the
 * unit (a timer nobody waits for, a window no data fills). */
#define UNITS_DURATION_MAX_MS (365LL * 86400000)

/* Parses a duration into milliseconds. A bare 0 is allowed. Returns 0, or
 * SL_E_PARSE when the text is not a duration or is too large. */
int units_parse_duration(const char *s, int64_t *ms);
/* Parses a size into bytes (B, KiB, MiB, GiB; KB/MB/GB as 1000s). */
int units_parse_size(const char *s, int64_t *bytes);
/* Formats a duration compactly ("250ms", "1.50s", "2m05s", "2h00m"). */
void units_format_duration(int64_t ms, char *out, int outlen);
/* Milliseconds since the epoch, wall clock and monotonic. */
int64_t units_now_ms(void);
int64_t units_mono_ms(void);
int64_t units_mono_us(void);
/* Formats ms since the epoch as a UTC 'YYYY-MM-DD HH:MM:SS.mmm' into out,
 * the text every warehouse reads as a TIMESTAMP. */
void units_format_ts(int64_t ms, char *out, size_t outlen);

#endif
