/*
 * The command handlers, one per file in src/cli/, gathered in the command
 * table of commands.c.
 */
#ifndef SL_CLI_COMMANDS_H
#define SL_CLI_COMMANDS_H

#include "cli/cli.h"

int cli_init(struct cli_args *args);
int cli_run(struct cli_args *args);
int cli_replay(struct cli_args *args);
int cli_seed(struct cli_args *args);
int cli_plan(struct cli_args *args);
int cli_test(struct cli_args *args);
int cli_validate(struct cli_args *args);
int cli_compile(struct cli_args *args);
int cli_windows(struct cli_args *args);
int cli_profile(struct cli_args *args);
int cli_ls(struct cli_args *args);
int cli_dag(struct cli_args *args);
int cli_docs(struct cli_args *args);
int cli_lineage(struct cli_args *args);
int cli_sql(struct cli_args *args);
int cli_live(struct cli_args *args);
int cli_check(struct cli_args *args);
int cli_serve(struct cli_args *args);
int cli_poll(struct cli_args *args);
int cli_kafka(struct cli_args *args);
int cli_files(struct cli_args *args);
int cli_cdc(struct cli_args *args);
int cli_help(struct cli_args *args);

/* The commands, ended by a NULL name. */
extern const struct cli_command cli_commands[];
/* Says on stderr that word is no command, with the nearest one as a hint;
 * returns CLI_USAGE. */
int cli_command_unknown(const char *word);

#endif
