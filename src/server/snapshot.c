/*
 * This file implements the project's snapshot (snapshot.h): the drawing
 * of GET /api/dag and each model's document, written as one JSON text.
 * It reads the project and what its caller read; it never reads the
 * warehouse itself.
 */
#include "server/snapshot.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "exec/modeldoc.h"
#include "ingest/jsontext.h"
#include "project/lineage_graph.h"
#include "project/model.h"
#include "server/dagdoc.h"
#include "state/columns.h"
#include "warehouse/wh.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void add_string(struct buf *b, const char *s)
{
	buf_addch(b, '"');
	jsontext_escape(b, s, strlen(s));
	buf_addch(b, '"');
}

/* m's columns: as its last build recorded them, else as its query names
 * them (the lineage's names, without their types), else none. */
static const struct state_model_columns *columns_of(struct arena *a, const struct model *m,
						    const struct snapshot_input *in)
{
	const struct state_model_columns *rec = state_columns_find(in->columns, in->ncolumns, m->fqn);
	struct state_model_columns *named;
	const char *const *names;
	size_t n;
	bool open;

	if (rec || !in->lineage || !lineage_graph_names(in->lineage, m, &names, &n, &open))
		return rec;
	named = arena_alloc(a, sizeof(*named));
	*named = (struct state_model_columns){ .model = m->fqn };
	named->cols = arena_alloc(a, (n + 1) * sizeof(*named->cols));
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], "*") != 0)
			named->cols[named->n++] = (struct wh_column){ .name = names[i] };
	return named;
}

/* One model's document, as a member of "models". */
static int add_model(struct arena *a, const struct project *p, const struct model *m,
		     const struct snapshot_input *in, struct buf *out, struct sl_err *err)
{
	json_t *doc = model_doc_project(a, p, m);
	char *text;

	model_doc_columns(doc, columns_of(a, m, in));
	model_doc_checks(doc, p->root, m->fqn);
	if (in->lineage)
		model_doc_lineage(doc, in->lineage, m);
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	if (!text)
		return sl_err_set(err, SL_E_INTERNAL, "model %s's document could not be written",
				  m->fqn);
	add_string(out, m->fqn);
	buf_addch(out, ':');
	buf_adds(out, text);
	free(text);
	return 0;
}

int snapshot_write(struct arena *a, const struct project *p, const struct snapshot_input *in,
		   struct buf *out, struct sl_err *err)
{
	char at[32];
	int rc;

	units_format_ts(in->now_ms, at, sizeof(at));
	buf_adds(out, "{\"sluice\":\"" SLUICE_VERSION "\",\"project\":");
	add_string(out, p->cfg.name ? p->cfg.name : "");
	buf_adds(out, ",\"generated_at\":");
	add_string(out, at);
	buf_adds(out, ",\"dag\":");
	rc = dag_doc_write(p, out, err);
	buf_adds(out, ",\"models\":{");
	for (size_t i = 0; !rc && i < p->nmodels; i++) {
		if (i)
			buf_addch(out, ',');
		rc = add_model(a, p, p->models[i], in, out, err);
	}
	buf_adds(out, "}}");
	return rc;
}
