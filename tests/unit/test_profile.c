/*
 * Unit tests for model profiles and their anomalies: the band
 * (src/exec/anomaly.c: median, scaled MAD, its floor when the MAD is 0,
 * the minimum history, the levels of a model and its columns), the
 * settings that set them (@config anomaly and anomaly_columns, the
 * anomaly: section of sluice.yml) with their errors at file:line, and on
 * DuckDB and on the PostgreSQL server of the suite (SLUICE_TEST_PG), in a
 * database of this file's own: taking a profile (exec/profile.c; of
 * PostgreSQL's types that have no min, max or equality too), writing
 * and reading profiles (state/profiles.c), the upgrade of the live
 * profiles of state version 15, and batch runs that judge each build's
 * profile, an error-level anomaly failing it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_project_wh.h"
#include "fixture_pg.h"
#include "fixture_wh.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "exec/anomaly.h"
#include "exec/profile.h"
#include "exec/run.h"
#include "live/batch.h"
#include "live/profile.h"
#include "project/config.h"
#include "project/model.h"
#include "project/project.h"
#include "state/profiles.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_DATABASE "sluice_unit_profile"

static const struct anomaly_cfg defaults = { "warn", 14, 5, 3 };

static void assert_near(double got, double want)
{
	if (fabs(got - want) > 1e-9)
		fail_msg("%.17g is not %.17g", got, want);
}

/* ---- the band ---------------------------------------------------------- */

/* The median of an odd count is its middle value, the spread the median
 * of the absolute deviations times 1.4826: an outlier moves neither. */
static void test_band_median_and_mad(void **state)
{
	const double v[] = { 10, 12, 11, 13, 100 };
	const struct anomaly_floor none = { 0, 0 };
	struct anomaly_band b;

	(void)state;
	anomaly_band_of(v, 5, &none, 3, &b);
	assert_near(b.median, 12);
	assert_near(b.spread, ANOMALY_MAD_SCALE);
	assert_near(b.low, 12 - 3 * ANOMALY_MAD_SCALE);
	assert_near(b.high, 12 + 3 * ANOMALY_MAD_SCALE);
}

/* Of an even count, the mean of the two middle values, for the median and
 * for the MAD alike; the order of the values does not matter. */
static void test_band_even_count(void **state)
{
	const double v[] = { 4, 1, 3, 2 };
	const struct anomaly_floor none = { 0, 0 };
	struct anomaly_band b;

	(void)state;
	anomaly_band_of(v, 4, &none, 2, &b);
	assert_near(b.median, 2.5);
	assert_near(b.spread, ANOMALY_MAD_SCALE);
	assert_near(b.low, 2.5 - 2 * ANOMALY_MAD_SCALE);
}

/* Values that never moved have a MAD of 0: the floor stands in, a share
 * of the median for a large row count, one row for a small one, a
 * hundredth for a rate. */
static void test_band_mad_zero_takes_the_floor(void **state)
{
	const double rows[] = { 100, 100, 100, 100, 100 }, few[] = { 2, 2, 2 };
	const double rates[] = { 0, 0, 0, 0, 0 };
	const struct anomaly_floor row_floor = ANOMALY_ROWS_FLOOR;
	const struct anomaly_floor rate_floor = ANOMALY_NULL_RATE_FLOOR;
	struct anomaly_band b;

	(void)state;
	anomaly_band_of(rows, 5, &row_floor, 3, &b);
	assert_near(b.spread, 5);
	assert_near(b.low, 85);
	assert_near(b.high, 115);
	anomaly_band_of(few, 3, &row_floor, 3, &b);
	assert_near(b.spread, 1);
	assert_near(b.high, 5);
	anomaly_band_of(rates, 5, &rate_floor, 3, &b);
	assert_near(b.spread, 0.01);
	assert_near(b.high, 0.03);
	/* a spread above the floor is the spread */
	anomaly_band_of((const double[]){ 100, 80, 120, 100, 100 }, 5, &row_floor, 3, &b);
	assert_near(b.spread, 5);
	anomaly_band_of((const double[]){ 100, 70, 130, 100, 60 }, 5, &row_floor, 3, &b);
	assert_near(b.spread, 30 * ANOMALY_MAD_SCALE);
}

/* ---- the judgment ------------------------------------------------------ */

/* A profile of rows rows whose columns a and b hold nulls_a and nulls_b
 * NULLs. */
static struct state_profile profile_of(struct arena *a, int64_t rows, int64_t nulls_a,
				       int64_t nulls_b)
{
	struct state_profile p = { .rows = rows, .kept = true, .ncols = 2 };

	p.cols = arena_alloc(a, 2 * sizeof(*p.cols));
	p.cols[0] = (struct state_profile_column){ .name = "a", .nulls = nulls_a };
	p.cols[1] = (struct state_profile_column){ .name = "b", .nulls = nulls_b };
	return p;
}

