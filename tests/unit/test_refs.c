/*
 * Unit tests for placeholders and table references (src/project/refs.c),
 * on a model built by hand and DuckDB's parser: which names are references
 * (not CTEs, not text in strings or comments, not the model itself), the
 * exact span of each, placeholders with their spans, and the diagnostics
 * for typos, syntax errors and extra statements.
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
#include "core/hash.h"
#include "project/model.h"
#include "project/refs.h"
#include "warehouse/sqlparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH "models/silver/orders.sql"

struct fx {
	struct arena *a;
	struct diag_list d;
	struct model m;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->a = arena_new(NULL);
	diag_list_init(&f->d, f->a);
	f->m.path = PATH;
	f->m.schema = "silver";
	f->m.name = "orders";
	f->m.fqn = "silver.orders";
	f->m.body_line = 1;
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

/* Scans placeholders, then finds references when the scan was clean. */
static int load(struct fx *f, const char *body, const char *filter)
{
	int rc;

	f->m.body = body;
	f->m.filter = filter;
	if (filter && !f->m.filter_line)
		f->m.filter_line = f->m.body_line;
	rc = refs_scan_placeholders(f->a, &f->m, &f->d);
	if (rc)
		return rc;
	return refs_find(parser, f->a, &f->m, &f->d);
}

static void load_ok(struct fx *f, const char *body, const char *filter)
{
	int rc = load(f, body, filter);

	if (rc || f->d.n) {
		diag_print(&f->d, stderr);
		fail_msg("'%s' did not load cleanly (%d)", body, rc);
	}
}

/* The reference with this "schema.name"; fails when absent. */
static const struct model_ref *ref(struct fx *f, const char *fqn)
{
	char buf[512];

	for (size_t i = 0; i < f->m.nrefs; i++) {
		snprintf(buf, sizeof(buf), "%s.%s", f->m.refs[i].schema, f->m.refs[i].name);
		if (strcmp(buf, fqn) == 0)
			return &f->m.refs[i];
	}
	fail_msg("no reference '%s'", fqn);
	return NULL;
}

/* The references, in order, as "schema.name,schema.name". */
static const char *refs_list(struct fx *f)
{
	const char *s = "";

	for (size_t i = 0; i < f->m.nrefs; i++)
		s = arena_sprintf(f->a, "%s%s%s.%s", s, i ? "," : "", f->m.refs[i].schema,
				  f->m.refs[i].name);
	return s;
}

/* The text a span covers. */
static const char *span_text(struct fx *f, const struct model_span *s)
{
	const char *text = s->part == PART_BODY ? f->m.body : f->m.filter;

	assert_true(s->offset + s->len <= strlen(text));
	return arena_strndup(f->a, text + s->offset, s->len);
}

static const struct diag *diag_find(struct fx *f, const char *prefix)
{
	for (size_t i = 0; i < f->d.n; i++)
		if (strncmp(f->d.items[i].msg, prefix, strlen(prefix)) == 0)
			return &f->d.items[i];
	diag_print(&f->d, stderr);
	fail_msg("no diagnostic starting '%s'", prefix);
	return NULL;
}

static void test_plain_reference(void **state)
{
	struct fx *f = *state;
	const struct model_ref *r;

	load_ok(f, "SELECT id, amount FROM orders_raw WHERE amount > 0", NULL);
	assert_string_equal(refs_list(f), "main.orders_raw");
	r = ref(f, "main.orders_raw");
	assert_false(r->schema_given);
	assert_string_equal(r->alias, "");
	assert_null(r->target);
	assert_int_equal(r->span.part, PART_BODY);
	assert_int_equal(r->span.offset, 23);
	assert_string_equal(span_text(f, &r->span), "orders_raw");
}

