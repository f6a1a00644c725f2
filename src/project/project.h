/*
 * Loading a project folder: sluice.yml, models/SCHEMA/NAME.sql with the
 * folder's pipeline.yml, and the CSV files in seeds/. Loading reads files and parses
 * SQL; it never opens the warehouse.
 */
#ifndef SL_PROJECT_PROJECT_H
#define SL_PROJECT_PROJECT_H

#include "project/model.h"

struct arena;
struct sl_err;
struct sqlparse;

/* The project folder: dir itself when given (it must hold sluice.yml), else
 * the nearest folder upward from the current one that holds sluice.yml.
 * *root is absolute and must be freed by the caller. */
int project_locate(const char *dir, char **root, struct sl_err *err);

/* Loads the project at root into a new struct project allocated in a.
 * Problems in the files go to (*out)->diags, all of them; the return value
 * is 0 even then (check diag_has_errors) unless the project could not be
 * read at all. */
int project_load(struct arena *a, const char *root, struct sqlparse *parser,
		 struct project **out, struct sl_err *err);

/* Computes m->hash over everything that changes the model's data: its
 * parse tree (m->tree_hash) when the query parsed, else its text; on a
 * warehouse that reads SQL with a parser other than sluice's (own_parser
 * false) the query's tokens too. Computes m->text_hash, the form earlier
 * versions recorded, alongside, and m->recorded_hash from both. */
void project_model_hash(struct model *m, bool own_parser);
/* m's change hash (65 bytes into out) as if its tree hashed to tree_hash,
 * without the tokens a warehouse with its own parser adds: what the rest
 * of its definition (settings, the ephemerals it inlines) adds to a part
 * of its query. */
void project_model_hash_with(const struct model *m, const char *tree_hash, char *out);
/* Points every model at its copy in environment env: schema_env.name, so
 * that builds write there and readers of managed models read there (a
 * validated project; names and state rows keep the project's names).
 * SL_E_USAGE for a name that is not lowercase letters, digits and
 * underscores. */
int project_use_env(struct project *p, const char *env, struct sl_err *err);
/* Whether env is a name project_use_env takes. */
bool project_env_name_valid(const char *env);
/* Folds the hashes of the ephemeral models m inlines into m->hash and
 * m->text_hash (their SQL is part of m's) and computes m->checks_hash
 * (their checks run with m's). Call in dependency order, after the graph
 * is built. */
void project_model_hash_inlined(struct model *m);

#endif