/* n earlier profiles of 100 rows without NULLs. */
static struct state_profile *steady(struct arena *a, size_t n)
{
	struct state_profile *h = arena_alloc(a, (n + 1) * sizeof(*h));

	for (size_t i = 0; i < n; i++)
		h[i] = profile_of(a, 100, 0, 0);
	return h;
}

static const struct state_anomaly *anomaly_on(const struct state_profile *p, const char *metric,
					      const char *column)
{
	for (size_t i = 0; i < p->nanomalies; i++)
		if (strcmp(p->anomalies[i].metric, metric) == 0 &&
		    (column ? p->anomalies[i].column && strcmp(p->anomalies[i].column, column) == 0
			    : !p->anomalies[i].column))
			return &p->anomalies[i];
	return NULL;
}

/* Fewer earlier profiles than min_history judge nothing; with enough, a
 * jump of the row count is an anomaly, with its band and history. */
static void test_judge_needs_history(void **state)
{
	struct arena *a = arena_new(NULL);
	struct model m = { .fqn = "s.m" };
	struct state_profile now = profile_of(a, 1000, 0, 0);
	const struct state_anomaly *an;

	(void)state;
	assert_int_equal(anomaly_judge(a, &m, &defaults, &now, steady(a, 4), 4), 0);
	assert_int_equal(now.nanomalies, 0);
	assert_int_equal(anomaly_judge(a, &m, &defaults, &now, steady(a, 5), 5), 0);
	assert_int_equal(now.nanomalies, 1);
	an = anomaly_on(&now, "row_count", NULL);
	assert_non_null(an);
	assert_false(an->error);
	assert_near(an->observed, 1000);
	assert_near(an->median, 100);
	assert_near(an->low, 85);
	assert_near(an->high, 115);
	assert_int_equal(an->history, 5);
	assert_string_equal(anomaly_describe(a, an),
			    "row_count 1000 outside [85, 115] (median 100 of the last 5 profiles)");
	arena_free(a);
}

/* A metric that never moved (MAD 0) lets a small change through and
 * catches a large one, at either end; a row count of 0 is judged, the
 * NULL rates of an empty table are not. */
static void test_judge_mad_zero(void **state)
{
	struct arena *a = arena_new(NULL);
	struct model m = { .fqn = "s.m" };
	struct state_profile *h = steady(a, 6), now;

	(void)state;
	now = profile_of(a, 104, 0, 0);
	anomaly_judge(a, &m, &defaults, &now, h, 6);
	assert_int_equal(now.nanomalies, 0);
	now = profile_of(a, 85, 0, 0);
	anomaly_judge(a, &m, &defaults, &now, h, 6);
	assert_int_equal(now.nanomalies, 0);
	now = profile_of(a, 84, 0, 0);
	anomaly_judge(a, &m, &defaults, &now, h, 6);
	assert_non_null(anomaly_on(&now, "row_count", NULL));
	now = profile_of(a, 0, 0, 0);
	anomaly_judge(a, &m, &defaults, &now, h, 6);
	assert_int_equal(now.nanomalies, 1);
	assert_non_null(anomaly_on(&now, "row_count", NULL));
	arena_free(a);
}

/* A column's NULL rate is judged against its own history: a column that
 * never held NULLs may hold 2% of them, not 10%; a column the earlier
 * profiles did not have is not judged. */
static void test_judge_null_rates(void **state)
{
	struct arena *a = arena_new(NULL);
	struct model m = { .fqn = "s.m" };
	struct state_profile *h = steady(a, 5), now;
	const struct state_anomaly *an;

	(void)state;
	now = profile_of(a, 100, 2, 0);
	anomaly_judge(a, &m, &defaults, &now, h, 5);
	assert_int_equal(now.nanomalies, 0);
	now = profile_of(a, 100, 0, 10);
	anomaly_judge(a, &m, &defaults, &now, h, 5);
	an = anomaly_on(&now, "null_rate", "b");
	assert_non_null(an);
	assert_near(an->observed, 0.1);
	assert_near(an->low, 0);
	assert_near(an->high, 0.03);
	assert_string_equal(anomaly_describe(a, an), "null_rate of b 0.1 outside [0, 0.03] "
						     "(median 0 of the last 5 profiles)");
	now = profile_of(a, 100, 0, 0);
	now.cols[1].name = "c";
	now.cols[1].nulls = 100;
	anomaly_judge(a, &m, &defaults, &now, h, 5);
	assert_int_equal(now.nanomalies, 0);
	arena_free(a);
}

/* The model's level, a column's own, and the project's for a model that
 * sets none: error anomalies are counted, off ones never found. */
