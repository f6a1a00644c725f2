/*
 * A pgoutput tuple as the payload JSON of its landed row: PostgreSQL's
 * text output of each value, by type OID, written as the JSON that
 * row_to_json() gives for it (but for oid, a number here, and types not
 * built in that the relation's table of types does not describe, their
 * text). Values are copied, never converted: a number's
 * digits are the server's, whatever their count. Nothing here parses a
 * number into a double, and nothing recurses without a bound (json values
 * are scanned with a stack of their own; arrays nest at most 6 deep, as
 * PostgreSQL's do).
 */
#include "pgcdc/pgoutput.h"
#include "ingest/jsontext.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/utf8.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* PostgreSQL's MAXDIM */
#define ARRAY_MAX_DEPTH 6

/* A JSON writer that keeps its first failure (SL_E_TOOBIG from the
 * buffer's cap); the text is thrown away then, so later appends may
 * simply be skipped. */
struct jw {
	struct buf *b;
	int rc;
};

static void jw_add(struct jw *w, const char *p, size_t n)
{
	if (w && !w->rc && n)
		w->rc = buf_add(w->b, p, n);
}

static void jw_ch(struct jw *w, char c)
{
	jw_add(w, &c, 1);
}

/* s[0..len) inside a JSON string, escaped as JSON requires. */
static void jw_escaped(struct jw *w, const char *s, size_t len)
{
	if (w && !w->rc)
		w->rc = jsontext_escape(w->b, s, len);
}

static void jw_string(struct jw *w, const char *s, size_t len)
{
	jw_ch(w, '"');
	jw_escaped(w, s, len);
	jw_ch(w, '"');
}

/* Scans the JSON value at s[*pos] into w (NULL: a scan only). */
static int json_scan(struct jw *w, const char *s, size_t len, size_t *pos)
{
	return jsontext_scan(w ? w->b : NULL, w ? &w->rc : NULL, s, len, pos);
}

static int put_json(struct jw *w, const char *s, size_t len, struct sl_err *err)
{
	size_t i = jsontext_skip_space(s, len, 0);

	if (json_scan(w, s, len, &i) || (i = jsontext_skip_space(s, len, i)) != len)
		return sl_err_set(err, SL_E_PARSE, "invalid json value: unexpected %s at byte %zu",
				  i < len ? "text" : "end", i);
	return 0;
}

int pgoutput_json_member(const char *json, size_t len, const char *name, const char **val,
			 size_t *vlen, struct sl_err *err)
{
	struct buf key = BUF_INIT;
	struct jw kw = { &key, 0 };
	size_t i = jsontext_skip_space(json, len, 0), end;
	int rc = 0;

	jw_string(&kw, name, strlen(name));
	if (i >= len || json[i] != '{') {
		rc = sl_err_set(err, SL_E_PARSE, "not a JSON object at byte %zu", i);
		goto out;
	}
	i = jsontext_skip_space(json, len, i + 1);
	if (i < len && json[i] == '}') {
		rc = sl_err_set(err, SL_E_NOTFOUND, "no member '%s'", name);
		goto out;
	}
	for (;;) {
		bool match;
		size_t start;

		if (i >= len || json[i] != '"' || !(end = jsontext_string_end(json, len, i)))
			break;
		match = end - i == key.len && !memcmp(json + i, key.buf, key.len);
		i = jsontext_skip_space(json, len, end);
		if (i >= len || json[i] != ':')
			break;
		start = i = jsontext_skip_space(json, len, i + 1);
		if (json_scan(NULL, json, len, &i))
			break;
		if (match) {
			*val = json + start;
			*vlen = i - start;
			goto out;
		}
		i = jsontext_skip_space(json, len, i);
		if (i < len && json[i] == '}') {
			rc = sl_err_set(err, SL_E_NOTFOUND, "no member '%s'", name);
			goto out;
		}
		if (i >= len || json[i] != ',')
			break;
		i = jsontext_skip_space(json, len, i + 1);
	}
	rc = sl_err_set(err, SL_E_PARSE, "invalid JSON object at byte %zu", i);
out:
	buf_release(&key);
	return rc;
}

/* ---- values by type ---- */

enum category {
	CAT_TEXT,
	CAT_NUMBER,
	CAT_BOOL,
	CAT_JSON,
	CAT_TIMESTAMP,
	CAT_TIMETZ,
	CAT_BYTEA,
	CAT_ARRAY,
};

