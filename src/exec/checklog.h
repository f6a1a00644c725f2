/*
 * The last results of each model's checks (@assert), kept in the project
 * folder for the model page and `sluice docs`: `.sluice/checks/MODEL.json`
 * (`MODEL@ENV.json` in an environment), when they ran, in which run, each
 * check's failing rows counted with a few of them. Written after every
 * build, refresh or test that ran checks, whether its transaction
 * committed or not: a check that fails rolls its build back, and that is
 * when its result matters most. A file is replaced by a rename, so a
 * reader sees one run's results or the next's, never half of one.
 */
#ifndef SL_EXEC_CHECKLOG_H
#define SL_EXEC_CHECKLOG_H

#include <stdint.h>

struct json_t;
struct run_item;
struct sl_err;

/* The bytes of a sample's value kept (a longer one is cut, with "...")
 * and the columns of a sample kept. */
#define CHECKLOG_VALUE_MAX 200
#define CHECKLOG_COLUMNS_MAX 32

/* Records the results of item's checks under root (the project folder)
 * for env ("" or NULL: the main one), as run run_id found them at now_ms:
 * one file per model whose checks they are (the item's model, and each
 * ephemeral it inlines). SL_E_IO when the folder cannot be written; the
 * caller goes on. */
int checklog_record(const char *root, const char *env, int64_t run_id, const struct run_item *item,
		    int64_t now_ms, struct sl_err *err);

/* The last results recorded for model in env: {"model", "env",
 * "checked_at", "run_id", "window" (a temporal model's, else null), "in"
 * (an ephemeral's checks: the model whose build ran them, else null),
 * "checks": [{"check", "severity", "line", "failures", "sample":
 * {"columns", "rows"} or null}]}, a new reference; NULL when none were
 * (or the file is not such an object). */
struct json_t *checklog_read(const char *root, const char *env, const char *model);

#endif