static void test_judge_levels(void **state)
{
	struct arena *a = arena_new(NULL);
	struct model_anomaly_column cols[] = { { "A", MODEL_ANOMALY_OFF },
					       { "b", MODEL_ANOMALY_WARN } };
	struct model m = { .fqn = "s.m", .anomaly = MODEL_ANOMALY_ERROR, .anomaly_columns = cols,
			   .nanomaly_columns = 2 };
	struct anomaly_cfg off = defaults;
	struct state_profile *h = steady(a, 5), now = profile_of(a, 1000, 1000, 1000);

	(void)state;
	assert_int_equal(anomaly_judge(a, &m, &defaults, &now, h, 5), 1);
	assert_int_equal(now.nanomalies, 2);
	assert_true(anomaly_on(&now, "row_count", NULL)->error);
	assert_null(anomaly_on(&now, "null_rate", "a"));
	assert_false(anomaly_on(&now, "null_rate", "b")->error);
	assert_int_equal(anomaly_level(&m, &defaults, "a"), MODEL_ANOMALY_OFF);
	assert_true(anomaly_wanted(&m, &defaults));
	/* the project's level, for a model that sets none */
	off.level = "off";
	m.anomaly = MODEL_ANOMALY_UNSET;
	assert_int_equal(anomaly_level(&m, &off, NULL), MODEL_ANOMALY_OFF);
	assert_int_equal(anomaly_judge(a, &m, &off, &now, h, 5), 0);
	assert_int_equal(now.nanomalies, 1);
	assert_non_null(anomaly_on(&now, "null_rate", "b"));
	/* a model with every level off is not profiled at all */
	m.nanomaly_columns = 1;
	assert_false(anomaly_wanted(&m, &off));
	arena_free(a);
}

/* ---- the settings ------------------------------------------------------ */

static int setup_folder(void **state)
{
	return fixture_project_setup(state, "profile");
}

static int teardown_folder(void **state)
{
	return fixture_project_teardown(state);
}

/* The one diagnostic with this message, at file:line. */
static void expect_diag(const struct project *p, const char *file, int line, const char *msg,
			const char *hint)
{
	const struct diag *d = fixture_diag(p, msg);

	assert_int_equal(d->severity, DIAG_ERROR);
	assert_string_equal(d->file, file);
	if (d->line != line)
		fail_msg("%s is at line %d, not %d", msg, d->line, line);
	if (hint)
		assert_string_equal(d->hint, hint);
}

/* The levels as a model and its folder set them; the project's own
 * defaults. */
static void test_settings_levels(void **state)
{
	struct fixture_project *f = *state;
	const struct model *m;

	fixture_put(f->root, "sluice.yml", "name: p\n");
	fixture_put(f->root, "seeds/s.csv", "id,amount\n1,2\n");
	fixture_put(f->root, "models/gold/pipeline.yml", "anomaly: error\n");
	fixture_put(f->root, "models/gold/t.sql",
		    "@config materialized=table,\n"
		    "        anomaly_columns=[amount:off, Note:warn]\n"
		    "SELECT id, amount, 'x' AS note FROM seeds.s\n");
	fixture_put(f->root, "models/gold/v.sql", "SELECT id FROM seeds.s\n");
	fixture_put(f->root, "models/silver/u.sql",
		    "@config materialized=table, anomaly=off\nSELECT id FROM seeds.s\n");
	f->p = fixture_load_valid(f->a, f->root);
	assert_string_equal(f->p->cfg.anomaly.level, "warn");
	assert_int_equal(f->p->cfg.anomaly.history, 14);
	assert_int_equal(f->p->cfg.anomaly.min_history, 5);
	assert_int_equal(f->p->cfg.anomaly.width, 3);
	m = fixture_model(f->p, "gold.t");
	assert_int_equal(m->anomaly, MODEL_ANOMALY_ERROR);
	assert_int_equal(m->nanomaly_columns, 2);
	assert_string_equal(m->anomaly_columns[0].name, "amount");
	assert_int_equal(m->anomaly_columns[0].level, MODEL_ANOMALY_OFF);
	assert_int_equal(anomaly_level(m, &f->p->cfg.anomaly, "note"), MODEL_ANOMALY_WARN);
	assert_true(profile_builds_of(m));
	/* a folder's level reaches its views too, where it means nothing */
	m = fixture_model(f->p, "gold.v");
	assert_int_equal(m->anomaly, MODEL_ANOMALY_ERROR);
	assert_false(profile_builds_of(m));
	m = fixture_model(f->p, "silver.u");
	assert_false(anomaly_wanted(m, &f->p->cfg.anomaly));
	assert_int_equal(fixture_model(f->p, "seeds.s")->anomaly, MODEL_ANOMALY_UNSET);
	/* the level is not part of what a model builds */
	fixture_put(f->root, "models/silver/u.sql",
		    "@config materialized=table, anomaly=error\nSELECT id FROM seeds.s\n");
	assert_string_equal(fixture_model(fixture_load_valid(f->a, f->root), "silver.u")->hash,
			    m->hash);
}

