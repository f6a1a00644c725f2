/*
 * Unit tests for the model header parser (src/project/header.c): splitting a
 * model file into directives and query, each directive form, pipeline.yml
 * defaults, and the diagnostics for bad keys, values and combinations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "project/config.h"
#include "project/header.h"
#include "project/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH "models/silver/orders.sql"
#define PIPELINE "models/silver/pipeline.yml"

struct fx {
	struct arena *a;
	struct model m;
	struct diag_list d;
	struct kv_list defaults;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->a = arena_new(NULL);
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	arena_free(f->a);
	free(f);
	return 0;
}

static int parse(struct fx *f, const char *text)
{
	f->m.text = text;
	return header_parse(f->a, &f->m, &f->d);
}

static int apply(struct fx *f)
{
	return header_apply_settings(f->a, &f->m, &f->defaults, PIPELINE, &f->d);
}

static void add_default(struct fx *f, const char *key, const char *value, int line)
{
	struct cfg_kv *kv = ARENA_PUSH(f->a, &f->defaults.items, &f->defaults.n, &f->defaults.cap);

	kv->key = key;
	kv->value = value;
	kv->line = line;
}

/* The diagnostic with exactly this message; fails the test when absent. */
static const struct diag *diag_find(struct fx *f, const char *msg)
{
	for (size_t i = 0; i < f->d.n; i++)
		if (strcmp(f->d.items[i].msg, msg) == 0)
			return &f->d.items[i];
	diag_print(&f->d, stderr);
	fail_msg("no diagnostic '%s'", msg);
	return NULL;
}

static void expect_diag(struct fx *f, const char *file, int line, const char *msg,
			const char *hint)
{
	const struct diag *d = diag_find(f, msg);

	assert_int_equal(d->severity, DIAG_ERROR);
	assert_string_equal(d->file, file);
	assert_int_equal(d->line, line);
	if (hint)
		assert_string_equal(d->hint, hint);
}

static void expect_clean(struct fx *f)
{
	if (f->d.n)
		diag_print(&f->d, stderr);
	assert_int_equal(f->d.n, 0);
}

static const struct model_setting *setting(struct fx *f, const char *key)
{
	for (size_t i = 0; i < f->m.nsettings; i++)
		if (strcmp(f->m.settings[i].key, key) == 0)
			return &f->m.settings[i];
	fail_msg("no setting '%s'", key);
	return NULL;
}

static void test_design_example(void **state)
{
	struct fx *f = *state;
	const struct model_setting *s;

	assert_int_equal(parse(f, "@config materialized=incremental, live=true, incremental_strategy=merge,\n"
				  "        unique_key=order_id, incremental_filter=WHERE _sluice_seq > {watermark}\n"
				  "@assert not_null(order_id)\n"
				  "@assert unique(order_id)\n"
				  "@assert warn: amount >= 0\n"
				  "SELECT order_id, amount, region, _sluice_seq FROM landing.orders\n"),
			 0);
	assert_int_equal(apply(f), 0);
	expect_clean(f);

	assert_int_equal(f->m.nsettings, 5);
	s = setting(f, "unique_key");
	assert_string_equal(s->value, "order_id");
	assert_int_equal(s->line, 2);
	assert_false(s->from_pipeline);
	assert_int_equal(setting(f, "materialized")->line, 1);
	assert_int_equal(f->m.mat, MAT_INCREMENTAL);
	assert_int_equal(f->m.strategy, STRAT_MERGE);
	assert_true(f->m.live);
	assert_int_equal(f->m.nunique_key, 1);
	assert_string_equal(f->m.unique_key[0], "order_id");
	assert_string_equal(f->m.filter, "WHERE _sluice_seq > {watermark}");
	assert_int_equal(f->m.filter_line, 2);

	assert_int_equal(f->m.nasserts, 3);
	assert_int_equal(f->m.asserts[0].kind, ASSERT_NOT_NULL);
	assert_int_equal(f->m.asserts[0].line, 3);
	assert_false(f->m.asserts[0].warn);
	assert_string_equal(f->m.asserts[0].cols[0], "\"order_id\"");
	assert_int_equal(f->m.asserts[1].kind, ASSERT_UNIQUE);
	assert_int_equal(f->m.asserts[2].kind, ASSERT_EXPRESSION);
	assert_true(f->m.asserts[2].warn);
	assert_string_equal(f->m.asserts[2].sql, "amount >= 0");
	assert_string_equal(f->m.asserts[2].text, "amount >= 0");

	assert_string_equal(f->m.body,
			    "SELECT order_id, amount, region, _sluice_seq FROM landing.orders");
	assert_int_equal(f->m.body_line, 6);
}

static void test_continuation_lines(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=table,\n"
				  "\ttags=[a,\n"
				  "\t  b],\n"
				  "  description='three lines'\n"
				  "SELECT 1\n"),
			 0);
	expect_clean(f);
	assert_int_equal(f->m.nsettings, 3);
	assert_int_equal(setting(f, "tags")->line, 2);
	assert_int_equal(setting(f, "tags")->nlist, 2);
	assert_int_equal(setting(f, "description")->line, 4);
	assert_string_equal(setting(f, "description")->value, "three lines");
	assert_int_equal(f->m.body_line, 5);
}

static void test_comment_lines_in_header(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "-- the orders, cleaned\n"
				  "@config materialized=table, -- why a table: it is big\n"
				  "    -- a comment inside the directive keeps it open\n"
				  "    description='x -- not a comment'\n"
				  "\n"
				  "@assert not_null(id) -- ids are required\n"
				  "  -- indented comment\n"
				  "SELECT id FROM t\n"),
			 0);
	expect_clean(f);
	assert_int_equal(f->m.nsettings, 2);
	assert_int_equal(setting(f, "materialized")->line, 2);
	assert_string_equal(setting(f, "materialized")->value, "table");
	assert_int_equal(setting(f, "description")->line, 4);
	assert_string_equal(setting(f, "description")->value, "x -- not a comment");
	assert_int_equal(f->m.nasserts, 1);
	assert_string_equal(f->m.asserts[0].text, "not_null(id)");
	assert_int_equal(f->m.asserts[0].line, 6);
	assert_string_equal(f->m.body, "SELECT id FROM t");
	assert_int_equal(f->m.body_line, 8);
}

