/*
 * The shape of a model's query: what decides its rows (everything but the
 * select list, with the rest of its definition) and each output column's
 * expression, each as a digest, so that two versions of a model tell which
 * of its columns a change touched. A build records it; a plan compares it
 * with the model as it is now.
 */
#ifndef SL_PROJECT_SHAPE_H
#define SL_PROJECT_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct model;

struct shape_col {
	const char *name; /* lowercase, as the query names the column */
	const char *hash;
};

struct model_shape {
	/* FROM, WHERE, GROUP BY, HAVING, DISTINCT, ORDER BY, LIMIT, WITH, a set
	 * operation's every part, the settings and inlined ephemerals */
	char rows[65];
	/* a function whose values change with each run (now(), random()):
	 * building the query again changes more than its definition did */
	bool varies;
	struct shape_col *cols;
	size_t ncols, cols_cap;
};

/* The shape of m's query; false when it has no parse tree. Strings in a. */
bool shape_of(struct arena *a, const struct model *m, struct model_shape *out);

/* The text a state row holds, and back (false for text that is no shape). */
const char *shape_format(struct arena *a, const struct model_shape *s);
bool shape_parse(struct arena *a, const char *text, struct model_shape *out);

/* A column's name in such text (';', '=', '@' and '%' as %XX), and back
 * from its len bytes at s. */
struct buf;
void shape_add_name(struct buf *b, const char *name);
char *shape_name(struct arena *a, const char *s, size_t len);

/* What a change of a model's query did: changed what decides its rows
 * (every column breaks), or the columns whose expression changed, that
 * went, that came; lists in a. */
struct shape_diff {
	bool rows;
	bool varies; /* the query as it is now varies from run to run */
	const char **changed, **removed, **added;
	size_t nchanged, nremoved, nadded;
};
void shape_compare(struct arena *a, const struct model_shape *was, const struct model_shape *now,
		   struct shape_diff *d);

/* Whether the diff touches column name (any case): changed, removed or
 * added, or every column. */
bool shape_diff_touches(const struct shape_diff *d, const char *name);

#endif