static void test_qualified_span(void **state)
{
	struct fx *f = *state;
	const struct model_ref *r;

	load_ok(f, "SELECT c.id\nFROM silver . \"Customers\" AS c\n  JOIN gold.regions r ON true", NULL);
	assert_string_equal(refs_list(f), "silver.customers,gold.regions");
	r = ref(f, "silver.customers");
	assert_true(r->schema_given);
	assert_string_equal(r->alias, "c");
	assert_int_equal(r->span.offset, 17);
	assert_string_equal(span_text(f, &r->span), "silver . \"Customers\"");
	r = ref(f, "gold.regions");
	assert_string_equal(r->alias, "r");
	assert_string_equal(span_text(f, &r->span), "gold.regions");

	/* from another model, silver."Orders" is a reference like any other */
	f->m.nrefs = 0;
	f->m.schema = "gold";
	f->m.name = "report";
	f->m.fqn = "gold.report";
	load_ok(f, "SELECT * FROM silver . \"Orders\"", NULL);
	r = ref(f, "silver.orders");
	assert_int_equal(r->span.offset, 14);
	assert_int_equal(r->span.len, 17);
	assert_string_equal(span_text(f, &r->span), "silver . \"Orders\"");
}

static void test_quoted_escapes(void **state)
{
	struct fx *f = *state;
	const struct model_ref *r;

	load_ok(f, "SELECT * FROM \"Raw Data\" . \"My \"\"Big\"\" Table\" t", NULL);
	assert_int_equal(f->m.nrefs, 1);
	r = &f->m.refs[0];
	assert_string_equal(r->schema, "raw data");
	assert_string_equal(r->name, "my \"big\" table");
	assert_string_equal(span_text(f, &r->span), "\"Raw Data\" . \"My \"\"Big\"\" Table\"");
}

static void test_three_part_name(void **state)
{
	struct fx *f = *state;
	const struct model_ref *r;

	load_ok(f, "SELECT * FROM lake.silver.customers", NULL);
	r = ref(f, "silver.customers");
	assert_string_equal(span_text(f, &r->span), "lake.silver.customers");
}

static void test_default_schema_and_case(void **state)
{
	struct fx *f = *state;

	load_ok(f, "SELECT * FROM Customers, GOLD.Totals, main.x", NULL);
	assert_string_equal(refs_list(f), "main.customers,gold.totals,main.x");
	assert_false(ref(f, "main.customers")->schema_given);
	assert_true(ref(f, "main.x")->schema_given);
}

static void test_cte_names_are_not_references(void **state)
{
	struct fx *f = *state;

	load_ok(f, "WITH recent AS (SELECT * FROM landing.orders WHERE ts > now() - INTERVAL 1 DAY),\n"
		   "     big AS (SELECT * FROM recent WHERE amount > 100)\n"
		   "SELECT * FROM big JOIN customers USING (customer_id)",
		NULL);
	assert_string_equal(refs_list(f), "landing.orders,main.customers");
	/* a CTE name is matched case-insensitively */
	f->m.nrefs = 0;
	load_ok(f, "WITH Recent AS (SELECT 1 AS x) SELECT * FROM RECENT", NULL);
	assert_int_equal(f->m.nrefs, 0);
}

static void test_nested_ctes(void **state)
{
	struct fx *f = *state;

	/* the inner WITH's b is visible only inside its subquery: the outer b
	 * is a table */
	load_ok(f, "WITH a AS (SELECT * FROM (WITH b AS (SELECT * FROM src) SELECT * FROM b) s)\n"
		   "SELECT * FROM a JOIN b ON true",
		NULL);
	assert_string_equal(refs_list(f), "main.src,main.b");
	assert_int_equal(ref(f, "main.b")->span.offset, 97);

	/* a CTE defined in a later subquery does not hide an earlier table */
	f->m.nrefs = 0;
	load_ok(f, "SELECT * FROM a, (WITH a AS (SELECT 1) SELECT * FROM a) s", NULL);
	assert_string_equal(refs_list(f), "main.a");
	assert_int_equal(ref(f, "main.a")->span.offset, 14);

	/* a qualified name is never a CTE */
	f->m.nrefs = 0;
	load_ok(f, "WITH t AS (SELECT 1) SELECT * FROM t, main.t", NULL);
	assert_string_equal(refs_list(f), "main.t");
	assert_string_equal(span_text(f, &ref(f, "main.t")->span), "main.t");
}

