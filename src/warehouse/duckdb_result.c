/*
 * This file implements the DuckDB backend's results as text: the columns
 * duckdb_text.c does not write are cast to VARCHAR in SQL (the wrapped
 * query remembered per connection), and rows are read chunk by chunk. It
 * must never leave a duckdb_result undestroyed.
 */
#include "warehouse/duckdb_result.h"

#include "core/buf.h"
#include "core/xalloc.h"
#include "warehouse/duckdb_conn.h"
#include "warehouse/duckdb_doubt.h"
#include "warehouse/duckdb_text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool is_real(duckdb_type t)
{
	return t == DUCKDB_TYPE_FLOAT || t == DUCKDB_TYPE_DOUBLE;
}

/* Whether every column of ps is written without a cast in SQL; with
 * reals, whether every one but its reals is. */
static bool all_native(duckdb_prepared_statement ps, bool reals)
{
	idx_t n = duckdb_prepared_statement_column_count(ps);

	for (idx_t c = 0; c < n; c++) {
		duckdb_type t = duckdb_prepared_statement_column_type(ps, c);

		if (!duck_text_native(t) && !(reals && is_real(t)))
			return false;
	}
	return true;
}

/* The query sql with its columns of types duckdb_text.c does not write on
 * its own cast to VARCHAR, into wrapped; false when there are none. What
 * was cast is counted in m. */
static bool wrap_query(struct buf *wrapped, duckdb_prepared_statement ps, const char *sql,
		       struct duck_wrapped *m)
{
	idx_t n = duckdb_prepared_statement_column_count(ps);
	size_t len, cast = 0;

	buf_adds(wrapped, "SELECT * REPLACE (");
	for (idx_t c = 0; c < n; c++) {
		duckdb_type t = duckdb_prepared_statement_column_type(ps, c);
		char *name;

		if (duck_text_native(t))
			continue;
		m->reals += is_real(t);
		name = (char *)duckdb_prepared_statement_column_name(ps, c);
		buf_adds(wrapped, cast++ ? ", CAST(" : "CAST(");
		buf_add_sql_ident(wrapped, name);
		buf_adds(wrapped, " AS VARCHAR) AS ");
		buf_add_sql_ident(wrapped, name);
		duckdb_free(name);
	}
	m->reals_only = m->reals == cast;
	/* the query on lines of its own, without its final ';', so a trailing
	 * comment or semicolon does not swallow the wrapper */
	len = strlen(sql);
	while (len && (isspace((unsigned char)sql[len - 1]) || sql[len - 1] == ';'))
		len--;
	buf_addf(wrapped, ") FROM (\n%.*s\n) AS _sluice_q", (int)len, sql);
	return cast > 0;
}

/* Keeps m, its text taken from wrapped; the kept copy, or NULL when there
 * is no room left. */
static struct duck_wrapped *remember_wrapped(struct wh_duckdb *d, const char *sql,
					     struct buf *wrapped, struct duck_wrapped m)
{
	if (d->nwrapped == PREPARED_MAX)
		return NULL;
	m.sql = xstrdup(sql);
	m.text = buf_detach(wrapped, NULL);
	d->wrapped[d->nwrapped] = m;
	return &d->wrapped[d->nwrapped++];
}

/* sql prepared as remembered (wrapped, or as it is), if it is remembered
 * and that still gives every column a writer (the tables may have changed
 * since); otherwise NULL, and it is forgotten. */
static duckdb_prepared_statement prepare_remembered(struct wh_duckdb *d, const char *sql,
						    struct duck_wrapped **memo)
{
	duckdb_prepared_statement ps = NULL;
	struct duck_wrapped *m = d->wrapped;

	while (m < d->wrapped + d->nwrapped && strcmp(m->sql, sql) != 0)
		m++;
	if (m == d->wrapped + d->nwrapped)
		return NULL;
	if (duckdb_prepare(d->conn, m->direct ? m->sql : m->text, &ps) == DuckDBSuccess &&
	    all_native(ps, m->direct)) {
		*memo = m;
		return ps;
	}
	duckdb_destroy_prepare(&ps);
	free(m->sql);
	free(m->text);
	*m = d->wrapped[--d->nwrapped];
	return NULL;
}

/* Values of the types duckdb_text.c does not write on its own (reals,
 * lists, structs, maps, UUID, ENUM, the time zone types...) are cast to
 * text in SQL: a query that returns them is prepared again with those
 * columns cast, so the statement still runs only once. What cannot be
 * wrapped so (a statement other than a query, several statements, a
 * statement with arguments) has its reals written through DuckDB value by
 * value, and the other such values read as NULL (duckdb_text.h). *memo is
 * what is remembered of the query, if anything. */
