/*
 * This file implements the read endpoint's answer formats (sqlout.h). It
 * writes text only, and must never reach the warehouse.
 */
#include "server/sqlout.h"

#include "core/buf.h"
#include "warehouse/wh.h"

#include <jansson.h>
#include <string.h>

static const char *const names[] = { "json", "csv", "ndjson" };
static const char *const types[] = { "application/json", "text/csv", "application/x-ndjson" };

bool sql_format_parse(const char *name, enum sql_format *out)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (enum sql_format)i;
			return true;
		}
	return false;
}

enum sql_format sql_format_accept(const char *accept)
{
	if (accept && strstr(accept, types[SQL_FORMAT_CSV]))
		return SQL_FORMAT_CSV;
	if (accept && strstr(accept, types[SQL_FORMAT_NDJSON]))
		return SQL_FORMAT_NDJSON;
	return SQL_FORMAT_JSON;
}

const char *sql_format_type(enum sql_format f)
{
	return types[f];
}

/* A value whole, NUL bytes and all; text that is not UTF-8 cannot be a
 * JSON string and is null. */
static json_t *value(const struct wh_result *r, size_t row, size_t c)
{
	const char *v = wh_result_value(r, row, c);
	json_t *s = v ? json_stringn(v, wh_result_value_len(r, row, c)) : NULL;

	return s ? s : json_null();
}

static void add_json(struct buf *out, json_t *doc, size_t flags)
{
	char *text = json_dumps(doc, flags);

	if (text)
		buf_adds(out, text);
	free(text);
	json_decref(doc);
}

static void write_json(const struct wh_result *r, size_t n, bool truncated, struct buf *out)
{
	json_t *doc = json_object(), *cols = json_array(), *rows = json_array();

	for (size_t c = 0; c < wh_result_ncols(r); c++)
		json_array_append_new(cols, json_string(wh_result_colname(r, c)));
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_array();

		for (size_t c = 0; c < wh_result_ncols(r); c++)
			json_array_append_new(row, value(r, i, c));
		json_array_append_new(rows, row);
	}
	json_object_set_new(doc, "columns", cols);
	json_object_set_new(doc, "rows", rows);
	json_object_set_new(doc, "truncated", json_boolean(truncated));
	add_json(out, doc, JSON_COMPACT);
	buf_addch(out, '\n');
}

static void write_ndjson(const struct wh_result *r, size_t n, struct buf *out)
{
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();

		for (size_t c = 0; c < wh_result_ncols(r); c++)
			json_object_set_new(o, wh_result_colname(r, c), value(r, i, c));
		add_json(out, o, JSON_COMPACT);
		buf_addch(out, '\n');
	}
}

/* Quoted when it holds what would end the field or the line, or is the
 * empty string (an empty field is NULL). */
static void csv_field(struct buf *out, const char *v, size_t len)
{
	bool quote = len == 0 || memchr(v, ',', len) || memchr(v, '"', len) ||
		     memchr(v, '\n', len) || memchr(v, '\r', len);

	if (!quote) {
		buf_add(out, v, len);
		return;
	}
	buf_addch(out, '"');
	for (size_t i = 0; i < len; i++) {
		if (v[i] == '"')
			buf_addch(out, '"');
		buf_addch(out, v[i]);
	}
	buf_addch(out, '"');
}

static void write_csv(const struct wh_result *r, size_t n, struct buf *out)
{
	size_t nc = wh_result_ncols(r);

	for (size_t c = 0; c < nc; c++) {
		const char *name = wh_result_colname(r, c);

		if (c)
			buf_addch(out, ',');
		csv_field(out, name, strlen(name));
	}
	buf_adds(out, "\r\n");
	for (size_t i = 0; i < n; i++) {
		for (size_t c = 0; c < nc; c++) {
			const char *v = wh_result_value(r, i, c);

			if (c)
				buf_addch(out, ',');
			if (v)
				csv_field(out, v, wh_result_value_len(r, i, c));
		}
		buf_adds(out, "\r\n");
	}
}

void sql_format_write(const struct wh_result *r, size_t max_rows, enum sql_format f,
		      bool truncated, struct buf *out)
{
	size_t n = wh_result_nrows(r) < max_rows ? wh_result_nrows(r) : max_rows;

	truncated |= n < wh_result_nrows(r);
	if (f == SQL_FORMAT_CSV)
		write_csv(r, n, out);
	else if (f == SQL_FORMAT_NDJSON)
		write_ndjson(r, n, out);
	else
		write_json(r, n, truncated, out);
}
