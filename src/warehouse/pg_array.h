/*
 * A JSON array as PostgreSQL's array text: what a landing column declared
 * as a list ("INTEGER[]") is sent, so that one request lands on every
 * warehouse (DuckDB casts the JSON text itself). Private to
 * src/warehouse/.
 */
#ifndef SL_WAREHOUSE_PG_ARRAY_H
#define SL_WAREHOUSE_PG_ARRAY_H

#include <stdbool.h>

struct buf;

/* Appends to out the array literal of the JSON array json ("[1, [2]]",
 * "[\"a, b\", null]" become "{1,{2}}", "{\"a, b\",NULL}"): strings quoted
 * with their escapes decoded, numbers as written, an object as its JSON
 * text. False, with out as it was, when json is not one JSON array (text
 * PostgreSQL is then to read as it is) or holds a NUL character, which no
 * PostgreSQL text holds. */
bool pg_array_from_json(const char *json, struct buf *out);

#endif
