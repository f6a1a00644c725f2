/*
 * The backend-independent half of the warehouse interface: dispatch to the
 * backend's operations, materialized results, and lookups written in the
 * information_schema SQL that every backend understands. Never contains
 * backend-specific SQL.
 */
#include "warehouse/wh_impl.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A value's text (NULL for SQL NULL) and its length, which counts NUL
 * bytes a VARCHAR may hold. */
struct wh_cell {
	char *s;
	size_t len;
};

struct wh_result {
	size_t ncols, nrows, cap;
	char **colnames;
	struct wh_cell *cells; /* nrows * ncols, row-major */
	/* the values' text: one allocation per value would cost more than
	 * reading it from the warehouse */
	struct arena *text;
};

struct wh_result *wh_result_new(size_t ncols)
{
	struct wh_result *r = xcalloc(1, sizeof(*r));

	r->ncols = ncols;
	r->colnames = xcalloc(ncols ? ncols : 1, sizeof(char *));
	r->text = arena_new(NULL);
	return r;
}

void wh_result_set_colname(struct wh_result *r, size_t col, const char *name)
{
	free(r->colnames[col]);
	r->colnames[col] = name ? xstrdup(name) : NULL;
}

size_t wh_result_add_rows(struct wh_result *r, size_t n)
{
	size_t first = r->nrows, width = r->ncols ? r->ncols : 1;

	if (!n)
		return first;
	if (r->nrows + n > r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct wh_cell *cells;

		while (cap < r->nrows + n)
			cap *= 2;
		cells = xreallocarray(r->cells, cap * width, sizeof(*cells));
		r->cells = cells;
		r->cap = cap;
	}
	memset(r->cells + first * r->ncols, 0, n * r->ncols * sizeof(*r->cells));
	r->nrows += n;
	return first;
}

char *wh_result_set_value(struct wh_result *r, size_t row, size_t col, size_t len)
{
	struct wh_cell *cell = &r->cells[row * r->ncols + col];

	/* zeroed, so the NUL after the value is there already */
	cell->s = arena_alloc(r->text, len + 1);
	cell->len = len;
	return cell->s;
}

size_t wh_result_nrows(const struct wh_result *r)
{
	return r->nrows;
}

size_t wh_result_ncols(const struct wh_result *r)
{
	return r->ncols;
}

const char *wh_result_colname(const struct wh_result *r, size_t col)
{
	return r->colnames[col] ? r->colnames[col] : "";
}

const char *wh_result_value(const struct wh_result *r, size_t row, size_t col)
{
	return r->cells[row * r->ncols + col].s;
}

size_t wh_result_value_len(const struct wh_result *r, size_t row, size_t col)
{
	return r->cells[row * r->ncols + col].len;
}

void wh_result_free(struct wh_result *r)
{
	if (!r)
		return;
	arena_free(r->text);
	for (size_t c = 0; c < r->ncols; c++)
		free(r->colnames[c]);
	free(r->cells);
	free(r->colnames);
	free(r);
}

void wh_close(struct wh *w)
{
	if (w)
		w->ops->close(w);
}

int wh_connect(struct wh *w, struct wh **out, struct sl_err *err)
{
	return w->ops->connect(w, out, err);
}

enum wh_kind wh_kind(const struct wh *w)
{
	return w->ops->kind;
}

const char *wh_version(struct wh *w)
{
	return w->ops->version(w);
}

bool wh_lost(const struct wh *w)
{
	return w->ops->lost && w->ops->lost(w);
}

int wh_reconnect(struct wh *w, struct sl_err *err)
{
	return w->ops->reconnect ? w->ops->reconnect(w, err) : 0;
}

uint64_t wh_sessions(const struct wh *w)
{
	return w->ops->sessions ? w->ops->sessions(w) : 0;
}

bool wh_suspect(struct wh *w, struct sl_err *err)
{
	return w->ops->suspect(w, err);
}

int wh_leave_cores(struct wh *w, int cores, struct sl_err *err)
{
	return w->ops->leave_cores ? w->ops->leave_cores(w, cores, err) : 0;
}

/* SLUICE_TRACE_SQL=1 prints every statement's first line with its time to
 * stderr: the way to see where a build or a refresh spends its time;
 * SLUICE_TRACE_SQL=full prints the whole statements, to run them again by
 * hand. */
