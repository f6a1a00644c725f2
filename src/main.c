/*
 * sluice: argv to the command table. `sluice help` is generated from the
 * same table, so a command cannot exist without its help line.
 */
#include "cli/commands.h"
#include "core/suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMMON (CLI_F_PROJECT)

const struct cli_command cli_commands[] = {
	{ "init", cli_init, 0, 1, "DIR", "create a starter project in DIR" },
	{ "run", cli_run,
	  COMMON | CLI_F_SELECT | CLI_F_FULL_REFRESH | CLI_F_JSON | CLI_F_WINDOW | CLI_F_MODE |
		  CLI_F_ENV | CLI_F_WORKERS | CLI_F_FAIL_ON_WAIT,
	  0,
	  "[-s SELECTOR] [--full-refresh] [--since T --until T] [--mode M] [--chunk DUR] [--env E] "
	  "[--workers N] [--fail-on-wait] [--json]",
	  "build the selected models in dependency order" },
	{ "plan", cli_plan,
	  COMMON | CLI_F_SELECT | CLI_F_FULL_REFRESH | CLI_F_JSON | CLI_F_WINDOW | CLI_F_MODE |
		  CLI_F_ENV | CLI_F_FAIL_ON_WAIT,
	  0,
	  "[-s SELECTOR] [--full-refresh] [--since T --until T] [--mode M] [--chunk DUR] [--env E] "
	  "[--fail-on-wait] [--json]",
	  "show what a run would build and why, building nothing" },
	{ "seed", cli_seed, COMMON | CLI_F_SELECT | CLI_F_FULL_REFRESH | CLI_F_JSON | CLI_F_ENV, 0,
	  "[-s SELECTOR] [--full-refresh] [--env E] [--json]", "load the CSV files in seeds/" },
	{ "test", cli_test, COMMON | CLI_F_SELECT | CLI_F_JSON | CLI_F_ENV, 0,
	  "[-s SELECTOR] [--env E] [--json]",
	  "run the checks of the selected built models on their data as it is, building nothing" },
	{ "validate", cli_validate, COMMON | CLI_F_ENV, 0, "[--env E]",
	  "check the whole project and report every problem" },
	{ "compile", cli_compile, COMMON | CLI_F_ENV, 1, "MODEL [--env E]",
	  "print the SQL a build of MODEL runs" },
	{ "windows", cli_windows, COMMON | CLI_F_WINDOW | CLI_F_STATUS | CLI_F_JSON | CLI_F_ENV, 1,
	  "MODEL|SOURCE [--since T --until T] [--status S] [--env E] [--json]",
	  "show a model's windows or a source's coverage, and what they wait for" },
	{ "ls", cli_ls, COMMON | CLI_F_SELECT | CLI_F_JSON, 0, "[-s SELECTOR] [--json]",
	  "list the models in dependency order" },
	{ "dag", cli_dag, COMMON | CLI_F_DOT, 0, "[--dot]",
	  "print the dependency graph (Graphviz DOT with --dot)" },
	{ "live", cli_live, COMMON | CLI_F_ONCE | CLI_F_JSON, 2,
	  "[--once] | status [--json] | advance SOURCE | pause MODEL | resume MODEL",
	  "keep live models current, or look at and steer them" },
	{ "serve", cli_serve, COMMON | CLI_F_LISTEN, 0, "[--listen ADDR:PORT]",
	  "run the server: webhook ingest, pollers, the live runner and the HTTP API" },
	{ "poll", cli_poll, COMMON | CLI_F_ONCE, 1, "NAME [--once]",
	  "poll one API source in the foreground, or once with --once" },
	{ "cdc", cli_cdc, COMMON | CLI_F_ONCE | CLI_F_RESNAPSHOT, 1, "NAME [--once] [--resnapshot]",
	  "land the changes of a postgres_cdc source's slot in the foreground" },
	{ "check", cli_check, COMMON | CLI_F_JSON, 0, "[--json]",
	  "judge freshness: live models by lag, batch models by what a run would build" },
	{ "sql", cli_sql, COMMON | CLI_F_JSON | CLI_F_FILE | CLI_F_FORMAT, 1,
	  "QUERY | -f FILE | - [--format table|json|csv|ndjson] [--max-rows N]",
	  "run a query against the warehouse and print the rows" },
	{ "help", cli_help, 0, 1, "[COMMAND]", "show the commands, or one command's usage" },
	{ NULL, NULL, 0, 0, NULL, NULL },
};

/* Words people bring from dbt, SQLMesh and the like for our commands: an
 * unknown command is looked up here before its nearest spelling. */
