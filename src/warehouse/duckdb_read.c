/*
 * This file implements the checks that stand between a reader the server
 * does not trust and the DuckDB database: what a query's parse tree may
 * call and name. DuckDB's
 * enable_external_access is the whole database's, and the database's own
 * writers need it (seeds are read with read_csv), so a reader's file
 * access is refused here, by what the query names. It must never let a
 * table function through that it does not know to read only the database.
 */
#include "warehouse/duckdb_read.h"

#include "core/err.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Generators, and views of the catalog: nothing outside the database. */
static const char *const allowed_functions[] = {
	"range",	    "generate_series", "unnest",	   "duckdb_tables",
	"duckdb_views",	    "duckdb_columns",  "duckdb_schemas",   "duckdb_types",
	"duckdb_indexes",   "duckdb_constraints", "duckdb_databases", "pragma_table_info",
	NULL,
};

static bool allowed(const char *fn)
{
	for (size_t i = 0; allowed_functions[i]; i++)
		if (strcasecmp(fn, allowed_functions[i]) == 0)
			return true;
	return false;
}

static int file_refused(const char *name, struct sl_err *err)
{
	return sl_err_set(err, SL_E_USAGE,
			  "'%s' is refused: a read through the server reads tables and views "
			  "only, not files",
			  name);
}

/* A table reference, or the relation DESCRIBE, SUMMARIZE or SHOW name: a
 * replacement scan reads a name that is no relation as a file, its parts
 * joined by dots (secrets.csv is schema secrets, table csv). A part with
 * '.', '/', ':' or '\' is a path; a name of one part without them has no
 * file extension for a scan to know it by (and may be a CTE's), while one
 * of several parts must be a relation of the database. */
static int check_relation(const struct duck_read_names *names, json_t *node, bool base_table,
			  struct sl_err *err)
{
	static const char *const keys[] = { "catalog_name", "schema_name", "table_name" };
	const char *part[3];
	bool found = false;
	int rc;

	for (size_t i = 0; i < 3; i++) {
		part[i] = json_string_value(json_object_get(node, keys[i]));
		if (!part[i])
			part[i] = "";
		if (strpbrk(part[i], "./:\\"))
			return file_refused(part[i], err);
	}
	if (!base_table || (!*part[0] && !*part[1]))
		return 0;
	rc = names->exists(names->ctx, part[0], part[1], part[2], &found, err);
	if (!rc && !found)
		rc = sl_err_set(err, SL_E_USAGE,
				"'%s%s%s.%s' is refused: it is no table or view of the database, and "
				"a read through the server reads no files",
				part[0], *part[0] ? "." : "", part[1], part[2]);
	return rc;
}

/* Every node of the tree, whatever holds it: a table function hides as
 * well in a subquery of a WHERE as in the FROM. */
static int check_node(const struct duck_read_names *names, json_t *node, struct sl_err *err)
{
	const char *type = json_string_value(json_object_get(node, "type"));
	const char *key;
	json_t *child;
	size_t i;
	int rc;

	if (json_is_array(node)) {
		json_array_foreach(node, i, child)
			if ((rc = check_node(names, child, err)) != 0)
				return rc;
		return 0;
	}
	if (!json_is_object(node))
		return 0;
	if (type && strcmp(type, "TABLE_FUNCTION") == 0) {
		const char *fn = json_string_value(
			json_object_get(json_object_get(node, "function"), "function_name"));

		if (!fn || !allowed(fn))
			return sl_err_set(err, SL_E_USAGE,
					  "table function '%s' is refused: a read through the "
					  "server reads tables and views only",
					  fn ? fn : "?");
	}
	if (type && (strcmp(type, "BASE_TABLE") == 0 || strcmp(type, "SHOW_REF") == 0) &&
	    (rc = check_relation(names, node, strcmp(type, "BASE_TABLE") == 0, err)) != 0)
		return rc;
	json_object_foreach(node, key, child)
		if ((rc = check_node(names, child, err)) != 0)
			return rc;
	return 0;
}

int duck_read_check_tree(const char *serialized, const struct duck_read_names *names,
			 struct sl_err *err)
{
	/* positions it does not know are 2^64 - 1, past a JSON integer */
	json_t *doc = json_loads(serialized, JSON_DECODE_INT_AS_REAL, NULL);
	const char *msg;
	int rc;

	if (!doc)
		return sl_err_set(err, SL_E_INTERNAL, "cannot read DuckDB's parse tree");
	if (json_is_true(json_object_get(doc, "error"))) {
		msg = json_string_value(json_object_get(doc, "error_message"));
		/* a statement that prepared as a SELECT but is no query the
		 * serializer knows: a PRAGMA, which calls a function of its own */
		rc = msg && strstr(msg, "Only SELECT")
			     ? sl_err_set(err, SL_E_USAGE, "only a query may be read through the server")
			     : sl_err_set(err, SL_E_SQL, "%s", msg ? msg : "the query does not parse");
		json_decref(doc);
		return rc;
	}
	rc = check_node(names, json_object_get(doc, "statements"), err);
	json_decref(doc);
	return rc;
}