static void test_blank_line_ends_directive(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=table\n"
				  "\n"
				  "    SELECT 1\n"),
			 0);
	expect_clean(f);
	assert_int_equal(f->m.nsettings, 1);
	assert_string_equal(f->m.body, "    SELECT 1");
	assert_int_equal(f->m.body_line, 3);
}

static void test_quoted_values(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config description='orders, it''s by region', "
				  "replay_on_change='bounded-7d',\n"
				  "  live_interval=10s, live=false, time_column = op\n"
				  "SELECT 1"),
			 0);
	expect_clean(f);
	assert_int_equal(f->m.nsettings, 5);
	assert_string_equal(setting(f, "description")->value, "orders, it's by region");
	assert_string_equal(setting(f, "replay_on_change")->value, "bounded-7d");
	assert_string_equal(setting(f, "time_column")->value, "op");
	assert_int_equal(apply(f), 0);
	assert_string_equal(f->m.description, "orders, it's by region");
	assert_int_equal(f->m.live_interval_ms, 10000);
	assert_false(f->m.live);
}

static void test_lists(void **state)
{
	struct fx *f = *state;
	const struct model_setting *s;

	assert_int_equal(parse(f, "@config materialized=snapshot, unique_key=[id, 'region'],\n"
				  "  check_cols=[status], tags=[gold, 'daily, weekly report']\n"
				  "SELECT 1"),
			 0);
	assert_int_equal(apply(f), 0);
	expect_clean(f);
	s = setting(f, "unique_key");
	assert_true(s->is_list);
	assert_int_equal(s->nlist, 2);
	assert_string_equal(s->list[0], "id");
	assert_string_equal(s->list[1], "region");
	assert_string_equal(s->value, "[id, region]");
	assert_int_equal(f->m.mat, MAT_SNAPSHOT);
	assert_int_equal(f->m.strategy, STRAT_NONE);
	assert_int_equal(f->m.nunique_key, 2);
	assert_string_equal(f->m.unique_key[1], "region");
	assert_int_equal(f->m.ncheck_cols, 1);
	assert_string_equal(f->m.check_cols[0], "status");
	assert_int_equal(f->m.ntags, 2);
	assert_string_equal(f->m.tags[1], "daily, weekly report");
}

static void test_list_errors(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config tags=[a,, b], unique_key=[id\nSELECT 1"), SL_E_PARSE);
	expect_diag(f, PATH, 1, "empty item in the list of 'tags'", "remove the extra comma");
	expect_diag(f, PATH, 1, "unclosed list in the value of 'unique_key'",
		    "close the list with ']'");
}

static void test_incremental_filter(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=incremental, incremental_filter=\n"
				  "    WHERE (a, b) IN (SELECT a, b FROM t), -- new rows\n"
				  "    -- still the filter\n"
				  "      AND x > 'p, q'\n"
				  "@assert not_null(a)\n"
				  "SELECT a, b FROM t\n"),
			 0);
	assert_int_equal(apply(f), 0);
	expect_clean(f);
	assert_int_equal(f->m.nsettings, 2);
	assert_string_equal(f->m.filter,
			    "WHERE (a, b) IN (SELECT a, b FROM t), \n    \n      AND x > 'p, q'");
	assert_int_equal(f->m.filter_line, 2);
	assert_int_equal(setting(f, "incremental_filter")->line, 1);
	assert_string_equal(setting(f, "incremental_filter")->value, f->m.filter);
	assert_int_equal(f->m.strategy, STRAT_APPEND);
	assert_int_equal(f->m.body_line, 6);
}

static void test_body_and_semicolon(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=view\n"
				  "\n"
				  "-- the query\n"
				  "SELECT a,\n"
				  "       b\n"
				  "FROM t;  \n"
				  "\n"),
			 0);
	expect_clean(f);
	assert_string_equal(f->m.body, "SELECT a,\n       b\nFROM t");
	assert_int_equal(f->m.body_line, 4);
}

static void test_no_header(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "SELECT 1;"), 0);
	assert_int_equal(apply(f), 0);
	expect_clean(f);
	assert_string_equal(f->m.body, "SELECT 1");
	assert_int_equal(f->m.body_line, 1);
	assert_int_equal(f->m.mat, MAT_VIEW);
	assert_int_equal(f->m.strategy, STRAT_NONE);
}

static void test_crlf(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=table,\r\n  tags=[a, b]\r\n\r\nSELECT 1;\r\n"),
			 0);
	assert_int_equal(apply(f), 0);
	expect_clean(f);
	assert_int_equal(f->m.mat, MAT_TABLE);
	assert_int_equal(f->m.ntags, 2);
	assert_string_equal(f->m.tags[1], "b");
	assert_string_equal(f->m.body, "SELECT 1");
	assert_int_equal(f->m.body_line, 4);
}

static void test_no_query(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=table\n-- nothing else\n\n"), SL_E_PARSE);
	expect_diag(f, PATH, 1, "model '" PATH "' has no query", NULL);
	assert_string_equal(f->m.body, "");
	assert_int_equal(f->d.n, 1);
}

static void test_empty_file(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, ""), SL_E_PARSE);
	expect_diag(f, PATH, 1, "model '" PATH "' has no query", NULL);
	diag_list_init(&f->d, f->a);
	assert_int_equal(parse(f, ";\n"), SL_E_PARSE);
	expect_diag(f, PATH, 1, "model '" PATH "' has no query", NULL);
}

static void test_unknown_directive(void **state)
{
	struct fx *f = *state;
	const struct diag *d;

	assert_int_equal(parse(f, "@config live=true\n@confg materialized=table\n@zzz\nSELECT 1"),
			 SL_E_PARSE);
	expect_diag(f, PATH, 2, "unknown directive '@confg'", "did you mean '@config'?");
	d = diag_find(f, "unknown directive '@zzz'");
	assert_null(d->hint);
	assert_int_equal(f->m.nsettings, 1);
	assert_string_equal(f->m.body, "SELECT 1");
}

static void test_assert_not_null_unique(void **state)
{
	struct fx *f = *state;
	const struct model_assert *as;

	assert_int_equal(parse(f, "@assert not_null(order_id)\n"
				  "@assert error: unique(order_id, Region)\n"
				  "SELECT 1"),
			 0);
	expect_clean(f);
	assert_int_equal(f->m.nasserts, 2);
	as = &f->m.asserts[0];
	assert_int_equal(as->kind, ASSERT_NOT_NULL);
	assert_int_equal(as->ncols, 1);
	/* the columns as SQL, quoted: a keyword or mixed case stands for itself */
	assert_string_equal(as->cols[0], "\"order_id\"");
	assert_string_equal(as->text, "not_null(order_id)");
	as = &f->m.asserts[1];
	assert_int_equal(as->kind, ASSERT_UNIQUE);
	assert_false(as->warn);
	assert_int_equal(as->line, 2);
	assert_int_equal(as->ncols, 2);
	assert_string_equal(as->cols[1], "\"Region\"");
	assert_string_equal(as->text, "unique(order_id, Region)");
}

