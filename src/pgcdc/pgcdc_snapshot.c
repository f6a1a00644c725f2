/*
 * The postgres_cdc consumer's initial snapshot: the rows of every table
 * of a slot as the slot's exported snapshot sees them, read over a normal
 * connection that imports it, each row written as the payload a streamed
 * insert of it would land (the columns the publication sends, in their
 * order, by pgoutput_tuple_json), and landed as one snapshot batch: all
 * in one warehouse transaction, so an interrupted snapshot leaves nothing.
 * Never holds more than one batch of rows in memory, and never lands a
 * table apart from the slot's row that says the snapshot is done.
 */
#include "pgcdc/pgcdc.h"
#include "pgcdc/pgcdc_pg.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "pgcdc/pgoutput.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

/* a batch: rows read, written as payloads and appended at a time */
#define SNAPSHOT_FETCH "FETCH 256 FROM sluice_snapshot"

/* The relation as the stream would describe it: the columns the
 * publication sends (not dropped, not generated, in its column list), in
 * their order, with their type OIDs, and the types not built in described
 * into types; allocated in a. */
static int snapshot_relation(PGconn *conn, struct arena *a, const struct pgcdc_cfg *c,
			     const char *table, struct pgoutput_types *types,
			     struct pgoutput_relation *rel, struct sl_err *err)
{
	const char *dot = strchr(table, '.');
	struct buf sql = BUF_INIT, name = BUF_INIT;
	PGresult *r;
	int rc;

	pgcdc_pg_add_table(&name, table);
	buf_adds(&sql, "SELECT a.attname, a.atttypid::int8, a.atttypmod FROM pg_attribute a WHERE "
		       "a.attrelid = ");
	buf_add_sql_str(&sql, name.buf);
	buf_adds(&sql, "::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = "
		       "'' AND a.attname = ANY (SELECT unnest(attnames) FROM pg_publication_tables "
		       "WHERE pubname = ");
	buf_add_sql_str(&sql, c->publication);
	buf_adds(&sql, " AND schemaname || '.' || tablename = ");
	buf_add_sql_str(&sql, table);
	buf_adds(&sql, ") ORDER BY a.attnum");
	rc = pgcdc_pg_run(conn, sql.buf, NULL, PGRES_TUPLES_OK, &r, err);
	buf_release(&sql);
	buf_release(&name);
	if (rc)
		return rc;
	*rel = (struct pgoutput_relation){
		.nspname = arena_strndup(a, table, (size_t)(dot - table)),
		.relname = arena_strdup(a, dot + 1),
		.ncols = (uint16_t)PQntuples(r),
	};
	rel->cols = arena_alloc(a, (rel->ncols + 1) * sizeof(*rel->cols));
	for (uint16_t i = 0; i < rel->ncols; i++)
		rel->cols[i] = (struct pgoutput_column){
			.name = arena_strdup(a, PQgetvalue(r, i, 0)),
			.type_oid = (uint32_t)strtoul(PQgetvalue(r, i, 1), NULL, 10),
			.typmod = (int32_t)strtol(PQgetvalue(r, i, 2), NULL, 10),
		};
	PQclear(r);
	rel->types = types;
	return pgcdc_catalog_types(conn, rel, types, err);
}

/* One table's rows through a cursor, a batch at a time. */
static int snapshot_table(PGconn *conn, struct wh *w, const struct pgcdc_cfg *c, size_t ti,
			  struct pgcdc_batch *snap, struct pgoutput_types *types, struct arena *a,
			  struct arena *batch_a, struct sl_err *err)
{
	struct pgoutput_relation rel;
	struct buf sql = BUF_INIT, payload = BUF_INIT;
	PGresult *r = NULL;
	int rc = snapshot_relation(conn, a, c, c->tables[ti].source, types, &rel, err);

