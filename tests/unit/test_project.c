/*
 * Unit tests for the project loader (src/project/project.c): finding the
 * project folder, loading models/<schema>/<name>.sql and seeds/<name>.csv from a
 * temporary folder, pipeline.yml defaults, the layout problems it reports,
 * and the change hash (data-affecting settings only).
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
#include "project/model.h"
#include "project/project.h"
#include "project/validate.h"
#include "state/state.h"
#include "warehouse/sqlparse.h"

#include <ftw.h>
#include <limits.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int setup(void **state)
{
	return fixture_project_setup(state, "project");
}

static void mkdir_in(struct fixture_project *f, const char *rel)
{
	char path[PATH_MAX + 256];

	snprintf(path, sizeof(path), "%s/%s", f->root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static struct project *load(struct fixture_project *f)
{
	arena_reset(f->a);
	f->p = fixture_load(f->a, f->root);
	return f->p;
}

static void expect_clean(struct fixture_project *f)
{
	if (f->p->diags.n) {
		diag_print(&f->p->diags, stderr);
		fail_msg("%zu unexpected diagnostics", f->p->diags.n);
	}
}

static void test_locate_walks_up(void **state)
{
	struct fixture_project *f = *state;
	struct sl_err err = SL_ERR_INIT;
	char cwd[PATH_MAX], sub[PATH_MAX + 32];
	char *root = NULL;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/orders.sql", "SELECT 1\n");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(sub, sizeof(sub), "%s/models/silver", f->root);
	assert_int_equal(chdir(sub), 0);
	assert_int_equal(project_locate(NULL, &root, &err), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(root, f->root);
	free(root);

	/* from the folder itself */
	assert_int_equal(chdir(f->root), 0);
	assert_int_equal(project_locate(NULL, &root, &err), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(root, f->root);
	free(root);
}

static void test_locate_given_dir(void **state)
{
	struct fixture_project *f = *state;
	struct sl_err err = SL_ERR_INIT;
	char dir[PATH_MAX + 32];
	char *root = NULL;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/orders.sql", "SELECT 1\n");
	/* a relative-looking path with .. is resolved */
	snprintf(dir, sizeof(dir), "%s/models/..", f->root);
	assert_int_equal(project_locate(dir, &root, &err), 0);
	assert_string_equal(root, f->root);
	free(root);

	/* a given folder must hold sluice.yml itself: no walking up */
	snprintf(dir, sizeof(dir), "%s/models", f->root);
	root = NULL;
	assert_int_equal(project_locate(dir, &root, &err), SL_E_NOTFOUND);
	assert_null(root);
	assert_non_null(strstr(err.msg, "no sluice.yml in '"));
	assert_non_null(strstr(err.msg, "hint: create a project with 'sluice init DIR'"));

	snprintf(dir, sizeof(dir), "%s/nope", f->root);
	assert_int_equal(project_locate(dir, &root, &err), SL_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "not found"));
}

static void test_locate_nothing_upward(void **state)
{
	struct fixture_project *f = *state;
	struct sl_err err = SL_ERR_INIT;
	char cwd[PATH_MAX];
	char *root = NULL;
	int rc;

	mkdir_in(f, "empty");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(f->root), 0);
	assert_int_equal(chdir("empty"), 0);
	rc = project_locate(NULL, &root, &err);
	assert_int_equal(chdir(cwd), 0);
	if (rc == 0) {
		/* a sluice.yml above /tmp would be found; nothing to check then */
		free(root);
		skip();
	}
	assert_int_equal(rc, SL_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "no sluice.yml in this folder or any parent"));
}

static void test_load_models_and_seeds(void **state)
{
	struct fixture_project *f = *state;
	struct project *p;
	struct model *m;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/orders.sql",
		    "@config materialized=incremental, unique_key=id\n"
		    "SELECT id, amount FROM landing.orders;\n");
	fixture_put(f->root, "models/gold/revenue.sql",
		    "SELECT sum(amount) AS total FROM silver.orders\n");
	fixture_put(f->root, "models/gold/notes.txt", "not a model");
	fixture_put(f->root, "seeds/regions.csv", "code,name\neu,Europe\n");
	fixture_put(f->root, "seeds/README.md", "not a seed");
	p = load(f);
	expect_clean(f);
	assert_string_equal(p->root, f->root);
	assert_string_equal(p->cfg.name, "shop");
	assert_int_equal(p->nmodels, 3);
	/* schemas and files in name order, seeds last */
	assert_string_equal(p->models[0]->fqn, "gold.revenue");
	assert_string_equal(p->models[1]->fqn, "silver.orders");
	assert_string_equal(p->models[2]->fqn, "seeds.regions");

	m = fixture_model(f->p, "silver.orders");
	assert_string_equal(m->schema, "silver");
	assert_string_equal(m->name, "orders");
	assert_string_equal(m->path, "models/silver/orders.sql");
	assert_string_equal(m->abspath, arena_sprintf(f->a, "%s/models/silver/orders.sql", f->root));
	assert_int_equal(m->mat, MAT_INCREMENTAL);
	assert_int_equal(m->strategy, STRAT_MERGE);
	assert_string_equal(m->body, "SELECT id, amount FROM landing.orders");
	assert_int_equal(m->body_line, 2);
	assert_int_equal(m->nrefs, 1);
	assert_string_equal(m->refs[0].schema, "landing");
	assert_string_equal(m->refs[0].name, "orders");
	assert_int_equal(strlen(m->hash), 64);
	assert_int_equal(strspn(m->hash, "0123456789abcdef"), 64);

	m = fixture_model(f->p, "gold.revenue");
	assert_int_equal(m->mat, MAT_VIEW);
	assert_int_equal(m->nrefs, 1);
	assert_string_equal(m->refs[0].name, "orders");

	m = fixture_model(f->p, "seeds.regions");
	assert_int_equal(m->mat, MAT_SEED);
	assert_string_equal(m->path, "seeds/regions.csv");
	assert_string_equal(m->text, "code,name\neu,Europe\n");
	assert_int_equal(strlen(m->hash), 64);
}