static void test_assert_accepted_values(void **state)
{
	struct fx *f = *state;
	const struct model_assert *as;

	assert_int_equal(parse(f, "@assert warn: accepted_values(region, [eu, us, 'latin america',"
				  " 3, -1.5, it's])\n"
				  "SELECT 1"),
			 0);
	expect_clean(f);
	as = &f->m.asserts[0];
	assert_int_equal(as->kind, ASSERT_ACCEPTED_VALUES);
	assert_true(as->warn);
	assert_int_equal(as->ncols, 1);
	assert_string_equal(as->cols[0], "\"region\"");
	assert_int_equal(as->nvalues, 6);
	assert_string_equal(as->values[0], "'eu'");
	assert_string_equal(as->values[1], "'us'");
	assert_string_equal(as->values[2], "'latin america'");
	assert_string_equal(as->values[3], "3");
	assert_string_equal(as->values[4], "-1.5");
	assert_string_equal(as->values[5], "'it''s'");
}

static void test_assert_relationships(void **state)
{
	struct fx *f = *state;
	const struct model_assert *as;

	assert_int_equal(parse(f, "@assert relationships(customer_id, silver.customers(id))\n"
				  "SELECT 1"),
			 0);
	expect_clean(f);
	as = &f->m.asserts[0];
	assert_int_equal(as->kind, ASSERT_RELATIONSHIPS);
	assert_string_equal(as->cols[0], "\"customer_id\"");
	assert_string_equal(as->ref_schema, "silver");
	assert_string_equal(as->ref_name, "customers");
	assert_string_equal(as->ref_col, "\"id\"");
}

static void test_assert_rows_and_expression(void **state)
{
	struct fx *f = *state;
	const struct model_assert *as;

	assert_int_equal(parse(f, "@assert rows: SELECT * FROM {this}\n"
				  "    WHERE amount < 0\n"
				  "@assert warn:rows: SELECT 1 WHERE false\n"
				  "@assert error: amount >= 0 AND region <> ''\n"
				  "@assert unique_count > 0\n"
				  "SELECT 1"),
			 0);
	expect_clean(f);
	assert_int_equal(f->m.nasserts, 4);
	as = &f->m.asserts[0];
	assert_int_equal(as->kind, ASSERT_ROWS);
	assert_false(as->warn);
	assert_string_equal(as->sql, "SELECT * FROM {this}\n    WHERE amount < 0");
	assert_int_equal(as->line, 1);
	as = &f->m.asserts[1];
	assert_int_equal(as->kind, ASSERT_ROWS);
	assert_true(as->warn);
	assert_string_equal(as->sql, "SELECT 1 WHERE false");
	assert_string_equal(as->text, "rows: SELECT 1 WHERE false");
	as = &f->m.asserts[2];
	assert_int_equal(as->kind, ASSERT_EXPRESSION);
	assert_false(as->warn);
	assert_string_equal(as->sql, "amount >= 0 AND region <> ''");
	assert_int_equal(as->line, 4);
	as = &f->m.asserts[3];
	assert_int_equal(as->kind, ASSERT_EXPRESSION);
	assert_string_equal(as->sql, "unique_count > 0");
}

static void test_assert_malformed(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@assert not_null()\n"
				  "@assert unique(\n"
				  "@assert accepted_values(region)\n"
				  "@assert relationships(a, customers(id))\n"
				  "@assert not_null(a, b)\n"
				  "@assert warn:\n"
				  "@assert rows:\n"
				  "SELECT 1"),
			 SL_E_PARSE);
	expect_diag(f, PATH, 1, "malformed @assert 'not_null()': not_null takes one column",
		    "write not_null(col)");
	expect_diag(f, PATH, 2, "malformed @assert 'unique(': missing ')'",
		    "write unique(col) or unique(col1, col2)");
	expect_diag(f, PATH, 3,
		    "malformed @assert 'accepted_values(region)': accepted_values takes a column and a list of values",
		    "write accepted_values(col, [a, b, 'c d'])");
	expect_diag(f, PATH, 4,
		    "malformed @assert 'relationships(a, customers(id))': the relationships target needs a schema (schema.model(col))",
		    "write relationships(col, other_schema.model(col))");
	expect_diag(f, PATH, 5, "malformed @assert 'not_null(a, b)': not_null takes one column",
		    NULL);
	expect_diag(f, PATH, 6, "@assert needs a check", NULL);
	expect_diag(f, PATH, 7, "@assert 'rows:' needs a query", NULL);
	assert_int_equal(f->d.n, 7);
	assert_int_equal(f->m.nasserts, 0);
}

static void test_upstream_options(void **state)
{
	struct fx *f = *state;
	const struct model_upstream *u;

	assert_int_equal(parse(f, "@upstream silver.orders contract=exact freshness=1h\n"
				  "    freshness_scope=all deactivate_for_dev=true\n"
				  "@upstream rates type=file path='data/my rates.csv'\n"
				  "@upstream landing.events\n"
				  "SELECT 1"),
			 0);
	expect_clean(f);
	assert_int_equal(f->m.nupstreams, 3);
	u = &f->m.upstreams[0];
	assert_string_equal(u->name, "silver.orders");
	assert_int_equal(u->line, 1);
	assert_int_equal(u->nopts, 4);
	assert_string_equal(u->keys[0], "contract");
	assert_string_equal(u->values[0], "exact");
	assert_string_equal(u->keys[1], "freshness");
	assert_string_equal(u->values[1], "1h");
	assert_string_equal(u->keys[3], "deactivate_for_dev");
	assert_string_equal(u->values[3], "true");
	u = &f->m.upstreams[1];
	assert_int_equal(u->line, 3);
	assert_int_equal(u->nopts, 2);
	assert_string_equal(u->values[1], "data/my rates.csv");
	assert_int_equal(f->m.upstreams[2].nopts, 0);
}

