/*
 * Unit tests for the maintenance plan of maintained models
 * (src/project/maintain.c): which class a query gets over the input it
 * reads (a landing table only gains rows; a merge model rewrites them; a
 * view cannot be followed), the keys its refreshes find rows by, what
 * blocks a better class and where, and the settings that keep a model out
 * of maintenance or refuse one that would be rebuilt whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "core/arena.h"
#include "core/diag.h"
#include "project/maintain.h"
#include "project/project.h"

#include <stdio.h>
#include <string.h>

static int setup(void **state)
{
	return fixture_project_setup(state, "maintain");
}

#define LIVE "@config materialized=incremental, live=true\n"
#define SILVER                                                                         \
	"@config materialized=incremental, live=true, incremental_strategy=merge, "    \
	"unique_key=order_id, incremental_filter=WHERE _sluice_seq > {watermark}\n"     \
	"SELECT order_id, amount, region, _sluice_seq FROM landing.orders\n"

/* A project of silver.orders (a merge model over landing.orders), a view
 * over it, and gold.m as given. */
static struct project *with_gold(struct fixture_project *f, const char *gold)
{
	fixture_put(f->root, "sluice.yml", "name: maintain\n");
	fixture_put(f->root, "models/silver/orders.sql", SILVER);
	fixture_put(f->root, "models/silver/v.sql",
		    "@config materialized=view\nSELECT * FROM silver.orders\n");
	fixture_put(f->root, "models/gold/m.sql", gold);
	return fixture_load(f->a, f->root);
}

static const struct maint *plan_of(struct fixture_project *f, const char *gold)
{
	struct project *p = with_gold(f, gold);
	struct model *m;

	project_validate(p, NULL, 0);
	if (diag_has_errors(&p->diags)) {
		diag_print(&p->diags, stderr);
		fail_msg("the project has errors");
	}
	m = fixture_model(p, "gold.m");
	assert_true(m->maintained);
	assert_non_null(m->maint);
	return m->maint;
}

static const char *described(struct fixture_project *f, const char *gold)
{
	struct project *p = with_gold(f, gold);

	project_validate(p, NULL, 0);
	return maintain_describe(f->a, fixture_model(p, "gold.m"));
}

/* MIN and MAX count over a landing table, which only gains rows, and
 * regroup over a merge model, whose change log takes rows away. */
static void test_input_moves_min_and_max(void **state)
{
	struct fixture_project *f = *state;
	const struct maint *mt;

	mt = plan_of(f, LIVE "SELECT region, max(amount) AS top FROM landing.orders GROUP BY region");
	assert_int_equal(mt->cls, IVM_COUNTED);
	assert_int_equal(mt->in, MAINT_APPENDS);
	assert_null(mt->input);

	mt = plan_of(f, LIVE "SELECT region, max(amount) AS top FROM silver.orders GROUP BY region");
	assert_int_equal(mt->cls, IVM_REGROUP);
	assert_int_equal(mt->in, MAINT_REWRITES);
	assert_string_equal(mt->input->fqn, "silver.orders");
	assert_string_equal(mt->blocker, "max() over input that updates or deletes rows");
	assert_string_equal(described(f, LIVE "SELECT region, max(amount) AS top\n"
					      "FROM silver.orders GROUP BY region"),
			    "regroup: max() over input that updates or deletes rows at "
			    "models/gold/m.sql:2:16");
}

/* The output keys become the model's unique key; each is found in an
 * input row by its item's expression when FROM names the input. */
static void test_keys(void **state)
{
	struct fixture_project *f = *state;
	struct project *p;
	const struct model *m;
	const struct maint *mt;

	mt = plan_of(f, LIVE "SELECT upper(region) AS r, count(*) AS n FROM silver.orders AS o "
			     "GROUP BY upper(region)");
	assert_int_equal(mt->cls, IVM_COUNTED);
	assert_int_equal(mt->nkeys, 1);
	assert_string_equal(mt->keys[0], "r");
	assert_string_equal(mt->key_exprs[0], "upper(region)");

	p = with_gold(f, LIVE "SELECT k, count(*) AS n FROM (SELECT region AS k FROM silver.orders) "
			      "AS s GROUP BY k");
	project_validate(p, NULL, 0);
	m = fixture_model(p, "gold.m");
	assert_int_equal(m->nunique_key, 1);
	assert_string_equal(m->unique_key[0], "k");
	assert_null(m->maint->key_exprs[0]);
	assert_int_equal(m->strategy, STRAT_DELETE_INSERT);
}

