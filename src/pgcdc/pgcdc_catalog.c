/*
 * What the postgres_cdc consumer asks the source database's catalog, over
 * a normal connection, about the tables of its slot: the primary key of a
 * table whose replica identity is FULL (the stream marks every column of
 * it as the key), whether a table can be published without breaking
 * its updates and deletes, and the types that are not built in (domains,
 * arrays, composites) as the payloads write them. Only reads; never
 * changes anything on the server.
 */
#include "pgcdc/pgcdc_pg.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "pgcdc/pgoutput.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Runs sql, whose $1 is a table's name, about table; *r must be cleared
 * with PQclear. */
static int ask_about(PGconn *conn, const char *sql, const char *table, PGresult **r,
		     struct sl_err *err)
{
	struct buf name = BUF_INIT;
	int rc;

	pgcdc_pg_add_table(&name, table);
	rc = pgcdc_pg_run(conn, sql, name.buf, PGRES_TUPLES_OK, r, err);
	buf_release(&name);
	return rc;
}

int pgcdc_catalog_keys(PGconn *conn, struct arena *a, const char *table, struct pgcdc_key *out,
		       struct sl_err *err)
{
	PGresult *r;
	int rc;

	*out = (struct pgcdc_key){ 0 };
	rc = ask_about(conn,
		       "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = "
		       "i.indrelid AND a.attnum = ANY (i.indkey) WHERE i.indrelid = $1::regclass "
		       "AND i.indisprimary ORDER BY a.attnum",
		       table, &r, err);
	if (rc)
		return rc;
	out->n = (size_t)PQntuples(r);
	out->names = arena_alloc(a, (out->n + 1) * sizeof(*out->names));
	for (size_t i = 0; i < out->n; i++)
		out->names[i] = arena_strdup(a, PQgetvalue(r, (int)i, 0));
	PQclear(r);
	return 0;
}

int pgcdc_catalog_identity(PGconn *conn, const char *table, char *ident, bool *pk,
			   struct sl_err *err)
{
	PGresult *r;
	int rc = ask_about(conn,
			   "SELECT c.relreplident, EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = "
			   "c.oid AND i.indisprimary) FROM pg_class c WHERE c.oid = $1::regclass",
			   table, &r, err);

	if (rc)
		return rc;
	*ident = PQntuples(r) ? PQgetvalue(r, 0, 0)[0] : 0;
	*pk = PQntuples(r) && strcmp(PQgetvalue(r, 0, 1), "t") == 0;
	PQclear(r);
	return 0;
}

/* The types named and every type they are made of, not built in: one row
 * per type, and per field of a composite (in order), as (oid, kind, ref,
 * field name, field type). The stream sends domains and arrays by their
 * own OIDs; only the catalog knows what they are made of. */
#define TYPES_SQL                                                                              \
	"WITH RECURSIVE t(oid) AS (SELECT unnest($1::oid[]) UNION SELECT r.ref FROM t JOIN "       \
	"pg_type p ON p.oid = t.oid, LATERAL (SELECT p.typbasetype WHERE p.typtype = 'd' UNION "   \
	"ALL SELECT p.typelem WHERE p.typsubscript = 'array_subscript_handler'::regproc UNION ALL " \
	"SELECT a.atttypid FROM pg_attribute a WHERE p.typtype = 'c' AND a.attrelid = p.typrelid " \
	"AND a.attnum > 0 AND NOT a.attisdropped) AS r(ref) WHERE t.oid >= 16384) "                \
	"SELECT p.oid::int8, CASE WHEN p.typtype = 'd' THEN 'd' WHEN p.typsubscript = "            \
	"'array_subscript_handler'::regproc THEN 'a' WHEN p.typtype = 'c' THEN 'c' ELSE 'o' END, " \
	"CASE WHEN p.typtype = 'd' THEN p.typbasetype ELSE p.typelem END::int8, a.attname, "       \
	"a.atttypid::int8 FROM pg_type p JOIN t ON p.oid = t.oid LEFT JOIN pg_attribute a ON "     \
	"p.typtype = 'c' AND a.attrelid = p.typrelid AND a.attnum > 0 AND NOT a.attisdropped "    \
	"WHERE p.oid >= 16384 ORDER BY p.oid, a.attnum"

/* The rows of TYPES_SQL from row *at on that describe one type, into
 * types; *at moves past them. */
static void put_type(PGresult *r, int *at, struct pgoutput_types *types)
{
	int first = *at, n = 0;
	struct pgoutput_type t = {
		.oid = (uint32_t)strtoul(PQgetvalue(r, first, 0), NULL, 10),
		.kind = PQgetvalue(r, first, 1)[0],
		.ref = (uint32_t)strtoul(PQgetvalue(r, first, 2), NULL, 10),
	};
	const char **names;
	uint32_t *fields;

	while (first + n < PQntuples(r) && strcmp(PQgetvalue(r, first + n, 0), PQgetvalue(r, first, 0)) == 0)
		n++;
	*at = first + n;
	names = xcalloc((size_t)n + 1, sizeof(*names));
	fields = xcalloc((size_t)n + 1, sizeof(*fields));
	for (int i = 0; t.kind == 'c' && i < n && !PQgetisnull(r, first + i, 3); i++) {
		names[t.nfields] = PQgetvalue(r, first + i, 3);
		fields[t.nfields++] = (uint32_t)strtoul(PQgetvalue(r, first + i, 4), NULL, 10);
	}
	t.names = names;
	t.fields = fields;
	pgoutput_types_put(types, &t);
	free(names);
	free(fields);
}

int pgcdc_catalog_types(PGconn *conn, const struct pgoutput_relation *rel,
			struct pgoutput_types *types, struct sl_err *err)
{
	struct buf oids = BUF_INIT;
	PGresult *r;
	int rc;

	for (uint16_t i = 0; i < rel->ncols; i++) {
		uint32_t oid = rel->cols[i].type_oid;

		if (oid >= PGOUTPUT_FIRST_USER_OID)
			buf_addf(&oids, "%s%" PRIu32, oids.len ? "," : "{", oid);
	}
	if (!oids.len) {
		buf_release(&oids);
		return 0;
	}
	buf_addch(&oids, '}');
	rc = pgcdc_pg_run(conn, TYPES_SQL, oids.buf, PGRES_TUPLES_OK, &r, err);
	buf_release(&oids);
	if (rc)
		return rc;
	for (int at = 0; at < PQntuples(r);)
		put_type(r, &at, types);
	PQclear(r);
	return 0;
}