static void test_cte_own_name_reads_table(void **state)
{
	struct fx *f = *state;
	const struct model_ref *r;

	/* DuckDB (like PostgreSQL) reads the table here: the CTE is not
	 * recursive, so its own name inside its body is the outer table */
	load_ok(f, "WITH customers AS (SELECT id + 1 AS id FROM customers) SELECT * FROM customers",
		NULL);
	assert_string_equal(refs_list(f), "main.customers");
	r = ref(f, "main.customers");
	assert_int_equal(r->span.offset, 44);
	assert_string_equal(span_text(f, &r->span), "customers");
}

static void test_cte_later_sibling_not_visible(void **state)
{
	struct fx *f = *state;

	/* a CTE sees only the CTEs before it: b in a's body is a table */
	load_ok(f, "WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS x) SELECT * FROM a", NULL);
	assert_string_equal(refs_list(f), "main.b");
	assert_int_equal(ref(f, "main.b")->span.offset, 25);

	/* while a later CTE does see an earlier one */
	f->m.nrefs = 0;
	load_ok(f, "WITH a AS (SELECT 1 AS x), b AS (SELECT * FROM a) SELECT * FROM b", NULL);
	assert_int_equal(f->m.nrefs, 0);
}

static void test_recursive_cte(void **state)
{
	struct fx *f = *state;

	load_ok(f, "WITH RECURSIVE walk AS (\n"
		   "  SELECT id, parent FROM nodes WHERE parent IS NULL\n"
		   "  UNION ALL\n"
		   "  SELECT n.id, n.parent FROM nodes n JOIN walk w ON n.parent = w.id\n"
		   ")\n"
		   "SELECT * FROM walk",
		NULL);
	assert_string_equal(refs_list(f), "main.nodes,main.nodes");
	assert_string_equal(f->m.refs[1].alias, "n");
}

static void test_subqueries_joins_unions(void **state)
{
	struct fx *f = *state;

	load_ok(f, "SELECT o.id, (SELECT max(x) FROM t_scalar) AS m\n"
		   "FROM (SELECT * FROM t_derived) o\n"
		   "LEFT JOIN t_left l ON l.id = o.id\n"
		   "CROSS JOIN t_cross\n"
		   "WHERE o.id IN (SELECT id FROM t_in)\n"
		   "  AND EXISTS (SELECT 1 FROM t_exists e WHERE e.id = o.id)\n"
		   "  AND o.id NOT IN (SELECT id FROM t_not_in)\n"
		   "UNION\n"
		   "SELECT id, 0 FROM t_union\n"
		   "EXCEPT\n"
		   "SELECT id, 0 FROM t_except",
		NULL);
	assert_string_equal(refs_list(f), "main.t_scalar,main.t_derived,main.t_left,main.t_cross,"
					  "main.t_in,main.t_exists,main.t_not_in,main.t_union,"
					  "main.t_except");
	for (size_t i = 0; i < f->m.nrefs; i++)
		assert_string_equal(span_text(f, &f->m.refs[i].span), f->m.refs[i].name);
}

static void test_strings_and_comments_are_not_references(void **state)
{
	struct fx *f = *state;

	load_ok(f, "-- reads FROM legacy.orders no more\n"
		   "SELECT 'FROM silver.fake' AS note, /* JOIN other.t */ id\n"
		   "FROM real_table -- JOIN commented.out\n"
		   "WHERE note <> 'x JOIN y.z'",
		NULL);
	assert_string_equal(refs_list(f), "main.real_table");
	assert_int_equal(ref(f, "main.real_table")->span.offset, 98);
}

