/*
 * What the source server says of a slot (pgcdc_probe.c), on the test
 * server: a slot there is reserved with the server's WAL position, and
 * one that is gone is said to be missing, with the position still read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_pg.h"

#include "pgcdc/pgcdc_pg.h"

#include <stdlib.h>
#include <string.h>

#define SLOT "unit_pgcdc_probe"

static PGconn *connect_source(void)
{
	struct sl_err err = SL_ERR_INIT;
	PGconn *conn = NULL;

	if (pgcdc_pg_connect(fixture_pg_dsn(), false, &conn, &err))
		fail_msg("%s", err.msg);
	return conn;
}

static void run(PGconn *conn, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;

	if (pgcdc_pg_run(conn, sql, SLOT, PGRES_TUPLES_OK, NULL, &err))
		fail_msg("%s", err.msg);
}

/* The server's WAL position in bytes, as a second query reads it. */
static uint64_t wal_now(PGconn *conn)
{
	PGresult *r = PQexec(conn, "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::text");
	uint64_t lsn;

	assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
	lsn = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return lsn;
}

static void test_probe_slot_there_and_gone(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	struct pgcdc_probe p;
	PGconn *conn = connect_source();
	uint64_t before;

	(void)state;
	run(conn, "SELECT count(*) FROM (SELECT pg_drop_replication_slot(slot_name) FROM "
		  "pg_replication_slots WHERE slot_name = $1) t");
	run(conn, "SELECT pg_create_logical_replication_slot($1, 'pgoutput')");
	before = wal_now(conn);
	assert_int_equal(pgcdc_probe_read(conn, SLOT, &p, &err), 0);
	assert_true(p.have);
	assert_string_equal(p.wal_status, "reserved");
	/* the test server keeps WAL for a slot without limit */
	assert_false(p.safe_known);
	assert_true(p.server_lsn >= before);
	assert_true(p.server_lsn <= wal_now(conn));

	run(conn, "SELECT pg_drop_replication_slot($1)");
	assert_int_equal(pgcdc_probe_read(conn, SLOT, &p, &err), 0);
	assert_false(p.have);
	assert_string_equal(p.wal_status, "");
	assert_false(p.safe_known);
	assert_true(p.server_lsn >= before);
	PQfinish(conn);
}

/* A connection that broke is an error naming the source, not a slot gone. */
static void test_probe_broken_connection(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	struct pgcdc_probe p = { .have = true };
	PGconn *conn = connect_source(), *other = connect_source();
	char sql[128];

	(void)state;
	snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%d)", PQbackendPID(conn));
	PQclear(PQexec(other, sql));
	assert_int_equal(pgcdc_probe_read(conn, SLOT, &p, &err), SL_E_IO);
	assert_non_null(strstr(err.msg, "source database"));
	assert_false(p.have);
	PQfinish(conn);
	PQfinish(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_slot_there_and_gone),
		cmocka_unit_test(test_probe_broken_connection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
