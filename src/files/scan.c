/*
 * This file implements the listing of a files source's folder (scan.h).
 * It must never follow a link out of the folder, nor open a file: what is
 * read is decided here, and read by others.
 */
#include "files/scan.h"

#include "core/arena.h"
#include "core/err.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Characters DuckDB's readers would take as a pattern of file names,
 * reading other files than the one named. */
#define GLOB_CHARS "*?[]{}"

static const char *joined(struct arena *a, const char *root, const char *path)
{
	return path[0] == '/' ? arena_strdup(a, path) : arena_sprintf(a, "%s/%s", root, path);
}

void files_path_split(struct arena *a, const char *root, const char *path, const char **dir,
		      const char **pattern)
{
	const char *slash = strrchr(path, '/');
	size_t len = strlen(path);
	struct stat st;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (slash && !slash[1]) {
		*dir = arena_strndup(a, path, len);
		*pattern = "*";
	} else if (!strpbrk(slash ? slash + 1 : path, "*?[") &&
		   stat(joined(a, root, path), &st) == 0 && S_ISDIR(st.st_mode)) {
		*dir = arena_strdup(a, path);
		*pattern = "*";
	} else if (slash) {
		*dir = slash == path ? "/" : arena_strndup(a, path, (size_t)(slash - path));
		*pattern = arena_strdup(a, slash + 1);
	} else {
		*dir = ".";
		*pattern = arena_strdup(a, path);
	}
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct files_entry *)x)->name, ((const struct files_entry *)y)->name);
}

/* Whether real lies inside the folder whose real path is base. */
static bool inside(const char *real, const char *base)
{
	size_t n = strlen(base);

	if (n == 1 && base[0] == '/')
		return true;
	return strncmp(real, base, n) == 0 && real[n] == '/';
}

/* One entry of the folder judged; false when it is not a file to list. */
static bool judge(struct arena *a, const char *full, const char *base, int64_t max_size,
		  struct files_entry *e)
{
	char real[PATH_MAX];
	struct stat lst, st;

	if (lstat(full, &lst) != 0 || S_ISDIR(lst.st_mode))
		return false;
	e->at = full;
	e->open = full;
	if (S_ISLNK(lst.st_mode)) {
		if (!realpath(full, real) || stat(real, &st) != 0) {
			e->refused = "a link to nothing: not read";
			return true;
		}
		if (S_ISDIR(st.st_mode))
			return false;
		if (!inside(real, base)) {
			e->refused = "a link that leads out of the folder: not read";
			return true;
		}
		e->open = arena_strdup(a, real);
	} else {
		st = lst;
	}
	e->size = st.st_size;
	e->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	if (!S_ISREG(st.st_mode))
		e->refused = "not a regular file: not read";
	else if (strpbrk(e->open, GLOB_CHARS))
		e->refused = "its path holds one of * ? [ ] { }, which DuckDB's readers take as a "
			     "pattern of names: rename it";
	else if (e->size > max_size)
		e->refused = arena_sprintf(a, "%lld bytes, more than max_file_size (%lld): not read",
					   (long long)e->size, (long long)max_size);
	return true;
}

int files_scan(struct arena *a, const char *root, const char *dir, const char *pattern,
	       int64_t max_size, struct files_listing *out, struct sl_err *err)
{
	const char *folder = joined(a, root, dir);
	char base[PATH_MAX];
	struct dirent *d;
	DIR *dp;

	memset(out, 0, sizeof(*out));
	if (!realpath(folder, base) || !(dp = opendir(base)))
		return sl_err_set(err, errno == ENOENT ? SL_E_NOTFOUND : SL_E_IO,
				  "cannot read folder '%s': %s", dir, strerror(errno));
	while ((d = readdir(dp)) != NULL) {
		struct files_entry e = { 0 };

		if (d->d_name[0] == '.' || d->d_name[0] == '_' || fnmatch(pattern, d->d_name, 0))
			continue;
		e.name = strcmp(dir, ".") ? arena_sprintf(a, "%s%s%s", dir,
							  dir[strlen(dir) - 1] == '/' ? "" : "/",
							  d->d_name)
					  : arena_strdup(a, d->d_name);
		if (judge(a, arena_sprintf(a, "%s/%s", base, d->d_name), base, max_size, &e))
			*(struct files_entry *)ARENA_PUSH(a, &out->items, &out->n, &out->cap) = e;
	}
	closedir(dp);
	if (out->n)
		qsort(out->items, out->n, sizeof(*out->items), by_name);
	return 0;
}
