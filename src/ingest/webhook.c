/*
 * Webhook request bodies (and parsed JSON from other sources, such as a
 * poll's response) into landing rows. jansson parses (it rejects
 * invalid UTF-8, \u0000 and nesting deeper than 2048); each object becomes
 * one row: its typed columns through coerce.c, then the whole object as
 * payload. All or nothing: the first bad row fails the request, and no row
 * of it is handed out.
 */
#include "ingest/jsontext.h"
#include "ingest/webhook.h"

#include "core/arena.h"
#include "core/err.h"
#include "ingest/coerce.h"
#include "project/config.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

struct parse {
	struct arena *a;
	const struct source_cfg *src;
	struct wh_value_type *types; /* one per typed column */
	size_t ncols;              /* typed columns + payload */
	const char **cells;
	size_t nrows, cap_rows;
	struct sl_err *err;
};

const json_t *webhook_field(const json_t *obj, const char *name)
{
	const json_t *v = json_object_get(obj, name);
	const char *seg = name, *dot;

	if (v || !strchr(name, '.'))
		return v;
	for (v = obj; (dot = strchr(seg, '.')); seg = dot + 1) {
		v = json_object_getn(v, seg, (size_t)(dot - seg));
		if (!json_is_object(v))
			return NULL;
	}
	return json_object_get(v, seg);
}

/* "row 3", and the body's line when it differs (NDJSON with blank lines). */
static void row_name(char *out, size_t len, size_t row, size_t line)
{
	if (line && line != row)
		snprintf(out, len, "row %zu (line %zu)", row, line);
	else
		snprintf(out, len, "row %zu", row);
}

/* Appends the row for obj; line is its line in an NDJSON body, else 0. */
static int add_row(struct parse *p, const json_t *obj, size_t line)
{
	size_t row = p->nrows + 1, ntyped = p->ncols - 1;
	struct sl_err cerr = SL_ERR_INIT;
	const char **cells;
	char name[64];
	int rc;

	if (!json_is_object(obj)) {
		row_name(name, sizeof(name), row, line);
		return sl_err_set(p->err, SL_E_INVALID, "%s is %s, not an object", name,
				  jsontext_kind(obj));
	}
	if (p->nrows == p->cap_rows) {
		size_t grown = p->cap_rows ? p->cap_rows * 2 : 16;

		p->cells = arena_grow(p->a, p->cells, p->cap_rows * p->ncols * sizeof(*p->cells),
				      grown * p->ncols * sizeof(*p->cells));
		p->cap_rows = grown;
	}
	cells = p->cells + p->nrows * p->ncols;
	for (size_t c = 0; c < ntyped; c++) {
		const json_t *v = webhook_field(obj, p->src->columns[c].name);

		rc = v ? coerce_value(p->a, &p->types[c], v, &cells[c], &cerr) : 0;
		if (rc) {
			row_name(name, sizeof(name), row, line);
			return sl_err_set(p->err, rc, "%s, column %s: %s", name,
					  p->src->columns[c].name, cerr.msg);
		}
	}
	cells[ntyped] = coerce_json(p->a, obj);
	p->nrows++;
	return 0;
}

static int json_error(struct parse *p, size_t line, const json_error_t *je)
{
	return sl_err_set(p->err, SL_E_PARSE, "invalid JSON at line %zu, column %d: %s", line,
			  je->column, je->text);
}

/* A parsed value: an object or an array of objects. */
static int add_value(struct parse *p, const json_t *root)
{
	const json_t *v;
	size_t i;
	int rc = 0;

	if (json_is_object(root))
		return add_row(p, root, 0);
	if (!json_is_array(root))
		return sl_err_set(p->err, SL_E_INVALID,
				  "body is %s, not an object or an array of objects", jsontext_kind(root));
	json_array_foreach(root, i, v) {
		rc = add_row(p, v, 0);
		if (rc)
			break;
	}
	return rc;
}

/* A key twice in one object is read one way by jansson (the last wins) and
 * may be read the other way by whoever sent it or reads the payload
 * later: refused, like any other body that can be read two ways. */
#define WEBHOOK_JSON_FLAGS (JSON_DECODE_ANY | JSON_REJECT_DUPLICATES)

/* One document: an object or an array of objects. */
static int parse_document(struct parse *p, const char *body, size_t len)
{
	json_error_t je;
	json_t *root;
	int rc;

	if (jsontext_blank(body, len))
		return 0;
	root = json_loadb(body, len, WEBHOOK_JSON_FLAGS, &je);
	if (!root)
		return json_error(p, (size_t)je.line, &je);
	rc = add_value(p, root);
	json_decref(root);
	return rc;
}

/* One object per line; blank lines (and a last newline) are skipped. */
static int parse_ndjson(struct parse *p, const char *body, size_t len)
{
	size_t line = 0, start = 0;

	while (start < len) {
		const char *nl = memchr(body + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - body) : len;
		json_error_t je;
		json_t *obj;
		int rc;

		line++;
		if (!jsontext_blank(body + start, end - start)) {
			obj = json_loadb(body + start, end - start, WEBHOOK_JSON_FLAGS, &je);
			if (!obj)
				return json_error(p, line, &je);
			rc = add_row(p, obj, line);
			json_decref(obj);
			if (rc)
				return rc;
		}
		start = end + 1;
	}
	return 0;
}

/* The column types of the source, read once per call. */
static int parse_begin(struct parse *p, struct arena *a, const struct source_cfg *src,
		       struct webhook_rows *out, struct sl_err *err)
{
	int rc;

	*p = (struct parse){ .a = a, .src = src, .ncols = src->ncolumns + 1, .err = err };
	memset(out, 0, sizeof(*out));
	p->types = arena_alloc(a, src->ncolumns * sizeof(*p->types));
	for (size_t c = 0; c < src->ncolumns; c++) {
		rc = wh_type_parse(a, src->columns[c].type, &p->types[c], err);
		if (rc) {
			sl_err_context(err, "in column %s of source %s", src->columns[c].name,
				       src->name);
			return rc;
		}
	}
	return 0;
}

static void parse_end(const struct parse *p, struct webhook_rows *out)
{
	out->nrows = p->nrows;
	out->ncols = p->ncols;
	out->cells = p->cells;
}

int webhook_parse(struct arena *a, const struct source_cfg *src, const char *body, size_t len,
		  bool ndjson, struct webhook_rows *out, struct sl_err *err)
{
	struct parse p;
	int rc = parse_begin(&p, a, src, out, err);

	if (!rc)
		rc = ndjson ? parse_ndjson(&p, body, len) : parse_document(&p, body, len);
	if (!rc)
		parse_end(&p, out);
	return rc;
}

int webhook_rows_from_json(struct arena *a, const struct source_cfg *src, const json_t *v,
			   struct webhook_rows *out, struct sl_err *err)
{
	struct parse p;
	int rc = parse_begin(&p, a, src, out, err);

	if (!rc)
		rc = add_value(&p, v);
	if (!rc)
		parse_end(&p, out);
	return rc;
}
