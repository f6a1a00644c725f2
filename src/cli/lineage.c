/*
 * `sluice lineage MODEL[.COLUMN]`: where each output column of a model
 * comes from, step by step through the models it reads up to sources and
 * seeds (--upstream, the default), or which columns of which models read
 * it (--downstream); as indented text, as JSON in the shape of
 * OpenLineage's columnLineage facet, or as Graphviz DOT. Opens the
 * warehouse read-only, only to learn the columns of the tables no model
 * makes.
 */
#include "cli/commands.h"

#include "core/arena.h"
#include "core/err.h"
#include "project/dag.h"
#include "project/lineage_graph.h"
#include "state/columns.h"
#include "warehouse/wh.h"
#include "windows/grid.h"

#include <ctype.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRODUCER "urn:sluice:" SLUICE_VERSION
#define RUN_EVENT_SCHEMA "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
#define SCHEMA_FACET "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json"
#define COLUMN_FACET "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"

/* Past this many steps a walk stops: a graph has no cycles, so only a
 * project of that depth is cut short. */
#define DEPTH_MAX 64

struct show {
	struct cli_session *s;
	struct lineage_graph g;
	int depth;
	bool down;
	/* JSON: the models walked */
	json_t *json;
	bool dot;
	/* the columns whose steps are shown already ("model.column"): a
	 * column many others read is walked once, else a project's walk
	 * grows with the number of its paths */
	json_t *seen;
};

/* Whether model.column's steps are shown already; marks them so. */
static bool seen(struct show *sh, const char *model, const char *column)
{
	char *key = arena_sprintf(sh->s->arena, "%s.%s", model, column);

	if (json_object_get(sh->seen, key))
		return true;
	json_object_set_new(sh->seen, key, json_true());
	return false;
}

/* One step; again: the column it reaches is walked elsewhere. */
static void step(struct show *sh, const char *from_rel, const char *from_col, const char *to_rel,
		 const char *to_col, enum lineage_kind kind, int indent, const char *shown_rel,
		 const char *shown_col, bool again)
{
	if (sh->dot)
		printf("  \"%s.%s\" -> \"%s.%s\" [label=\"%s\"];\n", from_rel, from_col, to_rel, to_col,
		       lineage_kind_name(kind));
	else if (!sh->json)
		printf("%*s%-15s %s.%s%s\n", indent, "", lineage_kind_name(kind), shown_rel, shown_col,
		       again ? " (above)" : "");
}

static void model_json(struct show *sh, const struct model *m);

static void up(struct show *sh, const struct model *m, const struct lineage_column *c, int indent,
	       int depth)
{
	for (size_t i = 0; i < c->ninputs; i++) {
		const struct lineage_input *in = &c->inputs[i];
		const struct model *u = lineage_graph_model(&sh->g, in->relation);
		const struct lineage_column *uc = u ? lineage_graph_column(&sh->g, u, in->column) : NULL;
		bool again = uc && depth > 1 && seen(sh, u->fqn, uc->name);

		step(sh, in->relation, in->column, m->fqn, c->name, in->kind, indent, in->relation,
		     in->column, again);
		if (u && sh->json)
			model_json(sh, u);
		if (uc && depth > 1 && !again)
			up(sh, u, uc, indent + 2, depth - 1);
	}
}

static void down(struct show *sh, const char *relation, const char *column, int indent, int depth)
{
	const struct project *p = sh->g.p;

	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		const struct lineage *l = sh->g.of[i];

		for (size_t k = 0; l && k < l->ncols; k++) {
			const struct lineage_column *c = &l->cols[k];

			for (size_t j = 0; j < c->ninputs; j++) {
				const struct lineage_input *in = &c->inputs[j];

				bool again;

				if (strcmp(in->relation, relation) != 0 || strcmp(in->column, column) != 0)
					continue;
				again = depth > 1 && seen(sh, m->fqn, c->name);
				step(sh, relation, column, m->fqn, c->name, in->kind, indent, m->fqn, c->name,
				     again);
				if (sh->json)
					model_json(sh, m);
				if (depth > 1 && !again)
					down(sh, m->fqn, c->name, indent + 2, depth - 1);
			}
		}
	}
}

