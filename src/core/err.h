/*
 * Error values. Every function that can fail returns 0 or a negative SL_E_*
 * code and fills an optional struct sl_err with a message and context lines.
 * There is no global "last error": the caller's struct is the only channel.
 * Codes are only ever appended to SL_ERRORS, never renumbered.
 */
#ifndef SL_CORE_ERR_H
#define SL_CORE_ERR_H

#include <stddef.h>

#define SL_ERRORS(X)                                              \
	X(SL_E_NOMEM, -1, "out of memory")                        \
	X(SL_E_IO, -2, "input/output error")                      \
	X(SL_E_PARSE, -3, "parse error")                          \
	X(SL_E_CONFIG, -4, "invalid configuration")               \
	X(SL_E_SQL, -5, "warehouse error")                        \
	X(SL_E_NOTFOUND, -6, "not found")                         \
	X(SL_E_CYCLE, -7, "dependency cycle")                     \
	X(SL_E_INVALID, -8, "validation failed")                  \
	X(SL_E_ASSERT, -9, "assertion failed")                    \
	X(SL_E_LOCKED, -10, "locked by another process")          \
	X(SL_E_USAGE, -11, "invalid usage")                       \
	X(SL_E_VERSION, -12, "state version mismatch")            \
	X(SL_E_TOOBIG, -13, "size limit exceeded")                \
	X(SL_E_INTERNAL, -14, "internal error")                   \
	X(SL_E_SKIPPED, -15, "skipped")                           \
	X(SL_E_BUSY, -16, "busy, try again")                      \
	X(SL_E_AUTH_MISSING, -17, "credentials missing")          \
	X(SL_E_AUTH_MALFORMED, -18, "malformed credentials")      \
	X(SL_E_AUTH_EXPIRED, -19, "credentials expired")          \
	X(SL_E_AUTH_DENIED, -20, "credentials rejected")          \
	X(SL_E_SUSPECT, -21, "the warehouse failed a write and is in doubt") \
	X(SL_E_BLOCKED, -22, "waiting for its upstreams")                 \
	X(SL_E_CONN, -23, "the warehouse is unreachable, try again")

enum sl_code {
	SL_OK = 0,
#define SL_ERR_ENUM(name, value, text) name = value,
	SL_ERRORS(SL_ERR_ENUM)
#undef SL_ERR_ENUM
};

/* The exit status of a process that stopped because its warehouse failed
 * a write (SL_E_SUSPECT): it left without closing the warehouse, so that
 * starting it again opens it from what is on disk. */
#define SL_EXIT_SUSPECT 3

#define SL_ERR_MSG_MAX 4096

struct sl_err {
	int code;
	char msg[SL_ERR_MSG_MAX];
};

#define SL_ERR_INIT { 0, { 0 } }

/* Sets code and message (printf format) and returns code, so a caller can
 * write `return sl_err_set(err, SL_E_IO, "cannot read '%s'", path);`.
 * err may be NULL. */
int sl_err_set(struct sl_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Appends a context line ("in model gold.revenue (models/gold/revenue.sql:4)")
 * below the message; a no-op when err is NULL or holds no error. */
void sl_err_context(struct sl_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void sl_err_clear(struct sl_err *err);

/* The symbolic name ("SL_E_IO") and the fixed text of a code; static strings. */
const char *sl_code_name(int code);
const char *sl_code_text(int code);

/* The warehouse failed a write and is in doubt (SL_E_SUSPECT): says so on
 * stderr as "sluice COMMAND: the warehouse failed a write (what failed);
 * OUTCOME", err's context lines below, and leaves at once with
 * SL_EXIT_SUSPECT, as kill -9 would, closing nothing: the next start opens
 * the warehouse from what is on disk. command may be NULL. */
void sl_exit_suspect(const char *command, const char *outcome, const struct sl_err *err)
	__attribute__((noreturn));

#endif