static int tracing(void)
{
	static int on = -1;

	if (on < 0) {
		const char *v = getenv("SLUICE_TRACE_SQL");

		on = !v || !*v || strcmp(v, "0") == 0 ? 0 : strcmp(v, "full") == 0 ? 2 : 1;
	}
	return on;
}

static void trace(const char *sql, int64_t started_us, int rc)
{
	int len = (int)strcspn(sql, "\n");

	if (tracing() == 2) {
		fprintf(stderr, "sql %8.3f ms%s:\n%s\n", (units_mono_us() - started_us) / 1000.0,
			rc ? " (failed)" : "", sql);
		return;
	}

	fprintf(stderr, "sql %8.3f ms%s: %.*s%s\n", (units_mono_us() - started_us) / 1000.0,
		rc ? " (failed)" : "", len > 160 ? 160 : len, sql,
		len > 160 || sql[len] ? " ..." : "");
}

int wh_exec(struct wh *w, const char *sql, struct sl_err *err)
{
	return wh_exec_count(w, sql, NULL, err);
}

int wh_exec_count(struct wh *w, const char *sql, int64_t *changed, struct sl_err *err)
{
	int64_t t0;
	int rc;

	if (!tracing())
		return w->ops->exec(w, sql, changed, err);
	t0 = units_mono_us();
	rc = w->ops->exec(w, sql, changed, err);
	trace(sql, t0, rc);
	return rc;
}

int wh_query(struct wh *w, const char *sql, struct wh_result **out, struct sl_err *err)
{
	int64_t t0;
	int rc;

	if (!tracing())
		return w->ops->query(w, sql, out, err);
	t0 = units_mono_us();
	rc = w->ops->query(w, sql, out, err);
	trace(sql, t0, rc);
	return rc;
}

int wh_query_readonly(struct wh *w, const char *sql, const struct wh_read_limits *lim,
		      struct wh_result **out, bool *truncated, struct sl_err *err)
{
	*out = NULL;
	*truncated = false;
	return w->ops->query_readonly(w, sql, lim, out, truncated, err);
}

static int exec_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
		     struct wh_result **out, int64_t *changed, struct sl_err *err)
{
	int64_t t0;
	int rc;

	if (!tracing())
		return w->ops->exec_args(w, sql, args, n, out, changed, err);
	t0 = units_mono_us();
	rc = w->ops->exec_args(w, sql, args, n, out, changed, err);
	trace(sql, t0, rc);
	return rc;
}

int wh_exec_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
		 int64_t *changed, struct sl_err *err)
{
	return exec_args(w, sql, args, n, NULL, changed, err);
}

void wh_forget_statement(struct wh *w, const char *sql)
{
	w->ops->forget_statement(w, sql);
}

/* The first column of the first row as an integer; frees r. */
/* The first row's first n values as integers, 0 where NULL or no row. */
static void first_ints(struct wh_result *r, int64_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = r->nrows && i < r->ncols && wh_result_value(r, 0, i)
				 ? strtoll(wh_result_value(r, 0, i), NULL, 10)
				 : 0;
	wh_result_free(r);
}

int wh_query_ints_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
		       int64_t *out, size_t nout, struct sl_err *err)
{
	struct wh_result *r;
	int rc = exec_args(w, sql, args, n, &r, NULL, err);

	if (!rc)
		first_ints(r, out, nout);
	return rc;
}

int wh_query_int_args(struct wh *w, const char *sql, const struct wh_arg *args, size_t n,
		      int64_t *out, struct sl_err *err)
{
	return wh_query_ints_args(w, sql, args, n, out, 1, err);
}

int wh_appender_open(struct wh *w, const char *schema, const char *table,
		     struct wh_appender **out, struct sl_err *err)
{
	int64_t t0;
	int rc;

	if (!tracing())
		return w->ops->appender_open(w, schema, table, out, err);
	t0 = units_mono_us();
	rc = w->ops->appender_open(w, schema, table, out, err);
	trace("(appender open)", t0, rc);
	return rc;
}

int wh_appender_row(struct wh_appender *ap, const char *const *values, size_t n,
		    struct sl_err *err)
{
	return ap->w->ops->appender_row(ap, values, n, err);
}

