/*
 * This file implements the boundaries a build records. Only statements
 * are made here, in the caller's transaction; the boundary's columns are
 * the source's (project/bounds.c), the SQL is state/replay.c's.
 */
#include "replay/boundaries.h"

#include "core/arena.h"
#include "core/units.h"
#include "project/bounds.h"
#include "project/inputs.h"
#include "project/project.h"
#include "replay/closure.h"
#include "state/replay.h"

#include <string.h>

bool replay_keeps_history(const struct model *m)
{
	return m->mat != MAT_TABLE && m->mat != MAT_VIEW && m->mat != MAT_SEED &&
	       m->mat != MAT_EPHEMERAL;
}

int replay_record_build(void *ctx, struct wh *w, const struct model *m, const char *env,
			int64_t run_id, struct buf *sql, struct sl_err *err)
{
	const struct replay_record *rec = ctx;
	struct arena *a;
	const struct source_cfg **sources;
	char now[40];
	size_t n;

	(void)w;
	(void)err;
	if (!replay_keeps_history(m))
		return 0;
	a = arena_new(NULL);
	n = replay_sources_read(a, rec->p, m, &sources);
	units_format_ts(units_now_ms(), now, sizeof(now));
	for (size_t i = 0; i < n; i++) {
		struct source_bounds b;
		char table[256], *dot;

		inputs_source_table(sources[i], table, sizeof(table));
		dot = strchr(table, '.');
		if (source_bounds_of(sources[i], &b) || !dot)
			continue;
		*dot = '\0';
		state_sql_boundaries(sql, run_id, env ? env : "", &m->fqn, 1, sources[i]->name,
				     table, dot + 1, &b, rec->start, now);
	}
	arena_free(a);
	return 0;
}
