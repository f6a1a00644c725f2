/*
 * A model's settings: the @config keys it set in its header and those its
 * folder's pipeline.yml sets for it, merged, checked and turned into the
 * typed fields of struct model. Runs after header_parse (header.h); reports
 * each problem as a diagnostic at the line of the file that set the value.
 */
#ifndef SL_PROJECT_SETTINGS_H
#define SL_PROJECT_SETTINGS_H

struct arena;
struct diag_list;
struct kv_list;
struct model;

/* Adds the folder defaults (a pipeline.yml read from pipeline_path, may be
 * NULL) for every key the model does not set itself, then checks every key
 * and value and fills the typed fields (mat, strategy, unique_key, ...).
 * Returns 0, or SL_E_CONFIG when a problem was recorded. */
int header_apply_settings(struct arena *a, struct model *m, const struct kv_list *defaults,
			  const char *pipeline_path, struct diag_list *diags);

/* The @config keys sluice knows, NULL-terminated. */
extern const char *const header_config_keys[];

#endif
