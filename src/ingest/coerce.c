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

/* Halfway between FLT_MAX and 2^128: a double at least this large rounds
 * to inf as a FLOAT. */
#define FLOAT_OVERFLOW 0x1.ffffffp+127

/* An exponent beyond this is out of range for every type anyway; capping it
 * keeps the arithmetic on exponents far from overflow. */
#define EXP_CAP 1000000000

/* How much of a bad value a message quotes. */
#define SHOWN_MAX 60

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

static int not_a(struct arena *a, const struct wh_value_type *t, const json_t *v, const char *hint,
		 struct sl_err *err)
{
	const char *article = t->name[0] && strchr("AEIO", t->name[0]) ? "an" : "a";

	return sl_err_set(err, SL_E_INVALID, "%s is not %s %s%s%s%s", shown(a, v), article, t->name,
			  hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}

static int out_of_range(struct arena *a, const struct wh_value_type *t, const json_t *v,
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

static int to_int(struct arena *a, const struct wh_value_type *t, const json_t *v, const char **out,
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
	if ((int64_t)d.n + d.exp > WH_INT_DIGITS_MAX)
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

static int to_decimal(struct arena *a, const struct wh_value_type *t, const json_t *v,
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

static int to_float(struct arena *a, const struct wh_value_type *t, const json_t *v,
		    const char **out, struct sl_err *err)
{
	const char *text = number_text(a, v);
	struct decnum d;
	double x;

	if (!text || !decnum_parse(a, text, &d))
		return not_a(a, t, v, NULL, err);
	/* DuckDB would store inf without a word */
	x = strtod(text, NULL);
	if (isinf(x) || (t->kind == WH_VALUE_FLOAT && fabs(x) >= FLOAT_OVERFLOW))
		return out_of_range(a, t, v, NULL, err);
	*out = text;
	return 0;
}

static int to_bool(struct arena *a, const struct wh_value_type *t, const json_t *v,
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

static int to_uuid(struct arena *a, const struct wh_value_type *t, const json_t *v,
		   const char **out, struct sl_err *err)
{
	char text[37];

	if (!json_is_string(v) || !uuid_text(json_string_value(v), text))
		return not_a(a, t, v, NULL, err);
	*out = arena_strdup(a, text);
	return 0;
}

static int to_time(struct arena *a, const struct wh_value_type *t, const json_t *v,
		   const char **out, struct sl_err *err)
{
	static const enum isotime_kind kinds[] = {
		[WH_VALUE_DATE] = ISOTIME_DATE,
		[WH_VALUE_TIME] = ISOTIME_TIME,
		[WH_VALUE_TIMETZ] = ISOTIME_TIMETZ,
		[WH_VALUE_TIMESTAMP] = ISOTIME_TIMESTAMP,
		[WH_VALUE_TIMESTAMPTZ] = ISOTIME_TIMESTAMPTZ,
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

int coerce_value(struct arena *a, const struct wh_value_type *t, const json_t *v, const char **out,
		 struct sl_err *err)
{
	*out = NULL;
	if (json_is_null(v))
		return 0;
	switch (t->kind) {
	case WH_VALUE_INT:
		return to_int(a, t, v, out, err);
	case WH_VALUE_FLOAT:
	case WH_VALUE_DOUBLE:
		return to_float(a, t, v, out, err);
	case WH_VALUE_DECIMAL:
		return to_decimal(a, t, v, out, err);
	case WH_VALUE_BOOL:
		return to_bool(a, t, v, out, err);
	case WH_VALUE_DATE:
	case WH_VALUE_TIME:
	case WH_VALUE_TIMETZ:
	case WH_VALUE_TIMESTAMP:
	case WH_VALUE_TIMESTAMPTZ:
		return to_time(a, t, v, out, err);
	case WH_VALUE_UUID:
		return to_uuid(a, t, v, out, err);
	case WH_VALUE_JSON:
		*out = coerce_json(a, v);
		return 0;
	case WH_VALUE_TEXT:
		break;
	}
	*out = to_text(a, v);
	return 0;
}
