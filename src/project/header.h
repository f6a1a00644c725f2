/*
 * Model file headers: the @config, @upstream and @assert directives above a
 * model's query. Splits the file, parses the directives, merges folder
 * defaults from pipeline.yml and checks every key and value. Reports each
 * problem as a diagnostic with file:line; never touches the warehouse.
 */
#ifndef SL_PROJECT_HEADER_H
#define SL_PROJECT_HEADER_H

#include "project/model.h"

struct arena;
struct diag_list;
struct kv_list;

/* Parses m->text (the whole file; m->path names it in diagnostics): fills
 * m->settings, m->asserts, m->upstreams, m->body, m->body_line, m->filter and
 * m->filter_line. Returns 0, or SL_E_PARSE when a problem was recorded. */
int header_parse(struct arena *a, struct model *m, struct diag_list *diags);

/* Adds the folder defaults (a pipeline.yml read from pipeline_path, may be
 * NULL) for every key the model does not set itself, then checks every key
 * and value and fills the typed fields (mat, strategy, unique_key, ...).
 * Returns 0, or SL_E_CONFIG when a problem was recorded. */
int header_apply_settings(struct arena *a, struct model *m, const struct kv_list *defaults,
			  const char *pipeline_path, struct diag_list *diags);

/* The @config keys sluice knows, NULL-terminated. */
extern const char *const header_config_keys[];

#endif
