/*
 * Unit tests for plans (src/plan/plan.c) on a small project written to a
 * temporary folder, with state rows made up in memory: what each model
 * needs and why, how a planned build reaches its readers, checks alone,
 * held models, and a decision taken again on the versions a run produced.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "plan/columns.h"
#include "plan/plan.h"
#include "project/dag.h"
#include "state/state.h"

static int setup(void **state)
{
	struct fixture_project *f;

	fixture_project_setup(state, "plan");
	f = *state;
	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "seeds/codes.csv", "id\n1\n");
	fixture_put(f->root, "models/silver/a.sql",
		    "@config materialized=table\nSELECT id FROM seeds.codes\n");
	fixture_put(f->root, "models/silver/e.sql",
		    "@config materialized=ephemeral\nSELECT id FROM silver.a\n");
	fixture_put(f->root, "models/silver/v.sql",
		    "@config materialized=view\n@assert not_null(id)\nSELECT id FROM silver.e\n");
	fixture_put(f->root, "models/gold/b.sql",
		    "@config materialized=table\nSELECT count(*) AS n FROM silver.v\n");
	return 0;
}

static struct project *load(struct fixture_project *f)
{
	arena_reset(f->a);
	f->p = fixture_load_valid(f->a, f->root);
	if (dag_build(f->p, NULL, 0))
		fail_msg("the project's graph did not build");
	return f->p;
}

/* Every relation the models make, as a warehouse after a run holds them. */
static const char *const built[] = { "gold.b", "seeds.codes", "silver.a", "silver.v" };

/* State rows as a run that built every model at version 1 leaves them. */
static struct state_model *rows_built(struct fixture_project *f, struct plan_facts *facts)
{
	struct project *p = f->p;
	struct state_model *rows = arena_alloc(f->a, (p->nmodels + 1) * sizeof(*rows));
	int64_t *version;

	facts->state = rows;
	facts->nstate = 0;
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];

		if (m->mat == MAT_EPHEMERAL)
			continue;
		rows[facts->nstate++] = (struct state_model){
			.name = m->fqn,
			.hash = m->recorded_hash,
			.materialized = model_mat_name(m->mat),
			.data_version = 1,
			.checks = m->checks_hash,
		};
	}
	version = plan_versions(f->a, facts);
	for (size_t i = 0; i < p->nmodels; i++)
		plan_pass_through(p->models[i], version, 1);
	for (size_t i = 0, k = 0; i < p->nmodels; i++)
		if (p->models[i]->mat != MAT_EPHEMERAL)
			rows[k++].inputs = plan_signature(f->a, facts, p->models[i], version);
	return rows;
}

static struct plan_facts facts_of(struct project *p)
{
	return (struct plan_facts){ .p = p, .relations = built, .nrelations = 4 };
}

static bool *all(struct fixture_project *f)
{
	bool *selected = arena_alloc(f->a, (f->p->nmodels + 1) * sizeof(bool));

	for (size_t i = 0; i < f->p->nmodels; i++)
		selected[i] = true;
	return selected;
}

static const struct plan_item *item(const struct plan *pl, const char *fqn)
{
	for (size_t i = 0; i < pl->n; i++)
		if (strcmp(pl->items[i].m->fqn, fqn) == 0)
			return &pl->items[i];
	fail_msg("no plan item for %s", fqn);
	return NULL;
}

static struct state_model *row(struct plan_facts *facts, const char *fqn)
{
	return (struct state_model *)state_models_find(facts->state, facts->nstate, fqn);
}

static void test_fresh_warehouse(void **state)
{
	struct fixture_project *f = *state;
	struct plan_facts facts = facts_of(load(f));
	struct plan pl;

	facts.nrelations = 0;
	plan_make(f->a, &facts, all(f), &pl);
	/* the ephemeral is inlined into its readers: no item of its own */
	assert_int_equal(pl.n, 4);
	for (size_t i = 0; i < pl.n; i++) {
		assert_int_equal(pl.items[i].what, PLAN_BUILD);
		assert_true(pl.items[i].full);
		assert_string_equal(pl.items[i].reason, "new");
	}
	assert_string_equal(pl.items[0].m->fqn, "seeds.codes");
}

