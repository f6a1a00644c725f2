/*
 * The dependency graph of a project: references resolved to the models that
 * produce them, a deterministic dependency order, cycles reported with their
 * path, and selectors (name, schema.*, +model, model+, tag:NAME, a,b).
 */
#ifndef SL_PROJECT_DAG_H
#define SL_PROJECT_DAG_H

#include "project/model.h"

#include <stdbool.h>

struct sl_err;

/* Resolves every reference and @assert relationships target, links
 * deps/children and sorts p->models so that each model comes after what it
 * reads (ties by name). relations, when not NULL, lists the warehouse's
 * existing relations ("schema.name", lowercase, sorted): a reference that is
 * neither a model nor one of them is reported. Problems go to p->diags.
 * Returns 0, or SL_E_CYCLE / SL_E_INVALID when a problem was recorded. */
int dag_build(struct project *p, const char *const *relations, size_t nrelations);

/* Whether fqn ("schema.name", lowercase) is in the sorted relations list. */
bool dag_relation_exists(const char *const *relations, size_t n, const char *fqn);

/* The model a user named: "schema.name", or a bare name that exactly one
 * model has (case-insensitive). NULL when none or several do, with err
 * saying so (SL_E_NOTFOUND with the nearest name as a hint; SL_E_USAGE
 * listing the models a shared bare name could mean). */
struct model *dag_model_named(const struct project *p, const char *name, struct sl_err *err);
/* The declared source named so, by its name or its table's ("landing.NAME",
 * an adopted source's table), with that table in *relation (p's arena);
 * NULL when none. */
const struct source_cfg *dag_source_named(const struct project *p, const char *name,
					  const char **relation);

/* Marks the models a selector picks in selected[] (indexed by m->order).
 * A NULL selector picks everything; an empty one is an error. A term that
 * names no model, or a bare name several schemas have, is an error (see
 * dag_model_named). */
int dag_select(const struct project *p, const char *selector, bool *selected,
	       struct sl_err *err);

#endif
