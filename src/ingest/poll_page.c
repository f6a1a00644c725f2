/*
 * This file implements the page of a poll: a response body into landing
 * rows (webhook.c's row building) and the highest cursor among them. It
 * must never hand back part of a page (one refused row refuses them all)
 * nor anything that points into the parsed JSON, which is freed before the
 * page is used.
 */
#include "ingest/poll_page.h"

#include "core/arena.h"
#include "core/err.h"
#include "ingest/isotime.h"
#include "ingest/jsontext.h"
#include "project/config.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool rows_array(const json_t *v)
{
	const json_t *item;
	size_t i;

	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, item)
		if (!json_is_object(item))
			return false;
	return true;
}

/* The value at json_path; *found is false when a key on the way is
 * missing. */
static const json_t *at_path(const json_t *root, const char *path, bool *found)
{
	const json_t *v = root;
	const char *seg = path, *dot;

	*found = false;
	for (;; seg = dot + 1) {
		dot = strchr(seg, '.');
		if (!json_is_object(v))
			return NULL;
		v = json_object_getn(v, seg, dot ? (size_t)(dot - seg) : strlen(seg));
		if (!v)
			return NULL;
		if (!dot)
			break;
	}
	*found = true;
	return v;
}

/* Where the rows are: *rows is NULL for none (JSON null at json_path). */
static int find_rows(struct arena *a, const struct source_cfg *src, const json_t *root,
		     const json_t **rows, struct sl_err *err)
{
	const char *key, *first = NULL;
	const json_t *v;
	size_t n = 0;
	bool found;

	*rows = NULL;
	if (src->json_path) {
		v = at_path(root, src->json_path, &found);
		if (!found)
			return sl_err_set(err, SL_E_INVALID,
					  "the response has no '%s'\n"
					  "  hint: json_path names the keys from the top of the response "
					  "down to the array of rows",
					  src->json_path);
		if (json_is_array(v) || json_is_object(v))
			*rows = v;
		else if (!json_is_null(v))
			return sl_err_set(err, SL_E_INVALID,
					  "'%s' in the response is %s, not an array of rows",
					  src->json_path, jsontext_kind(v));
		return 0;
	}
	if (json_is_array(root)) {
		*rows = root;
		return 0;
	}
	if (!json_is_object(root))
		return sl_err_set(err, SL_E_INVALID, "the response is %s, not an array of rows",
				  jsontext_kind(root));
	json_object_foreach((json_t *)root, key, v) {
		if (!rows_array(v))
			continue;
		if (!n++) {
			first = key;
			*rows = v;
		} else {
			first = arena_sprintf(a, "%s, %s", first, key);
		}
	}
	if (n == 1)
		return 0;
	*rows = NULL;
	if (!n)
		return sl_err_set(err, SL_E_INVALID,
				  "the response is an object without an array of rows\n"
				  "  hint: set json_path to where the rows are, e.g. data.items");
	return sl_err_set(err, SL_E_INVALID,
			  "the response holds several arrays of objects (%s)\n"
			  "  hint: set json_path to the one with the rows",
			  first);
}