static void test_names_lowercased(void **state)
{
	struct fixture_project *f = *state;
	struct model *m;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/Silver/Orders.sql", "SELECT 1 AS x\n");
	load(f);
	expect_clean(f);
	m = fixture_model(f->p, "silver.orders");
	assert_string_equal(m->fqn, "silver.orders");
	assert_string_equal(m->path, "models/Silver/Orders.sql");
	assert_ptr_equal(project_find_model(f->p, "SILVER.ORDERS"), m);
	assert_null(project_find_model(f->p, "silver.order"));
}

static void test_pipeline_defaults(void **state)
{
	struct fixture_project *f = *state;
	struct model *m;
	const struct model_setting *st;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/gold/pipeline.yml",
		    "materialized: table\ntags: [daily, finance]\n");
	fixture_put(f->root, "models/gold/a.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/gold/b.sql", "@config materialized=view\nSELECT 2 AS x\n");
	fixture_put(f->root, "models/silver/c.sql", "SELECT 3 AS x\n");
	load(f);
	expect_clean(f);
	m = fixture_model(f->p, "gold.a");
	assert_int_equal(m->mat, MAT_TABLE);
	assert_int_equal(m->ntags, 2);
	assert_string_equal(m->tags[0], "daily");
	st = model_setting_get(m, "materialized");
	assert_non_null(st);
	assert_true(st->from_pipeline);
	/* the model's own @config wins over the folder's default */
	m = fixture_model(f->p, "gold.b");
	assert_int_equal(m->mat, MAT_VIEW);
	assert_false(model_setting_get(m, "materialized")->from_pipeline);
	assert_int_equal(m->ntags, 2);
	/* another folder does not see it */
	m = fixture_model(f->p, "silver.c");
	assert_int_equal(m->mat, MAT_VIEW);
	assert_int_equal(m->ntags, 0);
}

static void test_pipeline_unknown_key(void **state)
{
	struct fixture_project *f = *state;
	const struct diag *d;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/gold/pipeline.yml", "materialised: table\n");
	fixture_put(f->root, "models/gold/a.sql", "SELECT 1 AS x\n");
	load(f);
	d = fixture_diag(f->p, "unknown @config key 'materialised'");
	assert_string_equal(d->file, "models/gold/pipeline.yml");
	assert_int_equal(d->line, 1);
}

/* Every file sluice reads of a project must be a regular file of text
 * under the size limit: a FIFO does not block the load, a device is not
 * read without end or as an empty file, a NUL byte or bytes that are not
 * UTF-8 are named with their line, and the rest still loads. */
static void test_files_must_be_regular_text(void **state)
{
	struct fixture_project *f = *state;
	char path[PATH_MAX + 64];

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/gold/ok.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/gold/nul.sql", "SELECT 1\nAS x\n");
	snprintf(path, sizeof(path), "%s/models/gold/nul.sql", f->root);
	assert_int_equal(truncate(path, 16), 0); /* two NUL bytes after line 2 */
	fixture_put(f->root, "models/gold/latin1.sql", "SELECT 'caf\xe9' AS x\n");
	snprintf(path, sizeof(path), "%s/models/gold/fifo.sql", f->root);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/models/gold/zero.sql", f->root);
	assert_int_equal(symlink("/dev/zero", path), 0);
	snprintf(path, sizeof(path), "%s/models/silver/pipeline.yml", f->root);
	fixture_put(f->root, "models/silver/a.sql", "SELECT 1 AS x\n");
	assert_int_equal(symlink("/dev/urandom", path), 0);
	snprintf(path, sizeof(path), "%s/seeds/fifo.csv", f->root);
	fixture_put(f->root, "seeds/ok.csv", "a\n1\n");
	assert_int_equal(mkfifo(path, 0600), 0);
	load(f);
	assert_int_equal(f->p->diags.n, 6);
	assert_int_equal(fixture_diag(f->p, "'models/gold/nul.sql' holds a NUL byte")->line, 3);
	assert_int_equal(fixture_diag(f->p, "'models/gold/latin1.sql' is not UTF-8 text")->line, 1);
	fixture_diag(f->p, "'models/gold/fifo.sql' is a FIFO, not a regular file");
	fixture_diag(f->p, "'models/gold/zero.sql' is a character device, not a regular file");
	fixture_diag(f->p, "'models/silver/pipeline.yml' is a character device, not a regular file");
	fixture_diag(f->p, "'seeds/fifo.csv' is a FIFO, not a regular file");
	assert_non_null(project_find_model(f->p, "gold.ok"));
	assert_non_null(project_find_model(f->p, "seeds.ok"));
}

