/*
 * This file implements what every warehouse's reading of a seed file shares:
 * the options of DuckDB's CSV reader, the reader's errors said as sluice
 * says them, and the names of a seed's columns. It opens no database (the
 * DuckDB backend reads with these options in SQL, csv_file.c in a DuckDB
 * of its own) and must never read a CSV file any other way: a seed loads
 * the same wherever it loads.
 */
#include "warehouse/csv.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/file_read.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void csv_sql_read(struct buf *sql, const char *path)
{
	buf_adds(sql, "read_csv(");
	buf_add_sql_str(sql, path);
	/* a seed's first line is its header: the sniffer may otherwise skip
	 * rows it finds out of shape and take a later one for the header */
	buf_adds(sql, ", header = true, skip = 0, auto_detect = true)");
}

int csv_check_readable(const char *path, struct sl_err *err)
{
	/* without O_NONBLOCK a FIFO put in a seed's place would block here */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	bool regular;

	if (fd < 0)
		return sl_err_set(err, SL_E_IO, "cannot read '%s': %s", path, strerror(errno));
	regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	close(fd);
	if (!regular)
		return sl_err_set(err, SL_E_IO, "cannot read '%s': not a regular file", path);
	return 0;
}

int csv_error(const char *path, int code, struct sl_err *err)
{
	if (!err)
		return code;
	file_error(path, path, code, err);
	sl_err_context(err, "hint: a seed is a CSV file in UTF-8 with a header row, read by "
			    "DuckDB's reader, which detects its delimiter, quoting and types");
	return code;
}

const char *csv_name_folded(struct arena *a, const char *name)
{
	bool plain = *name && !isdigit((unsigned char)*name), lower = true;
	char *out;

	for (const char *p = name; plain && *p; p++) {
		plain = isalnum((unsigned char)*p) || *p == '_';
		lower &= !isupper((unsigned char)*p);
	}
	if (!plain || lower)
		return name;
	out = arena_strdup(a, name);
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}