/* A projection of a merge model is found by that model's key, which it
 * must select; of a landing table, it appends. */
static void test_mapped(void **state)
{
	struct fixture_project *f = *state;
	const struct maint *mt;

	mt = plan_of(f, LIVE "SELECT order_id, amount * 2 AS doubled FROM silver.orders");
	assert_int_equal(mt->cls, IVM_MAPPED);
	assert_int_equal(mt->nkeys, 1);
	assert_string_equal(mt->keys[0], "order_id");

	mt = plan_of(f, LIVE "SELECT * FROM silver.orders WHERE amount > 0");
	assert_int_equal(mt->cls, IVM_MAPPED);
	assert_int_equal(mt->nkeys, 1);

	mt = plan_of(f, LIVE "SELECT region, amount FROM silver.orders");
	assert_int_equal(mt->cls, IVM_FULL);
	assert_string_equal(mt->blocker, "a select list without silver.orders's key order_id");

	mt = plan_of(f, LIVE "SELECT amount FROM landing.orders");
	assert_int_equal(mt->cls, IVM_MAPPED);
	assert_int_equal(mt->in, MAINT_APPENDS);
	assert_int_equal(mt->nkeys, 0);
}

/* What sluice cannot follow is rebuilt whole, and says why and where. */
static void test_full(void **state)
{
	struct fixture_project *f = *state;
	const struct maint *mt;

	mt = plan_of(f, LIVE "SELECT region, count(*) AS n FROM silver.v GROUP BY region");
	assert_int_equal(mt->cls, IVM_FULL);
	assert_string_equal(mt->blocker, "it reads silver.v, a view");
	assert_string_equal(described(f, LIVE "SELECT region, count(*) AS n\nFROM silver.v GROUP BY "
					      "region"),
			    "full: it reads silver.v, a view at models/gold/m.sql:3:6");

	mt = plan_of(f, LIVE "SELECT region, count(*) AS n FROM silver.orders WHERE amount > "
			     "'{env}' GROUP BY region");
	assert_int_equal(mt->cls, IVM_FULL);
	assert_string_equal(mt->blocker,
			    "a placeholder (a maintained model's query is written plain)");

	mt = plan_of(f, LIVE "SELECT o.region, count(*) AS n FROM silver.orders AS o JOIN "
			     "landing.orders AS l USING (order_id) GROUP BY o.region");
	assert_int_equal(mt->cls, IVM_FULL);
	assert_string_equal(mt->blocker, "a join");
	assert_int_equal(mt->nkeys, 0);
}

static bool has_error(struct project *p, const char *text)
{
	for (size_t i = 0; i < p->diags.n; i++)
		if (p->diags.items[i].severity == DIAG_ERROR && strstr(p->diags.items[i].msg, text))
			return true;
	return false;
}

/* ivm=off keeps a plain query out (a live append then needs its filter);
 * ivm=required refuses a query rebuilt whole, at the construct, and one
 * whose refreshes are written by hand. */
static void test_settings(void **state)
{
	struct fixture_project *f = *state;
	struct project *p;

	p = with_gold(f, "@config materialized=incremental, live=true, ivm=off\n"
			 "SELECT region, count(*) AS n FROM silver.orders GROUP BY region");
	project_validate(p, NULL, 0);
	assert_false(fixture_model(p, "gold.m")->maintained);
	assert_true(has_error(p, "a live append model needs incremental_filter"));

	p = with_gold(f, "@config materialized=incremental, live=true, ivm=required\n"
			 "SELECT region, count(*) OVER () AS n FROM silver.orders");
	project_validate(p, NULL, 0);
	assert_true(has_error(p, "cannot be maintained incrementally: a window function (count)"));
	assert_int_equal(p->diags.items[0].line, 2);
	assert_int_equal(p->diags.items[0].col, 16);

	p = with_gold(f, "@config materialized=incremental, live=true, ivm=required, "
			 "incremental_strategy=delete+insert, unique_key=region\n"
			 "SELECT region, count(*) AS n FROM silver.orders GROUP BY region");
	project_validate(p, NULL, 0);
	assert_true(has_error(p, "its settings write it by hand"));

	p = with_gold(f, "@config materialized=incremental, live=true, ivm=required\n"
			 "SELECT region, count(DISTINCT amount) AS n FROM silver.orders GROUP BY "
			 "region");
	project_validate(p, NULL, 0);
	assert_false(diag_has_errors(&p->diags));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_input_moves_min_and_max, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_keys, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_mapped, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_full, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_settings, setup, fixture_project_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
