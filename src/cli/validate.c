/*
 * `sluice validate`: load and check the whole project, report every problem
 * at once. Opens the warehouse read-only, and only to learn which tables
 * exist; changes nothing.
 */
#include "cli/commands.h"


#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "project/bind.h"
#include "project/dag.h"
#include "project/maintain.h"
#include "project/model.h"
#include "state/state.h"
#include "warehouse/sqlbind.h"
#include "warehouse/wh.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* A table no model makes, as the warehouse has it (lowercase names). */
static bool warehouse_table(void *ctx, const char *schema, const char *name, struct wh_column **cols,
			    size_t *n)
{
	struct cli_session *s = ctx;
	struct sl_err err = SL_ERR_INIT;

	return s->wh && wh_table_columns(s->wh, s->arena, schema, name, cols, n, &err) == 0;
}

/* What binding in the warehouse itself knows: its models' rows. */
struct in_place {
	struct cli_session *s;
	struct state_model *rows;
	size_t nrows;
};

static int bind_in_warehouse(void *ctx, struct arena *a, const char *query, long *offset,
			     const char **hint, struct sl_err *err)
{
	struct in_place *ip = ctx;

	return wh_bind(ip->s->wh, a, query, offset, hint, err);
}

/* Whether m's relation is there, built from its definition as it is. */
static bool built_as_is(void *ctx, const struct model *m)
{
	struct in_place *ip = ctx;
	const struct state_model *st = state_models_find(ip->rows, ip->nrows, m->fqn);

	return st && st->hash && strcmp(st->hash, m->recorded_hash) == 0 && st->materialized &&
	       strcmp(st->materialized, model_mat_name(m->mat)) == 0 &&
	       dag_relation_exists(ip->s->relations, ip->s->nrelations, model_relation(m));
}

static bool outside_in_place(void *ctx, const char *schema, const char *name,
			     struct wh_column **cols, size_t *n)
{
	return warehouse_table(((struct in_place *)ctx)->s, schema, name, cols, n);
}

/* Every query bound: on DuckDB in an in-memory binder of the project's
 * tables, on a warehouse that binds by itself against its own tables (a
 * model whose inputs changed since their builds waits for its build). A
 * column, function or type that does not exist is an error at its place.
 * Prints the problems; false when there are any. */
static bool queries_bind(struct cli_session *s, const char *env)
{
	const struct project_cfg *cfg = &s->project->cfg;
	struct sl_err err = SL_ERR_INIT;
	struct diag_list diags;
	struct sqlbind *b;
	size_t n;

	diag_list_init(&diags, s->arena);
	if (cfg->warehouse.type && strcmp(cfg->warehouse.type, "duckdb") != 0) {
		struct in_place ip = { .s = s };

		/* an environment's copies are read under other names */
		if (*env || !s->wh || !wh_binds(s->wh) ||
		    state_models_load(s->wh, s->arena, env, &ip.rows, &ip.nrows, &err))
			return true;
		project_bind_in_place(s->project, bind_in_warehouse, built_as_is, outside_in_place, &ip,
				      &diags);
	} else if (sqlbind_open(&b, &err)) {
		cli_print_err(&err);
		return false;
	} else {
		sqlbind_use_cache(b, arena_sprintf(s->arena, "%s/.sluice/bind-cache", s->root));
		project_bind(s->project, b, warehouse_table, s, &diags);
		sqlbind_close(b);
	}
	n = diag_count(&diags, DIAG_ERROR);
	if (!n)
		return true;
	diag_sort(&diags);
	diag_print(&diags, stderr);
	fprintf(stderr, "sluice: %zu problem%s found; nothing was changed\n", n, n == 1 ? "" : "s");
	return false;
}

int cli_validate(struct cli_args *args)
{
	struct cli_session s;
	size_t models = 0, seeds = 0, warnings;
	int rc = cli_session_open(&s, args, CLI_OPEN_READ, true);

	if (rc)
		return rc;
	if (!queries_bind(&s, args->env ? args->env : "")) {
		cli_session_close(&s);
		return CLI_FAILED;
	}
	for (size_t i = 0; i < s.project->nmodels; i++) {
		if (s.project->models[i]->mat == MAT_SEED)
			seeds++;
		else
			models++;
	}
	warnings = diag_count(&s.project->diags, DIAG_WARNING);
	printf("ok: project %s, %zu model%s, %zu seed%s", s.project->cfg.name, models,
	       models == 1 ? "" : "s", seeds, seeds == 1 ? "" : "s");
	if (warnings)
		printf(", %zu warning%s", warnings, warnings == 1 ? "" : "s");
	printf("\n");
	for (size_t i = 0; i < s.project->nmodels; i++)
		if (s.project->models[i]->maint)
			printf("  %s maintained %s\n", s.project->models[i]->fqn,
			       maintain_describe(s.project->arena, s.project->models[i]));
	cli_session_close(&s);
	return CLI_OK;
}
