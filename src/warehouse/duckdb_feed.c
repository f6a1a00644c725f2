/*
 * Feeds. The table function _sluice_feed('schema.table') returns the rows
 * a feed holds; each feed's INSERT INTO schema.table SELECT * FROM it is
 * prepared once. The function finds a feed by the name and by the
 * connection that calls it, so a query on any other connection (a model's
 * SQL, say) finds nothing and reads no one's rows.
 */
#include "warehouse/duckdb_feed.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/civil.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "warehouse/wh.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUNCTION "_sluice_feed"

struct feed_col {
	duckdb_type type;
	size_t width;		 /* bytes of a value in data; VARCHAR: a char * */
	unsigned char *data;	 /* cap values */
	bool *nulls;		 /* cap flags */
	duckdb_prepared_statement cast; /* CAST($1 AS type), prepared when first needed */
};

struct duck_feed {
	duckdb_connection conn;
	idx_t conn_id;
	char *key; /* "serial:schema.table", as the INSERT names it */
	duckdb_prepared_statement insert;
	struct feed_col *cols;
	size_t ncols;
	size_t nrows, cap;
	struct arena *strings; /* of the VARCHAR values held */
	struct duck_feed *next_all;
};

/* Every feed of the process, for the function's bind to find. */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static struct duck_feed *all_feeds;
static unsigned long long serial; /* of the last feed made: in its key, as two databases
				   * may have connections of the same id */

static const char *type_sql(duckdb_type t)
{
	switch (t) {
	case DUCKDB_TYPE_BIGINT:
		return "BIGINT";
	case DUCKDB_TYPE_INTEGER:
		return "INTEGER";
	case DUCKDB_TYPE_DOUBLE:
		return "DOUBLE";
	case DUCKDB_TYPE_BOOLEAN:
		return "BOOLEAN";
	case DUCKDB_TYPE_TIMESTAMP:
		return "TIMESTAMP";
	case DUCKDB_TYPE_VARCHAR:
		return "VARCHAR";
	default:
		return NULL;
	}
}

bool duck_feed_takes(duckdb_type t)
{
	return type_sql(t) != NULL;
}

static size_t type_width(duckdb_type t)
{
	switch (t) {
	case DUCKDB_TYPE_INTEGER:
		return sizeof(int32_t);
	case DUCKDB_TYPE_BOOLEAN:
		return sizeof(bool);
	case DUCKDB_TYPE_VARCHAR:
		return sizeof(char *);
	default:
		return sizeof(int64_t);
	}
}

bool duck_plain_int64(const char *s, int64_t *out)
{
	const char *p = s + (*s == '-');
	uint64_t v = 0, limit = *s == '-' ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

	if (!*p)
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > (limit - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = *s == '-' ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/* n digits at s as a number, or -1. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

bool duck_plain_timestamp(const char *s, int64_t *out)
{
	int y, m, d, hh, mm, ss;
	int64_t micros = 0, scale = 100000, days;
	const char *f;

	if (strlen(s) < 19 || (y = digits(s, 4)) < 1 || s[4] != '-' || s[7] != '-' ||
	    s[10] != ' ' || s[13] != ':' || s[16] != ':')
		return false;
	m = digits(s + 5, 2);
	d = digits(s + 8, 2);
	hh = digits(s + 11, 2);
	mm = digits(s + 14, 2);
	ss = digits(s + 17, 2);
	if (m < 1 || m > 12 || d < 1 || d > civil_month_days(y, m) || hh < 0 || hh > 23 ||
	    mm < 0 || mm > 59 || ss < 0 || ss > 59)
		return false;
	f = s + 19;
	if (*f == '.') {
		for (f++; *f >= '0' && *f <= '9' && scale; f++, scale /= 10)
			micros += (*f - '0') * scale;
		if (f == s + 20)
			return false;
	}
	if (*f)
		return false;
	days = civil_days(y, m, d);
	*out = ((days * 24 + hh) * 60 + mm) * 60 * 1000000LL + ss * 1000000LL + micros;
	return true;
}

/* Digits with an optional sign, fraction and exponent: text that strtod
 * and DuckDB's cast both round correctly to the same double. */
static bool plain_double(const char *s, double *out)
{
	const char *p = s + (*s == '-');
	const char *start = p;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == start)
		return false;
	if (*p == '.') {
		const char *frac = ++p;

		while (*p >= '0' && *p <= '9')
			p++;
		if (p == frac)
			return false;
	}
	if (*p == 'e' || *p == 'E') {
		const char *exp;

		p++;
		p += *p == '-' || *p == '+';
		exp = p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == exp)
			return false;
	}
	if (*p)
		return false;
	errno = 0;
	*out = strtod(s, NULL);
	/* out of range, or below the normal doubles: the cast says what */
	return errno == 0;
}

