/*
 * Command-line flags shared by every command, parsed in one place, each
 * with its help beside it, so that a command's usage is printed from the
 * same table. A command lists the flags it accepts; anything else is a
 * usage error.
 */
#include "cli/cli.h"

#include "core/err.h"
#include "core/suggest.h"
#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cli_option cli_options[] = {
	{ "project", 'p', CLI_F_PROJECT, "DIR",
	  "the project folder (default: the nearest folder upward with sluice.yml)" },
	{ "select", 's', CLI_F_SELECT, "SEL",
	  "models to pick: NAME, schema.*, +NAME (with what it reads), NAME+ (with what reads "
	  "it), tag:TAG; a,b for both" },
	{ "full-refresh", 0, CLI_F_FULL_REFRESH, NULL,
	  "rebuild from scratch instead of applying new rows" },
	{ "since", 0, CLI_F_WINDOW, "T",
	  "the start of the run window, with --until: a UTC date or time such as 2026-11-02 or "
	  "'2026-11-02 06:00'" },
	{ "until", 0, CLI_F_WINDOW, "T", "the end of the run window (not included), with --since" },
	{ "mode", 0, CLI_F_MODE, "M",
	  "how the windows are built: discover (only those not applied; the default), bulldozer "
	  "(the run window again; the default with --since) or torch (forget every window, build "
	  "from zero)" },
	{ "chunk", 0, CLI_F_MODE, "DUR",
	  "slice a flexible model's work into pieces of DUR, whole seconds such as 6h or 2d "
	  "(fixed models ignore it)" },
	{ "env", 0, CLI_F_ENV, "E",
	  "the environment to work in, whose models live in schemas of its own (default: "
	  "SLUICE_ENV)" },
	{ "workers", 0, CLI_F_WORKERS, "N",
	  "build up to N windows of a model at once, each on a connection of its own (1 to 64, "
	  "default 1)" },
	{ "status", 0, CLI_F_STATUS, "S",
	  "list only the windows in status S: pending, applied, blocked or failed" },
	{ "fail-on-wait", 0, CLI_F_FAIL_ON_WAIT, NULL,
	  "exit 4 when nothing failed but a model or some of its windows waited for their "
	  "upstreams' contracts" },
	{ "once", 0, CLI_F_ONCE, NULL, "run one cycle; exit 0 when every live model is caught up" },
	{ "resnapshot", 0, CLI_F_RESNAPSHOT, NULL,
	  "drop the slot, make it again and land its tables anew from its snapshot, replacing the "
	  "rows they landed before" },
	{ "reset", 0, CLI_F_RESET, "TO",
	  "move the stored offsets on, deliberately: earliest (each partition's first retained "
	  "message), latest (its end: what is there now is never landed), or "
	  "TOPIC:PARTITION:OFFSET triples (clicks:0:120,clicks:1:88; PARTITION:OFFSET pairs for "
	  "a source of one topic); then exit" },
	{ "start-time", 0, CLI_F_START, "T",
	  "rebuild from the rows of T on, a UTC instant with its offset such as "
	  "2026-11-02T06:00:00Z; a replay's rebuilt tables hold none from before, an "
	  "environment's models that keep watermarks take the older rows from the main tables" },
	{ "dry-run", 0, CLI_F_REPLAY, NULL,
	  "show what would be rebuilt and where its history is read from, changing nothing" },
	{ "listen", 0, CLI_F_LISTEN, "ADDR:PORT",
	  "where to listen (default: server.listen in sluice.yml, else 127.0.0.1:8080; port 0 "
	  "picks a free one)" },
	{ "file", 'f', CLI_F_FILE, "FILE", "read the query from FILE ('-' or a pipe: standard input)" },
	{ "format", 0, CLI_F_FORMAT, "F", "print the rows as table (the default), json, csv or ndjson" },
	{ "max-rows", 0, CLI_F_FORMAT, "N",
	  "print at most N rows (the server answers 10000 unless asked)" },
	{ "upstream", 0, CLI_F_LINEAGE, NULL,
	  "follow each column to the columns it comes from (the default)" },
	{ "downstream", 0, CLI_F_LINEAGE, NULL, "follow each column to the columns that read it" },
	{ "depth", 0, CLI_F_LINEAGE, "N", "follow at most N steps (default: all)" },
	{ "audit", 0, CLI_F_LINEAGE, NULL,
	  "list the models whose rows come from what sluice cannot follow: unknown provenance, "
	  "declared files, apis and hardcoded inputs" },
	{ "edges", 0, CLI_F_LINEAGE, NULL,
	  "list how each model reads each of its inputs: row, agg, side or unknown, and whether "
	  "the input changes rows or only gains them" },
	{ "openlineage", 0, CLI_F_LINEAGE, NULL,
	  "print one OpenLineage run event per model (schema and columnLineage facets), a line "
	  "each" },
	{ "out", 'o', CLI_F_OUT, "DIR",
	  "the folder to write into (made when missing; files of the same names are replaced)" },
	{ "dot", 0, CLI_F_DOT, NULL, "print Graphviz DOT" },
	{ "json", 0, CLI_F_JSON, NULL, "print JSON for machines" },
	{ NULL, 0, 0, NULL, NULL },
};