static const struct suggest_alias command_aliases[] = {
	{ "list", "ls" },      { "build", "run" },  { "parse", "validate" },
	{ "lint", "validate" }, { "status", "live status" },
	{ "graph", "dag" },    { "show", "sql" },   { "query", "sql" },
	{ "new", "init" },     { "version", "--version" },
	{ NULL, NULL },
};

const struct cli_command *cli_command_find(const char *name)
{
	for (size_t i = 0; cli_commands[i].name; i++)
		if (strcmp(cli_commands[i].name, name) == 0)
			return &cli_commands[i];
	return NULL;
}

void cli_print_usage(const struct cli_command *c)
{
	printf("usage: sluice %s %s\n\n  %s\n", c->name, c->usage, c->summary);
	if (c->flags & CLI_F_PROJECT)
		printf("\n  -p, --project DIR   the project folder (default: the nearest folder "
		       "upward with sluice.yml)\n");
	if (c->flags & CLI_F_SELECT)
		printf("  -s, --select SEL    models to pick: NAME, schema.*, +NAME (with what it "
		       "reads),\n"
		       "                      NAME+ (with what reads it), tag:TAG; a,b for both\n");
	if (c->flags & CLI_F_FULL_REFRESH)
		printf("  --full-refresh      rebuild from scratch instead of applying new rows\n");
	if (c->flags & CLI_F_FAIL_ON_WAIT)
		printf("  --fail-on-wait      exit 4 when nothing failed but a model or some of its "
		       "windows\n"
		       "                      waited for their upstreams' contracts\n");
	if (c->flags & CLI_F_JSON)
		printf("  --json              print JSON for machines\n");
	if (c->flags & CLI_F_FILE)
		printf("  -f, --file FILE     read the query from FILE ('-' or a pipe: standard "
		       "input)\n");
	if (c->flags & CLI_F_FORMAT)
		printf("  --format F          table (default), json, csv or ndjson\n"
		       "  --max-rows N        print at most N rows (the server answers 10000 unless "
		       "asked)\n");
	if (c->flags & CLI_F_DOT)
		printf("  --dot               print Graphviz DOT\n");
	if ((c->flags & CLI_F_ONCE) && strcmp(c->name, "poll") == 0)
		printf("  --once              poll once; exit 0 when the page landed\n");
	else if ((c->flags & CLI_F_ONCE) && strcmp(c->name, "cdc") == 0)
		printf("  --once              land what the source had written when it started; "
		       "exit 0\n");
	else if (c->flags & CLI_F_ONCE)
		printf("  --once              run one cycle; exit 0 when every live model is caught "
		       "up\n");
	if (c->flags & CLI_F_RESNAPSHOT)
		printf("  --resnapshot        drop the slot, make it again and land its tables anew "
		       "from\n"
		       "                      its snapshot, replacing the rows they landed before\n");
	if (c->flags & CLI_F_LISTEN)
		printf("  --listen ADDR:PORT  where to listen (default: server.listen in sluice.yml, "
		       "else 127.0.0.1:8080;\n"
		       "                      port 0 picks a free one)\n");
}

static int unknown_command(const char *word)
{
	const char *names[sizeof(cli_commands) / sizeof(*cli_commands)];
	const char *near;
	size_t n = 0;

	for (; cli_commands[n].name; n++)
		names[n] = cli_commands[n].name;
	names[n] = NULL;
	near = suggest_command(word, names, command_aliases);
	if (near)
		fprintf(stderr, "sluice: unknown command '%s'\n  hint: did you mean '%s'?\n", word,
			near);
	else
		fprintf(stderr, "sluice: unknown command '%s'\n  hint: 'sluice help' lists them\n",
			word);
	return CLI_USAGE;
}

int cli_help(struct cli_args *args)
{
	if (args->npos == 1) {
		const struct cli_command *c = cli_command_find(args->pos[0]);

		if (!c)
			return unknown_command(args->pos[0]);
		cli_print_usage(c);
		return CLI_OK;
	}
	printf("sluice: SQL models built in dependency order into a warehouse\n\n"
	       "usage: sluice COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; cli_commands[i].name; i++)
		printf("  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
	printf("\n'sluice help COMMAND' shows a command's options.\n");
	return CLI_OK;
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;
	struct cli_args args;
	int rc;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		memset(&args, 0, sizeof(args));
		return cli_help(&args);
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("sluice %s\n", SLUICE_VERSION);
		return CLI_OK;
	}
	cmd = cli_command_find(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	rc = cli_args_parse(cmd, argc - 2, argv + 2, &args);
	if (!rc)
		rc = cmd->run(&args);
	free(args.pos);
	return rc == CLI_HELP ? CLI_OK : rc;
}
