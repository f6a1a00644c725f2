/*
 * What the loaders of sluice.yml share: config.c (the top-level tables,
 * the document, the checks across sections), config_sources.c (the
 * sources: section) and config_walk.c (the walk of a mapping against a
 * key table, which both drive): the loader and the tables' shape. Nothing
 * else includes it.
 */
#ifndef SL_PROJECT_CONFIG_INT_H
#define SL_PROJECT_CONFIG_INT_H

#include "project/config.h"

#include "core/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#define CFG_MAX_KEYS 48
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
	CFG_NATURAL,  /* int64_t, 0 or more */
	CFG_BOOL,
	CFG_POLICY,   /* full | bounded-DURATION */
	CFG_SECTION,  /* a mapping described by field->sub, same base */
	CFG_MAP,      /* a mapping read by field->load, same base */
	CFG_NODE,     /* a value of any shape read by field->load, same base */
};

/* One valid key of a mapping; off is where its value goes, counted from the
 * base pointer the table is walked with. A duration or size whose 0 means
 * nothing useful (a runner that never sleeps, a retry without a pause)
 * says why in zero, the hint that refuses it; the others take 0 as "none"
 * or "at once", as docs/project.md lists. */
typedef void (*cfg_load_fn)(struct cfg_loader *ld, yaml_node_t *map, const char *path,
			    void *base);

struct cfg_field {
	const char *key;
	enum cfg_kind kind;
	size_t off;
	const char *const *choices;
	const struct cfg_field *sub;
	const char *zero;
	cfg_load_fn load;
};

/* config_walk.c: */

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
/* "a mapping", "a list" or "a scalar", for messages. */
const char *cfg_node_what(const yaml_node_t *n);

/* config_sources.c, as loaders of CFG_MAP fields: the sources: mapping,
 * each source checked for its kind, and the slots they share (base: a
 * struct project_cfg); a source's typed columns, a poll source's request
 * headers and a kafka source's properties (base: a struct source_cfg);
 * and of a CFG_NODE field, a kafka source's topic or list of topics. */
void cfg_sources_load(struct cfg_loader *ld, yaml_node_t *map, const char *path, void *base);
void cfg_columns_load(struct cfg_loader *ld, yaml_node_t *map, const char *path, void *base);
void cfg_headers_load(struct cfg_loader *ld, yaml_node_t *map, const char *path, void *base);
void cfg_properties_load(struct cfg_loader *ld, yaml_node_t *map, const char *path, void *base);
void cfg_topics_load(struct cfg_loader *ld, yaml_node_t *val, const char *path, void *base);

#endif