/* sluice's own schemas, the tables sources land in or follow, and the side
 * tables of builds are never a model's to write: each is refused at the
 * model file with what it would overwrite. */
static void test_models_never_write_where_sluice_does(void **state)
{
	struct fixture_project *f = *state;
	const struct diag *d;

	fixture_put(f->root, "sluice.yml",
		    "name: shop\n"
		    "sources:\n"
		    "  orders: {kind: webhook}\n"
		    "  legacy: {kind: adopted, table: raw.legacy_events, cursor: id}\n");
	fixture_put(f->root, "models/_sluice/models.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/_SLUICE/runs.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/landing/clicks.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/landing/orders.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/seeds/extra.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/raw/legacy_events.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/raw/other.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/gold/totals__sluice_new.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "seeds/regions.csv", "a\n1\n");
	load(f);
	expect_clean(f);
	assert_int_equal(project_validate(f->p, NULL, 0), SL_E_INVALID);
	d = fixture_diag(f->p, "model '_sluice.models' would write into schema '_sluice', which "
			       "holds sluice's own state");
	assert_string_equal(d->file, "models/_sluice/models.sql");
	assert_int_equal(d->line, 1);
	fixture_diag(f->p, "model '_sluice.runs' would write into schema '_sluice', which holds "
			   "sluice's own state");
	fixture_diag(f->p, "model 'landing.clicks' would write into schema 'landing', where "
			   "sources land their rows");
	d = fixture_diag(f->p, "model 'landing.orders' would replace table 'landing.orders', which "
			       "source 'orders' lands in");
	assert_non_null(strstr(d->hint, "sluice.yml:3"));
	fixture_diag(f->p, "model 'seeds.extra' would write into schema 'seeds', which holds the "
			   "seeds, loaded from seeds/*.csv");
	d = fixture_diag(f->p, "model 'raw.legacy_events' would replace table 'raw.legacy_events', "
			       "which source 'legacy' follows");
	assert_non_null(strstr(d->hint, "sluice.yml:4"));
	fixture_diag(f->p, "model name 'totals__sluice_new' holds '__sluice_', which names "
			   "sluice's side tables");
	/* the landing model is refused for its schema and its table */
	assert_int_equal(diag_count(&f->p->diags, DIAG_ERROR), 8);
}

/* An environment's schemas are SCHEMA_ENV: they may not be a schema of
 * the project (env pr1 of silver is the folder silver_pr1), nor one where
 * another environment the warehouse records keeps its copies (env b of
 * x_a and env a_b of x are both x_a_b); and a folder added since may not
 * be one where a recorded environment keeps its copies. */
static void test_environment_schemas_never_meet(void **state)
{
	struct fixture_project *f = *state;
	static const struct state_env_model recorded[] = {
		{ "a_b", "x.m" },
		{ "a_b", "x.n" },
		{ "a_b", "x_a.k" },
		{ "old", "silver.orders" },
		{ "pr1", "silver.orders" },
	};
	const struct diag *d;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/orders.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/silver/items.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/silver_pr1/orders.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/x_a/k.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/x/m.sql", "SELECT 1 AS x\n");
	load(f);
	expect_clean(f);
	assert_int_equal(project_validate(f->p, NULL, 0), 0);

	/* the current env against the project's own schemas, once per schema */
	assert_int_equal(project_validate_envs(f->p, "pr1", NULL, 0), SL_E_INVALID);
	assert_int_equal(f->p->diags.n, 1);
	d = fixture_diag(f->p, "environment 'pr1' would build model 'silver.items' into schema "
			       "'silver_pr1', which holds model 'silver_pr1.orders'");
	assert_string_equal(d->file, "models/silver/items.sql");
	assert_int_equal(d->line, 1);
	f->p->diags.n = 0;
	assert_int_equal(project_validate_envs(f->p, "pr2", NULL, 0), 0);
	assert_int_equal(project_validate_envs(f->p, NULL, NULL, 0), 0);
	/* a name the environment flag refuses is refused there */
	assert_int_equal(project_validate_envs(f->p, "PR1", NULL, 0), 0);

	/* against the recorded environments: env b of x_a meets env a_b of x,
	 * not its own copies; pr1 of silver meets the folder silver_pr1 */
	assert_int_equal(project_validate_envs(f->p, "b", recorded, 5), SL_E_INVALID);
	d = fixture_diag(f->p, "environment 'b' would build model 'x_a.k' into schema 'x_a_b', "
			       "where environment 'a_b' keeps its copy of model 'x.m'");
	assert_string_equal(d->file, "models/x_a/k.sql");
	d = fixture_diag(f->p, "model 'silver_pr1.orders' would be built into schema "
			       "'silver_pr1', where environment 'pr1' keeps its copy of model "
			       "'silver.orders'");
	assert_string_equal(d->file, "models/silver_pr1/orders.sql");
	assert_int_equal(f->p->diags.n, 2);

	/* without an env only the recorded ones, each schema once */
	f->p->diags.n = 0;
	assert_int_equal(project_validate_envs(f->p, NULL, recorded, 5), SL_E_INVALID);
	assert_int_equal(f->p->diags.n, 1);
	/* the current env's own copies are its to rebuild */
	f->p->diags.n = 0;
	assert_int_equal(project_validate_envs(f->p, "a_b", recorded, 3), 0);
}

static void test_duplicate_names(void **state)
{
	struct fixture_project *f = *state;
	const struct diag *d;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/seeds/x.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "seeds/x.csv", "a\n1\n");
	load(f);
	assert_int_equal(f->p->diags.n, 1);
	d = fixture_diag(f->p,
			 "duplicate model name 'seeds.x' (also defined by 'models/seeds/x.sql')");
	assert_int_equal(d->severity, DIAG_ERROR);
	assert_string_equal(d->file, "seeds/x.csv");
	assert_string_equal(d->hint, "rename one of 'models/seeds/x.sql' and 'seeds/x.csv'");
}

