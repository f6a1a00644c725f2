/*
 * Command-line flags shared by every command, parsed in one place. A
 * command lists the flags it accepts; anything else is a usage error.
 */
#include "cli/cli.h"

#include "core/err.h"
#include "core/suggest.h"

#include <stdlib.h>
#include <string.h>

struct flag_spec {
	const char *long_name;
	char short_name;
	unsigned bit;
	bool takes_value;
};

static const struct flag_spec flags[] = {
	{ "project", 'p', CLI_F_PROJECT, true },
	{ "select", 's', CLI_F_SELECT, true },
	{ "full-refresh", 0, CLI_F_FULL_REFRESH, false },
	{ "json", 0, CLI_F_JSON, false },
	{ "dot", 0, CLI_F_DOT, false },
	{ "once", 0, CLI_F_ONCE, false },
	{ "listen", 0, CLI_F_LISTEN, true },
	{ "resnapshot", 0, CLI_F_RESNAPSHOT, false },
	{ "since", 0, CLI_F_WINDOW, true },
	{ "until", 0, CLI_F_WINDOW, true },
	{ "mode", 0, CLI_F_MODE, true },
	{ "chunk", 0, CLI_F_MODE, true },
	{ "status", 0, CLI_F_STATUS, true },
	{ "env", 0, CLI_F_ENV, true },
	{ "workers", 0, CLI_F_WORKERS, true },
	{ "file", 'f', CLI_F_FILE, true },
	{ "format", 0, CLI_F_FORMAT, true },
	{ "max-rows", 0, CLI_F_FORMAT, true },
	{ "fail-on-wait", 0, CLI_F_FAIL_ON_WAIT, false },
	{ NULL, 0, 0, false },
};

static const struct flag_spec *find_flag(const char *arg, const char **value)
{
	*value = NULL;
	if (arg[0] == '-' && arg[1] != '-' && arg[1] && !arg[2]) {
		for (size_t i = 0; flags[i].long_name; i++)
			if (flags[i].short_name == arg[1])
				return &flags[i];
		return NULL;
	}
	if (strncmp(arg, "--", 2) != 0)
		return NULL;
	arg += 2;
	for (size_t i = 0; flags[i].long_name; i++) {
		size_t n = strlen(flags[i].long_name);

		if (strncmp(arg, flags[i].long_name, n) != 0)
			continue;
		if (arg[n] == '=') {
			*value = arg + n + 1;
			return &flags[i];
		}
		if (!arg[n])
			return &flags[i];
	}
	return NULL;
}

static void set_flag(const struct flag_spec *f, const char *value, struct cli_args *out)
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
	}
}

static void unknown_flag(const struct cli_command *cmd, const char *arg)
{
	const char *names[sizeof(flags) / sizeof(*flags)];
	const char *near;
	size_t n = 0;

	for (size_t i = 0; flags[i].long_name; i++)
		if (cmd->flags & flags[i].bit)
			names[n++] = flags[i].long_name;
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
	out->pos = calloc((size_t)argc + 1, sizeof(char *));
	if (!out->pos)
		abort();
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *value;
		const struct flag_spec *f;

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
			cli_print_usage(cmd);
			return CLI_HELP;
		}
		f = find_flag(arg, &value);
		if (!f || !(cmd->flags & f->bit)) {
			unknown_flag(cmd, arg);
			return CLI_USAGE;
		}
		if (f->takes_value && !value) {
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
