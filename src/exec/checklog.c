/*
 * This file implements the folder's record of the last check results
 * (checklog.h): one JSON file per model and environment, written to a
 * file of its own and renamed over the one before. It never touches the
 * warehouse, and a file it cannot write fails nothing but the record.
 */
#include "exec/checklog.h"

#include "core/err.h"
#include "core/units.h"
#include "exec/assert.h"
#include "exec/run.h"
#include "warehouse/wh.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* .sluice/checks/MODEL[@ENV].json under root; false for a name that
 * would leave the folder (a model or environment name never does). */
static bool file_of(char *out, size_t size, const char *root, const char *env,
		    const char *model)
{
	bool envd = env && *env;

	if (strchr(model, '/') || model[0] == '.' || (envd && strchr(env, '/')))
		return false;
	return snprintf(out, size, "%s/.sluice/checks/%s%s%s.json", root, model, envd ? "@" : "",
			envd ? env : "") < (int)size;
}

/* A sample's value as kept: cut at CHECKLOG_VALUE_MAX bytes, at a
 * character's start. */
static json_t *value_json(const struct wh_result *r, size_t row, size_t col)
{
	const char *v = wh_result_value(r, row, col);
	size_t len;

	json_t *s;

	if (!v)
		return json_null();
	len = wh_result_value_len(r, row, col);
	if (len <= CHECKLOG_VALUE_MAX) {
		s = json_stringn(v, len);
	} else {
		len = CHECKLOG_VALUE_MAX;
		while (len && ((unsigned char)v[len] & 0xC0) == 0x80)
			len--;
		s = json_sprintf("%.*s...", (int)len, v);
	}
	/* bytes that are no text (a BLOB's) */
	return s ? s : json_string("(not UTF-8)");
}

static json_t *sample_json(const struct wh_result *r)
{
	size_t ncols = wh_result_ncols(r);
	json_t *cols = json_array(), *rows = json_array();

	if (ncols > CHECKLOG_COLUMNS_MAX)
		ncols = CHECKLOG_COLUMNS_MAX;
	for (size_t c = 0; c < ncols; c++)
		json_array_append_new(cols, json_string(wh_result_colname(r, c)));
	for (size_t i = 0; i < wh_result_nrows(r) && i < ASSERT_SAMPLE; i++) {
		json_t *row = json_array();

		for (size_t c = 0; c < ncols; c++)
			json_array_append_new(row, value_json(r, i, c));
		json_array_append_new(rows, row);
	}
	return json_pack("{s:o, s:o}", "columns", cols, "rows", rows);
}

/* The results of item's checks that are owner's, as the file holds
 * them. */
static json_t *results_of(const struct run_item *item, const struct model *owner,
			  const char *env, int64_t run_id, int64_t now_ms)
{
	json_t *checks = json_array();
	char at[32];

	units_format_ts(now_ms, at, sizeof(at));
	for (size_t i = 0; i < item->nasserts; i++) {
		const struct assert_result *ar = &item->asserts[i];

		if (ar->model != owner)
			continue;
		json_array_append_new(
			checks, json_pack("{s:s, s:s, s:i, s:I, s:o}", "check", ar->check->text,
					  "severity", ar->check->warn ? "warn" : "error", "line",
					  ar->check->line, "failures", (json_int_t)ar->failures,
					  "sample",
					  ar->sample && ar->failures ? sample_json(ar->sample)
								     : json_null()));
	}
	return json_pack("{s:s, s:s, s:s, s:I, s:s?, s:s?, s:o}", "model", owner->fqn, "env",
			 env ? env : "", "checked_at", at, "run_id", (json_int_t)run_id, "window",
			 item->checked_window, "in", owner != item->m ? item->m->fqn : NULL,
			 "checks", checks);
}

/* Writes doc to path by a rename: the file before stays whole until then. */
static int replace_file(const char *path, json_t *doc, struct sl_err *err)
{
	char tmp[4200];
	int rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	if (json_dump_file(doc, tmp, JSON_COMPACT))
		rc = sl_err_set(err, SL_E_IO, "cannot write '%s'", tmp);
	else if (rename(tmp, path))
		rc = sl_err_set(err, SL_E_IO, "cannot rename '%s': %s", tmp, strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}

int checklog_record(const char *root, const char *env, int64_t run_id, const struct run_item *item,
		    int64_t now_ms, struct sl_err *err)
{
	char path[4096];
	int rc = 0;

	if (!root || !item->nasserts)
		return 0;
	snprintf(path, sizeof(path), "%s/.sluice", root);
	if (mkdir(path, 0755) && errno != EEXIST)
		return sl_err_set(err, SL_E_IO, "cannot make '%s': %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/.sluice/checks", root);
	if (mkdir(path, 0755) && errno != EEXIST)
		return sl_err_set(err, SL_E_IO, "cannot make '%s': %s", path, strerror(errno));
	for (size_t i = 0; i < item->nasserts && !rc; i++) {
		const struct model *owner = item->asserts[i].model;
		json_t *doc;
		bool first = true;

		/* each owner once, at its first check */
		for (size_t k = 0; k < i && first; k++)
			first = item->asserts[k].model != owner;
		if (!first || !file_of(path, sizeof(path), root, env, owner->fqn))
			continue;
		doc = results_of(item, owner, env, run_id, now_ms);
		rc = replace_file(path, doc, err);
		json_decref(doc);
	}
	return rc;
}

json_t *checklog_read(const char *root, const char *env, const char *model)
{
	char path[4096];
	json_t *doc;

	if (!root || !file_of(path, sizeof(path), root, env, model))
		return NULL;
	doc = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
	if (doc && !json_is_array(json_object_get(doc, "checks"))) {
		json_decref(doc);
		doc = NULL;
	}
	return doc;
}
