/*
 * Unit tests for declared inputs (src/project/declared.c): a hardcoded
 * input's rows as a query, what is wrong with malformed ones, content
 * hashes that change with the content alone, and the signature part a
 * model's build records for them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "project/dag.h"
#include "project/declared.h"

#include <string.h>

static int setup(void **state)
{
	struct fixture_project *f;

	fixture_project_setup(state, "declared");
	f = *state;
	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "seeds/orders.csv", "id,currency\n1,EUR\n");
	fixture_put(f->root, "data/terms.txt", "v1\n");
	return 0;
}

/* gold.m declaring upstream, loaded and its graph built. */
static struct model *declaring(struct fixture_project *f, const char *upstream)
{
	fixture_put(f->root, "models/gold/m.sql",
		    arena_sprintf(f->a, "@upstream %s\nSELECT id FROM seeds.orders\n", upstream));
	f->p = fixture_load(f->a, f->root);
	dag_build(f->p, NULL, 0);
	return fixture_model(f->p, "gold.m");
}

static void test_rows_as_a_query(void **state)
{
	struct fixture_project *f = *state;
	struct model *m = declaring(f, "ref.fx type=hardcoded rows=[{currency: EUR, rate: 1.5}, "
				       "{currency: 'it''s', rate: null}, {currency: -3, rate: true}]");
	const char *why;

	assert_int_equal(f->p->diags.n, 0);
	assert_string_equal(declared_query(f->a, &m->upstreams[0], &why),
			    "SELECT * FROM (VALUES ('EUR', 1.5), ('it''s', NULL), (-3, TRUE)) AS "
			    "_sluice_rows(\"currency\", \"rate\")");
	assert_int_equal(strlen(m->upstreams[0].content_hash), 64);
	assert_true(declared_hardcoded_named(m, "REF", "fx") == &m->upstreams[0]);
	assert_null(declared_hardcoded_named(m, "ref", "other"));
	assert_string_equal(declared_signature(f->a, m),
			    arena_sprintf(f->a, ",ref.fx#%.16s", m->upstreams[0].content_hash));
}

static void test_malformed(void **state)
{
	static const char *const cases[][2] = {
		{ "ref.x type=hardcoded", "a hardcoded input has rows=[...] or sql=..., one of them" },
		{ "ref.x type=hardcoded rows=[{a: 1}] sql='SELECT 1 AS a'",
		  "a hardcoded input has rows=[...] or sql=..., one of them" },
		{ "ref.x type=hardcoded rows=[]", "rows is a list of rows, such as [{id: 1, code: SE}]" },
		{ "ref.x type=hardcoded rows=[1, 2]",
		  "each row is a mapping of columns to values, such as {id: 1, code: SE}" },
		{ "ref.x type=hardcoded rows=[{a: 1}, {b: 2}]",
		  "row 2 names its columns otherwise than row 1" },
		{ "ref.x type=hardcoded rows=[{a: [1, 2]}]", "row 1: the value of a is no single value" },
		{ "ref.x type=hardcoded rows=[{1a: 1}]", "'1a' is not a column name" },
	};
	struct fixture_project *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why;

		declaring(f, cases[i][0]);
		assert_null(declared_query(f->a, &fixture_model(f->p, "gold.m")->upstreams[0], &why));
		assert_string_equal(why, cases[i][1]);
		assert_non_null(fixture_diag(f->p, arena_sprintf(f->a, "hardcoded input 'ref.x': %s",
								 cases[i][1])));
	}
}

static void test_hashes_follow_content(void **state)
{
	struct fixture_project *f = *state;
	char was[65], file_was[65];
	struct model *m = declaring(f, "ref.x type=hardcoded sql='SELECT 1 AS a'");

	strcpy(was, m->upstreams[0].content_hash);
	m = declaring(f, "ref.x   type=hardcoded  sql='SELECT 1 AS a'");
	assert_string_equal(m->upstreams[0].content_hash, was);
	m = declaring(f, "ref.x type=hardcoded sql='SELECT 2 AS a'");
	assert_string_not_equal(m->upstreams[0].content_hash, was);

	m = declaring(f, "terms type=file path=data/terms.txt");
	strcpy(file_was, m->upstreams[0].content_hash);
	assert_int_equal(strlen(file_was), 64);
	fixture_put(f->root, "data/terms.txt", "v2\n");
	m = declaring(f, "terms type=file path=data/terms.txt");
	assert_string_not_equal(m->upstreams[0].content_hash, file_was);
	/* an api has no content sluice can see */
	m = declaring(f, "prices type=api url=https://example.com/prices");
	assert_string_equal(m->upstreams[0].content_hash, "");
	assert_string_equal(declared_signature(f->a, m), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rows_as_a_query, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_hashes_follow_content, setup,
						fixture_project_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
