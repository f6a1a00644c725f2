/*
 * What the source server says of a slot right now, over a normal
 * connection: whether it has it, its wal_status and safe_wal_size from
 * pg_replication_slots, and the server's WAL position. One query, for the
 * status of a consumer; never changes anything on the server.
 */
#include "pgcdc/pgcdc_pg.h"

#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The LSNs come as byte positions (numeric text), which strtoull reads:
 * no parsing of the X/X form. One row, whether the slot is there or not. */
#define PROBE_SQL                                                                        \
	"SELECT s.slot_name IS NOT NULL, s.wal_status, s.safe_wal_size::text, "          \
	"(pg_current_wal_lsn() - '0/0'::pg_lsn)::text FROM (SELECT 1) one "             \
	"LEFT JOIN pg_replication_slots s ON s.slot_name = $1"

int pgcdc_probe_read(PGconn *conn, const char *slot, struct pgcdc_probe *out, struct sl_err *err)
{
	PGresult *r;
	int rc = pgcdc_pg_run(conn, PROBE_SQL, slot, PGRES_TUPLES_OK, &r, err);

	*out = (struct pgcdc_probe){ 0 };
	if (rc)
		return rc;
	if (PQntuples(r) != 1) {
		int n = PQntuples(r);

		PQclear(r);
		return sl_err_set(err, SL_E_PARSE, "source database: pg_replication_slots gave %d rows",
				  n);
	}
	out->have = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
	/* NULL for a slot that has not reserved WAL yet */
	if (!PQgetisnull(r, 0, 1))
		snprintf(out->wal_status, sizeof(out->wal_status), "%s", PQgetvalue(r, 0, 1));
	/* NULL without a max_slot_wal_keep_size, and for a lost slot */
	out->safe_known = !PQgetisnull(r, 0, 2);
	if (out->safe_known)
		out->safe_wal_size = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
	out->server_lsn = strtoull(PQgetvalue(r, 0, 3), NULL, 10);
	PQclear(r);
	return 0;
}
