/*
 * The PostgreSQL logical replication stream, decoded: the CopyData messages
 * of a walsender (XLogData, keepalives, and the standby status update sent
 * back), the pgoutput plugin's messages of protocol version 1, a cache of
 * the relations they describe, and a tuple of a change as the payload JSON
 * of its landed row. Pure functions over bytes the caller received: no I/O,
 * no connection, no threads; the postgres_cdc consumer owns all of that.
 *
 * Every length and count is checked against the message before it is
 * used. A malformed, truncated or oversized message gives SL_E_PARSE,
 * naming the message and the byte where it went wrong, and produces
 * nothing: the output and the cache are left as they were.
 *
 * The connection is expected to use client_encoding UTF8, DateStyle ISO
 * and bytea_output hex (escape is read too); values are PostgreSQL's text
 * output, never binary (the pgoutput "binary" option is refused).
 */
#ifndef SL_PGCDC_PGOUTPUT_H
#define SL_PGCDC_PGOUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct sl_err;

/* PostgreSQL's times are microseconds since 2000-01-01 00:00 UTC; this
 * much more makes them unix microseconds. */
#define PGOUTPUT_EPOCH_UNIX_US 946684800000000LL

/* A table has at most 1600 columns (MaxHeapAttributeNumber). */
#define PGOUTPUT_MAX_COLUMNS 1600

/* ---- the replication stream (one CopyData message each) ---- */

struct pgoutput_copy {
	char kind;            /* 'w' XLogData, 'k' primary keepalive */
	uint64_t start_lsn;   /* w: where the data starts in the WAL; 0 is sent within a transaction */
	uint64_t wal_end;     /* w and k: the end of the server's WAL */
	int64_t send_time;    /* w and k: when the server sent it (PostgreSQL microseconds) */
	bool reply_requested; /* k: answer with a status update at once */
	const uint8_t *data;  /* w: the pgoutput message, inside the CopyData message */
	size_t len;
};

/* Decodes one CopyData message. data points into msg (not copied): valid
 * while msg is. SL_E_PARSE for a short or long message or another kind. */
int pgoutput_copy_decode(const void *msg, size_t len, struct pgoutput_copy *out,
			 struct sl_err *err);

/* The standby status update ('r'): the LSNs written, flushed and applied
 * (the server may recycle WAL up to flushed: only what has landed), the
 * time now (PostgreSQL microseconds), and whether the server should answer
 * at once. Fills the whole of out. */
#define PGOUTPUT_STATUS_LEN 34
void pgoutput_status_encode(uint8_t out[PGOUTPUT_STATUS_LEN], uint64_t written, uint64_t flushed,
			    uint64_t applied, int64_t now, bool reply_requested);

/* ---- pgoutput messages ---- */

enum pgoutput_kind {
	PGOUTPUT_BEGIN = 'B',
	PGOUTPUT_COMMIT = 'C',
	PGOUTPUT_ORIGIN = 'O',
	PGOUTPUT_RELATION = 'R',
	PGOUTPUT_TYPE = 'Y',
	PGOUTPUT_INSERT = 'I',
	PGOUTPUT_UPDATE = 'U',
	PGOUTPUT_DELETE = 'D',
	PGOUTPUT_TRUNCATE = 'T',
	PGOUTPUT_MESSAGE = 'M', /* pg_logical_emit_message(), with the "messages" option */
};

/* One column value of a tuple. */
enum pgoutput_value_kind {
	PGOUTPUT_NULL = 'n',
	/* a TOASTed value the change did not touch and the server did not
	 * send: the consumer fills it (pgoutput_tuple_fill, or from the row it
	 * landed before), it is never NULL */
	PGOUTPUT_UNCHANGED = 'u',
	PGOUTPUT_TEXT = 't',
};

struct pgoutput_value {
	char kind;        /* enum pgoutput_value_kind */
	uint32_t len;     /* PGOUTPUT_TEXT: the length of text */
	const char *text; /* PGOUTPUT_TEXT: the text output, not NUL-terminated */
};

struct pgoutput_tuple {
	/* 'N' the new row; 'K' the old row's key (its other columns are NULL
	 * and mean nothing); 'O' the whole old row (REPLICA IDENTITY FULL);
	 * 0 when the message has none */
	char kind;
	uint16_t ncols; /* the relation's, checked */
	struct pgoutput_value *values;
};

struct pgoutput_column {
	bool key; /* part of the replica identity */
	const char *name;
	uint32_t type_oid;
	int32_t typmod;
};

