/*
 * Unit tests for the build steps on an in-memory DuckDB: the failing-rows
 * queries of every @assert kind (src/exec/assert.c), materializations
 * written and published (src/exec/materialize.c), and the _sluice state
 * schema with its version check (src/state/state.c). Models are built by
 * hand; placeholders come from the real scanner.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_wh.h"

#include "exec/assert.h"
#include "exec/materialize.h"
#include "state/state.h"
#include "state/windows.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/units.h"
#include "project/model.h"
#include "project/refs.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_TS "2024-05-01 12:00:00.000"

static const char *kind_of(struct fixture_db *f, const char *schema, const char *name)
{
	const char *kind = "unset";

	if (wh_relation_kind(f->w, f->a, schema, name, &kind, &f->err))
		fail_msg("%s", f->err.msg);
	return kind;
}

/* ---- @assert ---- */

static void make_checked_table(struct fixture_db *f)
{
	exec(f->w, "CREATE SCHEMA silver;\n"
		   "CREATE TABLE silver.customers AS SELECT * FROM (VALUES (100), (101)) c(id);\n"
		   "CREATE TABLE silver.t AS SELECT * FROM (VALUES\n"
		   "  (1, 'eu', 10, 100),\n"
		   "  (2, 'us', -5, 101),\n"
		   "  (2, 'eu', 3, NULL),\n"
		   "  (NULL, 'xx', 7, 999),\n"
		   "  (4, NULL, NULL, 100)) t(id, region, amount, customer_id)");
}

static const char **list(struct fixture_db *f, const char *a, const char *b)
{
	const char **l = arena_alloc(f->a, 3 * sizeof(char *));

	l[0] = a;
	l[1] = b;
	return l;
}

/* Rows the check's failing-rows query returns on silver.t. */
static int64_t failing(struct fixture_db *f, const struct model_assert *c)
{
	struct buf q = BUF_INIT, sql = BUF_INIT;
	int64_t n;

	assert_failing_sql(c, "\"silver\".\"t\"", &q);
	buf_addf(&sql, "SELECT count(*) FROM (%s) AS x", q.buf);
	n = query_int(f->w, sql.buf);
	buf_release(&q);
	buf_release(&sql);
	return n;
}

/* The same for c checking the one column col. */
static int64_t failing_on(struct fixture_db *f, struct model_assert *c, const char *col)
{
	c->cols = list(f, col, NULL);
	return failing(f, c);
}

/* The same for c with the SQL sql. */
static int64_t failing_with(struct fixture_db *f, struct model_assert *c, const char *sql)
{
	c->sql = sql;
	return failing(f, c);
}

/* The failing-rows query of c on silver.t must be want, word for word. */
static void expect_failing_sql(const struct model_assert *c, const char *want)
{
	struct buf q = BUF_INIT;

	assert_failing_sql(c, "\"silver\".\"t\"", &q);
	assert_string_equal(q.buf, want);
	buf_release(&q);
}

static void test_assert_not_null(void **state)
{
	struct fixture_db *f = *state;
	struct model_assert c = { .kind = ASSERT_NOT_NULL, .ncols = 1 };

	make_checked_table(f);
	c.cols = list(f, "id", NULL);
	expect_failing_sql(&c, "SELECT * FROM \"silver\".\"t\" WHERE id IS NULL");
	assert_int_equal(failing(f, &c), 1);
	assert_int_equal(failing_on(f, &c, "region"), 1);
	assert_int_equal(failing_on(f, &c, "amount + 0"), 1);
}

static void test_assert_unique(void **state)
{
	struct fixture_db *f = *state;
	struct model_assert c = { .kind = ASSERT_UNIQUE, .ncols = 1 };

	make_checked_table(f);
	c.cols = list(f, "id", NULL);
	/* one failing row per duplicated key, not per duplicate */
	assert_int_equal(failing(f, &c), 1);
	c.cols = list(f, "id", "region");
	c.ncols = 2;
	assert_int_equal(failing(f, &c), 0);
	c.cols = list(f, "customer_id", NULL);
	c.ncols = 1;
	assert_int_equal(failing(f, &c), 1);
	assert_int_equal(failing_on(f, &c, "lower(region)"), 1);
}

static void test_assert_accepted_values(void **state)
{
	struct fixture_db *f = *state;
	struct model_assert c = { .kind = ASSERT_ACCEPTED_VALUES, .ncols = 1 };

	make_checked_table(f);
	c.cols = list(f, "region", NULL);
	c.values = list(f, "'eu'", "'us'");
	c.nvalues = 2;
	expect_failing_sql(&c, "SELECT * FROM \"silver\".\"t\" WHERE region NOT IN ('eu', 'us')");
	/* 'xx' fails; NULL passes */
	assert_int_equal(failing(f, &c), 1);
	c.cols = list(f, "id", NULL);
	c.values = list(f, "1", "2");
	assert_int_equal(failing(f, &c), 1);
}

static void test_assert_relationships(void **state)
{
	struct fixture_db *f = *state;
	struct model_assert c = { .kind = ASSERT_RELATIONSHIPS, .ncols = 1 };

	make_checked_table(f);
	c.cols = list(f, "customer_id", NULL);
	c.ref_schema = "silver";
	c.ref_name = "customers";
	c.ref_col = "id";
	/* 999 has no customer; NULL is not checked */
	assert_int_equal(failing(f, &c), 1);
	exec(f->w, "INSERT INTO silver.customers VALUES (999)");
	assert_int_equal(failing(f, &c), 0);
}

static void test_assert_expression(void **state)
{
	struct fixture_db *f = *state;
	struct model_assert c = { .kind = ASSERT_EXPRESSION };

	make_checked_table(f);
	c.sql = "amount >= 0";
	expect_failing_sql(&c, "SELECT * FROM \"silver\".\"t\" WHERE NOT (amount >= 0)");
	/* -5 fails; NULL amount is not false */
	assert_int_equal(failing(f, &c), 1);
	assert_int_equal(failing_with(f, &c, "amount >= 0 OR region = 'us'"), 0);
	assert_int_equal(failing_with(f, &c, "amount <= (SELECT max(amount) FROM {this})"), 0);
	assert_int_equal(failing_with(f, &c, "amount < (SELECT max(amount) FROM {this})"), 1);
}

