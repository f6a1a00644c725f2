/*
 * A files source's lander: one look at its folder lands each settled file
 * that its ledger does not have, one file per landing transaction through
 * the landing writer, the file's name and hash recorded in that
 * transaction; then, when the source has an archive_folder, moves it
 * there. A kill -9 anywhere, then a look again, lands every file once: a
 * file that landed is known by its hash and only moved. Nothing here
 * opens the warehouse: callers hand in the connections.
 */
#ifndef SL_FILES_LANDER_H
#define SL_FILES_LANDER_H

#include <stddef.h>
#include <stdint.h>

struct arena;
struct ingest_writer;
struct sl_err;
struct source_cfg;
struct wh;

struct files_lander;

enum files_outcome {
	FILES_OUT_LANDED,      /* landed; detail: where it was moved, or NULL */
	FILES_OUT_NEW_VERSION, /* a file of its name had landed with other content */
	FILES_OUT_MOVED,       /* landed before (a look cut short): now moved */
	FILES_OUT_FAILED,      /* not landed; detail: why, naming it first */
	FILES_OUT_WAITING,     /* still being written, or changed since it was seen */
};

/* What happened to one file in a look. */
struct files_event {
	enum files_outcome what;
	const char *name;
	const char *detail;
	int64_t rows;
};

/* What one look did; events in the arena files_land was given. */
struct files_result {
	struct files_event *events;
	size_t n, cap;
	int64_t files, rows;  /* landed */
	int64_t seq;          /* the last landing's sequence */
	int64_t failed, waiting;
	int64_t wait_ms;      /* when the first waiting file may have settled */
	int64_t wait_all_ms;  /* when every waiting file may have, unchanged */
	const char *last;     /* the name of the last file landed, or NULL */
};

/* A lander of src (a files source, which must outlive it) in the project
 * folder root, in an arena of its own under parent (may be NULL). Free
 * with files_lander_free. */
int files_lander_new(struct arena *parent, const struct source_cfg *src, const char *root,
		     struct files_lander **out, struct sl_err *err);
void files_lander_free(struct files_lander *l);
/* Makes the look in progress end after the file it lands, and every later
 * one fail at once (SL_E_BUSY). Only stores a flag: safe in a signal
 * handler. */
void files_lander_cancel(struct files_lander *l);

/* One look: lands what is settled and new through wr (the ledger read on r
 * at the first look), res in a. A file that fails for its own sake (the
 * reader refuses it, a link out of the folder, too large) is an event and
 * said once per version; the others still land. Errors that stop the look
 * (the folder cannot be read, the warehouse or the writer failed):
 *   SL_E_NOTFOUND, SL_E_IO  the folder
 *   SL_E_BUSY               cancelled, or the writer refused the file
 *   and the writer's (SL_E_CONN, SL_E_SUSPECT). */
int files_land(struct files_lander *l, struct arena *a, struct wh *r, struct ingest_writer *wr,
	       struct files_result *res, struct sl_err *err);

/* ev as a line for people, without an end of line, in a:
 * "files NAME: incoming/a.csv landed: 3 rows". */
const char *files_event_text(struct arena *a, const char *source, const struct files_event *ev);

#endif
