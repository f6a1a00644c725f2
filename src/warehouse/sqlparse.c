/*
 * SQL parsing through DuckDB's json_serialize_sql on an in-memory database
 * with one prepared statement, reused for every query. Must never run the
 * SQL it is given.
 */
#include "warehouse/sqlparse.h"

#include "core/err.h"
#include "core/xalloc.h"
#include "warehouse/duckdb_text.h"
#include "warehouse/text_cache.h"

#include <ctype.h>
#include <duckdb.h>
#include <jansson.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct sqlparse {
	duckdb_database db;
	duckdb_connection conn;
	duckdb_prepared_statement stmt;
	struct text_cache *cache; /* NULL: every query is parsed */
	struct text_cache *derived; /* NULL: nothing derived is kept */
};

/* The function catalog's aggregates and volatile functions, lowercase and
 * sorted, read once, when first asked for: the catalog is DuckDB's own,
 * the same for every parser of the process, and never freed. A command
 * whose models' readings are all kept (refs.c) never asks. */
struct names {
	char **v;
	size_t n;
};

static struct {
	pthread_mutex_t mu;
	bool loaded;
	struct names aggregates, volatiles;
} catalog = { .mu = PTHREAD_MUTEX_INITIALIZER };

static char *first_text(duckdb_result *res);

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The comma-separated names of list, sorted. */
static void split_names(char *list, struct names *out)
{
	char *save = NULL;

	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
		out->v[out->n++] = xstrdup(t);
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_name);
}

/* One pass over the catalog of a database of its own (about 15 ms): the
 * aggregates, then '|', then the volatile functions. Called with
 * catalog.mu held. */
static void load_catalog(void)
{
	duckdb_database db = NULL;
	duckdb_connection conn = NULL;
	duckdb_result res;
	char *text = NULL, *bar;

	if (catalog.loaded)
		return;
	catalog.loaded = true;
	if (duckdb_open(NULL, &db) != DuckDBSuccess || duckdb_connect(db, &conn) != DuckDBSuccess) {
		duckdb_close(&db);
		return;
	}
	if (duckdb_query(conn,
			 "SELECT coalesce(string_agg(DISTINCT lower(function_name), ',') FILTER "
			 "(WHERE function_type = 'aggregate'), '') || '|' || "
			 "coalesce(string_agg(DISTINCT lower(function_name), ',') FILTER "
			 "(WHERE stability = 'VOLATILE'), '') FROM duckdb_functions()",
			 &res) == DuckDBSuccess)
		text = first_text(&res);
	duckdb_destroy_result(&res);
	duckdb_disconnect(&conn);
	duckdb_close(&db);
	if (text && (bar = strchr(text, '|'))) {
		*bar = '\0';
		split_names(text, &catalog.aggregates);
		split_names(bar + 1, &catalog.volatiles);
	}
	free(text);
}

static const char *find_name(const struct names *set, const char *name)
{
	char low[128], *key = low, **hit;
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	if (name[i])
		return NULL;
	low[i] = '\0';
	hit = set->n ? bsearch(&key, set->v, set->n, sizeof(*set->v), cmp_name) : NULL;
	return hit ? *hit : NULL;
}

const char *sqlparse_aggregate(const char *name)
{
	const char *found;

	pthread_mutex_lock(&catalog.mu);
	load_catalog();
	found = find_name(&catalog.aggregates, name);
	pthread_mutex_unlock(&catalog.mu);
	return found;
}

bool sqlparse_volatile(const char *name)
{
	bool found;

	pthread_mutex_lock(&catalog.mu);
	load_catalog();
	found = find_name(&catalog.volatiles, name) != NULL;
	pthread_mutex_unlock(&catalog.mu);
	return found;
}

int sqlparse_open(struct sqlparse **out, struct sl_err *err)
{
	(void)err;
	*out = xcalloc(1, sizeof(**out));
	return 0;
}

/* The parser's database, opened for the first query not kept: a command
 * whose queries are all in the cache never pays for it. */