static void test_assert_rows(void **state)
{
	struct fixture_db *f = *state;
	struct model_assert c = { .kind = ASSERT_ROWS };

	make_checked_table(f);
	c.sql = "SELECT * FROM {this} WHERE amount > 5";
	expect_failing_sql(&c, "SELECT * FROM \"silver\".\"t\" WHERE amount > 5");
	assert_int_equal(failing(f, &c), 2);
	assert_int_equal(failing_with(f, &c,
				      "SELECT a.id FROM {this} a JOIN {this} b USING (id) "
				      "WHERE a.region <> b.region"),
			 2);
	assert_int_equal(failing_with(f, &c, "SELECT 1 WHERE false"), 0);
}

static void test_assert_run_all(void **state)
{
	struct fixture_db *f = *state;
	struct model m = { .schema = "silver", .name = "t", .fqn = "silver.t",
			   .path = "models/silver/t.sql" };
	struct model_assert checks[4] = {
		{ .kind = ASSERT_NOT_NULL, .ncols = 1, .text = "not_null(id)", .line = 1 },
		{ .kind = ASSERT_EXPRESSION, .warn = true, .sql = "amount >= 0",
		  .text = "amount >= 0", .line = 2 },
		{ .kind = ASSERT_ROWS, .sql = "SELECT * FROM {this} WHERE id > 100",
		  .text = "rows: ...", .line = 3 },
		{ .kind = ASSERT_ROWS, .sql = "SELECT * FROM range(12)", .text = "many", .line = 4 },
	};
	struct assert_result *res = NULL;
	size_t n = 0;

	make_checked_table(f);
	checks[0].cols = list(f, "id", NULL);
	m.asserts = checks;
	m.nasserts = 4;
	assert_int_equal(assert_run_all(f->w, NULL, &m, NULL, "\"silver\".\"t\"", &res, &n, &f->err), 0);
	assert_int_equal(n, 4);
	assert_ptr_equal(res[0].check, &checks[0]);
	assert_int_equal(res[0].failures, 1);
	assert_non_null(res[0].sample);
	assert_int_equal(wh_result_nrows(res[0].sample), 1);
	assert_int_equal(res[1].failures, 1);
	assert_int_equal(res[2].failures, 0);
	assert_null(res[2].sample);
	/* the count is whole, the sample is cut */
	assert_int_equal(res[3].failures, 12);
	assert_int_equal(wh_result_nrows(res[3].sample), ASSERT_SAMPLE);
	/* the warn: check does not count as an error */
	assert_int_equal(assert_errors(res, n), 2);
	assert_results_free(res, n);
	assert_results_free(NULL, 0);
}

static void test_assert_run_all_broken_check(void **state)
{
	struct fixture_db *f = *state;
	struct model m = { .schema = "silver", .name = "t", .fqn = "silver.t",
			   .path = "models/silver/t.sql" };
	struct model_assert checks[2] = {
		{ .kind = ASSERT_EXPRESSION, .sql = "amount >= 0", .text = "amount >= 0", .line = 2 },
		{ .kind = ASSERT_EXPRESSION, .sql = "no_such_column > 0", .text = "no_such_column > 0",
		  .line = 5 },
	};
	struct assert_result *res = NULL;
	size_t n = 0;

	make_checked_table(f);
	m.asserts = checks;
	m.nasserts = 2;
	assert_int_equal(assert_run_all(f->w, NULL, &m, NULL, "\"silver\".\"t\"", &res, &n, &f->err), SL_E_SQL);
	assert_null(res);
	assert_non_null(strstr(f->err.msg, "no_such_column"));
	assert_non_null(strstr(f->err.msg, "\n  in @assert no_such_column > 0 (models/silver/t.sql:5)"));
}

/* ---- materializations ---- */

/* A model built by hand: the fields the loader would fill, and its
 * placeholders scanned. */
static struct model *mk(struct fixture_db *f, const char *schema, const char *name,
			enum model_mat mat, const char *body, const char *filter)
{
	struct model *m = arena_alloc(f->a, sizeof(*m));
	struct diag_list d;

	diag_list_init(&d, f->a);
	m->schema = schema;
	m->name = name;
	m->fqn = arena_sprintf(f->a, "%s.%s", schema, name);
	m->path = arena_sprintf(f->a, "models/%s/%s.sql", schema, name);
	m->mat = mat;
	m->body = body;
	m->body_line = 1;
	m->filter = filter;
	assert_int_equal(refs_scan_placeholders(f->a, m, &d), 0);
	return m;
}

static void set_key(struct fixture_db *f, struct model *m, const char *key)
{
	m->unique_key = list(f, key, NULL);
	m->nunique_key = 1;
}

static int write_publish(struct fixture_db *f, const struct model *m, bool full, int64_t watermark,
			 struct mat_outcome *out)
{
	struct mat_plan plan = { .full = full, .run_ts = RUN_TS };
	int rc;

	plan.ctx.env = "";
	plan.ctx.watermark = watermark;
	rc = materialize_write(f->w, m, &plan, out, &f->err);
	if (!rc)
		rc = materialize_publish(f->w, m, out, &f->err);
	return rc;
}

static void make_source(struct fixture_db *f)
{
	exec(f->w, "CREATE SCHEMA landing;\n"
		   "CREATE TABLE landing.orders (id INTEGER, seq INTEGER, amount INTEGER);\n"
		   "INSERT INTO landing.orders VALUES (1, 1, 10), (2, 2, 20), (3, 3, 30)");
}

/* An incremental silver.NAME over the rows of landing.orders that pass
 * filter, written with strategy. */