/* Built-in type OIDs (pg_type.dat); they never change. */
static const struct {
	uint32_t array, elem;
} arrays[] = {
	{ 1000, 16 },	 /* bool */
	{ 1001, 17 },	 /* bytea */
	{ 1002, 18 },	 /* "char" */
	{ 1003, 19 },	 /* name */
	{ 1016, 20 },	 /* int8 */
	{ 1005, 21 },	 /* int2 */
	{ 1007, 23 },	 /* int4 */
	{ 1009, 25 },	 /* text */
	{ 1028, 26 },	 /* oid */
	{ 199, 114 },	 /* json */
	{ 3807, 3802 }, /* jsonb */
	{ 1021, 700 },	 /* float4 */
	{ 1022, 701 },	 /* float8 */
	{ 1014, 1042 }, /* bpchar */
	{ 1015, 1043 }, /* varchar */
	{ 1182, 1082 }, /* date */
	{ 1183, 1083 }, /* time */
	{ 1115, 1114 }, /* timestamp */
	{ 1185, 1184 }, /* timestamptz */
	{ 1187, 1186 }, /* interval */
	{ 1270, 1266 }, /* timetz */
	{ 1231, 1700 }, /* numeric */
	{ 2951, 2950 }, /* uuid */
};

static enum category category_of(uint32_t oid, uint32_t *elem)
{
	switch (oid) {
	case 20: /* int8 */
	case 21: /* int2 */
	case 23: /* int4 */
	case 26: /* oid */
	case 700: /* float4 */
	case 701: /* float8 */
	case 1700: /* numeric */
		return CAT_NUMBER;
	case 16:
		return CAT_BOOL;
	case 114: /* json */
	case 3802: /* jsonb */
		return CAT_JSON;
	case 1114: /* timestamp */
	case 1184: /* timestamptz */
		return CAT_TIMESTAMP;
	case 1266:
		return CAT_TIMETZ;
	case 17:
		return CAT_BYTEA;
	}
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		if (arrays[i].array == oid) {
			*elem = arrays[i].elem;
			return CAT_ARRAY;
		}
	return CAT_TEXT;
}

static bool digits_at(const char *s, size_t len, size_t i, size_t n)
{
	return i <= len && len - i >= n && jsontext_skip_digits(s, len, i) >= i + n;
}

/* HH:MM:SS[.fraction] at s[i]: its end, or 0. */
static size_t time_end(const char *s, size_t len, size_t i)
{
	if (!digits_at(s, len, i, 2) || len - i < 8 || s[i + 2] != ':' ||
	    !digits_at(s, len, i + 3, 2) || s[i + 5] != ':' || !digits_at(s, len, i + 6, 2))
		return 0;
	i += 8;
	if (i < len && s[i] == '.')
		i = jsontext_skip_digits(s, len, i + 1);
	return i;
}

/* A time of day and its offset from s[i] on, written with the offset as
 * +HH:MM where PostgreSQL wrote +HH: ISO-8601's extended form, the one
 * to_json gives a timestamptz. */
static void put_time_offset(struct jw *w, const char *s, size_t len, size_t i)
{
	size_t t = time_end(s, len, i);

	if (t && t < len && (s[t] == '+' || s[t] == '-') && digits_at(s, len, t + 1, 2) &&
	    (t + 3 == len || s[t + 3] != ':')) {
		jw_escaped(w, s + i, t + 3 - i);
		jw_add(w, ":00", 3);
		i = t + 3;
	}
	jw_escaped(w, s + i, len - i);
}

/* YYYY-MM-DD HH:MM:SS[.f][+HH[:MM[:SS]]][ BC] as ISO-8601, with 'T';
 * anything else (infinity, another DateStyle) as it is. */