static void test_duplicate_names_by_case(void **state)
{
	struct fixture_project *f = *state;
	const struct diag *d;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/gold/Totals.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/gold/totals.sql", "SELECT 2 AS x\n");
	load(f);
	d = fixture_diag(f->p, "duplicate model name 'gold.totals' (also defined by "
			       "'models/gold/Totals.sql')");
	assert_string_equal(d->file, "models/gold/totals.sql");
}

static void test_nested_folder(void **state)
{
	struct fixture_project *f = *state;
	const struct diag *d;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/orders.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/silver/extra/deep.sql", "SELECT 2 AS x\n");
	load(f);
	assert_int_equal(f->p->nmodels, 1);
	d = fixture_diag(f->p, "nested folder 'models/silver/extra' is not allowed");
	assert_string_equal(d->file, "models/silver/extra");
	assert_string_equal(d->hint,
			    "the folder under models/ is the schema: models/<schema>/<name>.sql");
}

static void test_sql_directly_in_models(void **state)
{
	struct fixture_project *f = *state;
	const struct diag *d;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/loose.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/silver/ok.sql", "SELECT 1 AS x\n");
	load(f);
	assert_int_equal(f->p->nmodels, 1);
	d = fixture_diag(f->p, "model file 'models/loose.sql' is not in a schema folder");
	assert_string_equal(d->file, "models/loose.sql");
	assert_string_equal(d->hint, "move it to models/<schema>/<name>.sql");
}

static void test_empty_project(void **state)
{
	struct fixture_project *f = *state;
	const struct diag *d;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	load(f);
	assert_int_equal(f->p->nmodels, 0);
	assert_int_equal(f->p->diags.n, 1);
	d = fixture_diag(f->p, "the project has no models");
	assert_string_equal(d->file, "sluice.yml");
	assert_non_null(d->hint);

	/* empty models/ and seeds/ folders are still an empty project */
	mkdir_in(f, "models");
	mkdir_in(f, "seeds");
	mkdir_in(f, "models/silver");
	load(f);
	fixture_diag(f->p, "the project has no models");
}

static void test_no_sluice_yml(void **state)
{
	struct fixture_project *f = *state;
	struct sl_err err = SL_ERR_INIT;
	struct project *p = NULL;

	fixture_put(f->root, "models/silver/a.sql", "SELECT 1\n");
	assert_int_equal(project_load(f->a, f->root, parser, &p, &err), SL_E_IO);
	assert_non_null(strstr(err.msg, "sluice.yml"));
}

static void test_invalid_name(void **state)
{
	struct fixture_project *f = *state;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/9lives.sql", "SELECT 1 AS x\n");
	fixture_put(f->root, "models/silver/with-dash.sql", "SELECT 1 AS x\n");
	load(f);
	fixture_diag(f->p, "invalid model name 'silver.9lives'");
	fixture_diag(f->p, "invalid model name 'silver.with-dash'");
}

static void test_model_problems_reported(void **state)
{
	struct fixture_project *f = *state;
	const struct diag *d;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/bad.sql",
		    "@config materialized=table\n\nSELECT a b c FROM t\n");
	fixture_put(f->root, "models/silver/good.sql", "SELECT 1 AS x\n");
	load(f);
	assert_int_equal(f->p->nmodels, 2);
	assert_int_equal(f->p->diags.n, 1);
	d = &f->p->diags.items[0];
	assert_string_equal(d->file, "models/silver/bad.sql");
	assert_int_equal(d->line, 3);
	assert_int_equal(d->col, 12);
	assert_non_null(strstr(d->msg, "syntax error"));
}

/* The hash of models/silver/m.sql holding text in a project whose
 * sluice.yml is yml (a fresh load each time). */
static char *hash_in(struct fixture_project *f, const char *yml, const char *text)
{
	fixture_put(f->root, "sluice.yml", yml);
	fixture_put(f->root, "models/silver/m.sql", text);
	load(f);
	expect_clean(f);
	return strdup(fixture_model(f->p, "silver.m")->hash);
}

static char *hash_of(struct fixture_project *f, const char *text)
{
	return hash_in(f, "name: shop\n", text);
}

static void expect_hash_in(struct fixture_project *f, const char *yml, const char *base,
			   const char *text, bool same)
{
	char *h = hash_in(f, yml, text);

	if (same && strcmp(h, base) != 0)
		fail_msg("the hash changed for:\n%s", text);
	if (!same && strcmp(h, base) == 0)
		fail_msg("the hash did not change for:\n%s", text);
	free(h);
}

