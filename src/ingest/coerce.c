/*
 * JSON values into DuckDB cast text, by declared type. Numbers are handled
 * as decimal digit strings (never through a C integer type), so every
 * integer type up to UHUGEINT and every DECIMAL is range-checked exactly,
 * and a JSON real is read back from its shortest text, the digits the
 * sender most likely wrote. Must never accept a value that the appender's
 * cast would change silently (a fraction into an integer, an offset
 * dropped from a timestamp, a float overflowing to inf); the one rounding
 * done on purpose is to a DECIMAL's scale, as DuckDB's own cast rounds.
 */
#include "ingest/coerce.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "ingest/isotime.h"
#include "ingest/jsontext.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Bounds as text: comparing digit strings needs no 128-bit arithmetic. */
#define I8 "-128", "127"
#define I16 "-32768", "32767"
#define I32 "-2147483648", "2147483647"
#define I64 "-9223372036854775808", "9223372036854775807"
#define I128 "-170141183460469231731687303715884105728", "170141183460469231731687303715884105727"
#define U8 "0", "255"
#define U16 "0", "65535"
#define U32 "0", "4294967295"
#define U64 "0", "18446744073709551615"
#define U128 "0", "340282366920938463463374607431768211455"
/* the longest bound above has 39 digits */
#define INT_DIGITS_MAX 39

/* DuckDB's DECIMAL without parameters */
#define DECIMAL_DEFAULT_PRECISION 18
#define DECIMAL_DEFAULT_SCALE 3
#define DECIMAL_MAX_PRECISION 38

/* Halfway between FLT_MAX and 2^128: a double at least this large rounds
 * to inf as a FLOAT. */
#define FLOAT_OVERFLOW 0x1.ffffffp+127

/* An exponent beyond this is out of range for every type anyway; capping it
 * keeps the arithmetic on exponents far from overflow. */
#define EXP_CAP 1000000000

/* How much of a bad value a message quotes. */
#define SHOWN_MAX 60

/* The names and aliases DuckDB 1.4 lists in duckdb_types() for the types
 * checked here; any other name is handled as text. */
static const struct type_name {
	const char *name;
	enum coerce_kind kind;
	const char *min, *max;
} type_names[] = {
	{ "TINYINT", COERCE_INT, I8 },
	{ "INT1", COERCE_INT, I8 },
	{ "SMALLINT", COERCE_INT, I16 },
	{ "INT2", COERCE_INT, I16 },
	{ "INT16", COERCE_INT, I16 },
	{ "SHORT", COERCE_INT, I16 },
	{ "INTEGER", COERCE_INT, I32 },
	{ "INT", COERCE_INT, I32 },
	{ "INT4", COERCE_INT, I32 },
	{ "INT32", COERCE_INT, I32 },
	{ "SIGNED", COERCE_INT, I32 },
	{ "INTEGRAL", COERCE_INT, I32 },
	{ "BIGINT", COERCE_INT, I64 },
	{ "INT8", COERCE_INT, I64 },
	{ "INT64", COERCE_INT, I64 },
	{ "LONG", COERCE_INT, I64 },
	{ "OID", COERCE_INT, I64 },
	{ "HUGEINT", COERCE_INT, I128 },
	{ "INT128", COERCE_INT, I128 },
	{ "UTINYINT", COERCE_INT, U8 },
	{ "UINT8", COERCE_INT, U8 },
	{ "USMALLINT", COERCE_INT, U16 },
	{ "UINT16", COERCE_INT, U16 },
	{ "UINTEGER", COERCE_INT, U32 },
	{ "UINT32", COERCE_INT, U32 },
	{ "UBIGINT", COERCE_INT, U64 },
	{ "UINT64", COERCE_INT, U64 },
	{ "UHUGEINT", COERCE_INT, U128 },
	{ "UINT128", COERCE_INT, U128 },
	{ "FLOAT", COERCE_FLOAT },
	{ "FLOAT4", COERCE_FLOAT },
	{ "REAL", COERCE_FLOAT },
	{ "DOUBLE", COERCE_DOUBLE },
	{ "FLOAT8", COERCE_DOUBLE },
	{ "DOUBLE PRECISION", COERCE_DOUBLE },
	{ "DECIMAL", COERCE_DECIMAL },
	{ "DEC", COERCE_DECIMAL },
	{ "NUMERIC", COERCE_DECIMAL },
	{ "BOOLEAN", COERCE_BOOL },
	{ "BOOL", COERCE_BOOL },
	{ "LOGICAL", COERCE_BOOL },
	{ "DATE", COERCE_DATE },
	{ "TIME", COERCE_TIME },
	{ "TIME_NS", COERCE_TIME },
	{ "TIME WITHOUT TIME ZONE", COERCE_TIME },
	{ "TIMETZ", COERCE_TIMETZ },
	{ "TIME WITH TIME ZONE", COERCE_TIMETZ },
	{ "TIMESTAMP", COERCE_TIMESTAMP },
	{ "DATETIME", COERCE_TIMESTAMP },
	{ "TIMESTAMP_S", COERCE_TIMESTAMP },
	{ "TIMESTAMP_MS", COERCE_TIMESTAMP },
	{ "TIMESTAMP_US", COERCE_TIMESTAMP },
	{ "TIMESTAMP_NS", COERCE_TIMESTAMP },
	{ "TIMESTAMP WITHOUT TIME ZONE", COERCE_TIMESTAMP },
	{ "TIMESTAMPTZ", COERCE_TIMESTAMPTZ },
	{ "TIMESTAMP WITH TIME ZONE", COERCE_TIMESTAMPTZ },
	{ "UUID", COERCE_UUID },
	{ "GUID", COERCE_UUID },
	{ "JSON", COERCE_JSON },
};