struct pgoutput_types;

struct pgoutput_relation {
	uint32_t oid;
	const char *nspname; /* "" for pg_catalog, as pgoutput sends it */
	const char *relname;
	char replident; /* 'd' default (primary key), 'n' nothing, 'f' full, 'i' index */
	uint16_t ncols; /* without dropped and generated columns, or the publication's list */
	struct pgoutput_column *cols;
	/* how values of types that are not built in are written (NULL: as
	 * their text); a decoded relation has its cache's */
	const struct pgoutput_types *types;
};

#define PGOUTPUT_TRUNCATE_CASCADE 1
#define PGOUTPUT_TRUNCATE_RESTART_IDENTITY 2

struct pgoutput_msg {
	char kind; /* enum pgoutput_kind */
	union {
		struct {
			uint64_t final_lsn; /* the commit's LSN */
			int64_t commit_time;
			uint32_t xid;
		} begin;
		struct {
			uint8_t flags; /* 0 */
			uint64_t commit_lsn;
			uint64_t end_lsn; /* the end of the commit record: confirm this */
			int64_t commit_time;
		} commit;
		struct {
			uint64_t lsn; /* the commit's LSN on the origin server */
			const char *name;
		} origin;
		/* R: the relation as sent; the cache keeps its own copy */
		struct pgoutput_relation relation;
		struct {
			uint32_t oid;
			const char *nspname;
			const char *name;
		} type;
		/* I: new. U: old (kind 'K', 'O', or 0 when the key did not
		 * change and the identity is not FULL) and new. D: old. */
		struct {
			const struct pgoutput_relation *rel; /* from the cache */
			struct pgoutput_tuple old;
			struct pgoutput_tuple new;
		} change;
		struct {
			uint8_t options; /* PGOUTPUT_TRUNCATE_* */
			uint32_t nrels;
			const struct pgoutput_relation **rels; /* from the cache */
		} truncate;
		struct {
			bool transactional;
			uint64_t lsn;
			const char *prefix;
			uint32_t len;
			const uint8_t *content;
		} message;
	};
};

/* The relations (and types) the stream has described, by OID. */
struct pgoutput_cache;

/* A new, empty cache; free it with pgoutput_cache_free. */
struct pgoutput_cache *pgoutput_cache_new(void);
void pgoutput_cache_free(struct pgoutput_cache *c);

/* The relation of an OID (NULL when none came yet). It stays valid after
 * a later Relation message replaced it, until pgoutput_cache_forget. */
const struct pgoutput_relation *pgoutput_cache_relation(const struct pgoutput_cache *c,
							 uint32_t oid);
/* The qualified name of a type a Type message described ("public.mood"),
 * or NULL: the stream names only types that are not built in, and a
 * domain by its base type ("int4" for a domain over int, pg_catalog left
 * out). Valid until the cache is freed. */
const char *pgoutput_cache_type(const struct pgoutput_cache *c, uint32_t oid);

/* A type that is not built in, as the source database's catalog describes
 * it: enough to write its values as JSON. */
struct pgoutput_type {
	uint32_t oid;
	/* 'd' a domain over ref, 'a' an array of ref, 'c' a composite of
	 * fields, 'o' any other (an enum, a range, ...): written as its text */
	char kind;
	uint32_t ref;
	uint16_t nfields;
	const char *const *names; /* c: the fields, in their order */
	const uint32_t *fields;	  /* c: their type OIDs */
};

/* OIDs below this are built in (FirstNormalObjectId): pgoutput_json.c
 * knows those it writes as other than text, and the others never need
 * the catalog. */
#define PGOUTPUT_FIRST_USER_OID 16384

/* A table of types; free it with pgoutput_types_free. */
struct pgoutput_types *pgoutput_types_new(void);
void pgoutput_types_free(struct pgoutput_types *t);
/* Keeps a copy of type, replacing one of the same OID. */
void pgoutput_types_put(struct pgoutput_types *t, const struct pgoutput_type *type);
/* The type of an OID, or NULL; valid until the next put or the free. */
const struct pgoutput_type *pgoutput_types_get(const struct pgoutput_types *t, uint32_t oid);
/* The cache's table of types, which its relations point to: the consumer
 * puts there what the catalog says of the types a Relation message names.
 * Freed with the cache. */
struct pgoutput_types *pgoutput_cache_types(struct pgoutput_cache *c);