static void test_upstream_errors(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@upstream silver.orders contrct=exact\n"
				  "@upstream a contract=EXACT freshness=soon\n"
				  "    freshness_scope=some type=database\n"
				  "@upstream contract=exists\n"
				  "@upstream b deactivate_for_dev\n"
				  "SELECT 1"),
			 SL_E_PARSE);
	expect_diag(f, PATH, 1, "unknown @upstream option 'contrct'", "did you mean 'contract'?");
	expect_diag(f, PATH, 2, "invalid contract 'EXACT'",
		    "did you mean 'exact'? (one of exists, exact, encapsulate, through, whole)");
	expect_diag(f, PATH, 2, "invalid freshness 'soon'", NULL);
	expect_diag(f, PATH, 3, "invalid freshness_scope 'some'", "one of latest, all");
	expect_diag(f, PATH, 3, "invalid type 'database'", NULL);
	expect_diag(f, PATH, 4, "@upstream needs a name before its options", NULL);
	expect_diag(f, PATH, 5, "missing '=' in @upstream option 'deactivate_for_dev'", NULL);
	assert_int_equal(f->d.n, 7);
	assert_int_equal(diag_find(f, "invalid freshness_scope 'some'")->col, 21);
}

/* freshness=0 would check nothing, and an age over a year is a slip of
 * the unit; a model's live_interval 0 is "no spacing" and may not pass a
 * year either. */
static void test_zero_and_huge_durations(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=incremental, live=true, live_interval=400d,\n"
				  "  incremental_filter=WHERE _sluice_seq > {watermark}\n"
				  "@upstream a contract=whole freshness=0\n"
				  "@upstream b contract=whole freshness=0s\n"
				  "@upstream c contract=whole freshness=53w\n"
				  "@upstream d contract=whole freshness=365d\n"
				  "SELECT 1"),
			 SL_E_PARSE);
	expect_diag(f, PATH, 3, "invalid freshness 0",
		    "0 checks nothing: give the age the upstream's rows may have, e.g. 1h, or "
		    "remove freshness");
	/* written 0s: the same */
	assert_string_equal(f->d.items[1].msg, "invalid freshness 0");
	assert_int_equal(f->d.items[1].line, 4);
	expect_diag(f, PATH, 5, "invalid freshness '53w' (more than a year)", "write at most 365d");
	assert_int_equal(f->d.n, 3);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 1, "invalid live_interval '400d' (more than a year)",
		    "write at most 365d");
	assert_int_equal(f->d.n, 4);

	f->d.n = 0;
	f->m = (struct model){ .path = PATH };
	assert_int_equal(parse(f, "@config materialized=incremental, live=true, live_interval=0,\n"
				  "  incremental_filter=WHERE _sluice_seq > {watermark}\n"
				  "SELECT 1"),
			 0);
	assert_int_equal(apply(f), 0);
	expect_clean(f);
}

static void test_upstream_duplicate_option(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@upstream a contract=exists\n"
				  "  contract=whole contract=exact\n"
				  "SELECT 1"),
			 SL_E_PARSE);
	assert_int_equal(f->d.n, 2);
	assert_int_equal(diag_find(f, "duplicate @upstream option 'contract'")->line, 2);
	assert_int_equal(f->m.upstreams[0].nopts, 3);
}

static void test_config_syntax_errors(void **state)
{
	struct fx *f = *state;
	const struct diag *d;

	assert_int_equal(parse(f, "@config materialized=table, live, tags=[a],\n"
				  "  materialized=view, description='open\n"
				  "@config =x, unique_key=\n"
				  "SELECT 1"),
			 SL_E_PARSE);
	d = diag_find(f, "missing '=' after @config key 'live'");
	assert_int_equal(d->line, 1);
	assert_int_equal(d->col, 29);
	assert_string_equal(d->hint, "write key=value");
	expect_diag(f, PATH, 2, "duplicate @config key 'materialized'", "first set on line 1");
	expect_diag(f, PATH, 2, "unterminated quoted value of 'description'", NULL);
	expect_diag(f, PATH, 3, "missing @config key before '='", NULL);
	expect_diag(f, PATH, 3, "@config key 'unique_key' has no value", NULL);
	assert_string_equal(setting(f, "materialized")->value, "table");
	assert_string_equal(setting(f, "tags")->value, "[a]");
}

static void test_unexpected_text_after_value(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config description='a' 'b', materialized=table\nSELECT 1"),
			 SL_E_PARSE);
	expect_diag(f, PATH, 1, "unexpected text after the value of 'description'",
		    "separate settings with commas");
	assert_string_equal(setting(f, "materialized")->value, "table");
}

static void test_pipeline_defaults(void **state)
{
	struct fx *f = *state;
	const struct model_setting *s;

	add_default(f, "materialized", "view", 1);
	add_default(f, "tags", "[nightly, 'gold tier']", 2);
	add_default(f, "description", "from the folder, with a comma", 3);
	add_default(f, "live", "false", 4);
	assert_int_equal(parse(f, "@config materialized=table, live=true\nSELECT 1"), 0);
	assert_int_equal(apply(f), SL_E_CONFIG); /* live table */
	assert_int_equal(f->m.mat, MAT_TABLE);
	assert_false(setting(f, "materialized")->from_pipeline);
	s = setting(f, "tags");
	assert_true(s->from_pipeline);
	assert_int_equal(s->line, 2);
	assert_true(s->is_list);
	assert_int_equal(f->m.ntags, 2);
	assert_string_equal(f->m.tags[0], "nightly");
	assert_string_equal(f->m.tags[1], "gold tier");
	s = setting(f, "description");
	assert_true(s->from_pipeline);
	assert_false(s->is_list);
	assert_string_equal(f->m.description, "from the folder, with a comma");
	assert_false(setting(f, "live")->from_pipeline);
	assert_int_equal(f->m.nsettings, 4);
	expect_diag(f, PATH, 1, "a live model must be incremental or a view",
		    "this model is materialized as table");
}

static void test_pipeline_unknown_and_bad(void **state)
{
	struct fx *f = *state;

	add_default(f, "uniqe_key", "id", 3);
	add_default(f, "materialized", "incremental", 4);
	add_default(f, "incremental_strategy", "merge", 5);
	add_default(f, "incremental_filter", "WHERE _sluice_seq > {watermark}", 6);
	assert_int_equal(parse(f, "SELECT 1"), 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PIPELINE, 3, "unknown @config key 'uniqe_key'", "did you mean 'unique_key'?");
	/* a rule broken by a pipeline.yml value points at pipeline.yml */
	expect_diag(f, PIPELINE, 5, "incremental_strategy 'merge' needs unique_key", NULL);
	assert_int_equal(f->d.n, 2);
	assert_int_equal(f->m.mat, MAT_INCREMENTAL);
	assert_string_equal(f->m.filter, "WHERE _sluice_seq > {watermark}");
}