int wh_appender_flush(struct wh_appender *ap, struct sl_err *err)
{
	int64_t t0;
	int rc;

	if (!tracing())
		return ap->w->ops->appender_flush(ap, err);
	t0 = units_mono_us();
	rc = ap->w->ops->appender_flush(ap, err);
	trace("(appender flush)", t0, rc);
	return rc;
}

void wh_appender_close(struct wh_appender *ap)
{
	int64_t t0;

	if (!ap)
		return;
	if (!tracing()) {
		ap->w->ops->appender_close(ap);
		return;
	}
	t0 = units_mono_us();
	ap->w->ops->appender_close(ap);
	trace("(appender close)", t0, 0);
}

int wh_query_ints(struct wh *w, const char *sql, int64_t *out, size_t n, struct sl_err *err)
{
	struct wh_result *r;
	int rc = wh_query(w, sql, &r, err);

	if (!rc)
		first_ints(r, out, n);
	return rc;
}

int wh_query_int(struct wh *w, const char *sql, int64_t *out, struct sl_err *err)
{
	return wh_query_ints(w, sql, out, 1, err);
}

int wh_begin(struct wh *w, struct sl_err *err)
{
	return wh_exec(w, "BEGIN TRANSACTION", err);
}

int wh_begin_snapshot(struct wh *w, struct sl_err *err)
{
	const char *sql = w->ops->begin_snapshot;

	return wh_exec(w, sql ? sql : "BEGIN TRANSACTION", err);
}

bool wh_shared(const struct wh *w)
{
	return w->ops->shared;
}

