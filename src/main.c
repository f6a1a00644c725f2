/*
 * sluice: argv to a command of the table in src/cli/commands.c. Nothing
 * else lives here.
 */
#include "cli/commands.h"

#include "core/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const struct cli_command *cmd;
	struct cli_args args;
	struct arena *process;
	int rc;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		memset(&args, 0, sizeof(args));
		return cli_help(&args);
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("sluice %s\n", SLUICE_VERSION);
		return CLI_OK;
	}
	cmd = cli_command_find(cli_commands, argv[1]);
	if (!cmd)
		return cli_command_unknown(argv[1]);
	process = arena_new(NULL);
	rc = cli_args_parse(cmd, argc - 2, argv + 2, &args);
	args.commands = cli_commands;
	args.arena = process;
	if (!rc)
		rc = cmd->run(&args);
	free(args.pos);
	arena_free(process);
	return rc == CLI_HELP ? CLI_OK : rc;
}
