/*
 * What the unit tests that work on project folders share: the SQL parser
 * opened once per group, temporary folders, and writing files into them.
 * Include after <cmocka.h>.
 */
#ifndef SL_TESTS_FIXTURE_H
#define SL_TESTS_FIXTURE_H

#include "core/err.h"
#include "warehouse/sqlparse.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct sqlparse *parser;

static int group_setup(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	if (sqlparse_open(&parser, &err)) {
		fprintf(stderr, "cannot open the parser: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	sqlparse_close(parser);
	return 0;
}

static int fixture_rm_entry(const char *path, const struct stat *st, int flag,
			    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A new empty folder under /tmp; its absolute path goes to root. */
static void fixture_mkdtemp(char root[PATH_MAX], const char *name)
{
	char tmpl[PATH_MAX];

	snprintf(tmpl, sizeof(tmpl), "/tmp/sluice-test-%s-XXXXXX", name);
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, root));
}

static void fixture_rmtree(const char *root)
{
	nftw(root, fixture_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes root/rel, creating the folders on the way. */
static void fixture_put(const char *root, const char *rel, const char *text)
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

#endif
