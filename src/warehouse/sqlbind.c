/*
 * This file implements binding without running (sqlbind.h) on a private
 * in-memory DuckDB: tables are made empty, models become empty tables of
 * their query's columns, and the binder's error is read back from its
 * message, whose LINE and caret say where it points. Must never read or
 * write the warehouse.
 */
#include "warehouse/sqlbind.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/lenstr.h"
#include "core/xalloc.h"
#include "warehouse/csv.h"
#include "warehouse/text_cache.h"

#include <duckdb.h>
#include <openssl/sha.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A table queries may read: its columns, and whether it is in the
 * binder's database yet (a table is made there only when a query that
 * reads it is bound). */
struct table {
	char *schema, *name;
	struct wh_column *cols;
	size_t n;
	bool made;
	/* what the columns follow from: a query's text and what it reads, a
	 * file's content, or the columns given; a table bound by this process
	 * keeps its columns under it when the binder closes (found) */
	unsigned char key[SHA256_DIGEST_LENGTH];
	bool found;
};

struct sqlbind {
	duckdb_database db;
	duckdb_connection conn;
	struct table *tables; /* open addressing by schema and name */
	size_t cap, ntables;
	struct text_cache *cache; /* NULL: every query is bound */
	size_t ran;
	char **schemas; /* made in the binder */
	size_t nschemas;
};

int sqlbind_open(struct sqlbind **out, struct sl_err *err)
{
	struct sqlbind *b = xcalloc(1, sizeof(*b));
	duckdb_config config = NULL;
	duckdb_state st;

	if (duckdb_create_config(&config) != DuckDBSuccess) {
		free(b);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the SQL binder");
	}
	duckdb_set_config(config, "threads", "1");
	st = duckdb_open_ext(NULL, &b->db, config, NULL);
	duckdb_destroy_config(&config);
	if (st != DuckDBSuccess || duckdb_connect(b->db, &b->conn) != DuckDBSuccess) {
		sqlbind_close(b);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the SQL binder");
	}
	*out = b;
	return 0;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free((char *)t->cols[i].name);
		free((char *)t->cols[i].type);
	}
	free(t->cols);
	free(t->schema);
	free(t->name);
}

void sqlbind_use_cache(struct sqlbind *b, const char *path)
{
	text_cache_save(b->cache);
	b->cache = text_cache_load(path, "bind cache", duckdb_library_version(), 0);
}

static size_t slot_of(const struct sqlbind *b, const char *schema, const char *name)
{
	uint64_t h = hash_bytes(HASH_INIT, schema, strlen(schema) + 1);

	h = hash_bytes(h, name, strlen(name));
	return (size_t)h & (b->cap - 1);
}

static struct table *find(struct sqlbind *b, const char *schema, const char *name)
{
	if (!b->cap)
		return NULL;
	for (size_t i = slot_of(b, schema, name); b->tables[i].schema; i = (i + 1) & (b->cap - 1))
		if (strcmp(b->tables[i].schema, schema) == 0 && strcmp(b->tables[i].name, name) == 0)
			return &b->tables[i];
	return NULL;
}

/* The table schema.name, added without columns when it is not there. */
static struct table *table_at(struct sqlbind *b, const char *schema, const char *name)
{
	struct table *t = find(b, schema, name);
	size_t i;

	if (t)
		return t;
	if (2 * (b->ntables + 1) > b->cap) {
		struct table *old = b->tables;
		size_t old_cap = b->cap;

		b->cap = b->cap ? 2 * b->cap : 64;
		b->tables = xcalloc(b->cap, sizeof(*b->tables));
		for (size_t k = 0; k < old_cap; k++) {
			if (!old[k].schema)
				continue;
			for (i = slot_of(b, old[k].schema, old[k].name); b->tables[i].schema;
			     i = (i + 1) & (b->cap - 1))
				;
			b->tables[i] = old[k];
		}
		free(old);
	}
	for (i = slot_of(b, schema, name); b->tables[i].schema; i = (i + 1) & (b->cap - 1))
		;
	b->tables[i].schema = xstrdup(schema);
	b->tables[i].name = xstrdup(name);
	b->ntables++;
	return &b->tables[i];
}

/* schema.name has the n columns cols (copied), made in the binder or not
 * yet, as key says. */
