/*
 * Unit tests for binding a project's queries before anything runs
 * (src/project/bind.c, src/warehouse/sqlbind.c): a column, function or
 * type that does not exist is an error at its file:line:col with the
 * binder's suggestion; models are bound in dependency order over views of
 * the ones they read, seeds by their files and outside tables as the
 * caller describes them; a model that reads a table not known, a model
 * that failed, or holds a placeholder a build fills is not bound, and
 * says nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "project/bind.h"
#include "project/project.h"
#include "warehouse/sqlbind.h"

#include <stdio.h>
#include <string.h>

static int setup(void **state)
{
	return fixture_project_setup(state, "bind");
}

/* landing.orders is known (without its amount when ctx says so);
 * nothing else outside the project is. */
static bool outside(void *ctx, const char *schema, const char *name, struct wh_column **cols,
		    size_t *n)
{
	static struct wh_column orders[] = { { "order_id", "BIGINT" },
					     { "region", "VARCHAR" },
					     { "amount", "DECIMAL(12,2)" } };
	static struct wh_column odd[] = { { "x", "NOT_A_TYPE" } };
	const bool *no_amount = ctx;

	/* a table whose type the binder does not know */
	if (strcmp(schema, "landing") == 0 && strcmp(name, "odd") == 0) {
		*cols = odd;
		*n = 1;
		return true;
	}
	if (strcmp(schema, "landing") != 0 || strcmp(name, "orders") != 0)
		return false;
	*cols = orders;
	*n = no_amount && *no_amount ? 2 : 3;
	return true;
}

/* The project bound with the cache at cache (or none), the tables outside
 * it as outside(ctx) says; *ran, when asked, how many queries the binder
 * ran (not kept). */
static size_t bind_with(struct fixture_project *f, struct diag_list *diags, const char *cache,
			void *ctx, size_t *ran)
{
	struct sl_err err = SL_ERR_INIT;
	struct sqlbind *b;
	size_t n;

	f->p = fixture_load_valid(f->a, f->root);
	diag_list_init(diags, f->a);
	if (sqlbind_open(&b, &err))
		fail_msg("%s", err.msg);
	if (cache)
		sqlbind_use_cache(b, cache);
	n = project_bind(f->p, b, outside, ctx, diags);
	if (ran)
		*ran = sqlbind_queries_run(b);
	sqlbind_close(b);
	diag_sort(diags);
	return n;
}

static size_t bind(struct fixture_project *f, struct diag_list *diags)
{
	return bind_with(f, diags, NULL, NULL, NULL);
}

static void test_errors_at_their_place(void **state)
{
	struct fixture_project *f = *state;
	struct diag_list d;

	fixture_put(f->root, "sluice.yml", "name: bind\n");
	fixture_put(f->root, "models/silver/orders.sql",
		    "SELECT order_id, amount, region FROM landing.orders\n");
	fixture_put(f->root, "models/gold/column.sql",
		    "-- a typo in a column\nSELECT region,\n       sum(amout) AS revenue\n"
		    "FROM silver.orders GROUP BY region\n");
	fixture_put(f->root, "models/gold/function.sql",
		    "SELECT summ(amount) AS revenue FROM silver.orders\n");
	fixture_put(f->root, "models/gold/type.sql",
		    "SELECT CAST(amount AS DECIMALL) AS a FROM silver.orders\n");
	assert_int_equal(bind(f, &d), 1);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.items[0].file, "models/gold/column.sql");
	assert_int_equal(d.items[0].line, 3);
	assert_int_equal(d.items[0].col, 12);
	assert_non_null(strstr(d.items[0].msg, "\"amout\" not found"));
	assert_non_null(strstr(d.items[0].msg, "(model 'gold.column')"));
	assert_non_null(strstr(d.items[0].hint, "\"amount\""));
	assert_int_equal(d.items[1].line, 1);
	assert_int_equal(d.items[1].col, 8);
	assert_non_null(strstr(d.items[1].hint, "\"sum\""));
	assert_non_null(strstr(d.items[2].msg, "DECIMALL"));
}

static void test_what_is_not_bound(void **state)
{
	struct fixture_project *f = *state;
	struct diag_list d;

	fixture_put(f->root, "sluice.yml", "name: bind\n");
	fixture_put(f->root, "seeds/regions.csv", "region,manager\neu,Ann\n");
	fixture_put(f->root, "models/silver/joined.sql",
		    "SELECT o.order_id, r.manager FROM landing.orders AS o "
		    "JOIN seeds.regions AS r USING (region)\n");
	/* a table not made yet, a model reading it, a failed model's reader */
	fixture_put(f->root, "models/silver/later.sql", "SELECT nope FROM landing.events\n");
	fixture_put(f->root, "models/gold/after_later.sql", "SELECT nope FROM silver.later\n");
	fixture_put(f->root, "models/gold/broken.sql", "SELECT missing FROM silver.joined\n");
	fixture_put(f->root, "models/gold/after_broken.sql", "SELECT anything FROM gold.broken\n");
	/* placeholders a build fills; {watermark} binds as a number */
	fixture_put(f->root, "models/gold/windowed.sql",
		    "@config materialized=incremental, temporality=temporal, time_column=t, "
		    "grain=1d, start='2026-01-01'\n"
		    "SELECT CAST(NULL AS TIMESTAMP) AS t, nope FROM silver.joined WHERE "
		    "t >= {since} AND t < {until}\n");
	fixture_put(f->root, "models/gold/filtered.sql",
		    "@config materialized=incremental, incremental_filter=WHERE order_id > "
		    "{watermark}\nSELECT order_id FROM silver.joined WHERE order_id > {watermark}\n");
	/* the seed, silver.joined and gold.filtered */
	assert_int_equal(bind(f, &d), 3);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.items[0].file, "models/gold/broken.sql");
}

