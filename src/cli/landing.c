/*
 * This file implements what the foreground consumers of sources (`sluice
 * poll`, `sluice kafka`) share: a landing writer of their own for one
 * landing, and their rests between landings.
 */
#include "cli/commands.h"

#include "state/state.h"
#include "core/err.h"
#include "ingest/writer.h"
#include "live/advance.h"
#include "project/project.h"
#include "warehouse/wh.h"

#include <time.h>

void cli_nap(int64_t ms, volatile sig_atomic_t *stopping)
{
	while (ms > 0 && !*stopping) {
		struct timespec ts = { 0, (ms > 100 ? 100 : ms) * 1000000L };

		nanosleep(&ts, NULL);
		ms -= 100;
	}
}

static void warehouse_failed(void *ctx, const struct sl_err *err)
{
	const char *const *said = ctx;

	sl_exit_suspect(said[0], said[1], err);
}

int cli_land(struct cli_session *s, const char *who, const char *in_doubt,
	     int (*land)(void *ctx, struct ingest_writer *wr, struct sl_err *err), void *ctx,
	     struct sl_err *err)
{
	const struct project_cfg *cfg = &s->project->cfg;
	const char *said[] = { who, in_doubt };
	struct ingest_opts io = {
		.arena = s->arena,
		.flush_interval_ms = 0,
		.flush_rows = cfg->ingest.flush_rows,
		.max_rows = cfg->ingest.flush_rows * 10,
		.suspect = warehouse_failed,
		.ctx = said,
	};
	struct ingest_writer *wr = NULL;
	struct wh *conn = NULL;
	int rc = state_ensure(s->wh, err);

	if (!rc)
		rc = live_sources_ensure(s->wh, s->arena, s->project, err);
	if (!rc)
		rc = wh_connect(s->wh, &conn, err);
	if (rc)
		return rc;
	/* the writer owns conn once it runs */
	rc = ingest_writer_start(conn, &io, &wr, err);
	if (rc) {
		wh_close(conn);
		return rc;
	}
	rc = land(ctx, wr, err);
	ingest_writer_stop(wr);
	return rc;
}