static void test_up_to_date(void **state)
{
	struct fixture_project *f = *state;
	struct plan_facts facts = facts_of(load(f));
	struct plan pl;

	rows_built(f, &facts);
	plan_make(f->a, &facts, all(f), &pl);
	for (size_t i = 0; i < pl.n; i++) {
		assert_int_equal(pl.items[i].what, PLAN_UP_TO_DATE);
		assert_string_equal(pl.items[i].reason, "up to date");
	}
}

/* A changed model is rebuilt, and its readers are planned on the version
 * its build will make: a view passes it through to its own readers. */
static void test_change_reaches_readers(void **state)
{
	struct fixture_project *f = *state;
	struct plan_facts facts = facts_of(load(f));
	struct plan pl;

	rows_built(f, &facts);
	row(&facts, "silver.a")->hash = "an older definition";
	plan_make(f->a, &facts, all(f), &pl);
	assert_int_equal(item(&pl, "seeds.codes")->what, PLAN_UP_TO_DATE);
	assert_int_equal(item(&pl, "silver.a")->what, PLAN_BUILD);
	assert_true(item(&pl, "silver.a")->full);
	assert_string_equal(item(&pl, "silver.a")->reason, "definition changed");
	/* the view is never rebuilt, but its checks see new data */
	assert_int_equal(item(&pl, "silver.v")->what, PLAN_CHECK);
	assert_string_equal(item(&pl, "silver.v")->reason, "inputs changed");
	assert_int_equal(item(&pl, "gold.b")->what, PLAN_BUILD);
	assert_false(item(&pl, "gold.b")->full);
	assert_string_equal(item(&pl, "gold.b")->reason, "inputs changed");
}

/* A warehouse built by a version that hashed the query's text holds that
 * form: it still says the definition is the same (silver.v inlines
 * silver.e, whose text form is folded in alike). */
static void test_text_hash_still_current(void **state)
{
	struct fixture_project *f = *state;
	struct plan_facts facts = facts_of(load(f));
	struct state_model *rows = rows_built(f, &facts);
	struct plan pl;

	for (size_t i = 0; i < facts.nstate; i++) {
		const struct model *m = project_find_model(f->p, rows[i].name);

		/* a query that parsed has a hash of its own form */
		if (m->mat != MAT_SEED)
			assert_string_not_equal(m->hash, m->text_hash);
		rows[i].hash = m->text_hash;
	}
	plan_make(f->a, &facts, all(f), &pl);
	for (size_t i = 0; i < pl.n; i++) {
		assert_int_equal(pl.items[i].what, PLAN_UP_TO_DATE);
		assert_string_equal(pl.items[i].reason, "up to date");
	}
	/* the text form of another text is no match */
	row(&facts, "silver.a")->hash = row(&facts, "gold.b")->hash;
	plan_make(f->a, &facts, all(f), &pl);
	assert_int_equal(item(&pl, "silver.a")->what, PLAN_BUILD);
	assert_string_equal(item(&pl, "silver.a")->reason, "definition changed");
}

/* A build records both forms, "tree:text": the tree's matching says a
 * reformatted model is the same, the text's that a query whose tree reads
 * otherwise now (another parser's) is; neither matching is a change. */
static void test_either_recorded_form(void **state)
{
	struct fixture_project *f = *state;
	struct plan_facts facts = facts_of(load(f));
	const struct model *a = project_find_model(f->p, "silver.a");
	struct plan pl;

	rows_built(f, &facts);
	assert_string_equal(row(&facts, "silver.a")->hash,
			    arena_sprintf(f->a, "%s:%s", a->hash, a->text_hash));
	row(&facts, "silver.a")->hash = arena_sprintf(f->a, "%s:the text before", a->hash);
	plan_make(f->a, &facts, all(f), &pl);
	assert_int_equal(item(&pl, "silver.a")->what, PLAN_UP_TO_DATE);
	row(&facts, "silver.a")->hash = arena_sprintf(f->a, "another tree:%s", a->text_hash);
	plan_make(f->a, &facts, all(f), &pl);
	assert_int_equal(item(&pl, "silver.a")->what, PLAN_UP_TO_DATE);
	row(&facts, "silver.a")->hash = "another tree:the text before";
	plan_make(f->a, &facts, all(f), &pl);
	assert_int_equal(item(&pl, "silver.a")->what, PLAN_BUILD);
	assert_string_equal(item(&pl, "silver.a")->reason, "definition changed");
	row(&facts, "silver.a")->hash = "";
	plan_make(f->a, &facts, all(f), &pl);
	assert_int_equal(item(&pl, "silver.a")->what, PLAN_BUILD);
}

