/*
 * This file implements the writer's landing of a data file (landfile.h):
 * the ledger looked up, the file read by the warehouse into its landing
 * table with the values the writer stamps, the ledger row written. It
 * must never begin, commit or roll back: the file, its rows and its
 * ledger row are the writer's transaction's.
 */
#include "ingest/landfile.h"

#include "core/err.h"
#include "ingest/writer.h"
#include "state/files.h"
#include "warehouse/wh.h"

#include <stdio.h>

int ingest_file_find(struct wh *w, const char *source, const struct ingest_file *f,
		     struct ingest_result *res, struct sl_err *err)
{
	struct state_landed_file lf = { .source = source, .path = f->path, .sha256 = f->sha256 };
	bool landed = false;
	int rc = state_files_find(w, &lf, &landed, err);

	if (!rc && landed) {
		res->duplicate = true;
		res->seq = lf.seq;
		res->rows = lf.rows;
	}
	return rc;
}

int ingest_file_land(struct wh *w, const char *source, const struct ingest_file *f,
		     int64_t seq, const char *now, int64_t *rows, struct sl_err *err)
{
	char seqtext[32], schema[128];
	const char *name;
	struct wh_file_read rd = *f->read;
	struct wh_file_value values[] = {
		{ "_sluice_file", f->path },
		{ "_sluice_landed_at", now },
		{ "_sluice_seq", seqtext },
	};
	struct state_landed_file lf = {
		.source = source, .path = f->path, .sha256 = f->sha256, .size = f->size, .seq = seq
	};
	int rc;

	if (!wh_split_qualified(source, schema, sizeof(schema), &name))
		return sl_err_set(err, SL_E_USAGE, "invalid landing table '%s'", source);
	snprintf(seqtext, sizeof(seqtext), "%lld", (long long)seq);
	rd.values = values;
	rd.nvalues = sizeof(values) / sizeof(*values);
	rc = wh_file_land(w, schema, name, &rd, rows, err);
	lf.rows = *rows;
	if (!rc)
		rc = state_files_record(w, &lf, now, err);
	return rc;
}