/* The value v of a column of type t, without DuckDB's cast, where the text
 * is plainly of the type. */
static bool plain_value(duckdb_type t, const char *v, void *out)
{
	int64_t i;

	switch (t) {
	case DUCKDB_TYPE_BIGINT:
		return duck_plain_int64(v, out);
	case DUCKDB_TYPE_INTEGER:
		if (!duck_plain_int64(v, &i) || i < INT32_MIN || i > INT32_MAX)
			return false;
		*(int32_t *)out = (int32_t)i;
		return true;
	case DUCKDB_TYPE_DOUBLE:
		return plain_double(v, out);
	case DUCKDB_TYPE_BOOLEAN:
		if (strcmp(v, "true") != 0 && strcmp(v, "false") != 0)
			return false;
		*(bool *)out = v[0] == 't';
		return true;
	case DUCKDB_TYPE_TIMESTAMP:
		return duck_plain_timestamp(v, out);
	default:
		return false;
	}
}

static void set_error(struct duck_feed_error *e, duckdb_error_type type, const char *msg)
{
	e->type = type;
	snprintf(e->msg, sizeof(e->msg), "%s", msg && *msg ? msg : "unknown DuckDB error");
}

/* DuckDB's own cast of v, for text that is not plainly of the type: the
 * value, or its error. */
static bool cast_value(struct duck_feed *f, struct feed_col *c, const char *v, void *out,
		       struct duck_feed_error *e)
{
	duckdb_result res;
	duckdb_data_chunk chunk;
	bool ok;

	if (!c->cast) {
		char sql[64];

		snprintf(sql, sizeof(sql), "SELECT CAST($1 AS %s)", type_sql(c->type));
		if (duckdb_prepare(f->conn, sql, &c->cast) != DuckDBSuccess) {
			set_error(e, DUCKDB_ERROR_INTERNAL, duckdb_prepare_error(c->cast));
			duckdb_destroy_prepare(&c->cast);
			c->cast = NULL;
			return false;
		}
	}
	if (duckdb_bind_varchar(c->cast, 1, v) != DuckDBSuccess) {
		set_error(e, DUCKDB_ERROR_CONVERSION, "the value is not valid UTF-8");
		return false;
	}
	if (duckdb_execute_prepared(c->cast, &res) != DuckDBSuccess) {
		set_error(e, duckdb_result_error_type(&res), duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		return false;
	}
	chunk = duckdb_fetch_chunk(res);
	ok = chunk && duckdb_data_chunk_get_size(chunk) == 1;
	if (ok)
		memcpy(out, duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 0)),
		       c->width);
	else
		set_error(e, DUCKDB_ERROR_INTERNAL, "the cast returned no value");
	if (chunk)
		duckdb_destroy_data_chunk(&chunk);
	duckdb_destroy_result(&res);
	return ok;
}

static void grow(struct duck_feed *f)
{
	size_t cap = f->cap ? f->cap * 2 : 64;

	for (size_t i = 0; i < f->ncols; i++) {
		struct feed_col *c = &f->cols[i];

		c->data = xreallocarray(c->data, cap, c->width);
		c->nulls = xreallocarray(c->nulls, cap, sizeof(bool));
	}
	f->cap = cap;
}