/* Every wrong setting is said at its file and line, with a hint. */
static void test_settings_errors(void **state)
{
	struct fixture_project *f = *state;

	fixture_put(f->root, "sluice.yml", "name: p\n");
	fixture_put(f->root, "seeds/s.csv", "id,amount\n1,2\n");
	fixture_put(f->root, "models/a/level.sql",
		    "@config materialized=table,\n  anomaly=warm\nSELECT 1 AS id\n");
	fixture_put(f->root, "models/a/items.sql",
		    "-- one header line for each mistake\n"
		    "@config materialized=table\n"
		    "@config anomaly_columns=[amount]\n"
		    "SELECT 1 AS id, 2 AS amount\n");
	fixture_put(f->root, "models/a/names.sql",
		    "@config materialized=table, anomaly_columns=['a-b:off', amount:of, "
		    "id:off, ID:error]\nSELECT 1 AS id, 2 AS amount\n");
	fixture_put(f->root, "models/a/view.sql", "@config anomaly=error\nSELECT 1 AS id\n");
	fixture_put(f->root, "models/a/eph.sql",
		    "@config materialized=ephemeral,\n  anomaly_columns=[id:off]\nSELECT 1 AS id\n");
	fixture_put(f->root, "models/a/temporal.sql",
		    "@config materialized=incremental, temporality=temporal, time_column=t,\n"
		    "        grain=1d, start='2026-01-01', anomaly=warn\n"
		    "SELECT TIMESTAMP '2026-01-01' AS t\n");
	fixture_put(f->root, "models/a/missing.sql",
		    "@config materialized=table,\n  anomaly_columns=[amout:off]\n"
		    "SELECT 1 AS id, 2 AS amount\n");
	f->p = fixture_load(f->a, f->root);
	project_validate(f->p, NULL, 0);
	expect_diag(f->p, "models/a/level.sql", 2, "invalid anomaly 'warm'", NULL);
	assert_non_null(strstr(fixture_diag(f->p, "invalid anomaly 'warm'")->hint,
			       "did you mean 'warn'?"));
	expect_diag(f->p, "models/a/items.sql", 3, "anomaly_columns item 'amount' has no level",
		    "write amount:off, amount:warn or amount:error");
	expect_diag(f->p, "models/a/names.sql", 1,
		    "anomaly_columns item 'a-b:off': 'a-b' is not a column name", NULL);
	expect_diag(f->p, "models/a/names.sql", 1,
		    "invalid level 'of' in anomaly_columns item 'amount:of'", NULL);
	expect_diag(f->p, "models/a/names.sql", 1, "anomaly_columns names 'ID' twice",
		    "give each column one level");
	expect_diag(f->p, "models/a/view.sql", 1, "anomaly on a view model",
		    "only a model with a table of its own is profiled: remove it, or set "
		    "materialized=table");
	expect_diag(f->p, "models/a/eph.sql", 2, "anomaly_columns on a ephemeral model", NULL);
	expect_diag(f->p, "models/a/temporal.sql", 2, "anomaly on a temporal model", NULL);
	expect_diag(f->p, "models/a/missing.sql", 2,
		    "anomaly_columns names 'amout', which the query does not return",
		    "did you mean 'amount'?");
}

/* The anomaly: section of sluice.yml: its keys and values checked, a band
 * that could never judge refused. */
static void test_settings_project(void **state)
{
	struct fixture_project *f = *state;

	fixture_put(f->root, "seeds/s.csv", "id\n1\n");
	fixture_put(f->root, "sluice.yml",
		    "name: p\nanomaly:\n  level: error\n  history: 30\n  min_history: 10\n"
		    "  width: 4\n");
	f->p = fixture_load_valid(f->a, f->root);
	assert_string_equal(f->p->cfg.anomaly.level, "error");
	assert_int_equal(f->p->cfg.anomaly.history, 30);
	assert_int_equal(f->p->cfg.anomaly.min_history, 10);
	assert_int_equal(f->p->cfg.anomaly.width, 4);
	fixture_put(f->root, "sluice.yml",
		    "name: p\nanomaly:\n  level: loud\n  history: 4\n  width: 0\n  min: 3\n");
	f->p = fixture_load(f->a, f->root);
	expect_diag(f->p, "sluice.yml", 3, "unknown value 'loud' for 'anomaly.level'",
		    "expected one of warn, error, off");
	expect_diag(f->p, "sluice.yml", 5, "invalid number '0' for 'anomaly.width'", NULL);
	expect_diag(f->p, "sluice.yml", 6, "unknown key 'anomaly.min' in sluice.yml", NULL);
	expect_diag(f->p, "sluice.yml", 4,
		    "'anomaly.min_history' (5) is more than 'anomaly.history' (4)",
		    "the band is made of the last 'history' profiles: make history the larger");
}