static void test_column_named_like_a_table(void **state)
{
	struct fx *f = *state;

	load_ok(f, "SELECT customers.id, orders.total FROM t AS customers, u AS orders", NULL);
	assert_string_equal(refs_list(f), "main.t,main.u");
	assert_string_equal(ref(f, "main.u")->alias, "orders");
}

static void test_table_functions_are_not_references(void **state)
{
	struct fx *f = *state;

	load_ok(f, "SELECT * FROM range(10) r, read_csv('x.csv') c, (VALUES (1)) v(x)", NULL);
	assert_int_equal(f->m.nrefs, 0);
}

static void test_file_in_from_is_not_a_table(void **state)
{
	struct fx *f = *state;

	/* FROM 'file.csv' reads a file, not a table */
	load_ok(f, "SELECT * FROM 'data.csv'", NULL);
	assert_int_equal(f->m.nrefs, 0);
	load_ok(f, "SELECT * FROM 'data.csv' d JOIN t USING (id)", NULL);
	assert_string_equal(refs_list(f), "main.t");
}

static void test_own_name_dropped(void **state)
{
	struct fx *f = *state;

	load_ok(f, "SELECT * FROM silver.orders UNION ALL SELECT * FROM SILVER.\"Orders\"\n"
		   "UNION ALL SELECT * FROM orders UNION ALL SELECT * FROM other.orders",
		NULL);
	/* unqualified `orders` is main.orders, not this model */
	assert_string_equal(refs_list(f), "main.orders,other.orders");

	/* a model in main reading its own unqualified name */
	f->m.nrefs = 0;
	f->m.schema = "main";
	f->m.name = "totals";
	f->m.fqn = "main.totals";
	load_ok(f, "SELECT * FROM totals JOIN x ON true", NULL);
	assert_string_equal(refs_list(f), "main.x");
}

static void test_placeholders(void **state)
{
	struct fx *f = *state;
	static const char body[] = "SELECT * FROM {this}\n"
				   "WHERE seq > {watermark} AND lseq > {watermark:landing.orders}\n"
				   "  AND ts >= {since} AND ts < {until}\n"
				   "  AND env = '{env}' AND label = 'from {since} on'";
	static const struct {
		enum placeholder_kind kind;
		const char *arg, *text;
	} want[] = {
		{ PH_THIS, NULL, "{this}" },
		{ PH_WATERMARK, NULL, "{watermark}" },
		{ PH_WATERMARK, "landing.orders", "{watermark:landing.orders}" },
		{ PH_SINCE, NULL, "{since}" },
		{ PH_UNTIL, NULL, "{until}" },
		{ PH_ENV, NULL, "{env}" },
		{ PH_SINCE, NULL, "{since}" },
	};
	const char *at = body;

	load_ok(f, body, NULL);
	assert_int_equal(f->m.nplaceholders, 7);
	for (size_t i = 0; i < 7; i++) {
		const struct model_placeholder *ph = &f->m.placeholders[i];

		at = strstr(at, want[i].text);
		assert_non_null(at);
		assert_int_equal(ph->kind, want[i].kind);
		if (want[i].arg)
			assert_string_equal(ph->arg, want[i].arg);
		else
			assert_null(ph->arg);
		assert_int_equal(ph->span.part, PART_BODY);
		assert_int_equal(ph->span.offset, (size_t)(at - body));
		assert_string_equal(span_text(f, &ph->span), want[i].text);
		at++;
	}
	/* {this} in table position is not a reference */
	assert_int_equal(f->m.nrefs, 0);
}

static void test_not_placeholders(void **state)
{
	struct fx *f = *state;

	load_ok(f, "SELECT '{\"a\": 1}' AS j, {'k': 1} AS s, '{ this }' AS t, '{x}' AS u,\n"
		   "  '{watermark:}' AS v, '{watermark2}' AS w, '{this' AS y\n"
		   "FROM t",
		NULL);
	assert_int_equal(f->m.nplaceholders, 0);
	assert_string_equal(refs_list(f), "main.t");
}