/* The columnLineage facet's fields of one model's lineage. */
static json_t *facet_fields(const char *ns, const struct lineage *l)
{
	json_t *fields = json_object();

	for (size_t i = 0; l && i < l->ncols; i++) {
		json_t *inputs = json_array();

		for (size_t k = 0; k < l->cols[i].ninputs; k++) {
			const struct lineage_input *in = &l->cols[i].inputs[k];

			json_array_append_new(
				inputs,
				json_pack("{s:s, s:s, s:s, s:[{s:s, s:s}]}", "namespace", ns, "name",
					  in->relation, "field", in->column, "transformations", "type",
					  lineage_kind_direct(in->kind) ? "DIRECT" : "INDIRECT",
					  "subtype", lineage_kind_name(in->kind)));
		}
		json_object_set_new(fields, l->cols[i].name, json_pack("{s:o}", "inputFields", inputs));
	}
	return fields;
}

static const char *namespace_of(struct show *sh)
{
	return arena_sprintf(sh->s->arena, "sluice://%s", sh->g.p->cfg.name);
}

/* The inputs m declares with @upstream that are no model: a file, an
 * api, a hardcoded input. */
static json_t *declared_json(const struct model *m)
{
	json_t *out = json_array();

	for (size_t i = 0; i < m->nupstreams; i++) {
		const struct model_upstream *u = &m->upstreams[i];
		const char *where = lineage_graph_declared(u);

		if (where)
			json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "name", u->name, "type",
							     u->type, "where", where));
	}
	return out;
}

/* The model's inputs that no query shows: declared ones, or none at all. */
static void print_provenance(const struct model *m, const char *indent)
{
	for (size_t i = 0; i < m->nupstreams; i++) {
		const char *where = lineage_graph_declared(&m->upstreams[i]);

		if (where)
			printf("%sdeclared: %s (%s) %s\n", indent, m->upstreams[i].name,
			       m->upstreams[i].type, where);
	}
	if (!lineage_graph_inputs_known(m))
		printf("%sprovenance unknown: it reads no table and declares no input (@upstream)\n",
		       indent);
}

/* sluice lineage --audit: the models whose rows come from what sluice
 * cannot follow: unknown provenance, declared files, apis and hardcoded
 * inputs, and what each query's lineage does not see through. */
static int audit(struct show *sh)
{
	const struct project *p = sh->g.p;
	json_t *out = json_array();
	size_t shown = 0;

	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		const struct lineage *l = sh->g.of[i];
		json_t *declared = declared_json(m), *unknown = json_array();
		bool known = lineage_graph_inputs_known(m);

		for (size_t k = 0; l && k < l->nunknown; k++)
			json_array_append_new(unknown, json_string(l->unknown[k].why));
		if (known && !json_array_size(declared) && !json_array_size(unknown)) {
			json_decref(declared);
			json_decref(unknown);
			continue;
		}
		shown++;
		if (!sh->json) {
			printf("%s (%s)\n", m->fqn, m->path);
			print_provenance(m, "  ");
			for (size_t k = 0; l && k < l->nunknown; k++)
				printf("  not followed: %s\n", l->unknown[k].why);
		}
		json_array_append_new(out, json_pack("{s:s, s:s, s:b, s:o, s:o}", "model", m->fqn, "path",
						     m->path, "inputs_known", known, "declared_inputs",
						     declared, "not_followed", unknown));
	}
	if (sh->json) {
		char *text = json_dumps(out, JSON_INDENT(2));

		printf("%s\n", text);
		free(text);
	} else if (!shown) {
		printf("every model's rows come from tables sluice follows\n");
	}
	json_decref(out);
	return CLI_OK;
}

/* How the query of l reads each relation, and whether that relation
 * changes rows or only gains them. */
static json_t *edges_json(const struct show *sh, const struct lineage *l)
{
	json_t *out = json_array();

	for (size_t i = 0; l && i < l->nedges; i++) {
		const struct lineage_edge *e = &l->edges[i];
		json_t *o = json_pack("{s:s, s:s, s:b}", "input", e->relation, "type",
				      lineage_edge_name(e->type), "mutable",
				      lineage_graph_mutable(&sh->g, e->relation));

		if (e->why)
			json_object_set_new(o, "why", json_string(e->why));
		json_array_append_new(out, o);
	}
	return out;
}

