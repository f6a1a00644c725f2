/*
 * A files source's lander on a thread of its own, for `sluice serve`: a
 * look at the folder every interval (sooner when a file waits to settle),
 * landing through the server's writer, whose commits wake the live
 * runner. Its status may be read from any thread.
 */
#ifndef SL_FILES_THREAD_H
#define SL_FILES_THREAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct arena;
struct ingest_writer;
struct sl_err;
struct source_cfg;
struct wh;

struct files_thread;

/* Starts src's lander (src must outlive it) in the project folder root,
 * on r, which it owns from now on; wr must stay running until it is
 * stopped. Each file's outcome is logged to log (may be NULL), a line
 * each, files still being written left out. */
int files_thread_start(struct arena *parent, const struct source_cfg *src, const char *root,
		       struct wh *r, struct ingest_writer *wr, FILE *log,
		       struct files_thread **out, struct sl_err *err);
/* Ends the look in progress after its file, joins the thread and closes
 * its connection; its status stays readable. */
void files_thread_stop(struct files_thread *t);
void files_thread_free(struct files_thread *t);

/* {"source", "path", "state" (new, ok, failing), "files" (landed), "rows",
 * "waiting" (files still being written at the last look), "last_file",
 * "last_ok", "last_error", "last_error_at", "failures" (looks in a row
 * that failed, or files that failed since the last landing)}; times UTC
 * "YYYY-MM-DD HH:MM:SS" or null. A new reference. */
json_t *files_thread_status(struct files_thread *t);
/* Whether its warehouse connection is lost. */
bool files_thread_down(struct files_thread *t);

#endif
