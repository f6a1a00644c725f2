/*
 * Whole-project checks that need every model loaded: the graph (references,
 * cycles) and rules that span models. Findings go to the project's
 * diagnostics; nothing is changed anywhere.
 */
#ifndef SL_PROJECT_VALIDATE_H
#define SL_PROJECT_VALIDATE_H

#include "project/model.h"

/* relations: the warehouse's relations (see dag_build), or NULL to skip the
 * checks that need them. Returns 0 when no error was found. */
int project_validate(struct project *p, const char *const *relations, size_t nrelations);

struct state_env_model;

/* An environment ENV builds schema S into S_ENV, so two names can meet:
 * an env's schema may be a schema of the project (env pr1 of silver is
 * the folder silver_pr1), or another environment's (env a_b of x and env
 * b of x_a are both x_a_b). Adds to p's diagnostics each schema env
 * (NULL or "": the main one) would share with the project or with the
 * environments the warehouse records (recorded: their model rows, the
 * current env's ignored), and each schema of the project where a recorded
 * environment keeps its copies. An env name project_use_env refuses is
 * taken as none. Returns 0 when there is no such schema. */
int project_validate_envs(struct project *p, const char *env,
			  const struct state_env_model *recorded, size_t nrecorded);

#endif
