/*
 * What the unit tests that parse SQL or work on project folders share: the
 * SQL parser opened once per group, temporary folders, writing files into
 * them, and loading the project they hold. Include after <cmocka.h>.
 *
 * Everything here is static inline so that a test file may use any part
 * of it without -Wunused-function complaining about the rest.
 */
#ifndef SL_TESTS_FIXTURE_H
#define SL_TESTS_FIXTURE_H

#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "project/model.h"
#include "project/project.h"
#include "project/validate.h"
#include "warehouse/sqlparse.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct sqlparse *parser;

static inline int group_setup(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	if (sqlparse_open(&parser, &err)) {
		fprintf(stderr, "cannot open the parser: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static inline int group_teardown(void **state)
{
	(void)state;
	sqlparse_close(parser);
	return 0;
}

static inline int fixture_rm_entry(const char *path, const struct stat *st, int flag,
				   struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A new empty folder under /tmp; its absolute path, symlinks resolved as
 * the loader and project_locate see it, goes to root. */
static inline void fixture_mkdtemp(char root[PATH_MAX], const char *name)
{
	char tmpl[PATH_MAX];

	snprintf(tmpl, sizeof(tmpl), "/tmp/sluice-test-%s-XXXXXX", name);
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, root));
}

static inline void fixture_rmtree(const char *root)
{
	nftw(root, fixture_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes root/rel, creating the folders on the way. */
static inline void fixture_put(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX + 256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A test that needs no more than a project folder: the folder, the arena
 * its project is loaded into, and that project once loaded. */
struct fixture_project {
	struct arena *a;
	char root[PATH_MAX];
	struct project *p;
};

/* A cmocka setup's work for a struct fixture_project in a new folder
 * named after name. */
static inline int fixture_project_setup(void **state, const char *name)
{
	struct fixture_project *f = calloc(1, sizeof(*f));

	fixture_mkdtemp(f->root, name);
	f->a = arena_new(NULL);
	*state = f;
	return 0;
}

static inline int fixture_project_teardown(void **state)
{
	struct fixture_project *f = *state;

	fixture_rmtree(f->root);
	arena_free(f->a);
	free(f);
	return 0;
}

/* The project in root, loaded into a; fails the test when it cannot be
 * read at all, and leaves its diagnostics to the caller. */
static inline struct project *fixture_load(struct arena *a, const char *root)
{
	struct sl_err err = SL_ERR_INIT;
	struct project *p;

	if (project_load(a, root, parser, &p, &err))
		fail_msg("project_load: %s", err.msg);
	return p;
}

/* The project in root, loaded and validated; warnings are fine, errors
 * fail the test. */
static inline struct project *fixture_load_valid(struct arena *a, const char *root)
{
	struct project *p = fixture_load(a, root);

	project_validate(p, NULL, 0);
	if (diag_has_errors(&p->diags)) {
		diag_print(&p->diags, stderr);
		fail_msg("the project has errors");
	}
	return p;
}

static inline struct model *fixture_model(struct project *p, const char *fqn)
{
	struct model *m = project_find_model(p, fqn);

	if (!m)
		fail_msg("no model '%s'", fqn);
	return m;
}

/* The project's diagnostic with exactly this message; fails the test when
 * there is none. */
static inline const struct diag *fixture_diag(const struct project *p, const char *msg)
{
	for (size_t i = 0; i < p->diags.n; i++)
		if (strcmp(p->diags.items[i].msg, msg) == 0)
			return &p->diags.items[i];
	diag_print(&p->diags, stderr);
	fail_msg("no diagnostic '%s'", msg);
	return NULL;
}

#endif
