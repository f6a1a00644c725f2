/*
 * This file implements PostgreSQL's dialect: the SQL text of the
 * operations that differ between warehouses, and the few that ask the
 * server (the columns a query returns, the names a table's columns are
 * spelt in). It runs no statement that changes anything.
 */
#include "warehouse/postgres_sql.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "warehouse/postgres_conn.h"
#include "warehouse/postgres_session.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Dialect */

/* The columns of schema.name as one text, in a DO block's condition. */
static void add_column_list(struct buf *sql, const char *schema, const char *name)
{
	buf_adds(sql, "(SELECT string_agg(column_name || ' ' || data_type, ',' ORDER BY "
		      "ordinal_position) FROM information_schema.columns WHERE table_schema = ");
	buf_add_sql_str(sql, schema);
	buf_adds(sql, " AND table_name = ");
	buf_add_sql_str(sql, name);
	buf_adds(sql, ")");
}

/* PostgreSQL keeps the views that read a table bound to it, and will not
 * drop a table they read: a table whose columns stay the same takes the
 * new rows in place (readers see the old rows or the new ones, never an
 * error); one whose columns change is dropped and the new one renamed,
 * which fails, naming the views, while views read it. */
void pg_swap_in(struct wh *w, struct buf *sql, const char *schema, const char *staging,
		const char *name, const char *old_kind)
{
	struct buf target = BUF_INIT, stage = BUF_INIT, rename = BUF_INIT;

	(void)w;
	wh_sql_qualified(&target, schema, name);
	wh_sql_qualified(&stage, schema, staging);
	buf_addf(&rename, "ALTER TABLE %s RENAME TO ", stage.buf);
	wh_sql_ident(&rename, name);
	if (old_kind && strcmp(old_kind, "view") != 0) {
		buf_adds(sql, "DO $sluice$ BEGIN IF ");
		add_column_list(sql, schema, name);
		buf_adds(sql, " IS NOT DISTINCT FROM ");
		add_column_list(sql, schema, staging);
		buf_addf(sql,
			 " THEN DELETE FROM %s; INSERT INTO %s SELECT * FROM %s; DROP TABLE %s; "
			 "ELSE DROP TABLE %s; %s; END IF; END $sluice$;\n",
			 target.buf, target.buf, stage.buf, stage.buf, target.buf, rename.buf);
	} else {
		if (old_kind)
			buf_addf(sql, "DROP VIEW %s;\n", target.buf);
		buf_addf(sql, "%s;\n", rename.buf);
	}
	buf_release(&target);
	buf_release(&stage);
	buf_release(&rename);
}

/* The quote around a view's query in the block that replaces it; a query
 * that holds it is replaced the plain way. */
#define VIEW_TAG "$sluice_view$"

void pg_replace_as(struct wh *w, struct buf *sql, enum wh_replace what, const char *schema,
		   const char *name, const char *query)
{
	struct buf target = BUF_INIT;

	(void)w;
	if (schema)
		wh_sql_qualified(&target, schema, name);
	else
		wh_sql_ident(&target, name);
	/* a view keeps the views that read it when its columns stay; one
	 * whose columns change (PostgreSQL refuses to replace it then) is
	 * made anew, unless views read it: dropping it is refused, naming
	 * them */
	if (what == WH_VIEW && !strstr(query, VIEW_TAG))
		buf_addf(sql,
			 "DO " VIEW_TAG " BEGIN CREATE OR REPLACE VIEW %s AS\n%s\n;\nEXCEPTION WHEN "
			 "invalid_table_definition THEN DROP VIEW %s; CREATE VIEW %s AS\n%s\n; "
			 "END " VIEW_TAG,
			 target.buf, query, target.buf, target.buf, query);
	else if (what == WH_VIEW)
		buf_addf(sql, "CREATE OR REPLACE VIEW %s AS\n%s", target.buf, query);
	else
		buf_addf(sql, "DROP TABLE IF EXISTS %s;\nCREATE %sTABLE %s AS\n%s", target.buf,
			 what == WH_TEMP_TABLE ? "TEMP " : "", target.buf, query);
	buf_release(&target);
}

