/*
 * The project session every command starts from: locate, load, open the
 * warehouse, validate, print diagnostics. Also the shared output helpers.
 */
#include "cli/cli.h"

#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "live/advance.h"
#include "project/dag.h"
#include "project/inputs.h"
#include "project/project.h"
#include "project/validate.h"
#include "server/client.h"
#include "state/state.h"
#include "warehouse/open.h"
#include "warehouse/sqlparse.h"
#include "warehouse/wh.h"
#include "windows/grid.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_print_err_to(FILE *f, const struct sl_err *err)
{
	fprintf(f, "sluice: %s\n", err->msg[0] ? err->msg : sl_code_text(err->code));
}

void cli_print_err(const struct sl_err *err)
{
	cli_print_err_to(stderr, err);
}

static struct wh_place place(const struct cli_session *s)
{
	const struct project_cfg *cfg = &s->project->cfg;

	return (struct wh_place){ .type = cfg->warehouse.type, .path = cfg->warehouse.path,
				  .dsn_env = cfg->warehouse.dsn_env, .root = s->root };
}

bool cli_session_served(const struct cli_session *s, int *port)
{
	struct wh_place at = place(s);

	return wh_place_exclusive(&at) && server_find(s->root, port);
}

/* Opens the warehouse when it exists (read-only unless the command writes)
 * and lists its relations. A DuckDB file not made yet is an empty
 * warehouse: nothing is created until a command actually writes. */
