/*
 * One profiling query per model (exec/profile.c), written with the
 * runner's own transaction.
 */
#include "live/profile.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "exec/anomaly.h"
#include "exec/profile.h"
#include "project/model.h"
#include "state/profiles.h"
#include "warehouse/wh.h"

bool live_profile_wanted(const struct model *m, const struct anomaly_cfg *cfg)
{
	return profile_builds_of(m) && anomaly_wanted(m, cfg);
}

int live_profile(struct arena *cycle, struct wh *w, const struct model *m, int64_t refresh_count,
		 struct sl_err *err)
{
	struct arena *a = arena_new(cycle);
	struct state_profile p = { .model = m->fqn, .env = "", .taken_ms = units_now_ms(),
				   .kind = PROFILE_LIVE, .refresh_count = refresh_count,
				   .kept = true };
	struct buf sql = BUF_INIT;
	int rc = profile_take(w, a, m->schema, m->name, &p, err);

	if (!rc)
		rc = state_profile_id_next(w, &p.id, err);
	if (!rc) {
		state_sql_profile(&sql, &p);
		rc = sql.len ? wh_exec_atomic(w, sql.buf, err) : 0;
	}
	buf_release(&sql);
	arena_free(a);
	return rc;
}