duckdb_prepared_statement duck_prepare_as_text(struct wh_duckdb *d, const char *sql,
					       struct duck_wrapped **memo)
{
	duckdb_prepared_statement ps = prepare_remembered(d, sql, memo), text = NULL;
	struct duck_wrapped m = { 0 };
	struct buf wrapped = BUF_INIT;

	if (ps)
		return ps;
	if (duckdb_prepare(d->conn, sql, &ps) != DuckDBSuccess) {
		duckdb_destroy_prepare(&ps);
		return NULL;
	}
	if (duckdb_prepared_statement_type(ps) != DUCKDB_STATEMENT_TYPE_SELECT)
		return ps;
	if (wrap_query(&wrapped, ps, sql, &m) &&
	    duckdb_prepare(d->conn, wrapped.buf, &text) == DuckDBSuccess) {
		duckdb_destroy_prepare(&ps);
		ps = text;
		*memo = remember_wrapped(d, sql, &wrapped, m);
	} else {
		duckdb_destroy_prepare(&text);
	}
	buf_release(&wrapped);
	return ps;
}

void duck_choose_direct(struct duck_wrapped *m, const struct wh_result *r)
{
	m->direct = m->reals_only && wh_result_nrows(r) * m->reals < FEW_REALS;
}

struct wh_result *duck_result_new(duckdb_result *res, struct duck_text_col **cols)
{
	idx_t ncols = duckdb_column_count(res);
	struct wh_result *r = wh_result_new(ncols);

	*cols = xcalloc(ncols ? ncols : 1, sizeof(**cols));
	for (idx_t c = 0; c < ncols; c++) {
		duckdb_logical_type t = duckdb_column_logical_type(res, c);

		wh_result_set_colname(r, c, duckdb_column_name(res, c));
		(*cols)[c] = duck_text_column(t);
		duckdb_destroy_logical_type(&t);
	}
	return r;
}

/* How many of the chunk's n rows from row from on fit in the bytes left,
 * each row's values measured before any is copied: *bytes grows by
 * theirs. */
static idx_t rows_within(duckdb_data_chunk chunk, idx_t from, idx_t n, idx_t ncols,
			 const struct duck_text_col *cols, size_t max_bytes, size_t *bytes)
{
	for (idx_t i = 0; i < n; i++) {
		size_t row = 0;

		for (idx_t c = 0; c < ncols; c++)
			row += duck_text_len(duckdb_data_chunk_get_vector(chunk, c), from + i,
					     &cols[c]) + 1;
		if (row > max_bytes - *bytes)
			return i;
		*bytes += row;
	}
	return n;
}

int duck_result_read(struct wh_duckdb *d, duckdb_result *res, const struct wh_read_limits *lim,
		     struct wh_result **out, bool *truncated, struct sl_err *err)
{
	struct duck_text_col *cols;
	struct wh_result *r = duck_result_new(res, &cols);
	idx_t ncols = duckdb_column_count(res);
	duckdb_data_chunk chunk;
	uint64_t skip = lim ? lim->offset : 0;
	size_t bytes = 0;
	bool cut = false;
	const char *failed;

	while (!cut && (chunk = duckdb_fetch_chunk(*res)) != NULL) {
		idx_t n = duckdb_data_chunk_get_size(chunk), from, take;
		size_t first, room;

		/* the rows skipped are never measured nor copied */
		from = skip < n ? (idx_t)skip : n;
		skip -= from;
		take = n - from;
		if (lim) {
			room = lim->max_rows - wh_result_nrows(r);
			take = rows_within(chunk, from, take < room ? take : room, ncols, cols,
					   lim->max_bytes, &bytes);
		}
		first = wh_result_add_rows(r, take);
		for (idx_t c = 0; c < ncols; c++)
			duck_text_write(r, first, c, duckdb_data_chunk_get_vector(chunk, c), from,
					take, &cols[c]);
		duckdb_destroy_data_chunk(&chunk);
		cut = from + take < n;
	}
	free(cols);
	if (truncated)
		*truncated = cut;
	/* the end of the rows, or a failure to fetch the next ones */
	failed = cut ? NULL : duckdb_result_error(res);
	if (failed && *failed) {
		wh_result_free(r);
		return duck_error(d, res, err);
	}
	duckdb_destroy_result(res);
	*out = r;
	return 0;
}

