/*
 * Dates and times as senders write them (ISO-8601 text, or unix seconds),
 * checked field by field and rewritten in the one form DuckDB's cast from
 * text reads the same way on every path. The rewrite matters: DuckDB's
 * appender drops a UTC offset instead of applying it, so values with an
 * offset are converted to UTC here. Pure functions on strings; never
 * allocates.
 */
#ifndef SL_INGEST_ISOTIME_H
#define SL_INGEST_ISOTIME_H

enum isotime_kind {
	ISOTIME_DATE,        /* YYYY-MM-DD */
	ISOTIME_TIME,        /* HH:MM[:SS[.fraction]], no zone */
	ISOTIME_TIMETZ,      /* a time with an optional zone, kept as an offset */
	ISOTIME_TIMESTAMP,   /* a date, optionally a time and a zone; stored as UTC */
	ISOTIME_TIMESTAMPTZ, /* the same, written with an explicit +00 */
};

/* Room for the longest text written: "YYYY-MM-DD HH:MM:SS.fffffffff+00". */
#define ISOTIME_MAX 40

/* Checks s against the shapes kind takes and writes the normalized text to
 * out. Returns 0, or SL_E_INVALID with *why pointing to a static hint
 * ("no such date", "expected YYYY-MM-DD", ...). */
int isotime_parse(enum isotime_kind kind, const char *s, char out[ISOTIME_MAX],
		  const char **why);

/* Unix seconds (a fraction is kept to the microsecond) as a UTC
 * timestamp, for ISOTIME_TIMESTAMP and ISOTIME_TIMESTAMPTZ. Returns 0, or
 * SL_E_INVALID with *why set when the instant is outside the years 0001 to
 * 9999. */
int isotime_from_unix(enum isotime_kind kind, double secs, char out[ISOTIME_MAX],
		      const char **why);

#endif