static void expect_hash(struct fixture_project *f, const char *base, const char *text, bool same)
{
	expect_hash_in(f, "name: shop\n", base, text, same);
}

static void test_hash_data_changes(void **state)
{
	struct fixture_project *f = *state;
	char *base = hash_of(f, "@config materialized=incremental, unique_key=id\n"
				"SELECT id, amount FROM t\n");
	char *again = hash_of(f, "@config materialized=incremental, unique_key=id\n"
				 "SELECT id, amount FROM t\n");

	/* the same text, the same hash */
	assert_string_equal(base, again);
	free(again);
	/* the query */
	expect_hash(f, base, "@config materialized=incremental, unique_key=id\n"
			     "SELECT id, amount + 1 AS amount FROM t\n", false);
	/* data-affecting @config keys */
	expect_hash(f, base, "@config materialized=table, unique_key=id\n"
			     "SELECT id, amount FROM t\n", false);
	expect_hash(f, base, "@config materialized=incremental, unique_key=amount\n"
			     "SELECT id, amount FROM t\n", false);
	expect_hash(f, base, "@config materialized=incremental, unique_key=id,\n"
			     "  incremental_strategy=delete+insert\n"
			     "SELECT id, amount FROM t\n", false);
	expect_hash(f, base, "@config materialized=incremental, unique_key=id,\n"
			     "  incremental_filter=WHERE id > {watermark}\n"
			     "SELECT id, amount FROM t\n", false);
	free(base);
}

#define LAYOUT_HEAD                                                   \
	"@config materialized=incremental, unique_key=id,\n"           \
	"  incremental_filter=WHERE seq > {watermark} AND id > 0\n"
#define LAYOUT_BASE                                                   \
	LAYOUT_HEAD "SELECT id, amount * 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n" \
		    "FROM t WHERE amount > 0\n"

/* The hash covers the parse tree: comments, spacing, line breaks and the
 * case of keywords leave it as it was, in the query and in the filter. */
static void test_hash_ignores_layout(void **state)
{
	struct fixture_project *f = *state;
	char *base = hash_of(f, LAYOUT_BASE);

	expect_hash(f, base,
		    LAYOUT_HEAD "-- what the orders come to\n"
				"SELECT id, /* doubled */ amount * 2 AS amount, 'a b' AS s,\n"
				"  9007199254740993 AS big -- the largest\n"
				"FROM t WHERE amount > 0 /* only some */\n",
		    true);
	expect_hash(f, base,
		    LAYOUT_HEAD "SELECT\n    id,\n    amount*2   AS amount,\n\t'a b' AS s,\n"
				"    9007199254740993 AS big\nFROM t\nWHERE amount>0\n\n",
		    true);
	expect_hash(f, base,
		    LAYOUT_HEAD "select id, amount * 2 as amount, 'a b' as s, 9007199254740993 as big\n"
				"from t where amount > 0\n",
		    true);
	expect_hash(f, base,
		    "@config materialized=incremental, unique_key=id,\n"
		    "  incremental_filter=where   seq>{watermark} and id>0\n"
		    "SELECT id, amount * 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n"
		    "FROM t WHERE amount > 0\n",
		    true);
	free(base);
}

/* Whatever changes the tree changes the hash: literals (to the last digit
 * of a BIGINT), columns, aliases and the case of a name (the column's
 * name), operators, the spacing inside a string, and placeholders, which
 * the parser sees only as stand-ins. */
static void test_hash_tree_changes(void **state)
{
	struct fixture_project *f = *state;
	char *base = hash_of(f, LAYOUT_BASE);
	static const char *const changed[] = {
		LAYOUT_HEAD "SELECT id, amount * 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n"
			    "FROM t WHERE amount > 1\n",
		LAYOUT_HEAD "SELECT id, amount * 2 AS amount, 'a b' AS s, 9007199254740992 AS big\n"
			    "FROM t WHERE amount > 0\n",
		LAYOUT_HEAD "SELECT id, amt * 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n"
			    "FROM t WHERE amount > 0\n",
		LAYOUT_HEAD "SELECT id, amount * 2 AS total, 'a b' AS s, 9007199254740993 AS big\n"
			    "FROM t WHERE amount > 0\n",
		LAYOUT_HEAD "SELECT id, amount * 2 AS Amount, 'a b' AS s, 9007199254740993 AS big\n"
			    "FROM t WHERE amount > 0\n",
		LAYOUT_HEAD "SELECT id, amount * 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n"
			    "FROM t WHERE amount >= 0\n",
		LAYOUT_HEAD "SELECT id, amount / 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n"
			    "FROM t WHERE amount > 0\n",
		LAYOUT_HEAD "SELECT id, amount * 2 AS amount, 'a  b' AS s, 9007199254740993 AS big\n"
			    "FROM t WHERE amount > 0\n",
		LAYOUT_HEAD "SELECT id, amount * 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n"
			    "FROM u WHERE amount > 0\n",
		/* a setting that counts */
		"@config materialized=incremental, unique_key=amount,\n"
		"  incremental_filter=WHERE seq > {watermark} AND id > 0\n"
		"SELECT id, amount * 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n"
		"FROM t WHERE amount > 0\n",
		/* a placeholder's argument */
		"@config materialized=incremental, unique_key=id,\n"
		"  incremental_filter=WHERE seq > {watermark:orders} AND id > 0\n"
		"SELECT id, amount * 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n"
		"FROM t WHERE amount > 0\n",
		/* a placeholder trading places with the literal its stand-in equals */
		"@config materialized=incremental, unique_key=id,\n"
		"  incremental_filter=WHERE seq > 0 AND id > {watermark}\n"
		"SELECT id, amount * 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n"
		"FROM t WHERE amount > 0\n",
		/* the same placeholder, now as written in the filter */
		"@config materialized=incremental, unique_key=id,\n"
		"  incremental_filter=WHERE seq > 00000000000 AND id > 0\n"
		"SELECT id, amount * 2 AS amount, 'a b' AS s, 9007199254740993 AS big\n"
		"FROM t WHERE amount > 0\n",
		NULL,
	};
	char *in_string;

	for (size_t i = 0; changed[i]; i++)
		expect_hash(f, base, changed[i], false);
	free(base);
	/* placeholders of one length inside a string: the same stand-in */
	in_string = hash_of(f, "SELECT '{since}' AS a, {env} AS b\n");
	expect_hash(f, in_string, "SELECT '{until}' AS a, {env} AS b\n", false);
	expect_hash(f, in_string, "select '{since}' as a,\n  {env} as b -- here\n", true);
	free(in_string);
}

