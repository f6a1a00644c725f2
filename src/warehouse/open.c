/*
 * The warehouse factory. A DuckDB warehouse is a file that a command which
 * only reads does not create; a PostgreSQL warehouse is a server named by
 * a connection string that comes from the environment, never from a file
 * that may be committed.
 */
#include "warehouse/open.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_postgres(const struct wh_place *at)
{
	return at->type && strcmp(at->type, "postgres") == 0;
}

bool wh_place_exclusive(const struct wh_place *at)
{
	return !is_postgres(at);
}

void wh_place_text(const struct wh_place *at, char *out, size_t len)
{
	if (is_postgres(at))
		snprintf(out, len, "postgres ($%s)", at->dsn_env ? at->dsn_env : "");
	else
		snprintf(out, len, "%s", at->path);
}

static int open_postgres(const struct wh_place *at, enum wh_open_mode mode, struct wh **out,
			 struct sl_err *err)
{
	const char *dsn = at->dsn_env ? getenv(at->dsn_env) : NULL;
	int rc;

	if (!at->dsn_env)
		return sl_err_set(err, SL_E_CONFIG,
				  "warehouse: type postgres needs dsn_env, the environment variable "
				  "that holds the connection string\n"
				  "  hint: warehouse: {type: postgres, dsn_env: SLUICE_PG}");
	if (!dsn || !*dsn)
		return sl_err_set(err, SL_E_CONFIG,
				  "warehouse.dsn_env names %s, which is not set in the environment\n"
				  "  hint: export %s='host=... dbname=... user=...'",
				  at->dsn_env, at->dsn_env);
	rc = wh_open_postgres(dsn, out, err);
	if (rc)
		sl_err_context(err, "in the warehouse of sluice.yml (postgres, from $%s)",
			       at->dsn_env);
	if (!rc && mode == WH_OPEN_READ)
		rc = wh_exec(*out, "SET default_transaction_read_only = on", err);
	if (rc && *out) {
		wh_close(*out);
		*out = NULL;
	}
	return rc;
}

/* The folders of a DuckDB file that is to be made. */
static int make_folders(const char *file, const char *shown, struct sl_err *err)
{
	char *path = xstrdup(file);
	int rc = 0;

	for (char *p = path + 1; *p && !rc; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			rc = sl_err_set(err, SL_E_IO, "cannot create the folder of warehouse '%s': %s",
					shown, strerror(errno));
		*p = '/';
	}
	free(path);
	return rc;
}

int wh_open(const struct wh_place *at, struct arena *parent, enum wh_open_mode mode,
	    struct wh **out, struct sl_err *err)
{
	struct arena *a;
	const char *file;
	struct stat st;
	int rc = 0;

	*out = NULL;
	if (is_postgres(at))
		return open_postgres(at, mode, out, err);
	if (at->type && strcmp(at->type, "duckdb") != 0)
		return sl_err_set(err, SL_E_CONFIG, "unknown warehouse type '%s'\n"
						    "  hint: duckdb or postgres",
				  at->type);
	a = arena_new(parent);
	file = at->path[0] == '/' ? at->path : arena_sprintf(a, "%s/%s", at->root, at->path);
	if (stat(file, &st) != 0 && mode != WH_OPEN_CREATE)
		goto out;
	if (mode == WH_OPEN_CREATE)
		rc = make_folders(file, at->path, err);
	if (!rc)
		rc = wh_open_duckdb(file, mode == WH_OPEN_READ, out, err);
out:
	arena_free(a);
	return rc;
}