void pg_first_per_key(struct wh *w, struct buf *sql, const char *from, const char *keys,
		      const char *order)
{
	(void)w;
	buf_addf(sql, "SELECT DISTINCT ON (%s) * FROM %s ORDER BY %s, %s", keys, from, keys, order);
}

void pg_epoch(struct wh *w, struct buf *sql, const char *expr, int digits)
{
	(void)w;
	buf_addf(sql, "CAST(floor(extract(epoch FROM %s) * %s) AS BIGINT)", expr,
		 digits == 3 ? "1000" : "1000000");
}

void pg_try_cast(struct wh *w, struct buf *sql, const char *expr, const char *type)
{
	(void)w;
	buf_addf(sql, "pg_temp.sluice_try_cast(CAST(%s AS TEXT), CAST(NULL AS %s))", expr, type);
}

/* avg() of integers and numerics divides their NUMERIC sum by a NUMERIC
 * count, of floats their float sum: a numeric count keeps the sum's kind */
void pg_avg_of(struct wh *w, struct buf *sql, const char *sum, const char *count,
	       const char *sum_type)
{
	(void)w;
	(void)sum_type;
	buf_addf(sql, "(%s / CAST(%s AS NUMERIC))", sum, count);
}

void pg_matches(struct wh *w, struct buf *sql, const char *expr, const char *re)
{
	char *whole = xasprintf("^(?:%s)$", re);

	(void)w;
	buf_addf(sql, "(%s ~ ", expr);
	buf_add_sql_str(sql, whole);
	buf_adds(sql, ")");
	free(whole);
}

const char *pg_type(struct wh *w, enum wh_type t)
{
	static const char *const names[] = {
		[WH_TYPE_BIGINT] = "BIGINT",       [WH_TYPE_INT128] = "NUMERIC(38, 0)",
		[WH_TYPE_DOUBLE] = "DOUBLE PRECISION",
		[WH_TYPE_TEXT] = "TEXT",           [WH_TYPE_TIMESTAMP] = "TIMESTAMP",
		[WH_TYPE_TIMESTAMPTZ] = "TIMESTAMPTZ", [WH_TYPE_BOOLEAN] = "BOOLEAN",
	};

	(void)w;
	return names[t];
}

/* DuckDB's names that PostgreSQL lacks, each as the PostgreSQL type that
 * holds all its values. */
static const char *const duckdb_names[][2] = {
	{ "DOUBLE", "DOUBLE PRECISION" }, { "FLOAT8", "DOUBLE PRECISION" },
	{ "FLOAT", "REAL" },		  { "FLOAT4", "REAL" },
	{ "TINYINT", "SMALLINT" },	  { "INT1", "SMALLINT" },
	{ "INT16", "SMALLINT" },	  { "SHORT", "SMALLINT" },
	{ "UTINYINT", "SMALLINT" },	  { "UINT8", "SMALLINT" },
	{ "INT32", "INTEGER" },		  { "SIGNED", "INTEGER" },
	{ "USMALLINT", "INTEGER" },	  { "UINT16", "INTEGER" },
	{ "INT64", "BIGINT" },		  { "LONG", "BIGINT" },
	{ "UINTEGER", "BIGINT" },	  { "UINT32", "BIGINT" },
	{ "UBIGINT", "NUMERIC(20, 0)" },  { "UINT64", "NUMERIC(20, 0)" },
	{ "HUGEINT", "NUMERIC(39, 0)" },  { "INT128", "NUMERIC(39, 0)" },
	{ "UHUGEINT", "NUMERIC(39, 0)" }, { "UINT128", "NUMERIC(39, 0)" },
	{ "BLOB", "BYTEA" },		  { "STRING", "TEXT" },
	{ "LOGICAL", "BOOLEAN" },	  { "DATETIME", "TIMESTAMP" },
};