static int start(struct sqlparse *p, struct sl_err *err)
{
	duckdb_config config = NULL;
	duckdb_state st;

	if (p->stmt)
		return 0;
	/* one thread: each query is one call on one constant, and with worker
	 * threads every execution wakes (and waits for) all of them */
	if (duckdb_create_config(&config) != DuckDBSuccess)
		return sl_err_set(err, SL_E_INTERNAL, "cannot start the SQL parser");
	duckdb_set_config(config, "threads", "1");
	st = duckdb_open_ext(NULL, &p->db, config, NULL);
	duckdb_destroy_config(&config);
	if (st == DuckDBSuccess && duckdb_connect(p->db, &p->conn) == DuckDBSuccess &&
	    duckdb_prepare(p->conn, "SELECT json_serialize_sql(?::VARCHAR)", &p->stmt) ==
		    DuckDBSuccess)
		return 0;
	if (p->stmt)
		duckdb_destroy_prepare(&p->stmt);
	if (p->conn)
		duckdb_disconnect(&p->conn);
	duckdb_close(&p->db);
	p->stmt = NULL;
	return sl_err_set(err, SL_E_INTERNAL, "cannot start the SQL parser");
}

void sqlparse_close(struct sqlparse *p)
{
	if (!p)
		return;
	text_cache_save(p->cache);
	text_cache_save(p->derived);
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

/* The first value of the result's one VARCHAR column, as a string the
 * caller must free(); NULL when there is none. */
static char *first_text(duckdb_result *res)
{
	duckdb_data_chunk chunk = duckdb_fetch_chunk(*res);
	duckdb_vector v;
	uint64_t *valid;
	const char *s;
	char *text = NULL;
	size_t len;

	if (!chunk)
		return NULL;
	v = duckdb_data_chunk_get_vector(chunk, 0);
	valid = duckdb_vector_get_validity(v);
	if (duckdb_data_chunk_get_size(chunk) &&
	    (!valid || duckdb_validity_row_is_valid(valid, 0))) {
		s = duck_text_string(duckdb_vector_get_data(v), &len);
		text = xstrndup(s, len);
	}
	duckdb_destroy_data_chunk(&chunk);
	return text;
}

void sqlparse_use_cache(struct sqlparse *p, const char *path)
{
	text_cache_save(p->cache);
	p->cache = text_cache_load(path, "parse cache", duckdb_library_version(), 0);
}

/* The program's build, as the file it runs from: its size and time. */
static bool build_identity(char *out, size_t len)
{
	struct stat st;

	if (stat("/proc/self/exe", &st) != 0)
		return false;
	snprintf(out, len, "%s %lld.%lld.%09ld", duckdb_library_version(), (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	return true;
}

/* Commands use different parts of what is derived (validate a model's
 * tables, lineage its columns): a text is kept through this many commands
 * that do not use it. */
#define DERIVED_KEPT_UNUSED 16

void sqlparse_use_derived_cache(struct sqlparse *p, const char *path)
{
	char build[128];

	text_cache_save(p->derived);
	p->derived = build_identity(build, sizeof(build))
			     ? text_cache_load(path, "derived cache", build, DERIVED_KEPT_UNUSED)
			     : NULL;
}

const char *sqlparse_derived_get(struct sqlparse *p, const unsigned char *key)
{
	return p->derived ? text_cache_get(p->derived, key) : NULL;
}

void sqlparse_derived_put(struct sqlparse *p, const unsigned char *key, const char *text)
{
	if (p->derived)
		text_cache_put(p->derived, key, text);
}

int sqlparse_tree(struct sqlparse *p, const char *sql, char **json, long *error_offset,
		  struct sl_err *err)
{
	unsigned char key[SHA256_DIGEST_LENGTH];
	const char *kept;
	duckdb_result res;
	char *text;
	int rc;

	*error_offset = -1;
	*json = NULL;
	if (p->cache) {
		SHA256((const unsigned char *)sql, strlen(sql), key);
		if ((kept = text_cache_get(p->cache, key))) {
			*json = xstrdup(kept);
			return 0;
		}
	}
	rc = start(p, err);
	if (rc)
		return rc;
	duckdb_clear_bindings(p->stmt);
	if (duckdb_bind_varchar(p->stmt, 1, sql) != DuckDBSuccess)
		return sl_err_set(err, SL_E_INTERNAL, "cannot bind SQL text for parsing");
	if (duckdb_execute_prepared(p->stmt, &res) != DuckDBSuccess) {
		rc = sl_err_set(err, SL_E_PARSE, "%s", duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		return rc;
	}
	text = first_text(&res);
	duckdb_destroy_result(&res);
	if (!text)
		return sl_err_set(err, SL_E_INTERNAL, "the SQL parser returned nothing");
	rc = check_error(sql, text, error_offset, err);
	if (rc) {
		free(text);
		return rc;
	}
	if (p->cache)
		text_cache_put(p->cache, key, text);
	*json = text;
	return 0;
}
