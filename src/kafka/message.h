/*
 * A Kafka message as a landing row of its source: the typed columns and
 * payload a JSON object value gives, as a webhook body's do (webhook.h),
 * then its op, key, headers, topic, partition, offset and timestamp. A value
 * that is other JSON lands as it is in payload, text that is not JSON as
 * a JSON string, bytes that are not UTF-8 as a string of their hex
 * ("\x0a1f"); a null value (a tombstone) as a NULL payload and op "d",
 * any other value op "u", so that a model can apply a topic keyed by its
 * messages' keys as change events. A source of format debezium reads each
 * value as a Debezium change event: op is the event's, the row (the new
 * one, the old one of a delete) gives the typed columns and payload, and
 * tombstones, which only let the log compact a deleted key away, land
 * nothing. Pure functions, without librdkafka, so that the rules are
 * tested alone.
 */
#ifndef SL_KAFKA_MESSAGE_H
#define SL_KAFKA_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct source_cfg;

struct kafka_header {
	const char *name;
	const char *value; /* NULL: the header has no value */
	size_t len;
};

struct kafka_message {
	const char *topic;
	int32_t partition;
	int64_t offset;
	int64_t ts_ms; /* -1: the message has no timestamp */
	const char *key, *value; /* NULL: none */
	size_t key_len, value_len;
	const struct kafka_header *headers;
	size_t nheaders;
};

/* Landing rows being gathered: cells row by row, in the order of the
 * names kafka_row_names gives. */
struct kafka_rows {
	const char **cells;
	size_t nrows, ncells, cap;
};

/* The columns of src's landing rows: its typed columns, payload, then
 * _sluice_op, _sluice_key, _sluice_headers, _sluice_topic,
 * _sluice_partition, _sluice_offset and _sluice_event_ts. In a. */
const char *const *kafka_row_names(struct arena *a, const struct source_cfg *src, size_t *n);

/* Adds m's row to rows (memory from a), or none for a Debezium tombstone.
 * A JSON object whose value a typed column does not take, or a value of a
 * debezium source that is no change event, is SL_E_INVALID, naming the
 * partition and offset; a column type DuckDB refuses SL_E_CONFIG. */
int kafka_rows_add(struct arena *a, const struct source_cfg *src, const struct kafka_message *m,
		   struct kafka_rows *rows, struct sl_err *err);

#endif