/* The run decides again on the versions it produced: a build that changed
 * no data leaves its readers up to date. */
static void test_decided_again(void **state)
{
	struct fixture_project *f = *state;
	struct plan_facts facts = facts_of(load(f));
	struct plan_item again = { 0 };
	struct plan pl;
	int64_t *version;
	struct model *b;

	rows_built(f, &facts);
	row(&facts, "silver.a")->hash = "an older definition";
	plan_make(f->a, &facts, all(f), &pl);
	b = (struct model *)item(&pl, "gold.b")->m;
	version = plan_versions(f->a, &facts);
	for (size_t i = 0; i < f->p->nmodels; i++)
		plan_pass_through(f->p->models[i], version, 1);
	assert_string_not_equal(item(&pl, "gold.b")->sig, plan_signature(f->a, &facts, b, version));
	plan_decide(&facts, b, plan_signature(f->a, &facts, b, version), &again);
	assert_int_equal(again.what, PLAN_UP_TO_DATE);
}

static void test_checks_changed(void **state)
{
	struct fixture_project *f = *state;
	struct plan_facts facts = facts_of(load(f));
	struct plan pl;

	rows_built(f, &facts);
	row(&facts, "silver.v")->checks = "the checks of before";
	row(&facts, "gold.b")->checks = NULL;
	plan_make(f->a, &facts, all(f), &pl);
	assert_int_equal(item(&pl, "silver.v")->what, PLAN_CHECK);
	assert_string_equal(item(&pl, "silver.v")->reason, "checks changed");
	/* a model without checks has none due */
	assert_int_equal(item(&pl, "gold.b")->what, PLAN_UP_TO_DATE);
	facts.skip_checks = true;
	plan_make(f->a, &facts, all(f), &pl);
	assert_int_equal(item(&pl, "silver.v")->what, PLAN_UP_TO_DATE);
}

static const char *hold_gold(void *ctx, const struct model *m)
{
	(void)ctx;
	return strcmp(m->schema, "gold") == 0 ? "paused" : NULL;
}

static void test_held_and_missing(void **state)
{
	struct fixture_project *f = *state;
	struct plan_facts facts = facts_of(load(f));
	static const char *const without_a[] = { "gold.b", "seeds.codes", "silver.v" };
	struct plan pl;

	rows_built(f, &facts);
	facts.hold = hold_gold;
	facts.relations = without_a;
	facts.nrelations = 3;
	plan_make(f->a, &facts, all(f), &pl);
	assert_int_equal(item(&pl, "silver.a")->what, PLAN_BUILD);
	assert_string_equal(item(&pl, "silver.a")->reason, "missing from the warehouse");
	assert_int_equal(item(&pl, "gold.b")->what, PLAN_HELD);
	assert_string_equal(item(&pl, "gold.b")->reason, "paused");
}

static void test_full_refresh_and_selection(void **state)
{
	struct fixture_project *f = *state;
	struct plan_facts facts = facts_of(load(f));
	bool *selected = all(f);
	struct plan pl;

	rows_built(f, &facts);
	facts.full_refresh = true;
	for (size_t i = 0; i < f->p->nmodels; i++)
		selected[i] = strcmp(f->p->models[i]->schema, "gold") == 0;
	plan_make(f->a, &facts, selected, &pl);
	assert_int_equal(pl.n, 1);
	assert_int_equal(pl.items[0].what, PLAN_BUILD);
	assert_true(pl.items[0].full);
	assert_string_equal(pl.items[0].reason, "full refresh");
}

/* Facts of the project as written now, every model built at version 1
 * with the shape of its query then; made: the relations there are. */
