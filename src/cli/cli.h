/*
 * What every command shares: the parsed command line, the project session
 * (project loaded and validated, warehouse open) and output helpers. Each
 * command lives in its own file and is listed in commands.c's table.
 */
#ifndef SL_CLI_CLI_H
#define SL_CLI_CLI_H

#include "ingest/isotime.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

struct arena;
struct ingest_writer;
struct project;
struct project_cfg;
struct source_cfg;
struct sl_err;
struct sqlparse;
struct wh;
struct wh_result;

enum cli_flag {
	CLI_F_PROJECT = 1 << 0,
	CLI_F_SELECT = 1 << 1,
	CLI_F_FULL_REFRESH = 1 << 2,
	CLI_F_JSON = 1 << 3,
	CLI_F_DOT = 1 << 4,
	CLI_F_ONCE = 1 << 5,
	CLI_F_LISTEN = 1 << 6,
	CLI_F_RESNAPSHOT = 1 << 7,
	CLI_F_WINDOW = 1 << 8, /* --since, --until */
	CLI_F_MODE = 1 << 9,   /* --mode, --chunk */
	CLI_F_STATUS = 1 << 10,
	CLI_F_ENV = 1 << 11, /* --env, else SLUICE_ENV */
	CLI_F_WORKERS = 1 << 12,
	CLI_F_FILE = 1 << 13,   /* -f FILE */
	CLI_F_FORMAT = 1 << 14, /* --format, --max-rows */
	CLI_F_FAIL_ON_WAIT = 1 << 15,
	CLI_F_LINEAGE = 1 << 16, /* --upstream, --downstream, --depth */
	CLI_F_RESET = 1 << 17,
	CLI_F_REPLAY = 1 << 18, /* --dry-run */
	CLI_F_START = 1 << 19,  /* --start-time */
	CLI_F_OUT = 1 << 20,    /* --out DIR */
};

struct cli_args {
	const char *command;
	const char *project, *select, *listen;
	bool full_refresh, json, dot, once, resnapshot, fail_on_wait;
	const char *since, *until, *mode, *chunk, *status;
	const char *env; /* an environment to build into, or NULL */
	const char *workers;
	const char *file, *format, *max_rows;
	bool upstream, downstream, openlineage, audit, edges;
	const char *depth;
	const char *reset;
	const char *start_time;
	const char *out_dir;
	bool dry_run;
	const char **pos; /* positional arguments */
	int npos;
	char **argv; /* the arguments after the command name, as given */
	int argc;
	/* Set by a server that runs the command for a client: the warehouse
	 * connection to use (borrowed, not closed), where its output and
	 * errors go, and the client's SLUICE_NOW. NULL in a command of its
	 * own, which prints to stdout and stderr. */
	struct wh *wh;
	FILE *out, *err;
	const char *now;
	/* The command table, for a command that runs others by name (serve
	 * runs its clients'): handed down by the dispatcher rather than
	 * linked, since the table lists that command too. */
	const struct cli_command *commands;
	/* Set by a server for a client's command: the project its live
	 * runner refreshes by, as it was when the server started. */
	const struct project *served;
	/* The parent of the command's arena: the process's, or the server's
	 * for a client's command (NULL: a root). */
	struct arena *arena;
};

/* A flag several commands may take, with its help beside it (git's
 * parse-options): `sluice help CMD` explains each flag CMD lists. */
struct cli_option {
	const char *long_name;
	char short_name;
	unsigned bit;      /* enum cli_flag: the commands that take it */
	const char *value; /* the name of its value in help, NULL: it takes none */
	const char *help;  /* what it does, one sentence without a full stop */
};

/* The flags, in the order a command's help lists them. */
extern const struct cli_option cli_options[];

/* A command's own words for a flag whose meaning is the command's (what
 * one round of --once is). */
struct cli_option_note {
	const char *long_name;
	const char *help;
};

struct cli_command {
	const char *name;
	int (*run)(struct cli_args *args);
	unsigned flags;
	int nargs;           /* positional arguments it takes, at most */
	const char *usage;   /* synopsis: the arguments after the name */
	const char *summary; /* one line */
	const struct cli_option_note *notes; /* ended by a NULL name, or NULL */
};

/* Exit codes */
#define CLI_OK 0
#define CLI_FAILED 1
#define CLI_USAGE 2
/* 3 is sl_exit_suspect's: the warehouse failed a write */
#define CLI_WAITED 4 /* --fail-on-wait: nothing failed, but something waited */
#define CLI_HELP (-1) /* not an exit code: usage was printed, stop with 0 */

/* The command of table called name, or NULL. */
const struct cli_command *cli_command_find(const struct cli_command *table, const char *name);
/* The help of flag f for command c: the command's note on it, else the
 * flag's own. */
const char *cli_option_help(const struct cli_command *c, const struct cli_option *f);
/* Prints c's help to out: its synopsis, what it does, and each flag it
 * takes with what it does, aligned. */
void cli_print_usage(FILE *out, const struct cli_command *c);

/* Parses argv after the command name; unknown or disallowed flags and
 * extra arguments are usage errors printed to stderr. --help prints the
 * command's usage and returns CLI_HELP. */
int cli_args_parse(const struct cli_command *cmd, int argc, char **argv, struct cli_args *out);

