/*
 * DuckDB's dialect: its own statements for what warehouses write
 * differently. Each appends to the caller's buffer and runs nothing, but
 * the one that asks the database what a query returns.
 */
#include "warehouse/duckdb_sql.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"

#include <stdio.h>
#include <strings.h>

void duck_sql_replace_as(struct wh *w, struct buf *sql, enum wh_replace what, const char *schema,
			 const char *name, const char *query)
{
	static const char *const kinds[] = { "TABLE", "TEMP TABLE", "VIEW" };

	(void)w;
	buf_addf(sql, "CREATE OR REPLACE %s ", kinds[what]);
	if (schema)
		wh_sql_qualified(sql, schema, name);
	else
		wh_sql_ident(sql, name);
	buf_adds(sql, " AS\n");
	buf_adds(sql, query);
}

void duck_sql_first_per_key(struct wh *w, struct buf *sql, const char *from, const char *keys,
			    const char *order)
{
	(void)w;
	buf_addf(sql, "SELECT * FROM %s QUALIFY row_number() OVER (PARTITION BY %s ORDER BY %s) = 1",
		 from, keys, order);
}

void duck_sql_epoch(struct wh *w, struct buf *sql, const char *expr, int digits)
{
	(void)w;
	buf_addf(sql, "%s(%s)", digits == 3 ? "epoch_ms" : "epoch_us", expr);
}

void duck_sql_try_cast(struct wh *w, struct buf *sql, const char *expr, const char *type)
{
	(void)w;
	buf_addf(sql, "TRY_CAST(%s AS %s)", expr, type);
}

void duck_sql_column_storage(struct wh *w, struct buf *sql, const char *type)
{
	int width = 0, scale;

	(void)w;
	if (strcasecmp(type, "HUGEINT") == 0 || strcasecmp(type, "UHUGEINT") == 0 ||
	    (sscanf(type, "DECIMAL(%d,%d)", &width, &scale) == 2 && width > 18))
		buf_adds(sql, " USING COMPRESSION uncompressed");
}

/* avg() gives a DOUBLE whatever it averages; of decimals it divides their
 * sum as the integer it is stored as by the count times 10^scale, which a
 * DOUBLE of the decimal would round first. */
void duck_sql_avg_of(struct wh *w, struct buf *sql, const char *sum, const char *count,
		     const char *sum_type)
{
	int precision, scale = 0;

	(void)w;
	if (sum_type && sscanf(sum_type, "DECIMAL(%d,%d)", &precision, &scale) == 2 && scale > 0 &&
	    scale <= 18) {
		long long power = 1;

		for (int i = 0; i < scale; i++)
			power *= 10;
		buf_addf(sql, "(CAST(CAST(%s * %lld AS HUGEINT) AS DOUBLE) / CAST(%s * %lld AS DOUBLE))",
			 sum, power, count, power);
		return;
	}
	buf_addf(sql, "(CAST(%s AS DOUBLE) / CAST(%s AS DOUBLE))", sum, count);
}

void duck_sql_matches(struct wh *w, struct buf *sql, const char *expr, const char *re)
{
	(void)w;
	buf_addf(sql, "regexp_full_match(%s, ", expr);
	buf_add_sql_str(sql, re);
	buf_adds(sql, ")");
}

const char *duck_sql_type(struct wh *w, enum wh_type t)
{
	static const char *const names[] = {
		[WH_TYPE_BIGINT] = "BIGINT",       [WH_TYPE_INT128] = "HUGEINT",
		[WH_TYPE_DOUBLE] = "DOUBLE",       [WH_TYPE_TEXT] = "VARCHAR",
		[WH_TYPE_TIMESTAMP] = "TIMESTAMP", [WH_TYPE_TIMESTAMPTZ] = "TIMESTAMPTZ",
		[WH_TYPE_BOOLEAN] = "BOOLEAN",
	};

	(void)w;
	return names[t];
}

int duck_query_columns(struct wh *w, struct arena *a, const char *query, struct wh_column **cols,
		       size_t *n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_addf(&sql, "SELECT column_name, column_type FROM (DESCRIBE %s)", query);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	*n = wh_result_nrows(r);
	*cols = arena_alloc(a, (*n + 1) * sizeof(**cols));
	for (size_t i = 0; i < *n; i++) {
		(*cols)[i].name = arena_strdup(a, wh_result_value(r, i, 0));
		(*cols)[i].type = arena_strdup(a, wh_result_value(r, i, 1));
	}
	wh_result_free(r);
	return 0;
}

void duck_sql_extreme_text(struct wh *w, struct buf *sql, const char *expr, const char *type,
			   bool greatest)
{
	/* DuckDB's min and max take every type */
	(void)w;
	(void)type;
	buf_addf(sql, "CAST(%s(%s) AS VARCHAR)", greatest ? "max" : "min", expr);
}

/* A HyperLogLog sketch over the values' hashes, which every type has: one
 * pass in little memory, at the price of an estimate (DuckDB 1.4's is off
 * by up to a quarter at some sizes). */
void duck_sql_distinct_estimate(struct wh *w, struct buf *sql, const char *expr,
				const char *type)
{
	(void)w;
	(void)type;
	buf_addf(sql, "approx_count_distinct(%s)", expr);
}

static bool in_list(const char *const *list, const char *word)
{
	for (size_t i = 0; list[i]; i++)
		if (strcasecmp(list[i], word) == 0)
			return true;
	return false;
}

enum wh_seq_kind duck_sql_seq_kind(struct wh *w, const char *type)
{
	static const char *const native[] = {
		"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
		"UINTEGER", "UBIGINT", "UHUGEINT", "DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE",
		"TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", NULL,
	};
	static const char *const text[] = { "VARCHAR", "JSON", NULL };

	(void)w;
	if (in_list(native, type))
		return WH_SEQ_NATIVE;
	return in_list(text, type) ? WH_SEQ_TEXT : WH_SEQ_NONE;
}

/* DuckDB pairs the columns by name itself, in its binder: nothing to ask. */
int duck_sql_insert_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
			    const char *name, const char *query, struct sl_err *err)
{
	(void)w;
	(void)a;
	(void)err;
	buf_adds(sql, "INSERT INTO ");
	wh_sql_qualified(sql, schema, name);
	buf_adds(sql, " BY NAME\n");
	buf_adds(sql, query);
	return 0;
}

int duck_sql_merge_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
			   const char *name, const char *source, const char *alias,
			   struct sl_err *err)
{
	(void)w;
	(void)a;
	(void)schema;
	(void)name;
	(void)source;
	(void)alias;
	(void)err;
	buf_adds(sql, "WHEN MATCHED THEN UPDATE BY NAME WHEN NOT MATCHED THEN INSERT BY NAME");
	return 0;
}