const struct cli_command *cli_command_find(const struct cli_command *table, const char *name)
{
	for (size_t i = 0; table[i].name; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

const char *cli_option_help(const struct cli_command *c, const struct cli_option *f)
{
	for (size_t i = 0; c->notes && c->notes[i].long_name; i++)
		if (strcmp(c->notes[i].long_name, f->long_name) == 0)
			return c->notes[i].help;
	return f->help;
}

/* "-p, --project DIR", or "    --json": long names line up */
static int flag_label(char *out, size_t size, const struct cli_option *f)
{
	char s[4] = "   ";

	if (f->short_name)
		snprintf(s, sizeof(s), "-%c,", f->short_name);
	return snprintf(out, size, "%s --%s%s%s", s, f->long_name, f->value ? " " : "",
			f->value ? f->value : "");
}

/* text from column col on, its words wrapped before column width */
static void print_wrapped(FILE *out, const char *text, int col, int width)
{
	int at = col;

	while (*text) {
		int n = (int)strcspn(text, " ");

		if (at > col && at + 1 + n > width) {
			fprintf(out, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', out);
			at++;
		}
		fprintf(out, "%.*s", n, text);
		at += n;
		text += n;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

void cli_print_usage(FILE *out, const struct cli_command *c)
{
	char label[64];
	int col = 0;

	fprintf(out, "usage: sluice %s %s\n\n  ", c->name, c->usage);
	print_wrapped(out, c->summary, 2, 79);
	for (size_t i = 0; cli_options[i].long_name; i++) {
		int n = flag_label(label, sizeof(label), &cli_options[i]);

		if (c->flags & cli_options[i].bit && n > col)
			col = n;
	}
	if (!col)
		return;
	fprintf(out, "\noptions:\n");
	for (size_t i = 0; cli_options[i].long_name; i++) {
		if (!(c->flags & cli_options[i].bit))
			continue;
		flag_label(label, sizeof(label), &cli_options[i]);
		fprintf(out, "  %-*s  ", col, label);
		print_wrapped(out, cli_option_help(c, &cli_options[i]), col + 4, 79);
	}
}

static const struct cli_option *find_flag(const char *arg, const char **value)
{
	*value = NULL;
	if (arg[0] == '-' && arg[1] != '-' && arg[1] && !arg[2]) {
		for (size_t i = 0; cli_options[i].long_name; i++)
			if (cli_options[i].short_name == arg[1])
				return &cli_options[i];
		return NULL;
	}
	if (strncmp(arg, "--", 2) != 0)
		return NULL;
	arg += 2;
	for (size_t i = 0; cli_options[i].long_name; i++) {
		size_t n = strlen(cli_options[i].long_name);

		if (strncmp(arg, cli_options[i].long_name, n) != 0)
			continue;
		if (arg[n] == '=') {
			*value = arg + n + 1;
			return &cli_options[i];
		}
		if (!arg[n])
			return &cli_options[i];
	}
	return NULL;
}

static void set_flag(const struct cli_option *f, const char *value, struct cli_args *out)
{
	switch (f->bit) {
	case CLI_F_PROJECT:
		out->project = value;
		break;
	case CLI_F_SELECT:
		out->select = value;
		break;
	case CLI_F_FULL_REFRESH:
		out->full_refresh = true;
		break;
	case CLI_F_JSON:
		out->json = true;
		break;
	case CLI_F_DOT:
		out->dot = true;
		break;
	case CLI_F_ONCE:
		out->once = true;
		break;
	case CLI_F_LISTEN:
		out->listen = value;
		break;
	case CLI_F_RESNAPSHOT:
		out->resnapshot = true;
		break;
	case CLI_F_RESET:
		out->reset = value;
		break;
	case CLI_F_REPLAY:
		out->dry_run = true;
		break;
	case CLI_F_OUT:
		out->out_dir = value;
		break;
	case CLI_F_START:
		out->start_time = value;
		break;
	case CLI_F_WINDOW:
		*(strcmp(f->long_name, "since") == 0 ? &out->since : &out->until) = value;
		break;
	case CLI_F_MODE:
		*(strcmp(f->long_name, "mode") == 0 ? &out->mode : &out->chunk) = value;
		break;
	case CLI_F_STATUS:
		out->status = value;
		break;
	case CLI_F_ENV:
		out->env = value;
		break;
	case CLI_F_WORKERS:
		out->workers = value;
		break;
	case CLI_F_FILE:
		out->file = value;
		break;
	case CLI_F_FORMAT:
		*(strcmp(f->long_name, "format") == 0 ? &out->format : &out->max_rows) = value;
		break;
	case CLI_F_FAIL_ON_WAIT:
		out->fail_on_wait = true;
		break;
	case CLI_F_LINEAGE:
		if (strcmp(f->long_name, "depth") == 0)
			out->depth = value;
		else if (strcmp(f->long_name, "openlineage") == 0)
			out->openlineage = true;
		else if (strcmp(f->long_name, "audit") == 0)
			out->audit = true;
		else if (strcmp(f->long_name, "edges") == 0)
			out->edges = true;
		else
			*(strcmp(f->long_name, "upstream") == 0 ? &out->upstream : &out->downstream) = true;
		break;
	}
}

static void unknown_flag(const struct cli_command *cmd, const char *arg)
{
	const char *names[sizeof(cli_options) / sizeof(*cli_options)];
	const char *near;
	size_t n = 0;

	for (size_t i = 0; cli_options[i].long_name; i++)
		if (cmd->flags & cli_options[i].bit)
			names[n++] = cli_options[i].long_name;
	names[n] = NULL;
	near = suggest_nearest(arg + strspn(arg, "-"), names);
	if (near)
		fprintf(stderr, "sluice %s: unknown option '%s'\n  hint: did you mean '--%s'?\n",
			cmd->name, arg, near);
	else
		fprintf(stderr, "sluice %s: unknown option '%s'\n  hint: see 'sluice help %s'\n",
			cmd->name, arg, cmd->name);
}

/* Whether arg is an argument and no option: "-" (standard input), or text
 * that starts like an option but cannot be one, as SQL that starts with a
 * "--" comment: no option's name holds a space or a line break. */
static bool positional(const char *arg)
{
	size_t name = strcspn(arg, "=");

	if (arg[0] != '-' || !arg[1])
		return true;
	for (size_t i = 0; i < name; i++)
		if (strchr(" \t\r\n", arg[i]))
			return true;
	return false;
}

int cli_args_parse(const struct cli_command *cmd, int argc, char **argv, struct cli_args *out)
{
	bool options = true;

	memset(out, 0, sizeof(*out));
	out->command = cmd->name;
	out->argv = argv;
	out->argc = argc;
	out->now = getenv("SLUICE_NOW");
	if (cmd->flags & CLI_F_ENV && getenv("SLUICE_ENV") && *getenv("SLUICE_ENV"))
		out->env = getenv("SLUICE_ENV");
	out->pos = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *value;
		const struct cli_option *f;

		if (options && strcmp(arg, "--") == 0) {
			/* what follows are arguments, whatever they start with */
			options = false;
			continue;
		}
		if (!options || positional(arg)) {
			if (out->npos == cmd->nargs) {
				fprintf(stderr, "sluice %s: unexpected argument '%s'\n  usage: sluice %s %s\n",
					cmd->name, arg, cmd->name, cmd->usage);
				return CLI_USAGE;
			}
			out->pos[out->npos++] = arg;
			continue;
		}
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			cli_print_usage(stdout, cmd);
			return CLI_HELP;
		}
		f = find_flag(arg, &value);
		if (!f || !(cmd->flags & f->bit)) {
			unknown_flag(cmd, arg);
			return CLI_USAGE;
		}
		if (f->value && !value) {
			if (i + 1 >= argc) {
				fprintf(stderr, "sluice %s: option '%s' needs a value\n", cmd->name,
					arg);
				return CLI_USAGE;
			}
			value = argv[++i];
		}
		set_flag(f, value, out);
	}
	return CLI_OK;
}