/* The hash as earlier versions wrote it (over the query's text, each tag
 * and value ending in NUL) is computed alongside, for the plan to accept;
 * a query that does not parse is hashed that way alone. */
static void test_hash_text_form(void **state)
{
	struct fixture_project *f = *state;
	static const char earlier[] = "mat\0table\0body\0SELECT 1 AS x\0materialized\0table";
	unsigned char md[SHA256_DIGEST_LENGTH];
	char hex[65];
	struct model *m;

	SHA256((const unsigned char *)earlier, sizeof(earlier), md);
	for (size_t i = 0; i < SHA256_DIGEST_LENGTH; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/m.sql", "@config materialized=table\nSELECT 1 AS x\n");
	load(f);
	expect_clean(f);
	m = fixture_model(f->p, "silver.m");
	assert_string_equal(m->text_hash, hex);
	assert_int_equal(strlen(m->tree_hash), 64);
	assert_string_not_equal(m->hash, hex);

	fixture_put(f->root, "models/silver/m.sql", "@config materialized=table\nSELECT 1 AS\n");
	load(f);
	m = fixture_model(f->p, "silver.m");
	assert_int_equal(diag_count(&f->p->diags, DIAG_ERROR), 1);
	assert_string_equal(m->tree_hash, "");
	assert_string_equal(m->hash, m->text_hash);
}

/* On PostgreSQL, which reads some trees of DuckDB's parser two ways, the
 * tokens count too: a quoted name is another name there, and float another
 * type than real. Comments, spacing and case still change nothing. */
static void test_hash_tokens_on_postgres(void **state)
{
	struct fixture_project *f = *state;
	const char *pg = "name: shop\nwarehouse: {type: postgres, dsn_env: SHOP_PG}\n";
	const char *text = "SELECT amount::real AS \"Total\" FROM t\n";
	char *base = hash_in(f, pg, text);

	expect_hash_in(f, pg, base, "-- what it is\nselect amount::REAL\n  as \"Total\" from t\n",
		       true);
	expect_hash_in(f, pg, base, "SELECT amount::float AS \"Total\" FROM t\n", false);
	expect_hash_in(f, pg, base, "SELECT amount::real AS Total FROM t\n", false);
	expect_hash_in(f, pg, base, "SELECT amount::real AS \"total\" FROM t\n", false);
	free(base);
	/* on DuckDB both are the same query */
	base = hash_of(f, text);
	expect_hash(f, base, "SELECT amount::float AS Total FROM t\n", true);
	free(base);
}

static void test_hash_ignores_refresh_and_description(void **state)
{
	struct fixture_project *f = *state;
	char *base = hash_of(f, "@config materialized=incremental, unique_key=id\n"
				"SELECT id, amount FROM t\n");

	expect_hash(f, base, "@config materialized=incremental, unique_key=id, live=true\n"
			     "SELECT id, amount FROM t\n", true);
	expect_hash(f, base, "@config materialized=incremental, unique_key=id, live_interval=10s\n"
			     "SELECT id, amount FROM t\n", true);
	expect_hash(f, base, "@config materialized=incremental, unique_key=id, tags=[a, b]\n"
			     "SELECT id, amount FROM t\n", true);
	expect_hash(f, base, "@config materialized=incremental, unique_key=id, ivm=off\n"
			     "SELECT id, amount FROM t\n", true);
	expect_hash(f, base, "@config materialized=incremental, unique_key=id,\n"
			     "  description='what it is'\n"
			     "SELECT id, amount FROM t\n", true);
	/* the order keys are written in does not matter */
	expect_hash(f, base, "@config unique_key=id, materialized=incremental\n"
			     "SELECT id, amount FROM t\n", true);
	/* nor does a check: asserts do not change the data */
	expect_hash(f, base, "@config materialized=incremental, unique_key=id\n"
			     "@assert not_null(id)\n"
			     "SELECT id, amount FROM t\n", true);
	free(base);
}

static void test_hash_from_pipeline(void **state)
{
	struct fixture_project *f = *state;
	char *base = hash_of(f, "SELECT 1 AS x\n");
	char *h;

	fixture_put(f->root, "models/silver/pipeline.yml", "materialized: table\n");
	h = hash_of(f, "SELECT 1 AS x\n");
	assert_string_not_equal(h, base);
	free(h);
	free(base);
	base = hash_of(f, "SELECT 1 AS x\n");
	fixture_put(f->root, "models/silver/pipeline.yml",
		    "materialized: table\ntags: [x]\nlive: false\n");
	expect_hash(f, base, "SELECT 1 AS x\n", true);
	free(base);
}

static void test_hash_seed(void **state)
{
	struct fixture_project *f = *state;
	char *a, *b;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "seeds/s.csv", "a\n1\n");
	load(f);
	a = strdup(fixture_model(f->p, "seeds.s")->hash);
	fixture_put(f->root, "seeds/s.csv", "a\n2\n");
	load(f);
	b = strdup(fixture_model(f->p, "seeds.s")->hash);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
}