/* sluice lineage [MODEL] --edges: each input of each model (or of only),
 * typed. */
static int edges(struct show *sh, const struct model *only)
{
	const struct project *p = sh->g.p;
	json_t *out = json_array();
	int wm = 5, wi = 5;

	for (size_t i = 0; i < p->nmodels; i++) {
		const struct lineage *l = sh->g.of[i];

		if (only && p->models[i] != only)
			continue;
		for (size_t k = 0; l && k < l->nedges; k++) {
			int lm = (int)strlen(p->models[i]->fqn), li = (int)strlen(l->edges[k].relation);

			wm = lm > wm ? lm : wm;
			wi = li > wi ? li : wi;
		}
	}
	if (!sh->json)
		printf("%-*s  %-*s  %-7s  %-7s  WHY\n", wm, "MODEL", wi, "INPUT", "EDGE", "INPUT");
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		const struct lineage *l = sh->g.of[i];

		if ((only && m != only) || !l)
			continue;
		if (sh->json) {
			json_array_append_new(out, json_pack("{s:s, s:o}", "model", m->fqn, "edges",
							     edges_json(sh, l)));
			continue;
		}
		for (size_t k = 0; k < l->nedges; k++) {
			const struct lineage_edge *e = &l->edges[k];

			printf("%-*s  %-*s  %-7s  %s%s%s\n", wm, m->fqn, wi, e->relation,
			       lineage_edge_name(e->type),
			       lineage_graph_mutable(&sh->g, e->relation) ? "mutable" : "appends",
			       e->why ? "  " : "", e->why ? e->why : "");
		}
	}
	if (sh->json) {
		char *text = json_dumps(out, JSON_INDENT(2));

		printf("%s\n", text);
		free(text);
	}
	json_decref(out);
	return CLI_OK;
}

/* One model as OpenLineage's columnLineage facet shows it, once. */
static void model_json(struct show *sh, const struct model *m)
{
	const struct lineage *l = sh->g.of[m->order];
	const char *ns = namespace_of(sh);
	json_t *unknown;

	if (json_object_get(sh->json, m->fqn))
		return;
	unknown = json_array();
	for (size_t i = 0; l && i < l->nunknown; i++) {
		int line = m->body_line, col = 0;

		if (l->unknown[i].offset >= 0)
			model_span_position(m, PART_BODY, (size_t)l->unknown[i].offset, &line, &col);
		json_array_append_new(unknown, json_pack("{s:s, s:s}", "reason", l->unknown[i].why, "at",
							 arena_sprintf(sh->s->arena, "%s:%d:%d",
								       m->path, line, col)));
	}
	json_object_set_new(sh->json, m->fqn,
			    json_pack("{s:s, s:s, s:{s:o}, s:o, s:o, s:b, s:o}", "namespace", ns, "name",
				      m->fqn, "columnLineage", "fields", facet_fields(ns, l), "edges",
				      edges_json(sh, l), "unknown", unknown, "inputs_known",
				      lineage_graph_inputs_known(m), "declared_inputs",
				      declared_json(m)));
}

/* A run's id in OpenLineage is a UUID: one of the project's and the
 * model's names, so that the same export names the same runs. */
static const char *run_id(struct show *sh, const struct model *m)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	const char *name = arena_sprintf(sh->s->arena, "%s/%s", sh->g.p->cfg.name, m->fqn);

	EVP_Digest(name, strlen(name), md, &len, EVP_sha256(), NULL);
	md[6] = (unsigned char)((md[6] & 0x0f) | 0x50);
	md[8] = (unsigned char)((md[8] & 0x3f) | 0x80);
	return arena_sprintf(sh->s->arena,
			     "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			     md[0], md[1], md[2], md[3], md[4], md[5], md[6], md[7], md[8], md[9],
			     md[10], md[11], md[12], md[13], md[14], md[15]);
}

/* The schema facet: the model's columns, with the types its last build
 * recorded when there is one. */
