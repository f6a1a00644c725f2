/*
 * One profiling query per model: every column's figures in one scan.
 */
#include "live/profile.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "project/model.h"
#include "state/profiles.h"
#include "warehouse/wh.h"

int live_profile(struct arena *cycle, struct wh *w, const struct model *m, struct sl_err *err)
{
	struct arena *a = arena_new(cycle);
	struct wh_column *cols;
	size_t n;
	int rc = wh_table_columns(w, a, m->schema, m->name, &cols, &n, err);

	if (!rc && n)
		rc = state_profile_write(w, m->fqn, m->schema, m->name, cols, n, units_now_ms(),
					 err);
	arena_free(a);
	return rc;
}
