/*
 * What the loader of sluice.yml (config.c) and the checks of its sources:
 * section (config_sources.c) share: the loader, the key tables' shape and
 * the walk over a mapping. Nothing else includes it.
 */
#ifndef SL_PROJECT_CONFIG_INT_H
#define SL_PROJECT_CONFIG_INT_H

#include "project/config.h"

#include "core/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#define CFG_MAX_KEYS 32
#define CFG_HINT_MAX 256

struct cfg_loader {
	struct arena *a;
	struct diag_list *diags;
	const char *display;
	yaml_document_t doc; /* owned by the loader once cfg_doc_load succeeded */
};

/* libyaml marks are 0-based; diagnostics are 1-based. */
#define cfg_error(ld, node, hint, ...)                                                   \
	diag_add((ld)->diags, DIAG_ERROR, (ld)->display, (int)(node)->start_mark.line + 1, \
		 (int)(node)->start_mark.column + 1, hint, __VA_ARGS__)

enum cfg_kind {
	CFG_STR,
	CFG_CHOICE,   /* one of field->choices */
	CFG_DURATION, /* int64_t milliseconds */
	CFG_SIZE,     /* int64_t bytes */
	CFG_COUNT,    /* int64_t, positive */
	CFG_BOOL,
	CFG_POLICY,   /* full | bounded-DURATION */
	CFG_SECTION,  /* a mapping described by field->sub, same base */
	CFG_SOURCES,  /* base is a struct project_cfg */
	CFG_COLUMNS,  /* base is a struct source_cfg */
	CFG_HEADERS,  /* base is a struct source_cfg */
};

/* One valid key of a mapping; off is where its value goes, counted from the
 * base pointer the table is walked with. A duration or size whose 0 means
 * nothing useful (a runner that never sleeps, a retry without a pause)
 * says why in zero, the hint that refuses it; the others take 0 as "none"
 * or "at once", as docs/project.md lists. */
struct cfg_field {
	const char *key;
	enum cfg_kind kind;
	size_t off;
	const char *const *choices;
	const struct cfg_field *sub;
	const char *zero;
};

/* "parent.key" (or key at the top) in the loader's arena. */
const char *cfg_path(struct cfg_loader *ld, const char *parent, const char *key);
/* YAML's null (an empty value, ~ or null): "not set". */
bool cfg_is_null(const yaml_node_t *n);
/* The node at index of the loaded document. */
yaml_node_t *cfg_node(struct cfg_loader *ld, int index);
/* The pair of map whose key is name, or NULL. */
yaml_node_pair_t *cfg_map_pair(struct cfg_loader *ld, yaml_node_t *map, const char *name);
/* Whether map has name with a value that is not null. */
bool cfg_map_has(struct cfg_loader *ld, yaml_node_t *map, const char *name);
/* The key of pair as text, or NULL once reported: a key must be a plain
 * name, and only the first of two equal keys counts. */
const char *cfg_pair_key(struct cfg_loader *ld, yaml_node_t *map, yaml_node_pair_t *pair,
			 const char *parent);
/* The scalar text of val, or NULL (said) when it is not a scalar. */
const char *cfg_scalar(struct cfg_loader *ld, yaml_node_t *val, const char *path);
/* Whether val is a mapping; says so when it is not. */
bool cfg_want_map(struct cfg_loader *ld, yaml_node_t *val, const char *path);
/* The field of fields called key, or NULL. */
const struct cfg_field *cfg_field_find(const struct cfg_field *fields, const char *key);
/* Every key of map checked against fields and its value stored at the
 * field's offset from base; unknown keys are said with the nearest. */
void cfg_map_walk(struct cfg_loader *ld, yaml_node_t *map, const char *parent,
		  const struct cfg_field *fields, void *base);
/* How many pairs map holds. */
size_t cfg_map_len(const yaml_node_t *map);
/* The typed columns of a source at path (config_sources.c). */
void cfg_columns_load(struct cfg_loader *ld, yaml_node_t *map, const char *path,
		      struct source_cfg *src);
/* The request headers of a poll source at path (config_sources.c). */
void cfg_headers_load(struct cfg_loader *ld, yaml_node_t *map, const char *path,
		      struct source_cfg *src);
/* The sources: mapping, each source checked for its kind, and the slots
 * they share (config_sources.c). */
void cfg_sources_load(struct cfg_loader *ld, yaml_node_t *map, struct project_cfg *cfg);

#endif