static struct plan_facts built_with_shapes(struct fixture_project *f, const char *const *made,
					   size_t nmade)
{
	struct plan_facts facts = facts_of(load(f));
	struct state_model *rows;
	struct model_shape sh;

	facts.a = f->a;
	facts.relations = made;
	facts.nrelations = nmade;
	rows = rows_built(f, &facts);
	for (size_t i = 0; i < facts.nstate; i++)
		if (shape_of(f->a, fixture_model(f->p, rows[i].name), &sh))
			rows[i].shape = shape_format(f->a, &sh);
	return facts;
}

/* The project as written now, planned over facts (its state rows kept). */
static void plan_again(struct fixture_project *f, struct plan_facts *facts, struct plan *pl)
{
	f->p = fixture_load_valid(f->a, f->root);
	assert_int_equal(dag_build(f->p, NULL, 0), 0);
	facts->p = f->p;
	plan_make(f->a, facts, all(f), pl);
}

/* A change of one column rebuilds its model and the readers of that
 * column alone; a change of what decides the rows rebuilds every reader;
 * after the build, a reader of none of its changed columns stays up to
 * date on the versions the build recorded. */
static void test_column_changes(void **state)
{
	struct fixture_project *f = *state;
	const char *const made[] = { "gold.r1", "gold.r2",     "gold.r3", "gold.r4",
				     "gold.r5", "seeds.codes", "silver.m" };
	const char *const base = "@config materialized=table\nSELECT id, id * 2 AS twice FROM "
				 "seeds.codes WHERE id > 0\n";
	struct plan_facts facts;
	struct state_model *m_row, after;
	struct plan pl;
	struct project *p;
	int64_t *version;

	fixture_put(f->root, "models/silver/m.sql", base);
	fixture_put(f->root, "models/gold/r1.sql",
		    "@config materialized=table\nSELECT id, twice FROM silver.m\n");
	fixture_put(f->root, "models/gold/r2.sql",
		    "@config materialized=table\nSELECT id FROM silver.m WHERE id < 9\n");
	fixture_put(f->root, "models/gold/r3.sql",
		    "@config materialized=table\nSELECT count(*) AS n FROM silver.m\n");
	/* what a query does not show it reads counts as read */
	fixture_put(f->root, "models/gold/r4.sql",
		    "@upstream silver.m\n@config materialized=table\nSELECT 1 AS one\n");
	fixture_put(f->root, "models/gold/r5.sql",
		    "@config materialized=table\nSELECT id, random() AS r FROM silver.m\n");
	facts = built_with_shapes(f, made, 7);

	/* the same rows, one column computed otherwise */
	fixture_put(f->root, "models/silver/m.sql",
		    "@config materialized=table\nSELECT id, id * 3 AS twice FROM seeds.codes "
		    "WHERE id > 0\n");
	plan_again(f, &facts, &pl);
	p = f->p;
	assert_int_equal(item(&pl, "silver.m")->what, PLAN_BUILD);
	assert_non_null(item(&pl, "silver.m")->columns);
	assert_string_equal(item(&pl, "silver.m")->reason,
			    "definition changed: twice changed (breaking); not read by gold.r2, "
			    "gold.r3");
	assert_int_equal(item(&pl, "gold.r1")->what, PLAN_BUILD);
	assert_string_equal(item(&pl, "gold.r1")->reason, "inputs changed");
	assert_int_equal(item(&pl, "gold.r2")->what, PLAN_UP_TO_DATE);
	assert_int_equal(item(&pl, "gold.r3")->what, PLAN_UP_TO_DATE);
	assert_int_equal(item(&pl, "gold.r4")->what, PLAN_BUILD);
	assert_int_equal(item(&pl, "gold.r5")->what, PLAN_BUILD);

	/* the build records which columns changed, at its version: the
	 * readers of none of them see silver.m as it was */
	m_row = row(&facts, "silver.m");
	after = *m_row;
	after.data_version = 2;
	after.column_versions =
		plan_column_versions(f->a, m_row, item(&pl, "silver.m")->columns, 2);
	assert_string_equal(after.column_versions, "rows@1;c=twice@2");
	*m_row = after;
	facts.columns_changed = true;
	version = plan_versions(f->a, &facts);
	assert_string_equal(plan_signature(f->a, &facts, fixture_model(p, "gold.r2"), version),
			    row(&facts, "gold.r2")->inputs);
	assert_string_equal(plan_signature(f->a, &facts, fixture_model(p, "gold.r3"), version),
			    row(&facts, "gold.r3")->inputs);
	assert_string_equal(plan_signature(f->a, &facts, fixture_model(p, "gold.r1"), version),
			    "silver.m@2");
	m_row->data_version = 1;
	m_row->column_versions = NULL;

	/* what decides the rows: every reader */
	fixture_put(f->root, "models/silver/m.sql",
		    "@config materialized=table\nSELECT id, id * 2 AS twice FROM seeds.codes "
		    "WHERE id > 1\n");
	plan_again(f, &facts, &pl);
	p = f->p;
	assert_null(item(&pl, "silver.m")->columns);
	assert_string_equal(item(&pl, "silver.m")->reason,
			    "definition changed: what decides its rows, so every column (breaking)");
	assert_int_equal(item(&pl, "gold.r2")->what, PLAN_BUILD);
	assert_int_equal(item(&pl, "gold.r3")->what, PLAN_BUILD);

	/* a column added: non-breaking, and read by no reader */
	fixture_put(f->root, "models/silver/m.sql",
		    "@config materialized=table\nSELECT id, id * 2 AS twice, -id AS neg FROM "
		    "seeds.codes WHERE id > 0\n");
	plan_again(f, &facts, &pl);
	p = f->p;
	assert_string_equal(item(&pl, "silver.m")->reason,
			    "definition changed: neg added (non-breaking); not read by gold.r1, "
			    "gold.r2, gold.r3");
	assert_int_equal(item(&pl, "gold.r1")->what, PLAN_UP_TO_DATE);
}