static struct model *mk_incremental(struct fixture_db *f, const char *name,
				    enum model_strategy strategy, const char *filter)
{
	struct model *m = mk(f, "silver", name, MAT_INCREMENTAL,
			     "SELECT id, seq, amount FROM landing.orders", filter);

	m->strategy = strategy;
	return m;
}

static void test_materialize_view(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;

	make_source(f);
	m = mk(f, "gold", "v", MAT_VIEW, "SELECT id FROM landing.orders WHERE amount > 15", NULL);
	assert_int_equal(write_publish(f, m, true, 0, &out), 0);
	assert_string_equal(out.action, "created");
	assert_null(out.old_kind);
	assert_false(out.staged);
	assert_string_equal(out.relation, "\"gold\".\"v\"");
	assert_string_equal(kind_of(f, "gold", "v"), "view");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM gold.v"), 2);
	/* a view follows its input */
	exec(f->w, "INSERT INTO landing.orders VALUES (4, 4, 40)");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM gold.v"), 3);
	assert_int_equal(write_publish(f, m, true, 0, &out), 0);
	assert_string_equal(out.action, "replaced");
	assert_string_equal(out.old_kind, "view");
}

static void test_materialize_table(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;
	struct mat_plan plan = { .full = true, .run_ts = RUN_TS };

	make_source(f);
	m = mk(f, "gold", "t", MAT_TABLE, "SELECT id, amount FROM landing.orders", NULL);
	assert_int_equal(materialize_write(f->w, m, &plan, &out, &f->err), 0);
	/* written to staging; the name is not taken yet */
	assert_true(out.staged);
	assert_int_equal(out.rows, 3);
	assert_string_equal(out.relation, "\"gold\".\"t__sluice_new\"");
	assert_string_equal(out.action, "created");
	assert_null(kind_of(f, "gold", "t"));
	assert_string_equal(kind_of(f, "gold", "t__sluice_new"), "table");
	assert_int_equal(materialize_publish(f->w, m, &out, &f->err), 0);
	assert_string_equal(kind_of(f, "gold", "t"), "table");
	assert_null(kind_of(f, "gold", "t__sluice_new"));
	assert_int_equal(query_int(f->w, "SELECT sum(amount) FROM gold.t"), 60);

	/* a rebuild replaces the table whole */
	exec(f->w, "DELETE FROM landing.orders WHERE id = 1");
	assert_int_equal(write_publish(f, m, true, 0, &out), 0);
	assert_string_equal(out.action, "replaced");
	assert_string_equal(out.old_kind, "table");
	assert_int_equal(out.rows, 2);
	assert_int_equal(query_int(f->w, "SELECT sum(amount) FROM gold.t"), 50);
}

static void test_materialize_view_to_table_and_back(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;

	make_source(f);
	m = mk(f, "gold", "x", MAT_VIEW, "SELECT id FROM landing.orders", NULL);
	assert_int_equal(write_publish(f, m, true, 0, &out), 0);
	m->mat = MAT_TABLE;
	assert_int_equal(write_publish(f, m, true, 0, &out), 0);
	assert_string_equal(out.old_kind, "view");
	assert_string_equal(kind_of(f, "gold", "x"), "table");
	m->mat = MAT_VIEW;
	assert_int_equal(write_publish(f, m, true, 0, &out), 0);
	assert_string_equal(out.old_kind, "table");
	assert_string_equal(kind_of(f, "gold", "x"), "view");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM gold.x"), 3);
}

static void test_materialize_ephemeral(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;

	m = mk(f, "silver", "e", MAT_EPHEMERAL, "SELECT 1 AS x", NULL);
	assert_int_equal(write_publish(f, m, true, 0, &out), 0);
	assert_string_equal(out.action, "inlined");
	assert_null(kind_of(f, "silver", "e"));
}

