/*
 * Claims of live model groups (src/live/claims.c) among runners sharing a
 * PostgreSQL warehouse (SLUICE_TEST_PG, which tests/run.sh starts; each
 * claims object stands for a runner of its own): groups follow live
 * inputs; one runner alone takes every group; runners that join get their
 * share and no group is held twice; a runner that stops renewing loses its
 * groups to the others once the lease lapses; one that stops gives them up
 * at once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_project_wh.h"
#include "fixture_pg.h"

#include "core/arena.h"
#include "core/err.h"
#include "live/claims.h"
#include "project/project.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

#define LIVE                                                                               \
	"@config materialized=incremental, live=true,\n"                                   \
	"        incremental_filter=WHERE _sluice_seq > {watermark}\n"

/* A chain of three live models, a live model of its own reading landing,
 * and a batch model: two groups. A lease of 150 ms, kept every 50 ms. */
static int setup(void **state)
{
	struct fx *f = fx_new("live-claims");

	fixture_put(f->root, "sluice.yml",
		    "name: shop\nlive: {poll_interval: 300ms}\nsources:\n"
		    "  orders: {kind: webhook, columns: {order_id: BIGINT}}\n");
	fixture_put(f->root, "models/bronze/orders.sql",
		    LIVE "SELECT order_id, _sluice_seq FROM landing.orders\n");
	fixture_put(f->root, "models/silver/orders.sql",
		    LIVE "SELECT * FROM bronze.orders\n");
	fixture_put(f->root, "models/gold/orders.sql",
		    LIVE "SELECT * FROM silver.orders\n");
	fixture_put(f->root, "models/audit/orders.sql",
		    LIVE "SELECT order_id, _sluice_seq FROM landing.orders\n");
	fixture_put(f->root, "models/gold/summary.sql", "SELECT count(*) AS n FROM gold.orders\n");
	f->p = fixture_load_valid(f->a, f->root);
	f->w = fixture_pg_open();
	assert_int_equal(wh_exec(f->w, "DROP SCHEMA IF EXISTS _sluice CASCADE", &f->err), 0);
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	wh_exec(f->w, "DROP SCHEMA IF EXISTS _sluice CASCADE", NULL);
	fx_free(f);
	return 0;
}

static const struct model *model(struct fx *f, const char *fqn)
{
	return fixture_model(f->p, fqn);
}

/* How many of the two groups c holds. */
static int holds(struct fx *f, const struct live_claims *c)
{
	return live_claims_holds(c, model(f, "bronze.orders")) +
	       live_claims_holds(c, model(f, "audit.orders"));
}

static bool keep(struct fx *f, struct live_claims *c)
{
	bool gained;

	assert_int_equal(live_claims_keep(c, f->w, &gained, &f->err), 0);
	return gained;
}

static void test_groups_follow_live_inputs(void **state)
{
	struct fx *f = *state;
	struct live_claims *c = live_claims_new(f->a, f->p, "a:1");

	assert_string_equal(live_claims_group(c, model(f, "gold.orders")), "bronze.orders");
	assert_string_equal(live_claims_group(c, model(f, "silver.orders")), "bronze.orders");
	assert_string_equal(live_claims_group(c, model(f, "audit.orders")), "audit.orders");
	assert_null(live_claims_group(c, model(f, "gold.summary")));
	assert_string_equal(live_claims_runner(c), "a:1");
	live_claims_free(c);
}

static void test_alone_takes_everything(void **state)
{
	struct fx *f = *state;
	struct live_claims *c = live_claims_new(f->a, f->p, "a:1");

	assert_int_equal(holds(f, c), 0);
	assert_true(keep(f, c));
	assert_int_equal(holds(f, c), 2);
	/* a whole group at once */
	assert_true(live_claims_holds(c, model(f, "gold.orders")));
	assert_false(live_claims_holds(c, model(f, "gold.summary")));
	/* kept again within the period: nothing asked, nothing gained */
	assert_false(keep(f, c));
	live_claims_free(c);
}

static void test_runners_share_and_never_both_hold(void **state)
{
	struct fx *f = *state;
	struct live_claims *a = live_claims_new(f->a, f->p, "a:1");
	struct live_claims *b = live_claims_new(f->a, f->p, "b:2");

	keep(f, a);
	assert_int_equal(holds(f, a), 2);
	/* b joins: nothing is free yet */
	assert_false(keep(f, b));
	assert_int_equal(holds(f, b), 0);
	/* a sees b and lets its surplus go; b takes it */
	for (int i = 0; i < 10 && holds(f, b) < 1; i++) {
		sleep_ms(60);
		keep(f, a);
		keep(f, b);
		assert_false(live_claims_holds(a, model(f, "audit.orders")) &&
			     live_claims_holds(b, model(f, "audit.orders")));
		assert_false(live_claims_holds(a, model(f, "bronze.orders")) &&
			     live_claims_holds(b, model(f, "bronze.orders")));
	}
	assert_int_equal(holds(f, a), 1);
	assert_int_equal(holds(f, b), 1);
	live_claims_free(a);
	live_claims_free(b);
}

static void test_lapsed_lease_is_taken_over(void **state)
{
	struct fx *f = *state;
	struct live_claims *a = live_claims_new(f->a, f->p, "a:1");
	struct live_claims *b = live_claims_new(f->a, f->p, "b:2");

	keep(f, a);
	keep(f, b);
	assert_int_equal(holds(f, b), 0);
	/* a stops renewing, as a runner killed would: its own view lapses
	 * with the lease, and b takes the groups within poll_interval */
	sleep_ms(160);
	assert_int_equal(holds(f, a), 0);
	sleep_ms(100);
	assert_true(keep(f, b));
	assert_int_equal(holds(f, b), 2);
	/* a comes back: it gets its share again only as b lets go */
	keep(f, a);
	assert_true(holds(f, a) + holds(f, b) <= 2);
	live_claims_free(a);
	live_claims_free(b);
}

static void test_release_gives_up_at_once(void **state)
{
	struct fx *f = *state;
	struct live_claims *a = live_claims_new(f->a, f->p, "a:1");
	struct live_claims *b = live_claims_new(f->a, f->p, "b:2");

	keep(f, a);
	assert_int_equal(live_claims_release(a, f->w, &f->err), 0);
	assert_int_equal(holds(f, a), 0);
	/* no lease to wait for */
	assert_true(keep(f, b));
	assert_int_equal(holds(f, b), 2);
	live_claims_free(a);
	live_claims_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_groups_follow_live_inputs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alone_takes_everything, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runners_share_and_never_both_hold, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lapsed_lease_is_taken_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_gives_up_at_once, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