static void test_unknown_key(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=table,\n  uniqe_key=id, colour=red\nSELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 2, "unknown @config key 'uniqe_key'", "did you mean 'unique_key'?");
	assert_null(diag_find(f, "unknown @config key 'colour'")->hint);
	assert_int_equal(f->d.n, 2);
	assert_int_equal(f->m.mat, MAT_TABLE);
}

static void test_bad_values(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=tabel, live=yes, live_interval=soon,\n"
				  "  grain=2h, cdc_deletes=HARD, temporality=temporl,\n"
				  "  flexibility=[fix], replay_anchor=sometimes,\n"
				  "  bounded_replay_fallback=bounded\n"
				  "SELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 1, "invalid materialized 'tabel'",
		    "did you mean 'table'? (one of view, table, incremental, ephemeral, snapshot)");
	expect_diag(f, PATH, 1, "invalid live 'yes'", "one of false, true");
	expect_diag(f, PATH, 1, "invalid live_interval 'soon'", "a duration such as 500ms, 10s or 5m");
	expect_diag(f, PATH, 2, "invalid grain '2h'", NULL);
	expect_diag(f, PATH, 2, "invalid cdc_deletes 'HARD'", "did you mean 'hard'? (one of hard, soft)");
	expect_diag(f, PATH, 2, "invalid temporality 'temporl'",
		    "did you mean 'temporal'? (one of timeless, temporal)");
	expect_diag(f, PATH, 3, "'flexibility' takes one value, not a list", NULL);
	expect_diag(f, PATH, 3, "invalid replay_anchor 'sometimes'", "one of auto, never");
	expect_diag(f, PATH, 4, "invalid bounded_replay_fallback 'bounded'", NULL);
	assert_int_equal(f->d.n, 9);
	/* the best guess is kept, and no rule fires on a guessed value */
	assert_int_equal(f->m.mat, MAT_TABLE);
	assert_false(f->m.live);
}

/* The ivm of a model file read afresh, after apply returned rc; its
 * diagnostics add to f's. */
static enum model_ivm ivm_of(struct fx *f, const char *text, int rc)
{
	memset(&f->m, 0, sizeof(f->m));
	f->m.path = PATH;
	assert_int_equal(parse(f, text), 0);
	assert_int_equal(apply(f), rc);
	return f->m.ivm;
}

/* ivm is auto unless set, one of three words, from the model or its
 * folder; required and a hand-written filter contradict each other. */
static void test_ivm_setting(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ivm_of(f, "@config materialized=incremental, unique_key=id, live=true\n"
				   "SELECT 1",
				0),
			 MODEL_IVM_AUTO);
	assert_int_equal(ivm_of(f, "@config materialized=incremental, unique_key=id,\n"
				   "  live=true, ivm=required\nSELECT 1",
				0),
			 MODEL_IVM_REQUIRED);
	add_default(f, "ivm", "off", 4);
	assert_int_equal(ivm_of(f, "@config materialized=incremental, unique_key=id\nSELECT 1", 0),
			 MODEL_IVM_OFF);
	expect_clean(f);

	/* no guess: validate must not add an error over a typo */
	assert_int_equal(ivm_of(f, "@config materialized=incremental, unique_key=id,\n"
				   "  ivm=requird\nSELECT 1",
				SL_E_CONFIG),
			 MODEL_IVM_AUTO);
	expect_diag(f, PATH, 2, "invalid ivm 'requird'",
		    "did you mean 'required'? (one of auto, required, off)");

	ivm_of(f, "@config materialized=incremental, live=true, ivm=required,\n"
		  "  incremental_filter=WHERE _sluice_seq > {watermark}\nSELECT 1",
	       SL_E_CONFIG);
	expect_diag(f, PATH, 1,
		    "ivm 'required' derives the refresh from the query; incremental_filter writes "
		    "it by hand",
		    "remove incremental_filter, or ivm to keep writing it by hand");
	assert_int_equal(f->d.n, 2);
	/* a batch run reads the filter; ivm is about live refreshes */
	ivm_of(f, "@config materialized=incremental, ivm=required,\n"
		  "  incremental_filter=WHERE id > 0\nSELECT 1",
	       0);
}

static void test_default_strategy(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=incremental, unique_key=id\nSELECT 1"), 0);
	assert_int_equal(apply(f), 0);
	assert_int_equal(f->m.strategy, STRAT_MERGE);

	memset(&f->m, 0, sizeof(f->m));
	f->m.path = PATH;
	assert_int_equal(parse(f, "@config materialized=incremental\nSELECT 1"), 0);
	assert_int_equal(apply(f), 0);
	assert_int_equal(f->m.strategy, STRAT_APPEND);

	memset(&f->m, 0, sizeof(f->m));
	f->m.path = PATH;
	assert_int_equal(parse(f, "@config materialized=incremental, incremental_strategy=delete+insert,"
				  " unique_key=[a, b]\nSELECT 1"),
			 0);
	assert_int_equal(apply(f), 0);
	assert_int_equal(f->m.strategy, STRAT_DELETE_INSERT);
	expect_clean(f);
}

static void test_strategy_not_incremental(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=table,\n  incremental_strategy=append\nSELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 2, "incremental_strategy 'append' on a table model", NULL);
	assert_int_equal(f->m.strategy, STRAT_NONE);
	assert_int_equal(f->d.n, 1);
}

