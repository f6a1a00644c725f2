/*
 * Column lineage across a project: each model's query lineage (lineage.h)
 * in dependency order, the columns of a model it reads known from that
 * model's own lineage (a seed's from its header), those of a table the
 * project does not make from the caller.
 */
#ifndef SL_PROJECT_LINEAGE_GRAPH_H
#define SL_PROJECT_LINEAGE_GRAPH_H

#include "project/lineage.h"
#include "project/model.h"

struct sqlparse;

struct lineage_graph {
	struct project *p;
	struct arena *a;
	/* per model, in p->models' order: its lineage, NULL for a seed or a
	 * query that did not parse */
	struct lineage **of;
	/* per model: a seed's columns, from its header */
	const char *const **seed_cols;
	size_t *nseed_cols;
	lineage_columns_fn outside;
	void *ctx;
};

/* The lineage of every model of p (its references resolved by
 * dag_build); outside(ctx, ...) describes the tables no model makes (NULL:
 * none is known); each model's lineage kept by the parser kept between
 * processes (lineage_kept.h; NULL: found anew). Strings live in a. */
void lineage_graph_build(struct arena *a, struct project *p, struct sqlparse *kept,
			 lineage_columns_fn outside, void *ctx, struct lineage_graph *g);
/* The same for m and the models it reads, directly or not: all that an
 * upstream walk from m looks at. The other models have none. */
void lineage_graph_build_upstream(struct arena *a, struct project *p, struct sqlparse *kept,
				  const struct model *m, lineage_columns_fn outside, void *ctx,
				  struct lineage_graph *g);

/* The model relation ("schema.table") names, or NULL: a source or a table
 * outside the project. */
const struct model *lineage_graph_model(const struct lineage_graph *g, const char *relation);

/* Model m's output column name (any case), or NULL; a model whose * is
 * of a table not known has every column it is asked for, from that *. */
const struct lineage_column *lineage_graph_column(const struct lineage_graph *g,
						  const struct model *m, const char *name);

/* Model m's output columns (a seed's from its header) into *names, and
 * in *open whether it has more than those: one of them is "*", of a
 * table whose columns are not known. False when its query did not
 * parse. */
bool lineage_graph_names(const struct lineage_graph *g, const struct model *m,
			 const char *const **names, size_t *n, bool *open);

/* Whether relation ("schema.table") may change rows it holds, not only
 * gain rows: a model that is rebuilt, merged or replaced by key, or a view
 * over one, or a table the project does not make. Landing tables and
 * append models only gain rows. */
bool lineage_graph_mutable(const struct lineage_graph *g, const char *relation);

/* Whether where m's rows come from is known: it reads a table, or
 * declares an input with @upstream. */
bool lineage_graph_inputs_known(const struct model *m);

/* What an @upstream input of a type other than model names: its path,
 * url, rows or sql as written, or NULL. */
const char *lineage_graph_declared(const struct model_upstream *u);

#endif