	if (rc)
		return rc;
	buf_adds(&sql, "DECLARE sluice_snapshot NO SCROLL CURSOR FOR SELECT ");
	for (uint16_t i = 0; i < rel.ncols; i++) {
		if (i)
			buf_adds(&sql, ", ");
		buf_add_sql_ident(&sql, rel.cols[i].name);
	}
	buf_adds(&sql, " FROM ");
	pgcdc_pg_add_table(&sql, c->tables[ti].source);
	rc = pgcdc_pg_run(conn, sql.buf, NULL, PGRES_COMMAND_OK, NULL, err);
	buf_release(&sql);
	while (!rc) {
		struct pgoutput_tuple t = { .kind = 'N', .ncols = rel.ncols };
		struct pgcdc_row *rows;
		int n;

		rc = pgcdc_pg_run(conn, SNAPSHOT_FETCH, NULL, PGRES_TUPLES_OK, &r, err);
		if (rc || !(n = PQntuples(r)))
			break;
		rows = arena_alloc(batch_a, (size_t)n * sizeof(*rows));
		t.values = arena_alloc(batch_a, (rel.ncols + 1) * sizeof(*t.values));
		for (int k = 0; !rc && k < n; k++) {
			for (uint16_t i = 0; i < rel.ncols; i++)
				t.values[i] = PQgetisnull(r, k, i)
						      ? (struct pgoutput_value){ .kind = PGOUTPUT_NULL }
						      : (struct pgoutput_value){
								.kind = PGOUTPUT_TEXT,
								.len = (uint32_t)PQgetlength(r, k, i),
								.text = PQgetvalue(r, k, i),
							};
			buf_reset(&payload);
			rc = pgoutput_tuple_json(&payload, &rel, &t, NULL, NULL, err);
			rows[k] = (struct pgcdc_row){ .table = ti, .op = 'r' };
			if (!rc)
				rows[k].payload = arena_strndup(batch_a, payload.buf, payload.len);
		}
		PQclear(r);
		r = NULL;
		if (!rc)
			rc = pgcdc_batch_add(w, c, snap, rows, (size_t)n, err);
		arena_reset(batch_a);
	}
	if (r)
		PQclear(r);
	if (!rc)
		rc = pgcdc_pg_run(conn, "CLOSE sluice_snapshot", NULL, PGRES_COMMAND_OK, NULL, err);
	buf_release(&payload);
	if (rc)
		sl_err_context(err, "the initial snapshot of %s", c->tables[ti].source);
	return rc;
}

int pgcdc_snapshot_take(struct wh *w, const struct pgcdc_cfg *c, const char *snapshot_name,
			uint64_t lsn, struct arena *a, struct arena *batch_a, int64_t *rows,
			struct sl_err *err)
{
	struct pgcdc_batch snap;
	struct buf sql = BUF_INIT;
	bool done;
	PGconn *conn = NULL;
	bool open = false;
	struct pgoutput_types *types = pgoutput_types_new();
	int rc = pgcdc_pg_connect(c->dsn, false, &conn, err);

	*rows = 0;
	if (!rc)
		rc = pgcdc_pg_settings(conn, err);
	if (!rc)
		rc = pgcdc_pg_run(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", NULL,
				  PGRES_COMMAND_OK, NULL, err);
	if (!rc) {
		buf_adds(&sql, "SET TRANSACTION SNAPSHOT ");
		buf_add_sql_str(&sql, snapshot_name);
		rc = pgcdc_pg_run(conn, sql.buf, NULL, PGRES_COMMAND_OK, NULL, err);
		buf_release(&sql);
	}
	if (!rc)
		rc = pgcdc_batch_begin(w, a, c, lsn, 0, units_now_ms(), true, &snap, err);
	open = !rc;
	/* each batch of rows appends to the same tables: their columns once */
	if (open) {
		snap.cols = arena_alloc(a, (c->ntables + 1) * sizeof(*snap.cols));
		memset(snap.cols, 0, (c->ntables + 1) * sizeof(*snap.cols));
		snap.cols_a = a;
	}
	for (size_t i = 0; !rc && i < c->ntables; i++)
		rc = snapshot_table(conn, w, c, i, &snap, types, a, batch_a, err);
	if (rc && open)
		pgcdc_batch_abandon(w, &snap);
	if (!rc)
		rc = pgcdc_batch_commit(w, c, &snap, lsn, true, &done, err);
	for (size_t i = 0; !rc && i < c->ntables; i++)
		*rows += snap.rows[i];
	if (conn)
		PQfinish(conn);
	pgoutput_types_free(types);
	return rc;
}
