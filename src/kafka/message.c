/*
 * This file implements a Kafka message as a landing row (message.h).
 */
#include "kafka/message.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/utf8.h"
#include "ingest/jsontext.h"
#include "ingest/webhook.h"
#include "project/config.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const extra_names[] = { "_sluice_op",	  "_sluice_key",
					   "_sluice_headers",	  "_sluice_topic",
					   "_sluice_partition", "_sluice_offset",
					   "_sluice_event_ts" };
#define NEXTRA (sizeof(extra_names) / sizeof(extra_names[0]))

const char *const *kafka_row_names(struct arena *a, const struct source_cfg *src, size_t *n)
{
	const char **names = arena_alloc(a, (src->ncolumns + 1 + NEXTRA) * sizeof(*names));

	for (size_t i = 0; i < src->ncolumns; i++)
		names[i] = src->columns[i].name;
	names[src->ncolumns] = "payload";
	for (size_t i = 0; i < NEXTRA; i++)
		names[src->ncolumns + 1 + i] = extra_names[i];
	*n = src->ncolumns + 1 + NEXTRA;
	return names;
}

/* Bytes as text: themselves when UTF-8 without NUL, else "\x" and hex. */
static const char *as_text(struct arena *a, const char *s, size_t len)
{
	struct buf b = BUF_INIT;
	const char *out;

	if (utf8_valid(s, len) && !memchr(s, '\0', len))
		return arena_strndup(a, s, len);
	buf_adds(&b, "\\x");
	for (size_t i = 0; i < len; i++)
		buf_addf(&b, "%02x", (unsigned char)s[i]);
	out = arena_strdup(a, b.buf);
	buf_release(&b);
	return out;
}

static const char *json_text(struct arena *a, json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	const char *out = arena_strdup(a, s ? s : "null");

	free(s);
	return out;
}

/* Whether JSON text may hold what the scanner lets through and the
 * warehouse's JSON reader refuses: escapes (a lone surrogate, \u0000),
 * numbers past 15 digits or with an exponent (beyond a double). */
static bool needs_parse(const char *s, size_t len)
{
	size_t digits = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' || ((s[i] == 'e' || s[i] == 'E') && digits))
			return true;
		digits = s[i] >= '0' && s[i] <= '9' ? digits + 1 : 0;
		if (digits > 15)
			return true;
	}
	return false;
}

/* The payload of a value no typed column reads: the JSON it is, as it
 * is, else the text as a JSON string. */
static const char *other_payload(struct arena *a, const char *value, size_t len)
{
	json_t *v = NULL;
	const char *out;

	if (utf8_valid(value, len) && !memchr(value, '\0', len) && jsontext_valid(value, len) &&
	    (!needs_parse(value, len) || (v = json_loadb(value, len, JSON_DECODE_ANY, NULL)))) {
		json_decref(v);
		return arena_strndup(a, value, len);
	}
	v = json_string(as_text(a, value, len));
	out = json_text(a, v);
	json_decref(v);
	return out;
}

static const char *headers_json(struct arena *a, const struct kafka_message *m)
{
	json_t *o;
	const char *out;

	if (!m->nheaders)
		return NULL;
	o = json_object();
	for (size_t i = 0; i < m->nheaders; i++) {
		const struct kafka_header *h = &m->headers[i];

		/* a name jansson cannot take as a key would drop the header */
		json_object_set_new(o, as_text(a, h->name, strlen(h->name)),
				    h->value ? json_string(as_text(a, h->value, h->len))
					     : json_null());
	}
	out = json_text(a, o);
	json_decref(o);
	return out;
}

static void push(struct arena *a, struct kafka_rows *rows, const char *cell)
{
	*ARENA_PUSH(a, &rows->cells, &rows->ncells, &rows->cap) = cell;
}

/* The change event of a Debezium value: its envelope (under "payload"
 * when the converter wrote the schema beside it), its op and the row it
 * carries (the old one for a delete; none for a truncate). */