static void test_materialize_append(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;

	make_source(f);
	m = mk_incremental(f, "events", STRAT_APPEND, "WHERE seq > {watermark}");
	/* the first build is a full one, through the filter ({watermark} = 0) */
	assert_int_equal(write_publish(f, m, false, 0, &out), 0);
	assert_string_equal(out.action, "created");
	assert_int_equal(out.rows, 3);
	exec(f->w, "INSERT INTO landing.orders VALUES (4, 4, 40), (5, 5, 50)");
	assert_int_equal(write_publish(f, m, false, 3, &out), 0);
	assert_string_equal(out.action, "appended");
	assert_int_equal(out.rows, 2);
	assert_false(out.staged);
	assert_string_equal(out.relation, "\"silver\".\"events\"");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.events"), 5);
	/* nothing new: nothing appended */
	assert_int_equal(write_publish(f, m, false, 5, &out), 0);
	assert_int_equal(out.rows, 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.events"), 5);
}

static void test_materialize_append_filter_reads_this(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;

	make_source(f);
	m = mk_incremental(f, "events", STRAT_APPEND,
			   "WHERE seq > (SELECT coalesce(max(seq), 0) FROM {this})");
	/* the first build cannot apply a filter on a table that does not exist */
	assert_int_equal(write_publish(f, m, false, 0, &out), 0);
	assert_int_equal(out.rows, 3);
	exec(f->w, "INSERT INTO landing.orders VALUES (4, 4, 40)");
	assert_int_equal(write_publish(f, m, false, 0, &out), 0);
	assert_int_equal(out.rows, 1);
	assert_int_equal(query_int(f->w, "SELECT max(seq) FROM silver.events"), 4);
}

static void test_materialize_merge(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;

	make_source(f);
	m = mk(f, "silver", "latest", MAT_INCREMENTAL,
	       "SELECT id, max(seq) AS seq, arg_max(amount, seq) AS amount FROM landing.orders "
	       "GROUP BY id",
	       "WHERE seq > {watermark}");
	m->strategy = STRAT_MERGE;
	set_key(f, m, "id");
	assert_int_equal(write_publish(f, m, false, 0, &out), 0);
	exec(f->w, "INSERT INTO landing.orders VALUES (2, 4, 22), (9, 5, 90)");
	assert_int_equal(write_publish(f, m, false, 3, &out), 0);
	assert_string_equal(out.action, "merged");
	assert_int_equal(out.rows, 2);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.latest"), 4);
	assert_int_equal(query_int(f->w, "SELECT amount FROM silver.latest WHERE id = 2"), 22);
	assert_int_equal(query_int(f->w, "SELECT amount FROM silver.latest WHERE id = 1"), 10);
}

/* Changes of several source transactions that landed together share a
 * sequence: a merge keeps each key's latest by place, built from scratch
 * and merged alike. The rows are stored so that the wrong one comes
 * first. */
static void test_materialize_merge_by_place(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;

	exec(f->w, "CREATE SCHEMA landing;\n"
		   "CREATE TABLE landing.ev (id INTEGER, amount INTEGER, _sluice_seq BIGINT, "
		   "_sluice_pos BIGINT);\n"
		   "INSERT INTO landing.ev VALUES (1, 12, 1, 3), (1, 10, 1, 1), (1, 11, 1, 2)");
	m = mk(f, "silver", "latest", MAT_INCREMENTAL,
	       "SELECT id, amount, _sluice_seq, _sluice_pos FROM landing.ev",
	       "WHERE _sluice_seq > {watermark}");
	m->strategy = STRAT_MERGE;
	set_key(f, m, "id");
	assert_int_equal(write_publish(f, m, true, 0, &out), 0);
	assert_int_equal(query_int(f->w, "SELECT amount FROM silver.latest"), 12);
	exec(f->w, "INSERT INTO landing.ev VALUES (1, 23, 2, 2), (1, 24, 2, 3), (1, 21, 2, 1)");
	assert_int_equal(write_publish(f, m, false, 1, &out), 0);
	assert_string_equal(out.action, "merged");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.latest"), 1);
	assert_int_equal(query_int(f->w, "SELECT amount FROM silver.latest"), 24);
}

static void test_materialize_delete_insert(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;

	make_source(f);
	m = mk_incremental(f, "by_id", STRAT_DELETE_INSERT, "WHERE seq > {watermark}");
	set_key(f, m, "id");
	assert_int_equal(write_publish(f, m, false, 0, &out), 0);
	/* two new rows for key 1 replace its old one */
	exec(f->w, "INSERT INTO landing.orders VALUES (1, 4, 11), (1, 5, 12)");
	assert_int_equal(write_publish(f, m, false, 3, &out), 0);
	assert_string_equal(out.action, "replaced keys");
	assert_int_equal(out.rows, 2);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.by_id"), 4);
	assert_int_equal(query_int(f->w, "SELECT sum(amount) FROM silver.by_id WHERE id = 1"), 23);
	/* the temporary batch table is gone */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM duckdb_tables() WHERE table_name = "
					 "'_sluice_batch'"),
			 0);
}

static void test_materialize_full_refresh(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;

	make_source(f);
	m = mk_incremental(f, "events", STRAT_APPEND, "WHERE seq > {watermark}");
	assert_int_equal(write_publish(f, m, false, 0, &out), 0);
	assert_int_equal(write_publish(f, m, false, 0, &out), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.events"), 6);
	assert_int_equal(write_publish(f, m, true, 0, &out), 0);
	assert_string_equal(out.action, "replaced");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.events"), 3);
}

static void test_materialize_seed(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;
	FILE *fp;
	int fd;

	strcpy(f->path, "/tmp/sluice-test-seed-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	fputs("code,name,rank\neu,Europe,1\nus,United States,2\n", fp);
	fclose(fp);
	m = mk(f, "seeds", "regions", MAT_SEED, NULL, NULL);
	m->abspath = f->path;
	assert_int_equal(write_publish(f, m, true, 0, &out), 0);
	assert_int_equal(out.rows, 2);
	assert_string_equal(kind_of(f, "seeds", "regions"), "table");
	assert_int_equal(query_int(f->w, "SELECT sum(rank) FROM seeds.regions"), 3);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM seeds.regions WHERE name = 'United "
					 "States'"),
			 1);
}

static void test_materialize_snapshot(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;
	struct mat_plan plan = { .full = false, .run_ts = "2024-05-02 00:00:00.000" };

	make_source(f);
	m = mk(f, "silver", "hist", MAT_SNAPSHOT, "SELECT id, amount FROM landing.orders", NULL);
	set_key(f, m, "id");
	assert_int_equal(write_publish(f, m, false, 0, &out), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.hist WHERE valid_to IS NULL"),
			 3);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.hist WHERE valid_from = "
					 "TIMESTAMP '" RUN_TS "'"),
			 3);

	/* id 2 changes, id 3 disappears, id 4 arrives */
	exec(f->w, "UPDATE landing.orders SET amount = 21 WHERE id = 2;\n"
		   "DELETE FROM landing.orders WHERE id = 3;\n"
		   "INSERT INTO landing.orders VALUES (4, 4, 40)");
	assert_int_equal(materialize_write(f->w, m, &plan, &out, &f->err), 0);
	assert_int_equal(materialize_publish(f->w, m, &out, &f->err), 0);
	assert_string_equal(out.action, "snapshot");
	/* closed: 2 and 3; added: 2 and 4 */
	assert_int_equal(out.rows, 4);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.hist"), 5);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.hist WHERE valid_to IS NULL"),
			 3);
	assert_int_equal(query_int(f->w,
				   "SELECT amount FROM silver.hist WHERE id = 2 AND valid_to IS "
				   "NULL"),
			 21);
	assert_int_equal(query_int(f->w,
				   "SELECT count(*) FROM silver.hist WHERE id = 3 AND valid_to "
				   "= TIMESTAMP '2024-05-02 00:00:00'"),
			 1);
	/* an unchanged run changes nothing */
	assert_int_equal(materialize_write(f->w, m, &plan, &out, &f->err), 0);
	assert_int_equal(out.rows, 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM silver.hist"), 5);
}

