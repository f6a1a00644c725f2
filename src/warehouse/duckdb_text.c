/*
 * The text of DuckDB values, written straight from a result's vectors
 * into a wh_result: integers, decimals, booleans, dates, times,
 * timestamps, intervals, VARCHAR and BLOB, each the way DuckDB's cast to
 * VARCHAR writes it (tests/unit/test_wh.c holds every family to that
 * text). Calls into DuckDB per value only for the reals of a result that
 * could not have them cast in SQL: result reading is on the hot paths
 * (the live runner, the status document), and a call per value is what
 * the deprecated duckdb_value_varchar cost.
 */
#include "warehouse/duckdb_text.h"

#include "warehouse/wh_impl.h"

#include "core/civil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for the text of any value but a VARCHAR or BLOB: the longest is an
 * interval ("-178956970 years -8 months -2147483648 days -2562047788:00:54.775808"). */
#define TEXT_MAX 96

#define MICROS_PER_DAY 86400000000LL

/* DuckDB's infinite dates and timestamps: the largest value and its
 * negation. */
#define DATE_INFINITY INT32_MAX
#define TIMESTAMP_INFINITY INT64_MAX

/* duckdb.h: a string of up to 12 bytes is kept inside its duckdb_string_t;
 * reading the layout saves two calls into the library per value. */
#define STRING_INLINED 12

typedef unsigned __int128 u128;

/* An integer of any width as a sign and a magnitude: the magnitude of the
 * most negative value does not fit the signed type. */
struct magnitude {
	bool neg;
	u128 u;
};

bool duck_text_native(duckdb_type t)
{
	switch (t) {
	case DUCKDB_TYPE_BOOLEAN:
	case DUCKDB_TYPE_TINYINT:
	case DUCKDB_TYPE_SMALLINT:
	case DUCKDB_TYPE_INTEGER:
	case DUCKDB_TYPE_BIGINT:
	case DUCKDB_TYPE_UTINYINT:
	case DUCKDB_TYPE_USMALLINT:
	case DUCKDB_TYPE_UINTEGER:
	case DUCKDB_TYPE_UBIGINT:
	case DUCKDB_TYPE_HUGEINT:
	case DUCKDB_TYPE_UHUGEINT:
	case DUCKDB_TYPE_DECIMAL:
	case DUCKDB_TYPE_DATE:
	case DUCKDB_TYPE_TIME:
	case DUCKDB_TYPE_TIMESTAMP:
	case DUCKDB_TYPE_INTERVAL:
	case DUCKDB_TYPE_VARCHAR:
	case DUCKDB_TYPE_BLOB:
		return true;
	default:
		return false;
	}
}

struct duck_text_col duck_text_column(duckdb_logical_type t)
{
	struct duck_text_col col = { .type = duckdb_get_type_id(t) };
	bool real = col.type == DUCKDB_TYPE_FLOAT || col.type == DUCKDB_TYPE_DOUBLE;

	if (!duck_text_native(col.type) && !real) {
		col.type = DUCKDB_TYPE_INVALID;
	} else if (col.type == DUCKDB_TYPE_DECIMAL) {
		col.storage = duckdb_decimal_internal_type(t);
		col.width = duckdb_decimal_width(t);
		col.scale = duckdb_decimal_scale(t);
	}
	return col;
}

const char *duck_text_string(const duckdb_string_t *s, size_t *len)
{
	*len = s->value.inlined.length;
	return *len <= STRING_INLINED ? s->value.inlined.inlined : s->value.pointer.ptr;
}

static size_t put(char *out, const char *s)
{
	size_t n = strlen(s);

	memcpy(out, s, n);
	return n;
}

/* The decimal digits of u, written backwards to end at end; returns where
 * they start. Wide values are cut in 19-digit pieces first, as a 128-bit
 * division per digit is slow. */