/* ---- on a warehouse ---------------------------------------------------- */

static int setup_duckdb(void **state)
{
	return fx_setup_duckdb(state, "profile");
}

static int setup_postgres(void **state)
{
	return fx_setup_postgres(state, "profile", PG_DATABASE);
}

static int teardown(void **state)
{
	return fx_teardown(state);
}

static bool on_duckdb(const struct fx *f)
{
	return wh_kind(f->w) == WH_DUCKDB;
}

/* DuckDB's distinct count is an estimate, PostgreSQL's exact. */
static void assert_distinct(const struct fx *f, int64_t got, int64_t want)
{
	if (on_duckdb(f) ? llabs(got - want) > want / 4 + 1 : got != want)
		fail_msg("%lld distinct values, not about %lld", (long long)got, (long long)want);
}

/* One scan gives the rows and, per column in the table's order, its
 * NULLs, least and greatest value as text and its distinct values; an
 * empty table has rows 0 and no extremes. */
static void test_take_profile(void **state)
{
	struct fx *f = *state;
	struct state_profile p = { 0 };

	exec(f->w, "CREATE SCHEMA s; CREATE TABLE s.t (id INTEGER, name VARCHAR, ok BOOLEAN, "
		   "\"Amount\" DECIMAL(10, 2));\n"
		   "INSERT INTO s.t VALUES (1, 'b', true, 2.50), (2, NULL, false, NULL), "
		   "(3, 'a', NULL, 10.00), (4, 'a', true, NULL)");
	assert_int_equal(profile_take(f->w, f->a, "s", "t", &p, &f->err), 0);
	assert_int_equal(p.rows, 4);
	assert_int_equal(p.ncols, 4);
	assert_string_equal(p.cols[0].name, "id");
	assert_int_equal(p.cols[0].nulls, 0);
	assert_string_equal(p.cols[0].min, "1");
	assert_string_equal(p.cols[0].max, "4");
	assert_distinct(f, p.cols[0].distinct, 4);
	assert_int_equal(p.cols[1].nulls, 1);
	assert_string_equal(p.cols[1].min, "a");
	assert_string_equal(p.cols[1].max, "b");
	assert_distinct(f, p.cols[1].distinct, 2);
	assert_int_equal(p.cols[2].nulls, 1);
	assert_string_equal(p.cols[2].min, "false");
	assert_string_equal(p.cols[2].max, "true");
	assert_string_equal(p.cols[3].name, "Amount");
	assert_int_equal(p.cols[3].nulls, 2);
	assert_string_equal(p.cols[3].max, "10.00");
	exec(f->w, "CREATE TABLE s.e (id INTEGER)");
	assert_int_equal(profile_take(f->w, f->a, "s", "e", &p, &f->err), 0);
	assert_int_equal(p.rows, 0);
	assert_null(p.cols[0].min);
	assert_int_equal(p.cols[0].distinct, 0);
	assert_int_not_equal(profile_take(f->w, f->a, "s", "gone", &p, &f->err), 0);
}

/* PostgreSQL's types without a min and max (uuid, bytea, bit, json,
 * arrays) are profiled by their text, those without an equality too
 * (json); xml and the geometric ones have no extremes. */
static void test_take_profile_unordered(void **state)
{
	struct fx *f = *state;
	struct state_profile p = { 0 };

	exec(f->w, "CREATE SCHEMA s; CREATE TABLE s.u AS SELECT * FROM (VALUES "
		   "('{\"a\": 1}'::json, '<a/>'::xml, point(1, 2), "
		   "'00000000-0000-0000-0000-000000000002'::uuid, '\\x01'::bytea, B'101', "
		   "ARRAY['{}'::json], ARRAY[10, 2]), "
		   "('{\"a\": 1}'::json, '<b/>'::xml, point(1, 2), "
		   "'00000000-0000-0000-0000-000000000001'::uuid, '\\x02'::bytea, B'011', "
		   "ARRAY['[]'::json], ARRAY[9]), "
		   "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)) AS v(j, x, p, u, by, bi, aj, ai)");
	assert_int_equal(profile_take(f->w, f->a, "s", "u", &p, &f->err), 0);
	assert_int_equal(p.rows, 3);
	assert_string_equal(p.cols[0].min, "{\"a\": 1}");
	assert_int_equal(p.cols[0].distinct, 1);
	assert_null(p.cols[1].min);
	assert_int_equal(p.cols[1].distinct, 2);
	assert_null(p.cols[2].max);
	assert_int_equal(p.cols[2].nulls, 1);
	assert_int_equal(p.cols[2].distinct, 1);
	assert_string_equal(p.cols[3].min, "00000000-0000-0000-0000-000000000001");
	assert_int_equal(p.cols[3].distinct, 2);
	assert_string_equal(p.cols[4].max, "\\x02");
	assert_string_equal(p.cols[5].min, "011");
	assert_string_equal(p.cols[6].max, "{[]}");
	assert_int_equal(p.cols[6].distinct, 2);
	/* an array (information_schema's "ARRAY"), by its text */
	assert_string_equal(p.cols[7].min, "{10,2}");
}

