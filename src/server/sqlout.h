/*
 * A query's rows as the read endpoint answers them, and as `sluice sql`
 * prints them without a server, so both give the same bytes: JSON
 * ({"columns": [...], "rows": [[...]], "truncated": false}), CSV (RFC
 * 4180, a header line, NULL an empty field, the empty string "") or NDJSON
 * (an object per row). Values are the warehouse's text for them.
 */
#ifndef SL_SERVER_SQLOUT_H
#define SL_SERVER_SQLOUT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct wh_result;

enum sql_format { SQL_FORMAT_JSON, SQL_FORMAT_CSV, SQL_FORMAT_NDJSON };

/* "json", "csv" or "ndjson"; false for anything else. */
bool sql_format_parse(const char *name, enum sql_format *out);
/* The format a request's Accept header asks for, JSON when it names none
 * of them (or is NULL). */
enum sql_format sql_format_accept(const char *accept);
/* Its media type. */
const char *sql_format_type(enum sql_format f);
/* Appends r's first max_rows rows in format f to out; truncated (or more
 * rows than that) goes into the JSON document (the other formats carry it
 * beside, in a header or a message). */
void sql_format_write(const struct wh_result *r, size_t max_rows, enum sql_format f,
		      bool truncated, struct buf *out);

#endif