static char *digits_back(u128 u, char *end)
{
	const uint64_t e19 = 10000000000000000000ULL;
	uint64_t v;

	while (u > UINT64_MAX) {
		uint64_t piece = (uint64_t)(u % e19);

		u /= e19;
		for (int i = 0; i < 19; i++, piece /= 10)
			*--end = (char)('0' + piece % 10);
	}
	v = (uint64_t)u;
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* At least width digits of v, zeros in front; returns their number. */
static size_t put_padded(char *out, uint64_t v, size_t width)
{
	char tmp[24], *end = tmp + sizeof(tmp), *p = digits_back(v, end);

	while ((size_t)(end - p) < width)
		*--p = '0';
	memcpy(out, p, (size_t)(end - p));
	return (size_t)(end - p);
}

static struct magnitude of_signed(int64_t v)
{
	return (struct magnitude){ v < 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v };
}

static struct magnitude of_hugeint(duckdb_hugeint h)
{
	u128 u = (u128)(uint64_t)h.upper << 64 | h.lower;

	return (struct magnitude){ h.upper < 0, h.upper < 0 ? 0 - u : u };
}

static size_t put_integer(char *out, struct magnitude m)
{
	char tmp[48], *end = tmp + sizeof(tmp), *p = digits_back(m.u, end);

	if (m.neg)
		*--p = '-';
	memcpy(out, p, (size_t)(end - p));
	return (size_t)(end - p);
}

/* DuckDB writes the fraction with all its scale digits, and no integer
 * part where the type has no room for one: DECIMAL(9,9) reads .5. */
static size_t put_decimal(char *out, struct magnitude m, unsigned width, unsigned scale)
{
	char tmp[48], *end = tmp + sizeof(tmp), *p;
	u128 pow = 1;

	if (scale == 0)
		return put_integer(out, m);
	for (unsigned i = 0; i < scale; i++)
		pow *= 10;
	p = digits_back(m.u % pow, end);
	while ((size_t)(end - p) < scale)
		*--p = '0';
	*--p = '.';
	if (width > scale)
		p = digits_back(m.u / pow, p);
	if (m.neg)
		*--p = '-';
	memcpy(out, p, (size_t)(end - p));
	return (size_t)(end - p);
}

static struct magnitude decimal_value(const struct duck_text_col *col, const void *data, idx_t i)
{
	switch (col->storage) {
	case DUCKDB_TYPE_SMALLINT:
		return of_signed(((const int16_t *)data)[i]);
	case DUCKDB_TYPE_INTEGER:
		return of_signed(((const int32_t *)data)[i]);
	case DUCKDB_TYPE_BIGINT:
		return of_signed(((const int64_t *)data)[i]);
	default:
		return of_hugeint(((const duckdb_hugeint *)data)[i]);
	}
}

/* A FLOAT or DOUBLE, through DuckDB's own cast, one call per value: its
 * shortest-digits algorithm has quirks of its own (147629008.0 for a float
 * whose shortest text is 147629010.0) that sluice does not copy. Queries
 * have their reals cast to VARCHAR in SQL, which is much faster; this is
 * for the results that could not be wrapped so. */
static size_t put_real(char *out, duckdb_value v)
{
	char *s = duckdb_get_varchar(v);
	size_t n = s ? put(out, s) : 0;

	duckdb_free(s);
	duckdb_destroy_value(&v);
	return n;
}

/* "2024-01-02"; a year before 1 is written as DuckDB does, counted back
 * from 1 BC: "0044-03-15 (BC)". */
static size_t put_date(char *out, int64_t days)
{
	int64_t y;
	int m, d;
	size_t len;

	civil_date(days, &y, &m, &d);
	len = put_padded(out, (uint64_t)(y > 0 ? y : 1 - y), 4);
	out[len++] = '-';
	len += put_padded(out + len, (uint64_t)m, 2);
	out[len++] = '-';
	len += put_padded(out + len, (uint64_t)d, 2);
	if (y <= 0)
		len += put(out + len, " (BC)");
	return len;
}

/* ".123", the microseconds without their trailing zeros; nothing for 0. */
static size_t put_fraction(char *out, uint64_t micros)
{
	size_t len;

	if (!micros)
		return 0;
	out[0] = '.';
	len = 1 + put_padded(out + 1, micros, 6);
	while (out[len - 1] == '0')
		len--;
	return len;
}

/* "HH:MM:SS[.ffffff]"; the hours may pass 23 (an interval's do). */
static size_t put_clock(char *out, uint64_t micros)
{
	size_t len = put_padded(out, micros / 3600000000ULL, 2);

	out[len++] = ':';
	len += put_padded(out + len, micros / 60000000ULL % 60, 2);
	out[len++] = ':';
	len += put_padded(out + len, micros / 1000000ULL % 60, 2);
	return len + put_fraction(out + len, micros % 1000000ULL);
}

static size_t put_timestamp(char *out, int64_t micros)
{
	int64_t days, rem;
	size_t len;

	if (micros == TIMESTAMP_INFINITY || micros == -TIMESTAMP_INFINITY)
		return put(out, micros > 0 ? "infinity" : "-infinity");
	/* floored, without a multiplication that could overflow */
	days = micros / MICROS_PER_DAY;
	rem = micros % MICROS_PER_DAY;
	if (rem < 0) {
		rem += MICROS_PER_DAY;
		days--;
	}
	len = put_date(out, days);
	out[len++] = ' ';
	return len + put_clock(out + len, (uint64_t)rem);
}

/* "3 days", "-1 year": one part of an interval, after a space if it is
 * not the first. */
static size_t put_part(char *out, size_t len, int32_t v, const char *unit)
{
	size_t n = len;

	if (len)
		out[n++] = ' ';
	n += put_integer(out + n, of_signed(v));
	n += put(out + n, unit);
	if (v != 1 && v != -1)
		out[n++] = 's';
	return n - len;
}

/* "1 year 2 months 3 days 04:05:06.789", each part only when it is not
 * zero, "00:00:00" when none is. */
static size_t put_interval(char *out, duckdb_interval v)
{
	int32_t years = v.months / 12, months = v.months % 12;
	size_t len = 0;

	if (years)
		len += put_part(out, len, years, " year");
	if (months)
		len += put_part(out, len, months, " month");
	if (v.days)
		len += put_part(out, len, v.days, " day");
	if (!v.micros)
		return len ? len : put(out, "00:00:00");
	if (len)
		out[len++] = ' ';
	if (v.micros < 0)
		out[len++] = '-';
	return len + put_clock(out + len, of_signed(v.micros).u);
}

/* The text of value i of data, a vector of a type of fixed width. */
static size_t put_fixed(char *out, const struct duck_text_col *col, const void *data, idx_t i)
{
	switch (col->type) {
	case DUCKDB_TYPE_BOOLEAN:
		return put(out, ((const bool *)data)[i] ? "true" : "false");
	case DUCKDB_TYPE_TINYINT:
		return put_integer(out, of_signed(((const int8_t *)data)[i]));
	case DUCKDB_TYPE_SMALLINT:
		return put_integer(out, of_signed(((const int16_t *)data)[i]));
	case DUCKDB_TYPE_INTEGER:
		return put_integer(out, of_signed(((const int32_t *)data)[i]));
	case DUCKDB_TYPE_BIGINT:
		return put_integer(out, of_signed(((const int64_t *)data)[i]));
	case DUCKDB_TYPE_UTINYINT:
		return put_integer(out, (struct magnitude){ false, ((const uint8_t *)data)[i] });
	case DUCKDB_TYPE_USMALLINT:
		return put_integer(out, (struct magnitude){ false, ((const uint16_t *)data)[i] });
	case DUCKDB_TYPE_UINTEGER:
		return put_integer(out, (struct magnitude){ false, ((const uint32_t *)data)[i] });
	case DUCKDB_TYPE_UBIGINT:
		return put_integer(out, (struct magnitude){ false, ((const uint64_t *)data)[i] });
	case DUCKDB_TYPE_HUGEINT:
		return put_integer(out, of_hugeint(((const duckdb_hugeint *)data)[i]));
	case DUCKDB_TYPE_UHUGEINT: {
		duckdb_uhugeint h = ((const duckdb_uhugeint *)data)[i];

		return put_integer(out, (struct magnitude){ false, (u128)h.upper << 64 | h.lower });
	}
	case DUCKDB_TYPE_FLOAT:
		return put_real(out, duckdb_create_float(((const float *)data)[i]));
	case DUCKDB_TYPE_DOUBLE:
		return put_real(out, duckdb_create_double(((const double *)data)[i]));
	case DUCKDB_TYPE_DECIMAL:
		return put_decimal(out, decimal_value(col, data, i), col->width, col->scale);
	case DUCKDB_TYPE_DATE: {
		int32_t days = ((const duckdb_date *)data)[i].days;

		if (days == DATE_INFINITY || days == -DATE_INFINITY)
			return put(out, days > 0 ? "infinity" : "-infinity");
		return put_date(out, days);
	}
	case DUCKDB_TYPE_TIME:
		return put_clock(out, (uint64_t)((const duckdb_time *)data)[i].micros);
	case DUCKDB_TYPE_TIMESTAMP:
		return put_timestamp(out, ((const duckdb_timestamp *)data)[i].micros);
	default: /* DUCKDB_TYPE_INTERVAL, the last type with a writer */
		return put_interval(out, ((const duckdb_interval *)data)[i]);
	}
}

/* A BLOB byte DuckDB writes as it is; the others become \xHH. */
static bool blob_plain(unsigned char c)
{
	return c >= 32 && c <= 126 && c != '\\' && c != '\'' && c != '"';
}

static size_t blob_len(const char *s, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += blob_plain((unsigned char)s[i]) ? 1 : 4;
	return len;
}

static void write_blob(struct wh_result *r, size_t row, size_t c, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = wh_result_set_value(r, row, c, blob_len(s, n));

	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		if (blob_plain(b)) {
			*out++ = (char)b;
			continue;
		}
		*out++ = '\\';
		*out++ = 'x';
		*out++ = hex[b >> 4];
		*out++ = hex[b & 15];
	}
}