static int open_existing(struct cli_session *s, enum cli_open mode, struct sl_err *err)
{
	struct wh_place at = place(s);
	char shown[512];
	int rc;

	wh_place_text(&at, shown, sizeof(shown));
	s->warehouse_path = arena_strdup(s->arena, shown);
	rc = s->borrowed ? 0
			 : wh_open(&at, s->arena, mode == CLI_OPEN_READ ? WH_OPEN_READ : WH_OPEN_WRITE,
				   &s->wh, err);
	if (rc)
		return rc;
	if (!s->wh) {
		s->relations = arena_alloc(s->arena, sizeof(char *));
		s->nrelations = 0;
		return 0;
	}
	return wh_relation_list(s->wh, s->arena, &s->relations, &s->nrelations, err);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The landing tables of declared sources count as existing: the first run
 * or ingest creates them. */
static void add_declared_sources(struct cli_session *s)
{
	const struct project_cfg *cfg = &s->project->cfg;
	const char **all = arena_alloc(s->arena, (s->nrelations + cfg->nsources + 1) *
							 sizeof(char *));
	size_t n = s->nrelations;

	if (!s->relations || !cfg->nsources)
		return;
	memcpy(all, s->relations, n * sizeof(char *));
	for (size_t i = 0; i < cfg->nsources; i++) {
		char name[256];

		inputs_source_table(&cfg->sources[i], name, sizeof(name));
		all[n++] = arena_strdup(s->arena, name);
	}
	qsort(all, n, sizeof(*all), cmp_name);
	s->relations = all;
	s->nrelations = n;
}

int cli_session_connect(struct cli_session *s, struct sl_err *err)
{
	struct wh_place at = place(s);

	return wh_open(&at, s->arena, WH_OPEN_CREATE, &s->wh, err);
}

static int check_selector(struct cli_session *s, const char *selector, struct sl_err *err)
{
	bool *selected = arena_alloc(s->arena, (s->project->nmodels + 1) * sizeof(bool));

	return dag_select(s->project, selector, selected, err);
}

/* Prints the problems of sluice.yml itself; true when there are any. */
static bool settings_broken(const struct project *p, FILE *out)
{
	bool broken = false;

	for (size_t i = 0; i < p->diags.n; i++) {
		const struct diag *d = &p->diags.items[i];

		if (d->severity == DIAG_ERROR && d->file && strcmp(d->file, "sluice.yml") == 0) {
			struct diag_list one = p->diags;

			one.items = (struct diag *)d;
			one.n = 1;
			diag_print(&one, out);
			broken = true;
		}
	}
	if (broken)
		fprintf(out, "sluice: sluice.yml has problems; nothing was changed\n");
	return broken;
}

/* The models the warehouse's environments have built, when it keeps a
 * record of them. */
static int recorded_envs(struct cli_session *s, struct state_env_model **rows, size_t *n,
			 struct sl_err *err)
{
	*rows = NULL;
	*n = 0;
	if (!s->wh || !dag_relation_exists(s->relations, s->nrelations, STATE_MODELS_TABLE))
		return 0;
	return state_env_models_load(s->wh, s->arena, rows, n, err);
}

static int fail(struct cli_session *s, const struct sl_err *err)
{
	if (err)
		cli_print_err_to(s->err, err);
	cli_session_close(s);
	return CLI_FAILED;
}

int cli_session_open(struct cli_session *s, const struct cli_args *args, enum cli_open mode,
		     bool validate)
{
	struct sl_err err = SL_ERR_INIT;
	int rc;

	memset(s, 0, sizeof(*s));
	s->command = args->command;
	s->out = args->out ? args->out : stdout;
	s->err = args->err ? args->err : stderr;
	s->wh = args->wh;
	s->borrowed = args->wh != NULL;
	s->arena = arena_new(args->arena);
	rc = project_locate(args->project, &s->root, &err);
	if (!rc)
		rc = sqlparse_open(&s->parser, &err);
	if (!rc)
		sqlparse_use_cache(s->parser,
				   arena_sprintf(s->arena, "%s/.sluice/parse-cache", s->root));
	if (!rc)
		sqlparse_use_derived_cache(
			s->parser, arena_sprintf(s->arena, "%s/.sluice/derived-cache", s->root));
	if (!rc)
		rc = project_load(s->arena, s->root, s->parser, &s->project, &err);
	if (rc)
		return fail(s, &err);
	if (!validate && settings_broken(s->project, s->err))
		return fail(s, NULL);
	if (mode != CLI_OPEN_NONE && open_existing(s, mode, &err))
		return fail(s, &err);
	add_declared_sources(s);
	if (validate) {
		struct state_env_model *envs;
		size_t nenvs;

		/* without the warehouse's relation list, references to outside
		 * tables cannot be checked and are taken on trust */
		project_validate(s->project, s->relations, s->nrelations);
		if (recorded_envs(s, &envs, &nenvs, &err))
			return fail(s, &err);
		project_validate_envs(s->project, args->env, envs, nenvs);
		diag_print(&s->project->diags, s->err);
		if (diag_has_errors(&s->project->diags)) {
			size_t n = diag_count(&s->project->diags, DIAG_ERROR);

			fprintf(s->err, "sluice: %zu problem%s found; nothing was changed\n", n,
				n == 1 ? "" : "s");
			return fail(s, NULL);
		}
		if (args->select && check_selector(s, args->select, &err))
			return fail(s, &err);
		if (args->env && project_use_env(s->project, args->env, &err))
			return fail(s, &err);
	}
	if (mode == CLI_OPEN_WRITE && !s->wh && cli_session_connect(s, &err))
		return fail(s, &err);
	return CLI_OK;
}

int cli_session_open_warehouse(struct cli_session *s, enum cli_open mode, struct sl_err *err)
{
	int rc = open_existing(s, mode, err);

	if (!rc)
		add_declared_sources(s);
	if (!rc && mode == CLI_OPEN_WRITE && !s->wh)
		rc = cli_session_connect(s, err);
	return rc;
}

void cli_session_close(struct cli_session *s)
{
	struct sl_err why = SL_ERR_INIT;

	/* whatever the command made of the failure, it ends here */
	if (s->wh && wh_suspect(s->wh, &why))
		sl_exit_suspect(s->command, "stopped without closing it, so that the next command "
					     "opens it from what is on disk",
				 &why);
	if (!s->borrowed)
		wh_close(s->wh);
	sqlparse_close(s->parser);
	free(s->root);
	arena_free(s->arena);
	memset(s, 0, sizeof(*s));
}

static size_t display_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* A cell's text and length: a column name, a value, or "NULL". */
static const char *cell(const struct cli_rows *t, size_t row, size_t c, size_t *len)
{
	const char *v = t->cell(t->src, row, c, len);

	if (!v) {
		*len = 4;
		return "NULL";
	}
	return v;
}

/* Prints a cell (when out is not NULL) and returns its width on screen; a
 * NUL byte inside a value shows as \0. */
static size_t put_cell(FILE *out, const char *v, size_t len)
{
	size_t w = 0;

	for (const char *p = v;;) {
		w += display_width(p);
		if (out)
			fputs(p, out);
		p += strlen(p);
		if (p >= v + len)
			return w;
		if (out)
			fputs("\\0", out);
		w += 2;
		p++;
	}
}

void cli_print_rows(FILE *out, const struct cli_rows *t, const char *indent)
{
	size_t nc = t->ncols, nr = t->nrows, len;
	size_t *width = xcalloc(nc + 1, sizeof(size_t));

	for (size_t c = 0; c < nc; c++)
		for (size_t i = 0; i <= nr; i++) {
			const char *v = cell(t, i, c, &len);
			size_t w = put_cell(NULL, v, len);

			if (w > width[c])
				width[c] = w;
		}
	for (size_t i = 0; i <= nr; i++) {
		fputs(indent, out);
		for (size_t c = 0; c < nc; c++) {
			const char *v = cell(t, i, c, &len);
			size_t w = put_cell(out, v, len);

			if (c + 1 < nc) {
				for (; w < width[c]; w++)
					fputc(' ', out);
				fputs(" | ", out);
			}
		}
		fputc('\n', out);
	}
	free(width);
}

static const char *result_cell(const void *src, size_t row, size_t c, size_t *len)
{
	const struct wh_result *r = src;
	const char *v = row == 0 ? wh_result_colname(r, c) : wh_result_value(r, row - 1, c);

	if (v)
		*len = row == 0 ? strlen(v) : wh_result_value_len(r, row - 1, c);
	return v;
}

void cli_print_table(FILE *out, const struct wh_result *r, const char *indent)
{
	struct cli_rows t = { .ncols = wh_result_ncols(r), .nrows = wh_result_nrows(r),
			      .cell = result_cell, .src = r };

	cli_print_rows(out, &t, indent);
}

const struct source_cfg *cli_find_source(const struct project_cfg *cfg, const char *name,
					const char *kind, const char *hint)
{
	const char **names = xcalloc(cfg->nsources + 1, sizeof(char *));
	const struct source_cfg *found = NULL;
	bool other = false;
	const char *near;
	size_t n = 0;

	for (size_t i = 0; i < cfg->nsources; i++) {
		const struct source_cfg *src = &cfg->sources[i];
		bool same = src->kind && strcmp(src->kind, kind) == 0;

		if (same)
			names[n++] = src->name;
		if (strcmp(src->name, name) != 0)
			continue;
		if (same) {
			found = src;
		} else {
			fprintf(stderr, "sluice: source '%s' is a %s source, not a %s source\n",
				name, src->kind ? src->kind : "kindless", kind);
			other = true;
		}
	}
	if (!found && !other) {
		near = suggest_nearest(name, names);
		fprintf(stderr, "sluice: no %s source '%s' in sluice.yml\n", kind, name);
		if (near)
			fprintf(stderr, "  hint: did you mean '%s'?\n", near);
		else if (!n)
			fprintf(stderr, "  hint: %s\n", hint);
	}
	free(names);
	return found;
}

int64_t cli_window_clock(const char *cmd)
{
	return cli_window_clock_at(cmd, getenv("SLUICE_NOW"), stderr);
}

int64_t cli_window_clock_at(const char *cmd, const char *fixed, FILE *err)
{
	int64_t t;

	if (!fixed || !*fixed)
		return units_now_ms() / 1000;
	if (win_time_parse(fixed, &t) == 0)
		return t;
	fprintf(err, "sluice %s: invalid SLUICE_NOW '%s'\n"
			"  hint: a UTC time such as '2026-01-01 06:00', or unset it\n", cmd, fixed);
	return -1;
}

bool cli_warehouse_columns(void *ctx, const char *schema, const char *table,
			   const char *const **cols, size_t *n)
{
	struct cli_session *s = ctx;
	struct sl_err err = SL_ERR_INIT;
	struct wh_column *c;
	const char **names;
	size_t nc;

	if (!s->wh || wh_table_columns(s->wh, s->arena, schema, table, &c, &nc, &err) || !nc)
		return false;
	names = arena_alloc(s->arena, (nc + 1) * sizeof(*names));
	for (size_t i = 0; i < nc; i++) {
		char *low = arena_strdup(s->arena, c[i].name);

		for (char *q = low; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		names[i] = low;
	}
	*cols = names;
	*n = nc;
	return true;
}

/* Whether an ISO-8601 text names its offset (Z, +HH:MM, -HH:MM). */
static bool has_offset(const char *text)
{
	size_t n = strlen(text);
	const char *t = n > 10 ? text + 10 : NULL;

	if (n && (text[n - 1] == 'Z' || text[n - 1] == 'z'))
		return true;
	return t && (strchr(t, '+') || strchr(t, '-'));
}

/* Whether text is unix seconds: digits, a fraction perhaps. */
static bool unix_seconds(const char *text)
{
	size_t n = strspn(text, "0123456789");

	return n && (!text[n] || (text[n] == '.' && text[n + 1] &&
				  !text[n + 1 + strspn(text + n + 1, "0123456789")]));
}

int cli_start_time(const char *cmd, const char *given, char out[ISOTIME_MAX], FILE *err)
{
	const char *why = NULL;
	bool bad;

	if (!given)
		return CLI_OK;
	/* unix seconds name an instant: no offset to ask for */
	if (unix_seconds(given))
		bad = isotime_from_unix(ISOTIME_TIMESTAMP, strtod(given, NULL), out, &why) != 0;
	else
		bad = isotime_parse(ISOTIME_TIMESTAMP, given, out, &why) != 0;
	if (!bad && (unix_seconds(given) || has_offset(given)))
		return CLI_OK;
	if (!bad)
		why = "write the offset too, such as 2026-11-02T06:00:00Z or 2026-11-02T07:00:00+01:00";
	fprintf(err, "sluice %s: invalid --start-time '%s'\n  hint: %s\n", cmd, given, why);
	return CLI_USAGE;
}