static json_t *schema_fields(struct show *sh, const struct model *m,
			     const struct state_model_columns *built, size_t nbuilt)
{
	const struct state_model_columns *b = state_columns_find(built, nbuilt, m->fqn);
	const struct lineage *l = sh->g.of[m->order];
	json_t *fields = json_array();

	for (size_t i = 0; b && i < b->n; i++)
		json_array_append_new(fields, json_pack("{s:s, s:s}", "name", b->cols[i].name, "type",
							b->cols[i].type));
	for (size_t i = 0; !b && l && i < l->ncols; i++)
		json_array_append_new(fields, json_pack("{s:s}", "name", l->cols[i].name));
	return fields;
}

/* One OpenLineage run event per model with a query, a line each. */
static int openlineage(struct show *sh)
{
	const struct project *p = sh->g.p;
	const char *ns = namespace_of(sh);
	struct state_model_columns *built = NULL;
	struct sl_err err = SL_ERR_INIT;
	char when[WIN_TIME_MAX];
	int64_t now = cli_window_clock("lineage");
	size_t nbuilt = 0;

	if (now < 0)
		return CLI_USAGE;
	/* types come from the last builds; a warehouse without them has none */
	if (sh->s->wh && state_columns_read(sh->s->wh, sh->s->arena, "", &built, &nbuilt, &err))
		nbuilt = 0;
	win_time_format(now, when);
	when[10] = 'T';
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		json_t *inputs, *event;
		char *text;

		if (!sh->g.of[i])
			continue;
		inputs = json_array();
		for (size_t k = 0; k < m->nrefs; k++)
			json_array_append_new(inputs, json_pack("{s:s, s:s}", "namespace", ns, "name",
								arena_sprintf(sh->s->arena, "%s.%s",
									      m->refs[k].schema,
									      m->refs[k].name)));
		event = json_pack(
			"{s:s, s:s, s:s, s:s, s:{s:s}, s:{s:s, s:s}, s:o, s:[{s:s, s:s, s:{s:{s:s, s:s, "
			"s:o}, s:{s:s, s:s, s:o}}}]}",
			"eventType", "COMPLETE", "eventTime", arena_sprintf(sh->s->arena, "%sZ", when),
			"producer", PRODUCER, "schemaURL", RUN_EVENT_SCHEMA, "run", "runId", run_id(sh, m),
			"job", "namespace", ns, "name", m->fqn, "inputs", inputs, "outputs", "namespace",
			ns, "name", m->fqn, "facets", "schema", "_producer", PRODUCER, "_schemaURL",
			SCHEMA_FACET, "fields", schema_fields(sh, m, built, nbuilt), "columnLineage",
			"_producer", PRODUCER, "_schemaURL", COLUMN_FACET, "fields",
			facet_fields(ns, sh->g.of[i]));
		text = json_dumps(event, JSON_COMPACT);
		printf("%s\n", text);
		free(text);
		json_decref(event);
	}
	return CLI_OK;
}

/* MODEL or MODEL.COLUMN: the model, and the column or NULL. */
static const struct model *target(struct cli_session *s, const char *arg, const char **column,
				  struct sl_err *err)
{
	const char *dot = strrchr(arg, '.');
	const struct model *m;

	struct sl_err other = SL_ERR_INIT;

	*column = NULL;
	if ((m = dag_model_named(s->project, arg, err)) || !dot)
		return m;
	/* MODEL.COLUMN; when that is no model either, the error is MODEL's */
	m = dag_model_named(s->project, arena_strndup(s->arena, arg, (size_t)(dot - arg)), &other);
	if (m) {
		sl_err_clear(err);
		*column = dot + 1;
	}
	return m;
}