static void write_value(struct wh_result *r, size_t row, size_t c, const struct duck_text_col *col,
			const void *data, idx_t i)
{
	char text[TEXT_MAX];
	const char *s;
	size_t len;

	switch (col->type) {
	case DUCKDB_TYPE_VARCHAR:
		s = duck_text_string((const duckdb_string_t *)data + i, &len);
		memcpy(wh_result_set_value(r, row, c, len), s, len);
		return;
	case DUCKDB_TYPE_BLOB:
		s = duck_text_string((const duckdb_string_t *)data + i, &len);
		write_blob(r, row, c, s, len);
		return;
	default:
		len = put_fixed(text, col, data, i);
		memcpy(wh_result_set_value(r, row, c, len), text, len);
	}
}

size_t duck_text_len(duckdb_vector v, idx_t i, const struct duck_text_col *col)
{
	const void *data = duckdb_vector_get_data(v);
	const uint64_t *valid = duckdb_vector_get_validity(v);
	char text[TEXT_MAX];
	const char *s;
	size_t len;

	if (col->type == DUCKDB_TYPE_INVALID || (valid && !(valid[i / 64] >> (i % 64) & 1)))
		return 0;
	switch (col->type) {
	case DUCKDB_TYPE_VARCHAR:
		duck_text_string((const duckdb_string_t *)data + i, &len);
		return len;
	case DUCKDB_TYPE_BLOB:
		s = duck_text_string((const duckdb_string_t *)data + i, &len);
		return blob_len(s, len);
	default:
		return put_fixed(text, col, data, i);
	}
}

void duck_text_write(struct wh_result *r, size_t first, size_t c, duckdb_vector v, idx_t from,
		     idx_t n, const struct duck_text_col *col)
{
	const void *data = duckdb_vector_get_data(v);
	/* NULL when every value is valid; bit i % 64 of word i / 64 otherwise */
	const uint64_t *valid = duckdb_vector_get_validity(v);

	if (col->type == DUCKDB_TYPE_INVALID)
		return;
	for (idx_t i = from; i < from + n; i++)
		if (!valid || (valid[i / 64] >> (i % 64) & 1))
			write_value(r, first + i - from, c, col, data, i);
}
