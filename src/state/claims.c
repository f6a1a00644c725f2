/*
 * This file implements the statements on `_sluice.live_runners` and
 * `_sluice.live_claims`: heartbeats, leases taken, renewed and given up.
 * It never decides which runner should hold what, and must never begin,
 * commit or roll back a transaction.
 */
#include "state/claims.h"

#include "core/buf.h"
#include "core/err.h"
#include "warehouse/wh.h"

/* The warehouse's clock in ms, plus offset. */
static void now_plus(struct wh *w, struct buf *sql, int64_t offset)
{
	buf_adds(sql, "(");
	wh_sql_epoch_ms(w, sql, "now()");
	buf_addf(sql, " + %lld)", (long long)offset);
}

int state_claims_renew(struct wh *w, const char *runner, int64_t lease_ms,
		       struct wh_result **out, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "INSERT INTO _sluice.live_runners VALUES (");
	buf_add_sql_str(&sql, runner);
	buf_adds(&sql, ", ");
	now_plus(w, &sql, lease_ms);
	buf_adds(&sql, ") ON CONFLICT (runner) DO UPDATE SET until_ms = excluded.until_ms;\n"
		       "UPDATE _sluice.live_claims SET until_ms = ");
	now_plus(w, &sql, lease_ms);
	buf_adds(&sql, " WHERE runner = ");
	buf_add_sql_str(&sql, runner);
	buf_adds(&sql, ";\nDELETE FROM _sluice.live_runners WHERE until_ms < ");
	now_plus(w, &sql, -100 * lease_ms);
	rc = wh_exec(w, sql.buf, err);
	buf_reset(&sql);
	buf_adds(&sql, "SELECT 'g', grp, runner, CAST(until_ms >= ");
	now_plus(w, &sql, 0);
	buf_adds(&sql, " AS INTEGER) FROM _sluice.live_claims UNION ALL SELECT 'r', NULL, "
		       "runner, 1 FROM _sluice.live_runners WHERE until_ms >= ");
	now_plus(w, &sql, 0);
	if (!rc)
		rc = wh_query(w, sql.buf, out, err);
	buf_release(&sql);
	return rc;
}

int state_claims_take(struct wh *w, const char *group, const char *runner, int64_t lease_ms,
		      bool *got, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int64_t changed = 0;
	int rc;

	buf_adds(&sql, "INSERT INTO _sluice.live_claims VALUES (");
	buf_add_sql_str(&sql, group);
	buf_adds(&sql, ", ");
	buf_add_sql_str(&sql, runner);
	buf_adds(&sql, ", ");
	now_plus(w, &sql, lease_ms);
	buf_adds(&sql, ") ON CONFLICT (grp) DO UPDATE SET runner = excluded.runner, until_ms = "
		       "excluded.until_ms WHERE _sluice.live_claims.until_ms < ");
	now_plus(w, &sql, 0);
	rc = wh_exec_count(w, sql.buf, &changed, err);
	buf_release(&sql);
	*got = !rc && changed > 0;
	return rc;
}

int state_claims_drop(struct wh *w, const char *runner, const char *group, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "DELETE FROM _sluice.live_claims WHERE runner = ");
	buf_add_sql_str(&sql, runner);
	if (group) {
		buf_adds(&sql, " AND grp = ");
		buf_add_sql_str(&sql, group);
	}
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

int state_claims_runner_drop(struct wh *w, const char *runner, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "DELETE FROM _sluice.live_runners WHERE runner = ");
	buf_add_sql_str(&sql, runner);
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}

int state_claims_current(struct wh *w, struct arena *a, struct wh_result **out,
			 struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	const char *kind = NULL;
	int rc = wh_relation_kind(w, a, "_sluice", "live_claims", &kind, err);

	*out = NULL;
	if (rc || !kind)
		return rc;
	buf_adds(&sql, "SELECT grp, runner FROM _sluice.live_claims WHERE until_ms >= ");
	wh_sql_epoch_ms(w, &sql, "now()");
	rc = wh_query(w, sql.buf, out, err);
	buf_release(&sql);
	return rc;
}
