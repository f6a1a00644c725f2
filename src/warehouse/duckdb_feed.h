/*
 * Feeds: rows for one table, held typed in memory and inserted by one
 * statement prepared once, which reads them through a table function. A
 * DuckDB appender's flush plans an INSERT every time (some 0.25 ms, as much
 * as the rows of a small landing batch cost); a feed's INSERT is planned
 * once per connection and table. Private to src/warehouse/.
 */
#ifndef SL_WAREHOUSE_DUCKDB_FEED_H
#define SL_WAREHOUSE_DUCKDB_FEED_H

#include <duckdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct duck_feed;

/* Why a row or an insert was refused, in DuckDB's words. */
struct duck_feed_error {
	duckdb_error_type type;
	char msg[512];
};

/* Whether a feed holds values of type t: a table with a column of any
 * other type goes through DuckDB's appender. */
bool duck_feed_takes(duckdb_type t);

/* A feed of schema.name on conn, whose ncols columns (in table order) are
 * of types, each one a feed takes; NULL when DuckDB does not prepare its
 * INSERT. */
struct duck_feed *duck_feed_new(duckdb_connection conn, const char *schema, const char *name,
				const duckdb_type *types, size_t ncols);
void duck_feed_free(struct duck_feed *f);

/* Whether f was made for columns of these types. */
bool duck_feed_fits(const struct duck_feed *f, const duckdb_type *types, size_t ncols);

/* One row of text values (NULL for SQL NULL), converted as DuckDB's cast
 * converts them; false, with e, for a value the cast refuses, and the row
 * is not kept. */
bool duck_feed_row(struct duck_feed *f, const char *const *values, struct duck_feed_error *e);

/* Inserts the rows held and lets them go; false, with e, when the INSERT
 * fails (the rows are let go too: the caller rolls back). */
bool duck_feed_insert(struct duck_feed *f, struct duck_feed_error *e);

/* Lets the rows held go, unwritten. */
void duck_feed_clear(struct duck_feed *f);

/* Plain decimal digits, optionally negative, as int64, and sluice's own
 * timestamp text ("YYYY-MM-DD HH:MM:SS[.ffffff]") as microseconds since
 * the epoch: what DuckDB's cast gives for them, without the cast. */
bool duck_plain_int64(const char *s, int64_t *out);
bool duck_plain_timestamp(const char *s, int64_t *micros);

#endif