/* decl's base name (before any [] of a list), in any case, looked up;
 * the list brackets are kept. */
const char *pg_declared_type(struct wh *w, struct arena *a, const char *decl)
{
	size_t len = strlen(decl), base;

	(void)w;
	while (len && decl[len - 1] == ' ')
		len--;
	base = len;
	while (base >= 2 && decl[base - 2] == '[' && decl[base - 1] == ']')
		base -= 2;
	for (size_t i = 0; i < sizeof(duckdb_names) / sizeof(*duckdb_names); i++)
		if (strlen(duckdb_names[i][0]) == base &&
		    strncasecmp(decl, duckdb_names[i][0], base) == 0)
			return arena_sprintf(a, "%s%.*s", duckdb_names[i][1], (int)(len - base),
					     decl + base);
	return decl;
}

/* The statement is described, not run; the type names come from the
 * catalog in one more query. */
int pg_query_columns(struct wh *w, struct arena *a, const char *query,
		     struct wh_column **cols, size_t *n, struct sl_err *err)
{
	struct wh_pg *p = pg_conn(w);
	struct buf sql = BUF_INIT;
	struct wh_result *types = NULL;
	PGresult *res;
	int rc = pg_refused(p, err), nf;

	if (rc)
		return rc;
	buf_adds(&sql, query);
	res = PQprepare(p->conn, "", sql.buf, 0, NULL);
	if (!res || !pg_ok(res))
		rc = pg_result_error(p, res, sql.buf, err);
	PQclear(res);
	res = rc ? NULL : PQdescribePrepared(p->conn, "");
	if (!rc && !(res && pg_ok(res)))
		rc = pg_result_error(p, res, sql.buf, err);
	nf = rc ? 0 : PQnfields(res);
	buf_reset(&sql);
	buf_adds(&sql, "SELECT ");
	for (int i = 0; i < nf; i++)
		buf_addf(&sql, "%sformat_type(%u, %d)", i ? ", " : "", PQftype(res, i),
			 PQfmod(res, i));
	if (!rc && nf)
		rc = pg_query(w, sql.buf, &types, err);
	*n = rc ? 0 : (size_t)nf;
	*cols = arena_alloc(a, (*n + 1) * sizeof(**cols));
	for (size_t i = 0; i < *n; i++) {
		(*cols)[i].name = arena_strdup(a, PQfname(res, (int)i));
		(*cols)[i].type = arena_strdup(a, wh_result_value(types, 0, i));
	}
	wh_result_free(types);
	PQclear(res);
	buf_release(&sql);
	return rc;
}

/* The columns of query paired with schema.name's by name, any case: the
 * table's spelling where it has the column, the query's where it does not,
 * so that the statement fails naming it. */
static int paired(struct wh *w, struct arena *a, const char *schema, const char *name,
		  const char *query, struct wh_column **qcols, const char ***tnames, size_t *n,
		  struct sl_err *err)
{
	struct buf table = BUF_INIT, q = BUF_INIT;
	struct wh_column *tcols;
	size_t nt = 0;
	int rc;

	buf_adds(&table, "SELECT * FROM ");
	wh_sql_qualified(&table, schema, name);
	buf_addf(&q, "SELECT * FROM (\n%s\n) AS _sluice_q", query);
	rc = pg_query_columns(w, a, q.buf, qcols, n, err);
	if (!rc)
		rc = pg_query_columns(w, a, table.buf, &tcols, &nt, err);
	*tnames = arena_alloc(a, (*n + 1) * sizeof(char *));
	for (size_t i = 0; !rc && i < *n; i++) {
		(*tnames)[i] = (*qcols)[i].name;
		for (size_t k = 0; k < nt; k++)
			if (strcasecmp(tcols[k].name, (*qcols)[i].name) == 0)
				(*tnames)[i] = tcols[k].name;
	}
	buf_release(&table);
	buf_release(&q);
	return rc;
}