static void test_materialize_sql_error(void **state)
{
	struct fixture_db *f = *state;
	struct model *m;
	struct mat_outcome out;

	m = mk(f, "gold", "broken", MAT_TABLE, "SELECT * FROM no_such_table", NULL);
	assert_int_equal(write_publish(f, m, true, 0, &out), SL_E_SQL);
	assert_non_null(strstr(f->err.msg, "no_such_table"));
	assert_null(kind_of(f, "gold", "broken"));
}

/* ---- state ---- */

static void test_state_ensure_idempotent(void **state)
{
	struct fixture_db *f = *state;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.version"), 1);
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"),
			 STATE_VERSION);
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.version"), 1);
	assert_string_equal(kind_of(f, "_sluice", "models"), "table");
	assert_string_equal(kind_of(f, "_sluice", "run_log"), "table");
}

static void test_state_refuses_newer(void **state)
{
	struct fixture_db *f = *state;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w, "INSERT INTO _sluice.version VALUES (99, 'future sluice', now()::TIMESTAMP)");
	assert_int_equal(state_ensure(f->w, &f->err), SL_E_VERSION);
	assert_int_equal(f->err.code, SL_E_VERSION);
	assert_non_null(strstr(f->err.msg, "newer sluice"));
	assert_non_null(strstr(f->err.msg, "state version 99"));
	assert_non_null(strstr(f->err.msg, "hint: upgrade sluice"));
	/* and leaves the newer version alone */
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"), 99);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.version"), 2);
}

/* Layouts before 16 held the live profiles alone, in a shape of their
 * own. What layouts before 14 lack: the replay tables; before 13: the
 * files ledger; before 12: the shapes; before 11: the models' columns;
 * before 10: the windows; before 9: the CDC table shapes; before 7: the
 * CDC slots; before 6: the runners' claims. */
#define LIVE_PROFILES                                                                             \
	"DROP TABLE _sluice.profile_anomalies; DROP TABLE _sluice.profiles;"                      \
	"DROP SEQUENCE _sluice.profile_ids;"                                                      \
	"CREATE TABLE _sluice.profiles (model VARCHAR NOT NULL, profiled_at TIMESTAMP NOT NULL, " \
	"column_name VARCHAR NOT NULL, rows BIGINT, nulls BIGINT, min_value VARCHAR, max_value "   \
	"VARCHAR);"
#define DROP_SHAPES                                                                               \
	LIVE_PROFILES                                                                             \
	"ALTER TABLE _sluice.live_sources DROP COLUMN boundary;"                                  \
	"ALTER TABLE _sluice.live_sources DROP COLUMN late_rows;"                                 \
	"DROP TABLE _sluice.replay_boundaries; DROP TABLE _sluice.replay_pruned;"                 \
	"DROP TABLE _sluice.landed_files;"                                                        \
	"ALTER TABLE _sluice.models DROP COLUMN shape;"                                           \
	"ALTER TABLE _sluice.models DROP COLUMN column_versions;"
#define DROP_MODEL_COLUMNS DROP_SHAPES "DROP TABLE _sluice.model_columns;"
#define DROP_WINDOWS DROP_MODEL_COLUMNS "DROP TABLE _sluice.windows;"
#define DROP_CDC_RELATIONS DROP_WINDOWS "DROP TABLE _sluice.cdc_relations;"
#define DROP_CDC_SLOTS DROP_CDC_RELATIONS "DROP TABLE _sluice.cdc_slots;"
#define DROP_CLAIMS DROP_CDC_SLOTS "DROP TABLE _sluice.live_runners; DROP TABLE _sluice.live_claims;"

/* A warehouse written by the first layout (batch builds only) gains the
 * live tables and keeps its rows. */
static void test_state_upgrades_older(void **state)
{
	struct fixture_db *f = *state;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w,
	     "ALTER TABLE _sluice.models DROP COLUMN checks;" DROP_CLAIMS
	     "DROP TABLE _sluice.live_sources; DROP TABLE _sluice.live_advances;"
	     "DROP TABLE _sluice.live_consumed; DROP TABLE _sluice.live_state;"
	     "DROP SEQUENCE _sluice.seq; DROP TABLE _sluice.profiles; DROP TABLE "
	     "_sluice.live_covered;"
	     "DROP TABLE _sluice.deliveries;"
	     "DELETE FROM _sluice.version; INSERT INTO _sluice.version VALUES (1, 'old', NULL);"
	     "INSERT INTO _sluice.models VALUES ('s.kept', '', 'h', 'table', '', NULL, 3, 7)");
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.version"), 1);
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"),
			 STATE_VERSION);
	assert_string_equal(kind_of(f, "_sluice", "live_sources"), "table");
	assert_string_equal(kind_of(f, "_sluice", "live_state"), "table");
	assert_string_equal(kind_of(f, "_sluice", "deliveries"), "table");
	assert_int_equal(
		query_int(f->w, "SELECT build_count FROM _sluice.models WHERE name = 's.kept'"), 3);
	assert_int_equal(query_int(f->w, "SELECT nextval('_sluice.seq')"), 1);
	assert_int_equal(query_int(f->w,
				   "SELECT count(*) FROM duckdb_columns() WHERE schema_name = "
				   "'_sluice' AND table_name = 'live_sources' AND column_name = "
				   "'cursor'"),
			 1);
}

/* A warehouse of the layout before cursors gains the column and keeps its
 * sources. */
static void test_state_upgrades_to_cursors(void **state)
{
	struct fixture_db *f = *state;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w,
	     "ALTER TABLE _sluice.models DROP COLUMN checks;" DROP_CLAIMS
	     "ALTER TABLE _sluice.live_sources DROP COLUMN cursor;"
	     "INSERT INTO _sluice.live_sources VALUES ('landing.a', 4, 10, NULL);"
	     "DELETE FROM _sluice.version; INSERT INTO _sluice.version VALUES (3, 'old', NULL)");
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"),
			 STATE_VERSION);
	assert_int_equal(query_int(f->w,
				   "SELECT watermark FROM _sluice.live_sources WHERE cursor IS "
				   "NULL AND source = 'landing.a'"),
			 4);
}