/* The reader's hash after validation (which folds in the ephemerals it
 * inlines). */
static char *reader_hash(struct fixture_project *f, const char *eph, const char *plain)
{
	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/eph.sql", eph);
	fixture_put(f->root, "models/silver/plain.sql", plain);
	fixture_put(f->root, "models/gold/reader.sql",
		    "SELECT * FROM silver.eph JOIN silver.plain USING (id)\n");
	load(f);
	if (project_validate(f->p, NULL, 0) || f->p->diags.n) {
		diag_print(&f->p->diags, stderr);
		fail_msg("the project has problems");
	}
	return strdup(fixture_model(f->p, "gold.reader")->hash);
}

static void test_hash_includes_inlined_ephemerals(void **state)
{
	struct fixture_project *f = *state;
	const char *eph = "@config materialized=ephemeral\nSELECT 1 AS id\n";
	const char *plain = "SELECT 1 AS id, 2 AS v\n";
	char *base = reader_hash(f, eph, plain);
	char *h;

	/* the ephemeral's SQL is part of the reader's */
	h = reader_hash(f, "@config materialized=ephemeral\nSELECT 2 AS id\n", plain);
	assert_string_not_equal(h, base);
	free(h);
	/* its description is not */
	h = reader_hash(f, "@config materialized=ephemeral, description='one row'\nSELECT 1 AS id\n",
			plain);
	assert_string_equal(h, base);
	free(h);
	/* nor is a comment in it, though it changes the text form */
	h = reader_hash(f, "@config materialized=ephemeral\n-- one row\nselect 1 as id\n", plain);
	assert_string_equal(h, base);
	free(h);
	/* a model that is stored is read, not inlined: its SQL is not part */
	h = reader_hash(f, eph, "SELECT 1 AS id, 3 AS v\n");
	assert_string_equal(h, base);
	free(h);
	free(base);
}

/* The warnings validation gives a CDC model over a postgres_cdc landing
 * whose query is text. */
static size_t cdc_order_warnings(struct fixture_project *f, const char *query)
{
	fixture_put(f->root, "sluice.yml",
		    "name: shop\n"
		    "sources:\n"
		    "  pg_orders: {kind: postgres_cdc, dsn_env: SRC_DSN, publication: p, slot: s}\n"
		    "  orders: {kind: webhook}\n");
	fixture_put(f->root, "models/silver/orders.sql", query);
	load(f);
	expect_clean(f);
	assert_int_equal(project_validate(f->p, NULL, 0), 0);
	return diag_count(&f->p->diags, DIAG_WARNING);
}

static void test_cdc_order_by_landing_sequence_warned(void **state)
{
	struct fixture_project *f = *state;
	const char *head = "@config materialized=incremental, unique_key=id, cdc_op=op,\n"
			   "        cdc_seq=_sluice_seq\n";
	const struct diag *d;

	/* the sequence alone, over a postgres_cdc landing */
	assert_int_equal(cdc_order_warnings(f, arena_sprintf(f->a, "%sSELECT payload->>'id' AS id, "
							      "op, _sluice_seq FROM landing.pg_orders\n",
							      head)),
			 1);
	d = &f->p->diags.items[0];
	assert_string_equal(d->file, "models/silver/orders.sql");
	assert_int_equal(d->line, 2);
	assert_non_null(strstr(d->msg, "landing.pg_orders"));
	assert_non_null(strstr(d->hint, "cdc_seq=lsn"));
	/* with the position beside it, the order is whole */
	assert_int_equal(cdc_order_warnings(f, arena_sprintf(f->a, "%sSELECT payload->>'id' AS id, "
							      "op, _sluice_seq, _sluice_pos FROM "
							      "landing.pg_orders\n",
							      head)),
			 0);
	/* every column takes the position too */
	assert_int_equal(cdc_order_warnings(f, arena_sprintf(f->a, "%sSELECT * FROM "
							      "landing.pg_orders\n",
							      head)),
			 0);
	/* a webhook landing gives each batch its own sequence */
	assert_int_equal(cdc_order_warnings(f, arena_sprintf(f->a, "%sSELECT payload->>'id' AS id, "
							      "op, _sluice_seq FROM landing.orders\n",
							      head)),
			 0);
	/* the commit LSN orders the source's transactions */
	assert_int_equal(cdc_order_warnings(f, "@config materialized=incremental, unique_key=id, "
					       "cdc_op=op, cdc_seq=lsn\n"
					       "SELECT payload->>'id' AS id, op, lsn FROM "
					       "landing.pg_orders\n"),
			 0);
}