/* FNV-1a: lock keys must agree between processes and builds of sluice. */
static int64_t lock_key(const char *key)
{
	uint64_t h = 14695981039346656037ULL;

	for (const unsigned char *p = (const unsigned char *)"sluice:"; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return (int64_t)h;
}

int wh_lock(struct wh *w, const char *key, enum wh_lock_how how, bool *got, struct sl_err *err)
{
	bool taken = true;
	int rc = 0;

	if (w->ops->lock)
		rc = w->ops->lock(w, lock_key(key), how, true, &taken, err);
	if (got)
		*got = !rc && taken;
	return rc;
}

int wh_unlock(struct wh *w, const char *key, struct sl_err *err)
{
	return w->ops->lock ? w->ops->lock(w, lock_key(key), WH_LOCK_WAIT, false, NULL, err) : 0;
}

int wh_unlock_shared(struct wh *w, const char *key, struct sl_err *err)
{
	return w->ops->lock ? w->ops->lock(w, lock_key(key), WH_LOCK_SHARED, false, NULL, err) : 0;
}

int wh_ensure_index(struct wh *w, const char *schema, const char *table, const char *const *cols,
		    size_t n, bool fresh, struct sl_err *err)
{
	struct buf fact = BUF_INIT, sql = BUF_INIT;
	int rc = 0;

	if (!w->ops->sql_index)
		return 0;
	buf_addf(&fact, "index:%s.%s", schema, table);
	for (size_t i = 0; i < n; i++)
		buf_addf(&fact, "%s%s", i ? "," : "(", cols[i]);
	if (fresh || !wh_memo_has(w, fact.buf)) {
		w->ops->sql_index(w, &sql, schema, table, cols, n);
		rc = wh_exec(w, sql.buf, err);
		if (!rc)
			wh_memo_add(w, fact.buf);
	}
	buf_release(&fact);
	buf_release(&sql);
	return rc;
}

int wh_commit(struct wh *w, struct sl_err *err)
{
	return wh_exec(w, "COMMIT", err);
}

int wh_exec_atomic(struct wh *w, const char *sql, struct sl_err *err)
{
	int rc = wh_begin(w, err);

	if (!rc)
		rc = wh_exec(w, sql, err);
	if (!rc)
		rc = wh_commit(w, err);
	if (rc)
		wh_rollback(w);
	return rc;
}

void wh_rollback(struct wh *w)
{
	wh_exec(w, "ROLLBACK", NULL);
}

int wh_relation_kind(struct wh *w, struct arena *a, const char *schema, const char *name,
		     const char **kind, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_adds(&sql, "SELECT table_type FROM information_schema.tables WHERE table_schema = ");
	buf_add_sql_str(&sql, schema);
	buf_adds(&sql, " AND table_name = ");
	buf_add_sql_str(&sql, name);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	*kind = NULL;
	if (r->nrows) {
		const char *t = wh_result_value(r, 0, 0);

		*kind = arena_strdup(a, t && strstr(t, "VIEW") ? "view" : "table");
	}
	wh_result_free(r);
	return 0;
}

int wh_relation_kinds(struct wh *w, struct arena *a, const char ***names, const char ***kinds,
		      size_t *n, struct sl_err *err)
{
	struct wh_result *r;
	int rc = wh_query(w,
			  "SELECT lower(table_schema) || '.' || lower(table_name), "
			  "CASE WHEN table_type LIKE '%VIEW%' THEN 'view' ELSE 'table' END "
			  "FROM information_schema.tables ORDER BY 1",
			  &r, err);

	if (rc)
		return rc;
	*n = r->nrows;
	*names = arena_alloc(a, (r->nrows + 1) * sizeof(char *));
	if (kinds)
		*kinds = arena_alloc(a, (r->nrows + 1) * sizeof(char *));
	for (size_t i = 0; i < r->nrows; i++) {
		(*names)[i] = arena_strdup(a, wh_result_value(r, i, 0));
		if (kinds)
			(*kinds)[i] = strcmp(wh_result_value(r, i, 1), "view") == 0 ? "view" : "table";
	}
	wh_result_free(r);
	return 0;
}

int wh_relation_list(struct wh *w, struct arena *a, const char ***names, size_t *n,
		     struct sl_err *err)
{
	return wh_relation_kinds(w, a, names, NULL, n, err);
}

int wh_row_estimate(struct wh *w, const char *schema, const char *table, int64_t *n,
		    struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	bool known = false;
	int rc = w->ops->row_estimate ? w->ops->row_estimate(w, schema, table, n, &known, err) : 0;

	if (rc || known)
		return rc;
	buf_adds(&sql, "SELECT count(*) FROM ");
	wh_sql_qualified(&sql, schema, table);
	rc = wh_query_ints(w, sql.buf, n, 1, err);
	buf_release(&sql);
	return rc;
}

int wh_table_columns(struct wh *w, struct arena *a, const char *schema, const char *name,
		     struct wh_column **cols, size_t *n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	bool known = false;
	int rc = w->ops->table_columns
			 ? w->ops->table_columns(w, a, schema, name, cols, n, &known, err)
			 : 0;

	if (rc || known)
		return rc;
	buf_adds(&sql, "SELECT column_name, data_type FROM information_schema.columns "
		       "WHERE table_schema = ");
	buf_add_sql_str(&sql, schema);
	buf_adds(&sql, " AND table_name = ");
	buf_add_sql_str(&sql, name);
	buf_adds(&sql, " ORDER BY ordinal_position");
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	*n = r->nrows;
	*cols = arena_alloc(a, (r->nrows + 1) * sizeof(**cols));
	for (size_t i = 0; i < r->nrows; i++) {
		(*cols)[i].name = arena_strdup(a, wh_result_value(r, i, 0));
		(*cols)[i].type = arena_strdup(a, wh_result_value(r, i, 1));
	}
	wh_result_free(r);
	return 0;
}

bool wh_split_qualified(const char *qualified, char *schema, size_t n, const char **name)
{
	const char *dot = strchr(qualified, '.');

	if (!dot || (size_t)(dot - qualified) >= n)
		return false;
	snprintf(schema, n, "%.*s", (int)(dot - qualified), qualified);
	*name = dot + 1;
	return true;
}

int wh_has_columns(struct wh *w, const char *schema, const char *table,
		   const char *const *columns, size_t ncolumns, bool *has, struct sl_err *err)
{
	/* a root: its callers (a landing's checks, a read of the live state)
	 * hold no arena */
	struct arena *a = arena_new(NULL);
	struct wh_column *cols;
	size_t n;
	int rc = wh_table_columns(w, a, schema, table, &cols, &n, err);

	for (size_t k = 0; k < ncolumns; k++) {
		has[k] = false;
		for (size_t i = 0; !rc && i < n; i++)
			has[k] |= strcasecmp(cols[i].name, columns[k]) == 0;
	}
	arena_free(a);
	return rc;
}

int wh_has_column(struct wh *w, const char *schema, const char *table, const char *column,
		  bool *has, struct sl_err *err)
{
	return wh_has_columns(w, schema, table, &column, 1, has, err);
}

void wh_sql_swap_in(struct wh *w, struct buf *sql, const char *schema, const char *staging,
		    const char *name, const char *old_kind)
{
	w->ops->sql_swap_in(w, sql, schema, staging, name, old_kind);
}

int wh_load_csv(struct wh *w, const char *schema, const char *name, const char *path,
		struct sl_err *err)
{
	return w->ops->load_csv(w, schema, name, path, err);
}

int wh_file_land(struct wh *w, const char *schema, const char *table,
		 const struct wh_file_read *rd, int64_t *rows, struct sl_err *err)
{
	*rows = 0;
	return w->ops->land_file(w, schema, table, rd, rows, err);
}

void wh_sql_qualified(struct buf *sql, const char *schema, const char *name)
{
	wh_sql_ident(sql, schema);
	buf_addch(sql, '.');
	wh_sql_ident(sql, name);
}

void wh_sql_ident(struct buf *sql, const char *name)
{
	buf_add_sql_ident(sql, name);
}

void wh_sql_comment(struct buf *sql, bool view, const char *schema, const char *name,
		    const char *text)
{
	buf_addf(sql, "COMMENT ON %s ", view ? "VIEW" : "TABLE");
	wh_sql_qualified(sql, schema, name);
	buf_adds(sql, " IS ");
	buf_add_sql_str(sql, text);
}

struct wh_memo {
	pthread_mutex_t mu;
	int refs;
	char **facts;
	size_t n, cap;
};

struct wh_memo *wh_memo_new(void)
{
	struct wh_memo *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->mu, NULL);
	m->refs = 1;
	return m;
}