static bool debezium_event(json_t *v, const char **op, json_t **row)
{
	json_t *env = v, *inner = json_object_get(v, "payload");

	if (json_is_object(inner) && json_is_string(json_object_get(inner, "op")))
		env = inner;
	*op = json_string_value(json_object_get(env, "op"));
	if (!*op || !**op)
		return false;
	*row = json_object_get(env, **op == 'd' ? "before" : "after");
	if (!json_is_object(*row))
		*row = NULL;
	return *row || **op == 't';
}

/* The typed columns and payload of a JSON object. */
static int object_cells(struct arena *a, const struct source_cfg *src,
			const struct kafka_message *m, json_t *row, struct kafka_rows *rows,
			struct sl_err *err)
{
	struct webhook_rows one;
	int rc = webhook_rows_from_json(a, src, row, &one, err);

	if (rc) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", err->msg);
		return sl_err_set(err, rc, "partition %d, offset %lld: %s", (int)m->partition,
				  (long long)m->offset, why);
	}
	for (size_t c = 0; c < one.ncols; c++)
		push(a, rows, one.cells[c]);
	return 0;
}

/* NULL typed columns, then payload. */
static void plain_cells(struct arena *a, const struct source_cfg *src, struct kafka_rows *rows,
			const char *payload)
{
	for (size_t c = 0; c < src->ncolumns; c++)
		push(a, rows, NULL);
	push(a, rows, payload);
}

int kafka_rows_add(struct arena *a, const struct source_cfg *src, const struct kafka_message *m,
		   struct kafka_rows *rows, struct sl_err *err)
{
	bool dbz = src->format && strcmp(src->format, "debezium") == 0;
	const char *op = m->value ? "u" : "d";
	json_t *v = NULL, *row = NULL;
	char ts[40];
	int rc = 0;

	/* a Debezium tombstone only lets the log compact the key away: its
	 * delete came before it */
	if (dbz && !m->value)
		return 0;
	/* parsed only when a typed column or the Debezium event needs it */
	if (m->value && (dbz || src->ncolumns) && utf8_valid(m->value, m->value_len)) {
		json_error_t je;

		v = json_loadb(m->value, m->value_len, 0, &je);
		/* an object the typed columns cannot read stops the landing */
		if (!v && !dbz && m->value_len > jsontext_skip_space(m->value, m->value_len, 0) &&
		    m->value[jsontext_skip_space(m->value, m->value_len, 0)] == '{')
			return sl_err_set(err, SL_E_INVALID,
					  "partition %d, offset %lld: invalid JSON object at column %d: "
					  "%s",
					  (int)m->partition, (long long)m->offset, je.column, je.text);
	}
	if (dbz && !(json_is_object(v) && debezium_event(v, &op, &row)))
		rc = sl_err_set(err, SL_E_INVALID,
				"partition %d, offset %lld: not a Debezium change event (an object "
				"with op, and after or before)",
				(int)m->partition, (long long)m->offset);
	else if (dbz && row)
		rc = object_cells(a, src, m, row, rows, err);
	else if (dbz)
		plain_cells(a, src, rows, NULL);
	else if (json_is_object(v))
		rc = object_cells(a, src, m, v, rows, err);
	else
		plain_cells(a, src, rows,
			    m->value ? other_payload(a, m->value, m->value_len) : NULL);
	if (rc) {
		json_decref(v);
		return rc;
	}
	push(a, rows, arena_strdup(a, op));
	json_decref(v);
	push(a, rows, m->key ? as_text(a, m->key, m->key_len) : NULL);
	push(a, rows, headers_json(a, m));
	push(a, rows, m->topic);
	push(a, rows, arena_sprintf(a, "%d", (int)m->partition));
	push(a, rows, arena_sprintf(a, "%lld", (long long)m->offset));
	if (m->ts_ms >= 0)
		units_format_ts(m->ts_ms, ts, sizeof(ts));
	push(a, rows, m->ts_ms >= 0 ? arena_strdup(a, ts) : NULL);
	rows->nrows++;
	return 0;
}
