/*
 * Reading a project's own files (sluice.yml, pipeline.yml, model SQL, seed
 * CSVs) whole into memory, refusing what cannot be one: anything that is
 * not a regular file once links are followed (a FIFO would block, a device
 * never ends), a file over its size limit, and for the text files NUL
 * bytes or bytes that are not UTF-8.
 */
#ifndef SL_PROJECT_FILES_H
#define SL_PROJECT_FILES_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct diag_list;

/* The largest sluice.yml, pipeline.yml or model file: a project's text is
 * hand-written, so a file past this is not one. */
#define PROJECT_TEXT_MAX ((size_t)4 * 1024 * 1024)
/* The largest seed: what the warehouses' seed loaders read whole. */
#define PROJECT_SEED_MAX ((size_t)64 * 1024 * 1024)

/* Reads path into *out (NUL-terminated, in a; *len bytes without the NUL).
 * text asks for UTF-8 without NUL bytes. Never blocks: a FIFO is refused
 * before anything is read from it. A problem is added to diags at display
 * (the name shown, e.g. "models/gold/x.sql") with its line when it has
 * one. Returns 0, SL_E_IO (missing, unreadable or not a regular file),
 * SL_E_TOOBIG, or SL_E_PARSE (not text). */
int project_file_read(struct arena *a, const char *path, const char *display, size_t limit,
		      bool text, struct diag_list *diags, char **out, size_t *len);
/* Whether there is an entry at path at all, whatever it is (a link to
 * nothing too): a file of the project's that is there is read, and a
 * reader refuses it clearly when it cannot be one. */
bool project_file_exists(const char *path);

#endif
