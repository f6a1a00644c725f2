/*
 * `sluice validate`: load and check the whole project, report every problem
 * at once. Opens the warehouse read-only, and only to learn which tables
 * exist; changes nothing.
 */
#include "cli/commands.h"

#include "core/diag.h"
#include "project/maintain.h"
#include "project/model.h"

int cli_validate(struct cli_args *args)
{
	struct cli_session s;
	size_t models = 0, seeds = 0, warnings;
	int rc = cli_session_open(&s, args, CLI_OPEN_READ, true);

	if (rc)
		return rc;
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
