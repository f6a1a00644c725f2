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
#include "core/xalloc.h"
#include "warehouse/csv.h"

#include <duckdb.h>
#include <stdlib.h>
#include <string.h>

struct sqlbind {
	duckdb_database db;
	duckdb_connection conn;
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

void sqlbind_close(struct sqlbind *b)
{
	if (!b)
		return;
	if (b->conn)
		duckdb_disconnect(&b->conn);
	if (b->db)
		duckdb_close(&b->db);
	free(b);
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

static void schema_first(struct buf *sql, const char *schema)
{
	buf_adds(sql, "CREATE SCHEMA IF NOT EXISTS ");
	wh_sql_ident(sql, schema);
	buf_adds(sql, ";\n");
}

int sqlbind_table(struct sqlbind *b, const char *schema, const char *name,
		  const struct wh_column *cols, size_t n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	schema_first(&sql, schema);
	buf_adds(&sql, "CREATE OR REPLACE TABLE ");
	wh_sql_qualified(&sql, schema, name);
	buf_adds(&sql, " (");
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_adds(&sql, ", ");
		wh_sql_ident(&sql, cols[i].name);
		buf_addf(&sql, " %s", cols[i].type);
	}
	buf_adds(&sql, ")");
	rc = run_plain(b, sql.buf, err);
	buf_release(&sql);
	return rc;
}

int sqlbind_csv(struct sqlbind *b, const char *schema, const char *name, const char *path,
		struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	schema_first(&sql, schema);
	buf_adds(&sql, "CREATE OR REPLACE TABLE ");
	wh_sql_qualified(&sql, schema, name);
	buf_adds(&sql, " AS SELECT * FROM ");
	csv_sql_read(&sql, path);
	buf_adds(&sql, " LIMIT 0");
	rc = run_plain(b, sql.buf, err);
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

int sqlbind_query(struct sqlbind *b, struct arena *a, const char *schema, const char *name,
		  const char *sql, long *offset, const char **hint, struct sl_err *err)
{
	struct buf stmt = BUF_INIT, head = BUF_INIT;
	const char *message, *nl, *second;
	int rc;

	*offset = -1;
	*hint = NULL;
	schema_first(&head, schema);
	rc = run_plain(b, head.buf, err);
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
	}
	buf_release(&stmt);
	buf_release(&head);
	return rc;
}
