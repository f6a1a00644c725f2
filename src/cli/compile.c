/*
 * `sluice compile MODEL`: print the SQL a build of the model would run,
 * placeholders filled and ephemerals inlined. Runs nothing.
 */
#include "cli/commands.h"

#include "exec/render.h"
#include "core/buf.h"
#include "core/err.h"
#include "project/dag.h"
#include "project/model.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* A temporal model compiles for its first window: since = start, until =
 * start + one grain. Returns false when the model has no start or grain. */
static bool first_window(const struct model *m, char *since, char *until, size_t len)
{
	const struct model_setting *start = model_setting_get(m, "start");
	const struct model_setting *grain = model_setting_get(m, "grain");
	struct tm tm = { 0 };
	time_t t;

	if (!start || !grain || !strptime(start->value, "%Y-%m-%d", &tm))
		return false;
	sscanf(start->value + 10, " %d:%d:%d", &tm.tm_hour, &tm.tm_min, &tm.tm_sec);
	t = timegm(&tm);
	strftime(since, len, "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
	if (strcmp(grain->value, "1mo") == 0)
		tm.tm_mon++;
	else
		tm.tm_sec += strcmp(grain->value, "1h") == 0   ? 3600
			     : strcmp(grain->value, "1d") == 0 ? 86400
							       : 7 * 86400;
	t = timegm(&tm);
	strftime(until, len, "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
	return true;
}

int cli_compile(struct cli_args *args)
{
	char since[32], until[32];
	struct cli_session s;
	struct render_ctx ctx = { .env = "" };
	struct sl_err err = SL_ERR_INIT;
	struct buf sql = BUF_INIT;
	const struct model *m;
	int rc;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice compile MODEL\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_NONE, true);
	if (rc)
		return rc;
	m = dag_model_named(s.project, args->pos[0], &err);
	if (!m) {
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (m->mat == MAT_SEED) {
		printf("-- %s is a seed loaded from %s\n", m->fqn, m->path);
		cli_session_close(&s);
		return CLI_OK;
	}
	if (first_window(m, since, until, sizeof(since))) {
		ctx.since = since;
		ctx.until = until;
		printf("-- the first window: [%s, %s)\n", since, until);
	}
	rc = render_model(m, &ctx, false, &sql, &err);
	if (!rc && m->filter) {
		buf_adds(&sql, "\n\n-- incremental runs read:\n");
		rc = render_model(m, &ctx, true, &sql, &err);
	}
	if (rc) {
		cli_print_err(&err);
		rc = CLI_FAILED;
	} else {
		printf("%s\n", sql.buf);
	}
	buf_release(&sql);
	cli_session_close(&s);
	return rc;
}