/* A warehouse of the layout before runners shared live models gains the
 * claims and keeps its live state. */
static void test_state_upgrades_to_claims(void **state)
{
	struct fixture_db *f = *state;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w, DROP_CLAIMS
	     "INSERT INTO _sluice.live_sources VALUES ('landing.a', 4, 10, NULL, NULL);"
	     "DELETE FROM _sluice.version; INSERT INTO _sluice.version VALUES (5, 'old', NULL)");
	assert_null(kind_of(f, "_sluice", "live_claims"));
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"),
			 STATE_VERSION);
	assert_string_equal(kind_of(f, "_sluice", "live_claims"), "table");
	assert_string_equal(kind_of(f, "_sluice", "live_runners"), "table");
	assert_int_equal(query_int(f->w, "SELECT watermark FROM _sluice.live_sources"), 4);
}

/* A warehouse of the layout before checks were recorded keeps its models,
 * whose checks are then unknown (NULL): they run once more. */
static void test_state_upgrades_to_checks(void **state)
{
	struct fixture_db *f = *state;
	struct state_model *rows;
	size_t n;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w,
	     "ALTER TABLE _sluice.models DROP COLUMN checks;" DROP_CLAIMS
	     "INSERT INTO _sluice.models VALUES ('s.kept', '', 'h', 'table', '', NULL, 3, 7);"
	     "DELETE FROM _sluice.version; INSERT INTO _sluice.version VALUES (4, 'old', NULL)");
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"),
			 STATE_VERSION);
	assert_int_equal(state_models_load(f->w, f->a, "", &rows, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].build_count, 3);
	assert_null(rows[0].checks);
}

/* A warehouse of the layout before CDC slots gains the table and keeps its
 * live state. */
static void test_state_upgrades_to_cdc_slots(void **state)
{
	struct fixture_db *f = *state;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w, DROP_CDC_SLOTS
	     "INSERT INTO _sluice.live_sources VALUES ('landing.a', 4, 10, NULL, NULL);"
	     "DELETE FROM _sluice.version; INSERT INTO _sluice.version VALUES (6, 'old', NULL)");
	assert_null(kind_of(f, "_sluice", "cdc_slots"));
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"),
			 STATE_VERSION);
	assert_string_equal(kind_of(f, "_sluice", "cdc_slots"), "table");
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.cdc_slots"), 0);
	assert_int_equal(query_int(f->w, "SELECT watermark FROM _sluice.live_sources"), 4);
}

/* A warehouse of the layout before CDC table shapes gains their table and
 * keeps its slots. */
static void test_state_upgrades_to_cdc_relations(void **state)
{
	struct fixture_db *f = *state;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w, DROP_CDC_RELATIONS
	     "INSERT INTO _sluice.cdc_slots VALUES ('s', 10, 20, 'done');"
	     "DELETE FROM _sluice.version; INSERT INTO _sluice.version VALUES (8, 'old', NULL)");
	assert_null(kind_of(f, "_sluice", "cdc_relations"));
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"),
			 STATE_VERSION);
	assert_string_equal(kind_of(f, "_sluice", "cdc_relations"), "table");
	assert_int_equal(query_int(f->w, "SELECT landed_lsn FROM _sluice.cdc_slots"), 10);
}

/* A warehouse of the layout before windows gains their table and keeps
 * its models. */
static void test_state_upgrades_to_windows(void **state)
{
	struct fixture_db *f = *state;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w, DROP_WINDOWS
	     "INSERT INTO _sluice.models VALUES ('s.kept', '', 'h', 'table', '', "
	     "TIMESTAMP '2026-11-05 10:00', 3, 7, NULL);"
	     "DELETE FROM _sluice.version; INSERT INTO _sluice.version VALUES (9, 'old', NULL)");
	assert_null(kind_of(f, "_sluice", "windows"));
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"),
			 STATE_VERSION);
	assert_string_equal(kind_of(f, "_sluice", "windows"), "table");
	assert_int_equal(query_int(f->w, "SELECT build_count FROM _sluice.models"), 3);
	/* a model built before stands as its existence row, applied then */
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.windows WHERE model = "
					 "'s.kept' AND status = 'applied' AND since IS NULL AND "
					 "applied_at = TIMESTAMP '2026-11-05 10:00'"),
			 1);
}

/* Window rows go in as UTC instants and come back the same, one row per
 * model, env and since: writing a window again replaces its row. */
static void test_state_windows(void **state)
{
	struct fixture_db *f = *state;
	struct state_window rows_in[] = {
		{ .model = "gold.daily", .since = 1793491200, .until = 1793577600,
		  .status = WINDOW_APPLIED, .applied_at = 1793836800, .attempts = 1, .grain = "1d" },
		{ .model = "gold.daily", .since = 1793577600, .until = 1793664000,
		  .status = WINDOW_BLOCKED, .reason = "silver.x (encapsulate)", .grain = "1d" },
		{ .model = "gold.it's", .timeless = true, .status = WINDOW_APPLIED,
		  .applied_at = 1793836801, .attempts = 2 },
	};
	struct state_window again = rows_in[1];
	struct state_window *rows = NULL;
	const char *one[] = { "gold.daily" };
	struct buf sql = BUF_INIT;
	size_t n = 0;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	for (size_t i = 0; i < 3; i++)
		state_sql_window(&sql, "", &rows_in[i]);
	again.status = WINDOW_FAILED;
	again.reason = NULL;
	again.error = "boom";
	again.attempts = 4;
	state_sql_window(&sql, "", &again);
	state_sql_window(&sql, "pr1", &rows_in[0]);
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), 0);
	assert_int_equal(state_windows_load(f->w, f->a, "", NULL, 0, &rows, &n, &f->err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(rows[0].model, "gold.daily");
	assert_int_equal(rows[0].since, 1793491200);
	assert_int_equal(rows[0].until, 1793577600);
	assert_int_equal(rows[0].applied_at, 1793836800);
	assert_int_equal(rows[0].status, WINDOW_APPLIED);
	assert_string_equal(rows[0].grain, "1d");
	assert_int_equal(rows[1].status, WINDOW_FAILED);
	assert_string_equal(rows[1].error, "boom");
	assert_null(rows[1].reason);
	assert_int_equal(rows[1].attempts, 4);
	assert_string_equal(rows[2].model, "gold.it's");
	assert_true(rows[2].timeless);
	assert_int_equal(rows[2].applied_at, 1793836801);
	assert_int_equal(state_windows_load(f->w, f->a, "", one, 1, &rows, &n, &f->err), 0);
	assert_int_equal(n, 2);
	/* a range clears only the windows inside it, and only of its env */
	buf_reset(&sql);
	state_sql_windows_drop(&sql, "", "gold.daily", 1793577600, 1793664000, STATE_DROP_OVERLAPPING);
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), 0);
	assert_int_equal(state_windows_load(f->w, f->a, "", one, 1, &rows, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].since, 1793491200);
	assert_int_equal(state_windows_load(f->w, f->a, "pr1", NULL, 0, &rows, &n, &f->err), 0);
	assert_int_equal(n, 1);
	buf_release(&sql);
}

