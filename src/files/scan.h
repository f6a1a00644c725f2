/*
 * The files a files source may read: its folder listed, the names its
 * pattern matches, each file judged before anything reads it. Only the
 * folder is looked at; nothing here opens a file's content or the
 * warehouse.
 */
#ifndef SL_FILES_SCAN_H
#define SL_FILES_SCAN_H

#include <stddef.h>
#include <stdint.h>

struct arena;
struct sl_err;

/* A file of the folder, as one look found it. */
struct files_entry {
	const char *name; /* the folder as configured, '/', the file's name: what it
			   * is called in messages, _sluice_file and the ledger */
	const char *at;   /* the entry in the folder (a link itself, not followed) */
	const char *open; /* what is opened: its real path, links followed */
	int64_t size, mtime_ns;
	uint64_t dev, ino;
	const char *refused; /* why it is not read, or NULL */
};

struct files_listing {
	struct files_entry *items; /* sorted by name */
	size_t n, cap;
};

/* A source's path taken apart: the folder (as written, without a last
 * '/'; "." for none) and the pattern its files' names match ("*" for a
 * folder: the path names one, or ends with '/'). A path whose last part
 * has no wildcard and is a folder under root is that folder. In a. */
void files_path_split(struct arena *a, const char *root, const char *path, const char **dir,
		      const char **pattern);

/* The files of dir (relative to root unless absolute) whose names match
 * pattern, in a. Names starting with '.' or '_' (temporary files, markers
 * such as _SUCCESS) and folders are passed over. Refused, with why: a link
 * that leads out of the folder or to what is not a regular file, a name
 * holding a character DuckDB's readers take as a wildcard, a file larger
 * than max_size. A folder that is not there or cannot be read is
 * SL_E_NOTFOUND or SL_E_IO. */
int files_scan(struct arena *a, const char *root, const char *dir, const char *pattern,
	       int64_t max_size, struct files_listing *out, struct sl_err *err);

#endif
