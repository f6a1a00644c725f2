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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fx {
	struct arena *a;
	char root[PATH_MAX];
	struct project *p;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	fixture_mkdtemp(f->root, "dag");
	f->a = arena_new(NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	fixture_rmtree(f->root);
	arena_free(f->a);
	free(f);
	return 0;
}

static void put(struct fx *f, const char *rel, const char *text)
{
	fixture_put(f->root, rel, text);
}

/* Loads the project, which must load without problems. */
static struct project *load(struct fx *f)
{
	struct sl_err err = SL_ERR_INIT;

	if (!f->p)
		put(f, "sluice.yml", "name: shop\n");
	arena_reset(f->a);
	if (project_load(f->a, f->root, parser, &f->p, &err))
		fail_msg("project_load: %s", err.msg);
	if (f->p->diags.n) {
		diag_print(&f->p->diags, stderr);
		fail_msg("the project did not load cleanly");
	}
	return f->p;
}

static int build(struct fx *f, const char *const *relations, size_t n)
{
	return dag_build(f->p, relations, n);
}

/* The models in order, as "a.b c.d". */
static const char *order(struct fx *f)
{
	const char *s = "";

	for (size_t i = 0; i < f->p->nmodels; i++) {
		assert_int_equal(f->p->models[i]->order, i);
		s = arena_sprintf(f->a, "%s%s%s", s, i ? " " : "", f->p->models[i]->fqn);
	}
	return s;
}

static struct model *model(struct fx *f, const char *fqn)
{
	struct model *m = project_find_model(f->p, fqn);

	if (!m)
		fail_msg("no model '%s'", fqn);
	return m;
}

/* Each model comes after every model it reads. */
static void check_topological(struct fx *f)
{
	for (size_t i = 0; i < f->p->nmodels; i++) {
		const struct model *m = f->p->models[i];

		for (size_t k = 0; k < m->ndeps; k++)
			assert_true(m->deps[k]->order < m->order);
	}
}

/* The selected models, as "a.b c.d" in order. */
static const char *select_names(struct fx *f, const char *selector)
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

static const struct diag *diag_find(struct fx *f, const char *msg)
{
	for (size_t i = 0; i < f->p->diags.n; i++)
		if (strcmp(f->p->diags.items[i].msg, msg) == 0)
			return &f->p->diags.items[i];
	diag_print(&f->p->diags, stderr);
	fail_msg("no diagnostic '%s'", msg);
	return NULL;
}

/* A chain and some loose models:
 *   seeds.s -> silver.a -> silver.b -> gold.z ;  gold.c ;  silver.b also reads seeds.s */
static void write_chain(struct fx *f)
{
	put(f, "seeds/s.csv", "id\n1\n");
	put(f, "models/silver/a.sql", "@config tags=[daily]\nSELECT * FROM seeds.s\n");
	put(f, "models/silver/b.sql",
	    "@config tags=[Daily, finance]\nSELECT * FROM silver.a JOIN seeds.s USING (id)\n");
	put(f, "models/gold/z.sql", "SELECT count(*) AS n FROM silver.b\n");
	put(f, "models/gold/c.sql", "SELECT 1 AS one\n");
}

static void test_order_respects_dependencies(void **state)
{
	struct fx *f = *state;
	struct model *b;

	write_chain(f);
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_int_equal(f->p->diags.n, 0);
	assert_string_equal(order(f), "gold.c seeds.s silver.a silver.b gold.z");
	check_topological(f);
	b = model(f, "silver.b");
	assert_int_equal(b->ndeps, 2);
	assert_int_equal(b->nchildren, 1);
	assert_ptr_equal(b->children[0], model(f, "gold.z"));
	assert_int_equal(model(f, "seeds.s")->nchildren, 2);
	assert_ptr_equal(b->refs[0].target, model(f, "silver.a"));
	assert_ptr_equal(b->refs[1].target, model(f, "seeds.s"));
}

static void test_ties_by_name(void **state)
{
	struct fx *f = *state;

	/* b.x and c.y are ready first; a.z becomes ready after b.x and, being
	 * the smallest name then, goes before c.y */
	put(f, "models/b/x.sql", "SELECT 1 AS v\n");
	put(f, "models/c/y.sql", "SELECT 2 AS v\n");
	put(f, "models/a/z.sql", "SELECT * FROM b.x\n");
	put(f, "models/d/w.sql", "SELECT * FROM a.z, c.y\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_string_equal(order(f), "b.x a.z c.y d.w");
	check_topological(f);
}

static void test_repeated_reference_is_one_edge(void **state)
{
	struct fx *f = *state;

	write_chain(f);
	/* a model read twice, and through the same model, is one edge */
	put(f, "models/gold/z.sql", "SELECT * FROM silver.b UNION ALL SELECT * FROM silver.b\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_int_equal(model(f, "gold.z")->ndeps, 1);
	assert_int_equal(model(f, "gold.z")->nrefs, 2);
	assert_string_equal(order(f), "gold.c seeds.s silver.a silver.b gold.z");
}

static void test_cycle(void **state)
{
	struct fx *f = *state;
	const struct diag *d;

	put(f, "models/silver/x.sql", "SELECT * FROM silver.y\n");
	put(f, "models/silver/y.sql", "SELECT * FROM silver.x\n");
	/* a model that reads the cycle is stuck too, but is not part of it */
	put(f, "models/silver/a.sql", "SELECT * FROM silver.x\n");
	put(f, "models/silver/ok.sql", "SELECT 1 AS one\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), SL_E_INVALID);
	assert_int_equal(diag_count(&f->p->diags, DIAG_ERROR), 1);
	d = diag_find(f, "dependency cycle: silver.x -> silver.y -> silver.x");
	assert_string_equal(d->file, "models/silver/x.sql");
	assert_non_null(strstr(d->hint, "{this}"));
	/* every model is still in the list */
	assert_int_equal(f->p->nmodels, 4);
	assert_string_equal(f->p->models[0]->fqn, "silver.ok");
}

static void test_longer_cycle(void **state)
{
	struct fx *f = *state;

	put(f, "models/s/a.sql", "SELECT * FROM s.b\n");
	put(f, "models/s/b.sql", "SELECT * FROM s.c\n");
	put(f, "models/s/c.sql", "SELECT * FROM s.a JOIN s.d ON true\n");
	put(f, "models/s/d.sql", "SELECT 1 AS one\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), SL_E_INVALID);
	diag_find(f, "dependency cycle: s.a -> s.b -> s.c -> s.a");
}

static void test_missing_reference_needs_relations(void **state)
{
	struct fx *f = *state;
	static const char *const none[] = { NULL };
	static const char *const rels[] = { "landing.events", "landing.orders", NULL };
	const struct diag *d;

	put(f, "models/silver/orders.sql", "SELECT *\nFROM landing.orders\n");
	put(f, "models/silver/copy.sql", "SELECT * FROM silver.ordrs\n");
	put(f, "models/silver/far.sql", "SELECT * FROM   zzz.qqq\n");
	/* without a relation list, references to outside tables are trusted */
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_int_equal(f->p->diags.n, 0);
	assert_null(model(f, "silver.orders")->refs[0].target);

	/* with one, what is neither a model nor a relation is reported */
	load(f);
	assert_int_equal(build(f, rels, 2), SL_E_INVALID);
	assert_int_equal(f->p->diags.n, 2);
	d = diag_find(f, "model 'silver.copy' reads 'silver.ordrs', which is neither a model nor "
			 "a table in the warehouse");
	assert_string_equal(d->file, "models/silver/copy.sql");
	assert_int_equal(d->line, 1);
	assert_int_equal(d->col, 15);
	assert_string_equal(d->hint, "did you mean 'silver.orders'?");
	d = diag_find(f, "model 'silver.far' reads 'zzz.qqq', which is neither a model nor a "
			 "table in the warehouse");
	assert_int_equal(d->col, 17);
	assert_string_equal(d->hint,
			    "create it in the warehouse, or add a model or seed that produces it");

	/* an empty warehouse: landing.orders is missing too */
	load(f);
	assert_int_equal(build(f, none, 0), SL_E_INVALID);
	assert_int_equal(f->p->diags.n, 3);
	d = diag_find(f, "model 'silver.orders' reads 'landing.orders', which is neither a model "
			 "nor a table in the warehouse");
	assert_int_equal(d->line, 2);
	assert_int_equal(d->col, 6);
}

static void test_relationships_target(void **state)
{
	struct fx *f = *state;
	static const char *const rels[] = { "crm.accounts", NULL };

	put(f, "models/silver/customers.sql", "SELECT 1 AS id\n");
	put(f, "models/silver/orders.sql",
	    "@assert relationships(customer_id, silver.customers(id))\n"
	    "@assert relationships(account_id, crm.accounts(id))\n"
	    "@assert relationships(region, crm.regions(code))\n"
	    "SELECT 1 AS customer_id, 2 AS account_id, 'eu' AS region\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	/* the checked model must exist before the check runs */
	assert_int_equal(model(f, "silver.orders")->ndeps, 1);
	assert_ptr_equal(model(f, "silver.orders")->deps[0], model(f, "silver.customers"));
	assert_string_equal(order(f), "silver.customers silver.orders");

	load(f);
	assert_int_equal(build(f, rels, 1), SL_E_INVALID);
	assert_int_equal(f->p->diags.n, 1);
	assert_int_equal(diag_find(f, "@assert relationships target 'crm.regions' is neither a "
				      "model nor a table")
				 ->line,
			 3);
}

static void test_select_all_and_empty(void **state)
{
	struct fx *f = *state;
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
	struct fx *f = *state;

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
	struct fx *f = *state;

	put(f, "models/silver/orders.sql", "SELECT 1 AS x\n");
	put(f, "models/gold/orders.sql", "SELECT * FROM silver.orders\n");
	load(f);
	assert_int_equal(build(f, NULL, 0), 0);
	assert_string_equal(select_names(f, "orders"), "silver.orders gold.orders");
	assert_string_equal(select_names(f, "gold.orders"), "gold.orders");
}

static void test_select_unknown(void **state)
{
	struct fx *f = *state;
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
	struct fx *f = *state;
	struct sl_err err = SL_ERR_INIT;
	bool sel[8];

	/* a bare name is compared with bare model names */
	put(f, "models/silver/orders.sql", "SELECT 1 AS x\n");
	put(f, "models/gold/revenue.sql", "SELECT * FROM silver.orders\n");
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
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_order_respects_dependencies),
		T(test_ties_by_name),
		T(test_repeated_reference_is_one_edge),
		T(test_cycle),
		T(test_longer_cycle),
		T(test_missing_reference_needs_relations),
		T(test_relationships_target),
		T(test_select_all_and_empty),
		T(test_select_terms),
		T(test_select_same_name_in_two_schemas),
		T(test_select_unknown),
		T(test_select_bare_name_typo_has_hint),
#undef T
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
