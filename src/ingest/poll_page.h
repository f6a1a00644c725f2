/*
 * A polled API's response page, the part of a poll that needs neither HTTP
 * nor the warehouse: where the rows are in the JSON, the rows themselves
 * (built the way a webhook body's are, webhook.h) and the page's highest
 * cursor, and the order of cursor values that decides whether a cursor
 * moved. Pure functions, callable from any thread.
 */
#ifndef SL_INGEST_POLL_PAGE_H
#define SL_INGEST_POLL_PAGE_H

#include "ingest/webhook.h"

#include <stddef.h>

struct arena;
struct sl_err;
struct source_cfg;

/* A response turned into rows. */
struct poll_page {
	struct webhook_rows rows;
	const char *cursor; /* the highest cursor value of its rows; NULL when the
			     * source has no cursor or no row holds one */
};

/* Parses a response body. The rows are the body itself when it is an
 * array; the array at src->json_path (a dot path; JSON null there is no
 * rows, one object is one row); or, without a json_path, the one member of
 * an object that is an array of objects. A blank body is no rows. Memory
 * goes to a. Errors, with rows counted from 1:
 *   SL_E_PARSE    invalid JSON ("invalid JSON at line 1, column 7: ...")
 *   SL_E_INVALID  no rows where expected, a row that is not an object, a
 *                 value its column refuses, a cursor that is an object,
 *                 an array or a boolean
 *   SL_E_CONFIG   a column type DuckDB would refuse */
int poll_page_parse(struct arena *a, const struct source_cfg *src, const char *body, size_t len,
		    struct poll_page *out, struct sl_err *err);

/* Orders two cursor values (<0, 0, >0): integers and other numbers by
 * value, ISO-8601 timestamps as instants (offsets applied), anything else
 * byte by byte. Here because a page's highest cursor is found with it; the
 * poller also compares that one with the stored cursor. */
int poll_cursor_cmp(const char *a, const char *b);

#endif
