/*
 * Webhook ingest, the parts that need no HTTP: turning one request body
 * (or any parsed JSON of rows) into rows for landing.NAME and checking a
 * request's signature. Pure
 * functions, so the server calls them from its request threads and hands
 * the rows to the landing writer (writer.h), which also keeps the delivery
 * ids. Nothing here touches the warehouse.
 */
#ifndef SL_INGEST_WEBHOOK_H
#define SL_INGEST_WEBHOOK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct source_cfg;

/* Rows in the column order of landing.NAME: one cell per typed column of
 * the source (in declaration order), then `payload`, the whole object as
 * compact JSON. `_sluice_landed_at` and `_sluice_seq` are the writer's.
 * Each cell is the text DuckDB's cast turns into the column's type, or
 * NULL for SQL NULL; payload is never NULL. */
struct webhook_rows {
	size_t nrows;
	size_t ncols;       /* the source's typed columns + 1 */
	const char **cells; /* nrows * ncols, row by row: cells[r * ncols + c] */
};

/* Parses a request body: one JSON object, a JSON array of objects, or
 * (ndjson) one object per non-empty line. An empty body or an empty array
 * gives 0 rows. Everything in out (cells and their strings) is allocated
 * in a and lives until a is reset. On failure out has 0 rows and err says
 * what and where, with rows counted from 1 as the sender counts them:
 *   SL_E_PARSE    invalid JSON ("invalid JSON at line 2, column 5: ...")
 *   SL_E_INVALID  a row that is not an object, or a value its column's
 *                 type does not take ("row 3, column amount: \"abc\" is
 *                 not a DOUBLE")
 *   SL_E_CONFIG   a column type DuckDB would refuse (DECIMAL(50,2)) */
int webhook_parse(struct arena *a, const struct source_cfg *src, const char *body, size_t len,
		  bool ndjson, struct webhook_rows *out, struct sl_err *err);

/* The same rows from an already parsed value: an object (one row) or an
 * array of objects (one row each), for ingest paths that parse the JSON
 * themselves (a poll's response). Same memory rules and errors as
 * webhook_parse, but for SL_E_PARSE. */
int webhook_rows_from_json(struct arena *a, const struct source_cfg *src, const json_t *v,
			   struct webhook_rows *out, struct sl_err *err);

/* The value a column named name takes from a row object: the top-level
 * key of that name; failing that, for a name with dots, the path through
 * nested objects ("customer.id"). NULL when there is none. Borrowed from
 * obj. */
const json_t *webhook_field(const json_t *obj, const char *name);

/* Signatures: HMAC-SHA256 with the source's secret over "TIMESTAMP.BODY",
 * where TIMESTAMP is the X-Sluice-Timestamp header (unix seconds) as sent,
 * carried as X-Sluice-Signature: sha256=HEX. */
#define WEBHOOK_SIGNATURE_HEADER "X-Sluice-Signature"
#define WEBHOOK_TIMESTAMP_HEADER "X-Sluice-Timestamp"
/* how far the timestamp may be from now, either way */
#define WEBHOOK_TOLERANCE_S 300
#define WEBHOOK_MAC_LEN 32

/* What a good signature vouched for: the timestamp as sent and the MAC,
 * which together name the request (the replay memory's key, seen.h). */
struct webhook_signature {
	int64_t ts;
	unsigned char mac[WEBHOOK_MAC_LEN];
};

/* Checks a request's signature headers (NULL when absent) against the
 * body, at now_s. Returns 0, or (each with its own message):
 *   SL_E_AUTH_MISSING    a header is absent or empty
 *   SL_E_AUTH_MALFORMED  not unix seconds, or not sha256= and 64 hex digits
 *   SL_E_AUTH_EXPIRED    the timestamp is more than 300 s from now_s
 *   SL_E_AUTH_DENIED     the signature does not match
 *   SL_E_USAGE           an empty secret (which would sign anything)
 *   SL_E_INTERNAL        the crypto library failed */
int webhook_verify(const char *secret, const char *timestamp_header, const char *signature_header,
		   const char *body, size_t len, int64_t now_s, struct sl_err *err);
/* webhook_verify, handing what it verified to out on success. */
int webhook_verify_signature(const char *secret, const char *timestamp_header,
			     const char *signature_header, const char *body, size_t len,
			     int64_t now_s, struct webhook_signature *out, struct sl_err *err);

/* The signature of body at unix time ts, as 64 lower-case hex digits (the
 * X-Sluice-Signature header is "sha256=" and these). Returns 0, or
 * SL_E_INTERNAL when the crypto library fails. */
int webhook_sign(const char *secret, int64_t ts, const char *body, size_t len,
		 char out_hex[65]);

#endif