static void test_merge_needs_unique_key(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=incremental,\n"
				  "  incremental_strategy=merge\n"
				  "SELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 2, "incremental_strategy 'merge' needs unique_key", NULL);
	assert_int_equal(f->m.strategy, STRAT_MERGE);

	memset(&f->m, 0, sizeof(f->m));
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	assert_int_equal(parse(f, "@config materialized=incremental, incremental_strategy=delete+insert\n"
				  "SELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 1, "incremental_strategy 'delete+insert' needs unique_key", NULL);
}

/* A fresh model from text, parsed and checked; returns what apply() did. */
static int config_of(struct fx *f, const char *text)
{
	memset(&f->m, 0, sizeof(f->m));
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	assert_int_equal(parse(f, text), 0);
	return apply(f);
}

static void test_cdc_config(void **state)
{
	struct fx *f = *state;

	assert_int_equal(config_of(f, "@config materialized=incremental, unique_key=id,\n"
				      "  cdc_op=op, cdc_seq=lsn, cdc_deletes=soft\n"
				      "SELECT 1"),
			 0);
	expect_clean(f);
	assert_int_equal(f->m.strategy, STRAT_MERGE);
	assert_string_equal(f->m.cdc_op, "op");
	assert_string_equal(f->m.cdc_seq, "lsn");
	assert_true(f->m.cdc_soft);

	/* hard is the default; composite keys and delete+insert are fine */
	assert_int_equal(config_of(f, "@config materialized=incremental, incremental_strategy=delete+insert,\n"
				      "  unique_key=[a, b], cdc_op=op, cdc_seq=lsn\n"
				      "SELECT 1"),
			 0);
	expect_clean(f);
	assert_false(f->m.cdc_soft);
	assert_int_equal(f->m.nunique_key, 2);

	/* a model without the keys is not a change-event model */
	assert_int_equal(config_of(f, "@config materialized=incremental, unique_key=id\nSELECT 1"), 0);
	assert_null(f->m.cdc_op);
	assert_false(f->m.cdc_soft);
}

static void test_cdc_config_errors(void **state)
{
	struct fx *f = *state;

	assert_int_equal(config_of(f, "@config materialized=incremental, unique_key=id,\n"
				      "  cdc_op=op\nSELECT 1"),
			 SL_E_CONFIG);
	expect_diag(f, PATH, 2, "cdc_op needs cdc_seq",
		    "cdc_seq names the column that orders the changes of one key: an LSN, a "
		    "sequence number or a timestamp");
	assert_int_equal(f->d.n, 1);

	assert_int_equal(config_of(f, "@config materialized=incremental, unique_key=id,\n"
				      "  cdc_seq=lsn\nSELECT 1"),
			 SL_E_CONFIG);
	expect_diag(f, PATH, 2, "cdc_seq needs cdc_op",
		    "cdc_op names the column holding each change's operation: I/U/D, "
		    "insert/update/delete or Debezium's c/r/u/d");
	assert_int_equal(f->d.n, 1);

	assert_int_equal(config_of(f, "@config materialized=incremental, unique_key=id,\n"
				      "  cdc_deletes=soft\nSELECT 1"),
			 SL_E_CONFIG);
	expect_diag(f, PATH, 2, "cdc_deletes without cdc_op and cdc_seq",
		    "set cdc_op and cdc_seq, or remove cdc_deletes");

	assert_int_equal(config_of(f, "@config materialized=table, unique_key=id,\n"
				      "  cdc_op=op, cdc_seq=lsn\nSELECT 1"),
			 SL_E_CONFIG);
	expect_diag(f, PATH, 2, "cdc_op on a table model",
		    "change events apply to an incremental model: set materialized=incremental, "
		    "incremental_strategy=merge and unique_key");
	assert_int_equal(f->d.n, 1);

	assert_int_equal(config_of(f, "@config materialized=incremental, incremental_strategy=append,\n"
				      "  unique_key=id, cdc_op=op, cdc_seq=lsn\nSELECT 1"),
			 SL_E_CONFIG);
	expect_diag(f, PATH, 2, "cdc_op needs incremental_strategy merge or delete+insert, not 'append'",
		    NULL);
	assert_int_equal(f->d.n, 1);

	/* without unique_key the strategy defaults to append: the key is missing */
	assert_int_equal(config_of(f, "@config materialized=incremental,\n"
				      "  cdc_seq=lsn, cdc_op=op\nSELECT 1"),
			 SL_E_CONFIG);
	expect_diag(f, PATH, 2, "cdc_op needs unique_key",
		    "unique_key names the column(s) each change event applies to");
	assert_int_equal(f->d.n, 1);

	/* an explicit merge without a key is reported once, by its own rule */
	assert_int_equal(config_of(f, "@config materialized=incremental, incremental_strategy=merge,\n"
				      "  cdc_op=op, cdc_seq=lsn\nSELECT 1"),
			 SL_E_CONFIG);
	expect_diag(f, PATH, 1, "incremental_strategy 'merge' needs unique_key", NULL);
	assert_int_equal(f->d.n, 1);

	assert_int_equal(config_of(f, "@config materialized=incremental, unique_key=id,\n"
				      "  cdc_op=op, cdc_seq=lsn, cdc_deletes=sotf\nSELECT 1"),
			 SL_E_CONFIG);
	expect_diag(f, PATH, 2, "invalid cdc_deletes 'sotf'", "did you mean 'soft'? (one of hard, soft)");
	assert_int_equal(f->d.n, 1);

	assert_int_equal(config_of(f, "@config materialized=incremental, unique_key=[id, lsn],\n"
				      "  cdc_op=op,\n  cdc_seq=lsn\nSELECT 1"),
			 SL_E_CONFIG);
	expect_diag(f, PATH, 3, "cdc_seq 'lsn' is a unique_key column",
		    "the key names a row; cdc_op and cdc_seq describe each change to it");
	assert_int_equal(f->d.n, 1);

	assert_int_equal(config_of(f, "@config materialized=incremental, unique_key=id,\n"
				      "  cdc_op=op, cdc_seq=OP\nSELECT 1"),
			 SL_E_CONFIG);
	expect_diag(f, PATH, 2, "cdc_op and cdc_seq name the same column 'op'", NULL);
	assert_int_equal(f->d.n, 1);

	/* settings from pipeline.yml are reported there */
	memset(&f->m, 0, sizeof(f->m));
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	add_default(f, "cdc_op", "op", 4);
	assert_int_equal(parse(f, "@config materialized=view\nSELECT 1"), 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PIPELINE, 4, "cdc_op needs cdc_seq", NULL);
	expect_diag(f, PIPELINE, 4, "cdc_op on a view model", NULL);
	assert_int_equal(f->d.n, 2);
}

static void test_snapshot_rules(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=snapshot\nSELECT 1"), 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 1, "materialized 'snapshot' needs unique_key", NULL);

	memset(&f->m, 0, sizeof(f->m));
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	assert_int_equal(parse(f, "@config unique_key=id,\n  check_cols=[a, b]\nSELECT 1"), 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 2, "check_cols on a view model", NULL);
	assert_int_equal(f->m.ncheck_cols, 2);
	assert_int_equal(f->d.n, 1);
}

static void test_column_names(void **state)
{
	struct fx *f = *state;
	const struct model_assert *as;

	/* keywords, mixed case and non-ASCII letters are names like any other */
	assert_int_equal(config_of(f, "@config materialized=incremental, unique_key=[order, CustomerId],\n"
				      "  cdc_op=select, cdc_seq=_seq2, time_column=gr\xc3\xb6\xc3\x9f" "e\n"
				      "@assert not_null(group)\n"
				      "@assert accepted_values(Status, [a])\n"
				      "@assert relationships(CustomerId, crm.customers(Id))\n"
				      "SELECT 1"),
			 0);
	expect_clean(f);
	/* settings keep the name as written; the build quotes it */
	assert_string_equal(f->m.unique_key[0], "order");
	assert_string_equal(f->m.unique_key[1], "CustomerId");
	assert_string_equal(f->m.cdc_op, "select");
	as = &f->m.asserts[0];
	assert_string_equal(as->cols[0], "\"group\"");
	assert_string_equal(as->text, "not_null(group)");
	assert_string_equal(f->m.asserts[1].cols[0], "\"Status\"");
	as = &f->m.asserts[2];
	assert_string_equal(as->cols[0], "\"CustomerId\"");
	assert_string_equal(as->ref_col, "\"Id\"");
	assert_string_equal(as->ref_name, "customers");
}

static void test_column_names_refused(void **state)
{
	struct fx *f = *state;
	static const char *const plain =
		"a column name is letters, digits and underscores, not starting with a digit; "
		"give the column such a name in the query (... AS name)";

	memset(&f->m, 0, sizeof(f->m));
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	assert_int_equal(parse(f, "@config materialized=incremental, unique_key=[id, o.region],\n"
				  "  cdc_op='op code', cdc_seq=\"Seq\",\n"
				  "  time_column=1ts\n"
				  "@assert not_null(o.id)\n"
				  "@assert unique(id, lower(region))\n"
				  "@assert accepted_values(\"Status\", [a])\n"
				  "@assert relationships(customer_id, crm.customers(id; DROP))\n"
				  "@assert not_null(\"a b\")\n"
				  "SELECT 1"),
			 SL_E_PARSE);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 1, "unique_key 'o.region' is not a column name",
		    "write region alone, without its table");
	expect_diag(f, PATH, 2, "cdc_op 'op code' is not a column name", plain);
	expect_diag(f, PATH, 2, "cdc_seq '\"Seq\"' is not a column name",
		    "write Seq without quotes: sluice quotes column names itself");
	expect_diag(f, PATH, 3, "time_column '1ts' is not a column name", plain);
	expect_diag(f, PATH, 4, "malformed @assert 'not_null(o.id)': 'o.id' is not a column name",
		    "write id alone, without its table");
	expect_diag(f, PATH, 5,
		    "malformed @assert 'unique(id, lower(region))': 'lower(region)' is not a column "
		    "name",
		    plain);
	expect_diag(f, PATH, 6,
		    "malformed @assert 'accepted_values(\"Status\", [a])': '\"Status\"' is not a "
		    "column name",
		    "write Status without quotes: sluice quotes column names itself");
	expect_diag(f, PATH, 7,
		    "malformed @assert 'relationships(customer_id, crm.customers(id; DROP))': "
		    "'id; DROP' is not a column name",
		    plain);
	expect_diag(f, PATH, 8, "malformed @assert 'not_null(\"a b\")': '\"a b\"' is not a column name",
		    plain);
	assert_int_equal(f->d.n, 9);
	assert_int_equal(f->m.nasserts, 0);

	/* a name from pipeline.yml is reported there */
	memset(&f->m, 0, sizeof(f->m));
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	add_default(f, "check_cols", "[status, 'paid at']", 3);
	assert_int_equal(parse(f, "@config materialized=snapshot, unique_key=id\nSELECT 1"), 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PIPELINE, 3, "check_cols 'paid at' is not a column name", plain);
	assert_int_equal(f->d.n, 1);
}

static void test_filter_not_incremental(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=table,\n"
				  "  incremental_filter=WHERE id > 0\n"
				  "SELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 2, "incremental_filter on a table model", NULL);
}

static void test_live_materializations(void **state)
{
	static const char *const bad[] = {
		"@config materialized=table, live=true\nSELECT 1",
		"@config materialized=snapshot, unique_key=id, live=true\nSELECT 1",
		"@config materialized=ephemeral, live=true\nSELECT 1",
	};
	static const char *const good[] = {
		"@config live=true\nSELECT 1",
		"@config materialized=incremental, live=true, unique_key=id\nSELECT 1",
		"@config materialized=incremental, live=true,\n"
		"  incremental_filter=WHERE _sluice_seq > {watermark}\nSELECT 1",
	};
	struct fx *f = *state;

	for (size_t i = 0; i < 3; i++) {
		memset(&f->m, 0, sizeof(f->m));
		diag_list_init(&f->d, f->a);
		f->m.path = PATH;
		assert_int_equal(parse(f, bad[i]), 0);
		assert_int_equal(apply(f), SL_E_CONFIG);
		assert_int_equal(f->d.n, 1);
		expect_diag(f, PATH, 1, "a live model must be incremental or a view", NULL);
		assert_true(f->m.live);
	}
	for (size_t i = 0; i < 3; i++) {
		memset(&f->m, 0, sizeof(f->m));
		diag_list_init(&f->d, f->a);
		f->m.path = PATH;
		assert_int_equal(parse(f, good[i]), 0);
		assert_int_equal(apply(f), 0);
		expect_clean(f);
	}
}

/* A live model with no filter, strategy or key is maintained by sluice;
 * one that writes append, or keeps out of maintenance, needs its filter. */
static void test_live_plain_is_maintained(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=incremental,\n  live=true\nSELECT 1"), 0);
	assert_int_equal(apply(f), 0);
	assert_true(f->m.maintained);
	assert_int_equal(f->m.strategy, STRAT_DELETE_INSERT);
}

static void test_live_written_append_needs_filter(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=incremental, incremental_strategy=append,\n"
				  "  live=true\nSELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 2, "a live append model needs incremental_filter", NULL);
	assert_false(f->m.maintained);
	assert_int_equal(f->m.strategy, STRAT_APPEND);
}

static void test_ivm_off_needs_filter(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=incremental, ivm=off,\n  live=true\nSELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 2, "a live append model needs incremental_filter", NULL);
	assert_false(f->m.maintained);
}

