/*
 * The rows of `_sluice.landed_files`: per files source, each file that
 * landed, by its path and the SHA-256 of its content, with its size, row
 * count and sequence. A file is recorded in the transaction that lands
 * its rows, so the two commit together: a path and hash on record never
 * land again.
 */
#ifndef SL_STATE_FILES_H
#define SL_STATE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct wh;

struct state_landed_file {
	const char *source;  /* "landing.NAME" */
	const char *path;    /* relative to the project folder, as configured */
	const char *sha256;  /* 64 lowercase hex digits */
	int64_t size, rows, seq;
};

/* Whether f's source landed f's path with f's hash; when it did, *landed
 * is set and f->size, rows and seq get what was recorded. */
int state_files_find(struct wh *w, struct state_landed_file *f, bool *landed,
		     struct sl_err *err);

/* Records f, landed at now (a UTC timestamp's text), in the caller's
 * transaction. */
int state_files_record(struct wh *w, const struct state_landed_file *f, const char *now,
		       struct sl_err *err);

/* Every file source landed, oldest first, in a (source, path and sha256
 * too). */
int state_files_read(struct wh *w, struct arena *a, const char *source,
		     struct state_landed_file **out, size_t *n, struct sl_err *err);

#endif
