/*
 * Model file headers: the @config, @upstream and @assert directives above a
 * model's query. header_parse reads them into struct model; then
 * header_apply_settings (settings.h) merges folder defaults from
 * pipeline.yml and checks every key and value. Reports each problem as a
 * diagnostic with file:line; never touches the warehouse.
 */
#ifndef SL_PROJECT_HEADER_H
#define SL_PROJECT_HEADER_H

#include "project/model.h"
/* callers read a header in both steps through this one include */
#include "project/settings.h"

#include <stdbool.h>

struct arena;
struct diag_list;

/* Parses m->text (the whole file; m->path names it in diagnostics): fills
 * m->settings, m->asserts, m->upstreams, m->body, m->body_line, m->filter and
 * m->filter_line. Returns 0, or SL_E_PARSE when a problem was recorded. */
int header_parse(struct arena *a, struct model *m, struct diag_list *diags);

/*
 * The words and names both steps check against, so that a @config value
 * and an @upstream option get the same hints. Strings returned live in a.
 */

/* "false", "true", NULL: the index is the value. */
extern const char *const header_bool_names[];

/* The index of word in the NULL-terminated choices, or -1. */
int header_choice_index(const char *const *choices, const char *word);

/* "did you mean 'x'? (one of a, b, c)", or the list alone when nothing is
 * close; *guess (may be NULL) gets the near choice or NULL. */
const char *header_choice_hint(struct arena *a, const char *const *choices, const char *word,
			       const char **guess);

/* "did you mean 'PREFIXx'?" for the near choice, or NULL when none is near. */
const char *header_mean_hint(struct arena *a, const char *const *choices, const char *word,
			     const char *prefix);

/*
 * Whether a header may name a column so: letters, digits and underscores,
 * not starting with a digit, as DuckDB and PostgreSQL read a name without
 * quotes (any non-ASCII character of well-formed UTF-8 counts as a letter,
 * as it does for them). Keywords and mixed case are fine: every name from a
 * header is quoted where it is used. Anything else (a dot, a space, a
 * quote, a call) would be SQL, not a name.
 */
bool header_is_column_name(const char *name);

/* How to write a name that header_is_column_name refused: without quotes
 * or a table when that is all that is wrong, else as the query could name
 * it. */
const char *header_column_name_hint(struct arena *a, const char *name);

#endif