static void test_microbatch_rules(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=incremental, live=true,\n"
				  "  incremental_strategy=microbatch\n"
				  "SELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 1, "a live model cannot use incremental_strategy 'microbatch'", NULL);
	expect_diag(f, PATH, 2,
		    "incremental_strategy 'microbatch' needs temporality=temporal and time_column",
		    NULL);
	assert_int_equal(f->d.n, 2);
	assert_int_equal(f->m.strategy, STRAT_MICROBATCH);

	memset(&f->m, 0, sizeof(f->m));
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	assert_int_equal(parse(f, "@config materialized=incremental, incremental_strategy=microbatch,\n"
				  "  temporality=temporal\nSELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 1, "incremental_strategy 'microbatch' needs time_column", NULL);

	memset(&f->m, 0, sizeof(f->m));
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	assert_int_equal(parse(f, "@config materialized=incremental, incremental_strategy=microbatch,\n"
				  "  time_column=ts\nSELECT 1"),
			 0);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 1, "incremental_strategy 'microbatch' needs temporality=temporal", NULL);

	memset(&f->m, 0, sizeof(f->m));
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	assert_int_equal(parse(f, "@config materialized=incremental, incremental_strategy=microbatch,\n"
				  "  temporality=temporal, time_column=ts, grain=1d, start='2024-01-01'\n"
				  "SELECT 1"),
			 0);
	assert_int_equal(apply(f), 0);
	expect_clean(f);
}

static void test_several_errors_at_once(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@config materialized=table, uniqe_key=id,\n"
				  "  incremental_strategy=merge, live=true\n"
				  "@asert not_null(id)\n"
				  "@assert unique()\n"
				  "@upstream x contract=maybe\n"
				  "SELECT 1"),
			 SL_E_PARSE);
	assert_int_equal(f->d.n, 3);
	assert_int_equal(apply(f), SL_E_CONFIG);
	expect_diag(f, PATH, 3, "unknown directive '@asert'", "did you mean '@assert'?");
	expect_diag(f, PATH, 4, "malformed @assert 'unique()': unique takes one or more columns",
		    NULL);
	expect_diag(f, PATH, 5, "invalid contract 'maybe'", NULL);
	expect_diag(f, PATH, 1, "unknown @config key 'uniqe_key'", "did you mean 'unique_key'?");
	expect_diag(f, PATH, 2, "incremental_strategy 'merge' on a table model", NULL);
	expect_diag(f, PATH, 2, "a live model must be incremental or a view", NULL);
	assert_int_equal(f->d.n, 6);
	assert_int_equal(f->m.mat, MAT_TABLE);
	assert_true(f->m.live);
}