/* The columns asked for (a seed's too), walked one way. */
static int walk(struct show *sh, const struct model *m, const char *column)
{
	const struct lineage *l = sh->g.of[m->order];
	const char *const *names;
	size_t n;
	bool open, found;

	if (!lineage_graph_names(&sh->g, m, &names, &n, &open)) {
		fprintf(stderr, "sluice lineage: the query of model '%s' does not parse\n", m->fqn);
		return CLI_FAILED;
	}
	if (column) {
		found = open;
		for (size_t i = 0; i < n; i++)
			found |= strcasecmp(names[i], column) == 0;
		if (!found) {
			fprintf(stderr, "sluice lineage: model '%s' has no column '%s'\n", m->fqn, column);
			return CLI_FAILED;
		}
		names = &column;
		n = 1;
	}
	if (sh->json && l)
		model_json(sh, m);
	for (size_t i = 0; i < n; i++) {
		const struct lineage_column *c = lineage_graph_column(&sh->g, m, names[i]);
		char *name = arena_strdup(sh->s->arena, names[i]);

		for (char *q = name; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		if (!sh->json && !sh->dot)
			printf("%s.%s\n", m->fqn, name);
		if (sh->down)
			down(sh, m->fqn, name, 2, sh->depth);
		else if (c)
			up(sh, m, c, 2, sh->depth);
	}
	for (size_t i = 0; !sh->json && !sh->dot && l && i < l->nunknown; i++)
		printf("unknown: %s\n", l->unknown[i].why);
	if (!sh->json && !sh->dot)
		print_provenance(m, "");
	return CLI_OK;
}

int cli_lineage(struct cli_args *args)
{
	struct show sh = { .depth = DEPTH_MAX, .down = args->downstream, .dot = args->dot };
	struct sl_err err = SL_ERR_INIT;
	struct cli_session s;
	const struct model *m;
	const char *column;
	char *end = NULL;
	int rc;

	bool whole = args->openlineage || args->audit || args->edges;

	if ((args->edges ? args->npos > 1 : args->npos != !whole) ||
	    (args->upstream && args->downstream) || (args->json && args->dot) ||
	    (args->openlineage + args->audit + args->edges > 1) ||
	    (whole && (args->upstream || args->downstream || args->depth || args->dot)) ||
	    (args->openlineage && args->json)) {
		fprintf(stderr, "usage: sluice lineage MODEL[.COLUMN] [--upstream | --downstream] "
				"[--depth N] [--json | --dot] | [--audit [--json]] | "
				"[--edges [MODEL] [--json]] | --openlineage\n");
		return CLI_USAGE;
	}
	if (args->depth) {
		long d = strtol(args->depth, &end, 10);

		if (!*args->depth || *end || d < 1 || d > DEPTH_MAX) {
			fprintf(stderr, "sluice lineage: --depth takes a number from 1 to %d, not '%s'\n",
				DEPTH_MAX, args->depth);
			return CLI_USAGE;
		}
		sh.depth = (int)d;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_READ, true);
	if (rc)
		return rc;
	sh.s = &s;
	if (whole && !args->npos) {
		lineage_graph_build(s.arena, s.project, s.parser, cli_warehouse_columns, &s, &sh.g);
		sh.json = args->json ? json_object() : NULL;
		rc = args->audit ? audit(&sh) : args->edges ? edges(&sh, NULL) : openlineage(&sh);
		json_decref(sh.json);
		cli_session_close(&s);
		return rc;
	}
	m = target(&s, args->pos[0], &column, &err);
	if (!m) {
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	/* an upstream walk looks at m and what it reads, not at the rest */
	if (sh.down || args->edges)
		lineage_graph_build(s.arena, s.project, s.parser, cli_warehouse_columns, &s, &sh.g);
	else
		lineage_graph_build_upstream(s.arena, s.project, s.parser, m, cli_warehouse_columns, &s, &sh.g);
	if (args->edges) {
		sh.json = args->json ? json_object() : NULL;
		rc = column ? CLI_USAGE : edges(&sh, m);
		if (column)
			fprintf(stderr, "sluice lineage: --edges takes a model, not a column\n");
		json_decref(sh.json);
		cli_session_close(&s);
		return rc;
	}
	sh.seen = json_object();
	if (args->json)
		sh.json = json_object();
	if (sh.dot)
		printf("digraph lineage {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n");
	rc = walk(&sh, m, column);
	if (sh.dot)
		printf("}\n");
	if (sh.json && rc == CLI_OK) {
		char *text = json_dumps(sh.json, JSON_INDENT(2));

		printf("%s\n", text);
		free(text);
	}
	json_decref(sh.json);
	json_decref(sh.seen);
	cli_session_close(&s);
	return rc;
}