void wh_memo_retain(struct wh_memo *m)
{
	pthread_mutex_lock(&m->mu);
	m->refs++;
	pthread_mutex_unlock(&m->mu);
}

static void forget(struct wh_memo *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->facts[i]);
	m->n = 0;
}

void wh_memo_release(struct wh_memo *m)
{
	int left;

	pthread_mutex_lock(&m->mu);
	left = --m->refs;
	pthread_mutex_unlock(&m->mu);
	if (left)
		return;
	forget(m);
	free(m->facts);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

bool wh_memo_has(struct wh *w, const char *fact)
{
	bool has = false;

	pthread_mutex_lock(&w->memo->mu);
	for (size_t i = 0; i < w->memo->n && !has; i++)
		has = strcmp(w->memo->facts[i], fact) == 0;
	pthread_mutex_unlock(&w->memo->mu);
	return has;
}

void wh_memo_add(struct wh *w, const char *fact)
{
	struct wh_memo *m = w->memo;

	if (wh_memo_has(w, fact))
		return;
	pthread_mutex_lock(&m->mu);
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 8;
		m->facts = xreallocarray(m->facts, m->cap, sizeof(*m->facts));
	}
	m->facts[m->n] = xstrdup(fact);
	m->n++;
	pthread_mutex_unlock(&m->mu);
}

void wh_memo_forget(struct wh *w)
{
	pthread_mutex_lock(&w->memo->mu);
	forget(w->memo);
	pthread_mutex_unlock(&w->memo->mu);
}

bool wh_binds(const struct wh *w)
{
	return w->ops->bind != NULL;
}

int wh_bind(struct wh *w, struct arena *a, const char *query, long *offset, const char **hint,
	    struct sl_err *err)
{
	*offset = -1;
	*hint = NULL;
	if (!w->ops->bind)
		return sl_err_set(err, SL_E_USAGE, "this warehouse binds no query by itself");
	return w->ops->bind(w, a, query, offset, hint, err);
}

int wh_query_columns(struct wh *w, struct arena *a, const char *query, struct wh_column **cols,
		     size_t *n, struct sl_err *err)
{
	return w->ops->query_columns(w, a, query, cols, n, err);
}

void wh_sql_replace_as(struct wh *w, struct buf *sql, enum wh_replace what, const char *schema,
		       const char *name, const char *query)
{
	w->ops->sql_replace_as(w, sql, what, schema, name, query);
}

void wh_sql_delete_matching(struct wh *w, struct buf *sql, const char *target, const char *t,
			    const char *source, const char *s, const char *match)
{
	if (w->ops->sql_delete_matching) {
		w->ops->sql_delete_matching(w, sql, target, t, source, s, match);
		return;
	}
	buf_addf(sql, "DELETE FROM %s AS %s USING %s AS %s WHERE %s", target, t, source, s, match);
}

