/*
 * A slot's consumer settings from the project (src/pgcdc/pgcdc_cfg.c):
 * every postgres_cdc source naming the slot, in landing-name order, each
 * with its replica_identity; one consumer per slot; a dsn_env that is not
 * set is named.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "core/arena.h"
#include "core/err.h"
#include "live/gate.h"
#include "pgcdc/pgcdc.h"
#include "project/project.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int setup(void **state)
{
	struct fixture_project *f;

	fixture_project_setup(state, "pgcdc-cfg");
	f = *state;
	fixture_put(f->root, "sluice.yml",
		    "name: shop\nsources:\n"
		    "  orders: {kind: postgres_cdc, dsn_env: SHOP_SRC, slot: a, publication: p}\n"
		    "  hooks: {kind: webhook}\n"
		    "  items: {kind: postgres_cdc, dsn_env: SHOP_SRC, slot: a, publication: p, "
		    "table: public.order_items, replica_identity: full}\n"
		    "  users: {kind: postgres_cdc, dsn_env: SHOP_SRC, slot: b, publication: q}\n");
	fixture_put(f->root, "models/s/m.sql", "SELECT 1 AS x\n");
	f->p = fixture_load_valid(f->a, f->root);
	return 0;
}

static void test_sources_of_a_slot(void **state)
{
	struct fixture_project *f = *state;
	const struct project_cfg *cfg = &f->p->cfg;
	struct sl_err err = SL_ERR_INIT;
	struct pgcdc_cfg c;

	setenv("SHOP_SRC", "host=/nowhere dbname=shop", 1);
	assert_int_equal(pgcdc_cfg_of(f->a, f->p, &cfg->sources[0], &c, &err), 0);
	assert_string_equal(c.slot, "a");
	assert_string_equal(c.publication, "p");
	assert_string_equal(c.dsn, "host=/nowhere dbname=shop");
	assert_string_equal(c.setting, "sources.orders");
	assert_int_equal(c.ntables, 2);
	assert_string_equal(c.tables[0].landing, "landing.items");
	assert_string_equal(c.tables[0].source, "public.order_items");
	assert_string_equal(c.tables[1].landing, "landing.orders");
	assert_string_equal(c.tables[1].source, "public.orders");
	/* replica_identity: full, per table, with the setting errors name */
	assert_true(c.tables[0].full_identity);
	assert_string_equal(c.tables[0].setting, "sources.items");
	assert_false(c.tables[1].full_identity);
	/* one consumer per slot: the first source of each */
	assert_true(pgcdc_first_of_slot(cfg, 0));
	assert_false(pgcdc_first_of_slot(cfg, 1));
	assert_false(pgcdc_first_of_slot(cfg, 2));
	assert_true(pgcdc_first_of_slot(cfg, 3));
}

/* The gate is wanted where a live model reads two tables of one slot
 * through two of its inputs: here gold.check joins silver.o and silver.i,
 * over the tables of slot a; slot b has one table. */
static void test_gate_wanted(void **state)
{
	struct fixture_project *f = *state;
	const char *live = "@config materialized=incremental, live=true, "
			   "incremental_filter=WHERE _sluice_seq > {watermark}\n";
	struct project *p;

	assert_false(live_gate_wanted(f->a, f->p, "a"));
	fixture_put(f->root, "models/silver/o.sql",
		    arena_sprintf(f->a, "%sSELECT payload, _sluice_seq FROM landing.orders\n", live));
	fixture_put(f->root, "models/silver/i.sql",
		    arena_sprintf(f->a, "%sSELECT payload, _sluice_seq FROM landing.items\n", live));
	fixture_put(f->root, "models/silver/u.sql",
		    arena_sprintf(f->a, "%sSELECT payload, _sluice_seq FROM landing.users\n", live));
	p = fixture_load_valid(f->a, f->root);
	assert_false(live_gate_wanted(f->a, p, "a"));
	assert_false(live_gate_any(f->a, p));
	fixture_put(f->root, "models/gold/check.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append, "
		    "incremental_filter=WHERE o._sluice_seq > {watermark:silver.o}\n"
		    "SELECT o.payload, o._sluice_seq FROM silver.o AS o JOIN silver.i AS i ON "
		    "i._sluice_seq = o._sluice_seq JOIN silver.u AS u ON u._sluice_seq = "
		    "o._sluice_seq\n");
	p = fixture_load_valid(f->a, f->root);
	assert_true(live_gate_wanted(f->a, p, "a"));
	assert_false(live_gate_wanted(f->a, p, "b"));
	assert_true(live_gate_any(f->a, p));

	/* one input reaching both tables (a view over them) beside another
	 * reaching one of them */
	unlink(arena_sprintf(f->a, "%s/models/gold/check.sql", f->root));
	fixture_put(f->root, "models/silver/both.sql",
		    "@config materialized=view\n"
		    "SELECT o.payload, o._sluice_seq FROM landing.orders AS o JOIN landing.items AS i "
		    "ON i._sluice_seq = o._sluice_seq\n");
	fixture_put(f->root, "models/gold/check.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append, "
		    "incremental_filter=WHERE o._sluice_seq > {watermark:silver.o}\n"
		    "SELECT o.payload, o._sluice_seq FROM silver.o AS o JOIN silver.both AS b ON "
		    "b._sluice_seq = o._sluice_seq\n");
	p = fixture_load_valid(f->a, f->root);
	assert_true(live_gate_wanted(f->a, p, "a"));
}

static void test_unset_dsn_is_named(void **state)
{
	struct fixture_project *f = *state;
	const struct project_cfg *cfg = &f->p->cfg;
	struct sl_err err = SL_ERR_INIT;
	struct pgcdc_cfg c;

	unsetenv("SHOP_SRC");
	assert_int_equal(pgcdc_cfg_of(f->a, f->p, &cfg->sources[3], &c, &err), SL_E_CONFIG);
	assert_non_null(strstr(err.msg, "SHOP_SRC is not set (sources.users.dsn_env names it)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gate_wanted, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_sources_of_a_slot, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_unset_dsn_is_named, setup,
						fixture_project_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