static void test_placeholder_typo(void **state)
{
	struct fx *f = *state;
	const struct diag *d;

	f->m.body_line = 3;
	assert_int_equal(load(f, "SELECT *\nFROM t WHERE seq > {wtermark} AND x = '{thsi}'", NULL),
			 SL_E_PARSE);
	assert_int_equal(f->d.n, 2);
	d = diag_find(f, "unknown placeholder '{wtermark}'");
	assert_int_equal(d->severity, DIAG_ERROR);
	assert_string_equal(d->file, PATH);
	assert_int_equal(d->line, 4);
	assert_int_equal(d->col, 20);
	assert_string_equal(d->hint, "did you mean '{watermark}'?");
	d = diag_find(f, "unknown placeholder '{thsi}'");
	assert_string_equal(d->hint, "did you mean '{this}'?");
	assert_int_equal(f->m.nplaceholders, 0);
}

static void test_syntax_error_position(void **state)
{
	struct fx *f = *state;
	const struct diag *d;

	f->m.body_line = 4;
	assert_int_equal(load(f, "SELECT a,\n  b c d\nFROM t", NULL), SL_E_PARSE);
	assert_int_equal(f->d.n, 1);
	d = &f->d.items[0];
	assert_int_equal(d->severity, DIAG_ERROR);
	assert_string_equal(d->file, PATH);
	assert_int_equal(d->line, 5);
	assert_int_equal(d->col, 7);
	assert_non_null(strstr(d->msg, "syntax error at or near \"d\""));
	assert_non_null(strstr(d->msg, "in model 'silver.orders'"));
	assert_int_equal(f->m.nrefs, 0);
}

static void test_syntax_error_line_after_utf8(void **state)
{
	struct fx *f = *state;

	/* the parser counts characters; ten two-byte characters before the
	 * error must not move it back onto the first line */
	f->m.body_line = 1;
	assert_int_equal(load(f,
			      "SELECT '\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
			      "\xc3\xa9\xc3\xa9\xc3\xa9' AS x\nFROM WHERE",
			      NULL),
			 SL_E_PARSE);
	assert_int_equal(f->d.n, 1);
	assert_int_equal(f->d.items[0].line, 2);
	assert_int_equal(f->d.items[0].col, 6);
}

static void test_syntax_error_at_end(void **state)
{
	struct fx *f = *state;
	const struct diag *d;

	f->m.body_line = 2;
	assert_int_equal(load(f, "SELECT *\nFROM (SELECT 1", NULL), SL_E_PARSE);
	d = &f->d.items[0];
	assert_int_equal(d->line, 3);
	assert_int_equal(d->col, 15);
	assert_non_null(strstr(d->msg, "end of input"));
}

static void test_syntax_error_after_placeholder(void **state)
{
	struct fx *f = *state;
	const struct diag *d;

	/* stand-ins keep the placeholder's length, so columns stay right */
	assert_int_equal(load(f, "SELECT {watermark:landing.orders} AS w FROM {this} WHERE WHERE",
			      NULL),
			 SL_E_PARSE);
	d = diag_find(f, "SQL ");
	assert_int_equal(d->line, 1);
	assert_int_equal(d->col, 58);
}

static void test_filter_references(void **state)
{
	struct fx *f = *state;
	const struct model_ref *r;
	const struct model_placeholder *ph;

	f->m.body_line = 3;
	f->m.filter_line = 1;
	load_ok(f, "SELECT id, seq FROM src",
		"WHERE seq > (SELECT max(seq) FROM {this})\n  AND id IN (SELECT id FROM gold.allowed)");
	assert_string_equal(refs_list(f), "main.src,gold.allowed");
	r = ref(f, "main.src");
	assert_int_equal(r->span.part, PART_BODY);
	assert_int_equal(r->span.offset, 20);
	r = ref(f, "gold.allowed");
	assert_int_equal(r->span.part, PART_FILTER);
	assert_int_equal(r->span.offset, 70);
	assert_string_equal(span_text(f, &r->span), "gold.allowed");
	assert_int_equal(f->m.nplaceholders, 1);
	ph = &f->m.placeholders[0];
	assert_int_equal(ph->kind, PH_THIS);
	assert_int_equal(ph->span.part, PART_FILTER);
	assert_string_equal(span_text(f, &ph->span), "{this}");
}

