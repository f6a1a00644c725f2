/*
 * The ledger on a warehouse several processes share (the PostgreSQL
 * server tests/run.sh starts, SLUICE_TEST_PG): advances of different
 * sources, landed by different processes, commit out of sequence order,
 * and a poll still finds every one of them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_pg.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "live/advance.h"
#include "live/ledger.h"
#include "project/project.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <stdlib.h>

struct fx {
	struct arena *a;
	char root[PATH_MAX];
	struct project *p;
	struct wh *w, *other;
	struct sl_err err;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->a = arena_new(NULL);
	fixture_mkdtemp(f->root, "ledger-shared");
	fixture_put(f->root, "sluice.yml",
		    "name: shop\nsources:\n"
		    "  a: {kind: webhook, columns: {id: BIGINT}}\n"
		    "  b: {kind: webhook, columns: {id: BIGINT}}\n");
	fixture_put(f->root, "models/s/a.sql",
		    "@config materialized=incremental, live=true,\n"
		    "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT id, _sluice_seq FROM landing.a\n");
	fixture_put(f->root, "models/s/b.sql",
		    "@config materialized=incremental, live=true,\n"
		    "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT id, _sluice_seq FROM landing.b\n");
	f->p = fixture_load_valid(f->a, f->root);
	f->w = fixture_pg_open();
	f->other = fixture_pg_open();
	assert_int_equal(wh_exec(f->w, "DROP SCHEMA IF EXISTS _sluice CASCADE", &f->err), 0);
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	wh_exec(f->w, "DROP SCHEMA IF EXISTS _sluice CASCADE", NULL);
	wh_close(f->w);
	wh_close(f->other);
	fixture_rmtree(f->root);
	arena_free(f->a);
	free(f);
	return 0;
}

/* Another process records an advance of source with sequence seq. */
static void advance(struct fx *f, const char *source, int64_t seq)
{
	struct live_advance adv = { .seq = seq, .rows = 1 };

	assert_int_equal(wh_begin(f->other, &f->err), 0);
	assert_int_equal(live_advance_record(f->other, source, &adv, units_now_ms(), &f->err), 0);
	assert_int_equal(wh_commit(f->other, &f->err), 0);
}

static void test_out_of_order_commits_are_found(void **state)
{
	struct fx *f = *state;
	struct live_ledger *l = live_ledger_new(f->a, f->p);
	const struct model *b = fixture_model(f->p, "s.b");
	bool moved;

	assert_int_equal(live_ledger_load(l, f->w, &f->err), 0);
	advance(f, "landing.a", 12);
	assert_int_equal(live_ledger_poll(l, f->w, &moved, &f->err), 0);
	assert_true(moved);
	/* sequence 11 was taken before 12, its commit came after */
	advance(f, "landing.b", 11);
	assert_int_equal(live_ledger_poll(l, f->w, &moved, &f->err), 0);
	assert_true(moved);
	assert_true(live_ledger_behind(l, b));
	assert_int_equal(live_ledger_poll(l, f->w, &moved, &f->err), 0);
	assert_false(moved);
	live_ledger_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_out_of_order_commits_are_found, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