static void put_timestamp(struct jw *w, const char *s, size_t len, bool with_date)
{
	size_t d = with_date ? jsontext_skip_digits(s, len, 0) : 0;

	jw_ch(w, '"');
	if (!with_date) {
		put_time_offset(w, s, len, 0);
	} else if (d >= 4 && len - d > 7 && s[d] == '-' && digits_at(s, len, d + 1, 2) &&
		   s[d + 3] == '-' && digits_at(s, len, d + 4, 2) && s[d + 6] == ' ' &&
		   time_end(s, len, d + 7)) {
		jw_escaped(w, s, d + 6);
		jw_ch(w, 'T');
		put_time_offset(w, s, len, d + 7);
	} else {
		jw_escaped(w, s, len);
	}
	jw_ch(w, '"');
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* bytea: the hex form as it is; the escape form (bytea_output = escape)
 * turned into it. */
static void put_bytea(struct jw *w, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (len >= 2 && s[0] == '\\' && s[1] == 'x') {
		jw_string(w, s, len);
		return;
	}
	for (i = 0; i < len; i++) {
		if (s[i] != '\\')
			continue;
		if (i + 1 < len && s[i + 1] == '\\')
			i++;
		else if (len - i >= 4 && s[i + 1] >= '0' && s[i + 1] <= '3' && is_octal(s[i + 2]) &&
			 is_octal(s[i + 3]))
			i += 3;
		else
			break;
	}
	if (i < len) { /* not the escape form either: the text itself */
		jw_string(w, s, len);
		return;
	}
	jw_add(w, "\"\\\\x", 4);
	for (i = 0; i < len; i++) {
		unsigned char byte = (unsigned char)s[i];

		if (s[i] == '\\' && s[i + 1] == '\\') {
			i++;
		} else if (s[i] == '\\') {
			byte = (unsigned char)((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 |
					       (s[i + 3] - '0'));
			i += 3;
		}
		jw_ch(w, hex[byte >> 4]);
		jw_ch(w, hex[byte & 15]);
	}
	jw_ch(w, '"');
}

static int put_scalar(struct jw *w, enum category cat, const char *s, size_t len,
		      struct sl_err *err)
{
	switch (cat) {
	case CAT_NUMBER:
		if (len && jsontext_number_end(s, len, 0) == len)
			jw_add(w, s, len);
		else
			jw_string(w, s, len); /* NaN, Infinity, -Infinity */
		return 0;
	case CAT_BOOL:
		if (len == 1 && (*s == 't' || *s == 'f'))
			jw_add(w, *s == 't' ? "true" : "false", *s == 't' ? 4 : 5);
		else
			jw_string(w, s, len);
		return 0;
	case CAT_JSON:
		return put_json(w, s, len, err);
	case CAT_TIMESTAMP:
	case CAT_TIMETZ:
		put_timestamp(w, s, len, cat == CAT_TIMESTAMP);
		return 0;
	case CAT_BYTEA:
		put_bytea(w, s, len);
		return 0;
	case CAT_TEXT:
	case CAT_ARRAY:
		break;
	}
	jw_string(w, s, len);
	return 0;
}

/* ---- arrays: {1,2,"a b",NULL}, {{1,2},{3,4}}, [0:1]={7,8} ---- */

struct array_rd {
	const char *s;
	size_t len, i;
	const struct pgoutput_types *types;
	uint32_t elem; /* the elements' type */
	int depth;     /* of the array's type among the types nested */
	struct buf item; /* one element, its quotes and backslashes undone */
	struct sl_err *err;
};

static int put_typed(struct jw *w, const struct pgoutput_types *types, uint32_t oid,
		     const char *s, size_t len, int depth, struct sl_err *err);

static int array_fail(struct array_rd *a, const char *what)
{
	return sl_err_set(a->err, SL_E_PARSE, "invalid array text: %s at byte %zu", what, a->i);
}

/* One element into a->item; *null when it is an unquoted NULL. */
static int array_item(struct array_rd *a, bool *null)
{
	bool quoted = a->i < a->len && a->s[a->i] == '"', escaped = false, here;
	size_t trimmed = 0;

	buf_reset(&a->item);
	if (quoted)
		a->i++;
	for (; a->i < a->len; a->i++) {
		char c = a->s[a->i];

		if (quoted ? c == '"' : c == ',' || c == '}' || c == '{')
			break;
		here = c == '\\';
		if (here) {
			if (++a->i >= a->len)
				break;
			c = a->s[a->i];
			escaped = true;
		}
		buf_addch(&a->item, c);
		if (quoted || here || !jsontext_is_space(c))
			trimmed = a->item.len;
	}
	if (a->i >= a->len || (!quoted && a->s[a->i] == '{'))
		return array_fail(a, quoted ? "an unclosed quote" : "an unclosed element");
	if (quoted)
		a->i++;
	else
		buf_setlen(&a->item, trimmed); /* white space before a delimiter */
	*null = !quoted && !escaped && a->item.len == 4 && !strncasecmp(a->item.buf, "NULL", 4);
	if (!quoted && !a->item.len)
		return array_fail(a, "an empty element");
	return 0;
}

static int array_level(struct jw *w, struct array_rd *a, int depth)
{
	bool null = false;
	int rc;

	if (depth > ARRAY_MAX_DEPTH)
		return array_fail(a, "more than 6 dimensions");
	a->i = jsontext_skip_space(a->s, a->len, a->i);
	if (a->i >= a->len || a->s[a->i] != '{')
		return array_fail(a, "no '{'");
	a->i = jsontext_skip_space(a->s, a->len, a->i + 1);
	jw_ch(w, '[');
	if (a->i < a->len && a->s[a->i] == '}') {
		a->i++;
		jw_ch(w, ']');
		return 0;
	}
	for (;;) {
		a->i = jsontext_skip_space(a->s, a->len, a->i);
		if (a->i < a->len && a->s[a->i] == '{') {
			if ((rc = array_level(w, a, depth + 1)))
				return rc;
		} else if ((rc = array_item(a, &null))) {
			return rc;
		} else if (null) {
			jw_add(w, "null", 4);
		} else if ((rc = put_typed(w, a->types, a->elem, a->item.buf, a->item.len,
					   a->depth + 1, a->err))) {
			return rc;
		}
		a->i = jsontext_skip_space(a->s, a->len, a->i);
		if (a->i >= a->len)
			return array_fail(a, "no '}'");
		if (a->s[a->i++] == '}')
			break;
		if (a->s[a->i - 1] != ',') {
			a->i--;
			return array_fail(a, "no ','");
		}
		jw_ch(w, ',');
	}
	jw_ch(w, ']');
	return 0;
}

static int put_array(struct jw *w, const struct pgoutput_types *types, uint32_t elem,
		     const char *s, size_t len, int depth, struct sl_err *err)
{
	struct array_rd a = { s, len, 0, types, elem, depth, BUF_INIT, err };
	int rc;

	/* bounds other than 1 come first: [0:2]={7,8,9} */
	if (len && s[0] == '[') {
		const char *eq = memchr(s, '=', len);

		if (!eq)
			return array_fail(&a, "dimensions without '='");
		a.i = (size_t)(eq - s) + 1;
	}
	rc = array_level(w, &a, 1);
	if (!rc && jsontext_skip_space(s, len, a.i) != len)
		rc = array_fail(&a, "text after the end");
	buf_release(&a.item);
	return rc;
}

/* ---- composites: (1,"a b",,"(2,x)") ---- */

static int composite_fail(size_t i, const char *what, struct sl_err *err)
{
	return sl_err_set(err, SL_E_PARSE, "invalid composite text: %s at byte %zu", what, i);
}

/* The field at s[*i], its quotes and backslashes undone, into field;
 * *null when it is empty and unquoted. *i ends at the ',' or ')' after it. */
static int composite_field(const char *s, size_t len, size_t *i, struct buf *field, bool *null,
			   struct sl_err *err)
{
	bool quoted = false, in = false;

	buf_reset(field);
	while (*i < len && (in || (s[*i] != ',' && s[*i] != ')'))) {
		if (s[*i] == '"' && in && *i + 1 < len && s[*i + 1] == '"') {
			buf_addch(field, '"');
			*i += 2;
		} else if (s[*i] == '"') {
			in = !in;
			quoted = true;
			(*i)++;
		} else if (s[*i] == '\\') {
			if (*i + 1 >= len)
				break;
			buf_addch(field, s[*i + 1]);
			*i += 2;
		} else {
			buf_addch(field, s[(*i)++]);
		}
	}
	if (*i >= len)
		return composite_fail(*i, in ? "an unclosed quote" : "no ')'", err);
	*null = !quoted && !field->len;
	return 0;
}

/* A composite's text as an object of its fields, each by its type. */
static int put_composite(struct jw *w, const struct pgoutput_types *types,
			 const struct pgoutput_type *t, const char *s, size_t len, int depth,
			 struct sl_err *err)
{
	struct buf field = BUF_INIT;
	size_t i = 1;
	int rc = 0;

	if (!len || s[0] != '(')
		return composite_fail(0, "no '('", err);
	jw_ch(w, '{');
	for (uint16_t f = 0; !rc && t->nfields; f++) {
		bool null = false;

		rc = composite_field(s, len, &i, &field, &null, err);
		if (!rc && f >= t->nfields)
			rc = composite_fail(i, "more fields than the type has", err);
		if (rc)
			break;
		if (f)
			jw_ch(w, ',');
		jw_string(w, t->names[f], strlen(t->names[f]));
		jw_ch(w, ':');
		if (null)
			jw_add(w, "null", 4);
		else
			rc = put_typed(w, types, t->fields[f], field.buf, field.len, depth + 1, err);
		if (!rc && s[i++] == ')') {
			if (f + 1 != t->nfields)
				rc = composite_fail(i - 1, "fewer fields than the type has", err);
			break;
		}
	}
	if (!rc && !t->nfields && (len < 2 || s[i++] != ')'))
		rc = composite_fail(1, "fields in a type of none", err);
	if (!rc && i != len)
		rc = composite_fail(i, "text after the end", err);
	jw_ch(w, '}');
	buf_release(&field);
	return rc;
}

/* Types nest (a domain over an array of a composite of ...) at most this
 * deep; the catalog never makes a type of itself, but a bound costs
 * nothing. */
#define TYPE_MAX_DEPTH 32

/* A value by its type: a domain as its base type, arrays and composites
 * element by element, field by field. */
static int put_typed(struct jw *w, const struct pgoutput_types *types, uint32_t oid,
		     const char *s, size_t len, int depth, struct sl_err *err)
{
	const struct pgoutput_type *t = NULL;
	uint32_t elem = 0;
	enum category cat;

	for (;;) {
		if (depth > TYPE_MAX_DEPTH)
			return sl_err_set(err, SL_E_PARSE, "types nested more than %d deep",
					  TYPE_MAX_DEPTH);
		cat = category_of(oid, &elem);
		t = cat == CAT_TEXT && types && oid >= PGOUTPUT_FIRST_USER_OID
			    ? pgoutput_types_get(types, oid)
			    : NULL;
		if (!t || t->kind != 'd')
			break;
		oid = t->ref;
		depth++;
	}
	if (cat == CAT_ARRAY)
		return put_array(w, types, elem, s, len, depth, err);
	if (t && t->kind == 'a')
		return put_array(w, types, t->ref, s, len, depth, err);
	if (t && t->kind == 'c')
		return put_composite(w, types, t, s, len, depth, err);
	return put_scalar(w, cat, s, len, err);
}

static int put_value(struct jw *w, const struct pgoutput_types *types, uint32_t type_oid,
		     const char *s, size_t len, struct sl_err *err)
{
	if (!utf8_valid(s, len) || memchr(s, '\0', len))
		return sl_err_set(err, SL_E_PARSE, "invalid UTF-8 or a NUL byte in the text");
	return put_typed(w, types, type_oid, s, len, 0, err);
}

/* Ends a write: the buffer as it was on failure. */
static int jw_finish(struct jw *w, size_t start, int rc, struct sl_err *err)
{
	if (!rc && w->rc)
		rc = sl_err_set(err, w->rc, "the payload is larger than %zu bytes", w->b->cap);
	if (rc)
		buf_setlen(w->b, start);
	return rc;
}

int pgoutput_value_json(struct buf *out, uint32_t type_oid, const char *text, size_t len,
			struct sl_err *err)
{
	struct jw w = { out, 0 };
	size_t start = out->len;

	return jw_finish(&w, start, put_value(&w, NULL, type_oid, text, len, err), err);
}

int pgoutput_tuple_json(struct buf *out, const struct pgoutput_relation *rel,
			const struct pgoutput_tuple *t, pgoutput_unchanged_fn unchanged, void *ctx,
			struct sl_err *err)
{
	struct jw w = { out, 0 };
	size_t start = out->len;
	bool first = true;
	int rc = 0;

	if (t->ncols != rel->ncols)
		return sl_err_set(err, SL_E_INVALID, "a tuple of %u columns for %s.%s, which has %u",
				  t->ncols, rel->nspname, rel->relname, rel->ncols);
	jw_ch(&w, '{');
	for (uint16_t i = 0; i < t->ncols && !rc && !w.rc; i++) {
		const struct pgoutput_column *col = &rel->cols[i];
		const struct pgoutput_value *v = &t->values[i];

		if (t->kind == 'K' && !col->key)
			continue;
		if (!first)
			jw_ch(&w, ',');
		first = false;
		jw_string(&w, col->name, strlen(col->name));
		jw_ch(&w, ':');
		if (v->kind == PGOUTPUT_NULL) {
			jw_add(&w, "null", 4);
		} else if (v->kind == PGOUTPUT_TEXT) {
			rc = put_value(&w, rel->types, col->type_oid, v->text, v->len, err);
		} else if (!unchanged) {
			rc = sl_err_set(err, SL_E_INVALID,
					"column '%s' is an unchanged TOAST value the change did not "
					"send (fill it from the row before)",
					col->name);
		} else if (!w.rc) {
			rc = unchanged(ctx, rel, i, out, err);
		}
		if (rc)
			sl_err_context(err, "in column '%s' of %s.%s", col->name, rel->nspname,
				       rel->relname);
	}
	jw_ch(&w, '}');
	return jw_finish(&w, start, rc, err);
}