static void test_filter_syntax_error(void **state)
{
	struct fx *f = *state;
	const struct diag *d;

	f->m.body_line = 4;
	f->m.filter_line = 1;
	assert_int_equal(load(f, "SELECT a FROM t", "WHERE a >\n   AND AND b"), SL_E_PARSE);
	d = &f->d.items[0];
	/* the filter's second line, at the first AND; the filter's first line
	 * has no known column */
	assert_int_equal(d->line, 2);
	assert_int_equal(d->col, 4);
}

static void test_two_statements(void **state)
{
	struct fx *f = *state;
	const struct diag *d;

	f->m.body_line = 2;
	assert_int_equal(load(f, "SELECT 1;\nSELECT 2", NULL), SL_E_PARSE);
	assert_int_equal(f->d.n, 1);
	d = &f->d.items[0];
	assert_string_equal(d->msg, "model 'silver.orders' holds 2 statements; a model is one query");
	assert_string_equal(d->hint, "split it into one model per query");
	assert_int_equal(d->line, 2);
}

static void test_not_a_query(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f, "DELETE FROM t WHERE true", NULL), SL_E_PARSE);
	assert_int_equal(f->d.n, 1);
	assert_non_null(strstr(f->d.items[0].msg, "not a query"));
	assert_int_equal(f->m.nrefs, 0);
}

static void test_parse_text(void **state)
{
	struct fx *f = *state;
	size_t filter_start = 99;
	char *text;

	load_ok(f, "SELECT {watermark} AS w, '{since}' AS s FROM {this}", NULL);
	text = refs_parse_text(&f->m, &filter_start);
	assert_int_equal(filter_start, 0);
	assert_string_equal(text, "SELECT 00000000000 AS w, '_______' AS s FROM _x____");
	free(text);

	f->m.nplaceholders = 0;
	f->m.nrefs = 0;
	load_ok(f, "SELECT a FROM t", "WHERE a > {watermark}");
	text = refs_parse_text(&f->m, &filter_start);
	assert_string_equal(text, "SELECT * FROM (\nSELECT a FROM t\n) AS _sluice_src\n"
				  "WHERE a > 00000000000");
	assert_string_equal(text + filter_start, "WHERE a > 00000000000");
	free(text);
}

/* The model's references as one line: each with its span and alias. */
static const char *refs_dump(struct fx *f)
{
	const char *s = arena_sprintf(f->a, "%s|%s|%d|", f->m.tree_hash,
				      f->m.aggregates ? f->m.aggregates : "-",
				      f->m.filter_reads_self);

	for (size_t i = 0; i < f->m.nrefs; i++) {
		const struct model_ref *r = &f->m.refs[i];

		s = arena_sprintf(f->a, "%s%s.%s as %s %d@%d:%zu+%zu;", s, r->schema, r->name,
				  r->alias, r->schema_given, (int)r->span.part, r->span.offset,
				  r->span.len);
	}
	return s;
}

/* refs_find of body and filter into a model of its own, by a parser
 * (another process's) keeping what it derives in the file at path. */
static const char *found_with_cache(struct fx *f, const char *path, const char *body,
				    const char *filter)
{
	struct sqlparse *p = NULL;
	struct sl_err err = SL_ERR_INIT;
	const char *dump;

	memset(&f->m, 0, sizeof(f->m));
	f->m.path = PATH;
	f->m.fqn = "silver.orders";
	f->m.body_line = 1;
	f->m.body = body;
	f->m.filter = filter;
	f->m.filter_line = filter ? 1 : 0;
	assert_int_equal(sqlparse_open(&p, &err), 0);
	sqlparse_use_derived_cache(p, path);
	assert_int_equal(refs_scan_placeholders(f->a, &f->m, &f->d), 0);
	assert_int_equal(refs_find(p, f->a, &f->m, &f->d), 0);
	sqlparse_close(p);
	dump = refs_dump(f);
	assert_non_null(f->m.tree);
	return dump;
}

