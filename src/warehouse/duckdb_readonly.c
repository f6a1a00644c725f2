/*
 * This file implements the DuckDB backend's query for a reader the server
 * does not trust (wh_query_readonly): judged by its parse tree
 * (duckdb_read.c) before anything binds, run in a READ ONLY transaction
 * that is rolled back, under a watchdog, its rows streamed in up to the
 * limits. It must never run what the checks refused, nor keep more than
 * the limits.
 */
#include "warehouse/duckdb_readonly.h"

#include "core/err.h"
#include "warehouse/duckdb_conn.h"
#include "warehouse/duckdb_doubt.h"
#include "warehouse/duckdb_read.h"
#include "warehouse/duckdb_result.h"
#include "warehouse/duckdb_text.h"
#include "warehouse/watchdog.h"

#include <stdlib.h>

/* Whether catalog.schema.table is a table or view DuckDB would bind the
 * name to rather than hand to a replacement scan: schema.table is a schema
 * of the database (or of the system and temp catalogs), or a database and
 * its main schema. */
static int relation_exists(void *ctx, const char *catalog, const char *schema, const char *table,
			   bool *found, struct sl_err *err)
{
	static const char sql[] =
		"SELECT count(*) FROM (SELECT database_name AS d, schema_name AS s, table_name AS n "
		"FROM duckdb_tables() UNION ALL SELECT database_name, schema_name, view_name "
		"FROM duckdb_views()) WHERE lower(n) = lower($3) AND "
		"($1 <> '' AND lower(d) = lower($1) AND lower(s) = lower($2) OR "
		"$1 = '' AND lower(s) = lower($2) AND d IN (current_database(), 'system', 'temp') OR "
		"$1 = '' AND lower(d) = lower($2) AND s = 'main')";
	struct wh_duckdb *d = ctx;
	const char *parts[] = { catalog, schema, table };
	duckdb_prepared_statement ps = NULL;
	duckdb_result res;

	if (duckdb_prepare(d->conn, sql, &ps) != DuckDBSuccess) {
		sl_err_set(err, SL_E_INTERNAL, "%s", duckdb_prepare_error(ps));
		duckdb_destroy_prepare(&ps);
		return SL_E_INTERNAL;
	}
	for (idx_t i = 0; i < 3; i++)
		duckdb_bind_varchar(ps, i + 1, parts[i]);
	if (duckdb_execute_prepared(ps, &res) != DuckDBSuccess) {
		duckdb_destroy_prepare(&ps);
		return duck_error(d, &res, err);
	}
	duckdb_destroy_prepare(&ps);
	*found = duckdb_value_int64(&res, 0, 0) > 0;
	duckdb_destroy_result(&res);
	return 0;
}

/* Parses sql only (nothing is bound, so no extension loads and no file is
 * looked at): one statement, a query whose tree names nothing outside
 * the database. */
static int readonly_parse_check(struct wh_duckdb *d, const char *sql, struct sl_err *err)
{
	duckdb_extracted_statements ex = NULL;
	idx_t n = duckdb_extract_statements(d->conn, sql, &ex);
	const char *msg = n ? NULL : duckdb_extract_statements_error(ex);
	duckdb_prepared_statement ps = NULL;
	struct duck_read_names names = { relation_exists, d };
	duckdb_result res;
	char *tree;
	int rc = 0;

	if (!n)
		rc = msg && *msg ? sl_err_set(err, SL_E_SQL, "%s", msg)
				 : sl_err_set(err, SL_E_USAGE, "no query to run");
	duckdb_destroy_extracted(&ex);
	if (rc)
		return rc;
	if (duckdb_prepare(d->conn, "SELECT json_serialize_sql(?::VARCHAR)", &ps) != DuckDBSuccess ||
	    duckdb_bind_varchar(ps, 1, sql) != DuckDBSuccess ||
	    duckdb_execute_prepared(ps, &res) != DuckDBSuccess) {
		duckdb_destroy_prepare(&ps);
		return duck_read_error(d, &res, err);
	}
	duckdb_destroy_prepare(&ps);
	tree = duckdb_value_varchar(&res, 0, 0);

	rc = tree ? duck_read_check_tree(tree, &names, err)
		  : sl_err_set(err, SL_E_INTERNAL, "cannot read DuckDB's parse tree");
	duckdb_free(tree);
	duckdb_destroy_result(&res);
	if (!rc && n > 1)
		rc = sl_err_set(err, SL_E_USAGE,
				"%llu statements: a read through the server runs one query at a time",
				(unsigned long long)n);
	return rc;
}

static void interrupt_reader(void *ctx)
{
	duckdb_interrupt(((struct wh_duckdb *)ctx)->conn);
}

/* Runs ps in a READ ONLY transaction (*begun once it is open), which the
 * caller rolls back whatever happens: a statement that got past the
 * checks and would write (nextval, say) fails there. */
static int run_readonly(struct wh_duckdb *d, duckdb_prepared_statement ps,
			const struct wh_read_limits *lim, struct wh_result **out, bool *truncated,
			bool *begun, struct sl_err *err)
{
	duckdb_result res;

	if (duckdb_query(d->conn, "BEGIN TRANSACTION READ ONLY", &res) != DuckDBSuccess)
		return duck_read_error(d, &res, err);
	duckdb_destroy_result(&res);
	*begun = true;
	if (duckdb_execute_prepared_streaming(ps, &res) != DuckDBSuccess)
		return duck_read_error(d, &res, err);
	return duck_result_read(d, &res, lim, out, truncated, err);
}

int duck_query_readonly(struct wh *w, const char *sql, const struct wh_read_limits *lim,
			struct wh_result **out, bool *truncated, struct sl_err *err)
{
	struct wh_duckdb *d = duck_conn(w);
	duckdb_prepared_statement ps = NULL;
	int rc;

	struct wh_watchdog *wd;
	duckdb_result res;
	bool begun = false, fired;

	if (duck_refused(d, err))
		return SL_E_SUSPECT;
	/* the time bounds the checks and the planning too: a query whose
	 * plan grows without bound is stopped as one that runs too long */
	rc = wh_watchdog_start(lim->timeout_ms, interrupt_reader, d, &wd, err);
	if (rc)
		return rc;
	rc = readonly_parse_check(d, sql, err);
	if (!rc && duckdb_prepare(d->conn, sql, &ps) != DuckDBSuccess)
		rc = sl_err_set(err, SL_E_SQL, "%s", duckdb_prepare_error(ps));
	else if (!rc && duckdb_prepared_statement_type(ps) != DUCKDB_STATEMENT_TYPE_SELECT)
		rc = sl_err_set(err, SL_E_USAGE, "only a query may be read through the server");
	else if (!rc)
		rc = run_readonly(d, ps, lim, out, truncated, &begun, err);
	duckdb_destroy_prepare(&ps);
	fired = wh_watchdog_stop(wd);
	/* after the watchdog: an interrupt that came as the read ended is
	 * spent on this statement, not on the next read's first */
	if (begun || fired) {
		duckdb_query(d->conn, begun ? "ROLLBACK" : "SELECT 1", &res);
		duckdb_destroy_result(&res);
	}
	/* an interrupt fails whichever step it meets, in that step's words */
	if (fired && rc)
		rc = sl_err_set(err, SL_E_BUSY, "the query ran past its %lld ms and was stopped",
				(long long)lim->timeout_ms);
	return rc;
}