/* ivm=required makes a live model that would be rebuilt whole an error at
 * the construct to blame; a class that keeps groups passes, and so do
 * ivm=auto and models that are not live. */
static void test_ivm_required(void **state)
{
	struct fixture_project *f = *state;
	const char *join = "SELECT o.region, count(*) AS n\n"
			   "FROM silver.orders o\n"
			   "JOIN silver.regions r ON r.name = o.region\n"
			   "GROUP BY o.region\n";
	const struct diag *d;

	fixture_put(f->root, "sluice.yml", "name: shop\n");
	fixture_put(f->root, "models/silver/orders.sql",
		    "@config materialized=incremental, unique_key=id, live=true\n"
		    "SELECT id, region, amount, _sluice_seq FROM landing.orders\n");
	fixture_put(f->root, "models/silver/regions.sql", "SELECT 'north' AS name\n");
	fixture_put(f->root, "models/gold/joined.sql",
		    arena_sprintf(f->a, "@config materialized=incremental,\n"
					"        live=true, ivm=required\n%s", join));
	fixture_put(f->root, "models/gold/joined_auto.sql",
		    arena_sprintf(f->a, "@config materialized=incremental, unique_key=region, "
					"live=true\n%s", join));
	fixture_put(f->root, "models/gold/joined_batch.sql",
		    arena_sprintf(f->a, "@config materialized=table, ivm=required\n%s", join));
	fixture_put(f->root, "models/gold/by_region.sql",
		    "@config materialized=incremental, live=true, ivm=required\n"
		    "SELECT region, count(*) AS n, max(amount) AS top FROM silver.orders GROUP BY 1\n");
	load(f);
	expect_clean(f);
	assert_int_equal(project_validate(f->p, NULL, 0), SL_E_INVALID);
	assert_int_equal(diag_count(&f->p->diags, DIAG_ERROR), 1);
	d = &f->p->diags.items[0];
	assert_string_equal(d->file, "models/gold/joined.sql");
	assert_int_equal(d->line, 5);
	assert_int_equal(d->col, 1);
	assert_string_equal(d->msg, "live model 'gold.joined' cannot be maintained incrementally: "
				    "a join");
	assert_non_null(strstr(d->hint, "ivm=auto"));
}

/* Models are found by name in any case among many, and a name given
 * twice is still a duplicate. */
static void test_find_among_many(void **state)
{
	struct fixture_project *f = *state;
	struct project *p;

	fixture_put(f->root, "sluice.yml", "name: many\n");
	for (int i = 0; i < 300; i++)
		fixture_put(f->root, arena_sprintf(f->a, "models/s%d/m%d.sql", i % 7, i),
			    "SELECT 1 AS one\n");
	p = fixture_load(f->a, f->root);
	assert_int_equal(p->nmodels, 300);
	for (int i = 0; i < 300; i++) {
		struct model *m = project_find_model(p, arena_sprintf(f->a, "S%d.M%d", i % 7, i));

		assert_non_null(m);
		assert_string_equal(m->fqn, arena_sprintf(f->a, "s%d.m%d", i % 7, i));
	}
	assert_null(project_find_model(p, "s1.m0"));
	assert_null(project_find_model(p, "s0"));
	fixture_put(f->root, "models/s0/M7.sql", "SELECT 2 AS two\n");
	p = fixture_load(f->a, f->root);
	assert_non_null(fixture_diag(p, "duplicate model name 's0.m7' (also defined by "
					"'models/s0/M7.sql')"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fixture_project_teardown)
		T(test_locate_walks_up),
		T(test_find_among_many),
		T(test_locate_given_dir),
		T(test_locate_nothing_upward),
		T(test_load_models_and_seeds),
		T(test_names_lowercased),
		T(test_pipeline_defaults),
		T(test_pipeline_unknown_key),
		T(test_duplicate_names),
		T(test_duplicate_names_by_case),
		T(test_nested_folder),
		T(test_sql_directly_in_models),
		T(test_empty_project),
		T(test_no_sluice_yml),
		T(test_invalid_name),
		T(test_model_problems_reported),
		T(test_cdc_order_by_landing_sequence_warned),
		T(test_ivm_required),
		T(test_files_must_be_regular_text),
		T(test_models_never_write_where_sluice_does),
		T(test_environment_schemas_never_meet),
		T(test_hash_data_changes),
		T(test_hash_ignores_layout),
		T(test_hash_tree_changes),
		T(test_hash_text_form),
		T(test_hash_tokens_on_postgres),
		T(test_hash_ignores_refresh_and_description),
		T(test_hash_from_pipeline),
		T(test_hash_seed),
		T(test_hash_includes_inlined_ephemerals),
#undef T
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
