/*
 * A query's lineage kept between processes in the parser's derived cache
 * (.sluice/derived-cache): found once for a text, it is taken again while
 * every relation the query reads has the columns it had then, so that a
 * project's lineage after one edit is worked out for that model alone.
 */
#ifndef SL_PROJECT_LINEAGE_KEPT_H
#define SL_PROJECT_LINEAGE_KEPT_H

#include "project/lineage.h"

struct sqlparse;

/* lineage_query's contract, the lineage kept by kept (NULL: none kept,
 * found every time). */
int lineage_query_kept(struct sqlparse *kept, struct arena *a, const char *tree, const char *text,
		       bool unwrap, lineage_columns_fn columns, void *ctx, struct lineage *out);

#endif