/* A profile written with its anomalies reads back the same, newest first,
 * its columns in their order; the judged ones leave out live profiles and
 * rejected builds; a range and a limit pick among them. */
static void test_profiles_round_trip(void **state)
{
	struct fx *f = *state;
	struct state_profile_column cols[] = { { "z", "BIGINT", 0, "1", "9", 9 },
					       { "a", NULL, 3, NULL, NULL, -1 } };
	struct state_anomaly an[] = { { NULL, "row_count", 1000, 100, 85, 115, 5, true },
				      { "a", "null_rate", 0.5, 0, 0, 0.03, 5, false } };
	struct state_profile ps[] = {
		{ .model = "s.m", .env = "", .taken_ms = 1767225600000, .run_id = 7,
		  .refresh_count = -1, .kept = true, .rows = 10, .cols = cols, .ncols = 2 },
		{ .model = "s.m", .env = "", .taken_ms = 1767229200000, .kind = PROFILE_LIVE,
		  .refresh_count = 42, .kept = true, .rows = 11, .cols = cols, .ncols = 2 },
		{ .model = "s.m", .env = "", .taken_ms = 1767232800000, .run_id = 8,
		  .refresh_count = -1, .rows = 1000, .cols = cols, .ncols = 2, .anomalies = an,
		  .nanomalies = 2 },
		{ .model = "s.m", .env = "pr1", .taken_ms = 1767236400000, .run_id = 9,
		  .refresh_count = -1, .kept = true, .rows = 5, .cols = cols, .ncols = 1 },
	};
	struct state_profile_ask ask = { .model = "s.m", .env = "" };
	struct state_profile *got;
	struct buf sql = BUF_INIT;
	int64_t ms = 0;
	size_t n;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(state_profile_id_next(f->w, &ps[i].id, &f->err), 0);
		state_sql_profile(&sql, &ps[i]);
	}
	exec(f->w, sql.buf);
	buf_release(&sql);
	assert_int_equal(state_profiles_read(f->w, f->a, &ask, &got, &n, &f->err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(got[0].id, ps[2].id);
	assert_int_equal(got[0].taken_ms, 1767232800000);
	assert_false(got[0].kept);
	assert_int_equal(got[0].run_id, 8);
	assert_int_equal(got[0].rows, 1000);
	assert_int_equal(got[0].ncols, 2);
	assert_string_equal(got[0].cols[0].name, "z");
	assert_string_equal(got[0].cols[0].type, "BIGINT");
	assert_string_equal(got[0].cols[0].max, "9");
	assert_int_equal(got[0].cols[0].distinct, 9);
	assert_int_equal(got[0].cols[1].nulls, 3);
	assert_null(got[0].cols[1].type);
	assert_null(got[0].cols[1].min);
	assert_int_equal(got[0].cols[1].distinct, -1);
	assert_int_equal(got[0].nanomalies, 2);
	assert_null(got[0].anomalies[0].column);
	assert_true(got[0].anomalies[0].error);
	assert_near(got[0].anomalies[0].high, 115);
	assert_string_equal(got[0].anomalies[1].column, "a");
	assert_near(got[0].anomalies[1].observed, 0.5);
	assert_near(got[0].anomalies[1].high, 0.03);
	assert_int_equal(got[0].anomalies[1].history, 5);
	assert_int_equal(got[1].kind, PROFILE_LIVE);
	assert_int_equal(got[1].refresh_count, 42);
	assert_int_equal(got[1].run_id, 0);
	assert_int_equal(got[2].nanomalies, 0);
	assert_int_equal(got[2].refresh_count, -1);
	/* what a batch run judges against */
	ask.judged = true;
	assert_int_equal(state_profiles_read(f->w, f->a, &ask, &got, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(got[0].id, ps[0].id);
	/* a range, a limit, another environment */
	ask = (struct state_profile_ask){ .model = "s.m", .env = "", .since_ms = 1767229200000,
					  .limit = 1 };
	assert_int_equal(state_profiles_read(f->w, f->a, &ask, &got, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(got[0].id, ps[2].id);
	ask.until_ms = 1767232800000;
	assert_int_equal(state_profiles_read(f->w, f->a, &ask, &got, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(got[0].id, ps[1].id);
	ask = (struct state_profile_ask){ .model = "s.m", .env = "pr1" };
	assert_int_equal(state_profiles_read(f->w, f->a, &ask, &got, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(got[0].ncols, 1);
	/* the live runner's last one */
	assert_int_equal(state_profile_last_ms(f->w, "s.m", &ms, &f->err), 0);
	assert_int_equal(ms, 1767229200000);
	/* PostgreSQL reads them by an index; DuckDB by its statistics */
	if (!on_duckdb(f))
		assert_int_equal(query_int(f->w, "SELECT count(*) FROM pg_indexes WHERE schemaname "
						 "= '_sluice' AND tablename LIKE 'profile%'"),
				 2);
}

/* A warehouse of state version 15 keeps its live profiles: each profile
 * (a model's rows of one time) gets an id of its own, the environment of
 * the main run, and the new columns unknown. */
static void test_upgrade_keeps_live_profiles(void **state)
{
	struct fx *f = *state;
	struct state_profile_ask ask = { .model = "s.m", .env = "" };
	struct state_profile *got;
	size_t n;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	exec(f->w, "DROP TABLE _sluice.profile_anomalies; DROP TABLE _sluice.profiles;\n"
		   "DROP SEQUENCE _sluice.profile_ids;\n"
		   "CREATE TABLE _sluice.profiles (model VARCHAR NOT NULL, profiled_at TIMESTAMP NOT "
		   "NULL, column_name VARCHAR NOT NULL, rows BIGINT, nulls BIGINT, min_value VARCHAR, "
		   "max_value VARCHAR);\n"
		   "INSERT INTO _sluice.profiles VALUES ('s.m', '2026-01-01 00:00:00', 'a', 10, 1, "
		   "'1', '9'), ('s.m', '2026-01-01 00:00:00', 'b', 10, 0, 'x', 'y'), ('s.m', "
		   "'2026-01-02 00:00:00', 'a', 12, 2, '1', '9'), ('o.n', '2026-01-01 00:00:00', "
		   "'a', 3, 0, NULL, NULL);\n"
		   "DELETE FROM _sluice.version; INSERT INTO _sluice.version VALUES (15, 'old', "
		   "NULL)");
	assert_int_equal(state_ensure(f->w, &f->err), 0);
	assert_int_equal(query_int(f->w, "SELECT max(version) FROM _sluice.version"),
			 STATE_VERSION);
	assert_int_equal(state_profiles_read(f->w, f->a, &ask, &got, &n, &f->err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(got[0].kind, PROFILE_LIVE);
	assert_int_equal(got[0].rows, 12);
	assert_int_equal(got[0].ncols, 1);
	assert_int_equal(got[0].cols[0].nulls, 2);
	assert_int_equal(got[0].cols[0].distinct, -1);
	assert_int_equal(got[1].ncols, 2);
	assert_true(got[0].id != got[1].id);
	assert_int_equal(query_int(f->w, "SELECT count(DISTINCT profile_id) FROM _sluice.profiles"),
			 3);
	assert_true(query_int(f->w, "SELECT nextval('_sluice.profile_ids')") > 3);
	if (!on_duckdb(f))
		assert_int_equal(query_int(f->w, "SELECT count(*) FROM pg_indexes WHERE schemaname "
						 "= '_sluice' AND tablename LIKE 'profile%'"),
				 2);
}

/* The project as it stands after writing its files. */
static void load(struct fx *f)
{
	f->p = fixture_load_valid(f->a, f->root);
}

/* One batch run over the whole project; the status of each of the n
 * models named into st (RUN_UP_TO_DATE for one the run did not list). */
static void run(struct fx *f, const char *const *names, enum run_status *st, size_t n)
{
	struct run_opts opts = { .env = "" };
	struct run_report rep;
	const char **rel;
	size_t nrel;

	if (wh_relation_list(f->w, f->a, &rel, &nrel, &f->err))
		fail_msg("%s", f->err.msg);
	if (live_batch_run(f->a, f->p, f->w, rel, nrel, &opts, &rep, &f->err))
		fail_msg("live_batch_run: %s", f->err.msg);
	for (size_t k = 0; k < n; k++) {
		st[k] = RUN_UP_TO_DATE;
		for (size_t i = 0; i < rep.n; i++)
			if (strcmp(rep.items[i].m->fqn, names[k]) == 0)
				st[k] = rep.items[i].status;
	}
	run_report_free(&rep);
}

/* A seed of rows rows, each amount NULL when nulls. */
static void seed(struct fx *f, int rows, bool nulls)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "id,amount\n");
	for (int i = 1; i <= rows; i++)
		buf_addf(&b, nulls ? "%d,\n" : "%d,%d\n", i, i * 2);
	fixture_put(f->root, "seeds/orders.csv", b.buf);
	buf_release(&b);
}

/* Batch builds record their profiles; once five are there a jump of the
 * row count warns on one model and fails the other, whose data stays as
 * it was while its profile is kept for the record, rejected; a model set
 * off takes none. */
static void test_batch_runs_judge_profiles(void **state)
{
	struct fx *f = *state;
	static const char *const names[] = { "gold.strict", "gold.loose" };
	struct state_profile_ask ask = { .model = "gold.strict", .env = "" };
	struct state_profile *got;
	enum run_status st[2];
	size_t n;

	fixture_put(f->root, "sluice.yml", "name: p\n");
	fixture_put(f->root, "models/gold/strict.sql",
		    "@config materialized=table, anomaly=error, anomaly_columns=[amount:off]\n"
		    "SELECT * FROM seeds.orders\n");
	fixture_put(f->root, "models/gold/loose.sql",
		    "@config materialized=table\nSELECT * FROM seeds.orders\n");
	fixture_put(f->root, "models/gold/quiet.sql",
		    "@config materialized=table, anomaly=off\nSELECT * FROM seeds.orders\n");
	for (int i = 0; i < 5; i++) {
		seed(f, 20 + i % 2, false);
		load(f);
		run(f, names, st, 2);
		assert_int_equal(st[0], RUN_OK);
		assert_int_equal(st[1], RUN_OK);
	}
	assert_int_equal(query_int(f->w, "SELECT count(DISTINCT profile_id) FROM _sluice.profiles "
					 "WHERE model = 'gold.strict' AND kind = 'batch' AND kept"),
			 5);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.profiles WHERE model = "
					 "'gold.quiet'"),
			 0);
	seed(f, 200, true);
	load(f);
	run(f, names, st, 2);
	assert_int_equal(st[0], RUN_FAILED);
	assert_int_equal(st[1], RUN_WARN);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM gold.strict"), 20);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM gold.loose"), 200);
	assert_int_equal(state_profiles_read(f->w, f->a, &ask, &got, &n, &f->err), 0);
	assert_int_equal(n, 6);
	assert_false(got[0].kept);
	assert_int_equal(got[0].rows, 200);
	/* the NULLs of amount are not judged on it */
	assert_int_equal(got[0].nanomalies, 1);
	assert_string_equal(got[0].anomalies[0].metric, "row_count");
	assert_true(got[0].anomalies[0].error);
	assert_true(got[1].kept);
	ask.model = "gold.loose";
	assert_int_equal(state_profiles_read(f->w, f->a, &ask, &got, &n, &f->err), 0);
	assert_true(got[0].kept);
	assert_int_equal(got[0].nanomalies, 2);
	assert_false(got[0].anomalies[0].error);
}

/* The live runner's profile: written at once, by refresh count. */
static void test_live_profile(void **state)
{
	struct fx *f = *state;
	struct state_profile_ask ask = { .model = "gold.loose", .env = "" };
	struct state_profile *got;
	enum run_status st[1];
	int64_t ms = 0;
	size_t n;

	fixture_put(f->root, "sluice.yml", "name: p\n");
	fixture_put(f->root, "models/gold/loose.sql",
		    "@config materialized=table, anomaly=off\nSELECT 1 AS id\n");
	load(f);
	run(f, &ask.model, st, 1);
	assert_int_equal(st[0], RUN_OK);
	assert_false(live_profile_wanted(fixture_model(f->p, "gold.loose"), &f->p->cfg.anomaly));
	assert_int_equal(live_profile(f->a, f->w, fixture_model(f->p, "gold.loose"), 3, &f->err),
			 0);
	assert_int_equal(state_profiles_read(f->w, f->a, &ask, &got, &n, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(got[0].kind, PROFILE_LIVE);
	assert_int_equal(got[0].refresh_count, 3);
	assert_int_equal(got[0].rows, 1);
	assert_int_equal(state_profile_last_ms(f->w, "gold.loose", &ms, &f->err), 0);
	assert_int_equal(ms, got[0].taken_ms);
}

int main(void)
{
#define ON(name, wh) { #name "_" #wh, test_##name, setup_##wh, teardown, NULL }
#define T(name) ON(name, duckdb), ON(name, postgres)
#define F(name) cmocka_unit_test_setup_teardown(test_##name, setup_folder, teardown_folder)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_band_median_and_mad),
		cmocka_unit_test(test_band_even_count),
		cmocka_unit_test(test_band_mad_zero_takes_the_floor),
		cmocka_unit_test(test_judge_needs_history),
		cmocka_unit_test(test_judge_mad_zero),
		cmocka_unit_test(test_judge_null_rates),
		cmocka_unit_test(test_judge_levels),
		F(settings_levels),
		F(settings_errors),
		F(settings_project),
		T(take_profile),
		ON(take_profile_unordered, postgres),
		T(profiles_round_trip),
		T(upgrade_keeps_live_profiles),
		T(batch_runs_judge_profiles),
		T(live_profile),
	};
#undef F
#undef T
#undef ON

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