/* A window that did not build replaces the row the run read there, and
 * never a row applied since by another process. */
static void test_state_window_unbuilt(void **state)
{
	struct fixture_db *f = *state;
	struct state_window applied = { .model = "gold.daily", .since = 1793491200,
					 .until = 1793577600, .status = WINDOW_APPLIED,
					 .applied_at = 1793836800, .attempts = 1, .grain = "1d" };
	struct state_window failed = applied, blocked = applied, *rows = NULL;
	struct buf sql = BUF_INIT;
	size_t n = 0;

	failed.status = WINDOW_FAILED;
	failed.applied_at = 0;
	failed.error = "boom";
	blocked.status = WINDOW_BLOCKED;
	blocked.applied_at = 0;
	blocked.reason = "silver.x (encapsulate)";
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	/* none read, none there: written */
	state_sql_window_unbuilt(&sql, "", &blocked, NULL);
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), 0);
	assert_int_equal(state_windows_load(f->w, f->a, "", NULL, 0, &rows, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].status, WINDOW_BLOCKED);
	/* another process applied it since the run read it blocked */
	buf_reset(&sql);
	state_sql_window(&sql, "", &applied);
	state_sql_window_unbuilt(&sql, "", &failed, &blocked);
	state_sql_window_unbuilt(&sql, "", &blocked, NULL);
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), 0);
	assert_int_equal(state_windows_load(f->w, f->a, "", NULL, 0, &rows, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].status, WINDOW_APPLIED);
	assert_int_equal(rows[0].applied_at, 1793836800);
	/* the run read it applied, and its own attempt at it failed */
	buf_reset(&sql);
	state_sql_window_unbuilt(&sql, "", &failed, &applied);
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), 0);
	assert_int_equal(state_windows_load(f->w, f->a, "", NULL, 0, &rows, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].status, WINDOW_FAILED);
	assert_string_equal(rows[0].error, "boom");
	buf_release(&sql);
}

static int record(struct fixture_db *f, const char *env, const struct state_model *row, bool exists)
{
	struct buf sql = BUF_INIT;
	int rc;

	state_sql_model(&sql, env, row, exists);
	rc = wh_exec(f->w, sql.buf, &f->err);
	buf_release(&sql);
	return rc;
}

static void test_state_models(void **state)
{
	struct fixture_db *f = *state;
	struct state_model row = { .name = "silver.orders", .hash = "abc", .materialized = "table",
				   .inputs = "in1", .last_built_at = "2024-05-01 12:00:00.000",
				   .build_count = 1, .data_version = 7 };
	struct state_model *rows = NULL;
	size_t n = 0;
	const struct state_model *s;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(record(f, "", &row, false), 0);
	row.name = "gold.it's";
	row.hash = NULL;
	assert_int_equal(record(f, "", &row, false), 0);
	/* the same name in another environment is another row */
	row.name = "silver.orders";
	row.hash = "other-env";
	assert_int_equal(record(f, "dev", &row, false), 0);
	/* recording again replaces, whether it is known to exist or not */
	row.hash = "xyz";
	assert_int_equal(record(f, "", &row, false), 0);
	row.hash = "def";
	row.build_count = 2;
	row.data_version = 9;
	row.checks = "c1";
	assert_int_equal(record(f, "", &row, true), 0);

	assert_int_equal(state_models_load(f->w, f->a, "", &rows, &n, &f->err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].name, "gold.it's"); /* by name */
	assert_null(rows[0].hash);
	s = state_models_find(rows, n, "silver.orders");
	assert_non_null(s);
	assert_string_equal(s->hash, "def");
	assert_string_equal(s->materialized, "table");
	assert_string_equal(s->inputs, "in1");
	assert_string_equal(s->last_built_at, "2024-05-01 12:00:00");
	assert_int_equal(s->build_count, 2);
	assert_int_equal(s->data_version, 9);
	assert_string_equal(s->checks, "c1");
	assert_null(state_models_find(rows, n, "silver.nope"));

	assert_int_equal(state_models_load(f->w, f->a, "dev", &rows, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].hash, "other-env");
	assert_int_equal(state_models_load(f->w, f->a, "prod", &rows, &n, &f->err), 0);
	assert_int_equal(n, 0);
}

/* One model's row alone, of its environment: what a run reads again after
 * it waited for another process's build of that model. */
