/*
 * This file implements the rows of `_sluice.cdc_slots` (a postgres_cdc
 * slot's stored LSNs and snapshot state) and `_sluice.cdc_relations` (the
 * shapes of its tables): reading them when a consumer starts, and the
 * statements that record them in the caller's transaction, with the rows
 * they account for. It must never begin, commit or roll back.
 */
#include "state/cdc_slots.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int state_cdc_slot_read(struct wh *w, const char *slot, struct state_cdc_slot *out,
			struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	*out = (struct state_cdc_slot){ 0 };
	buf_adds(&sql, "SELECT landed_lsn, confirmed_lsn, snapshot FROM _sluice.cdc_slots WHERE "
		       "slot = ");
	buf_add_sql_str(&sql, slot);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	if (wh_result_nrows(r)) {
		const char *snap = wh_result_value(r, 0, 2);

		out->stored = true;
		out->landed = strtoull(wh_result_value(r, 0, 0), NULL, 10);
		out->confirmed = strtoull(wh_result_value(r, 0, 1), NULL, 10);
		out->snapshot = !snap ? 0 : !strcmp(snap, "pending") ? 'p' : 'd';
	}
	wh_result_free(r);
	return 0;
}

int state_cdc_slot_store(struct wh *w, const char *slot, uint64_t landed, uint64_t confirmed,
			 struct sl_err *err)
{
	const struct wh_arg args[] = { WH_INT((int64_t)landed), WH_INT((int64_t)confirmed),
				       WH_TEXT(slot) };
	const char *update = "UPDATE _sluice.cdc_slots SET landed_lsn = CASE WHEN $1::BIGINT > 0 "
			     "THEN $1::BIGINT ELSE landed_lsn END, confirmed_lsn = "
			     "greatest(confirmed_lsn, $2::BIGINT) WHERE slot = $3::VARCHAR";
	int64_t changed = 0;
	int rc = wh_exec_args(w, update, args, 3, &changed, err);

	/* planned anew: the kept plan may date from before the row existed */
	if (!rc && !changed) {
		wh_forget_statement(w, update);
		rc = wh_exec_args(w, update, args, 3, &changed, err);
	}
	if (!rc && !changed) {
		const struct wh_arg row[] = { WH_TEXT(slot), WH_INT((int64_t)landed),
					      WH_INT((int64_t)(confirmed > landed ? confirmed
										  : landed)) };

		wh_forget_statement(w, update);
		rc = wh_exec_args(w,
				  "INSERT INTO _sluice.cdc_slots (slot, landed_lsn, confirmed_lsn) "
				  "VALUES ($1::VARCHAR, $2::BIGINT, $3::BIGINT)",
				  row, 3, NULL, err);
	}
	return rc;
}

int state_cdc_slot_replace(struct wh *w, const char *slot, uint64_t lsn, const char *snapshot,
			   struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "DELETE FROM _sluice.cdc_slots WHERE slot = ");
	buf_add_sql_str(&sql, slot);
	rc = wh_exec(w, sql.buf, err);
	if (!rc) {
		buf_reset(&sql);
		buf_adds(&sql, "INSERT INTO _sluice.cdc_slots (slot, landed_lsn, confirmed_lsn, "
			       "snapshot) VALUES (");
		buf_add_sql_str(&sql, slot);
		buf_addf(&sql, ", %" PRIu64 ", %" PRIu64 ", ", lsn, lsn);
		buf_add_sql_str(&sql, snapshot);
		buf_adds(&sql, ")");
		rc = wh_exec(w, sql.buf, err);
	}
	buf_release(&sql);
	return rc;
}

int state_cdc_shapes_read(struct wh *w, struct arena *a, const char *slot,
			  struct state_cdc_shape **out, size_t *n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	*out = NULL;
	*n = 0;
	buf_adds(&sql, "SELECT relation, columns FROM _sluice.cdc_relations AS c WHERE slot = ");
	buf_add_sql_str(&sql, slot);
	buf_adds(&sql, " AND NOT EXISTS (SELECT 1 FROM _sluice.cdc_relations AS l WHERE l.slot = "
		       "c.slot AND l.relation = c.relation AND (l.lsn > c.lsn OR (l.lsn = c.lsn AND "
		       "l.pos > c.pos)))");
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	*out = arena_alloc(a, (wh_result_nrows(r) + 1) * sizeof(**out));
	for (size_t i = 0; i < wh_result_nrows(r); i++) {
		(*out)[i].relation = arena_strdup(a, wh_result_value(r, i, 0));
		(*out)[i].columns = arena_strdup(a, wh_result_value(r, i, 1));
	}
	*n = wh_result_nrows(r);
	wh_result_free(r);
	return 0;
}

int state_cdc_shape_store(struct wh *w, const char *slot, const char *relation, uint64_t lsn,
			  int64_t pos, const char *columns, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql, "INSERT INTO _sluice.cdc_relations (slot, relation, lsn, pos, columns) "
		       "VALUES (");
	buf_add_sql_str(&sql, slot);
	buf_adds(&sql, ", ");
	buf_add_sql_str(&sql, relation);
	buf_addf(&sql, ", %" PRIu64 ", %" PRId64 ", ", lsn, pos);
	buf_add_sql_str(&sql, columns);
	buf_adds(&sql, ")");
	rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}
