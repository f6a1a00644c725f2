/*
 * What a model's SQL reads: the placeholders in its text and the base tables
 * in its parse tree, each with its exact place, so that rendering can edit
 * the text at those offsets instead of searching it.
 */
#ifndef SL_PROJECT_REFS_H
#define SL_PROJECT_REFS_H

#include "project/model.h"

struct arena;
struct diag_list;
struct sqlparse;

/* Finds {this}, {watermark}, {watermark:SOURCE}, {since}, {until} and {env}
 * in the body and the filter; a brace word that is close to one of them is
 * reported as a likely typo. */
int refs_scan_placeholders(struct arena *a, struct model *m, struct diag_list *diags);

/* Parses the body (and filter) with the warehouse's parser and records every
 * base table read, skipping CTE names and the model's own name; the
 * model keeps its tree (m->tree) and fills m->tree_hash from it (see
 * model.h), so that the change hash need not parse again. A syntax error
 * becomes a diagnostic at
 * its file:line:col. Needs the placeholders scanned first. Returns 0 or
 * SL_E_PARSE. */
int refs_find(struct sqlparse *parser, struct arena *a, struct model *m,
	      struct diag_list *diags);

/* Parses the SQL of the model's expression and rows: checks, reporting a
 * syntax error at the check's line. Returns 0 or SL_E_PARSE. */
int refs_check_asserts(struct sqlparse *parser, struct model *m, struct diag_list *diags);

/* The aggregate a function of the parse tree names, lowercase ("count" for
 * the parser's count_star), or NULL when it is no aggregate. */
const char *refs_aggregate_name(const char *function_name);

/* The text the parser sees for a model (placeholders masked by same-length
 * stand-ins, filter wrapped around the body); offsets in it are what
 * refs_find. *filter_start is where the filter begins in it (0 without
 * one). Must be freed by the caller. */
char *refs_parse_text(const struct model *m, size_t *filter_start);
/* The model's query alone, each placeholder masked as refs_parse_text
 * masks it (same length, so offsets are the body's); free() it. */
char *refs_masked_body(const struct model *m);

#endif
