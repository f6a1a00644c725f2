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

#endif