static void add_names(struct buf *sql, const char *alias, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		buf_adds(sql, i ? ", " : "");
		if (alias)
			buf_addf(sql, "%s.", alias);
		wh_sql_ident(sql, names[i]);
	}
}

int pg_insert_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
		      const char *name, const char *query, struct sl_err *err)
{
	struct wh_column *qcols;
	const char **tnames, **qnames;
	size_t n;
	int rc = paired(w, a, schema, name, query, &qcols, &tnames, &n, err);

	if (rc)
		return rc;
	qnames = arena_alloc(a, (n + 1) * sizeof(char *));
	for (size_t i = 0; i < n; i++)
		qnames[i] = qcols[i].name;
	buf_adds(sql, "INSERT INTO ");
	wh_sql_qualified(sql, schema, name);
	buf_adds(sql, " (");
	add_names(sql, NULL, tnames, n);
	buf_adds(sql, ") SELECT ");
	add_names(sql, NULL, qnames, n);
	buf_addf(sql, " FROM (\n%s\n) AS _sluice_q", query);
	return 0;
}

int pg_merge_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
		     const char *name, const char *source, const char *alias,
		     struct sl_err *err)
{
	struct wh_column *qcols;
	const char **tnames, **qnames;
	size_t n;
	int rc = paired(w, a, schema, name, source, &qcols, &tnames, &n, err);

	if (rc)
		return rc;
	qnames = arena_alloc(a, (n + 1) * sizeof(char *));
	buf_adds(sql, "WHEN MATCHED THEN UPDATE SET ");
	for (size_t i = 0; i < n; i++) {
		qnames[i] = qcols[i].name;
		buf_adds(sql, i ? ", " : "");
		wh_sql_ident(sql, tnames[i]);
		buf_addf(sql, " = %s.", alias);
		wh_sql_ident(sql, qnames[i]);
	}
	buf_adds(sql, " WHEN NOT MATCHED THEN INSERT (");
	add_names(sql, NULL, tnames, n);
	buf_adds(sql, ") VALUES (");
	add_names(sql, alias, qnames, n);
	buf_adds(sql, ")");
	return 0;
}

/* A type as wh_table_columns names it (information_schema's data_type:
 * "numeric", "ARRAY", "USER-DEFINED") or format_type does
 * ("numeric(10,2)", "timestamp(3) without time zone", "integer[]"),
 * without its parameters and an array's brackets. */
static void base_type(const char *type, char *out, size_t size)
{
	size_t n = 0;
	int depth = 0;

	for (const char *c = type; *c && n + 1 < size; c++) {
		depth += *c == '(';
		if (!depth)
			out[n++] = *c;
		depth -= *c == ')' && depth;
	}
	while (n >= 2 && out[n - 2] == '[' && out[n - 1] == ']')
		n -= 2;
	out[n] = '\0';
}

static bool type_in(const char *type, const char *const *names)
{
	char base[128];

	base_type(type, base, sizeof(base));
	for (size_t i = 0; names[i]; i++)
		if (strcasecmp(base, names[i]) == 0)
			return true;
	return false;
}

/* Types PostgreSQL has a min and max of (and so an equality), and those
 * it compares for equality alone; anything else (json, an array, an enum,
 * a composite) is compared by its text. xml and the geometric types are
 * ordered by nothing, not even their text. */
static const char *const ordered[] = {
	"smallint",
	"integer",
	"bigint",
	"numeric",
	"real",
	"double precision",
	"money",
	"character varying",
	"character",
	"text",
	"name",
	"date",
	"time without time zone",
	"time with time zone",
	"timestamp without time zone",
	"timestamp with time zone",
	"interval",
	"inet",
	"cidr",
	"oid",
	"pg_lsn",
	"tid",
	NULL,
};
static const char *const comparable[] = { "boolean", "uuid",	"bytea",    "jsonb", "bit",
					  "bit varying", "macaddr", "macaddr8", NULL };
static const char *const unordered[] = { "xml",	 "point",   "line",   "lseg", "box",
					 "path", "polygon", "circle", NULL };