/* The plan of an incremental model gold.i, built as was, now written as
 * now with the settings settings. */
static const struct plan_item *incremental_change(struct fixture_project *f, const char *settings,
						  const char *was, const char *now)
{
	const char *const made[] = { "gold.i", "seeds.codes" };
	struct plan_facts facts;
	struct plan pl;

	fixture_put(f->root, "models/gold/i.sql",
		    arena_sprintf(f->a, "@config materialized=incremental%s\n%s\n", settings, was));
	facts = built_with_shapes(f, made, 2);
	fixture_put(f->root, "models/gold/i.sql",
		    arena_sprintf(f->a, "@config materialized=incremental%s\n%s\n", settings, now));
	plan_again(f, &facts, &pl);
	return item(&pl, "gold.i");
}

/* An incremental model keeps its rows through a change of its query that
 * on_schema_change lets it follow, and refuses any other. */
static void test_schema_change(void **state)
{
	static const struct {
		const char *settings, *now;
		enum plan_do what;
		bool full;
	} cases[] = {
		{ "", "SELECT id, id + 1 AS next FROM seeds.codes", PLAN_BUILD, false },
		{ "", "SELECT id + 1 AS id FROM seeds.codes", PLAN_REFUSED, false },
		{ ", on_schema_change=fail", "SELECT id, id + 1 AS next FROM seeds.codes", PLAN_REFUSED,
		  false },
		{ ", on_schema_change=sync_all_columns", "SELECT id + 1 AS id FROM seeds.codes",
		  PLAN_BUILD, false },
		{ ", on_schema_change=sync_all_columns", "SELECT id FROM seeds.codes WHERE id > 1",
		  PLAN_REFUSED, false },
		{ ", on_schema_change=full_refresh", "SELECT id FROM seeds.codes WHERE id > 1",
		  PLAN_BUILD, true },
	};
	struct fixture_project *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct plan_item *it = incremental_change(f, cases[i].settings,
								"SELECT id FROM seeds.codes",
								cases[i].now);

		assert_int_equal(it->what, cases[i].what);
		assert_int_equal(it->full, cases[i].full);
		if (it->what == PLAN_REFUSED)
			assert_non_null(strstr(it->reason, "--full-refresh"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fresh_warehouse, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_up_to_date, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_text_hash_still_current, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_either_recorded_form, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_change_reaches_readers, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_decided_again, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_checks_changed, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_held_and_missing, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_full_refresh_and_selection, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_column_changes, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_schema_change, setup, fixture_project_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