struct cli_session {
	const char *command; /* "run" */
	struct arena *arena;
	char *root;
	struct project *project;
	struct sqlparse *parser;
	struct wh *wh;              /* NULL unless opened */
	const char **relations;     /* the warehouse's relations, sorted */
	size_t nrelations;
	const char *warehouse_path; /* as shown to the user */
	bool borrowed;              /* wh is a server's: not closed here */
	FILE *out, *err;            /* stdout and stderr, or a server's buffers */
};

enum cli_open { CLI_OPEN_NONE, CLI_OPEN_READ, CLI_OPEN_WRITE };

/* Locates and loads the project, opens the warehouse as asked and, when
 * validate is set, checks the project and prints every diagnostic to
 * stderr. Returns CLI_OK, or the exit code to leave with (the session is
 * then closed). Without validate, only the project settings need to be
 * sound: that is enough to reach the warehouse. */
int cli_session_open(struct cli_session *s, const struct cli_args *args, enum cli_open mode,
		     bool validate);
/* Opens the warehouse of a session opened with CLI_OPEN_NONE, as mode
 * says, for commands that decide late whether they need it. */
int cli_session_open_warehouse(struct cli_session *s, enum cli_open mode, struct sl_err *err);
/* Opens the warehouse for writing into s->wh (made when missing), as a
 * session that opened none does when it is time to; SL_E_LOCKED while
 * another process holds a DuckDB file. */
int cli_session_connect(struct cli_session *s, struct sl_err *err);
/* Closes the session; one whose warehouse failed a write in doubt ends the
 * process instead (sl_exit_suspect). */
void cli_session_close(struct cli_session *s);

/* The columns of a table no model makes, as the session's warehouse has
 * them (lowercase), for the column lineage (lineage_columns_fn, ctx the
 * session); false without a warehouse or such a table. */
bool cli_warehouse_columns(void *ctx, const char *schema, const char *table,
			   const char *const **cols, size_t *n);

/* Whether `sluice serve` holds the session's warehouse, so that a command
 * must go through it: a server runs for the folder and the warehouse is one
 * a single process holds (wh_place_exclusive); its port into *port. */
bool cli_session_served(const struct cli_session *s, int *port);

/* The source of kind ("poll", "postgres_cdc") called name in cfg, or NULL
 * once the problem is printed to stderr (hint when there is none of the
 * kind at all). */
const struct source_cfg *cli_find_source(const struct project_cfg *cfg, const char *name,
					 const char *kind, const char *hint);
/* When `sluice serve` holds the project's warehouse (and args is the
 * command line's, not a server's), has it run the command args names
 * (POST /api/commands/NAME), prints what it printed, puts its exit code
 * in *rc and returns true; false when no server runs. */
bool cli_forward(const struct cli_args *args, int *rc);
/* Prints a server's error answer (its status and the detail of its JSON
 * body) as the command's error. */
void cli_print_refusal(int status, const char *body, size_t len);
/* For the foreground consumers of sources (cli/landing.c): sleeps ms in
 * steps of 100 ms, ending early once *stopping is set. */
void cli_nap(int64_t ms, volatile sig_atomic_t *stopping);
/* One landing on the session's open warehouse (the state and landing
 * tables made first): land(ctx, wr, err) with a landing writer of its
 * own, stopped after it. A write that fails in doubt ends the process
 * (sl_exit_suspect(who, in_doubt)). */
int cli_land(struct cli_session *s, const char *who, const char *in_doubt,
	     int (*land)(void *ctx, struct ingest_writer *wr, struct sl_err *err), void *ctx,
	     struct sl_err *err);

/* Makes the folders a file path is in (each one up to its last '/'),
 * those already there kept; -1 with errno set when one cannot be made.
 * path is changed while it works and given back as it was. */
int cli_make_parents(char *path);

/* Prints an error value as "sluice: message" (with its context lines). */
void cli_print_err(const struct sl_err *err);
/* The same to f. */
void cli_print_err_to(FILE *f, const struct sl_err *err);
/* The time windows are decided at, in UTC seconds: now, or SLUICE_NOW
 * when set (a UTC time, for reproducible runs); -1 after printing why
 * SLUICE_NOW is not a time. */
int64_t cli_window_clock(const char *cmd);
/* The same with fixed for SLUICE_NOW (NULL: now), the message to err. */
int64_t cli_window_clock_at(const char *cmd, const char *fixed, FILE *err);
/* A --start-time as the warehouse's UTC timestamp text into out: an
 * ISO-8601 instant with its offset, or unix seconds; CLI_USAGE after
 * printing why not. Nothing given: CLI_OK, out untouched. */
int cli_start_time(const char *cmd, const char *given, char out[ISOTIME_MAX], FILE *err);
/* Prints a result as an aligned text table. */
void cli_print_table(FILE *out, const struct wh_result *r, const char *indent);
/* The same for rows from elsewhere (a server's answer): cell gives row 0's
 * column names and row i's values (row i - 1 of the rows), NULL for SQL
 * NULL, with their length in bytes. */
struct cli_rows {
	size_t ncols, nrows;
	const char *(*cell)(const void *src, size_t row, size_t col, size_t *len);
	const void *src;
};
void cli_print_rows(FILE *out, const struct cli_rows *t, const char *indent);

#endif
