/*
 * A model's document, as the model page of the web UI shows it (GET
 * /api/models/NAME) and `sluice docs` writes it into its snapshot, in
 * parts that come from different places:
 *   - the project's (model_doc_project), from memory: its SQL and
 *     compiled SQL, settings, described columns, declared checks, the
 *     models and sources it reads and those that read it;
 *   - the warehouse's and the folder's (model_doc_history): the columns
 *     with the types its last build made, its builds, profiles with their
 *     anomalies, the last results of its checks;
 *   - the column lineage (model_doc_lineage), where a caller has it.
 * Each part only reads; the project part never touches the warehouse,
 * and the history part needs only the model's name, so a caller may
 * free the project between the two.
 */
#ifndef SL_EXEC_MODELDOC_H
#define SL_EXEC_MODELDOC_H

#include <stddef.h>

struct arena;
struct json_t;
struct lineage_graph;
struct model;
struct project;
struct sl_err;
struct state_model_columns;
struct wh;

/* The history part reads at most this many builds and profiles. */
#define MODEL_DOC_RUNS 50
#define MODEL_DOC_PROFILES 30

/* The project's facts of m (a model or seed of p), a new reference:
 * {"name", "schema", "kind" (model or seed), "materialized", "strategy",
 * "live", "temporal", "path", "description", "tags", "unique_key",
 * "config" [{"key", "value", "line", "pipeline"}], "text" (the file),
 * "sql" (its query), "sql_line", "compiled" (compile.h, without the
 * warehouse: every watermark 0) or null with "compile_error", "columns"
 * [{"name", "type": null, "description"}] (the described ones, @column),
 * "checks" [{"check", "severity", "line", "failures": null, "sample":
 * null}], "inputs" [{"name", "kind"}] (models, seeds, sources and
 * tables outside the project it reads), "readers" [{"name", "kind"}],
 * "declared_inputs" [{"name", "type", "where"}] (@upstream inputs that
 * are no model), "lineage": null}. Scratch in a. */
struct json_t *model_doc_project(struct arena *a, const struct project *p, const struct model *m);

/* Adds to doc (model_doc_project's, for the model named model) what the
 * warehouse w keeps of it in the main environment and the folder root
 * its last checks' results: "columns" become the ones its last build made
 * (with their types, each with its description, then any described
 * column the table lacks, with "in_table": false) when there are any;
 * "built" {"last_built_at", "build_count"} or null; "runs" [{"run_id",
 * "env", "run_type", "status", "started_at", "finished_at",
 * "duration_ms", "rows", "message"}] newest first; "profiles" (as
 * exec/profile_json.h writes them) newest first; "checked" {"checked_at",
 * "run_id", "window", "in"} or null, and each check's "failures" and
 * "sample" when the last results have it. w may be NULL: only the folder
 * is read. Scratch in a. */
int model_doc_history(struct wh *w, struct arena *a, const char *root, const char *model,
		      struct json_t *doc, struct sl_err *err);

/* The two parts of model_doc_history that need no warehouse connection
 * of their own, for a caller that read every model's columns at once
 * (state_columns_read): "columns" from mc (NULL or none: unchanged; a
 * column's type may be NULL: not known), and
 * "checked" with each check's last result from the folder root. */
void model_doc_columns(struct json_t *doc, const struct state_model_columns *mc);
void model_doc_checks(struct json_t *doc, const char *root, const char *model);

/* Sets doc's "lineage": {"COLUMN": [{"relation", "column", "kind"}]}, the
 * columns each of its columns is made from, one step up (g holds m's
 * lineage); null when m's query did not parse. */
void model_doc_lineage(struct json_t *doc, const struct lineage_graph *g, const struct model *m);

#endif
