/*
 * SQL parsing through DuckDB's json_serialize_sql on an in-memory database
 * with one prepared statement, reused for every query. Must never run the
 * SQL it is given.
 */
#include "warehouse/sqlparse.h"

#include "core/err.h"

#include <duckdb.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

struct sqlparse {
	duckdb_database db;
	duckdb_connection conn;
	duckdb_prepared_statement stmt;
};

int sqlparse_open(struct sqlparse **out, struct sl_err *err)
{
	struct sqlparse *p = calloc(1, sizeof(*p));
	duckdb_config config = NULL;
	duckdb_state st;

	if (!p)
		abort();
	/* one thread: each query is one call on one constant, and with worker
	 * threads every execution wakes (and waits for) all of them */
	if (duckdb_create_config(&config) != DuckDBSuccess) {
		free(p);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the SQL parser");
	}
	duckdb_set_config(config, "threads", "1");
	st = duckdb_open_ext(NULL, &p->db, config, NULL);
	duckdb_destroy_config(&config);
	if (st != DuckDBSuccess) {
		free(p);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the SQL parser");
	}
	if (duckdb_connect(p->db, &p->conn) != DuckDBSuccess ||
	    duckdb_prepare(p->conn, "SELECT json_serialize_sql(?::VARCHAR)", &p->stmt) !=
		    DuckDBSuccess) {
		sqlparse_close(p);
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the SQL parser");
	}
	*out = p;
	return 0;
}

void sqlparse_close(struct sqlparse *p)
{
	if (!p)
		return;
	if (p->stmt)
		duckdb_destroy_prepare(&p->stmt);
	if (p->conn)
		duckdb_disconnect(&p->conn);
	duckdb_close(&p->db);
	free(p);
}

/* The parser counts an error's position in characters; sluice works in
 * bytes of UTF-8 text. */
static long char_to_byte(const char *sql, long chars)
{
	long bytes = 0;

	for (; sql[bytes] && chars > 0; bytes++)
		if (((unsigned char)sql[bytes + 1] & 0xC0) != 0x80)
			chars--;
	return bytes;
}

/* json_serialize_sql reports errors inside its JSON rather than failing */
static int check_error(const char *sql, const char *text, long *error_offset,
		       struct sl_err *err)
{
	json_t *root, *is_err, *msg, *pos;
	int rc = 0;

	/* the common case, without reading the whole tree a second time (the
	 * caller parses it once more anyway) */
	if (strncmp(text, "{\"error\":false,", strlen("{\"error\":false,")) == 0)
		return 0;
	root = json_loads(text, JSON_DECODE_INT_AS_REAL, NULL);
	if (!root)
		return sl_err_set(err, SL_E_INTERNAL, "the SQL parser returned unreadable output");
	is_err = json_object_get(root, "error");
	if (json_is_true(is_err)) {
		const char *m;

		msg = json_object_get(root, "error_message");
		pos = json_object_get(root, "position");
		m = json_is_string(msg) ? json_string_value(msg) : "syntax error";
		if (strstr(m, "Only SELECT"))
			m = SQLPARSE_NOT_A_QUERY;
		rc = sl_err_set(err, SL_E_PARSE, "%s", m);
		if (json_is_string(pos))
			*error_offset = char_to_byte(sql, strtol(json_string_value(pos), NULL, 10));
	}
	json_decref(root);
	return rc;
}

int sqlparse_tree(struct sqlparse *p, const char *sql, char **json, long *error_offset,
		  struct sl_err *err)
{
	duckdb_result res;
	char *text;
	int rc;

	*error_offset = -1;
	*json = NULL;
	duckdb_clear_bindings(p->stmt);
	if (duckdb_bind_varchar(p->stmt, 1, sql) != DuckDBSuccess)
		return sl_err_set(err, SL_E_INTERNAL, "cannot bind SQL text for parsing");
	if (duckdb_execute_prepared(p->stmt, &res) != DuckDBSuccess) {
		rc = sl_err_set(err, SL_E_PARSE, "%s", duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		return rc;
	}
	text = duckdb_value_varchar(&res, 0, 0);
	duckdb_destroy_result(&res);
	if (!text)
		return sl_err_set(err, SL_E_INTERNAL, "the SQL parser returned nothing");
	rc = check_error(sql, text, error_offset, err);
	if (rc) {
		duckdb_free(text);
		return rc;
	}
	*json = strdup(text);
	duckdb_free(text);
	if (!*json)
		abort();
	return 0;
}
