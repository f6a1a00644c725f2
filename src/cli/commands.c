/*
 * The command table, one line per command: its handler, the flags it
 * takes, its synopsis and summary. `sluice help` is generated from it, so
 * a command cannot exist without its help.
 */
#include "cli/commands.h"
#include "core/suggest.h"

#include <stdio.h>
#include <string.h>

#define COMMON (CLI_F_PROJECT)

static const struct cli_option_note once_poll[] = {
	{ "once", "poll once; exit 0 when the page landed" },
	{ NULL, NULL },
};

static const struct cli_option_note once_cdc[] = {
	{ "once", "land what the source had written when it started; exit 0" },
	{ NULL, NULL },
};

static const struct cli_option_note once_kafka[] = {
	{ "once", "land up to the end each partition had when it started; exit 0" },
	{ NULL, NULL },
};

static const struct cli_option_note once_files[] = {
	{ "once", "land the files the folder holds, once they settled; exit 0 when none failed" },
	{ NULL, NULL },
};

static const struct cli_option_note sql_json[] = {
	{ "json", "the same as --format json" },
	{ NULL, NULL },
};

static const struct cli_option_note listing_window[] = {
	{ "since", "list the windows from T on: a UTC date or time such as 2026-11-02 or "
		   "'2026-11-02 06:00'" },
	{ "until", "list the windows that start before T" },
	{ NULL, NULL },
};

static const struct cli_option_note listing_profiles[] = {
	{ "since", "list the profiles taken from T on (without --since or --until: the newest 30): a "
		   "UTC date or time such as 2026-11-02 or '2026-11-02 06:00'" },
	{ "until", "list the profiles taken before T" },
	{ NULL, NULL },
};

