/*
 * This file implements the statements on `_sluice.deliveries`: the lookup
 * of ids that landed, their record, the pruning of old ones. It must
 * never begin, commit or roll back: an id commits with its rows.
 */
#include "state/deliveries.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int state_deliveries_find(struct wh *w, struct state_delivery *d, size_t n, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = strcmp(d[k].source, d[i].source) == 0;
		if (seen)
			continue;
		buf_adds(&sql, sql.len ? " OR (source = "
				       : "SELECT source, id, seq, rows FROM "
					 "_sluice.deliveries WHERE (source = ");
		buf_add_sql_str(&sql, d[i].source);
		buf_adds(&sql, " AND id IN (");
		for (size_t k = i; k < n; k++) {
			if (strcmp(d[k].source, d[i].source) != 0)
				continue;
			if (k > i)
				buf_adds(&sql, ", ");
			buf_add_sql_str(&sql, d[k].id);
		}
		buf_adds(&sql, "))");
	}
	if (!sql.len)
		return 0;
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	for (size_t k = 0; !rc && k < wh_result_nrows(r); k++)
		for (size_t i = 0; i < n; i++) {
			if (strcmp(d[i].source, wh_result_value(r, k, 0)) != 0 ||
			    strcmp(d[i].id, wh_result_value(r, k, 1)) != 0)
				continue;
			d[i].landed = true;
			d[i].seq = strtoll(wh_result_value(r, k, 2), NULL, 10);
			d[i].rows = strtoll(wh_result_value(r, k, 3), NULL, 10);
		}
	if (!rc)
		wh_result_free(r);
	return rc;
}

int state_deliveries_record(struct wh *w, const struct state_delivery *d, size_t n,
			    const char *now, bool *refused, struct sl_err *err)
{
	struct wh_appender *ap = NULL;
	char seq[32], rows[32];
	int rc;

	if (!n)
		return 0;
	rc = wh_appender_open(w, "_sluice", "deliveries", &ap, err);
	for (size_t i = 0; !rc && i < n; i++) {
		const char *values[5] = { d[i].source, d[i].id, seq, rows, now };

		snprintf(seq, sizeof(seq), "%lld", (long long)d[i].seq);
		snprintf(rows, sizeof(rows), "%lld", (long long)d[i].rows);
		rc = wh_appender_row(ap, values, 5, err);
	}
	if (!rc) {
		rc = wh_appender_flush(ap, err);
		*refused = rc != 0;
	}
	if (ap)
		wh_appender_close(ap);
	return rc;
}

int state_deliveries_prune(struct wh *w, int64_t before_ms, struct sl_err *err)
{
	char sql[160], cutoff[32];

	units_format_ts(before_ms, cutoff, sizeof(cutoff));
	snprintf(sql, sizeof(sql), "DELETE FROM _sluice.deliveries WHERE received_at < '%s'",
		 cutoff);
	return wh_exec(w, sql, err);
}
