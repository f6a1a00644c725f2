/*
 * Unit tests for the dependency graph (src/project/dag.c) on small projects
 * written to a temporary folder: dependency order with ties by name, cycle
 * paths, references to nothing (only checked against a relation list), and
 * every selector form with its "did you mean" error.
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
#include "project/dag.h"
#include "project/model.h"
#include "project/project.h"
#include "warehouse/sqlparse.h"

#include <ftw.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int setup(void **state)
{
	return fixture_project_setup(state, "dag");
}

/* Loads the project, which must load without problems. */
static struct project *load(struct fixture_project *f)
{
	if (!f->p)
		fixture_put(f->root, "sluice.yml", "name: shop\n");
	arena_reset(f->a);
	f->p = fixture_load(f->a, f->root);
	if (f->p->diags.n) {
		diag_print(&f->p->diags, stderr);
		fail_msg("the project did not load cleanly");
	}
	return f->p;
}

static int build(struct fixture_project *f, const char *const *relations, size_t n)
{
	return dag_build(f->p, relations, n);
}

/* The models in order, as "a.b c.d". */
static const char *order(struct fixture_project *f)
{
	const char *s = "";

	for (size_t i = 0; i < f->p->nmodels; i++) {
		assert_int_equal(f->p->models[i]->order, i);
		s = arena_sprintf(f->a, "%s%s%s", s, i ? " " : "", f->p->models[i]->fqn);
	}
	return s;
}

/* Each model comes after every model it reads. */
static void check_topological(struct fixture_project *f)
{
	for (size_t i = 0; i < f->p->nmodels; i++) {
		const struct model *m = f->p->models[i];

		for (size_t k = 0; k < m->ndeps; k++)
			assert_true(m->deps[k]->order < m->order);
	}
}

/* The selected models, as "a.b c.d" in order. */
static const char *select_names(struct fixture_project *f, const char *selector)
{
	struct sl_err err = SL_ERR_INIT;
	bool *sel = calloc(f->p->nmodels + 1, sizeof(bool));
	const char *s = "";
	int rc = dag_select(f->p, selector, sel, &err);

	if (rc) {
		free(sel);
		fail_msg("selector '%s': %s", selector, err.msg);
	}
	for (size_t i = 0; i < f->p->nmodels; i++)
		if (sel[i])
			s = arena_sprintf(f->a, "%s%s%s", s, *s ? " " : "", f->p->models[i]->fqn);
	free(sel);
	return s;
}

/* A chain and some loose models:
 *   seeds.s -> silver.a -> silver.b -> gold.z ;  gold.c ;  silver.b also reads seeds.s */
static void write_chain(struct fixture_project *f)
{
	fixture_put(f->root, "seeds/s.csv", "id\n1\n");
	fixture_put(f->root, "models/silver/a.sql",
		    "@config tags=[daily]\nSELECT * FROM seeds.s\n");
	fixture_put(f->root, "models/silver/b.sql",
		    "@config tags=[Daily, finance]\n"
		    "SELECT * FROM silver.a JOIN seeds.s USING (id)\n");
	fixture_put(f->root, "models/gold/z.sql", "SELECT count(*) AS n FROM silver.b\n");
	fixture_put(f->root, "models/gold/c.sql", "SELECT 1 AS one\n");
}

static void test_order_respects_dependencies(void **state)
{
	struct fixture_project *f = *state;
	struct model *b;

	write_chain(f);
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_int_equal(f->p->diags.n, 0);
	assert_string_equal(order(f), "gold.c seeds.s silver.a silver.b gold.z");
	check_topological(f);
	b = fixture_model(f->p, "silver.b");
	assert_int_equal(b->ndeps, 2);
	assert_int_equal(b->nchildren, 1);
	assert_ptr_equal(b->children[0], fixture_model(f->p, "gold.z"));
	assert_int_equal(fixture_model(f->p, "seeds.s")->nchildren, 2);
	assert_ptr_equal(b->refs[0].target, fixture_model(f->p, "silver.a"));
	assert_ptr_equal(b->refs[1].target, fixture_model(f->p, "seeds.s"));
}

