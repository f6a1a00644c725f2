/*
 * Lag from the advances a model has not covered yet. Reads only.
 */
#include "live/lag.h"

#include "core/buf.h"
#include "core/err.h"
#include "live/inputs.h"
#include "warehouse/wh.h"

int live_lag_ms(struct wh *w, struct arena *a, const struct model *m, int64_t now_ms,
		int64_t *lag_ms, struct sl_err *err)
{
	struct live_inputs in;
	struct buf sql = BUF_INIT;
	int64_t oldest = 0;
	int rc;

	*lag_ms = 0;
	live_inputs_find(a, m, &in);
	if (!in.nsources)
		return 0;
	buf_adds(&sql, "SELECT coalesce(epoch_ms(min(a.arrived_at)), 0) FROM _sluice.live_advances "
		       "AS a LEFT JOIN _sluice.live_covered AS c ON c.model = ");
	buf_add_sql_str(&sql, m->fqn);
	buf_adds(&sql, " AND c.source = a.source WHERE a.source IN (");
	for (size_t i = 0; i < in.nsources; i++) {
		if (i)
			buf_adds(&sql, ", ");
		buf_add_sql_str(&sql, in.sources[i]);
	}
	buf_adds(&sql, ") AND a.seq > coalesce(c.seq, 0)");
	rc = wh_query_int(w, sql.buf, &oldest, err);
	buf_release(&sql);
	if (!rc && oldest)
		*lag_ms = now_ms > oldest ? now_ms - oldest : 0;
	return rc;
}
