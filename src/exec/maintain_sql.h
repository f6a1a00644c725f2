/*
 * Inside src/exec/ only: what the refreshes of maintained models share
 * (maintain.c, maintain_counted.c): one refresh's context, the names of
 * its temporary tables, and the pieces of SQL they all write.
 */
#ifndef SL_EXEC_MAINTAIN_SQL_H
#define SL_EXEC_MAINTAIN_SQL_H

#include "core/buf.h"
#include "exec/render.h"
#include "project/maintain.h"

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct changes;
struct sl_err;
struct wh;

#define DELTA "_sluice_delta"
#define NEXT "_sluice_next"
#define BATCH "_sluice_batch"

/* One refresh (or build) of a maintained model. */
struct refresh {
	struct wh *w;
	struct arena *a;
	const struct model *m;
	const struct maint *mt;
	const struct render_ctx *ctx;
	int64_t since;      /* the input's watermark: what is above it is new */
	const char *cols;   /* the change log's columns but its weight */
	bool nullsafe;      /* some key of the batch is NULL */
	struct buf sql;
	/* a refresh shown, not run: its statements go here, and every count
	 * it asks is 1 */
	struct buf *dry;
	/* a counted model's groups table as the catalog has it (none: a
	 * model whose sums are of floating-point values keeps none) */
	struct wh_column *gcols;
	size_t ngcols;
};

/* Runs (and empties) r->sql: a statement, its rows counted into *rows
 * (may be NULL), or a query of one row of n integers (each 1 when only
 * shown). */
int maint_run(struct refresh *r, int64_t *rows, struct sl_err *err);
int maint_query_ints(struct refresh *r, int64_t *out, size_t n, struct sl_err *err);

/* Appends the model's table, or its groups table. */
void maint_add_model(struct buf *b, const struct model *m);
void maint_add_groups(struct buf *b, const struct model *m);

/* The output keys, each qualified by alias when there is one. */
void maint_add_keys(struct buf *b, const struct maint *mt, const char *alias);

/* Rows l and r have the same keys; TRUE for a model of one group. */
void maint_add_match(struct buf *b, const struct refresh *r, const char *l, const char *rr);

/* " GROUP BY keys", or nothing for a model of one group. */
void maint_add_group_by(struct buf *b, const struct maint *mt);

/* The plan keeps a groups table. */
bool maint_counts(const struct maint *mt);

/* GROUP BY and aggregates: the select list is edited to show keys alone. */
bool maint_grouped(const struct maint *mt);

/* The input's relation, as the model reads it, or the query read in its
 * place (render_read_of), which the caller gives an alias. */
void maint_add_input(struct buf *b, const struct refresh *r);

/* The text that takes the place of the input's reference: the query q
 * under the name the reference gave the input. */
const char *maint_in_place_of_input(const struct refresh *r, const char *q);

/* The input's rows that changed, in place of its reference: the new ones
 * (weight 1), the old ones (-1), or both (0), each with its _sluice_weight
 * (an appending input's rows are all new, and have none). */
const char *maint_changed_rows(const struct refresh *r, int weight);

/* The select list with every item that is no key replaced by NULL (under
 * its alias, so that what names it still binds), then extra. */
const char *maint_keys_list(const struct refresh *r, const char *extra);

/* The edit that replaces the whole select list. */
struct render_edit maint_list_edit(const struct refresh *r, const char *with);

/* The edit that puts rows in place of the input's reference. */
struct render_edit maint_input_edit(const struct refresh *r, const char *rows);

/* Whether the refresh reads old rows too: the input rewrites rows. */
bool maint_has_old(const struct refresh *r);

/* Counts the batch's rows (*n) and whether any has a NULL key. */
int maint_batch_facts(struct refresh *r, int64_t *n, struct sl_err *err);

/* Deletes the rows of table (the model's, or its groups) whose keys are
 * the batch's. */
int maint_delete_batch_keys(struct refresh *r, bool groups, struct sl_err *err);

/* Records in log (when not NULL) the model's rows of the batch's keys. */
int maint_record(struct refresh *r, const struct changes *log, int weight, struct sl_err *err);

/* Makes the temporary table name hold the rows of query. */
int maint_temp_table(struct refresh *r, const char *name, const char *query, struct sl_err *err);

/* Drops a temporary table of the refresh, and also another (may be NULL),
 * in one round trip. */
int maint_drop_temp(struct refresh *r, const char *name, const char *also, struct sl_err *err);

/* A refresh of m in ctx, over w, its strings in a. */
void maint_refresh_init(struct refresh *r, struct wh *w, struct arena *a, const struct model *m,
			 const struct render_ctx *ctx);

/* maintain_counted.c: the groups table's columns into r->gcols (none
 * when it is not there; shown, not run: none); a counted refresh; the
 * groups table anew from the whole input (fresh: made anew, else its rows
 * replaced; a model whose sums are of floating-point values keeps none,
 * as adding and taking them away drifts in the last digits); the model's
 * rows all written anew from its groups. */
int maint_groups_columns(struct refresh *r, struct sl_err *err);
int maint_refresh_counted(struct refresh *r, const struct changes *log, int64_t *rows,
			  struct sl_err *err);
int maint_build_groups(struct refresh *r, bool fresh, struct sl_err *err);
int maint_finish_whole(struct refresh *r, int64_t *rows, struct sl_err *err);
/* A counted model's rows finished from its groups table (r->gcols read),
 * under the names and types of cols, the model query's own, into out;
 * false, writing nothing, for a model that keeps no groups table. */
bool maint_from_groups(struct refresh *r, const struct wh_column *cols, size_t ncols,
		       struct buf *out);

#endif
