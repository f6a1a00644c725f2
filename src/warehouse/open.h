/*
 * The one place that turns a project's `warehouse:` settings into a
 * connection: everything above src/warehouse/ opens its warehouse here and
 * never learns whether it is a file or a server.
 */
#ifndef SL_WAREHOUSE_OPEN_H
#define SL_WAREHOUSE_OPEN_H

#include "warehouse/wh.h"

/* Where a project's warehouse is, as sluice.yml says it. */
struct wh_place {
	const char *type;    /* "duckdb" (also when NULL) or "postgres" */
	const char *path;    /* duckdb: the file, relative to root unless absolute */
	const char *dsn_env; /* postgres: the environment variable holding the DSN */
	const char *root;    /* the project's folder */
};

enum wh_open_mode {
	WH_OPEN_READ,   /* to read; a warehouse not made yet gives *out NULL */
	WH_OPEN_WRITE,  /* to write; a warehouse not made yet gives *out NULL */
	WH_OPEN_CREATE, /* to write, made (a DuckDB file with its folder) when missing */
};

/* Opens the warehouse at `at`. Errors name the setting that led there: an
 * unset dsn_env variable (SL_E_CONFIG), a server that cannot be reached or
 * refuses the credentials (SL_E_IO), one older than PostgreSQL 15
 * (SL_E_VERSION), a DuckDB file another process holds (SL_E_LOCKED). Its
 * scratch is a child of a. */
int wh_open(const struct wh_place *at, struct arena *a, enum wh_open_mode mode, struct wh **out,
	    struct sl_err *err);

/* Whether one process at a time holds the warehouse (a DuckDB file):
 * while `sluice serve` holds such a one, the other commands reach it
 * through the server. A PostgreSQL warehouse is shared by many processes,
 * so they connect to it themselves. */
bool wh_place_exclusive(const struct wh_place *at);

/* The warehouse as a user sees it, for messages and banners: the DuckDB
 * file as written in sluice.yml, or "postgres ($VAR)"; into out. */
void wh_place_text(const struct wh_place *at, char *out, size_t len);

#endif
