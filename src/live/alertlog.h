/*
 * The alerts a project's processes sent, kept in its folder for the
 * server to show: `.sluice/alerts.jsonl`, one JSON object a line (the
 * alert as its command got it, with how the delivery went), whichever
 * process sent it (`sluice run`, `sluice live`, `sluice serve`'s runner).
 * A line is appended whole, in one write, under a lock file every process
 * of the folder takes; when a line would take the file past
 * ALERT_LOG_MAX bytes, the file becomes `alerts.jsonl.1` (the one before
 * is dropped) and a new one starts, so the log never holds more than
 * twice that.
 */
#ifndef SL_LIVE_ALERTLOG_H
#define SL_LIVE_ALERTLOG_H

#include <stddef.h>

struct arena;
struct sl_err;

#define ALERT_LOG_MAX (256 * 1024)
/* The longest line: an alert over it has its error cut short */
#define ALERT_LOG_LINE_MAX (8 * 1024)

/* Appends the alert alert_json (one JSON object, as the command got it)
 * to the log of the project folder root, with "delivery" (how the command
 * took it: "sent", "no command", "exit status N", "not started") added.
 * SL_E_IO when the folder cannot be written, SL_E_PARSE when alert_json
 * is no object: the caller says so and goes on, as for a delivery that
 * failed. */
int alert_log_add(const char *root, const char *alert_json, const char *delivery,
		  struct sl_err *err);

/* The newest max alerts of root's log at most, newest first, each the
 * text of its line (without the newline), into *lines (n of them), all in
 * a; none when there is no log yet. A line cut short (a write that failed
 * half way) is left out. */
int alert_log_read(const char *root, struct arena *a, size_t max, const char ***lines, size_t *n,
		   struct sl_err *err);

#endif
