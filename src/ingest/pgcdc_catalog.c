/*
 * What the postgres_cdc consumer asks the source database's catalog, over
 * a normal connection, about the tables of its slot: the primary key of a
 * table whose replica identity is FULL (the stream marks every column of
 * it as the key), and whether a table can be published without breaking
 * its updates and deletes. Only reads; never changes anything on the
 * server.
 */
#include "ingest/pgcdc_pg.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

int pgcdc_catalog_keys(PGconn *conn, struct arena *a, const char *table, struct pgcdc_key *out,
		       struct sl_err *err)
{
	struct buf name = BUF_INIT;
	PGresult *r;
	int rc;

	*out = (struct pgcdc_key){ 0 };
	pgcdc_pg_add_table(&name, table);
	rc = pgcdc_pg_run(conn,
			  "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = "
			  "i.indrelid AND a.attnum = ANY (i.indkey) WHERE i.indrelid = $1::regclass "
			  "AND i.indisprimary ORDER BY a.attnum",
			  name.buf, PGRES_TUPLES_OK, &r, err);
	buf_release(&name);
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
	struct buf name = BUF_INIT;
	PGresult *r;
	int rc;

	pgcdc_pg_add_table(&name, table);
	rc = pgcdc_pg_run(conn,
			  "SELECT c.relreplident, EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = "
			  "c.oid AND i.indisprimary) FROM pg_class c WHERE c.oid = $1::regclass",
			  name.buf, PGRES_TUPLES_OK, &r, err);
	buf_release(&name);
	if (rc)
		return rc;
	*ident = PQntuples(r) ? PQgetvalue(r, 0, 0)[0] : 0;
	*pk = PQntuples(r) && strcmp(PQgetvalue(r, 0, 1), "t") == 0;
	PQclear(r);
	return 0;
}
