/*
 * Error values: formatting of messages and context lines into the caller's
 * struct sl_err. Never allocates, so it works when memory has run out.
 */
#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sl_err_set(struct sl_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void sl_err_context(struct sl_err *err, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	if (!err || !err->code)
		return;
	len = strlen(err->msg);
	if (len + 4 >= sizeof(err->msg))
		return;
	memcpy(err->msg + len, "\n  ", 3);
	len += 3;
	va_start(ap, fmt);
	vsnprintf(err->msg + len, sizeof(err->msg) - len, fmt, ap);
	va_end(ap);
}

void sl_err_clear(struct sl_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

const char *sl_code_name(int code)
{
	switch (code) {
	case SL_OK:
		return "SL_OK";
#define SL_ERR_NAME(name, value, text) \
	case name:                     \
		return #name;
		SL_ERRORS(SL_ERR_NAME)
#undef SL_ERR_NAME
	}
	return "SL_E_UNKNOWN";
}

const char *sl_code_text(int code)
{
	switch (code) {
	case SL_OK:
		return "ok";
#define SL_ERR_TEXT(name, value, text) \
	case name:                     \
		return text;
		SL_ERRORS(SL_ERR_TEXT)
#undef SL_ERR_TEXT
	}
	return "unknown error";
}

void sl_exit_suspect(const char *command, const char *outcome, const struct sl_err *err)
{
	int first = (int)strcspn(err->msg, "\n");

	fflush(stdout);
	fprintf(stderr, "sluice%s%s: the warehouse failed a write (%.*s); %s\n%s%s",
		command ? " " : "", command ? command : "", first, err->msg, outcome,
		err->msg[first] ? err->msg + first + 1 : "", err->msg[first] ? "\n" : "");
	fflush(stderr);
	_exit(SL_EXIT_SUSPECT);
}