/* Each model is bound once, however many paths reach it: 24 models that
 * each read the one before twice would bind 2^24 times as views. */
static void test_bound_once_per_model(void **state)
{
	struct fixture_project *f = *state;
	struct diag_list d;

	fixture_put(f->root, "sluice.yml", "name: bind\n");
	fixture_put(f->root, "models/chain/c0.sql", "SELECT 1 AS k, 1 AS x\n");
	for (int i = 1; i <= 24; i++)
		fixture_put(f->root, arena_sprintf(f->a, "models/chain/c%d.sql", i),
			    arena_sprintf(f->a,
					  "SELECT a.k, a.x + b.x AS x FROM chain.c%d AS a "
					  "JOIN chain.c%d AS b USING (k)\n",
					  i - 1, i - 1));
	assert_int_equal(bind(f, &d), 25);
	assert_int_equal(d.n, 0);
}

/* What was bound is kept between processes by the query's text and what
 * it reads: nothing changed, nothing is bound again; an edited model is
 * bound again over the kept columns of what it reads (its errors found
 * there), and so are its readers; a table outside the project that lost
 * a column is found missing by its readers. */
static void test_cache_between_processes(void **state)
{
	struct fixture_project *f = *state;
	const char *cache = arena_sprintf(f->a, "%s/.sluice/bind-cache", f->root);
	bool no_amount = true;
	struct diag_list d;
	size_t ran = 99;

	fixture_put(f->root, "sluice.yml", "name: bind\n");
	fixture_put(f->root, "seeds/regions.csv", "region,manager\neu,Ann\n");
	fixture_put(f->root, "models/silver/orders.sql",
		    "SELECT order_id, region, amount FROM landing.orders\n");
	fixture_put(f->root, "models/gold/by_region.sql",
		    "SELECT o.region, r.manager, sum(o.amount) AS revenue FROM silver.orders AS o "
		    "JOIN seeds.regions AS r USING (region) GROUP BY ALL\n");
	fixture_put(f->root, "models/gold/top.sql",
		    "SELECT region, revenue FROM gold.by_region WHERE revenue > 10\n");
	assert_int_equal(bind_with(f, &d, cache, NULL, &ran), 4);
	assert_int_equal(d.n, 0);
	assert_int_equal(ran, 3);
	assert_int_equal(bind_with(f, &d, cache, NULL, &ran), 4);
	assert_int_equal(d.n, 0);
	assert_int_equal(ran, 0);

	/* a column the kept gold.by_region does not have, others typed there */
	fixture_put(f->root, "models/gold/top.sql",
		    "SELECT region, revenue + 0.001 AS r, manager || '!' AS m, margin "
		    "FROM gold.by_region\n");
	assert_int_equal(bind_with(f, &d, cache, NULL, &ran), 3);
	assert_int_equal(ran, 1);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.items[0].msg, "\"margin\" not found"));
	fixture_put(f->root, "models/gold/top.sql",
		    "SELECT region, revenue + 0.001 AS r, manager || '!' AS m FROM gold.by_region\n");
	assert_int_equal(bind_with(f, &d, cache, NULL, &ran), 4);
	assert_int_equal(d.n, 0);
	assert_int_equal(ran, 1);

	/* silver.orders edited: it and its readers again, not the seed */
	fixture_put(f->root, "models/silver/orders.sql",
		    "SELECT order_id, region, amount, 1 AS one FROM landing.orders\n");
	assert_int_equal(bind_with(f, &d, cache, NULL, &ran), 4);
	assert_int_equal(ran, 3);

	assert_int_equal(bind_with(f, &d, cache, &no_amount, &ran), 1);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.items[0].file, "models/silver/orders.sql");
	assert_non_null(strstr(d.items[0].msg, "\"amount\" not found"));
}

/* A model whose input cannot be made in the binder is not bound and
 * says nothing; the next model of its schema is bound all the same. */
static void test_input_not_made(void **state)
{
	struct fixture_project *f = *state;
	struct diag_list d;

	fixture_put(f->root, "sluice.yml", "name: bind\n");
	fixture_put(f->root, "models/analytics/a.sql", "SELECT x FROM landing.odd\n");
	fixture_put(f->root, "models/analytics/b.sql", "SELECT 1 AS one\n");
	assert_int_equal(bind(f, &d), 1);
	assert_int_equal(d.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_errors_at_their_place, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_what_is_not_bound, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_bound_once_per_model, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_cache_between_processes, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_input_not_made, setup,
						fixture_project_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