const struct cli_command cli_commands[] = {
	{ "init", cli_init, 0, 1, "DIR", "create a starter project in DIR" },
	{ "run", cli_run,
	  COMMON | CLI_F_SELECT | CLI_F_FULL_REFRESH | CLI_F_JSON | CLI_F_WINDOW | CLI_F_MODE |
		  CLI_F_ENV | CLI_F_START | CLI_F_WORKERS | CLI_F_FAIL_ON_WAIT,
	  0,
	  "[-s SEL] [--full-refresh] [--since T --until T] [--mode M] [--chunk DUR] [--env E "
	  "[--start-time T]] [--workers N] [--fail-on-wait] [--json]",
	  "build the selected models in dependency order" },
	{ "plan", cli_plan,
	  COMMON | CLI_F_SELECT | CLI_F_FULL_REFRESH | CLI_F_JSON | CLI_F_WINDOW | CLI_F_MODE |
		  CLI_F_ENV | CLI_F_FAIL_ON_WAIT,
	  0,
	  "[-s SEL] [--full-refresh] [--since T --until T] [--mode M] [--chunk DUR] [--env E] "
	  "[--fail-on-wait] [--json]",
	  "show what a run would build and why, building nothing" },
	{ "seed", cli_seed, COMMON | CLI_F_SELECT | CLI_F_FULL_REFRESH | CLI_F_JSON | CLI_F_ENV, 0,
	  "[-s SEL] [--full-refresh] [--env E] [--json]", "load the CSV files in seeds/" },
	{ "test", cli_test, COMMON | CLI_F_SELECT | CLI_F_JSON | CLI_F_ENV, 0,
	  "[-s SEL] [--env E] [--json]",
	  "run the checks of the selected built models on their data as it is, building nothing" },
	{ "replay", cli_replay, COMMON | CLI_F_REPLAY | CLI_F_START, 1, "SELECTOR [--start-time T] [--dry-run]",
	  "rebuild the selected models and what reads them from the history their sources keep" },
	{ "validate", cli_validate, COMMON | CLI_F_ENV, 0, "[--env E]",
	  "check the whole project and report every problem" },
	{ "compile", cli_compile, COMMON | CLI_F_ENV, 1, "MODEL [--env E]",
	  "print the SQL a build of MODEL runs" },
	{ "windows", cli_windows, COMMON | CLI_F_WINDOW | CLI_F_STATUS | CLI_F_JSON | CLI_F_ENV, 1,
	  "MODEL|SOURCE [--since T --until T] [--status S] [--env E] [--json]",
	  "show a model's windows or a source's coverage, and what they wait for", listing_window },
	{ "profile", cli_profile, COMMON | CLI_F_WINDOW | CLI_F_JSON | CLI_F_ENV, 1,
	  "MODEL [--since T] [--until T] [--env E] [--json]",
	  "show a model's profiles (rows, NULLs, extremes, distinct values) and the anomalies "
	  "found in them", listing_profiles },
	{ "ls", cli_ls, COMMON | CLI_F_SELECT | CLI_F_JSON, 0, "[-s SEL] [--json]",
	  "list the models in dependency order" },
	{ "lineage", cli_lineage, COMMON | CLI_F_LINEAGE | CLI_F_JSON | CLI_F_DOT, 1,
	  "MODEL[.COLUMN] [--upstream | --downstream] [--depth N] [--json | --dot] | "
	  "[--audit [--json]] | [--edges [MODEL] [--json]] | --openlineage",
	  "show where each column of a model comes from, through every model up to sources and "
	  "seeds, or which columns read it" },
	{ "dag", cli_dag, COMMON | CLI_F_DOT, 0, "[--dot]",
	  "print the dependency graph (Graphviz DOT with --dot)" },
	{ "docs", cli_docs, COMMON | CLI_F_OUT, 0, "--out DIR",
	  "write the web UI's Models and DAG pages with a snapshot of the project as static files "
	  "that need no server" },
	{ "live", cli_live, COMMON | CLI_F_ONCE | CLI_F_JSON, 2,
	  "[--once] | status [--json] | advance SOURCE | pause MODEL | resume MODEL",
	  "keep live models current, or look at and steer them" },
	{ "serve", cli_serve, COMMON | CLI_F_LISTEN, 0, "[--listen ADDR:PORT]",
	  "run the server: webhook ingest, pollers, the live runner and the HTTP API" },
	{ "poll", cli_poll, COMMON | CLI_F_ONCE, 1, "NAME [--once]",
	  "poll one API source in the foreground, or once with --once", once_poll },
	{ "cdc", cli_cdc, COMMON | CLI_F_ONCE | CLI_F_RESNAPSHOT, 1, "NAME [--once] [--resnapshot]",
	  "land the changes of a postgres_cdc source's slot in the foreground", once_cdc },
	{ "kafka", cli_kafka, COMMON | CLI_F_ONCE | CLI_F_RESET, 1,
	  "NAME [--once] | NAME --reset earliest|latest|TOPIC:PARTITION:OFFSET,...",
	  "land the messages of a kafka source's topics in the foreground", once_kafka },
	{ "files", cli_files, COMMON | CLI_F_ONCE, 1, "NAME [--once]",
	  "land the files dropped in a files source's folder in the foreground", once_files },
	{ "check", cli_check, COMMON | CLI_F_JSON, 0, "[--json]",
	  "judge freshness: live models by lag, batch models by what a run would build" },
	{ "sql", cli_sql, COMMON | CLI_F_JSON | CLI_F_FILE | CLI_F_FORMAT, 1,
	  "QUERY | -f FILE | - [--format table|json|csv|ndjson] [--max-rows N] [--json]",
	  "run a query against the warehouse and print the rows", sql_json },
	{ "help", cli_help, 0, 1, "[COMMAND]", "show the commands, or one command's usage" },
	{ NULL, NULL, 0, 0, NULL, NULL, NULL },
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

int cli_command_unknown(const char *word)
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
		const struct cli_command *c = cli_command_find(cli_commands, args->pos[0]);

		if (!c)
			return cli_command_unknown(args->pos[0]);
		cli_print_usage(stdout, c);
		return CLI_OK;
	}
	printf("sluice: SQL models built in dependency order into a warehouse\n\n"
	       "usage: sluice COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; cli_commands[i].name; i++)
		printf("  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
	printf("\n'sluice help COMMAND' shows a command's options.\n");
	return CLI_OK;
}
