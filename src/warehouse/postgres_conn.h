/*
 * A connection of the PostgreSQL backend: what postgres.c and the files
 * that do one job of the backend each (postgres_session.c,
 * postgres_readonly.c, postgres_sql.c, postgres_append.c) hold in common.
 * Private to the PostgreSQL backend.
 */
#ifndef SL_WAREHOUSE_POSTGRES_CONN_H
#define SL_WAREHOUSE_POSTGRES_CONN_H

#include "warehouse/reconnect.h"
#include "warehouse/wh_impl.h"

#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdbool.h>

/* The lowest server version sluice writes SQL for: MERGE arrived in 15. */
#define PG_MIN_VERSION 150000

struct wh_pg {
	struct wh base;
	PGconn *conn;
	char *dsn;
	bool suspect;
	char version[64];
	/* the session is gone (read by other threads: wh_lost) */
	atomic_bool lost;
	/* it was lost in a transaction the caller has not rolled back yet */
	bool lost_in_txn;
	/* the call under way began inside a transaction */
	bool in_txn;
	struct wh_reconnect again;
	char why[256]; /* what the last attempt to open it again met */
	atomic_uint_fast64_t sessions; /* opened anew since the first */
};

static inline struct wh_pg *pg_conn(struct wh *w)
{
	return (struct wh_pg *)w;
}

#endif
