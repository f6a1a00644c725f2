/*
 * The text of DuckDB values, written from a result's data chunks: the text
 * DuckDB's own cast to VARCHAR gives (and duckdb_value_varchar gave before
 * it), byte for byte. Private to src/warehouse/; sqlparse.c reads its one
 * VARCHAR with duck_text_string.
 */
#ifndef SL_WAREHOUSE_DUCKDB_TEXT_H
#define SL_WAREHOUSE_DUCKDB_TEXT_H

#include <duckdb.h>
#include <stdbool.h>
#include <stddef.h>

struct wh_result;

/* How one result column's values are written. */
struct duck_text_col {
	duckdb_type type;      /* DUCKDB_TYPE_INVALID: no writer, its values stay NULL */
	duckdb_type storage;   /* DECIMAL: the integer type its values are stored in */
	unsigned width, scale; /* DECIMAL */
};

/* Whether values of type t are written here without a call into DuckDB
 * per value. Queries have the others cast to VARCHAR in SQL before they
 * reach a result. Of those, FLOAT and DOUBLE values that do reach one are
 * written through DuckDB's cast, value by value; the rest (nested types,
 * UUID, ENUM, BIT, BIGNUM, the time zone and non-microsecond time types)
 * read as NULL, as duckdb_value_varchar had them. */
bool duck_text_native(duckdb_type t);

/* The writer for a column of logical type t. */
struct duck_text_col duck_text_column(duckdb_logical_type t);

/* Writes the n values of vector v (a column of a data chunk, read with
 * col's writer) from value from on into rows first .. first + n - 1 of
 * column c of r; a NULL stays NULL. */
void duck_text_write(struct wh_result *r, size_t first, size_t c, duckdb_vector v, idx_t from,
		     idx_t n, const struct duck_text_col *col);

/* The length of the text duck_text_write would write for value i of
 * vector v (0 for a NULL), read before any of it is copied. */
size_t duck_text_len(duckdb_vector v, idx_t i, const struct duck_text_col *col);

/* The bytes of a VARCHAR or BLOB value, *len of them, NUL bytes included;
 * owned by the vector the value was read from. */
const char *duck_text_string(const duckdb_string_t *s, size_t *len);

#endif
