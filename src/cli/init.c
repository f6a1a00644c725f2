/*
 * `sluice init DIR`: a starter project that builds as it is: a seed, a
 * silver model, a gold model with assertions. Refuses to overwrite files.
 */
#include "cli/commands.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct starter_file {
	const char *path, *text;
};

static const struct starter_file starter[] = {
	{ "sluice.yml", "name: %s\n"
			"warehouse: {type: duckdb, path: warehouse.duckdb}\n" },
	{ "seeds/customers.csv", "customer_id,name,country\n"
				 "1,Ada,GB\n"
				 "2,Grace,US\n"
				 "3,Linus,FI\n" },
	{ "models/silver/customers.sql",
	  "@config materialized=table\n"
	  "@assert not_null(customer_id)\n"
	  "@assert unique(customer_id)\n"
	  "SELECT customer_id, name, upper(country) AS country\n"
	  "FROM seeds.customers\n" },
	{ "models/gold/customers_by_country.sql",
	  "@config materialized=table\n"
	  "@assert customers > 0\n"
	  "SELECT country, count(*) AS customers\n"
	  "FROM silver.customers\n"
	  "GROUP BY country\n" },
	{ NULL, NULL },
};

int cli_make_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/* The project name: the folder's last component, made a valid name. */
static void project_name(const char *dir, char *out, size_t len)
{
	size_t n = strlen(dir);
	const char *start;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	start = dir + n;
	while (start > dir && start[-1] != '/')
		start--;
	snprintf(out, len, "%.*s", (int)(dir + n - start), start);
	for (char *p = out; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			*p = '_';
}

int cli_init(struct cli_args *args)
{
	const char *dir;
	char path[4096], name[256];
	struct stat st;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice init DIR\n");
		return CLI_USAGE;
	}
	dir = args->pos[0];
	project_name(dir, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/sluice.yml", dir);
	if (stat(path, &st) == 0) {
		fprintf(stderr, "sluice: '%s' already holds a project\n", dir);
		return CLI_FAILED;
	}
	for (size_t i = 0; starter[i].path; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, starter[i].path);
		if (cli_make_parents(path)) {
			fprintf(stderr, "sluice: cannot create '%s': %s\n", path, strerror(errno));
			return CLI_FAILED;
		}
		f = fopen(path, "wx");
		if (!f) {
			fprintf(stderr, "sluice: cannot create '%s': %s\n", path, strerror(errno));
			return CLI_FAILED;
		}
		fprintf(f, starter[i].text, name);
		fclose(f);
	}
	printf("created project '%s' in %s\n"
	       "next: cd %s && sluice run\n",
	       name, dir, dir);
	return CLI_OK;
}
