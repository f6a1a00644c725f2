/*
 * This file implements the reading of a project's files. It looks at what
 * an open descriptor is before reading a byte, so that a FIFO, a device or
 * a folder named like a model is refused instead of blocking or being read
 * without end, and it reads no more than the limit. It must never block,
 * follow a file past its limit, or hand out text that is not what the file
 * holds.
 */
#include "project/files.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/err.h"
#include "core/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool project_file_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a folder";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	return "a socket";
}

/* The 1-based line of text[at]. */
static int line_of(const char *text, size_t at)
{
	int line = 1;

	for (size_t i = 0; i < at; i++)
		line += text[i] == '\n';
	return line;
}

/* Adds the problem when text is not UTF-8 without NUL bytes; true if so. */
static bool not_text(struct diag_list *diags, const char *display, const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len);
	size_t start = 0;

	if (nul) {
		diag_add(diags, DIAG_ERROR, display, line_of(text, (size_t)(nul - text)), 0,
			 "sluice reads its files as UTF-8 text: save it as such",
			 "'%s' holds a NUL byte", display);
		return true;
	}
	/* line by line, so that the report names the line to look at */
	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (!utf8_valid(text + start, end - start)) {
			diag_add(diags, DIAG_ERROR, display, line_of(text, start), 0,
				 "sluice reads its files as UTF-8 text: save it as such",
				 "'%s' is not UTF-8 text", display);
			return true;
		}
		start = end + 1;
	}
	return false;
}

int project_file_read(struct arena *a, const char *path, const char *display, size_t limit,
		      bool text, struct diag_list *diags, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct buf b = BUF_INIT;
	struct stat st;
	char chunk[65536];
	ssize_t n = 0;
	int rc = 0;

	*out = NULL;
	*len = 0;
	if (fd < 0 || fstat(fd, &st) != 0) {
		diag_add(diags, DIAG_ERROR, display, 0, 0, NULL, "cannot read '%s': %s", path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return SL_E_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_add(diags, DIAG_ERROR, display, 0, 0,
			 "a project's files are plain files: put one in its place, or move it out "
			 "of the project",
			 "'%s' is %s, not a regular file", display, file_kind(st.st_mode));
		close(fd);
		return SL_E_IO;
	}
	/* the size may change while it is read: the limit holds either way */
	while ((size_t)st.st_size <= limit && b.len <= limit &&
	       (n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		buf_add(&b, chunk, (size_t)n);
	}
	if (n < 0) {
		diag_add(diags, DIAG_ERROR, display, 0, 0, NULL, "cannot read '%s': %s", path,
			 strerror(errno));
		rc = SL_E_IO;
	} else if ((size_t)st.st_size > limit || b.len > limit) {
		diag_add(diags, DIAG_ERROR, display, 0, 0,
			 "sluice reads a project's files whole: keep data in the warehouse or a "
			 "seed, queries in model files",
			 "'%s' is larger than such a file may be (%zu MiB)", display,
			 limit / (1024 * 1024));
		rc = SL_E_TOOBIG;
	} else if (text && not_text(diags, display, b.buf, b.len)) {
		rc = SL_E_PARSE;
	} else {
		*out = arena_strndup(a, b.buf, b.len);
		*len = b.len;
	}
	close(fd);
	buf_release(&b);
	return rc;
}