/* decl in upper case, each run of white space as one space, trimmed. */
static char *type_text(struct arena *a, const char *decl)
{
	char *out = arena_alloc(a, strlen(decl) + 1), *o = out;

	for (const char *p = decl; *p; p++) {
		if (isspace((unsigned char)*p)) {
			if (o > out && o[-1] != ' ')
				*o++ = ' ';
		} else {
			*o++ = (char)toupper((unsigned char)*p);
		}
	}
	if (o > out && o[-1] == ' ')
		o--;
	*o = '\0';
	return out;
}

/* "(P)" or "(P, S)" after a DECIMAL; false when DuckDB would refuse them. */
static bool decimal_params(const char *s, int *precision, int *scale)
{
	char *end;
	long p = strtol(s, &end, 10), sc = 0;

	if (end == s)
		return false;
	while (*end == ' ')
		end++;
	if (*end == ',') {
		s = end + 1;
		sc = strtol(s, &end, 10);
		if (end == s)
			return false;
		while (*end == ' ')
			end++;
	}
	if (strcmp(end, ")") != 0 || p < 1 || p > DECIMAL_MAX_PRECISION || sc < 0 || sc > p)
		return false;
	*precision = (int)p;
	*scale = (int)sc;
	return true;
}

int coerce_type_parse(struct arena *a, const char *decl, struct coerce_type *out,
		      struct sl_err *err)
{
	char *name = type_text(a, decl);
	size_t base = strcspn(name, "(");
	const struct type_name *t = NULL;

	memset(out, 0, sizeof(*out));
	out->name = name;
	out->kind = COERCE_TEXT;
	/* a LIST or ARRAY of anything is left to DuckDB */
	if (strchr(name, '['))
		return 0;
	/* "DECIMAL (10,2)" is as good as "DECIMAL(10,2)" */
	while (base > 0 && name[base - 1] == ' ')
		base--;
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++) {
		if (strlen(type_names[i].name) == base && !memcmp(type_names[i].name, name, base)) {
			t = &type_names[i];
			break;
		}
	}
	/* TIMESTAMP(3) is TIMESTAMP_MS, which reads the same text; parameters
	 * on other types (FLOAT(53) is a DOUBLE) leave them to DuckDB */
	if (!t || (name[base] && t->kind != COERCE_DECIMAL && t->kind != COERCE_TIMESTAMP))
		return 0;
	if (t->kind == COERCE_DECIMAL) {
		const char *params = name + base + strspn(name + base, " ");

		out->precision = DECIMAL_DEFAULT_PRECISION;
		out->scale = DECIMAL_DEFAULT_SCALE;
		if (*params && !decimal_params(params + 1, &out->precision, &out->scale))
			return sl_err_set(err, SL_E_CONFIG,
					  "invalid type '%s' (precision 1 to 38, scale 0 to the "
					  "precision)",
					  decl);
	}
	out->kind = t->kind;
	out->min = t->min;
	out->max = t->max;
	return 0;
}