static struct table *table_set(struct sqlbind *b, const char *schema, const char *name,
			       const struct wh_column *cols, size_t n, bool made,
			       const unsigned char *key)
{
	struct table *t = table_at(b, schema, name);
	char *keep_schema = t->schema, *keep_name = t->name;

	t->schema = t->name = NULL;
	table_free(t);
	t->schema = keep_schema;
	t->name = keep_name;
	t->cols = xcalloc(n + 1, sizeof(*t->cols));
	for (size_t i = 0; i < n; i++) {
		t->cols[i].name = xstrdup(cols[i].name);
		t->cols[i].type = xstrdup(cols[i].type);
	}
	t->n = n;
	t->made = made;
	t->found = false;
	memcpy(t->key, key, sizeof(t->key));
	return t;
}

/* Runs sql; on failure the binder's whole message into *message (a's). */
static int run(struct sqlbind *b, struct arena *a, const char *sql, const char **message)
{
	duckdb_result res;
	int rc = 0;

	if (duckdb_query(b->conn, sql, &res) != DuckDBSuccess) {
		const char *m = duckdb_result_error(&res);

		*message = arena_strdup(a, m ? m : "the binder refused it");
		rc = SL_E_INVALID;
	}
	duckdb_destroy_result(&res);
	return rc;
}

static int run_plain(struct sqlbind *b, const char *sql, struct sl_err *err)
{
	struct arena *a = arena_new(NULL);
	const char *message;
	int rc = run(b, a, sql, &message);

	if (rc)
		sl_err_set(err, rc, "%s", message);
	arena_free(a);
	return rc;
}

/* The statement that makes schema unless it was made (schema_made): a
 * statement fewer per query bound. */
static void schema_first(const struct sqlbind *b, struct buf *sql, const char *schema)
{
	for (size_t i = 0; i < b->nschemas; i++)
		if (strcmp(b->schemas[i], schema) == 0)
			return;
	buf_adds(sql, "CREATE SCHEMA IF NOT EXISTS ");
	wh_sql_ident(sql, schema);
	buf_adds(sql, ";\n");
}

/* schema is in the binder: its statement ran. */
static void schema_made(struct sqlbind *b, const char *schema)
{
	for (size_t i = 0; i < b->nschemas; i++)
		if (strcmp(b->schemas[i], schema) == 0)
			return;
	b->schemas = xreallocarray(b->schemas, b->nschemas + 1, sizeof(*b->schemas));
	b->schemas[b->nschemas++] = xstrdup(schema);
}

/* The table made in the binder as its columns say, when it is not yet. */
static int make_table(struct sqlbind *b, struct table *t, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	if (t->made)
		return 0;
	schema_first(b, &sql, t->schema);
	buf_adds(&sql, "CREATE OR REPLACE TABLE ");
	wh_sql_qualified(&sql, t->schema, t->name);
	buf_adds(&sql, " (");
	for (size_t i = 0; i < t->n; i++) {
		if (i)
			buf_adds(&sql, ", ");
		wh_sql_ident(&sql, t->cols[i].name);
		buf_addf(&sql, " %s", t->cols[i].type);
	}
	buf_adds(&sql, ")");
	rc = run_plain(b, sql.buf, err);
	buf_release(&sql);
	t->made = !rc;
	if (!rc)
		schema_made(b, t->schema);
	/* not the query's error: a table it reads cannot be made */
	if (rc)
		err->code = SL_E_INTERNAL;
	return rc ? SL_E_INTERNAL : 0;
}

/* Columns kept in the cache as text: each one's name and type. */
static void cols_encode(struct buf *out, const struct wh_column *cols, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		lenstr_add(out, cols[i].name);
		lenstr_add(out, cols[i].type);
	}
}

/* false: not a text cols_encode wrote, which counts as not kept */
static bool cols_decode(struct arena *a, const char *s, struct wh_column **cols, size_t *n)
{
	size_t cap = 0;

	*cols = NULL;
	*n = 0;
	while (*s) {
		struct wh_column *c = ARENA_PUSH(a, cols, n, &cap);

		if (!(c->name = lenstr_take(a, &s)) || !(c->type = lenstr_take(a, &s)))
			return false;
	}
	return *n > 0;
}

/* s and its NUL to the text a key digests */
static void key_add(struct buf *k, const char *s)
{
	buf_add(k, s, strlen(s) + 1);
}

static void key_end(struct buf *k, unsigned char *key)
{
	SHA256((const unsigned char *)k->buf, k->len, key);
	buf_release(k);
}

