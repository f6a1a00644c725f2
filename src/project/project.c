/*
 * The project loader: finds the files, reads them, and hands each model to
 * the header parser and the reference finder. Reads only; never opens the
 * warehouse and never stops at the first problem.
 */
#include "project/project.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/hex.h"
#include "core/xalloc.h"
#include "project/files.h"
#include "project/header.h"
#include "project/refs.h"
#include "project/sqltext.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int project_locate(const char *dir, char **root, struct sl_err *err)
{
	char buf[PATH_MAX];
	char path[PATH_MAX + 16];

	if (dir) {
		if (!realpath(dir, buf))
			return sl_err_set(err, SL_E_NOTFOUND, "project folder '%s' not found: %s",
					  dir, strerror(errno));
		snprintf(path, sizeof(path), "%s/sluice.yml", buf);
		if (!project_file_exists(path))
			return sl_err_set(err, SL_E_NOTFOUND,
					  "no sluice.yml in '%s'\n"
					  "  hint: create a project with 'sluice init DIR'",
					  dir);
		*root = xstrdup(buf);
		return 0;
	}
	if (!getcwd(buf, sizeof(buf)))
		return sl_err_set(err, SL_E_IO, "cannot read the current folder: %s",
				  strerror(errno));
	for (;;) {
		char *slash;

		snprintf(path, sizeof(path), "%s/sluice.yml", buf);
		if (project_file_exists(path)) {
			*root = xstrdup(buf);
			return 0;
		}
		slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			break;
		*slash = '\0';
	}
	return sl_err_set(err, SL_E_NOTFOUND,
			  "no sluice.yml in this folder or any parent\n"
			  "  hint: run inside a project, pass --project DIR, or create one with "
			  "'sluice init DIR'");
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The entries of a folder, sorted, so loading order never depends on the
 * file system. */
static char **list_dir(struct arena *a, const char *path, size_t *n)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		*ARENA_PUSH(a, &names, n, &cap) = arena_strdup(a, e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), cmp_str);
	return names;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static bool valid_name(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static char *lowercase(struct arena *a, const char *s)
{
	char *p = arena_strdup(a, s);

	for (char *q = p; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return p;
}

static struct model *add_model(struct project *p, const char *schema, const char *name,
			       const char *relpath)
{
	struct model *m = arena_alloc(p->arena, sizeof(*m));
	struct model *dup;

	m->schema = lowercase(p->arena, schema);
	m->name = lowercase(p->arena, name);
	m->fqn = arena_sprintf(p->arena, "%s.%s", m->schema, m->name);
	m->relation = m->fqn;
	m->home_schema = m->schema;
	m->path = arena_strdup(p->arena, relpath);
	m->abspath = arena_sprintf(p->arena, "%s/%s", p->root, relpath);
	if (!valid_name(schema) || !valid_name(name))
		diag_add(&p->diags, DIAG_ERROR, relpath, 0, 0,
			 "use letters, digits and underscores, not starting with a digit",
			 "invalid model name '%s.%s'", schema, name);
	dup = project_find_model(p, m->fqn);
	if (dup)
		diag_add(&p->diags, DIAG_ERROR, relpath, 0, 0,
			 arena_sprintf(p->arena, "rename one of '%s' and '%s'", dup->path, relpath),
			 "duplicate model name '%s' (also defined by '%s')", m->fqn, dup->path);
	*ARENA_PUSH(p->arena, &p->models, &p->nmodels, &p->models_cap) = m;
	project_index_model(p, m);
	return m;
}

/* Whether the warehouse reads SQL with the parser sluice reads it with. */
static bool own_parser(const struct project *p)
{
	return !p->cfg.warehouse.type || strcmp(p->cfg.warehouse.type, "duckdb") == 0;
}

/* On a warehouse other than DuckDB, a query its parser does not read may be
 * one the warehouse would run: the query's problems (from first on) say
 * whose parser it is. */
static void hint_parser(struct project *p, size_t first)
{
	if (own_parser(p))
		return;
	for (size_t i = first; i < p->diags.n; i++)
		if (!p->diags.items[i].hint)
			p->diags.items[i].hint =
				"sluice finds the tables a model reads with DuckDB's SQL parser, "
				"whatever the warehouse: write this part in SQL that parser reads too";
}

static void load_sql_model(struct project *p, struct sqlparse *parser, const char *schema,
			   const char *file, const struct kv_list *defaults, const char *pipeline)
{
	char *name = arena_strndup(p->arena, file, strlen(file) - 4);
	const char *rel = arena_sprintf(p->arena, "models/%s/%s", schema, file);
	struct model *m = add_model(p, schema, name, rel);
	size_t first, len;
	char *text;

	if (project_file_read(p->arena, m->abspath, rel, PROJECT_TEXT_MAX, true, &p->diags, &text,
			      &len))
		return;
	m->text = text;
	/* a bad directive does not stop the query from being checked too */
	header_parse(p->arena, m, &p->diags);
	header_apply_settings(p->arena, m, defaults, pipeline, &p->diags);
	if (refs_scan_placeholders(p->arena, m, &p->diags))
		return;
	first = p->diags.n;
	if (m->body && *m->body && refs_find(parser, p->arena, m, &p->diags) == SL_E_PARSE)
		hint_parser(p, first);
	refs_check_asserts(parser, m, &p->diags);
	project_model_hash(m, own_parser(p));
}

static void load_schema_folder(struct project *p, struct sqlparse *parser, const char *schema)
{
	const char *dir = arena_sprintf(p->arena, "%s/models/%s", p->root, schema);
	const char *pipeline = arena_sprintf(p->arena, "models/%s/pipeline.yml", schema);
	const char *pipeline_abs = arena_sprintf(p->arena, "%s/%s", p->root, pipeline);
	struct kv_list defaults = { 0 };
	size_t n;
	char **files = list_dir(p->arena, dir, &n);

	if (project_file_exists(pipeline_abs))
		pipeline_cfg_load(p->arena, pipeline_abs, pipeline, &defaults, &p->diags);
	for (size_t i = 0; i < n; i++) {
		const char *sub = arena_sprintf(p->arena, "%s/%s", dir, files[i]);

		if (ends_with(files[i], ".sql"))
			load_sql_model(p, parser, schema, files[i], &defaults, pipeline);
		else if (is_dir(sub))
			diag_add(&p->diags, DIAG_ERROR,
				 arena_sprintf(p->arena, "models/%s/%s", schema, files[i]), 0, 0,
				 "the folder under models/ is the schema: models/<schema>/<name>.sql",
				 "nested folder 'models/%s/%s' is not allowed", schema, files[i]);
	}
}

static void load_seeds(struct project *p)
{
	const char *dir = arena_sprintf(p->arena, "%s/seeds", p->root);
	size_t n;
	char **files = list_dir(p->arena, dir, &n);

	for (size_t i = 0; i < n; i++) {
		struct model *m;
		char *name, *text;
		size_t len;

		if (!ends_with(files[i], ".csv"))
			continue;
		name = arena_strndup(p->arena, files[i], strlen(files[i]) - 4);
		m = add_model(p, "seeds", name, arena_sprintf(p->arena, "seeds/%s", files[i]));
		m->mat = MAT_SEED;
		/* the warehouse reads the CSV: its text is only hashed here */
		if (project_file_read(p->arena, m->abspath, m->path, PROJECT_SEED_MAX, false,
				      &p->diags, &text, &len))
			continue;
		m->text = text;
		project_model_hash(m, true);
	}
}

int project_load(struct arena *a, const char *root, struct sqlparse *parser,
		 struct project **out, struct sl_err *err)
{
	struct project *p = arena_alloc(a, sizeof(*p));
	const char *yml = arena_sprintf(a, "%s/sluice.yml", root);
	const char *models_dir = arena_sprintf(a, "%s/models", root);
	size_t n;
	char **schemas;
	int rc;

	p->arena = a;
	p->root = arena_strdup(a, root);
	diag_list_init(&p->diags, a);
	rc = project_cfg_load(a, yml, "sluice.yml", &p->cfg, &p->diags);
	if (rc == SL_E_IO) {
		const struct diag *d = &p->diags.items[p->diags.n - 1];

		return sl_err_set(err, SL_E_IO, "%s%s%s", d->msg, d->hint ? "\n  hint: " : "",
				  d->hint ? d->hint : "");
	}
	schemas = list_dir(a, models_dir, &n);
	for (size_t i = 0; i < n; i++) {
		const char *path = arena_sprintf(a, "%s/%s", models_dir, schemas[i]);

		if (is_dir(path))
			load_schema_folder(p, parser, schemas[i]);
		else if (ends_with(schemas[i], ".sql"))
			diag_add(&p->diags, DIAG_ERROR, arena_sprintf(a, "models/%s", schemas[i]), 0,
				 0, "move it to models/<schema>/<name>.sql",
				 "model file 'models/%s' is not in a schema folder", schemas[i]);
	}
	load_seeds(p);
	if (p->nmodels == 0)
		diag_add(&p->diags, DIAG_ERROR, "sluice.yml", 0, 0,
			 "add a query as models/<schema>/<name>.sql or a CSV file as seeds/<name>.csv",
			 "the project has no models");
	*out = p;
	return 0;
}

static void hash_str(EVP_MD_CTX *ctx, const char *tag, const char *s)
{
	EVP_DigestUpdate(ctx, tag, strlen(tag) + 1);
	if (s)
		EVP_DigestUpdate(ctx, s, strlen(s) + 1);
}

/* The tokens of the query (and filter) as PostgreSQL tells them apart:
 * what DuckDB's tree does not keep but another warehouse may read, such
 * as a quoted name ("Total" is not Total there) or a type's own name
 * (float is double precision there). */
static void hash_tokens(EVP_MD_CTX *ctx, const struct model *m)
{
	struct buf b = BUF_INIT;

	sqltext_tokens(m->body, &b);
	hash_str(ctx, "tokens", b.buf);
	if (m->filter) {
		buf_reset(&b);
		sqltext_tokens(m->filter, &b);
		hash_str(ctx, "filter tokens", b.buf);
	}
	buf_release(&b);
}

/* Settings that change how a model is refreshed, replayed or described,
 * not its data */
static bool hash_ignores(const char *key)
{
	static const char *const keys[] = { "live", "live_interval", "tags", "description",
					     "end", "lookback", "ivm", "on_schema_change",
					     "replay_anchor", "replay_on_change",
					     "bounded_replay_fallback", "anomaly", "anomaly_columns",
					     NULL };

	for (size_t i = 0; keys[i]; i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

static int cmp_setting(const void *x, const void *y)
{
	const struct model_setting *a = *(const struct model_setting *const *)x;
	const struct model_setting *b = *(const struct model_setting *const *)y;

	return strcmp(a->key, b->key);
}

static void hex_digest(EVP_MD_CTX *ctx, char *out)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	EVP_DigestFinal_ex(ctx, md, &len);
	EVP_MD_CTX_free(ctx);
	hex_encode(md, len < 32 ? len : 32, out);
}

/* The checks a build of m runs: its own, and those of the ephemerals it
 * inlines, which are already hashed (dependency order). */
static void checks_hash(struct model *m)
{
	EVP_MD_CTX *ctx;
	bool any = m->nasserts > 0;

	for (size_t i = 0; i < m->ndeps; i++)
		any |= m->deps[i]->mat == MAT_EPHEMERAL && m->deps[i]->checks_hash[0];
	m->checks_hash[0] = '\0';
	if (!any)
		return;
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		xalloc_die();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (size_t i = 0; i < m->nasserts; i++)
		hash_str(ctx, m->asserts[i].warn ? "warn" : "error", m->asserts[i].text);
	for (size_t i = 0; i < m->ndeps; i++)
		if (m->deps[i]->mat == MAT_EPHEMERAL && m->deps[i]->checks_hash[0])
			hash_str(ctx, m->deps[i]->fqn, m->deps[i]->checks_hash);
	hex_digest(ctx, m->checks_hash);
}

/* Folds the hashes of the ephemerals m inlines into hash, m's own, taking
 * each ephemeral's in the same form (text: text_hash). */
static void fold_inlined(const struct model *m, bool text, char *hash)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!ctx)
		xalloc_die();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	hash_str(ctx, "own", hash);
	for (size_t i = 0; i < m->ndeps; i++)
		if (m->deps[i]->mat == MAT_EPHEMERAL)
			hash_str(ctx, m->deps[i]->fqn,
				 text ? m->deps[i]->text_hash : m->deps[i]->hash);
	hex_digest(ctx, hash);
}

static void record_hash(struct model *m)
{
	snprintf(m->recorded_hash, sizeof(m->recorded_hash), "%s:%s", m->hash, m->text_hash);
}

void project_model_hash_inlined(struct model *m)
{
	bool inlines = false;

	checks_hash(m);
	for (size_t i = 0; i < m->ndeps; i++)
		inlines |= m->deps[i]->mat == MAT_EPHEMERAL;
	if (!inlines)
		return;
	fold_inlined(m, false, m->hash);
	fold_inlined(m, true, m->text_hash);
	record_hash(m);
}

/* The change hash of m into out: over its text (text, or a query that did
 * not parse), as sluice hashed it before it read parse trees, or over its
 * tree, with its tokens on a warehouse that reads SQL with a parser of its
 * own. */
static void model_digest(const struct model *m, const char *tree_hash, bool tokens, char *out)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	const struct model_setting **sorted;
	bool tree = tree_hash && *tree_hash;

	if (!ctx)
		xalloc_die();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	hash_str(ctx, "mat", model_mat_name(m->mat));
	if (m->mat == MAT_SEED) {
		hash_str(ctx, "csv", m->text);
		hex_digest(ctx, out);
		return;
	}
	if (tree)
		hash_str(ctx, "tree", tree_hash);
	else
		hash_str(ctx, "body", m->body);
	if (tree && tokens)
		hash_tokens(ctx, m);
	sorted = xcalloc(m->nsettings + 1, sizeof(*sorted));
	for (size_t i = 0; i < m->nsettings; i++)
		sorted[i] = &m->settings[i];
	qsort(sorted, m->nsettings, sizeof(*sorted), cmp_setting);
	for (size_t i = 0; i < m->nsettings; i++) {
		if (hash_ignores(sorted[i]->key) ||
		    (tree && strcmp(sorted[i]->key, "incremental_filter") == 0))
			continue;
		hash_str(ctx, sorted[i]->key, sorted[i]->value);
	}
	free(sorted);
	hex_digest(ctx, out);
}

void project_model_hash(struct model *m, bool own_parser)
{
	model_digest(m, m->tree_hash, !own_parser, m->hash);
	model_digest(m, NULL, false, m->text_hash);
	record_hash(m);
}

void project_model_hash_with(const struct model *m, const char *tree_hash, char *out)
{
	model_digest(m, tree_hash, false, out);
	fold_inlined(m, false, out);
}

bool project_env_name_valid(const char *env)
{
	size_t n = strlen(env);

	return n && n <= 40 && strspn(env, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

int project_use_env(struct project *p, const char *env, struct sl_err *err)
{
	if (!project_env_name_valid(env))
		return sl_err_set(err, SL_E_USAGE,
				  "invalid environment name '%s'\n"
				  "  hint: lowercase letters, digits and underscores, at most 40, such as pr123",
				  env);
	for (size_t i = 0; i < p->nmodels; i++) {
		struct model *m = p->models[i];

		m->schema = arena_sprintf(p->arena, "%s_%s", m->home_schema, env);
		m->relation = arena_sprintf(p->arena, "%s.%s", m->schema, m->name);
	}
	return 0;
}