/* The least (greatest) value: by min and max where PostgreSQL has them,
 * a boolean's by bool_and and bool_or, any other's by its text; an
 * unordered type's is NULL. */
void pg_extreme_text(struct wh *w, struct buf *sql, const char *expr, const char *type,
		     bool greatest)
{
	(void)w;
	if (strcasecmp(type, "boolean") == 0)
		buf_addf(sql, "CAST(%s(%s) AS VARCHAR)", greatest ? "bool_or" : "bool_and", expr);
	else if (type_in(type, ordered))
		buf_addf(sql, "CAST(%s(%s) AS VARCHAR)", greatest ? "max" : "min", expr);
	else if (type_in(type, unordered))
		buf_adds(sql, "CAST(NULL AS VARCHAR)");
	else
		buf_addf(sql, "%s(CAST(%s AS TEXT))", greatest ? "max" : "min", expr);
}

/* An exact count: PostgreSQL has no sketch built in, and the planner's
 * n_distinct is only there once the table was analyzed. A type without an
 * equality is counted by its text. */
void pg_distinct_estimate(struct wh *w, struct buf *sql, const char *expr, const char *type)
{
	(void)w;
	if (type_in(type, ordered) || type_in(type, comparable))
		buf_addf(sql, "count(DISTINCT %s)", expr);
	else
		buf_addf(sql, "count(DISTINCT CAST(%s AS TEXT))", expr);
}

/* Type names as format_type spells them; a numeric's parameters aside. */
enum wh_seq_kind pg_seq_kind(struct wh *w, const char *type)
{
	static const char *const native[] = {
		"smallint", "integer", "bigint", "numeric", "date", "timestamp without time zone",
		"timestamp with time zone", NULL,
	};
	static const char *const text[] = { "text", "character varying", "json", "jsonb", NULL };
	size_t len = strcspn(type, "(");

	(void)w;
	for (size_t i = 0; native[i]; i++)
		if (strlen(native[i]) == len && strncasecmp(native[i], type, len) == 0)
			return WH_SEQ_NATIVE;
	for (size_t i = 0; text[i]; i++)
		if (strlen(text[i]) == len && strncasecmp(text[i], type, len) == 0)
			return WH_SEQ_TEXT;
	return WH_SEQ_NONE;
}

void pg_delete_matching(struct wh *w, struct buf *sql, const char *target, const char *t,
			const char *source, const char *s, const char *match)
{
	(void)w;
	buf_addf(sql, "DELETE FROM %s AS %s WHERE EXISTS (SELECT 1 FROM %s AS %s WHERE %s)", target,
		 t, source, s, match);
}

/* The index's name: the table's, cut to fit PostgreSQL's 63 bytes, and a
 * hash of its columns, so that each set of columns has one. */
void pg_index(struct wh *w, struct buf *sql, const char *schema, const char *table,
	      const char *const *cols, size_t n)
{
	uint32_t h = 2166136261u;
	size_t keep = strlen(table);
	char name[64];

	(void)w;
	/* cut at a character's start */
	if (keep > 40)
		for (keep = 40; keep && ((unsigned char)table[keep] & 0xC0) == 0x80; keep--)
			;
	for (size_t i = 0; i < n; i++)
		for (const char *c = cols[i]; ; c++) {
			h = (h ^ (unsigned char)*c) * 16777619u;
			if (!*c)
				break;
		}
	snprintf(name, sizeof(name), "%.*s__sluice_%08x", (int)keep, table, h);
	buf_adds(sql, "CREATE INDEX IF NOT EXISTS ");
	wh_sql_ident(sql, name);
	buf_adds(sql, " ON ");
	wh_sql_qualified(sql, schema, table);
	buf_adds(sql, " (");
	for (size_t i = 0; i < n; i++) {
		buf_adds(sql, i ? ", " : "");
		wh_sql_ident(sql, cols[i]);
	}
	buf_adds(sql, ")");
}