int sqlbind_table(struct sqlbind *b, const char *schema, const char *name,
		  const struct wh_column *cols, size_t n, struct sl_err *err)
{
	unsigned char key[SHA256_DIGEST_LENGTH];
	struct buf k = BUF_INIT;

	(void)err;
	key_add(&k, "table");
	for (size_t i = 0; i < n; i++) {
		key_add(&k, cols[i].name);
		key_add(&k, cols[i].type);
	}
	key_end(&k, key);
	table_set(b, schema, name, cols, n, false, key);
	return 0;
}

/* The columns kept for key, as schema.name's (not made yet). */
static bool kept(struct sqlbind *b, const unsigned char *key, const char *schema,
		 const char *name)
{
	struct arena *a;
	struct wh_column *cols;
	const char *text = b->cache ? text_cache_get(b->cache, key) : NULL;
	size_t n;
	bool ok;

	if (!text)
		return false;
	a = arena_new(NULL);
	ok = cols_decode(a, text, &cols, &n);
	if (ok)
		table_set(b, schema, name, cols, n, false, key);
	arena_free(a);
	return ok;
}

/* schema.name, just made in the binder by key's query or file: its
 * columns are kept when the binder closes. */
static void found(struct sqlbind *b, const unsigned char *key, const char *schema,
		  const char *name)
{
	table_set(b, schema, name, NULL, 0, true, key)->found = b->cache != NULL;
}

/* The columns of every table bound by this process, kept under their
 * keys: read in one pass of the catalog at the end, since asking for one
 * table's makes DuckDB list every table. */
static void keep_found(struct sqlbind *b)
{
	struct buf text = BUF_INIT;
	duckdb_result res;
	idx_t rows;

	if (!b->cache || !b->conn)
		return;
	if (duckdb_query(b->conn,
			 "SELECT schema_name, table_name, column_name, data_type "
			 "FROM duckdb_columns() ORDER BY schema_name, table_name, column_index",
			 &res) != DuckDBSuccess) {
		duckdb_destroy_result(&res);
		return;
	}
	rows = duckdb_row_count(&res);
	for (idx_t r = 0; r < rows;) {
		char *schema = duckdb_value_varchar(&res, 0, r), *name = duckdb_value_varchar(&res, 1, r);
		struct table *t = find(b, schema, name);
		idx_t end = r;

		buf_reset(&text);
		for (; end < rows; end++) {
			char *s = duckdb_value_varchar(&res, 0, end), *n = duckdb_value_varchar(&res, 1, end);
			bool same = strcmp(s, schema) == 0 && strcmp(n, name) == 0;

			duckdb_free(s);
			duckdb_free(n);
			if (!same)
				break;
			if (t && t->found) {
				struct wh_column c;
				char *cn = duckdb_value_varchar(&res, 2, end);
				char *ct = duckdb_value_varchar(&res, 3, end);

				c = (struct wh_column){ cn ? cn : "", ct ? ct : "" };
				cols_encode(&text, &c, 1);
				duckdb_free(cn);
				duckdb_free(ct);
			}
		}
		if (t && t->found && text.len)
			text_cache_put(b->cache, t->key, text.buf);
		duckdb_free(schema);
		duckdb_free(name);
		r = end;
	}
	buf_release(&text);
	duckdb_destroy_result(&res);
}

int sqlbind_csv(struct sqlbind *b, const char *schema, const char *name, const char *path,
		const char *digest, struct sl_err *err)
{
	unsigned char key[SHA256_DIGEST_LENGTH];
	struct buf sql = BUF_INIT, k = BUF_INIT;
	int rc;

	key_add(&k, "csv");
	key_add(&k, digest);
	key_end(&k, key);
	if (kept(b, key, schema, name))
		return 0;
	schema_first(b, &sql, schema);
	buf_adds(&sql, "CREATE OR REPLACE TABLE ");
	wh_sql_qualified(&sql, schema, name);
	buf_adds(&sql, " AS SELECT * FROM ");
	csv_sql_read(&sql, path);
	buf_adds(&sql, " LIMIT 0");
	rc = run_plain(b, sql.buf, err);
	if (!rc) {
		schema_made(b, schema);
		found(b, key, schema, name);
	}
	buf_release(&sql);
	return rc;
}

/* Where the message's caret points, as a byte offset in the statement
 * stmt, or -1: "LINE n: text" then a line of spaces up to '^'. A line the
 * binder shortened ("...") says nothing sure. */