/* A row's cursor as text; NULL when it has none. */
static int cursor_text(struct arena *a, const json_t *v, size_t row, const char *name,
		       const char **out, struct sl_err *err)
{
	char real[JSONTEXT_REAL_MAX];

	*out = NULL;
	switch (json_typeof(v)) {
	case JSON_STRING:
		*out = json_string_value(v);
		return 0;
	case JSON_INTEGER:
		*out = arena_sprintf(a, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_REAL:
		jsontext_real(json_real_value(v), real);
		*out = arena_strdup(a, real);
		return 0;
	case JSON_NULL:
		return 0;
	default:
		return sl_err_set(err, SL_E_INVALID, "row %zu, cursor %s: %s is not a number or a "
						     "string",
				  row, name, jsontext_kind(v));
	}
}

/* The highest cursor among the rows. */
static int page_cursor(struct arena *a, const struct source_cfg *src, const json_t *rows,
		       const char **out, struct sl_err *err)
{
	const json_t *obj, *v;
	const char *text;
	size_t i;
	int rc;

	*out = NULL;
	if (!src->cursor || !rows)
		return 0;
	if (json_is_object(rows)) {
		v = webhook_field(rows, src->cursor);
		rc = v ? cursor_text(a, v, 1, src->cursor, out, err) : 0;
		if (!rc && *out)
			*out = arena_strdup(a, *out);
		return rc;
	}
	json_array_foreach(rows, i, obj) {
		v = webhook_field(obj, src->cursor);
		if (!v)
			continue;
		rc = cursor_text(a, v, i + 1, src->cursor, &text, err);
		if (rc)
			return rc;
		if (text && (!*out || poll_cursor_cmp(text, *out) > 0))
			*out = text;
	}
	if (*out)
		*out = arena_strdup(a, *out); /* the JSON goes before the page does */
	return 0;
}

int poll_page_parse(struct arena *a, const struct source_cfg *src, const char *body, size_t len,
		    struct poll_page *out, struct sl_err *err)
{
	const json_t *rows;
	json_error_t je;
	json_t *root;
	int rc;

	memset(out, 0, sizeof(*out));
	out->rows.ncols = src->ncolumns + 1;
	if (jsontext_blank(body, len))
		return 0;
	root = json_loadb(body, len, JSON_DECODE_ANY, &je);
	if (!root)
		return sl_err_set(err, SL_E_PARSE, "invalid JSON at line %d, column %d: %s", je.line,
				  je.column, je.text);
	rc = find_rows(a, src, root, &rows, err);
	if (!rc && rows)
		rc = webhook_rows_from_json(a, src, rows, &out->rows, err);
	if (!rc)
		rc = page_cursor(a, src, rows, &out->cursor, err);
	json_decref(root);
	if (rc) {
		memset(out, 0, sizeof(*out));
		out->rows.ncols = src->ncolumns + 1;
	}
	return rc;
}

/* ---- cursors ---- */

static bool int_text(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return !*s;
}

/* Integers of any length: sign, then length without leading zeros, then
 * digits. */
static int int_cmp(const char *a, const char *b)
{
	bool na = *a == '-', nb = *b == '-';
	size_t la, lb;
	int c;

	if (*a == '-' || *a == '+')
		a++;
	if (*b == '-' || *b == '+')
		b++;
	while (*a == '0' && a[1])
		a++;
	while (*b == '0' && b[1])
		b++;
	if (!strcmp(a, "0"))
		na = false;
	if (!strcmp(b, "0"))
		nb = false;
	if (na != nb)
		return na ? -1 : 1;
	la = strlen(a);
	lb = strlen(b);
	c = la != lb ? (la < lb ? -1 : 1) : strcmp(a, b);
	if (c > 0)
		c = 1;
	else if (c < 0)
		c = -1;
	return na ? -c : c;
}

/* A number as JSON writes one (and a leading '+'): no hex, inf or nan. */
static bool num_text(const char *s, double *out)
{
	char *end;

	if (!*s || strspn(s, "+-0123456789.eE") != strlen(s))
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !*end && !errno && isfinite(*out);
}

int poll_cursor_cmp(const char *a, const char *b)
{
	char ta[ISOTIME_MAX], tb[ISOTIME_MAX];
	const char *why;
	double da, db;
	int c;

	if (int_text(a) && int_text(b))
		return int_cmp(a, b);
	if (num_text(a, &da) && num_text(b, &db))
		return da < db ? -1 : da > db ? 1 : 0;
	if (!isotime_parse(ISOTIME_TIMESTAMP, a, ta, &why) &&
	    !isotime_parse(ISOTIME_TIMESTAMP, b, tb, &why)) {
		a = ta;
		b = tb;
	}
	c = strcmp(a, b);
	return c < 0 ? -1 : c > 0 ? 1 : 0;
}
