/*
 * A landed file moved out of its source's folder into archive_folder,
 * only ever after the transaction that landed it committed.
 */
#ifndef SL_FILES_ARCHIVE_H
#define SL_FILES_ARCHIVE_H

struct arena;
struct files_entry;
struct sl_err;

/* Moves e (its entry in the folder: a link is moved, not what it names)
 * into folder (relative to root unless absolute; made when missing),
 * under its name, or, when a file of that name is there already, its name
 * and the first 12 digits of sha256; when that one is there too, the same
 * content was archived before and e is removed. *to gets where it went
 * (folder as written, '/', the name), in a. */
int files_archive(struct arena *a, const char *root, const char *folder,
		  const struct files_entry *e, const char *sha256, const char **to,
		  struct sl_err *err);

#endif