/* What refs_find derives is kept between processes and read back as it
 * was found (quoted names of any bytes, spans in body and filter, the
 * model's own name dropped); what is read back is the file's, not found
 * again; a torn file counts as none. */
static void test_derived_kept_between_processes(void **state)
{
	struct fx *f = *state;
	const char *body = "WITH c AS (SELECT * FROM \"we:ird\"\"\tname\".\"x 1\" AS w)\n"
			   "SELECT region, count(*) AS n FROM c JOIN gold.regions r USING (region)\n"
			   "WHERE t >= '{since}' GROUP BY region";
	const char *filter = "WHERE n > (SELECT max(n) FROM silver.orders) AND {watermark} > 0";
	char root[PATH_MAX], path[PATH_MAX + 32];
	const char *fresh, *again;
	char *text;
	size_t len;
	FILE *fp;

	fixture_mkdtemp(root, "derived");
	snprintf(path, sizeof(path), "%s/derived-cache", root);
	fresh = found_with_cache(f, path, body, filter);
	assert_non_null(strstr(fresh, "we:ird\"\tname.x 1 as w 1@0:"));
	assert_non_null(strstr(fresh, "|GROUP BY|1|"));
	again = found_with_cache(f, path, body, filter);
	assert_string_equal(again, fresh);

	/* the kept text changed by hand (its checksum made anew): read as is */
	fp = fopen(path, "rb");
	assert_non_null(fp);
	text = calloc(1, 1 << 16);
	len = fread(text, 1, (1 << 16) - 1, fp);
	fclose(fp);
	{
		char *rec = strchr(text, '\n') + 1, *body_at = strchr(rec, '\n') + 1, *r;
		size_t n = strtoul(rec + 65, NULL, 10);

		r = strstr(body_at, "7:regions");
		assert_non_null(r);
		memcpy(r, "7:reg1ons", 9);
		snprintf(rec + 65, 64, "%zu %llx 0", n,
			 (unsigned long long)hash_words(HASH_INIT, body_at, n));
		rec[65 + strlen(rec + 65)] = '\n';
	}
	fixture_put(root, "derived-cache", text);
	again = found_with_cache(f, path, body, filter);
	assert_non_null(strstr(again, "gold.reg1ons"));

	fixture_put(root, "derived-cache", arena_strndup(f->a, text, len / 2));
	again = found_with_cache(f, path, body, filter);
	assert_string_equal(again, fresh);
	free(text);
	fixture_rmtree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_plain_reference),
		T(test_qualified_span),
		T(test_quoted_escapes),
		T(test_three_part_name),
		T(test_default_schema_and_case),
		T(test_cte_names_are_not_references),
		T(test_nested_ctes),
		T(test_cte_own_name_reads_table),
		T(test_cte_later_sibling_not_visible),
		T(test_recursive_cte),
		T(test_subqueries_joins_unions),
		T(test_strings_and_comments_are_not_references),
		T(test_column_named_like_a_table),
		T(test_table_functions_are_not_references),
		T(test_file_in_from_is_not_a_table),
		T(test_own_name_dropped),
		T(test_placeholders),
		T(test_not_placeholders),
		T(test_placeholder_typo),
		T(test_syntax_error_position),
		T(test_syntax_error_line_after_utf8),
		T(test_syntax_error_at_end),
		T(test_syntax_error_after_placeholder),
		T(test_filter_references),
		T(test_filter_syntax_error),
		T(test_two_statements),
		T(test_not_a_query),
		T(test_parse_text),
		T(test_derived_kept_between_processes),
#undef T
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
