/*
 * This file implements the folder's log of alerts sent (alertlog.h). A
 * writer holds `.sluice/alerts.lock` exclusively while it decides whether
 * the log turns over and appends its line, a reader holds it shared, so
 * a reader never sees the log between its two files. It must never let a
 * line grow past ALERT_LOG_LINE_MAX, nor the log past twice ALERT_LOG_MAX.
 */
#include "live/alertlog.h"

#include "core/arena.h"
#include "core/err.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The line of the alert: its object with "delivery", its error cut short
 * when the line would be too long. malloc'ed, NULL when it is no object
 * or still too long. */
static char *alert_line(const char *alert_json, const char *delivery, struct sl_err *err)
{
	json_t *o = json_loads(alert_json, 0, NULL);
	const char *error;
	char *line = NULL;
	size_t len;

	if (!json_is_object(o)) {
		json_decref(o);
		sl_err_set(err, SL_E_PARSE, "an alert is one JSON object");
		return NULL;
	}
	json_object_set_new(o, "delivery", json_string(delivery));
	line = json_dumps(o, JSON_COMPACT);
	error = json_string_value(json_object_get(o, "error"));
	len = line ? strlen(line) : 0;
	if (line && len >= ALERT_LOG_LINE_MAX && error) {
		/* the escaped text is longer than the text: cut by what is over
		 * and a margin for what the cut mark costs, at a character's
		 * start */
		size_t over = len - ALERT_LOG_LINE_MAX + 16, keep = strlen(error);

		keep = over < keep ? keep - over : 0;
		while (keep && ((unsigned char)error[keep] & 0xC0) == 0x80)
			keep--;
		json_object_set_new(o, "error", json_sprintf("%.*s...", (int)keep, error));
		free(line);
		line = json_dumps(o, JSON_COMPACT);
		len = line ? strlen(line) : 0;
	}
	json_decref(o);
	if (line && len >= ALERT_LOG_LINE_MAX) {
		free(line);
		line = NULL;
	}
	if (!line)
		sl_err_set(err, SL_E_TOOBIG, "an alert's line is over %d bytes", ALERT_LOG_LINE_MAX);
	return line;
}

/* The lock file of root's log, taken as op (LOCK_EX, LOCK_SH); its
 * descriptor, which closing lets go, or -1 (err set). write: .sluice/ is
 * made when missing. */
static int lock_log(const char *root, int op, bool write, struct sl_err *err)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/.sluice", root);
	if (write && mkdir(path, 0755) && errno != EEXIST) {
		sl_err_set(err, SL_E_IO, "cannot make '%s': %s", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/.sluice/alerts.lock", root);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, op)) {
		sl_err_set(err, SL_E_IO, "cannot lock '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int alert_log_add(const char *root, const char *alert_json, const char *delivery,
		  struct sl_err *err)
{
	char *line = alert_line(alert_json, delivery, err);
	char path[4096], old[4200];
	struct stat st;
	int lock, fd, rc = 0;
	size_t len;

	if (!line)
		return err && err->code ? err->code : SL_E_PARSE;
	len = strlen(line);
	line[len++] = '\n'; /* over its NUL: the line is written by length */
	lock = lock_log(root, LOCK_EX, true, err);
	if (lock < 0) {
		free(line);
		return SL_E_IO;
	}
	snprintf(path, sizeof(path), "%s/.sluice/alerts.jsonl", root);
	snprintf(old, sizeof(old), "%s.1", path);
	if (stat(path, &st) == 0 && (size_t)st.st_size + len > ALERT_LOG_MAX && rename(path, old))
		rc = sl_err_set(err, SL_E_IO, "cannot turn '%s' over: %s", path, strerror(errno));
	fd = rc ? -1 : open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (!rc && (fd < 0 || write_all(fd, line, len)))
		rc = sl_err_set(err, SL_E_IO, "cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	close(lock);
	free(line);
	return rc;
}

/* Appends the whole lines of the file at path (a line cut short at its
 * end is not one) to *lines, in the file's order. */
static int read_lines(const char *path, struct arena *a, const char ***lines, size_t *n,
		      size_t *cap, struct sl_err *err)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t size = 0, len;

	if (!f)
		return errno == ENOENT ? 0
				       : sl_err_set(err, SL_E_IO, "cannot read '%s': %s", path,
						    strerror(errno));
	text = malloc(ALERT_LOG_MAX + ALERT_LOG_LINE_MAX + 1);
	/* a log is never longer than its bound and one line: read no more */
	len = text ? fread(text, 1, ALERT_LOG_MAX + ALERT_LOG_LINE_MAX, f) : 0;
	fclose(f);
	if (!text)
		return sl_err_set(err, SL_E_NOMEM, "out of memory");
	for (size_t at = 0; at < len; at += size + 1) {
		const char *nl = memchr(text + at, '\n', len - at);

		if (!nl)
			break;
		size = (size_t)(nl - (text + at));
		if (size)
			*(const char **)arena_push(a, (void **)lines, n, cap, sizeof(char *)) =
				arena_strndup(a, text + at, size);
	}
	free(text);
	return 0;
}

int alert_log_read(const char *root, struct arena *a, size_t max, const char ***lines, size_t *n,
		   struct sl_err *err)
{
	char path[4096], old[4200];
	const char **all = NULL;
	size_t nall = 0, cap = 0;
	int lock, rc;

	*lines = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/.sluice/alerts.jsonl", root);
	snprintf(old, sizeof(old), "%s.1", path);
	if (access(path, F_OK) && access(old, F_OK))
		return 0;
	lock = lock_log(root, LOCK_SH, false, err);
	if (lock < 0)
		return SL_E_IO;
	rc = read_lines(old, a, &all, &nall, &cap, err);
	if (!rc)
		rc = read_lines(path, a, &all, &nall, &cap, err);
	close(lock);
	if (rc)
		return rc;
	*n = nall < max ? nall : max;
	*lines = arena_alloc(a, (*n + 1) * sizeof(char *));
	for (size_t i = 0; i < *n; i++)
		(*lines)[i] = all[nall - 1 - i];
	return 0;
}