void wh_sql_first_per_key(struct wh *w, struct buf *sql, const char *from, const char *keys,
			  const char *order)
{
	w->ops->sql_first_per_key(w, sql, from, keys, order);
}

void wh_sql_epoch_ms(struct wh *w, struct buf *sql, const char *expr)
{
	w->ops->sql_epoch(w, sql, expr, 3);
}

void wh_sql_epoch_us(struct wh *w, struct buf *sql, const char *expr)
{
	w->ops->sql_epoch(w, sql, expr, 6);
}

void wh_sql_avg_of(struct wh *w, struct buf *sql, const char *sum, const char *count,
		   const char *sum_type)
{
	w->ops->sql_avg_of(w, sql, sum, count, sum_type);
}

bool wh_sql_type_is_float(struct wh *w, const char *type)
{
	static const char *const names[] = { "DOUBLE", "FLOAT", "REAL", "FLOAT4", "FLOAT8",
					     "double precision", NULL };

	(void)w;
	for (size_t i = 0; names[i]; i++)
		if (strcasecmp(type, names[i]) == 0)
			return true;
	return false;
}

/* Both warehouses' names, as their catalogs give them: DuckDB's upper
 * case, PostgreSQL's information_schema spelling. UBIGINT is left out:
 * its values need not fit a BIGINT. */
enum wh_cursor_kind wh_sql_cursor_kind(struct wh *w, const char *type)
{
	static const struct {
		const char *name;
		enum wh_cursor_kind kind;
	} names[] = {
		{ "TINYINT", WH_CURSOR_INT },
		{ "SMALLINT", WH_CURSOR_INT },
		{ "INTEGER", WH_CURSOR_INT },
		{ "BIGINT", WH_CURSOR_INT },
		{ "UTINYINT", WH_CURSOR_INT },
		{ "USMALLINT", WH_CURSOR_INT },
		{ "UINTEGER", WH_CURSOR_INT },
		{ "TIMESTAMP", WH_CURSOR_TIMESTAMP },
		{ "timestamp without time zone", WH_CURSOR_TIMESTAMP },
		{ "TIMESTAMP WITH TIME ZONE", WH_CURSOR_TIMESTAMPTZ },
	};

	(void)w;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strcasecmp(type, names[i].name) == 0)
			return names[i].kind;
	return WH_CURSOR_NONE;
}

void wh_sql_column_storage(struct wh *w, struct buf *sql, const char *type)
{
	if (w->ops->sql_column_storage)
		w->ops->sql_column_storage(w, sql, type);
}

void wh_sql_try_cast(struct wh *w, struct buf *sql, const char *expr, const char *type)
{
	w->ops->sql_try_cast(w, sql, expr, type);
}

void wh_sql_matches(struct wh *w, struct buf *sql, const char *expr, const char *re)
{
	w->ops->sql_matches(w, sql, expr, re);
}

const char *wh_sql_type(struct wh *w, enum wh_type t)
{
	return w->ops->sql_type(w, t);
}

const char *wh_sql_declared_type(struct wh *w, struct arena *a, const char *decl)
{
	return w->ops->sql_declared_type ? w->ops->sql_declared_type(w, a, decl) : decl;
}

void wh_sql_min_text(struct wh *w, struct buf *sql, const char *expr, const char *type)
{
	w->ops->sql_extreme_text(w, sql, expr, type, false);
}

void wh_sql_max_text(struct wh *w, struct buf *sql, const char *expr, const char *type)
{
	w->ops->sql_extreme_text(w, sql, expr, type, true);
}

void wh_sql_distinct_estimate(struct wh *w, struct buf *sql, const char *expr, const char *type)
{
	w->ops->sql_distinct_estimate(w, sql, expr, type);
}

enum wh_seq_kind wh_sql_seq_kind(struct wh *w, const char *type)
{
	return w->ops->sql_seq_kind(w, type);
}

int wh_sql_insert_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
			  const char *name, const char *query, struct sl_err *err)
{
	return w->ops->sql_insert_by_name(w, a, sql, schema, name, query, err);
}

int wh_sql_merge_by_name(struct wh *w, struct arena *a, struct buf *sql, const char *schema,
			 const char *name, const char *source, const char *alias,
			 struct sl_err *err)
{
	return w->ops->sql_merge_by_name(w, a, sql, schema, name, source, alias, err);
}