bool duck_feed_row(struct duck_feed *f, const char *const *values, struct duck_feed_error *e)
{
	if (f->nrows == f->cap)
		grow(f);
	for (size_t i = 0; i < f->ncols; i++) {
		struct feed_col *c = &f->cols[i];
		unsigned char *at = c->data + f->nrows * c->width;
		const char *v = values[i];

		c->nulls[f->nrows] = !v;
		if (!v)
			continue;
		if (c->type == DUCKDB_TYPE_VARCHAR) {
			size_t len = strlen(v);
			char *s;

			if (!utf8_valid(v, len)) {
				set_error(e, DUCKDB_ERROR_CONVERSION,
					  "the value is not valid UTF-8");
				return false;
			}
			s = arena_strndup(f->strings, v, len);
			memcpy(at, &s, sizeof(s));
		} else if (!plain_value(c->type, v, at) && !cast_value(f, c, v, at, e)) {
			return false;
		}
	}
	f->nrows++;
	return true;
}

void duck_feed_clear(struct duck_feed *f)
{
	f->nrows = 0;
	arena_reset(f->strings);
}

bool duck_feed_insert(struct duck_feed *f, struct duck_feed_error *e)
{
	duckdb_result res;
	bool ok = true;

	if (!f->nrows)
		return true;
	if (duckdb_execute_prepared(f->insert, &res) != DuckDBSuccess) {
		set_error(e, duckdb_result_error_type(&res), duckdb_result_error(&res));
		ok = false;
	}
	duckdb_destroy_result(&res);
	duck_feed_clear(f);
	return ok;
}

bool duck_feed_fits(const struct duck_feed *f, const duckdb_type *types, size_t ncols)
{
	if (ncols != f->ncols)
		return false;
	for (size_t i = 0; i < ncols; i++)
		if (types[i] != f->cols[i].type)
			return false;
	return true;
}

/* The table function. Its bind finds the caller's feed by name. */
static void feed_bind(duckdb_bind_info info)
{
	duckdb_value param = duckdb_bind_get_parameter(info, 0);
	char *key = duckdb_get_varchar(param);
	duckdb_client_context ctx;
	struct duck_feed *f;
	idx_t conn_id;

	duckdb_table_function_get_client_context(info, &ctx);
	conn_id = duckdb_client_context_get_connection_id(ctx);
	duckdb_destroy_client_context(&ctx);
	pthread_mutex_lock(&all_lock);
	for (f = all_feeds; f; f = f->next_all)
		if (f->conn_id == conn_id && key && strcmp(f->key, key) == 0)
			break;
	pthread_mutex_unlock(&all_lock);
	duckdb_free(key);
	duckdb_destroy_value(&param);
	if (!f) {
		duckdb_bind_set_error(info, FUNCTION " reads only the rows sluice is inserting");
		return;
	}
	for (size_t i = 0; i < f->ncols; i++) {
		duckdb_logical_type t = duckdb_create_logical_type(f->cols[i].type);
		char name[32];

		snprintf(name, sizeof(name), "c%zu", i);
		duckdb_bind_add_result_column(info, name, t);
		duckdb_destroy_logical_type(&t);
	}
	duckdb_bind_set_bind_data(info, f, NULL);
}

static void feed_init(duckdb_init_info info)
{
	idx_t *at = xcalloc(1, sizeof(*at));

	duckdb_init_set_init_data(info, at, free);
	duckdb_init_set_max_threads(info, 1);
}

static void feed_scan(duckdb_function_info info, duckdb_data_chunk out)
{
	struct duck_feed *f = duckdb_function_get_bind_data(info);
	idx_t *at = duckdb_function_get_init_data(info);
	idx_t n = f->nrows - *at;

	if (n > duckdb_vector_size())
		n = duckdb_vector_size();
	for (size_t i = 0; i < f->ncols; i++) {
		const struct feed_col *c = &f->cols[i];
		duckdb_vector v = duckdb_data_chunk_get_vector(out, i);
		const unsigned char *from = c->data + *at * c->width;
		uint64_t *validity = NULL;

		if (c->type == DUCKDB_TYPE_VARCHAR) {
			for (idx_t r = 0; r < n; r++) {
				const char *s;

				memcpy(&s, from + r * sizeof(s), sizeof(s));
				if (!c->nulls[*at + r])
					duckdb_vector_assign_string_element(v, r, s);
			}
		} else {
			memcpy(duckdb_vector_get_data(v), from, n * c->width);
		}
		for (idx_t r = 0; r < n; r++) {
			if (!c->nulls[*at + r])
				continue;
			if (!validity) {
				duckdb_vector_ensure_validity_writable(v);
				validity = duckdb_vector_get_validity(v);
			}
			duckdb_validity_set_row_invalid(validity, r);
		}
	}
	duckdb_data_chunk_set_size(out, n);
	*at += n;
}

