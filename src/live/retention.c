/*
 * This file implements retention: per source, one transaction that
 * records then deletes its landing rows past their age. Rows a live
 * model has not consumed yet stay, whatever their age: what it consumed
 * is on record (a refresh whose record waits is only ahead of it).
 */
#include "live/retention.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "project/bounds.h"
#include "project/inputs.h"
#include "project/project.h"
#include "state/replay.h"
#include "warehouse/wh.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define RETENTION_LOCK "retention"

/* The highest sequence every live model of p that reads source has
 * consumed: none on record, every row. A model gone from the project
 * holds nothing back. */
static int consumed_by_all(struct wh *w, const struct project *p, const char *source,
			   int64_t *upto, struct sl_err *err)
{
	struct arena *a = arena_new(NULL);
	struct buf sql = BUF_INIT;
	int64_t v[2] = { 0 };
	size_t readers = 0;
	int rc = 0;

	buf_adds(&sql, "SELECT count(*), coalesce(min(watermark), 0) FROM _sluice.live_consumed "
		       "WHERE input = ");
	buf_add_sql_str(&sql, source);
	buf_adds(&sql, " AND model IN (");
	for (size_t i = 0; i < p->nmodels; i++) {
		struct model_inputs in;

		if (!inputs_tracks(p->models[i]))
			continue;
		inputs_find(a, p->models[i], &in);
		for (size_t k = 0; k < in.n; k++) {
			if (in.items[k].kind != INPUT_SOURCE || strcmp(in.items[k].name, source) != 0)
				continue;
			buf_adds(&sql, readers++ ? ", " : "");
			buf_add_sql_str(&sql, p->models[i]->fqn);
			break;
		}
	}
	buf_adds(&sql, ")");
	if (readers)
		rc = wh_query_ints(w, sql.buf, v, 2, err);
	buf_release(&sql);
	arena_free(a);
	*upto = v[0] ? v[1] : INT64_MAX;
	return rc;
}

static int prune_source(struct wh *w, const struct project *p, const struct source_cfg *s,
			int64_t now_ms, struct sl_err *err)
{
	char fqn[256], cutoff[40], now[40];
	struct source_bounds b;
	struct buf sql = BUF_INIT;
	char *dot;
	int64_t upto;
	int rc;

	if (source_bounds_of(s, &b) || !b.time)
		return 0;
	inputs_source_table(s, fqn, sizeof(fqn));
	dot = strchr(fqn, '.');
	units_format_ts(now_ms - s->retention_ms, cutoff, sizeof(cutoff));
	units_format_ts(now_ms, now, sizeof(now));
	rc = consumed_by_all(w, p, fqn, &upto, err);
	if (rc || !dot)
		return rc;
	*dot = '\0';
	state_sql_prune(&sql, s->name, fqn, dot + 1, &b, cutoff, upto, now);
	rc = wh_exec_atomic(w, sql.buf, err);
	buf_release(&sql);
	if (rc)
		sl_err_context(err, "pruning source %s (retention)", s->name);
	return rc;
}

int live_retention_prune(struct wh *w, const struct project *p, int64_t now_ms, struct sl_err *err)
{
	bool any = false, got = true;
	int rc = 0;

	for (size_t i = 0; i < p->cfg.nsources; i++)
		any |= p->cfg.sources[i].retention_ms > 0;
	if (!any)
		return 0;
	if (wh_shared(w))
		rc = wh_lock(w, RETENTION_LOCK, WH_LOCK_TRY, &got, err);
	for (size_t i = 0; !rc && got && i < p->cfg.nsources; i++)
		if (p->cfg.sources[i].retention_ms > 0)
			rc = prune_source(w, p, &p->cfg.sources[i], now_ms, err);
	if (wh_shared(w) && got) {
		int unlocked = wh_unlock(w, RETENTION_LOCK, rc ? NULL : err);

		rc = rc ? rc : unlocked;
	}
	return rc;
}