const char *coerce_json(struct arena *a, const json_t *v)
{
	struct buf b = BUF_INIT;
	const char *text;

	jsontext_write(&b, v);
	text = arena_strndup(a, b.buf, b.len);
	buf_release(&b);
	return text;
}

/* The value as the sender wrote it, for messages: JSON text, cut on a
 * character boundary. */
static const char *shown(struct arena *a, const json_t *v)
{
	const char *text = coerce_json(a, v);
	size_t n = strlen(text);

	if (n <= SHOWN_MAX)
		return text;
	n = SHOWN_MAX;
	while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
		n--;
	return arena_sprintf(a, "%.*s...", (int)n, text);
}

static int not_a(struct arena *a, const struct coerce_type *t, const json_t *v, const char *hint,
		 struct sl_err *err)
{
	const char *article = t->name[0] && strchr("AEIO", t->name[0]) ? "an" : "a";

	return sl_err_set(err, SL_E_INVALID, "%s is not %s %s%s%s%s", shown(a, v), article, t->name,
			  hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}

static int out_of_range(struct arena *a, const struct coerce_type *t, const json_t *v,
			const char *hint, struct sl_err *err)
{
	return sl_err_set(err, SL_E_INVALID, "%s is out of range for %s%s%s%s", shown(a, v), t->name,
			  hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}

/* The text of a number, or of a string that should hold one; NULL for any
 * other value. */
static const char *number_text(struct arena *a, const json_t *v)
{
	char real[JSONTEXT_REAL_MAX], digits[JSONTEXT_INT_MAX];

	if (json_is_integer(v))
		return arena_strndup(a, digits, jsontext_integer(json_integer_value(v), digits));
	if (json_is_real(v)) {
		jsontext_real(json_real_value(v), real);
		return arena_strdup(a, real);
	}
	if (json_is_string(v))
		return arena_strdup(a, json_string_value(v));
	return NULL;
}

struct decnum {
	bool neg;
	char *digits; /* significant digits: no leading or trailing zeros; "" is zero */
	size_t n;
	int64_t exp; /* the value is digits × 10^exp */
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Reads [+-](D[.[D]] | .D)[(e|E)[+-]D], the forms DuckDB's numeric casts
 * read; spaces, hex, inf and nan are refused. */
static bool decnum_parse(struct arena *a, const char *s, struct decnum *d)
{
	const char *p = s;
	char *o;
	size_t nint = 0, nfrac = 0;
	int64_t e = 0;
	bool eneg = false;

	d->neg = *p == '-';
	if (*p == '-' || *p == '+')
		p++;
	d->digits = o = arena_alloc(a, strlen(p) + 1);
	for (; is_digit(*p); p++, nint++) {
		if (o > d->digits || *p != '0')
			*o++ = *p;
	}
	if (*p == '.') {
		for (p++; is_digit(*p); p++, nfrac++) {
			if (o > d->digits || *p != '0')
				*o++ = *p;
		}
	}
	if (nint + nfrac == 0)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		eneg = *p == '-';
		if (*p == '-' || *p == '+')
			p++;
		if (!is_digit(*p))
			return false;
		for (; is_digit(*p); p++) {
			if (e < EXP_CAP)
				e = e * 10 + (*p - '0');
		}
	}
	if (*p)
		return false;
	d->n = (size_t)(o - d->digits);
	d->exp = (eneg ? -e : e) - (int64_t)nfrac;
	while (d->n && d->digits[d->n - 1] == '0') {
		d->n--;
		d->exp++;
	}
	d->digits[d->n] = '\0';
	return true;
}

/* Compares two digit strings without leading zeros by value. */
static int digits_cmp(const char *x, const char *y)
{
	size_t nx = strlen(x), ny = strlen(y);

	if (nx != ny)
		return nx < ny ? -1 : 1;
	return strcmp(x, y);
}

static int to_int(struct arena *a, const struct coerce_type *t, const json_t *v, const char **out,
		  struct sl_err *err)
{
	const char *text = number_text(a, v), *bound;
	struct decnum d;
	char *s;

	if (!text || !decnum_parse(a, text, &d))
		return not_a(a, t, v, NULL, err);
	if (d.exp < 0)
		return not_a(a, t, v, "it has a fractional part", err);
	if (!d.n) {
		*out = "0";
		return 0;
	}
	if ((int64_t)d.n + d.exp > INT_DIGITS_MAX)
		return out_of_range(a, t, v, NULL, err);
	/* "-" and the digits, so that the positive form is s + 1 */
	s = arena_alloc(a, d.n + (size_t)d.exp + 2);
	s[0] = '-';
	memcpy(s + 1, d.digits, d.n);
	memset(s + 1 + d.n, '0', (size_t)d.exp);
	bound = d.neg ? t->min : t->max;
	if (d.neg && bound[0] != '-')
		return out_of_range(a, t, v, NULL, err);
	if (digits_cmp(s + 1, d.neg ? bound + 1 : bound) > 0)
		return out_of_range(a, t, v, NULL, err);
	*out = d.neg ? s : s + 1;
	return 0;
}

/* The digits of the value × 10^scale rounded half away from zero (as
 * DuckDB's cast rounds), without leading zeros; NULL when they are more
 * than max. */
static const char *decnum_scaled(struct arena *a, const struct decnum *d, int scale, int max)
{
	int64_t shift = d->exp + scale, keep;
	char *n;
	size_t i;

	if (!d->n)
		return "";
	if (shift >= 0) {
		if ((int64_t)d->n + shift > max)
			return NULL;
		n = arena_alloc(a, d->n + (size_t)shift + 1);
		memcpy(n, d->digits, d->n);
		memset(n + d->n, '0', (size_t)shift);
		return n;
	}
	keep = (int64_t)d->n + shift; /* digits left of the rounding position */
	if (keep < 0)
		return "";
	/* a leading '0' takes the carry of 9.99 -> 10.0 */
	n = arena_alloc(a, (size_t)keep + 2);
	n[0] = '0';
	memcpy(n + 1, d->digits, (size_t)keep);
	if (d->digits[keep] >= '5') {
		for (i = (size_t)keep; n[i] == '9'; i--)
			n[i] = '0';
		n[i]++;
	}
	while (*n == '0')
		n++;
	return strlen(n) > (size_t)max ? NULL : n;
}

static int to_decimal(struct arena *a, const struct coerce_type *t, const json_t *v,
		      const char **out, struct sl_err *err)
{
	const char *text = number_text(a, v);
	struct decnum d;
	const char *n;
	char *s, *o;
	size_t len, scale = (size_t)t->scale;

	if (!text || !decnum_parse(a, text, &d))
		return not_a(a, t, v, NULL, err);
	n = decnum_scaled(a, &d, t->scale, t->precision);
	if (!n)
		return out_of_range(a, t, v,
				    arena_sprintf(a, "at most %d digits before the point",
						  t->precision - t->scale),
				    err);
	len = strlen(n);
	o = s = arena_alloc(a, len + scale + 4);
	if (d.neg && len)
		*o++ = '-';
	if (len > scale) {
		memcpy(o, n, len - scale);
		o += len - scale;
	} else {
		*o++ = '0';
	}
	if (scale) {
		*o++ = '.';
		for (size_t i = len; i < scale; i++)
			*o++ = '0';
		memcpy(o, len > scale ? n + len - scale : n, len < scale ? len : scale);
	}
	*out = s;
	return 0;
}

static int to_float(struct arena *a, const struct coerce_type *t, const json_t *v,
		    const char **out, struct sl_err *err)
{
	const char *text = number_text(a, v);
	struct decnum d;
	double x;

	if (!text || !decnum_parse(a, text, &d))
		return not_a(a, t, v, NULL, err);
	/* DuckDB would store inf without a word */
	x = strtod(text, NULL);
	if (isinf(x) || (t->kind == COERCE_FLOAT && fabs(x) >= FLOAT_OVERFLOW))
		return out_of_range(a, t, v, NULL, err);
	*out = text;
	return 0;
}

static int to_bool(struct arena *a, const struct coerce_type *t, const json_t *v,
		   const char **out, struct sl_err *err)
{
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;

	if (json_is_true(v) || (s && !strcasecmp(s, "true")))
		*out = "true";
	else if (json_is_false(v) || (s && !strcasecmp(s, "false")))
		*out = "false";
	else
		return not_a(a, t, v, "expected true or false", err);
	return 0;
}

/* 32 hex digits, hyphenated 8-4-4-4-12 or not at all, optionally in
 * braces; written hyphenated in lower case, as DuckDB prints UUIDs. */
static bool uuid_text(const char *s, char out[37])
{
	size_t len = strlen(s), o = 0;
	bool hyphens;

	if (len >= 2 && s[0] == '{' && s[len - 1] == '}') {
		s++;
		len -= 2;
	}
	if (len != 32 && len != 36)
		return false;
	hyphens = len == 36;
	for (size_t i = 0; i < len; i++) {
		if (hyphens && (i == 8 || i == 13 || i == 18 || i == 23)) {
			if (s[i] != '-')
				return false;
			continue;
		}
		if (!isxdigit((unsigned char)s[i]))
			return false;
		if (o == 8 || o == 13 || o == 18 || o == 23)
			out[o++] = '-';
		out[o++] = (char)tolower((unsigned char)s[i]);
	}
	out[o] = '\0';
	return true;
}

static int to_uuid(struct arena *a, const struct coerce_type *t, const json_t *v,
		   const char **out, struct sl_err *err)
{
	char text[37];

	if (!json_is_string(v) || !uuid_text(json_string_value(v), text))
		return not_a(a, t, v, NULL, err);
	*out = arena_strdup(a, text);
	return 0;
}

static int to_time(struct arena *a, const struct coerce_type *t, const json_t *v,
		   const char **out, struct sl_err *err)
{
	static const enum isotime_kind kinds[] = {
		[COERCE_DATE] = ISOTIME_DATE,
		[COERCE_TIME] = ISOTIME_TIME,
		[COERCE_TIMETZ] = ISOTIME_TIMETZ,
		[COERCE_TIMESTAMP] = ISOTIME_TIMESTAMP,
		[COERCE_TIMESTAMPTZ] = ISOTIME_TIMESTAMPTZ,
	};
	enum isotime_kind k = kinds[t->kind];
	char text[ISOTIME_MAX];
	const char *why = NULL;
	int rc;

	if (json_is_string(v))
		rc = isotime_parse(k, json_string_value(v), text, &why);
	else if (json_is_number(v) && (k == ISOTIME_TIMESTAMP || k == ISOTIME_TIMESTAMPTZ))
		rc = isotime_from_unix(k, json_number_value(v), text, &why);
	else
		return not_a(a, t, v, NULL, err);
	if (rc)
		return not_a(a, t, v, why, err);
	*out = arena_strdup(a, text);
	return 0;
}

/* VARCHAR and the types not checked here: a string as it is, anything
 * else as its JSON text. */
static const char *to_text(struct arena *a, const json_t *v)
{
	return json_is_string(v) ? arena_strdup(a, json_string_value(v)) : coerce_json(a, v);
}

int coerce_value(struct arena *a, const struct coerce_type *t, const json_t *v, const char **out,
		 struct sl_err *err)
{
	*out = NULL;
	if (json_is_null(v))
		return 0;
	switch (t->kind) {
	case COERCE_INT:
		return to_int(a, t, v, out, err);
	case COERCE_FLOAT:
	case COERCE_DOUBLE:
		return to_float(a, t, v, out, err);
	case COERCE_DECIMAL:
		return to_decimal(a, t, v, out, err);
	case COERCE_BOOL:
		return to_bool(a, t, v, out, err);
	case COERCE_DATE:
	case COERCE_TIME:
	case COERCE_TIMETZ:
	case COERCE_TIMESTAMP:
	case COERCE_TIMESTAMPTZ:
		return to_time(a, t, v, out, err);
	case COERCE_UUID:
		return to_uuid(a, t, v, out, err);
	case COERCE_JSON:
		*out = coerce_json(a, v);
		return 0;
	case COERCE_TEXT:
		break;
	}
	*out = to_text(a, v);
	return 0;
}
