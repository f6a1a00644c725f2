/*
 * `sluice dag`: the dependency graph, as an indented text listing of each
 * model with what it reads, or as Graphviz DOT with --dot.
 */
#include "cli/commands.h"

#include "project/model.h"

static const char *dot_shape(const struct model *m)
{
	switch (m->mat) {
	case MAT_VIEW:
		return "ellipse";
	case MAT_EPHEMERAL:
		return "plaintext";
	case MAT_SEED:
		return "cylinder";
	default:
		return "box";
	}
}

static void print_dot(const struct project *p)
{
	printf("digraph \"%s\" {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n",
	       p->cfg.name);
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];

		printf("  \"%s\" [shape=%s, label=\"%s\\n%s\"];\n", m->fqn, dot_shape(m), m->fqn,
		       model_mat_name(m->mat));
	}
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];

		for (size_t k = 0; k < m->ndeps; k++)
			printf("  \"%s\" -> \"%s\";\n", m->deps[k]->fqn, m->fqn);
		for (size_t k = 0; k < m->nrefs; k++)
			if (!m->refs[k].target)
				printf("  \"%s.%s\" [shape=note, style=dashed];\n"
				       "  \"%s.%s\" -> \"%s\";\n",
				       m->refs[k].schema, m->refs[k].name, m->refs[k].schema,
				       m->refs[k].name, m->fqn);
	}
	printf("}\n");
}

static void print_text(const struct project *p)
{
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];

		printf("%s (%s)\n", m->fqn, model_mat_name(m->mat));
		for (size_t k = 0; k < m->ndeps; k++)
			printf("  <- %s\n", m->deps[k]->fqn);
		for (size_t k = 0; k < m->nrefs; k++)
			if (!m->refs[k].target)
				printf("  <- %s.%s (outside the project)\n", m->refs[k].schema,
				       m->refs[k].name);
	}
}

int cli_dag(struct cli_args *args)
{
	struct cli_session s;
	int rc = cli_session_open(&s, args, CLI_OPEN_NONE, true);

	if (rc)
		return rc;
	if (args->dot)
		print_dot(s.project);
	else
		print_text(s.project);
	cli_session_close(&s);
	return CLI_OK;
}
