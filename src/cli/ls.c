/*
 * `sluice ls`: the selected models in dependency order, as text or JSON.
 */
#include "cli/commands.h"

#include "core/err.h"
#include "core/xalloc.h"
#include "project/dag.h"
#include "project/model.h"

#include <jansson.h>
#include <stdlib.h>

static json_t *model_json(const struct model *m)
{
	json_t *o = json_object(), *deps = json_array(), *tags = json_array();

	json_object_set_new(o, "name", json_string(m->fqn));
	json_object_set_new(o, "path", json_string(m->path));
	json_object_set_new(o, "materialized", json_string(model_mat_name(m->mat)));
	if (m->strategy != STRAT_NONE)
		json_object_set_new(o, "incremental_strategy",
				    json_string(model_strategy_name(m->strategy)));
	json_object_set_new(o, "live", json_boolean(m->live));
	for (size_t i = 0; i < m->ndeps; i++)
		json_array_append_new(deps, json_string(m->deps[i]->fqn));
	for (size_t i = 0; i < m->ntags; i++)
		json_array_append_new(tags, json_string(m->tags[i]));
	json_object_set_new(o, "depends_on", deps);
	json_object_set_new(o, "tags", tags);
	json_object_set_new(o, "description",
			    m->description ? json_string(m->description) : json_null());
	json_object_set_new(o, "hash", json_string(m->hash));
	return o;
}

int cli_ls(struct cli_args *args)
{
	struct cli_session s;
	struct sl_err err = SL_ERR_INIT;
	bool *selected;
	json_t *arr = NULL;
	int rc = cli_session_open(&s, args, CLI_OPEN_NONE, true);

	if (rc)
		return rc;
	selected = xcalloc(s.project->nmodels + 1, sizeof(bool));
	rc = dag_select(s.project, args->select, selected, &err);
	if (rc) {
		cli_print_err(&err);
		free(selected);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (args->json)
		arr = json_array();
	for (size_t i = 0; i < s.project->nmodels; i++) {
		const struct model *m = s.project->models[i];

		if (!selected[i])
			continue;
		if (arr)
			json_array_append_new(arr, model_json(m));
		else if (m->description)
			printf("%-36s %-12s %-40s %s\n", m->fqn, model_mat_name(m->mat), m->path,
			       m->description);
		else
			printf("%-36s %-12s %s\n", m->fqn, model_mat_name(m->mat), m->path);
	}
	if (arr) {
		json_dumpf(arr, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(arr);
	}
	free(selected);
	cli_session_close(&s);
	return CLI_OK;
}