/* Frees the relations that Relation messages replaced. Call it when no
 * message decoded before is still in use (after a batch has landed). */
void pgoutput_cache_forget(struct pgoutput_cache *c);

/* Decodes one pgoutput message (pgoutput_copy.data). A Relation or a Type
 * message is also kept in c, replacing the one of the same OID from then
 * on; a change or a truncate finds its relations there, and its tuples
 * must have the relation's column count. Strings and values point into
 * data, arrays are allocated in a: out is valid while both are (and the
 * cache's relations, see above). SL_E_PARSE for a malformed, truncated or
 * oversized message, an unknown message kind, or a change to a relation
 * no Relation message described. */
int pgoutput_decode(struct pgoutput_cache *c, const void *data, size_t len, struct arena *a,
		    struct pgoutput_msg *out, struct sl_err *err);

/* Fills the unchanged TOAST values of t from old, a whole old row ('O');
 * values pointing into old's message. Returns how many stay unchanged
 * (every one when old is not a whole row). */
size_t pgoutput_tuple_fill(struct pgoutput_tuple *t, const struct pgoutput_tuple *old);

/* Whether an update moved its row to another key: old, the old key ('K')
 * or the whole old row ('O'), differs from new in a column key[i] marks
 * (NULL: the relation's own key columns, pgoutput_column.key). Values
 * are compared as PostgreSQL wrote them; one new did not send (unchanged
 * TOAST) did not change. False when old is neither. */
bool pgoutput_key_changed(const struct pgoutput_relation *rel, const bool *key,
			  const struct pgoutput_tuple *old, const struct pgoutput_tuple *new);

/* ---- a tuple as JSON (pgoutput_json.c) ---- */

/* Writes the JSON value of column col of rel, unchanged in the tuple, to
 * out: the consumer's copy of it from the row it landed before (see
 * pgoutput_json_member). Returns 0 or an error. */
typedef int (*pgoutput_unchanged_fn)(void *ctx, const struct pgoutput_relation *rel, uint16_t col,
				     struct buf *out, struct sl_err *err);

/* Appends the payload JSON of t to out: an object of the relation's
 * columns, in their order and named as they are, with exact values.
 * A key tuple ('K') gives its key columns only. By type OID:
 *   int2, int4, int8, oid, numeric, float4, float8: a number, its text as
 *     PostgreSQL wrote it (never through a double); NaN, Infinity and
 *     -Infinity as strings
 *   bool: true or false
 *   json, jsonb: the value itself (checked, white space dropped)
 *   timestamp, timestamptz: ISO-8601 strings with 'T', offsets as +HH:MM
 *     ("infinity", "-infinity" and BC dates kept as PostgreSQL wrote them);
 *     timetz the same offsets
 *   bytea: a string of PostgreSQL's hex form ("\\x00ff")
 *   arrays of these and of the string types, nested too: JSON arrays
 *   text, varchar, char, name, uuid, date, time, interval, and every type
 *     not listed (enums, inet, ...): the text, a string
 * and by rel->types, for types that are not built in: a domain as its
 * base type, an array of any type as a JSON array of its elements, a
 * composite as an object of its fields (each by its type, nested too); a
 * type rel->types does not describe, as its text.
 * An unchanged value is written by unchanged(ctx, ...); with no callback
 * it is an error (SL_E_INVALID, naming the column), never NULL. SL_E_PARSE
 * for a value that is not what its type writes (invalid json, an array
 * that does not close, invalid UTF-8); SL_E_TOOBIG from out's cap. On
 * error out is as it was. */
int pgoutput_tuple_json(struct buf *out, const struct pgoutput_relation *rel,
			const struct pgoutput_tuple *t, pgoutput_unchanged_fn unchanged, void *ctx,
			struct sl_err *err);

/* Appends one value's JSON, the text PostgreSQL wrote for a value of type
 * type_oid, as pgoutput_tuple_json does for a relation without a table of
 * types (a type not built in as its text). */
int pgoutput_value_json(struct buf *out, uint32_t type_oid, const char *text, size_t len,
			struct sl_err *err);

/* The JSON text of the top-level member called name of the object in
 * json[0..len) (a payload this module wrote, or any JSON object): *val
 * points into json, exact. SL_E_NOTFOUND when there is none; SL_E_PARSE
 * when json is not an object. */
int pgoutput_json_member(const char *json, size_t len, const char *name, const char **val,
			 size_t *vlen, struct sl_err *err);

#endif
