/*
 * Typed columns from JSON values. A column's declared type, as the
 * warehouse reads it (warehouse/types.h), decides which JSON values it
 * takes; each accepted value becomes the text that the warehouse's cast
 * from text turns into that type (the writer appends text and the appender
 * casts it). Ranges and shapes are checked here, so a bad value is reported
 * with its row and column before anything is appended. Never touches the
 * warehouse.
 */
#ifndef SL_INGEST_COERCE_H
#define SL_INGEST_COERCE_H

#include "warehouse/types.h"

#include <jansson.h>

struct arena;
struct sl_err;

/* The text for value v in a column of type t, allocated in a; NULL for
 * JSON null. Returns 0, or SL_E_INVALID with a message naming the value and
 * the type ("\"abc\" is not a DOUBLE", "300 is out of range for TINYINT"). */
int coerce_value(struct arena *a, const struct wh_value_type *t, const json_t *v, const char **out,
		 struct sl_err *err);

/* v as compact JSON text (see jsontext.h), allocated in a. */
const char *coerce_json(struct arena *a, const json_t *v);

#endif