static void test_ties_by_name(void **state)
{
	struct fixture_project *f = *state;

	/* b.x and c.y are ready first; a.z becomes ready after b.x and, being
	 * the smallest name then, goes before c.y */
	fixture_put(f->root, "models/b/x.sql", "SELECT 1 AS v\n");
	fixture_put(f->root, "models/c/y.sql", "SELECT 2 AS v\n");
	fixture_put(f->root, "models/a/z.sql", "SELECT * FROM b.x\n");
	fixture_put(f->root, "models/d/w.sql", "SELECT * FROM a.z, c.y\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_string_equal(order(f), "b.x a.z c.y d.w");
	check_topological(f);
}

static void test_repeated_reference_is_one_edge(void **state)
{
	struct fixture_project *f = *state;

	write_chain(f);
	/* a model read twice, and through the same model, is one edge */
	fixture_put(f->root, "models/gold/z.sql",
		    "SELECT * FROM silver.b UNION ALL SELECT * FROM silver.b\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_int_equal(fixture_model(f->p, "gold.z")->ndeps, 1);
	assert_int_equal(fixture_model(f->p, "gold.z")->nrefs, 2);
	assert_string_equal(order(f), "gold.c seeds.s silver.a silver.b gold.z");
}

static void test_cycle(void **state)
{
	struct fixture_project *f = *state;
	const struct diag *d;

	fixture_put(f->root, "models/silver/x.sql", "SELECT * FROM silver.y\n");
	fixture_put(f->root, "models/silver/y.sql", "SELECT * FROM silver.x\n");
	/* a model that reads the cycle is stuck too, but is not part of it */
	fixture_put(f->root, "models/silver/a.sql", "SELECT * FROM silver.x\n");
	fixture_put(f->root, "models/silver/ok.sql", "SELECT 1 AS one\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), SL_E_INVALID);
	assert_int_equal(diag_count(&f->p->diags, DIAG_ERROR), 1);
	d = fixture_diag(f->p, "dependency cycle: silver.x -> silver.y -> silver.x");
	assert_string_equal(d->file, "models/silver/x.sql");
	assert_non_null(strstr(d->hint, "{this}"));
	/* every model is still in the list */
	assert_int_equal(f->p->nmodels, 4);
	assert_string_equal(f->p->models[0]->fqn, "silver.ok");
}

static void test_longer_cycle(void **state)
{
	struct fixture_project *f = *state;

	fixture_put(f->root, "models/s/a.sql", "SELECT * FROM s.b\n");
	fixture_put(f->root, "models/s/b.sql", "SELECT * FROM s.c\n");
	fixture_put(f->root, "models/s/c.sql", "SELECT * FROM s.a JOIN s.d ON true\n");
	fixture_put(f->root, "models/s/d.sql", "SELECT 1 AS one\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), SL_E_INVALID);
	fixture_diag(f->p, "dependency cycle: s.a -> s.b -> s.c -> s.a");
}

static void test_missing_reference_needs_relations(void **state)
{
	struct fixture_project *f = *state;
	static const char *const none[] = { NULL };
	static const char *const rels[] = { "landing.events", "landing.orders", NULL };
	const struct diag *d;

	fixture_put(f->root, "models/silver/orders.sql", "SELECT *\nFROM landing.orders\n");
	fixture_put(f->root, "models/silver/copy.sql", "SELECT * FROM silver.ordrs\n");
	fixture_put(f->root, "models/silver/far.sql", "SELECT * FROM   zzz.qqq\n");
	/* without a relation list, references to outside tables are trusted */
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_int_equal(f->p->diags.n, 0);
	assert_null(fixture_model(f->p, "silver.orders")->refs[0].target);

	/* with one, what is neither a model nor a relation is reported */
	load(f);
	assert_int_equal(build(f, rels, 2), SL_E_INVALID);
	assert_int_equal(f->p->diags.n, 2);
	d = fixture_diag(f->p,
			 "model 'silver.copy' reads 'silver.ordrs', which is neither a model nor "
			 "a table in the warehouse");
	assert_string_equal(d->file, "models/silver/copy.sql");
	assert_int_equal(d->line, 1);
	assert_int_equal(d->col, 15);
	assert_string_equal(d->hint, "did you mean 'silver.orders'?");
	d = fixture_diag(f->p, "model 'silver.far' reads 'zzz.qqq', which is neither a model nor a "
			       "table in the warehouse");
	assert_int_equal(d->col, 17);
	assert_string_equal(d->hint,
			    "create it in the warehouse, or add a model or seed that produces it");

	/* an empty warehouse: landing.orders is missing too */
	load(f);
	assert_int_equal(build(f, none, 0), SL_E_INVALID);
	assert_int_equal(f->p->diags.n, 3);
	d = fixture_diag(f->p,
			 "model 'silver.orders' reads 'landing.orders', which is neither a model "
			 "nor a table in the warehouse");
	assert_int_equal(d->line, 2);
	assert_int_equal(d->col, 6);
}

static void test_relationships_target(void **state)
{
	struct fixture_project *f = *state;
	static const char *const rels[] = { "crm.accounts", NULL };

	fixture_put(f->root, "models/silver/customers.sql", "SELECT 1 AS id\n");
	fixture_put(f->root, "models/silver/orders.sql",
		    "@assert relationships(customer_id, silver.customers(id))\n"
		    "@assert relationships(account_id, crm.accounts(id))\n"
		    "@assert relationships(region, crm.regions(code))\n"
		    "SELECT 1 AS customer_id, 2 AS account_id, 'eu' AS region\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	/* the checked model must exist before the check runs */
	assert_int_equal(fixture_model(f->p, "silver.orders")->ndeps, 1);
	assert_ptr_equal(fixture_model(f->p, "silver.orders")->deps[0],
			 fixture_model(f->p, "silver.customers"));
	assert_string_equal(order(f), "silver.customers silver.orders");

	load(f);
	assert_int_equal(build(f, rels, 1), SL_E_INVALID);
	assert_int_equal(f->p->diags.n, 1);
	assert_int_equal(fixture_diag(f->p,
				      "@assert relationships target 'crm.regions' is neither a "
				      "model nor a table")
				 ->line,
			 3);
}

/* An @upstream name decides what orders and gates the model: a bare name
 * that is both a model and a declared source, or several models, is an
 * error that asks for the qualified name; a qualified one resolves. */
static void test_upstream_name_must_be_one(void **state)
{
	struct fixture_project *f = *state;
	const struct model *x;
	const struct diag *d;

	fixture_put(f->root, "sluice.yml",
		    "name: shop\nsources:\n  orders: {kind: webhook}\n  events: {kind: webhook}\n");
	fixture_put(f->root, "models/silver/orders.sql", "SELECT 1 AS id\n");
	fixture_put(f->root, "models/silver/items.sql", "SELECT 1 AS id\n");
	fixture_put(f->root, "models/bronze/items.sql", "SELECT 1 AS id\n");
	fixture_put(f->root, "models/gold/x.sql",
		    "@upstream orders\n"
		    "@upstream items\n"
		    "@upstream silver.orders\n"
		    "@upstream landing.orders\n"
		    "@upstream events\n"
		    "SELECT 1 AS x\n");
	f->p = fixture_load(f->a, f->root);
	assert_int_equal(f->p->diags.n, 0);
	assert_int_equal(build(f, NULL, 0), SL_E_INVALID);
	assert_int_equal(f->p->diags.n, 2);
	d = fixture_diag(f->p, "@upstream 'orders' names both model 'silver.orders' and source "
			       "'orders'");
	assert_string_equal(d->file, "models/gold/x.sql");
	assert_int_equal(d->line, 1);
	assert_string_equal(d->hint,
			    "write 'silver.orders' for the model or 'landing.orders' for the source");
	d = fixture_diag(f->p, "@upstream 'items' names several models: 'bronze.items' or "
			       "'silver.items'");
	assert_int_equal(d->line, 2);
	x = fixture_model(f->p, "gold.x");
	assert_ptr_equal(x->upstreams[2].target, fixture_model(f->p, "silver.orders"));
	assert_null(x->upstreams[3].target);
	assert_string_equal(x->upstreams[3].source->name, "orders");
	assert_string_equal(x->upstreams[4].source->name, "events");
	assert_string_equal(x->upstreams[4].source_relation, "landing.events");
}

static void test_select_all_and_empty(void **state)
{
	struct fixture_project *f = *state;
	struct sl_err err = SL_ERR_INIT;
	bool sel[8];

	write_chain(f);
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_string_equal(select_names(f, NULL), "gold.c seeds.s silver.a silver.b gold.z");
	/* a selector with no terms is a mistake, not "everything" */
	assert_int_equal(dag_select(f->p, "", sel, &err), SL_E_USAGE);
	assert_non_null(strstr(err.msg, "empty selector"));
	assert_int_equal(dag_select(f->p, " , ", sel, &err), SL_E_USAGE);
}

static void test_select_terms(void **state)
{
	struct fixture_project *f = *state;

	write_chain(f);
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_string_equal(select_names(f, "silver.a"), "silver.a");
	assert_string_equal(select_names(f, "SILVER.A"), "silver.a");
	assert_string_equal(select_names(f, "b"), "silver.b");
	assert_string_equal(select_names(f, "silver.*"), "silver.a silver.b");
	assert_string_equal(select_names(f, "gold.*"), "gold.c gold.z");
	assert_string_equal(select_names(f, "+gold.z"), "seeds.s silver.a silver.b gold.z");
	assert_string_equal(select_names(f, "silver.a+"), "silver.a silver.b gold.z");
	assert_string_equal(select_names(f, "seeds.s+"), "seeds.s silver.a silver.b gold.z");
	assert_string_equal(select_names(f, "+silver.b+"), "seeds.s silver.a silver.b gold.z");
	assert_string_equal(select_names(f, "+z"), "seeds.s silver.a silver.b gold.z");
	assert_string_equal(select_names(f, "tag:daily"), "silver.a silver.b");
	assert_string_equal(select_names(f, "tag:finance"), "silver.b");
	assert_string_equal(select_names(f, "tag:finance+"), "silver.b gold.z");
	assert_string_equal(select_names(f, "gold.c,silver.a"), "gold.c silver.a");
	assert_string_equal(select_names(f, "gold.c, z"), "gold.c gold.z");
	assert_string_equal(select_names(f, "gold.c,gold.c"), "gold.c");
}

static void test_select_same_name_in_two_schemas(void **state)
{
	struct fixture_project *f = *state;

	fixture_put(f->root, "models/silver/orders.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/gold/orders.sql", "SELECT * FROM silver.orders\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_string_equal(select_names(f, "gold.orders"), "gold.orders");
}

/* A bare name means the one model of that name; when several schemas have
 * one, the error lists them, for a selector as for a model name. */
static void test_bare_name_shared_by_two_schemas(void **state)
{
	struct fixture_project *f = *state;
	struct sl_err err = SL_ERR_INIT;
	bool sel[8];

	fixture_put(f->root, "models/silver/orders.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/gold/orders.sql", "SELECT * FROM silver.orders\n");
	fixture_put(f->root, "models/gold/revenue.sql", "SELECT * FROM gold.orders\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_int_equal(dag_select(f->p, "orders+", sel, &err), SL_E_USAGE);
	assert_string_equal(err.msg, "'orders' names 2 models: silver.orders, gold.orders\n"
				     "  hint: write the schema too, e.g. 'gold.orders'");
	assert_null(dag_model_named(f->p, "ORDERS", &err));
	assert_int_equal(err.code, SL_E_USAGE);
	assert_string_equal(select_names(f, "revenue"), "gold.revenue");
	assert_ptr_equal(dag_model_named(f->p, "Revenue", &err), fixture_model(f->p, "gold.revenue"));
	assert_ptr_equal(dag_model_named(f->p, "silver.orders", &err),
			 fixture_model(f->p, "silver.orders"));
	assert_null(dag_model_named(f->p, "revenu", &err));
	assert_int_equal(err.code, SL_E_NOTFOUND);
	assert_string_equal(err.msg, "no model 'revenu'\n  hint: did you mean 'revenue'?");
	assert_null(dag_model_named(f->p, "gold.nothing_like_it_at_all", &err));
	assert_string_equal(err.msg, "no model 'gold.nothing_like_it_at_all'\n"
				     "  hint: 'sluice ls' lists the models");
}

/* A lookup that misses takes the words it suggests from memory of its own:
 * a server answering misses for as long as it runs keeps the same memory. */
static void test_misses_keep_no_memory(void **state)
{
	struct fixture_project *f = *state;
	struct sl_err err = SL_ERR_INIT;
	const char *const misses[] = { "tag:nothing", "gold.nothing", "nothing", "gold.*x" };
	size_t before;
	bool sel[8];

	fixture_put(f->root, "models/silver/orders.sql", "@config tags=daily\nSELECT 1 AS x\n");
	fixture_put(f->root, "models/gold/revenue.sql", "SELECT * FROM silver.orders\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_null(dag_model_named(f->p, "revenu", &err));
	assert_string_equal(err.msg, "no model 'revenu'\n  hint: did you mean 'revenue'?");
	assert_null(dag_model_named(f->p, "gold.revenu", &err));
	assert_string_equal(err.msg, "no model 'gold.revenu'\n  hint: did you mean 'gold.revenue'?");
	before = mallinfo2().uordblks;
	for (int i = 0; i < 5000; i++) {
		assert_null(dag_model_named(f->p, misses[i % 4], &err));
		assert_int_equal(dag_select(f->p, misses[i % 4], sel, &err), SL_E_NOTFOUND);
	}
	assert_true(mallinfo2().uordblks < before + 16384);
}

/* A name without a schema that is a model in some schema gets a hint that
 * names it, at the reference. */
static void test_unqualified_model_name_hint(void **state)
{
	struct fixture_project *f = *state;
	static const char *const none[] = { NULL };
	const struct diag *d;

	fixture_put(f->root, "models/staging/stg_customers.sql", "SELECT 1 AS id\n");
	fixture_put(f->root, "models/gold/customers.sql", "SELECT id\nFROM   stg_customers\n");
	load(f);
	assert_int_equal(build(f, none, 0), SL_E_INVALID);
	d = fixture_diag(f->p, "model 'gold.customers' reads 'main.stg_customers', which is "
			       "neither a model nor a table in the warehouse");
	assert_int_equal(d->line, 2);
	assert_int_equal(d->col, 8);
	assert_string_equal(d->hint, "a name without a schema reads schema 'main'; did you mean "
				     "'staging.stg_customers'?");
}

static void test_select_unknown(void **state)
{
	struct fixture_project *f = *state;
	struct sl_err err = SL_ERR_INIT;
	bool sel[8];

	write_chain(f);
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_int_equal(dag_select(f->p, "silver.bb", sel, &err), SL_E_NOTFOUND);
	assert_string_equal(err.msg, "selector 'silver.bb' matches no model\n"
				     "  hint: did you mean 'silver.b'?");
	assert_int_equal(dag_select(f->p, "+gold.zz+", sel, &err), SL_E_NOTFOUND);
	assert_string_equal(err.msg, "selector 'gold.zz' matches no model\n"
				     "  hint: did you mean 'gold.z'?");
	assert_int_equal(dag_select(f->p, "warehouse.nothing_like_it", sel, &err),
			 SL_E_NOTFOUND);
	assert_string_equal(err.msg, "selector 'warehouse.nothing_like_it' matches no model");
	assert_int_equal(dag_select(f->p, "tag:weekly", sel, &err), SL_E_NOTFOUND);
	assert_int_equal(dag_select(f->p, "nope.*", sel, &err), SL_E_NOTFOUND);
	/* tag and schema terms are matched against tags and schemas */
	assert_int_equal(dag_select(f->p, "tag:dialy", sel, &err), SL_E_NOTFOUND);
	assert_string_equal(err.msg, "selector 'tag:dialy' matches no model\n"
				     "  hint: did you mean 'tag:daily'?");
	assert_int_equal(dag_select(f->p, "silvr.*+", sel, &err), SL_E_NOTFOUND);
	assert_string_equal(err.msg, "selector 'silvr.*' matches no model\n"
				     "  hint: did you mean 'silver.*'?");
	/* one bad term in a list fails the whole selector */
	assert_int_equal(dag_select(f->p, "gold.c,silver.bb", sel, &err), SL_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "'silver.bb'"));
}

static void test_select_bare_name_typo_has_hint(void **state)
{
	struct fixture_project *f = *state;
	struct sl_err err = SL_ERR_INIT;
	bool sel[8];

	/* a bare name is compared with bare model names */
	fixture_put(f->root, "models/silver/orders.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/gold/revenue.sql", "SELECT * FROM silver.orders\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_int_equal(dag_select(f->p, "ordrs", sel, &err), SL_E_NOTFOUND);
	assert_string_equal(err.msg, "selector 'ordrs' matches no model\n"
				     "  hint: did you mean 'orders'?");
	assert_int_equal(dag_select(f->p, "+revenu+", sel, &err), SL_E_NOTFOUND);
	assert_string_equal(err.msg, "selector 'revenu' matches no model\n"
				     "  hint: did you mean 'revenue'?");
	/* a qualified name is still compared with qualified names */
	assert_int_equal(dag_select(f->p, "silver.ordrs", sel, &err), SL_E_NOTFOUND);
	assert_string_equal(err.msg, "selector 'silver.ordrs' matches no model\n"
				     "  hint: did you mean 'silver.orders'?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fixture_project_teardown)
		T(test_order_respects_dependencies),
		T(test_ties_by_name),
		T(test_repeated_reference_is_one_edge),
		T(test_cycle),
		T(test_longer_cycle),
		T(test_missing_reference_needs_relations),
		T(test_relationships_target),
		T(test_upstream_name_must_be_one),
		T(test_select_all_and_empty),
		T(test_select_terms),
		T(test_select_same_name_in_two_schemas),
		T(test_bare_name_shared_by_two_schemas),
		T(test_unqualified_model_name_hint),
		T(test_misses_keep_no_memory),
		T(test_select_unknown),
		T(test_select_bare_name_typo_has_hint),
#undef T
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
