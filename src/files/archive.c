/*
 * This file implements the move of a landed file into its source's
 * archive_folder (archive.h). It must never overwrite a file there, and
 * never be called before the file's landing committed: the ledger, not the
 * folder, says what landed.
 */
#include "files/archive.h"

#include "core/arena.h"
#include "core/err.h"
#include "files/scan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Makes path and the folders above it that are missing. */
static int make_folders(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int files_archive(struct arena *a, const char *root, const char *folder,
		  const struct files_entry *e, const char *sha256, const char **to,
		  struct sl_err *err)
{
	char *dir = folder[0] == '/' ? arena_strdup(a, folder)
				     : arena_sprintf(a, "%s/%s", root, folder);
	const char *base = strrchr(e->name, '/');
	const char *name, *target;
	struct stat st;

	base = base ? base + 1 : e->name;
	if (make_folders(dir) != 0)
		return sl_err_set(err, SL_E_IO, "%s: cannot make archive_folder '%s': %s", e->name,
				  folder, strerror(errno));
	name = base;
	target = arena_sprintf(a, "%s/%s", dir, name);
	if (lstat(target, &st) == 0) {
		name = arena_sprintf(a, "%s.%.12s", base, sha256);
		target = arena_sprintf(a, "%s/%s", dir, name);
	}
	*to = arena_sprintf(a, "%s/%s", folder, name);
	if (lstat(target, &st) == 0) {
		if (unlink(e->at) != 0 && errno != ENOENT)
			return sl_err_set(err, SL_E_IO, "%s: cannot remove it, archived before as %s: %s",
					  e->name, *to, strerror(errno));
		return 0;
	}
	if (rename(e->at, target) != 0)
		return sl_err_set(err, SL_E_IO, "%s: cannot move it to %s: %s%s", e->name, *to,
				  strerror(errno),
				  errno == EXDEV ? " (archive_folder must be on the folder's file system)"
						 : "");
	return 0;
}