static void test_state_one_row(void **state)
{
	struct fixture_db *f = *state;
	struct state_model row = { .name = "silver.orders", .hash = "abc", .materialized = "table",
				   .inputs = "in1", .build_count = 3, .data_version = 9 };
	struct state_model one;
	bool found;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(record(f, "", &row, false), 0);
	row.hash = "other-env";
	assert_int_equal(record(f, "dev", &row, false), 0);
	row.name = "gold.revenue";
	assert_int_equal(record(f, "", &row, false), 0);

	assert_int_equal(state_model_load(f->w, f->a, "", "silver.orders", &one, &found, &f->err),
			 0);
	assert_true(found);
	assert_string_equal(one.name, "silver.orders");
	assert_string_equal(one.hash, "abc");
	assert_string_equal(one.inputs, "in1");
	assert_int_equal(one.build_count, 3);
	assert_int_equal(one.data_version, 9);
	assert_int_equal(state_model_load(f->w, f->a, "dev", "silver.orders", &one, &found,
					  &f->err), 0);
	assert_true(found);
	assert_string_equal(one.hash, "other-env");
	assert_int_equal(state_model_load(f->w, f->a, "dev", "gold.revenue", &one, &found, &f->err),
			 0);
	assert_false(found);
}

/* The cache reads the rows once, then takes each build's row as its own
 * copy. */
static void test_state_cache(void **state)
{
	struct fixture_db *f = *state;
	char inputs[16] = "a@1";
	struct state_model row = { .name = "silver.orders", .hash = "abc", .materialized = "table",
				   .inputs = inputs, .build_count = 1, .data_version = 7 };
	struct state_cache c = { 0 };
	const struct state_model *s;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(record(f, "", &row, false), 0);
	assert_int_equal(state_cache_load(&c, f->w, f->a, "", &f->err), 0);
	assert_true(c.loaded);
	assert_int_equal(c.n, 1);
	row.build_count = 2;
	snprintf(inputs, sizeof(inputs), "a@2");
	state_cache_put(&c, &row);
	snprintf(inputs, sizeof(inputs), "changed");
	row.name = "gold.totals";
	state_cache_put(&c, &row);
	assert_int_equal(c.n, 2);
	s = state_models_find(c.rows, c.n, "silver.orders");
	assert_non_null(s);
	assert_int_equal(s->build_count, 2);
	assert_string_equal(s->inputs, "a@2");
	assert_null(s->last_built_at);
	assert_string_equal(state_models_find(c.rows, c.n, "gold.totals")->inputs, "changed");
	state_cache_free(&c);
	assert_false(c.loaded);
	assert_int_equal(c.n, 0);
}

static void test_state_runs(void **state)
{
	struct fixture_db *f = *state;
	int64_t a = 0, b = 0;
	struct state_run_row row = { .model = "silver.orders", .run_type = "batch",
				     .status = "ok", .message = NULL, .started_ms = 1700000000000LL,
				     .finished_ms = 1700000001500LL, .rows = 12 };
	struct wh_result *r;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(state_run_begin(f->w, &a, &f->err), 0);
	assert_int_equal(state_run_begin(f->w, &b, &f->err), 0);
	assert_true(b > a);
	row.run_id = b;
	assert_int_equal(state_run_log(f->w, &row, &f->err), 0);
	row.message = "it's broken";
	row.status = "failed";
	assert_int_equal(state_run_log(f->w, &row, &f->err), 0);
	assert_int_equal(wh_query(f->w,
				  "SELECT run_id, model, env, status, rows, duration_ms, message, "
				  "CAST(started_at AS VARCHAR) FROM _sluice.run_log ORDER BY status DESC",
				  &r, &f->err),
			 0);
	assert_int_equal(wh_result_nrows(r), 2);
	assert_int_equal(strtoll(wh_result_value(r, 0, 0), NULL, 10), b);
	assert_string_equal(wh_result_value(r, 0, 1), "silver.orders");
	assert_string_equal(wh_result_value(r, 0, 2), "");
	assert_string_equal(wh_result_value(r, 0, 3), "ok");
	assert_string_equal(wh_result_value(r, 0, 4), "12");
	assert_string_equal(wh_result_value(r, 0, 5), "1500");
	assert_null(wh_result_value(r, 0, 6));
	assert_string_equal(wh_result_value(r, 0, 7), "2023-11-14 22:13:20");
	assert_string_equal(wh_result_value(r, 1, 6), "it's broken");
	wh_result_free(r);
}

static void test_units_format_ts(void **state)
{
	char out[32];

	(void)state;
	units_format_ts(0, out, sizeof(out));
	assert_string_equal(out, "1970-01-01 00:00:00.000");
	units_format_ts(1700000000123LL, out, sizeof(out));
	assert_string_equal(out, "2023-11-14 22:13:20.123");
	units_format_ts(951782400999LL, out, sizeof(out)); /* a leap day */
	assert_string_equal(out, "2000-02-29 00:00:00.999");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_db_setup, fixture_db_teardown)
		T(test_assert_not_null),
		T(test_assert_unique),
		T(test_assert_accepted_values),
		T(test_assert_relationships),
		T(test_assert_expression),
		T(test_assert_rows),
		T(test_assert_run_all),
		T(test_assert_run_all_broken_check),
		T(test_materialize_view),
		T(test_materialize_table),
		T(test_materialize_view_to_table_and_back),
		T(test_materialize_ephemeral),
		T(test_materialize_append),
		T(test_materialize_append_filter_reads_this),
		T(test_materialize_merge),
		T(test_materialize_merge_by_place),
		T(test_materialize_delete_insert),
		T(test_materialize_full_refresh),
		T(test_materialize_seed),
		T(test_materialize_snapshot),
		T(test_materialize_sql_error),
		T(test_state_ensure_idempotent),
		T(test_state_refuses_newer),
		T(test_state_upgrades_older),
		T(test_state_upgrades_to_cursors),
		T(test_state_upgrades_to_claims),
		T(test_state_upgrades_to_cdc_slots),
		T(test_state_upgrades_to_cdc_relations),
		T(test_state_upgrades_to_windows),
		T(test_state_windows),
		T(test_state_window_unbuilt),
		T(test_state_upgrades_to_checks),
		T(test_state_models),
		T(test_state_one_row),
		T(test_state_cache),
		T(test_state_runs),
		T(test_units_format_ts),
#undef T
	};

	return cmocka_run_group_tests(tests, fixture_db_group_setup, fixture_db_group_teardown);
}