static void register_function(duckdb_connection conn)
{
	duckdb_table_function tf = duckdb_create_table_function();
	duckdb_logical_type text = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);

	duckdb_table_function_set_name(tf, FUNCTION);
	duckdb_table_function_add_parameter(tf, text);
	duckdb_table_function_set_bind(tf, feed_bind);
	duckdb_table_function_set_init(tf, feed_init);
	duckdb_table_function_set_function(tf, feed_scan);
	/* a second connection of the database finds it there already */
	duckdb_register_table_function(conn, tf);
	duckdb_destroy_logical_type(&text);
	duckdb_destroy_table_function(&tf);
}

static bool prepare_insert(struct duck_feed *f, const char *schema, const char *name)
{
	struct buf sql = BUF_INIT;
	bool ok;

	buf_adds(&sql, "INSERT INTO ");
	wh_sql_qualified(&sql, schema, name);
	buf_adds(&sql, " SELECT * FROM " FUNCTION "(");
	buf_add_sql_str(&sql, f->key);
	buf_adds(&sql, ")");
	ok = duckdb_prepare(f->conn, sql.buf, &f->insert) == DuckDBSuccess;
	if (!ok) {
		duckdb_destroy_prepare(&f->insert);
		register_function(f->conn);
		ok = duckdb_prepare(f->conn, sql.buf, &f->insert) == DuckDBSuccess;
	}
	if (!ok)
		duckdb_destroy_prepare(&f->insert);
	buf_release(&sql);
	return ok;
}

struct duck_feed *duck_feed_new(duckdb_connection conn, const char *schema, const char *name,
				const duckdb_type *types, size_t ncols)
{
	struct duck_feed *f = xcalloc(1, sizeof(*f));
	duckdb_client_context ctx;

	f->conn = conn;
	duckdb_connection_get_client_context(conn, &ctx);
	f->conn_id = duckdb_client_context_get_connection_id(ctx);
	duckdb_destroy_client_context(&ctx);
	f->cols = xcalloc(ncols + 1, sizeof(*f->cols));
	f->strings = arena_new(NULL);
	f->ncols = ncols;
	for (size_t i = 0; i < ncols; i++) {
		f->cols[i].type = types[i];
		f->cols[i].width = type_width(types[i]);
	}
	/* in the list before the INSERT is prepared: the prepare binds it */
	pthread_mutex_lock(&all_lock);
	f->key = xmalloc(strlen(schema) + strlen(name) + 32);
	sprintf(f->key, "%llu:%s.%s", ++serial, schema, name);
	f->next_all = all_feeds;
	all_feeds = f;
	pthread_mutex_unlock(&all_lock);
	if (!prepare_insert(f, schema, name)) {
		duck_feed_free(f);
		return NULL;
	}
	return f;
}

void duck_feed_free(struct duck_feed *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&all_lock);
	for (struct duck_feed **p = &all_feeds; *p; p = &(*p)->next_all)
		if (*p == f) {
			*p = f->next_all;
			break;
		}
	pthread_mutex_unlock(&all_lock);
	if (f->insert)
		duckdb_destroy_prepare(&f->insert);
	for (size_t i = 0; i < f->ncols; i++) {
		if (f->cols[i].cast)
			duckdb_destroy_prepare(&f->cols[i].cast);
		free(f->cols[i].data);
		free(f->cols[i].nulls);
	}
	arena_free(f->strings);
	free(f->cols);
	free(f->key);
	free(f);
}