static void test_config_keys_table(void **state)
{
	size_t n = 0;

	(void)state;
	while (header_config_keys[n])
		n++;
	assert_int_equal(n, 26);
	assert_string_equal(header_config_keys[0], "materialized");
}

/* @column: a name (or any name in double quotes) and what the column
 * holds, continuation lines and runs of spaces made one space, a quoted
 * text as it is. */
static void test_column_descriptions(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@column order_id  the order's id,\n"
				  "        one per order   -- not this\n"
				  "@column \"<b>\"\"x\" markup  in a name\n"
				  "@column amount '  in  euros '\n"
				  "SELECT 1"),
			 0);
	expect_clean(f);
	assert_int_equal(f->m.ncolumn_docs, 3);
	assert_string_equal(f->m.column_docs[0].name, "order_id");
	assert_string_equal(f->m.column_docs[0].text, "the order's id, one per order");
	assert_int_equal(f->m.column_docs[0].line, 1);
	assert_string_equal(f->m.column_docs[1].name, "<b>\"x");
	assert_string_equal(f->m.column_docs[1].text, "markup in a name");
	assert_string_equal(f->m.column_docs[2].text, "  in  euros ");
	assert_int_equal(f->m.column_docs[2].line, 4);
}

static void test_column_descriptions_refused(void **state)
{
	struct fx *f = *state;

	assert_int_equal(parse(f, "@column id\n"
				  "@column\n"
				  "@column a.b the column\n"
				  "@column \"open the name\n"
				  "@column x one\n"
				  "@column X two\n"
				  "SELECT 1"),
			 SL_E_PARSE);
	expect_diag(f, PATH, 1, "@column 'id' has no description",
		    "write @column NAME and what the column holds");
	expect_diag(f, PATH, 2, "@column has no column name", NULL);
	expect_diag(f, PATH, 3, "malformed @column: 'a.b' is not a column name", NULL);
	expect_diag(f, PATH, 4, "unterminated column name in @column", NULL);
	expect_diag(f, PATH, 6, "column 'X' is described twice", "it is described at line 5");
	assert_int_equal(f->m.ncolumn_docs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_design_example),
		T(test_continuation_lines),
		T(test_comment_lines_in_header),
		T(test_blank_line_ends_directive),
		T(test_quoted_values),
		T(test_lists),
		T(test_list_errors),
		T(test_incremental_filter),
		T(test_body_and_semicolon),
		T(test_no_header),
		T(test_crlf),
		T(test_no_query),
		T(test_empty_file),
		T(test_unknown_directive),
		T(test_assert_not_null_unique),
		T(test_assert_accepted_values),
		T(test_assert_relationships),
		T(test_assert_rows_and_expression),
		T(test_assert_malformed),
		T(test_upstream_options),
		T(test_upstream_errors),
		T(test_zero_and_huge_durations),
		T(test_upstream_duplicate_option),
		T(test_config_syntax_errors),
		T(test_unexpected_text_after_value),
		T(test_pipeline_defaults),
		T(test_pipeline_unknown_and_bad),
		T(test_unknown_key),
		T(test_bad_values),
		T(test_ivm_setting),
		T(test_default_strategy),
		T(test_strategy_not_incremental),
		T(test_merge_needs_unique_key),
		T(test_cdc_config),
		T(test_cdc_config_errors),
		T(test_snapshot_rules),
		T(test_column_names),
		T(test_column_names_refused),
		T(test_filter_not_incremental),
		T(test_live_materializations),
		T(test_live_plain_is_maintained),
		T(test_live_written_append_needs_filter),
		T(test_ivm_off_needs_filter),
		T(test_microbatch_rules),
		T(test_several_errors_at_once),
		T(test_config_keys_table),
		T(test_column_descriptions),
		T(test_column_descriptions_refused),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