static long caret_offset(const char *message, const char *stmt)
{
	const char *line = strstr(message, "\nLINE "), *caret, *eol;
	long n, col, off = 0;
	char *end;

	if (!line)
		return -1;
	n = strtol(line + 6, &end, 10);
	if (n < 1 || strncmp(end, ": ", 2) != 0 || strncmp(end + 2, "...", 3) == 0)
		return -1;
	eol = strchr(end, '\n');
	if (!eol || !(caret = strchr(eol + 1, '^')))
		return -1;
	col = (long)(caret - (eol + 1)) - (long)(end + 2 - (line + 1));
	for (long k = 1; k < n && stmt[off]; off++)
		k += stmt[off] == '\n';
	for (long c = 0; c < col && stmt[off] && stmt[off] != '\n'; off++)
		/* the binder counts characters; a UTF-8 sequence is one */
		c += ((unsigned char)stmt[off] & 0xc0) != 0x80;
	return col >= 0 ? off : -1;
}

/* The key of a query's columns: its text and name, and the keys of
 * every table it reads (a table not known counts as such). */
static void query_key(struct sqlbind *b, const char *schema, const char *name, const char *sql,
		      const struct sqlbind_read *reads, size_t nreads, unsigned char *key)
{
	struct buf k = BUF_INIT;

	key_add(&k, "query");
	key_add(&k, schema);
	key_add(&k, name);
	key_add(&k, sql);
	for (size_t i = 0; i < nreads; i++) {
		const struct table *t = find(b, reads[i].schema, reads[i].name);

		key_add(&k, reads[i].schema);
		key_add(&k, reads[i].name);
		if (t)
			buf_add(&k, t->key, sizeof(t->key));
		else
			key_add(&k, "?");
	}
	key_end(&k, key);
}

int sqlbind_query(struct sqlbind *b, struct arena *a, const char *schema, const char *name,
		  const char *sql, const struct sqlbind_read *reads, size_t nreads, long *offset,
		  const char **hint, struct sl_err *err)
{
	unsigned char key[SHA256_DIGEST_LENGTH];
	struct buf stmt = BUF_INIT, head = BUF_INIT;
	const char *message, *nl, *second;
	int rc = 0;

	*offset = -1;
	*hint = NULL;
	query_key(b, schema, name, sql, reads, nreads, key);
	if (kept(b, key, schema, name))
		return 0;
	b->ran++;
	for (size_t i = 0; !rc && i < nreads; i++) {
		struct table *t = find(b, reads[i].schema, reads[i].name);

		rc = t ? make_table(b, t, err) : 0;
	}
	schema_first(b, &head, schema);
	if (!rc && head.len)
		rc = run_plain(b, head.buf, err);
	if (!rc)
		schema_made(b, schema);
	buf_reset(&head);
	/* an empty table, not a view: a view over views is bound again with
	 * each reader, and a project's views over views would be bound as
	 * often as it has paths */
	buf_adds(&head, "CREATE OR REPLACE TABLE ");
	wh_sql_qualified(&head, schema, name);
	buf_adds(&head, " AS SELECT * FROM (\n");
	buf_addf(&stmt, "%s%s\n) AS _sluice_bound LIMIT 0", head.buf, sql);
	if (!rc && (rc = run(b, a, stmt.buf, &message))) {
		long at = caret_offset(message, stmt.buf);

		*offset = at >= (long)head.len ? at - (long)head.len : -1;
		nl = strchr(message, '\n');
		second = nl ? nl + 1 : NULL;
		if (second && (strncmp(second, "Candidate bindings:", 19) == 0 ||
			       strncmp(second, "Did you mean", 12) == 0))
			*hint = arena_strndup(a, second, strcspn(second, "\n"));
		sl_err_set(err, rc, "%.*s", (int)(nl ? nl - message : (long)strlen(message)), message);
	} else if (!rc) {
		found(b, key, schema, name);
	}
	buf_release(&stmt);
	buf_release(&head);
	return rc;
}

size_t sqlbind_queries_run(const struct sqlbind *b)
{
	return b->ran;
}

void sqlbind_close(struct sqlbind *b)
{
	if (!b)
		return;
	keep_found(b);
	text_cache_save(b->cache);
	for (size_t i = 0; i < b->cap; i++)
		if (b->tables[i].schema)
			table_free(&b->tables[i]);
	free(b->tables);
	for (size_t i = 0; i < b->nschemas; i++)
		free(b->schemas[i]);
	free(b->schemas);
	if (b->conn)
		duckdb_disconnect(&b->conn);
	if (b->db)
		duckdb_close(&b->db);
	free(b);
}
