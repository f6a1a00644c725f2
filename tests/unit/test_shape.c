/*
 * Unit tests for query shapes (src/project/shape.c): a model written
 * again in another form has the same shape; a change of one expression
 * touches that column alone, one of what decides the rows touches them
 * all; the text a state row holds reads back as the same shape.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "core/buf.h"
#include "project/shape.h"

#include <string.h>

static int setup(void **state)
{
	struct fixture_project *f;

	fixture_project_setup(state, "shape");
	f = *state;
	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "seeds/orders.csv", "id,amount,region\n1,2.5,A\n");
	return 0;
}

/* The shape of gold.m written as sql. */
static struct model_shape shape(struct fixture_project *f, const char *sql)
{
	struct model_shape s;
	struct project *p;

	fixture_put(f->root, "models/gold/m.sql", sql);
	p = fixture_load_valid(f->a, f->root);
	if (!shape_of(f->a, fixture_model(p, "gold.m"), &s))
		fail_msg("no shape for '%s'", sql);
	return s;
}

/* What changed from was to now, as "rows" or "changed: a, b | removed: c
 * | added: d". */
static const char *diff(struct fixture_project *f, const char *was, const char *now)
{
	struct model_shape s0 = shape(f, was), s1 = shape(f, now);
	struct shape_diff d;
	struct buf b = BUF_INIT;
	const char *const *lists[] = { NULL, NULL, NULL };
	const char *out;

	shape_compare(f->a, &s0, &s1, &d);
	if (d.rows)
		return "rows";
	lists[0] = d.changed;
	lists[1] = d.removed;
	lists[2] = d.added;
	for (size_t l = 0; l < 3; l++) {
		size_t n = l == 0 ? d.nchanged : l == 1 ? d.nremoved : d.nadded;

		if (!n)
			continue;
		buf_addf(&b, "%s%s:", b.len ? " | " : "", l == 0 ? "changed" : l == 1 ? "removed" : "added");
		for (size_t i = 0; i < n; i++)
			buf_addf(&b, " %s", lists[l][i]);
	}
	out = arena_strdup(f->a, b.len ? b.buf : "same");
	buf_release(&b);
	return out;
}

static void test_form_changes_nothing(void **state)
{
	struct fixture_project *f = *state;

	assert_string_equal(diff(f, "@config materialized=table\nSELECT id, amount * 2 AS twice FROM seeds.orders\n",
				 "@config materialized=table\n-- doubled\nselect   id,\n  amount*2 as twice\nfrom seeds.orders\n"),
			    "same");
}

/* Two versions of gold.m (a table unless said) and what changed. */
static const char *const changes[][3] = {
	{ "SELECT id, amount * 2 AS twice, region FROM seeds.orders WHERE amount > 0",
	  "SELECT id, amount * 3 AS twice, region FROM seeds.orders WHERE amount > 0",
	  "changed: twice" },
	{ "SELECT id, amount * 2 AS twice, region FROM seeds.orders WHERE amount > 0",
	  "SELECT id, amount * 2 AS twice, region, upper(region) AS r FROM seeds.orders WHERE "
	  "amount > 0",
	  "added: r" },
	{ "SELECT id, amount * 2 AS twice, region FROM seeds.orders WHERE amount > 0",
	  "SELECT id, amount * 2 AS double, region FROM seeds.orders WHERE amount > 0",
	  "removed: twice | added: double" },
	/* what decides the rows: every column */
	{ "SELECT id, amount FROM seeds.orders WHERE amount > 0",
	  "SELECT id, amount FROM seeds.orders WHERE amount > 1", "rows" },
	{ "SELECT id, amount FROM seeds.orders", "SELECT DISTINCT id, amount FROM seeds.orders",
	  "rows" },
	{ "SELECT id, amount FROM seeds.orders", "SELECT id, amount FROM seeds.orders LIMIT 3",
	  "rows" },
	/* a setting is part of what decides the rows */
	{ "SELECT id, amount FROM seeds.orders",
	  "@config materialized=table, unique_key=id\nSELECT id, amount FROM seeds.orders", "rows" },
	/* an incremental filter decides the rows of incremental runs */
	{ "@config materialized=incremental,\n  incremental_filter=WHERE id > 1\n"
	  "SELECT id, amount FROM seeds.orders",
	  "@config materialized=incremental,\n  incremental_filter=WHERE id > 2\n"
	  "SELECT id, amount FROM seeds.orders",
	  "rows" },
	{ "@config materialized=incremental,\n  incremental_filter=WHERE id > 1\n"
	  "SELECT id, amount FROM seeds.orders",
	  "@config materialized=incremental,\n  incremental_filter=WHERE id > 1\n"
	  "SELECT id, amount + 1 AS amount FROM seeds.orders",
	  "changed: amount" },
	/* a set operation is one whole */
	{ "SELECT id FROM seeds.orders UNION ALL SELECT 1",
	  "SELECT id FROM seeds.orders UNION ALL SELECT 2", "rows" },
	/* a star's columns are its relations': changed, it touches them all */
	{ "SELECT *, 1 AS one FROM seeds.orders", "SELECT *, 2 AS one FROM seeds.orders",
	  "changed: one" },
	{ "SELECT * FROM seeds.orders", "SELECT * EXCLUDE (region) FROM seeds.orders", "rows" },
};

/* sql as a model file: its own @config, else a table's */
static const char *model_file(struct fixture_project *f, const char *sql)
{
	return strncmp(sql, "@config", 7) == 0 ? arena_sprintf(f->a, "%s\n", sql)
					       : arena_sprintf(f->a, "@config materialized=table\n%s\n",
							       sql);
}

static void test_columns_and_rows(void **state)
{
	struct fixture_project *f = *state;

	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++)
		assert_string_equal(diff(f, model_file(f, changes[i][0]), model_file(f, changes[i][1])),
				    changes[i][2]);
}

static void test_recorded_form(void **state)
{
	struct fixture_project *f = *state;
	struct model_shape s = shape(f, "@config materialized=table\nSELECT id AS \"a;b=c%\", random() AS r FROM seeds.orders\n");
	struct model_shape back;
	struct shape_diff d;

	assert_true(s.varies);
	assert_int_equal(s.ncols, 2);
	assert_true(shape_parse(f->a, shape_format(f->a, &s), &back));
	assert_true(back.varies);
	assert_string_equal(back.rows, s.rows);
	assert_string_equal(back.cols[0].name, "a;b=c%");
	shape_compare(f->a, &s, &back, &d);
	assert_false(d.rows);
	assert_int_equal(d.nchanged + d.nadded + d.nremoved, 0);
	assert_false(shape_diff_touches(&d, "r"));
	assert_false(shape_parse(f->a, "rows=abc", &back));
	assert_false(shape_parse(f->a, NULL, &back));
	assert_false(shape_of(f->a, &(struct model){ .tree = NULL }, &back));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_form_changes_nothing, setup,
						fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_columns_and_rows, setup, fixture_project_teardown),
		cmocka_unit_test_setup_teardown(test_recorded_form, setup, fixture_project_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
